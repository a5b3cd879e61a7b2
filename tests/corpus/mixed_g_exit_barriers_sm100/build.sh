#!/usr/bin/env bash
# One object built with -G beside a plain one, linked without -g: nvlink's
# finalizer puts ERRBAR; CGAERRBAR before every EXIT of every kernel of
# the link, the plain object's too, and deletes the -G kernel's
# MEMBAR.SC.VC before them (its register ranges end 0x10 earlier).
# Built as nvcc builds a program.
set -euo pipefail
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -G -rdc=true -c src/probe.cu -o probe.o
"$CUDA_BIN/nvcc" --keep --keep-dir "$keep" -arch=sm_100 -rdc=true -c src/plain.cu -o plain.o
