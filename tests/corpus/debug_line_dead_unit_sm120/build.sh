#!/usr/bin/env bash
# -lineinfo objects as nvcc builds them (host code: b's kernel is never
# launched and goes); b's line-program unit keeps a lone end_sequence.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -lineinfo -rdc=true -c "src/$f.cu" -o "$f.o"
done
