#!/usr/bin/env bash
# nvcc -G code linked with -g: the extern shared array's one offset is the
# largest any kernel reaching it needs (0x190), rounded up to the largest
# alignment of those kernels' own shared variables (64): 0x1c0.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_75 -G -rdc=true -c src/tiles.cu -o tiles.o
