#!/usr/bin/env bash
# main.cubin is built for sm_100, lib.cubin for sm_120; the link targets sm_100.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_120 -c src/lib.ptx -o lib.cubin
