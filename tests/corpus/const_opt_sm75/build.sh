#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true --cubin src/k.cu -o k.cubin
