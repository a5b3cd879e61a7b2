#!/usr/bin/env bash
# Initialised C++17 inline __device__ arr and pointer pa = &arr[2] (.weak, relocated initialiser in .nv.global.init) defined in a.o and b.o.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/a.cu -o a.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/b.cu -o b.o --keep --keep-dir "$keep"
