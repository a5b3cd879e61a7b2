#!/usr/bin/env bash
# Weak data (C++17 inline pointer variable) after a strong definition: both weak copies keep their relocations.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/s.cu -o s.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/w1.cu -o w1.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/w2.cu -o w2.o --keep --keep-dir "$keep"
