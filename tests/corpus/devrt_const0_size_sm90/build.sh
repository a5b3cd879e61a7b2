#!/usr/bin/env bash
# 24 bytes of __constant__ data and a device-side cudaMemsetAsync: the
# libcudadevrt functions it keeps read `.nv.ptx.const0.size`, which nvlink
# resolves to the size of the output's .nv.constant3 (0x18).
# libcudadevrt.a is copied from $CUDA_LIB, as in dynpar_cudadevrt_sm90.
set -euo pipefail
for f in a b; do
  "$CUDA_BIN/nvcc" -arch=sm_90 -rdc=true --cubin "src/$f.cu" -o "$f.cubin"
done
cp "$CUDA_LIB/libcudadevrt.a" libcudadevrt.a
