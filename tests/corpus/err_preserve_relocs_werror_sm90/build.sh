#!/usr/bin/env bash
# Host objects (nvcc -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in k r r2; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
