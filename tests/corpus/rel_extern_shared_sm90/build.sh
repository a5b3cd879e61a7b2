#!/usr/bin/env bash
# A host object, then nvlink -r of it: the input is nvlink's relocatable
# output. --keep keeps nvcc from embedding its pid-based temporary names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/dyn.cu -o "$keep/dyn.o" --keep --keep-dir "$keep"
"$CUDA_BIN/nvlink" -arch=sm_90 -r "$keep/dyn.o" -o dyn_r.cubin
