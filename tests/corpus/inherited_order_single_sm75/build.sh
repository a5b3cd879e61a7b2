#!/usr/bin/env bash
# Host objects (nvcc -G -rdc=true -c); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -G -arch=sm_75 -rdc=true -c src/inherited_order_single.cu -o inherited_order_single.o --keep --keep-dir "$keep"
