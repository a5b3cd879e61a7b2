#!/usr/bin/env bash
# Undefined variables read only by dead code (a function nothing calls,
# one in an archive member): nvlink reports them, status 255.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
nv() { "$CUDA_BIN/nvcc" --keep --keep-dir "$keep" "$@"; }
nv -arch=sm_90 -rdc=true -c src/a.cu -o a.o
nv -arch=sm_90 -rdc=true -c src/lib.cu -o lib.o
rm -f libtables.a
nv -lib lib.o -o libtables.a
rm -f lib.o
