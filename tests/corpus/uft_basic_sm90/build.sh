#!/usr/bin/env bash
# Synthetic inputs: ptxas does not write unified tables, so the cubins and the
# UIDX file come from culdb's cubin builder (examples/uft_inputs.rs, case uft_basic_sm90).
set -euo pipefail
root="$(cd ../../.. && pwd)"
cargo run -q --manifest-path "$root/Cargo.toml" --example uft_inputs -- uft_basic_sm90 .
