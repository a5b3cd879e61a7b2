#!/usr/bin/env bash
# A kernel only device code launches, with -kernels-used naming the
# launcher alone (README observation 201). libcudadevrt.a is copied from
# $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/a.cu -o a.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
