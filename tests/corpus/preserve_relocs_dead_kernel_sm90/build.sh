#!/usr/bin/env bash
# -preserve-relocs keeps a kernel the host lists leave out: it takes no
# register count, stack or stack-size warning from its callees.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -rdc=true -c src/main.cu -o main.o
nv -arch=sm_90 -rdc=true -c src/lib.cu -o lib.o
