#!/usr/bin/env bash
# -use-host-info, -device-stack-protector false and -r with -maxrregcount
# and -dump-callgraph: nvlink records them in its tkinfo note, in its
# option table's order.
set -euo pipefail
for f in main lib; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
