#!/usr/bin/env bash
# main.o carries an sm_90 cubin; util_sm80.o an sm_80 cubin plus compute_80
# PTX. Linking for sm_90, nvlink cannot use the sm_80 cubin and compiles the
# embedded PTX instead.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/main.cu -o main.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_80 -rdc=true -c src/util.cu -o util_sm80.o --keep --keep-dir "$keep"
