#!/usr/bin/env bash
# A device-launched kernel's callees stay although no indirect call
# matches its (empty) prototype. libcudadevrt.a is copied from
# $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -rdc=true -c src/parent.cu -o parent.o
nv -arch=sm_90 -rdc=true -c src/child.cu -o child.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
