#!/usr/bin/env bash
# Host objects combined before the device link: `ld -r` of two -rdc
# objects (their fatbins and module ids concatenated, their empty host
# lists too: "\0\0") and `nvcc -r` of two more (a prelinked fatbin first).
# nvlink links each object's first fatbin only, registers every module id
# (the further ones last, reversed), and reads "\0\0" as a list naming an
# empty pattern. Here no host code launches a kernel, yet "\0\0" limits
# the kernels kept: none is.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
for f in scale offset fill clear main; do
  nv -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
ld -r scale.o offset.o -o scale_offset.o
# nvcc names the prelinked module after the output's absolute path: made
# in a fixed folder, so that the id does not depend on the checkout.
fixed=/tmp/culdb-nvcc-r
rm -rf "$fixed" && mkdir -p "$fixed"
cp fill.o clear.o "$fixed/"
(cd "$fixed" && nv -arch=sm_90 -r fill.o clear.o -o fill_clear.o)
cp "$fixed/fill_clear.o" . && rm -rf "$fixed"
rm -f scale.o offset.o fill.o clear.o
