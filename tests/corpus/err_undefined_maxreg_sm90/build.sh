#!/usr/bin/env bash
# Undefined references beside a max-regcount error: nvlink links on after
# the undefined references and reports the finalizer's error too.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
