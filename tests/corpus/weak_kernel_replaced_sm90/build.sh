#!/usr/bin/env bash
# The same template kernel from a -G object (first) and a plain object:
# the plain copy wins (fewer registers), and its parameter bank replaces
# the -G copy's instead of following it (0x21c, not 0x438).
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -G -rdc=true -c src/debug.cu -o debug.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/fast.cu -o fast.o
