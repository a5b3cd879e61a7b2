#!/usr/bin/env bash
# a.o is a host object (nvcc -rdc=true -c); --keep keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/a.cu -o a.o --keep --keep-dir "$keep"
