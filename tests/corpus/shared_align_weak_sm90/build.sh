#!/usr/bin/env bash
# A kernel with two float shared arrays beside a template kernel's weak
# float4 shared array: ptxas aligns every .nv.shared section of the object
# to 16; nvlink aligns the kernel's output section as what it holds (4).
# Built as nvcc builds a program (a host object with the kernels' host lists).
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/a.cu -o a.o
