#!/usr/bin/env bash
# main.cubin and lib.cubin are built for sm_100; the link targets sm_100a
# (an accelerated target of the same SM: nvlink rewrites .nv.compat).
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/lib.ptx -o lib.cubin
