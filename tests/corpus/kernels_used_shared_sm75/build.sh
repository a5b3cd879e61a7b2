#!/usr/bin/env bash
# -kernels-used keeps stage and total: nvlink names the shared memory of
# the kernels it leaves out that have static shared memory (blur, scan)
# in the string tables, where it meets their sections, after the code
# of their object's kept kernels.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in first second; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_75 -rdc=true -c src/$f.cu -o $f.o
done
