#!/usr/bin/env bash
# The only kernel uses .cta_group::1 itself and calls ::2 code.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100a -rdc=true -c src/own.cu -o own.o
