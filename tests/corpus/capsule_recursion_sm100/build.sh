#!/usr/bin/env bash
# Mutually recursive device functions in one object, a second object
# beside it: nvlink's finalizer writes a flag into even's capsule that
# ptxas left 0; nvJitLink, linking parity.o alone, writes the same capsule.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in parity other; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -rdc=true -c src/$f.cu -o $f.o
done
