#!/usr/bin/env bash
# Three sm_90 cubins whose .nv.compat attributes differ, as when ptxas 13.5
# objects meet NVSHMEM's libnvshmem_device.a (built by ptxas 13.0):
#   k.cubin  as ptxas 13.5 writes it: ACCELERATOR_TARGET 0, INTERNAL_TARGET 0,
#            ISA_CLASS 1, 0x0d 0x101, TENSORMAP_V1 0, CAN_FASTPATH_FINALIZE 0,
#            FINALIZER_VERSION 1.1.0;
#   f1.cubin what ptxas 13.0 writes for sm_90: ACCELERATOR_TARGET 0,
#            ISA_CLASS 1, TCGEN05_MMA 5, 0x07 0x101, TENSORMAP_V1 0,
#            OPPORTUNISTIC_FINALIZATION 1, CAN_FASTPATH_FINALIZE 0;
#   f2.cubin no ISA_CLASS (nvlink warns): ACCELERATOR_TARGET 0,
#            INTERNAL_TARGET 0, TENSORMAP_V1 4, 0x0d 0x102, 0x08 1,
#            CAN_FASTPATH_FINALIZE 0, FINALIZER_VERSION 1.1.0.
set -euo pipefail
for f in k f1 f2; do "$CUDA_BIN/ptxas" -arch=sm_90 -c "src/$f.ptx" -o "$f.cubin"; done

# Little-endian unsigned integers of file $1 at byte offset $2.
u16() { od -An -t u2 -j "$2" -N 2 "$1" | tr -d ' '; }
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# Writes $3 as a little-endian u64 at byte offset $2 of file $1.
put64() {
  local i s=""
  for i in 0 1 2 3 4 5 6 7; do s+=$(printf '\\x%02x' $((($3 >> (8 * i)) & 255))); done
  printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# Replaces the records of the SHT_CUDA_COMPAT_INFO section of cubin $1 by the
# bytes $2 (printf escapes): they go at the (4-aligned) end of the file and
# the section header points at them.
set_compat() {
  local f=$1 shoff shentsize shnum i h at
  shoff=$(u64 "$f" 40)
  shentsize=$(u16 "$f" 58)
  shnum=$(u16 "$f" 60)
  for ((i = 0; i < shnum; i++)); do
    h=$((shoff + i * shentsize))
    [ "$(u32 "$f" $((h + 4)))" = $((0x70000086)) ] && break
  done
  ((i < shnum)) || { echo "no .nv.compat in $f" >&2; return 1; }
  while (($(stat -c %s "$f") % 4)); do printf '\0' >>"$f"; done
  at=$(stat -c %s "$f")
  printf "$2" >>"$f"
  put64 "$f" $((h + 24)) "$at"
  put64 "$f" $((h + 32)) $(($(stat -c %s "$f") - at))
}

# Records: BVAL 02 CODE VALUE 00, HVAL 03 CODE LO HI, SVAL 04 CODE SIZE(u16) BYTES.
fastpath0='\x04\x0b\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00'
set_compat f1.cubin "\x02\x09\x00\x00\x02\x02\x01\x00\x02\x05\x05\x00\x03\x07\x01\x01\x02\x03\x00\x00\x02\x06\x01\x00$fastpath0"
set_compat f2.cubin "\x02\x09\x00\x00\x02\x0c\x00\x00\x02\x03\x04\x00\x03\x0d\x02\x01\x03\x08\x01\x00$fastpath0\x03\x0e\x40\x04"
