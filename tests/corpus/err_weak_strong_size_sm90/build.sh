#!/usr/bin/env bash
# A strong variable and a weak one of another size (README observation 208).
set -euo pipefail
for f in table defaults; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true -c "src/$f.cu" -o "$f.o"
done
