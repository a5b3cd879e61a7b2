#!/usr/bin/env bash
# LTO objects whose host code names `hits` and `scale` (a.cu) but not
# `hits2` and `scale2` (b.cu): host-reference lists match whole names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
ARCH=sm_90
nv -arch=$ARCH -dlto -rdc=true -c src/a.cu -o a.o
nv -arch=$ARCH -dlto -rdc=true -c src/b.cu -o b.o
nv -arch=$ARCH -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
