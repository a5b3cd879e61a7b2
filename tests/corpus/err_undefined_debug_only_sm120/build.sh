#!/usr/bin/env bash
# A -G object whose only references to two undefined variables are in its
# debug information (sm_120). Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -G -rdc=true -c src/use.cu -o use.o
