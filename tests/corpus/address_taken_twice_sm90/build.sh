#!/usr/bin/env bash
# The addresses of g and h taken in both a.o and b.o (h first in b).
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/a.cu -o a.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/b.cu -o b.o --keep --keep-dir "$keep"
