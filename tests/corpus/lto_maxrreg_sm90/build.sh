#!/usr/bin/env bash
# -maxrregcount under LTO reaches NVVM too (-maxreg): its PTX keeps register pressure down as nvlink's does.
# LTO objects are host objects made with nvcc -dlto -rdc=true -c; --keep
# keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -dlto -rdc=true -c src/kern.cu -o kern.o
nv -arch=sm_90 -rdc=true -c src/sysrt.cu -o cuda_device_runtime.o
rm -f libcudadevrt.a
ar rcsD libcudadevrt.a cuda_device_runtime.o
rm -f cuda_device_runtime.o
