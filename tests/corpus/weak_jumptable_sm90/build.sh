#!/usr/bin/env bash
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
