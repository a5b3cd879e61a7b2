#!/usr/bin/env bash
# main.o carries an sm_90 cubin; util_ptx.o carries only compute_80 PTX.
# Linking for sm_90, nvlink has to compile the PTX of util itself.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/main.cu -o main.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -gencode arch=compute_80,code=compute_80 -rdc=true -c src/util.cu -o util_ptx.o --keep --keep-dir "$keep"
