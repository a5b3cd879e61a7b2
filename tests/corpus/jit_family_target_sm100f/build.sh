#!/usr/bin/env bash
# An sm_90 object (sm_90 cubin and compute_90 PTX) linked for sm_100f: the
# PTX is compiled at link time for the family target.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c src/scale.cu -o scale.o --keep --keep-dir "$keep"
