#!/usr/bin/env bash
# An -Xptxas value as nvcc passes it (blank-separated, a trailing blank): nvlink splits it into ptxas options.
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
# The -Xptxas value, blanks included, from an options file (link.args is
# split at blanks).
printf '%s\n' '-Xptxas "-O0 --warn-on-spills "' > ptxas.opts
