#!/usr/bin/env bash
# Functions the link removes (used, inlined into used2; unused, deadcaller,
# dead2, never called; k3 and nothing else, dropped by -kernels-used) keep
# their number in --dump-callgraph as empty lines.
set -euo pipefail
for f in f1 f2 f3; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
