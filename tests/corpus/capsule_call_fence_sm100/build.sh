#!/usr/bin/env bash
# A device function that calls into another input (CALL.ABS.NOINC with its
# return address in R20/R21), fences (__threadfence_system(),
# __threadfence()) and reads a __constant__ array the other input defines:
# its capsule's items are not its instructions, and nvlink's finalizer
# writes the constant operands into it. The kernel's bank 2 comes from the
# other input's jump table, after that input's .nv.constant3.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_100 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
