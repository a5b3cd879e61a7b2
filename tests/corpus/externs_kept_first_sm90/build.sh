#!/usr/bin/env bash
# A kernel calling printf and another input's function that calls free,
# beside a second kernel: its EXTERNS record lost `free` to the callee's
# and is rewritten as its own names kept, then the callees'.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
