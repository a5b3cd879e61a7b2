#!/usr/bin/env bash
set -euo pipefail
for f in kern lib; do
  "$CUDA_BIN/ptxas" -arch=sm_100 -c "src/$f.ptx" -o "$f.cubin"
done
