#!/usr/bin/env bash
# A kernel with an mbarrier (EIATTR_MBARRIER_INSTR_OFFSETS) and a fence: nvlink's finalizer deletes the dummy loads before the fence, moving the mbarrier offsets.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/a.cu -o a.cubin
