#!/usr/bin/env bash
# A device function's shared array reached by two kernels (a prefix) beside
# an extern shared array aligned to 16: nvlink gives every kernel a
# .nv.shared.<k> aligned to 16 (0 bytes for the kernels with no shared
# memory, in files without the array too), and the kernel with its own
# shared int 16 too. .nv_debug.shared is made where the array was met.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in dyn stage user plain; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_75 -rdc=true -c src/$f.cu -o $f.o
done
