#!/usr/bin/env bash
# kern.cubin (k_big, no bindless reference of its own, ISA class 1) and
# helper.cubin (sample_helper samples tex_b, ISA class 2), for sm_100.
set -euo pipefail
for f in kern helper; do
  "$CUDA_BIN/ptxas" -arch=sm_100 -c "src/$f.ptx" -o "$f.cubin"
done
