//! Writing the model back to ELF bytes.
//!
//! The file layout is the one nvlink and ptxas use (checked on their output):
//! the ELF header, then section contents in section-index order, each at its
//! alignment (SHT_NOBITS sections take no room but get the current offset),
//! then the section header table (8-aligned in nvlink's files, right after
//! the data in ptxas's), then the program headers.
//! .symtab, .strtab, .shstrtab and relocation sections are rebuilt from the
//! typed model. A string already present in a string table read from a file
//! keeps its place there, so an unchanged cubin is written back byte for byte.

use foldhash::HashMap;

use super::consts::*;
use super::model::*;

/// The model cannot be written (it is inconsistent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteError {}

const EHDR_SIZE: u64 = 64;
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;

/// Serializes a cubin.
pub fn write(c: &Cubin<'_>) -> Result<Vec<u8>, WriteError> {
    let nsec = c.sections.len();
    let shstrndx = c
        .sections
        .iter()
        .position(|s| s.name == ".shstrtab" && s.sh_type == SHT_STRTAB)
        .unwrap_or(0);
    let symtab_idx = c.sections.iter().position(|s| s.sh_type == SHT_SYMTAB);
    let merc_idx = c.sections.iter().position(|s| s.sh_type == SHT_CUDA_MERC_SYMTAB);

    // Rebuild the tables' contents.
    let mut contents: Vec<Option<Vec<u8>>> = vec![None; nsec];
    let mut shname = vec![0u32; nsec];
    if shstrndx != 0 {
        let mut tab = StrTab::from_existing(&c.sections[shstrndx].data);
        for (i, s) in c.sections.iter().enumerate().skip(1) {
            shname[i] = tab.offset_of(&s.name);
        }
        contents[shstrndx] = Some(tab.bytes);
    } else if c.sections.iter().skip(1).any(|s| !s.name.is_empty()) {
        return Err(WriteError("sections have names but there is no .shstrtab".into()));
    }
    // Symbol tables (.symtab and .nv.merc.symtab may share one string table).
    let mut strtabs: HashMap<usize, StrTab> = HashMap::default();
    let mut extended: HashMap<usize, Vec<u8>> = HashMap::default();
    for (si, table) in [(symtab_idx, &c.symbols), (merc_idx, &c.merc_symbols)] {
        let Some(si) = si else { continue };
        let strndx = c.sections[si].link as usize;
        if strndx == 0 || strndx >= nsec || c.sections[strndx].sh_type != SHT_STRTAB {
            return Err(WriteError(format!(
                "{} does not link to a string table",
                c.sections[si].name
            )));
        }
        let tab = strtabs.entry(strndx).or_insert_with(|| {
            if strndx == shstrndx {
                StrTab::from_vec(contents[shstrndx].take().unwrap_or_default())
            } else {
                StrTab::from_existing(&c.sections[strndx].data)
            }
        });
        let mut syms = Vec::with_capacity(table.len() * 24);
        let mut ext = Vec::with_capacity(table.len() * 4);
        for (k, s) in table.iter().enumerate() {
            let (raw, index) = shndx_to_raw(s.shndx);
            // A nameless symbol points at the table's empty string of its
            // own when it has one (see `StrTab::from_vec`); the null symbol at 0.
            let name = if k == 0 { 0 } else { tab.offset_of(&s.name) };
            syms.extend_from_slice(&name.to_le_bytes());
            syms.push((s.binding << 4) | (s.sym_type & 0xf));
            syms.push(s.other);
            syms.extend_from_slice(&raw.to_le_bytes());
            ext.extend_from_slice(&index.to_le_bytes());
            syms.extend_from_slice(&s.value.to_le_bytes());
            syms.extend_from_slice(&s.size.to_le_bytes());
        }
        contents[si] = Some(syms);
        extended.insert(si, ext);
    }
    // ELF extended section numbering: `.symtab_shndx` holds every symbol's
    // section index (0 for undefined and special places), whichever
    // st_shndx states it (nvlink's 100,000-function outputs).
    for (i, s) in c.sections.iter().enumerate() {
        if s.sh_type == SHT_SYMTAB_SHNDX {
            contents[i] = Some(extended.get(&(s.link as usize)).cloned().unwrap_or_default());
        }
    }
    for (strndx, tab) in strtabs {
        contents[strndx] = Some(tab.bytes);
    }
    for (i, s) in c.sections.iter().enumerate() {
        if s.is_reloc() {
            let mut out = Vec::with_capacity(s.relocs.len() * 24);
            let nsyms = c.symbols_for(s).len();
            for r in &s.relocs {
                if r.sym as usize >= nsyms.max(1) {
                    return Err(WriteError(format!(
                        "relocation at {:#x} in {} refers to symbol {}, past the last symbol",
                        r.offset, s.name, r.sym
                    )));
                }
                out.extend_from_slice(&r.offset.to_le_bytes());
                out.extend_from_slice(&(((r.sym as u64) << 32) | r.rtype as u64).to_le_bytes());
                if s.has_addends() {
                    out.extend_from_slice(&r.addend.to_le_bytes());
                }
            }
            contents[i] = Some(out);
        }
    }

    // Place section contents.
    let data_of = |i: usize| -> &[u8] {
        match &contents[i] {
            Some(v) => v,
            None => &c.sections[i].data,
        }
    };
    // nvlink leaves room for `.symtab_shndx` right after its symbol table
    // but writes it at the offset its section index gives it: the room stays
    // zeros (its `-r` and final links of 100,000 functions).
    let mut room_after = vec![0u64; nsec];
    for (i, s) in c.sections.iter().enumerate() {
        if s.sh_type == SHT_SYMTAB_SHNDX && (s.link as usize) < nsec {
            room_after[s.link as usize] += data_of(i).len() as u64;
        }
    }
    let mut offsets = vec![0u64; nsec];
    let mut pos = EHDR_SIZE;
    for (i, s) in c.sections.iter().enumerate().skip(1) {
        // nvlink gives the Mercury copies of the initialized globals and of
        // the user constant bank no room of their own: they point at the
        // classic bytes, which are the same (every sm_100+ corpus output
        // with globals or `__constant__` data, `-r` ones included).
        if let Some(classic) = classic_twin(&s.name)
            && let Some(j) = c.sections[..i].iter().position(|x| x.name == classic)
            && data_of(j) == data_of(i)
            && offsets[j].is_multiple_of(s.align.max(1))
        {
            offsets[i] = offsets[j];
            continue;
        }
        pos = align_up(pos, s.align)
            .ok_or_else(|| WriteError(format!("section {} has an impossible alignment {:#x}", s.name, s.align)))?;
        offsets[i] = pos;
        if !is_nobits(s.sh_type) {
            pos += data_of(i).len() as u64;
        }
        pos += room_after[i];
    }
    let shoff = if nsec > 0 {
        align_up(pos, header_table_align(c)).unwrap_or(pos)
    } else {
        0
    };
    let phoff = if c.segments.is_empty() {
        0
    } else {
        shoff + nsec as u64 * SHDR_SIZE
    };
    let total = if c.segments.is_empty() {
        shoff + nsec as u64 * SHDR_SIZE
    } else {
        phoff + c.segments.len() as u64 * PHDR_SIZE
    };

    let mut out = vec![0u8; total as usize];
    // ELF header.
    out[..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // ELFCLASS64
    out[5] = 1; // little endian
    out[6] = 1; // EV_CURRENT
    out[7] = c.header.os_abi;
    out[8] = c.header.abi_version;
    put16(&mut out, 16, c.header.e_type);
    put16(&mut out, 18, c.header.e_machine);
    put32(&mut out, 20, c.header.e_version);
    put64(&mut out, 24, c.header.e_entry);
    put64(&mut out, 32, phoff);
    put64(&mut out, 40, shoff);
    put32(&mut out, 48, c.header.e_flags);
    put16(&mut out, 52, EHDR_SIZE as u16);
    put16(
        &mut out,
        54,
        if c.segments.is_empty() {
            c.header.e_phentsize
        } else {
            PHDR_SIZE as u16
        },
    );
    put16(&mut out, 56, c.segments.len() as u16);
    put16(&mut out, 58, SHDR_SIZE as u16);
    // ELF extended section numbering past SHN_LORESERVE sections: the count
    // and the string table's index go to section 0's sh_size and sh_link.
    let many = nsec >= usize::from(SHN_LORESERVE);
    put16(&mut out, 60, if many { 0 } else { nsec as u16 });
    put16(
        &mut out,
        62,
        if shstrndx >= usize::from(SHN_LORESERVE) {
            SHN_XINDEX
        } else {
            shstrndx as u16
        },
    );

    for (i, s) in c.sections.iter().enumerate() {
        let d = data_of(i);
        if i > 0 && !is_nobits(s.sh_type) {
            out[offsets[i] as usize..offsets[i] as usize + d.len()].copy_from_slice(d);
        }
        let h = (shoff + i as u64 * SHDR_SIZE) as usize;
        if i == 0 {
            // The null section header is all zeros, but for extended numbering.
            if many && nsec > 0 {
                put64(&mut out, h + 32, nsec as u64);
            }
            if shstrndx >= usize::from(SHN_LORESERVE) {
                put32(&mut out, h + 40, shstrndx as u32);
            }
            continue;
        }
        let size = if is_nobits(s.sh_type) {
            s.nobits_size
        } else {
            d.len() as u64
        };
        put32(&mut out, h, shname[i]);
        put32(&mut out, h + 4, s.sh_type);
        put64(&mut out, h + 8, s.flags);
        put64(&mut out, h + 16, s.addr);
        put64(&mut out, h + 24, offsets[i]);
        put64(&mut out, h + 32, size);
        put32(&mut out, h + 40, s.link);
        put32(&mut out, h + 44, s.info);
        put64(&mut out, h + 48, s.align);
        put64(&mut out, h + 56, s.entsize);
    }

    for (k, seg) in c.segments.iter().enumerate() {
        let (off, filesz, memsz) = match seg.covers {
            SegmentCovers::ProgramHeaders => {
                let n = c.segments.len() as u64 * PHDR_SIZE;
                (phoff, n, n)
            }
            SegmentCovers::Empty => (0, 0, 0),
            SegmentCovers::Sections { first, last } => {
                if first == 0 || first > last || last >= nsec {
                    return Err(WriteError(format!(
                        "program header {k} covers sections {first}..={last}, which do not exist"
                    )));
                }
                let start = offsets[first];
                // The file image runs to the end of the last section in the
                // file, a NOBITS section ending where it starts: the padding
                // before each NOBITS section counts, up to the last one's
                // (aligned) offset. An initialized 4-byte variable at 0xc80,
                // a `.nv.shared.<k>` at 0xc84, a `.nv.global` aligned to 16
                // at 0xc90 give 0x10 (corpus nobits_filesz_sm90).
                let mut data_end = start;
                let mut last_nobits = None;
                for (i, s) in c.sections.iter().enumerate().take(last + 1).skip(first) {
                    if is_nobits(s.sh_type) {
                        last_nobits = Some(offsets[i]);
                    } else {
                        data_end = offsets[i] + data_of(i).len() as u64;
                    }
                }
                let file_end = last_nobits.map_or(data_end, |n: u64| n.max(data_end));
                // The memory image lays the NOBITS sections out after the
                // file image, each at its alignment (the same link: 0x420
                // and 4 bytes from 0x10 give 0x434; 0x418, 0x40c and 4 bytes
                // aligned 8, 4, 32 from 0x20 give 0x864).
                let mut mem_end = file_end;
                for s in c
                    .sections
                    .iter()
                    .take(last + 1)
                    .skip(first)
                    .filter(|s| is_nobits(s.sh_type))
                {
                    mem_end = align_up(mem_end, s.align)
                        .unwrap_or(mem_end)
                        .saturating_add(s.nobits_size);
                }
                (start, file_end - start, mem_end - start)
            }
        };
        let h = (phoff + k as u64 * PHDR_SIZE) as usize;
        put32(&mut out, h, seg.p_type);
        put32(&mut out, h + 4, seg.p_flags);
        put64(&mut out, h + 8, off);
        put64(&mut out, h + 16, seg.vaddr);
        put64(&mut out, h + 24, seg.paddr);
        put64(&mut out, h + 32, filesz);
        put64(&mut out, h + 40, memsz);
        put64(&mut out, h + 48, seg.p_align);
    }
    Ok(out)
}

/// Mercury sections written over their classic twin: (Mercury, classic).
const MERCURY_OVER_CLASSIC: [(&str, &str); 2] = [
    (".nv.merc.nv.global.init", ".nv.global.init"),
    (".nv.merc.nv.constant.user", ".nv.constant3"),
];

/// The classic section a Mercury copy may share its bytes with: the ones
/// above, and the debug copies (`.nv.merc.debug_info` over `.debug_info`,
/// `.nv.merc.nv_debug_ptx_txt.<hash>` over `.nv_debug_ptx_txt.<hash>`: a
/// `-lineinfo` or `-G` link for sm_100+, found by a sweep of programs of
/// our own), when their bytes are the same.
fn classic_twin(name: &str) -> Option<String> {
    if let Some(&(_, classic)) = MERCURY_OVER_CLASSIC.iter().find(|(m, _)| *m == name) {
        return Some(classic.to_string());
    }
    let rest = name.strip_prefix(".nv.merc.")?;
    (rest.starts_with("debug_") || rest.starts_with("nv_debug")).then(|| format!(".{rest}"))
}

/// Where the section header table starts after the last section's bytes.
/// nvlink aligns it to 8 in the files it lays out in index order (every
/// classic corpus output, `-r` outputs too; extern_call_sm90: data ends at
/// 0xf84, headers at 0xf88); ptxas writes it right after the data (its
/// cubins end at any offset). The producer is the first tool the
/// `.note.nv.tkinfo` names; without the note, 4.
fn header_table_align(c: &Cubin<'_>) -> u64 {
    let Some(note) = c.sections.iter().find(|s| s.name == ".note.nv.tkinfo") else {
        return 4;
    };
    // The first entry: namesz, descsz, type, the padded name, then its desc.
    let d: &[u8] = &note.data;
    let word = |at: usize| {
        d.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let (Some(namesz), Some(descsz)) = (word(0), word(4)) else {
        return 4;
    };
    let start = 12 + namesz.next_multiple_of(4);
    let Some(desc) = d.get(start..start.saturating_add(descsz)) else {
        return 4;
    };
    let by_nvlink = desc.windows(8).any(|w| w == b"\0nvlink\0");
    let mercury = c.sections.iter().any(|s| s.name.starts_with(".nv.merc."));
    if by_nvlink && !mercury { 8 } else { 1 }
}

/// A string table under construction that reuses an existing table's strings.
struct StrTab {
    bytes: Vec<u8>,
    index: HashMap<Vec<u8>, u32>,
}

impl StrTab {
    fn from_existing(old: &[u8]) -> StrTab {
        let bytes = if old.is_empty() { vec![0] } else { old.to_vec() };
        Self::from_vec(bytes)
    }

    fn from_vec(mut bytes: Vec<u8>) -> StrTab {
        if bytes.is_empty() {
            bytes.push(0);
        }
        let mut index = HashMap::default();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == 0 {
                if start > 0 && start == i {
                    // An empty string of its own (a NUL after a NUL): the
                    // name a nameless symbol gets, as nvlink writes it
                    // (uft_basic_sm90 linked with -r).
                    index.insert(Vec::new(), start as u32);
                } else {
                    index.entry(bytes[start..i].to_vec()).or_insert(start as u32);
                }
                start = i + 1;
            }
        }
        StrTab { bytes, index }
    }

    fn offset_of(&mut self, s: &str) -> u32 {
        if let Some(&o) = self.index.get(s.as_bytes()) {
            return o;
        }
        if self.bytes.last() != Some(&0) {
            self.bytes.push(0);
        }
        let o = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self.index.insert(s.as_bytes().to_vec(), o);
        o
    }
}

/// `v` rounded up to `a`; None for an alignment no CUDA tool writes (not a
/// power of two, or over 1 MiB), which would make the layout absurd.
fn align_up(v: u64, a: u64) -> Option<u64> {
    match a {
        0 | 1 => Some(v),
        // nvlink writes alignments that are not powers of two (a `-r`
        // output's extern shared instance offset, 0x30) and places such a
        // section at a multiple of it.
        a if a <= 1 << 20 => v.checked_next_multiple_of(a),
        _ => None,
    }
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
