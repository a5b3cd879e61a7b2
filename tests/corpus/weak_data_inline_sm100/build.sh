#!/usr/bin/env bash
# sm_100, C++17: a.o and b.o both define the inline variables table and
# table_ptr (weak data); b.o's copies lose, and nvlink drops the relocation
# of b.o's table_ptr initializer from .nv.merc.rela.nv.global.init as it
# does from the classic table.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
for f in a b; do
  "$CUDA_BIN/nvcc" -std=c++17 -arch=sm_100 -rdc=true -c src/$f.cu -o $f.o --keep --keep-dir "$keep"
done
