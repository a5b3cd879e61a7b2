#!/usr/bin/env bash
# main.cubin is built for sm_90, lib.cubin for sm_80; the link targets sm_90.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_80 -c src/lib.ptx -o lib.cubin
