#!/usr/bin/env bash
# A kernel limited to 32 registers (__maxnreg__) calling another input's
# function that uses 140: nvlink refuses the link.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
