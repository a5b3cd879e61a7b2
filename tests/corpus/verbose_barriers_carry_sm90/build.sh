#!/usr/bin/env bash
# -v (nvcc -res-usage): a kernel without EIATTR_NUM_BARRIERS shows the
# barrier count of the kernel printed before it, the first such the count
# of NOBITS sections.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in plain bars; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
