#!/usr/bin/env bash
# Two objects that both define a kernel, two functions and three variables
# (symbol table order: kernel, variables, functions). nvlink reports every
# one, functions first, then fails.
set -euo pipefail
for f in first second; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
