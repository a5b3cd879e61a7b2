#!/usr/bin/env bash
# -G objects for sm_100: a.o and b.o each define CUDA's static `umin`; b.o's
# block for it in .nv_debug_info_reg_sass has its ranges zeroed by nvlink
# although both copies' code stays (b.o's `umax` keeps its ranges).
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -G -rdc=true -c src/$f.cu -o $f.o --keep --keep-dir "$keep"
done
