#!/usr/bin/env bash
# Host objects (nvcc -dlto -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in host launcher; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -dlto -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
