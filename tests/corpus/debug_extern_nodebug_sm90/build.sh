#!/usr/bin/env bash
# nvcc -G code device-linked without -g (nvcc -dlink without -G): the
# extern shared array has no one offset, and nvlink leaves its value at -1:
# its DW_OP_addr in .debug_info is 0x3ff (-1 plus the reserved 0x400);
# the static array's is its offset plus 0x400. Built as nvcc builds it.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -G -rdc=true -c src/stage.cu -o stage.o
