#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true --cubin src/main.cu -o main.cubin
"$CUDA_BIN/nvcc" -arch=sm_75 -rdc=true --cubin src/lib.cu -o lib.cubin
