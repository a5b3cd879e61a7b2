#!/usr/bin/env bash
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_75 -c src/k.ptx -o k.cubin
