#!/usr/bin/env bash
# main.cubin is built for sm_90a, lib.cubin for sm_90; the link targets sm_90a.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90a -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/lib.ptx -o lib.cubin
