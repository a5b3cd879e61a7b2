#!/usr/bin/env bash
# An sm_107 link (nvcc -arch=all builds it): nvlink ends every function's
# .nv.info.<f> with attribute 0x67 (a byte, 0) that the objects lack.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k f; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_107 -rdc=true -c src/$f.cu -o $f.o
done
