#!/usr/bin/env bash
set -euo pipefail
for f in main m1 m2 m3; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
rm -f libx.a
ar rcsD libx.a m1.cubin m2.cubin m3.cubin
rm -f m1.cubin m2.cubin m3.cubin
