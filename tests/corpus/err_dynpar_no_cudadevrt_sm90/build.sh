#!/usr/bin/env bash
# Same as dynpar_cudadevrt_sm90 but libcudadevrt is not linked.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/dp.cu -o dp.cubin
