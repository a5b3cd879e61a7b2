#!/usr/bin/env bash
# LTO objects are host objects made with nvcc -dlto -rdc=true -c (their
# fatbins hold encrypted NVVM IR); --keep keeps nvcc from embedding its
# pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
ARCH=sm_90
nv -arch=$ARCH -dlto -rdc=true -c src/cdp.cu -o cdp.o
