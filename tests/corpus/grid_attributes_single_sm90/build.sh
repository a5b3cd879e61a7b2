#!/usr/bin/env bash
# One kernel calling fb (barrier), f2 (EIATTR_GRID_ATTRIBUTES 0xc) and fp
# (printf): NUM_BARRIERS, EXTERNS, then GRID_ATTRIBUTES.
set -euo pipefail
for f in s m; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
