#!/usr/bin/env bash
# An extern "C" function declared with two prototypes in two files
# (README observation 211).
set -euo pipefail
for f in caller_a caller_b impl; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o"
done
