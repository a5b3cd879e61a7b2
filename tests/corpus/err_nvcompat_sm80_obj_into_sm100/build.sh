#!/usr/bin/env bash
# main.cubin is built for sm_100, lib.cubin for sm_80 (no .nv.compat); the
# link targets sm_100: nvlink reads the second input's .nv.compat first.
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_100 -c src/main.ptx -o main.cubin
"$CUDA_BIN/ptxas" -arch=sm_80 -c src/lib.ptx -o lib.cubin
