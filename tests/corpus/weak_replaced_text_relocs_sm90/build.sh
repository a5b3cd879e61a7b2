#!/usr/bin/env bash
# Weak wf whose code has RELA relocations (it reads wy) replaced by a later strong wf: its .debug_frame relocation goes.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/weak.cu -o weak.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -std=c++17 -c src/strong.cu -o strong.o --keep --keep-dir "$keep"
