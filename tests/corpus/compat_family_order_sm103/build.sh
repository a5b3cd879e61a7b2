#!/usr/bin/env bash
# An sm_103 object and an sm_100f one linked for sm_103: the attribute only
# the second has goes before FINALIZER_VERSION, which nvlink writes last.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_103 -rdc=true -c src/app.cu -o app.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100f -rdc=true -c src/lib.cu -o lib.o
