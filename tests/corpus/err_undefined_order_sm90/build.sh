#!/usr/bin/env bash
# Undefined functions and variables in three objects: nvlink reports them
# input by input (the first that refers to each), functions first, then
# variables.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in first second third; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
