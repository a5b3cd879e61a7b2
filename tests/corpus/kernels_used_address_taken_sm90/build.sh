#!/usr/bin/env bash
# -kernels-used with an address-taken device function and its helper.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/pick.cu -o pick.cubin
