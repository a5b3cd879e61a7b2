#!/usr/bin/env bash
# sm_100: ka calls mid, which calls trig in b.o, whose code holds PREEXIT
# (EIATTR_PREEXIT_USED 1); nvlink marks ka 1, mid and kb keep 0.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true -c src/$f.cu -o $f.o --keep --keep-dir "$keep"
done
