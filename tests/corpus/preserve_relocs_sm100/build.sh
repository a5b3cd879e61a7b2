#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/lib.ptx -o lib.cubin
