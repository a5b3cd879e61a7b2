#!/usr/bin/env bash
# A plain object (local __cuda_sm3x_div_rn_noftz_f32_slowpath) before a -G
# one (a weak global function of that name): nvlink keeps two sections of
# that name, each kernel calling its own object's code. culdb had put the
# weak code into the local function's section (wrong code for
# scalePlain).
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -rdc=true -c src/plain.cu -o plain.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_90 -G -rdc=true -c src/debug.cu -o debug.o
