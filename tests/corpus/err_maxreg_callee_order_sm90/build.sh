#!/usr/bin/env bash
# Two kernels limited by __maxnreg__, each calling its own function of
# another object that uses more registers: one error each, in the order of
# the callees in the object defining them. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k heavy; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
