#!/usr/bin/env bash
# A -G cubin, and libcudadevrt.a (~1.1 MB, one host-object member with
# sm_75..sm_121 cubins) copied from $CUDA_LIB: it is a real input of the link.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -G -rdc=true --cubin src/dp.cu -o dp.cubin
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
