#!/usr/bin/env bash
# -kernels-used naming a kernel that launches nothing: the kernel a
# removed kernel launched stays as a function (its address is taken) and
# keeps its EXTERNS (README observation 201). libcudadevrt.a is copied
# from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true -c src/top.cu -o top.o
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true -c src/nested.cu -o nested.o
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
