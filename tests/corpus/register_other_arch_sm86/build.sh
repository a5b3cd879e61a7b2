#!/usr/bin/env bash
# old.o and the member lib_old.o carry sm_75 code only (no PTX); app.o is
# sm_86. nvlink links app.o alone for sm_86 (warning for old.o, silence for
# the member) but its registration file names all three modules, as the
# host objects register them (nvcc's host link needs every one). --keep
# keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -gencode arch=compute_75,code=sm_75 -rdc=true -c src/old.cu -o old.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -gencode arch=compute_75,code=sm_75 -rdc=true -c src/lib_old.cu -o lib_old.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_86 -rdc=true -c src/app.cu -o app.o --keep --keep-dir "$keep"
rm -f libold.a
ar rcsD libold.a lib_old.o
rm -f lib_old.o
