#!/usr/bin/env bash
# -v with user __constant__ data (cmem[3] in the gmem line), a kernel with
# bank-2 data (cmem[2]), and two NOBITS sections (.nv.global, .nv.shared._Z2k2Pf)
# for the barrier count of kernels without EIATTR_NUM_BARRIERS.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_80 -rdc=true --cubin src/a.cu -o a.cubin
