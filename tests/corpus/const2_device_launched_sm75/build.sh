#!/usr/bin/env bash
# Bank 2 on sm_75 for a kernel that launches another from the device: the
# launcher does not take the launched kernel's constants.
# libcudadevrt.a is copied from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_75 -rdc=true -c src/launcher.cu -o launcher.o
nv -arch=sm_75 -rdc=true -c src/child.cu -o child.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
