#!/usr/bin/env bash
# main.cubin is built for sm_86, lib.cubin for sm_80; the link targets sm_86.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_86 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_80 -c src/lib.ptx -o lib.cubin
