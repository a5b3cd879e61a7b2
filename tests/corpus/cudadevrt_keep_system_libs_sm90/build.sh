#!/usr/bin/env bash
# app.o is a host object (nvcc -rdc=true -c); libcudadevrt.a is our own
# archive named as the system library. --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/app.cu -o app.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o --keep --keep-dir "$keep"
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
