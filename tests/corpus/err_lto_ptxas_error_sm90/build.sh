#!/usr/bin/env bash
# An IR module whose kernel uses too much shared memory: ptxas's error, then 'elfLink JIT compile failed' (not 'fatbinary error').
# LTO objects are host objects made with nvcc -dlto -rdc=true -c; --keep
# keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -dlto -rdc=true -c src/k.cu -o k.o
nv -arch=sm_90 -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
