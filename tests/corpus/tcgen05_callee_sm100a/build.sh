#!/usr/bin/env bash
# One kernel calling tcgen05 device functions of another object (sm_100a).
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k tmem; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100a -rdc=true -c src/$f.cu -o $f.o
done
