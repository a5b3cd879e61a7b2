#!/usr/bin/env bash
# k.cubin is compiled; a.ptx and b.ptx are handed to nvlink as PTX, which
# nvlink compiles itself for the link target.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/k.ptx -o k.cubin
cp src/a.ptx a.ptx
cp src/b.ptx b.ptx
