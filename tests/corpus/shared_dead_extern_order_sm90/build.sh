#!/usr/bin/env bash
# An extern shared array only removed code names, in the first input:
# `.nv_debug.shared` is created there, before the next input's sections.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -rdc=true -c src/unlaunched.cu -o unlaunched.o
nv -arch=sm_90 -rdc=true -c src/tile.cu -o tile.o
