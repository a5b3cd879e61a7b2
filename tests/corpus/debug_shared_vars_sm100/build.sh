#!/usr/bin/env bash
# Host objects (nvcc -rdc=true -c -G); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -G -arch=sm_100 -rdc=true -c src/a.cu -o a.o --keep --keep-dir "$keep"
