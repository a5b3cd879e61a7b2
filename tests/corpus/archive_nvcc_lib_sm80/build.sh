#!/usr/bin/env bash
# libx.a is created by nvcc -lib from host objects (nvcc -rdc=true -c);
# main.o is a host object too.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for m in main m1 m2 m3 m4; do
  "$CUDA_BIN/nvcc" -arch=sm_80 -rdc=true -c "src/$m.cu" -o "$m.o" --keep --keep-dir "$keep"
done
rm -f libx.a
"$CUDA_BIN/nvcc" -lib m1.o m2.o m3.o m4.o -o libx.a
rm -f m1.o m2.o m3.o m4.o
