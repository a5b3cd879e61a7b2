# Edits a ptxas 13.5 cubin into what ptxas 13.0 writes (NVSHMEM 3.x builds
# libnvshmem_device.a with ptxas 13.0). Usage: ptxas130-edit.py CUBIN EDIT...
# (corpus nvshmem_lib_sm100/_sm120).
# Edits a cubin in place, as ptxas 13.0 would have written it:
#   weak NAME      : symbol NAME (LOCAL) becomes WEAK in .symtab and .nv.merc.symtab
#   rename OLD NEW : symbol names OLD become NEW (in place in .strtab; NEW no longer)
#   nopreexit FN   : drops the trailing EIATTR_PREEXIT_USED of .nv.info.FN
import struct, sys
p = sys.argv[1]; d = bytearray(open(p, 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28); shent, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
hdr = lambda i: shoff + i * shent
sh = [struct.unpack_from('<IIQQQQIIQQ', d, hdr(i)) for i in range(shnum)]
def cstr(off):
    return bytes(d[off:d.index(0, off)]).decode()
names = [cstr(sh[shstrndx][4] + h[0]) for h in sh]
def syms(secname):
    i = names.index(secname); h = sh[i]; strt = sh[h[6]][4]
    for k in range(h[5] // 24):
        at = h[4] + 24 * k
        yield at, strt, cstr(strt + struct.unpack_from('<I', d, at)[0])
args = sys.argv[2:]
while args:
    op = args.pop(0)
    if op == 'weak':
        n = args.pop(0); hit = 0
        for t in ('.symtab', '.nv.merc.symtab'):
            for at, _, name in syms(t):
                if name == n and d[at + 4] >> 4 == 0:
                    d[at + 4] = (1 << 4) | (d[at + 4] & 15); hit += 1
        assert hit == 2, (n, hit)
    elif op == 'rename':
        old, new = args.pop(0), args.pop(0); assert len(new) <= len(old); hit = 0
        for t in ('.symtab', '.nv.merc.symtab'):
            for at, strt, name in syms(t):
                if name == old:
                    o = strt + struct.unpack_from('<I', d, at)[0]
                    d[o:o + len(old) + 1] = new.encode() + b'\0' * (len(old) + 1 - len(new)); hit += 1
        assert hit >= 1, (old, hit)
    elif op == 'rename-classic':
        # The .symtab symbol OLD is named NEW, a string added at the end of
        # its string table (moved to the end of the file); .nv.merc.symtab
        # keeps OLD.
        old, new = args.pop(0), args.pop(0)
        i = names.index('.symtab'); strx = sh[i][6]; so, ssz = sh[strx][4], sh[strx][5]
        table = bytes(d[so:so + ssz]); at = len(table); table += new.encode() + b'\0'
        hit = 0
        for a, _, name in syms('.symtab'):
            if name == old:
                struct.pack_into('<I', d, a, at); hit += 1
        assert hit == 1, (old, hit)
        while len(d) % 8: d.append(0)
        struct.pack_into('<Q', d, hdr(strx) + 24, len(d)); struct.pack_into('<Q', d, hdr(strx) + 32, len(table))
        d += table
    elif op == 'nopreexit':
        i = names.index('.nv.info.' + args.pop(0)); h = sh[i]
        assert d[h[4] + h[5] - 4:h[4] + h[5] - 2] == b'\x02\x6d', d[h[4] + h[5] - 4:h[4] + h[5]].hex()
        struct.pack_into('<Q', d, hdr(i) + 32, h[5] - 4)
    else:
        sys.exit('unknown edit ' + op)
open(p, 'wb').write(d)
