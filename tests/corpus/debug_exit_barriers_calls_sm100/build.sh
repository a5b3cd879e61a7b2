#!/usr/bin/env bash
# A plain object linked with -g (nvlink -g): nvlink's finalizer puts exit
# barriers (MEMBAR.SC.VC; ERRBAR; CGAERRBAR) before every EXIT, in the
# kernels that call too; their return addresses move with the code.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -rdc=true -c src/calls.cu -o calls.o
