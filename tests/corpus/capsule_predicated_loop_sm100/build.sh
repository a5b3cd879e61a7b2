#!/usr/bin/env bash
# A kernel whose unrolled loop ends in a predicated backward '@P0 BRA' of the closing branch's shape, reading a __constant__ variable: its capsule's items are its instructions, and the constant operands are written into it.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin src/a.cu -o a.cubin
