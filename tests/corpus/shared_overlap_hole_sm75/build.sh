#!/usr/bin/env bash
# Host objects (nvcc -rdc=true -c -G); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -G -arch=sm_75 -rdc=true -c src/k.cu -o k.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -G -arch=sm_75 -rdc=true -c src/d.cu -o d.o --keep --keep-dir "$keep"
