#!/usr/bin/env bash
# -G objects: scale.o holds PTX only (compute_80), which nvlink compiles for
# sm_86 with its own ptxas; --keep keeps nvcc from embedding its pid-based
# temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -gencode arch=compute_80,code=compute_80 -G -rdc=true -c src/scale.cu -o scale.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_86 -G -rdc=true -c src/main.cu -o main.o --keep --keep-dir "$keep"
