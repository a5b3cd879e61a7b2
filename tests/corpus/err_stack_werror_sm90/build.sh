#!/usr/bin/env bash
set -euo pipefail
for f in kern chain rec; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
