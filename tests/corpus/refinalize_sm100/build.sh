#!/usr/bin/env bash
# sm_100: nvlink finalizes call-free kernels again (other scoreboards and
# wait masks than ptxas -c wrote); culdb takes them from nvJitLink's
# finalizer (link::refinalize). `needs-finalizer`: skipped without nvJitLink.
# --keep keeps nvcc from embedding its pid-based temporary file names.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true -c src/scale.cu -o scale.o --keep --keep-dir "$keep"
