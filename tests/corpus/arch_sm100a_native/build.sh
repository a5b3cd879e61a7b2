#!/usr/bin/env bash
# main.cubin and lib.cubin are built for sm_100a and linked for sm_100a:
# their .nv.compat already says so, and nvlink keeps their
# CAN_FASTPATH_FINALIZE (not masked as for sm_100 objects).
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100a -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_100a -c src/lib.ptx -o lib.cubin
