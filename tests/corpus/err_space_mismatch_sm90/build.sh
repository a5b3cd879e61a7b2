#!/usr/bin/env bash
# A variable named in another memory space, or without the managed
# attribute it was defined with: nvlink reports "Memory space doesn't
# match" and "Managed attribute doesn't match" (the input naming it again,
# the one first specifying it), then merge_elf failed, status 1.
set -euo pipefail
for f in tables users managed_const; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
