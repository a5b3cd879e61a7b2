#!/usr/bin/env bash
# app.o, whose dead code calls a function nothing defines, and
# libcudadevrt.a (our own archive named as the system library: two members
# defining functions nobody calls). nvlink links both members: a function
# is still undefined when each is read. --keep keeps nvcc from embedding
# its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/app.cu -o app.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/sys_a.cu -o sys_a.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/sys_b.cu -o sys_b.o --keep --keep-dir "$keep"
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a sys_a.o sys_b.o
rm -f sys_a.o sys_b.o
