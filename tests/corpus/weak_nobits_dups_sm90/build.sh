#!/usr/bin/env bash
# Zero-initialised C++17 inline __device__ gp (.weak, NOBITS .nv.global) in q1 (with x1), q2 (alone), q4 (with y4); q3 has y3 only.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/q1.cu -o q1.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/q2.cu -o q2.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/q4.cu -o q4.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/q3.cu -o q3.o --keep --keep-dir "$keep"
