#!/usr/bin/env bash
# Six kernels (one of them static) reaching ping/pong, a recursion across two
# objects: six "cannot be statically determined" warnings.
set -euo pipefail
for f in k1 k2 r r2; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
