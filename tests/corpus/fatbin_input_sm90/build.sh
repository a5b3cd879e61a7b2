#!/usr/bin/env bash
# lib.fatbin wraps the sm_90 cubin of lib.ptx plus an sm_80 cubin (which must
# be ignored for an sm_90 link) in a fat binary; main.cubin is bare.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/main.ptx -o main.cubin
sed 's/^\.target sm_90$/.target sm_80/' src/lib.ptx > lib80.ptx.tmp
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/lib.ptx -o lib90.cubin.tmp
"$CUDA_BIN/ptxas" -arch=sm_80 -c lib80.ptx.tmp -o lib80.cubin.tmp
"$CUDA_BIN/fatbinary" --create=lib.fatbin \
  --image3=kind=elf,sm=80,file=lib80.cubin.tmp \
  --image3=kind=elf,sm=90,file=lib90.cubin.tmp
rm -f lib80.ptx.tmp lib80.cubin.tmp lib90.cubin.tmp
