#!/usr/bin/env bash
# sm_90: ka calls mid, which calls trig in b.o, whose code holds PREEXIT
# (EIATTR_PREEXIT_USED 1); on sm_90 nvlink leaves ka at 0 (sm_100+ marks it 1).
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o --keep --keep-dir "$keep"
done
