#!/usr/bin/env bash
# m1 (1 mbarrier) and m2 (2) called by k, m2 by k2; m1's EIATTR_NUM_MBARRIERS
# (0x38) set to 0xffff, the unknown count NVSHMEM's reductions have.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/m.cu -o m.cubin
python3 ../../../scripts/nvinfo-setattr.py m.cubin _Z2m1Pi 0x38 0xffff
