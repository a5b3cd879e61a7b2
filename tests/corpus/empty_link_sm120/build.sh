#!/usr/bin/env bash
# A whole-program (non -rdc) host object; --keep keeps nvcc from embedding
# its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_120 -c src/whole.cu -o whole.o --keep --keep-dir "$keep"
