#!/usr/bin/env bash
# main.cubin is built for sm_100, lib.cubin for sm_100; the link targets sm_103.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/lib.ptx -o lib.cubin
