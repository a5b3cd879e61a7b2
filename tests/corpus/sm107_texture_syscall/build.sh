#!/usr/bin/env bash
# sm_107 texture and surface kernels (the syscalls only the classic side
# has), one with a callee, in two objects. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in t u; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_107 -rdc=true -c src/$f.cu -o $f.o
done
