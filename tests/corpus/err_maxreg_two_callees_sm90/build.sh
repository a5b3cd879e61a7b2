#!/usr/bin/env bash
# One kernel limited by __maxnreg__ calling two functions of another
# object that use more registers: one error per function, in their order
# in that object. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k heavy; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
