#!/usr/bin/env bash
# A host object in a subfolder, named through a path with directories.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
mkdir -p obj
"$CUDA_BIN/nvcc" -arch=sm_90 -G -rdc=true -c src/paths.cu -o obj/paths.o --keep --keep-dir "$keep"
