#!/usr/bin/env bash
# nvcc -G code with __syncthreads() device-linked without -g on sm_120:
# the finalizer writes the kernel anew (it deletes the MEMBAR.SC.VC before
# the exit barriers), and its line sequences and register ranges are the
# finalizer's; the extern array's DW_OP_addr is 0x3ff (-1 plus 0x400).
# Built as nvcc builds it.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -G -rdc=true -c src/stage.cu -o stage.o
