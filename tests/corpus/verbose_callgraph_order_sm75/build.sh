#!/usr/bin/env bash
# -v's "Function properties" order (the call graph's numbering, printed
# last to first) when the first object names kernels before defining its
# own. libcudadevrt.a is copied from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_75 -rdc=true -c src/parent.cu -o parent.o
nv -arch=sm_75 -rdc=true -c src/child.cu -o child.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
