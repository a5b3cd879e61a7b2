#!/usr/bin/env bash
# Two objects, each with its own local copy of libdevice's pow helper and
# that copy's .nv.constant2.<helper>: nvlink copies each copy's doubles into
# the banks of the kernels calling that copy (growth's from the first
# object; decay's and halflife's from the second), not both into one.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in growth decay; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_75 -rdc=true -c src/$f.cu -o $f.o
done
