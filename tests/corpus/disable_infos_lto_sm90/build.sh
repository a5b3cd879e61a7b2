#!/usr/bin/env bash
# k.o holds NVVM IR (nvcc -dlto), r.o and r2.o device code: partial LTO.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -dlto -rdc=true -c src/k.cu -o k.o --keep --keep-dir "$keep"
for f in r r2; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
