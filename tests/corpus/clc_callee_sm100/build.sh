#!/usr/bin/env bash
# A kernel calling a device function that uses cluster launch control.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -rdc=true -c src/clc.cu -o clc.o
