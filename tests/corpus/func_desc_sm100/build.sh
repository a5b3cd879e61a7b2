#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin src/d.cu -o d.cubin
