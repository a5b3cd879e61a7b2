#!/usr/bin/env bash
# A 400-byte shared array aligned to 128 and an extern shared array: the section's static part is rounded up to 128 (0x600 with the reserved part), the extern array stays at 0x190.
# Built as nvcc builds a program (a host object with the kernels' host lists).
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/a.cu -o a.o
