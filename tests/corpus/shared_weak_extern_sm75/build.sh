#!/usr/bin/env bash
# A weak shared struct aligned to 32 and an extern shared array, no
# variable two kernels share: nvlink keeps an empty .nv_debug.shared
# aligned to 16 (with a prefix, variables aligned above 16 would leave it
# out: shared_module_align_sm90). Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_75 -rdc=true -c src/k.cu -o k.o
