#!/usr/bin/env bash
# Kernels calling device functions with EIATTR_GRID_ATTRIBUTES: multimem.ld_reduce
# gives 0x4 (f1, kB and kG themselves), multimem.st 0xc (f2); fb has a barrier,
# fp calls printf.
set -euo pipefail
for f in k m; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
