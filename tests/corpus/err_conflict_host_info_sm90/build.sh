#!/usr/bin/env bash
# Conflicting options: -use-host-info with -ignore-host-info, and
# -dump-callgraph with -dump-callgraph-no-demangle, which nvlink names
# first.
set -euo pipefail
for f in main lib; do
  "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"
done
