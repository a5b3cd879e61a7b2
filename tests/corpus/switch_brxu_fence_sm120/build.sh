#!/usr/bin/env bash
# sm_120 jump tables use BRXU (opcode 0x958, a uniform register), whose
# immediate holds an offset like BRX's; with a fence in the kernel nvlink's
# finalizer shortens it (observation 206).
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/a.cu -o a.cubin
