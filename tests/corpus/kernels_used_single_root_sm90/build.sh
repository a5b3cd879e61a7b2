#!/usr/bin/env bash
# -kernels-used keeps one kernel; another stays only through its address
# (README observation 201).
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/k.cu -o k.cubin
