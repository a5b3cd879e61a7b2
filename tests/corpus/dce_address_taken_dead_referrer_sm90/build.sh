#!/usr/bin/env bash
# Address-taken functions whose only referrers are dead: kept; their calls
# followed only for a matching live indirect call.
set -euo pipefail
for f in setters use; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
