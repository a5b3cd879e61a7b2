#!/usr/bin/env bash
# Host objects (nvcc -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc"  -arch=sm_90 -rdc=true -c src/dce_g.cu -o dce_g.o --keep --keep-dir "$keep"
