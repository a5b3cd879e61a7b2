#!/usr/bin/env bash
# main.cubin and lib.cubin are built for sm_120; the link targets sm_121a
# (another SM of the family, accelerated).
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_120 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_120 -c src/lib.ptx -o lib.cubin
