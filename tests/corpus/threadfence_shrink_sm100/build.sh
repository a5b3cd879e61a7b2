#!/usr/bin/env bash
# One host object (nvcc -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true -c src/fence.cu -o fence.o --keep --keep-dir "$keep"
