#!/usr/bin/env bash
# Two files: recursive device functions, and two kernels reaching them
# directly, through another function and through a function-pointer table.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_86 -rdc=true -c src/rec.cu -o rec.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_86 -rdc=true -c src/k.cu -o k.o --keep --keep-dir "$keep"
