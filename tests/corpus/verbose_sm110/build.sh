#!/usr/bin/env bash
set -euo pipefail
for f in kern one two three; do
  "$CUDA_BIN/ptxas" -arch=sm_110 -c "src/$f.ptx" -o "$f.cubin"
done
