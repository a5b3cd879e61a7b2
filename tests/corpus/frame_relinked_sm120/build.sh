#!/usr/bin/env bash
# A cubin, then another through nvlink -r: the second input is nvlink's
# relocatable output.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/first.cu -o first.cubin
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/second.cu -o "$keep/second.cubin"
"$CUDA_BIN/nvlink" -arch=sm_120 -r "$keep/second.cubin" -o second_r.cubin
