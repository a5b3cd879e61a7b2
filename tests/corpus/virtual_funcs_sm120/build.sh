#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/shapes.cu -o shapes.cubin
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/main.cu -o main.cubin
