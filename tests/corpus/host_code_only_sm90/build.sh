#!/usr/bin/env bash
# kern.o: nvcc -rdc=true -c (a host object with device code and .nvHR*
# lists); main.o: a host-only C++ file compiled by nvcc (no device code).
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/kern.cu -o kern.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -c src/main.cpp -o main.o --keep --keep-dir "$keep"
