#!/usr/bin/env bash
# -G code reaching a function's bank 2 only through an indirect call
# (README observation 209).
set -euo pipefail
for f in ops run; do
  "$CUDA_BIN/nvcc" -arch=sm_75 -G -rdc=true -c "src/$f.cu" -o "$f.o"
done
