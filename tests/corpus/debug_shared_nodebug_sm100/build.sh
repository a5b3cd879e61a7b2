#!/usr/bin/env bash
# -G code linked without -g (a device link without -G): the DW_OP_addr of
# the shared array in .nv.merc.debug_info gets its offset plus the reserved
# part (0x400), as the classic .debug_info, whose bytes it then shares.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100 -G -rdc=true --cubin src/a.cu -o a.cubin
