#!/usr/bin/env bash
# A lone kernel's intact EXTERNS record when a callee brings a new name.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin src/pool.cu -o pool.cubin
