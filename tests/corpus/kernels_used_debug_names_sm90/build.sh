#!/usr/bin/env bash
# -G code linked with -g and -kernels-used (the fifteenth sweep).
# libcudadevrt.a is copied from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -G -c src/a.cu -o a.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
