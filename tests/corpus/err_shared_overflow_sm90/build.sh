#!/usr/bin/env bash
# Kernels over the 48 KB of static shared memory only once linked with the
# callee of another file (README observation 207).
set -euo pipefail
for f in kernels tile; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o"
done
