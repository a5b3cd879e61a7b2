#!/usr/bin/env python3
"""Rebuilds a sample folder of tests/data/codecs from a cubin.

usage: regen.py OUT_DIR NAME=path/to/x.cubin ...   (cuobjdump must be on PATH)

For each section of type CUDA_INFO, CUDA_COMPAT_INFO, CUDA_CALLGRAPH,
CUDA_PROTOTYPE or CUDA_RELOCINFO it writes <name>.bin (the raw bytes, the
section name without its leading dot) and <name>.txt (what `cuobjdump -elf`
printed under the section's name), plus symbols.txt (symbol names by index),
strtab.bin (when a callgraph or prototype section refers to strings) and
meta.txt (e_flags).
"""
import os, struct, subprocess, sys

TYPES = {0x70000000, 0x70000086, 0x70000001, 0x70000002, 0x7000000b}


def sections(d):
    shoff = struct.unpack_from('<Q', d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    out = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link, _info, _align, _es = struct.unpack_from(
            '<IIQQQQIIQQ', d, shoff + i * shentsize)
        out.append(dict(name=name, type=typ, off=off, size=size, link=link))
    so = out[shstrndx]['off']
    for s in out:
        s['sname'] = d[so + s['name']:d.index(b'\0', so + s['name'])].decode()
    return out


def main():
    out_dir = sys.argv[1]
    for arg in sys.argv[2:]:
        sample, path = arg.split('=', 1)
        d = open(path, 'rb').read()
        txt = subprocess.run(['cuobjdump', '-elf', path], capture_output=True, text=True, check=True).stdout
        secs = sections(d)
        od = os.path.join(out_dir, sample)
        os.makedirs(od, exist_ok=True)
        st = [s for s in secs if s['type'] == 2][0]
        strs = secs[st['link']]
        sb = d[strs['off']:strs['off'] + strs['size']]
        names = []
        for i in range(st['size'] // 24):
            n = struct.unpack_from('<I', d, st['off'] + i * 24)[0]
            names.append(sb[n:sb.index(b'\0', n)].decode())
        open(os.path.join(od, 'symbols.txt'), 'w').write('\n'.join(names) + '\n')
        flags = struct.unpack_from('<I', d, 0x30)[0]
        open(os.path.join(od, 'meta.txt'), 'w').write(f'e_flags=0x{flags:08x}\n')
        need_str = False
        for s in secs:
            if s['type'] not in TYPES:
                continue
            nm = s['sname'].lstrip('.')
            open(os.path.join(od, nm + '.bin'), 'wb').write(d[s['off']:s['off'] + s['size']])
            key = '\n' + s['sname'] + '\n'
            i = txt.index(key) + len(key)
            j = txt.find('\n\n\n.', i)  # cuobjdump ends a section with two empty lines
            open(os.path.join(od, nm + '.txt'), 'w').write(txt[i:j + 1] if j >= 0 else txt[i:])
            need_str |= s['type'] in (0x70000001, 0x70000002)
        if need_str:
            open(os.path.join(od, 'strtab.bin'), 'wb').write(sb)


if __name__ == '__main__':
    main()
