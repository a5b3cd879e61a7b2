#!/usr/bin/env bash
# partial.cubin is the committed output of the relocatable link in
# ../relocatable_link_sm90 (regen-corpus processes that case first).
set -euo pipefail
partial=../relocatable_link_sm90/expected/out.cubin
[[ -f "$partial" ]] || { echo "missing $partial: regenerate relocatable_link_sm90 first" >&2; exit 1; }
cp "$partial" partial.cubin
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/c.ptx -o c.cubin
