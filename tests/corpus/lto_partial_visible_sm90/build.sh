#!/usr/bin/env bash
# Partial LTO: an -dlto object and a plain object that calls one of its
# device functions. nvlink's NVVM internalizes nothing then: every external
# device function of the IR stays .visible (called by the plain code, by
# nothing, or out of line), and the plain object's call resolves.
# LTO objects are host objects made with nvcc -dlto -rdc=true -c; --keep
# keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -dlto -rdc=true -c src/lib.cu -o lib.o
nv -arch=sm_90 -rdc=true -c src/app.cu -o app.o
