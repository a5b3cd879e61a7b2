#!/usr/bin/env bash
# grid_attributes_sm90 with EIATTR_GRID_ATTRIBUTES (0x68) values set apart so
# that a bitwise OR differs from a maximum: f1 0x1, f2 0x8, the kernels' own
# (kB, kG) 0x2.
set -euo pipefail
for f in k m; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
python3 ../../../scripts/nvinfo-setattr.py m.cubin _Z2f1PfS_ 0x68 0x1
python3 ../../../scripts/nvinfo-setattr.py m.cubin _Z2f2Pff 0x68 0x8
python3 ../../../scripts/nvinfo-setattr.py k.cubin _Z2kBPfS_ 0x68 0x2
python3 ../../../scripts/nvinfo-setattr.py k.cubin _Z2kGPfS_ 0x68 0x2
