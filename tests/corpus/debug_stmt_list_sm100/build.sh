#!/usr/bin/env bash
# Two -G host objects (nvcc -G -rdc=true -c); --keep keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in main lib; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -G -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
