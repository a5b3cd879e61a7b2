#!/usr/bin/env bash
# -G objects: cmp<1> is defined (weak) in a.o and b.o; b.o's copy loses and
# nvlink drops its line sequences on sm_100+; c.o's unit comes after.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b c; do
  "$CUDA_BIN/nvcc" -arch=sm_120 -G -rdc=true -c src/$f.cu -o $f.o --keep --keep-dir "$keep"
done
