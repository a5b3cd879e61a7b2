#!/usr/bin/env bash
# A host object (nvcc -lineinfo -rdc=true -c); --keep keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_120 -lineinfo -rdc=true -c src/line.cu -o line.o --keep --keep-dir "$keep"
