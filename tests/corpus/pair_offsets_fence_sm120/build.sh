#!/usr/bin/env bash
# Kernels with (code offset, value) pair attributes after a fence:
# EIATTR_UNUSED_LOAD_BYTE_OFFSET and EIATTR_ATOM16_EMUL_INSTR_REG_MAP.
# nvlink's finalizer deletes the dummy loads before the fence and moves
# the pairs' offsets, keeping their values (observation 205).
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/a.cu -o a.cubin
