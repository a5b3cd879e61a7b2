#!/usr/bin/env bash
# -kernels-used keeps two kernels; a third stays through its address, an entry point
# (README observation 201).
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/k.cu -o k.cubin
