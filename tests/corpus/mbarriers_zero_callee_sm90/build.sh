#!/usr/bin/env bash
# A callee with EIATTR_NUM_MBARRIERS 0 (it waits on a barrier passed in)
# called by the only kernel, which has no barrier of its own. Built as
# nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k w; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
