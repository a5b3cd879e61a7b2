#!/usr/bin/env bash
# An sm_120 program linked with a device library as NVSHMEM ships it
# (libnvshmem_device.a, built by ptxas 13.0). ptxas 13.5 builds lib.cubin;
# scripts/ptxas130-edit.py then edits it as ptxas 13.0 writes such code:
#   - a weak function listed among the locals (13.0 lists weak template
#     functions beside their section symbols): lib_local made WEAK, so the
#     locals after it follow a global;
#   - the classic section symbol of a function's bank 2 named
#     `.nv.constant2.<fn>` (13.5: `.nv.constant.optimizer.<fn>`; the
#     Mercury one keeps that name in both);
#   - no EIATTR_PREEXIT_USED in the functions' `.nv.info.<fn>`.
set -euo pipefail
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/a.cu -o a.cubin
"$CUDA_BIN/nvcc" -arch=sm_120 -rdc=true --cubin src/lib.cu -o lib.cubin
local_fn=$(grep -ao '_ZN36_INTERNAL_[0-9a-f]*_6_lib_cu_[0-9a-f]*9lib_localEiPi' lib.cubin | head -1)
python3 ../../../scripts/ptxas130-edit.py lib.cubin \
  weak "$local_fn" \
  rename-classic .nv.constant.optimizer._Z10lib_switchiPi .nv.constant2._Z10lib_switchiPi \
  nopreexit _Z9lib_fenceiPi nopreexit _Z10lib_switchiPi nopreexit "$local_fn"
