#!/usr/bin/env bash
# Weak wf (inline) replaced by a later strong wf: the winner's .nv.info comes with its code, before ks.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true -std=c++17 -c src/weak.cu -o weak.o --keep --keep-dir "$keep"
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true -std=c++17 -c src/strong.cu -o strong.o --keep --keep-dir "$keep"
