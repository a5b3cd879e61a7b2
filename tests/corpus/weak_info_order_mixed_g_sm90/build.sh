#!/usr/bin/env bash
# Weak template device functions from a plain object (first) and a -G
# object: the functions' .nv.info sections stay in the order the first
# object made them. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/plain.cu -o plain.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -G -rdc=true -c src/debug.cu -o debug.o
