#!/usr/bin/env bash
# A device function's shared array reached by two kernels (a prefix), an
# extern shared array, and a template kernel's weak shared struct aligned
# to 32: nvlink gives every kernel a .nv.shared.<k> (0x400 on sm_90, the
# kernels with no shared memory too), all aligned to 32, the alignment of
# everything .nv_debug.shared holds. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in dyn stage user plain tmpl; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/$f.cu -o $f.o
done
