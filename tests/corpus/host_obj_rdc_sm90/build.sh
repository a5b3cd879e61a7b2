#!/usr/bin/env bash
# Host objects from nvcc -rdc=true -c (each embeds a fatbin with the sm_90
# cubin and compute_90 PTX). --keep (into a temporary keep dir) keeps nvcc from
# embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in main util; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o" --keep --keep-dir "$keep"
done
