#!/usr/bin/env bash
# main.cubin is built for sm_80, lib.cubin for sm_86; the link targets sm_80.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_80 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_86 -c src/lib.ptx -o lib.cubin
