# For corpus build.sh files that patch a value ptxas will not write from a
# small source (grid_attributes_or_sm90, mbarriers_unknown_sm90).
"""nvinfo-setattr.py CUBIN FUNCTION ATTR VALUE: sets the 16-bit (EIFMT_HVAL) record
ATTR of FUNCTION's .nv.info.<FUNCTION> section(s) (names with a `$N` suffix
included) to VALUE, in place."""
import struct, sys

path, func, attr, value = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0)
b = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
header = lambda i: struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
names = header(shstrndx)[4]
want = '.nv.info.' + func
done = 0
for i in range(shnum):
    h = header(i)
    name = b[names + h[0]:b.index(0, names + h[0])].decode()
    if name != want and not name.startswith(want + '$'):
        continue
    p, end = h[4], h[4] + h[5]
    while p < end:
        fmt, a = b[p], b[p + 1]
        if fmt == 3 and a == attr:
            struct.pack_into('<H', b, p + 2, value)
            done += 1
        p += 4 + (struct.unpack_from('<H', b, p + 2)[0] if fmt == 4 else 0)
if not done:
    sys.exit(f'{path}: no attribute {attr:#x} in {want}')
open(path, 'wb').write(b)
