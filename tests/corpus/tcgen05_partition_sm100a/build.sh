#!/usr/bin/env bash
# sm_100a code allocating tensor memory (tcgen05.alloc): its Mercury record
# against the weak __nv_reservedSMEM_tcgen05_partition stays for the driver.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_100a -rdc=true --cubin src/a.cu -o a.cubin
