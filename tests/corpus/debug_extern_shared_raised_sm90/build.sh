#!/usr/bin/env bash
# -G: an extern shared array starts past another one its kernels reach
# (README observation 210).
set -euo pipefail
for f in rows mark cols sum; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -G -rdc=true -c "src/$f.cu" -o "$f.o"
done
