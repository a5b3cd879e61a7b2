#!/usr/bin/env bash
# m.cubin has no unified table (ptxas); a.uidx comes from culdb's builder
# (examples/uft_inputs.rs, case uft_uidx_no_table_sm90).
set -euo pipefail
"$CUDA_BIN/ptxas" -arch=sm_90 -c src/m.ptx -o m.cubin
root="$(cd ../../.. && pwd)"
cargo run -q --manifest-path "$root/Cargo.toml" --example uft_inputs -- uft_uidx_no_table_sm90 .
