#!/usr/bin/env bash
# Two global __constant__ arrays of one name and two sizes: "Size doesn't
# match", then "Multiple definition".
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
