#!/usr/bin/env bash
# Recursion and an undefined variable: warning, then the error.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/a.cu -o a.cubin
