#!/usr/bin/env bash
# A host object (nvcc -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/dyn.cu -o dyn.o --keep --keep-dir "$keep"
