#!/usr/bin/env bash
# An object whose only kernel nothing launches (its frame record and the
# record's relocations go with it), before the object of the launched
# kernel: nvlink made .rela.debug_frame when it merged the first object,
# so that table (section header and name) comes before the later
# object's .rela.text.<kernel>. Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in main idle blend; do
  "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -rdc=true -c src/$f.cu -o $f.o
done
