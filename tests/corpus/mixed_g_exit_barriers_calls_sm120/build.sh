#!/usr/bin/env bash
# One object built with -G beside a plain one whose kernels call: nvlink's
# finalizer puts exit barriers before every EXIT of these kernels too, and
# their return addresses (the relocations against the kernel itself) and
# call relocations move with the code.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -G -rdc=true -c src/probe.cu -o probe.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -rdc=true -c src/plain.cu -o plain.o
