#!/usr/bin/env bash
# Two -lineinfo host objects (nvcc -lineinfo -rdc=true -c); --keep keeps nvcc
# from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in first second; do
  "$CUDA_BIN/nvcc" -arch=sm_120 -lineinfo -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
