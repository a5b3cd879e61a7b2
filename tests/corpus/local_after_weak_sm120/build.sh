#!/usr/bin/env bash
# An sm_120 program and a library cubin edited as ptxas 13.0 writes one:
# scripts/ptxas130-edit.py makes second_local (which ptxas lists first) WEAK where it
# is, among the locals, before first_local.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/a.cu -o a.cubin
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/lib.cu -o lib.cubin
second=$(grep -ao '_ZN[0-9]*_INTERNAL_[0-9a-f]*_6_lib_cu_[0-9a-f]*12second_localEiPi' lib.cubin | head -1)
python3 ../../../scripts/ptxas130-edit.py lib.cubin weak "$second"
