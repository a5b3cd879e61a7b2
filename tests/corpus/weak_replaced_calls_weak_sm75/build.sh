#!/usr/bin/env bash
# weak.o's inline wf calls h and g; weak2.o's wf replaces it. --keep keeps
# nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true -c src/weak.cu -o weak.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true -c src/weak2.cu -o weak2.o --keep --keep-dir "$keep"
