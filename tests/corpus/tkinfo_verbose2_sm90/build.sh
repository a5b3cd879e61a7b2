#!/usr/bin/env bash
# -v and -v2 together: nvlink records both flags in its tkinfo note,
# `-v  -v2  ` in its option table's order, and prints -v2's lines.
set -euo pipefail
for f in main lib; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
