#!/usr/bin/env bash
# main.cubin is a bare cubin; the archive members are host objects
# (nvcc -rdc=true -c). --keep (into a temporary keep dir) keeps nvcc from embedding
# its pid-based temporary file names, so the objects are reproducible.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/main.cu -o main.cubin
for m in m1 m2 m3 m4; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$m.cu" -o "$m.o" --keep --keep-dir "$keep"
done
rm -f libx.a
ar rcsD libx.a m1.o m2.o m3.o m4.o
rm -f m1.o m2.o m3.o m4.o
