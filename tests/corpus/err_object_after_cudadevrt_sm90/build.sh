#!/usr/bin/env bash
# lib.cubin, then libcudadevrt.a (our own archive named as the system
# library), then main.cubin: nothing is undefined when libcudadevrt has been
# read, so nvlink refuses main.cubin after it (main.cubin libcudadevrt.a
# lib.cubin links: main.cubin's call is still open). --keep keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/lib.ptx -o lib.cubin
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o --keep --keep-dir "$keep"
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
