#!/usr/bin/env bash
# Four kernels in two objects, each limited to fewer registers than the
# heavy function they call (a third object) uses: nvlink names them in
# the order of its -v lines, the reverse of its stack-size warnings.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in bounds maxn heavy; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
