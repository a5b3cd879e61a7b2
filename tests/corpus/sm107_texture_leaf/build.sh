#!/usr/bin/env bash
# sm_107 texture kernels in a link with no call but the texture syscalls.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_107 -rdc=true -c src/u.cu -o u.o
