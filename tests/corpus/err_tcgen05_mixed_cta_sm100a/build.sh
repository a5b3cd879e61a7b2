#!/usr/bin/env bash
# One kernel reaching tcgen05 allocations of .cta_group::1 and ::2.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100a -rdc=true -c src/mix.cu -o mix.o
