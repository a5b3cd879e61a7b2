#!/usr/bin/env bash
# libcudadevrt.a is copied from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin src/m.cu -o m.cubin
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
