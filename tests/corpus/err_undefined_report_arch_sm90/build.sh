#!/usr/bin/env bash
# Only the caller is built: add_bias() and bias stay undefined.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/main.ptx -o main.cubin
