#!/usr/bin/env bash
# The host objects' lists keep one kernel; another stays only through its
# address (README observation 201).
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/h.cu -o h.o
