#!/usr/bin/env bash
# One -lineinfo host object (nvcc -lineinfo -rdc=true -c); --keep keeps nvcc
# from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_120 -lineinfo -rdc=true -c src/lines.cu -o lines.o --keep --keep-dir "$keep"
