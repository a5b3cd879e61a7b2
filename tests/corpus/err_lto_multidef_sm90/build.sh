#!/usr/bin/env bash
# Two IR modules defining one __device__ variable: NVVM's link error, printed as one message with its blank line, then 'elfLink JIT compile failed'.
# LTO objects are host objects made with nvcc -dlto -rdc=true -c; --keep
# keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -dlto -rdc=true -c src/a.cu -o a.o
nv -arch=sm_90 -dlto -rdc=true -c src/b.cu -o b.o
nv -arch=sm_90 -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
