#!/usr/bin/env bash
# Two relocatable cubins (nvcc -rdc=true --cubin).
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
