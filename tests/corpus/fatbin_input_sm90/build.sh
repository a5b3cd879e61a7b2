#!/usr/bin/env bash
# lib.fatbin wraps the sm_90 cubin of lib.ptx plus an sm_80 cubin of the same
# source (which must be ignored for an sm_90 link) in a fat binary;
# main.cubin is bare.
set -euo pipefail
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/main.ptx -o main.cubin
sed 's/^\.target sm_90$/.target sm_80/' src/lib.ptx >"$tmp/lib80.ptx"
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/lib.ptx -o "$tmp/lib90.cubin"
"$CUDA_BIN/ptxas" -arch=sm_80 -c "$tmp/lib80.ptx" -o "$tmp/lib80.cubin"
"$CUDA_BIN/fatbinary" --create=lib.fatbin \
  --image3=kind=elf,sm=80,file="$tmp/lib80.cubin" \
  --image3=kind=elf,sm=90,file="$tmp/lib90.cubin"
