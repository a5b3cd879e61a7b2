#!/usr/bin/env bash
# main.cubin and lib.cubin are built for sm_110 (Thor), and linked for it.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_110 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_110 -c src/lib.ptx -o lib.cubin
