#!/usr/bin/env bash
# Two sm_120a host objects (nvcc -rdc=true -c); --keep keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in scale call; do
  "$CUDA_BIN/nvcc" -arch=sm_120a -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
