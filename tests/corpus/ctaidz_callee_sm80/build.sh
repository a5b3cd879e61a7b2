#!/usr/bin/env bash
set -euo pipefail
for f in z plane; do
  "$CUDA_BIN/nvcc" -arch=sm_80 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
