#!/usr/bin/env bash
set -euo pipefail
for f in fp ext; do
  "$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
