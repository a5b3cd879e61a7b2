#!/usr/bin/env bash
# An nvcc -ewp object: an empty .nv.shared.reserved.0 naming only the
# NOTYPE alias __nv_reservedSMEM_offset_0_alias (sm_110: beside the
# reserved variable). nvlink drops the alias, and the section when it
# then holds nothing (its Mercury copy too).
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_110 -ewp -c src/ewp.cu -o ewp.o
