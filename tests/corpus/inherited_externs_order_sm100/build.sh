#!/usr/bin/env bash
# sm_100 -G, two kernels: k1's inherited EXTERNS and NUM_BARRIERS come in
# their givers' reading order, among the records the Mercury table also
# has (before CBANK_PARAM_SIZE).
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_100 -G -rdc=true -c src/a.cu -o a.o --keep --keep-dir "$keep"
