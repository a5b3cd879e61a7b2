#!/usr/bin/env bash
# An address-taken function's own calls are followed only when live code
# makes an indirect call of its prototype.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/ops.cu -o ops.cubin
