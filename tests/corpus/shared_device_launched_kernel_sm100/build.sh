#!/usr/bin/env bash
# A device-launched kernel's shared memory stays its own: the launcher
# gets no .nv.shared section. libcudadevrt.a is copied from $CUDA_LIB, as
# in dynpar_cudadevrt_sm90.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_100 -rdc=true -c src/launcher.cu -o launcher.o
nv -arch=sm_100 -rdc=true -c src/children.cu -o children.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
