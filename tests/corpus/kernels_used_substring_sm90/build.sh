#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/k.cu -o k.cubin
