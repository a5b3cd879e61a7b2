#!/usr/bin/env bash
# Regenerates the container samples and what cuobjdump says about them.
# Needs the CUDA 13.5 tools (scripts/cuda-tools.sh) and binutils (ld, ar).
set -euo pipefail
cd "$(dirname "$0")"
PATH="$(bash ../../../scripts/cuda-tools.sh):$PATH"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
rdc() { nvcc -rdc=true -c "$@"; }

rdc -arch=sm_90 a.cu -o a_sm90.o                      # zstd ELF + PTX in __nv_relfatbin
rdc -arch=sm_90 b.cu -o "$t/b.o"
rdc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] a.cu -o multi.o
rdc -arch=sm_90 -Xfatbin=-compress-mode=speed b.cu -o lz4.o          # LZ4 (flag 0x2000)
rdc --concat -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] b.cu -o concat.o
rdc -gencode arch=compute_80,code=compute_80 b.cu -o ptx_only.o
rdc -gencode arch=compute_90,code=lto_90 b.cu -o lto.o                # encrypted NVVM IR
rdc -arch=sm_90 -G c.cu -o debug.o                     # identifier, debug flag
rdc -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100f,code=[sm_100f,compute_100f] c.cu -o variants.o
nvcc -arch=sm_90 -c c.cu -o exec.o                     # whole-program: ET_EXEC cubin in .nv_fatbin
ld -r a_sm90.o "$t/b.o" -o ab_r.o                      # two containers in one __nv_relfatbin
nvcc -gencode arch=compute_100,code=sm_100 -gencode arch=compute_80,code=compute_80 -rdc=true -fatbin \
  --no-compress c.cu -o nocomp.fatbin                 # uncompressed; the 7046-byte cubin is stored padded to 8
nvcc -arch=sm_90 -lib a_sm90.o "$t/b.o" -o libab.a    # nvcc -lib: GNU ar with a host symbol table
nvcc -arch=sm_90 -rdc=true -cubin a.cu -o "$t/kernel_a_with_a_long_name.cubin"
nvcc -arch=sm_90 -rdc=true -cubin b.cu -o "$t/b.cubin"
rm -f libcubins.a; (cd "$t" && ar rcs "$OLDPWD/libcubins.a" kernel_a_with_a_long_name.cubin b.cubin)   # uses the // table

rm -rf expected; mkdir expected
for f in *.o *.a *.fatbin; do
  cuobjdump -all -lelf -lptx "$f" 2>/dev/null | sed "s#member [^:]*/\\($f\\):#member \\1:#" > "expected/$f.list" || true
  (cd expected && cuobjdump -all -xelf all "../$f" >/dev/null 2>&1 || true)
  (cd expected && cuobjdump -all -xptx all "../$f" >/dev/null 2>&1 || true)
done
du -sh .
