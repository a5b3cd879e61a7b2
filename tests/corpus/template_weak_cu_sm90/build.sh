#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/a.cu -o a.cubin
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/b.cu -o b.cubin
