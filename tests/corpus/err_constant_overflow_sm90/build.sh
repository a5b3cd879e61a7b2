#!/usr/bin/env bash
# Two inputs whose __constant__ data together exceed bank 3's 64 KB.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
