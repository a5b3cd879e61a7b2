#!/usr/bin/env bash
# A kernel whose code has a NOP (after the call into libdevice's division
# slow path) before an operand of an extern __constant__ struct: the NOP
# has no capsule item, so the records after it belong one instruction
# further on. nvlink writes the field's offset (0xc) into the record of
# the instruction that reads it; culdb wrote 0 into the one before it.
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in scale cfg; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_120 -rdc=true -c src/$f.cu -o $f.o
done
