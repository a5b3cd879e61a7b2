//! Reading a cubin into the model, zero-copy: section contents borrow from
//! the input. Every size, count and offset taken from the file is checked
//! against the file before it is used, and every error names the byte offset.

use std::borrow::Cow;

use object::LittleEndian as LE;
use object::elf::{FileHeader64, ProgramHeader64, Rel64, Rela64, SectionHeader64, Sym64};
use object::pod::{Pod, from_bytes, slice_from_bytes};

use super::consts::*;
use super::error::{FormatError, Result};
use super::model::*;

const EHDR_SIZE: usize = 64;
const SHDR_SIZE: usize = 64;
const PHDR_SIZE: usize = 56;
const SYM_SIZE: usize = 24;

/// True when `data` starts like an ELF64 file for EM_CUDA.
pub fn is_cubin(data: &[u8]) -> bool {
    data.len() >= EHDR_SIZE
        && data[..4] == *b"\x7fELF"
        && data[4] == 2
        && u16::from_le_bytes([data[18], data[19]]) == EM_CUDA
}

/// Parses a CUDA ELF64 cubin (ET_REL or ET_EXEC).
pub fn parse(data: &[u8]) -> Result<Cubin<'_>> {
    let header = parse_header(data)?;
    let ehdr: &FileHeader64<LE> = pod_at(data, 0, "ELF header")?;
    let shdrs = section_headers(data, ehdr)?;
    let shstrndx = match ehdr.e_shstrndx.get(LE) {
        // Extended numbering: the index is section 0's sh_link.
        object::elf::SymbolSection(SHN_XINDEX) => shdrs.first().map_or(0, |s0| s0.sh_link.get(LE) as usize),
        i => i.0 as usize,
    };
    let shoff = ehdr.e_shoff.get(LE);
    let shdr_off = |i: usize| shoff + (i * SHDR_SIZE) as u64;

    if !shdrs.is_empty() && shstrndx >= shdrs.len() {
        return Err(FormatError::new(
            0x3e,
            format!("e_shstrndx {shstrndx} is not a section (there are {})", shdrs.len()),
        ));
    }
    let shstrtab: &[u8] = if shdrs.is_empty() {
        &[]
    } else {
        section_bytes(data, &shdrs[shstrndx], shdr_off(shstrndx))?
    };

    let mut sections = Vec::with_capacity(shdrs.len());
    for (i, sh) in shdrs.iter().enumerate() {
        let at = shdr_off(i);
        let sh_type = sh.sh_type.get(LE).0;
        let link = sh.sh_link.get(LE);
        if i != 0 && link as usize == i {
            return Err(FormatError::new(at + 40, format!("section [{i}] links to itself")));
        }
        if link as usize >= shdrs.len() && link != 0 {
            return Err(FormatError::new(
                at + 40,
                format!("section [{i}] links to section {link}, past the last section"),
            ));
        }
        let name = if i == 0 {
            String::new()
        } else {
            string_at(shstrtab, sh.sh_name.get(LE) as usize)
                .ok_or_else(|| {
                    FormatError::new(
                        at,
                        format!(
                            "section [{i}] name offset {:#x} is outside .shstrtab (size {:#x})",
                            sh.sh_name.get(LE),
                            shstrtab.len()
                        ),
                    )
                })?
                .to_string()
        };
        let (data_bytes, nobits_size) = if is_nobits(sh_type) || i == 0 {
            (&[][..], if i == 0 { 0 } else { sh.sh_size.get(LE) })
        } else {
            (section_bytes(data, sh, at)?, 0)
        };
        sections.push(Section {
            name,
            sh_type,
            flags: sh.sh_flags.get(LE).0,
            addr: sh.sh_addr.get(LE),
            link,
            info: sh.sh_info.get(LE),
            align: sh.sh_addralign.get(LE),
            entsize: sh.sh_entsize.get(LE),
            data: Cow::Borrowed(data_bytes),
            nobits_size,
            relocs: Vec::new(),
        });
    }

    let symbols = parse_symbols(data, shdrs, &sections, shoff, SHT_SYMTAB)?;
    let merc_symbols = parse_symbols(data, shdrs, &sections, shoff, SHT_CUDA_MERC_SYMTAB)?;
    for i in 0..sections.len() {
        if sections[i].is_reloc() {
            let linked = sections.get(sections[i].link as usize).map(|t| t.sh_type);
            let nsyms = if linked == Some(SHT_CUDA_MERC_SYMTAB) {
                merc_symbols.len()
            } else {
                symbols.len()
            };
            let relocs = parse_relocs(data, &shdrs[i], &sections[i], nsyms, shdr_off(i))?;
            sections[i].relocs = relocs;
        }
    }
    let segments = parse_segments(data, ehdr, shdrs)?;
    Ok(Cubin {
        header,
        sections,
        symbols,
        merc_symbols,
        segments,
    })
}

/// The largest section alignment a link input may state (the output writer's
/// bound: `write::align_up`).
pub const MAX_ALIGN: u64 = 1 << 20;

/// The largest size of a NOBITS section, symbol value or size, and
/// relocation offset a link input may state (1 TiB): the layout adds such
/// numbers, and addresses must stay far from overflow.
pub const MAX_OFFSET: u64 = 1 << 40;

/// Parses a cubin for linking: [`parse`], then every number the merge, the
/// layout and the relocator take from the file is checked against it, so
/// that they can index and allocate with it. Alignments are 0 or powers of
/// two up to [`MAX_ALIGN`]; NOBITS sizes, symbol values and sizes, and
/// relocation offsets at most [`MAX_OFFSET`]; a relocation section applies
/// to another section of the file (`sh_info`) through a symbol table
/// (`sh_link`) and names its symbols; a symbol lies in a section of the file
/// (or is undefined, absolute or common). The error names the offset of the offending
/// field.
pub fn parse_for_link(data: &[u8]) -> Result<Cubin<'_>> {
    let c = parse(data)?;
    check_linkable(data, &c)?;
    Ok(c)
}

fn check_linkable(data: &[u8], c: &Cubin<'_>) -> Result<()> {
    let ehdr: &FileHeader64<LE> = pod_at(data, 0, "ELF header")?;
    let shoff = ehdr.e_shoff.get(LE);
    let shdrs = section_headers(data, ehdr)?;
    let nsec = c.sections.len();
    let hdr_at = |i: usize| shoff + (i * SHDR_SIZE) as u64;
    for (i, s) in c.sections.iter().enumerate().skip(1) {
        let at = hdr_at(i);
        if s.align > MAX_ALIGN || !(s.align == 0 || s.align.is_power_of_two()) {
            return Err(FormatError::new(
                at + 48,
                format!(
                    "section [{i}] {} has alignment {:#x}; expected 0 or a power of two up to {MAX_ALIGN:#x}",
                    s.name, s.align
                ),
            ));
        }
        if is_nobits(s.sh_type) && s.nobits_size > MAX_OFFSET {
            return Err(FormatError::new(
                at + 32,
                format!(
                    "section [{i}] {} has size {:#x}; expected at most {MAX_OFFSET:#x}",
                    s.name, s.nobits_size
                ),
            ));
        }
        if !s.is_reloc() {
            continue;
        }
        let target = s.info as usize;
        if target == 0 || target >= nsec || target == i {
            return Err(FormatError::new(
                at + 44,
                format!(
                    "relocation section [{i}] {} applies to section {target}, which is not a section it can relocate (there are {nsec})",
                    s.name
                ),
            ));
        }
        let linked = c.sections.get(s.link as usize).map(|t| t.sh_type);
        if !s.relocs.is_empty() && !linked.is_some_and(is_symtab) {
            return Err(FormatError::new(
                at + 40,
                format!(
                    "relocation section [{i}] {} links to section {}, which is not a symbol table",
                    s.name, s.link
                ),
            ));
        }
        let nsyms = c.symbols_for(s).len();
        let entsize = if s.has_addends() { 24 } else { 16 };
        let rec_at = |k: usize| shdrs[i].sh_offset.get(LE) + (k * entsize) as u64;
        for (k, r) in s.relocs.iter().enumerate() {
            if r.sym as usize >= nsyms {
                return Err(FormatError::new(
                    rec_at(k) + 8,
                    format!(
                        "relocation {k} of {} refers to symbol {}, and the symbol table has {nsyms}",
                        s.name, r.sym
                    ),
                ));
            }
            // Mercury code is compressed (`.nv.capmerc`): its relocations
            // and symbols are at offsets of the code the capsule expands to,
            // past the section's size; the relocator checks each place.
            if r.offset > MAX_OFFSET {
                return Err(FormatError::new(
                    rec_at(k),
                    format!(
                        "relocation {k} of {} is at offset {:#x} of {}; expected at most {MAX_OFFSET:#x}",
                        s.name, r.offset, c.sections[target].name
                    ),
                ));
            }
        }
    }
    for table_type in [SHT_SYMTAB, SHT_CUDA_MERC_SYMTAB] {
        let Some(idx) = c.sections.iter().position(|s| s.sh_type == table_type) else {
            continue;
        };
        let syms = if table_type == SHT_SYMTAB {
            &c.symbols
        } else {
            &c.merc_symbols
        };
        let base = shdrs[idx].sh_offset.get(LE);
        for (k, y) in syms.iter().enumerate() {
            let here = base + (k * SYM_SIZE) as u64;
            let shndx = y.shndx;
            let special = shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON;
            if y.sym_type == STT_SECTION && (special || shndx as usize >= nsec) && k != 0 {
                return Err(FormatError::new(
                    here + 6,
                    format!("section symbol {k} is in section {shndx:#x}, which is not a section of the file"),
                ));
            }
            if special {
                continue;
            }
            let Some(sec) = c.sections.get(shndx as usize) else {
                return Err(FormatError::new(
                    here + 6,
                    format!(
                        "symbol {k} ({}) is in section {shndx:#x}, which is not a section of the file",
                        y.name
                    ),
                ));
            };
            // Shared memory symbols reach past their section (dynamic
            // shared memory), Mercury code symbols past the compressed
            // code: only the bound that keeps sums of them from overflowing.
            if y.value > MAX_OFFSET || y.size > MAX_OFFSET {
                return Err(FormatError::new(
                    here + if y.value > MAX_OFFSET { 8 } else { 16 },
                    format!(
                        "symbol {k} ({}) in section [{shndx}] {} has value {:#x} and size {:#x}; expected at most {MAX_OFFSET:#x}",
                        y.name, sec.name, y.value, y.size
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The file offset of each section, by index, as the section headers state it
/// (empty when the headers cannot be read). For messages about file bytes.
pub fn section_offsets(data: &[u8]) -> Vec<u64> {
    let Ok(ehdr) = pod_at::<FileHeader64<LE>>(data, 0, "ELF header") else {
        return Vec::new();
    };
    match section_headers(data, ehdr) {
        Ok(shdrs) => shdrs.iter().map(|sh| sh.sh_offset.get(LE)).collect(),
        Err(_) => Vec::new(),
    }
}

/// What the emit phase reads of an input again, from its headers alone
/// (no names or symbols decoded): each section's `sh_info`, and whether
/// its `.nv.compat` names an accelerated target.
#[derive(Debug, Clone, Default)]
pub struct Headers {
    pub infos: Vec<u32>,
    pub accelerated: bool,
}

/// The [`Headers`] of a cubin; None when its section headers cannot be read.
pub fn headers(data: &[u8]) -> Option<Headers> {
    let ehdr = pod_at::<FileHeader64<LE>>(data, 0, "ELF header").ok()?;
    let shdrs = section_headers(data, ehdr).ok()?;
    let infos = shdrs.iter().map(|sh| sh.sh_info.get(LE)).collect();
    let compat = named_in(data, ehdr, shdrs, ".nv.compat").map(|s| s.data);
    let accelerated = compat.and_then(crate::arch::input::accelerator_target) == Some(1);
    Some(Headers { infos, accelerated })
}

/// A section found by name from the headers alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawSection<'a> {
    pub sh_type: u32,
    pub flags: u64,
    pub link: u32,
    pub info: u32,
    pub data: &'a [u8],
}

/// The first section named `name`, read from the section headers and the
/// section name table only (no symbols decoded); None when there is none
/// or the headers cannot be read.
pub fn find_section<'a>(data: &'a [u8], name: &str) -> Option<RawSection<'a>> {
    let ehdr = pod_at::<FileHeader64<LE>>(data, 0, "ELF header").ok()?;
    let shdrs = section_headers(data, ehdr).ok()?;
    named_in(data, ehdr, shdrs, name)
}

/// Every section, from the section headers alone (no names or symbols
/// decoded); None when the headers cannot be read.
pub fn raw_sections(data: &[u8]) -> Option<Vec<RawSection<'_>>> {
    let ehdr = pod_at::<FileHeader64<LE>>(data, 0, "ELF header").ok()?;
    let shdrs = section_headers(data, ehdr).ok()?;
    Some(
        shdrs
            .iter()
            .map(|sh| raw_section(data, sh).unwrap_or_default())
            .collect(),
    )
}

fn raw_section<'a>(data: &'a [u8], sh: &SectionHeader64<LE>) -> Option<RawSection<'a>> {
    let sh_type = sh.sh_type.get(LE).0;
    let bytes = if sh_type == SHT_NOBITS {
        &[][..]
    } else {
        let at = usize::try_from(sh.sh_offset.get(LE)).ok()?;
        data.get(at..at.checked_add(usize::try_from(sh.sh_size.get(LE)).ok()?)?)?
    };
    Some(RawSection {
        sh_type,
        flags: sh.sh_flags.get(LE).0,
        link: sh.sh_link.get(LE),
        info: sh.sh_info.get(LE),
        data: bytes,
    })
}

fn named_in<'a>(
    data: &'a [u8],
    ehdr: &FileHeader64<LE>,
    shdrs: &[SectionHeader64<LE>],
    name: &str,
) -> Option<RawSection<'a>> {
    let shstrndx = match ehdr.e_shstrndx.get(LE) {
        object::elf::SymbolSection(SHN_XINDEX) => shdrs.first().map_or(0, |s0| s0.sh_link.get(LE) as usize),
        i => i.0 as usize,
    };
    let names = shdrs.get(shstrndx).and_then(|sh| {
        let at = usize::try_from(sh.sh_offset.get(LE)).ok()?;
        data.get(at..at.checked_add(usize::try_from(sh.sh_size.get(LE)).ok()?)?)
    })?;
    shdrs.iter().find_map(|sh| {
        let n = names.get(sh.sh_name.get(LE) as usize..)?;
        let n = &n[..n.iter().position(|&b| b == 0)?];
        if n != name.as_bytes() {
            return None;
        }
        raw_section(data, sh)
    })
}

fn parse_header(data: &[u8]) -> Result<Header> {
    if data.is_empty() {
        return Err(FormatError::new(0, "empty file"));
    }
    if data.len() < 4 || data[..4] != *b"\x7fELF" {
        return Err(FormatError::new(0, "not an ELF file (bad magic)"));
    }
    if data.len() < EHDR_SIZE {
        return Err(FormatError::new(
            data.len() as u64,
            format!("truncated ELF header ({} of 64 bytes)", data.len()),
        ));
    }
    if data[4] != 2 {
        return Err(FormatError::new(4, "not a 64-bit ELF (cubins are ELFCLASS64)"));
    }
    if data[5] != 1 {
        return Err(FormatError::new(5, "not a little-endian ELF"));
    }
    let ehdr: &FileHeader64<LE> = pod_at(data, 0, "ELF header")?;
    let machine = ehdr.e_machine.get(LE).0;
    if machine != EM_CUDA {
        return Err(FormatError::new(
            0x12,
            format!("not a CUDA ELF (e_machine {machine}, expected {EM_CUDA})"),
        ));
    }
    Ok(Header {
        os_abi: data[7],
        abi_version: data[8],
        e_type: ehdr.e_type.get(LE).0,
        e_machine: machine,
        e_version: ehdr.e_version.get(LE),
        e_entry: ehdr.e_entry.get(LE),
        e_flags: ehdr.e_flags.get(LE).0,
        e_phentsize: ehdr.e_phentsize.get(LE),
    })
}

fn section_headers<'d>(data: &'d [u8], ehdr: &FileHeader64<LE>) -> Result<&'d [SectionHeader64<LE>]> {
    let shoff = ehdr.e_shoff.get(LE);
    let shnum = ehdr.e_shnum.get(LE) as u64;
    if shoff == 0 {
        return Ok(&[]);
    }
    let entsize = ehdr.e_shentsize.get(LE) as usize;
    if entsize != SHDR_SIZE {
        return Err(FormatError::new(0x3a, format!("e_shentsize is {entsize}, expected 64")));
    }
    let shnum = if shnum == 0 {
        // ELF extended section numbering (nvlink writes it past 65,279
        // sections): the count is section 0's sh_size.
        let s0: &SectionHeader64<LE> = pod_at(data, shoff, "section header 0")?;
        let n = s0.sh_size.get(LE);
        if n == 0 || n > (data.len() as u64) / SHDR_SIZE as u64 {
            return Err(FormatError::new(
                shoff + 32,
                format!("e_shnum is 0 and section 0 gives {n} sections, which do not fit in the file"),
            ));
        }
        n
    } else {
        shnum
    };
    let end = shoff.checked_add(shnum * SHDR_SIZE as u64);
    match end {
        Some(end) if end <= data.len() as u64 => {}
        _ => {
            return Err(FormatError::new(
                shoff,
                format!(
                    "section header table ({shnum} entries at {shoff:#x}) runs past the end of the file (size {:#x})",
                    data.len()
                ),
            ));
        }
    }
    slice_at(data, shoff, shnum as usize, "section header table")
}

fn section_bytes<'d>(data: &'d [u8], sh: &SectionHeader64<LE>, hdr_at: u64) -> Result<&'d [u8]> {
    if is_nobits(sh.sh_type.get(LE).0) {
        return Ok(&[]);
    }
    let off = sh.sh_offset.get(LE);
    let size = sh.sh_size.get(LE);
    match off.checked_add(size) {
        Some(end) if end <= data.len() as u64 => Ok(&data[off as usize..end as usize]),
        _ => Err(FormatError::new(
            hdr_at + 24,
            format!(
                "section contents ({size:#x} bytes at {off:#x}) run past the end of the file (size {:#x})",
                data.len()
            ),
        )),
    }
}

/// The symbols of the first section of type `table_type` (.symtab or .nv.merc.symtab).
fn parse_symbols(
    data: &[u8],
    shdrs: &[SectionHeader64<LE>],
    sections: &[Section<'_>],
    shoff: u64,
    table_type: u32,
) -> Result<Vec<Symbol>> {
    let Some(idx) = sections.iter().position(|s| s.sh_type == table_type) else {
        return Ok(Vec::new());
    };
    let symtab = &sections[idx];
    let at = shoff + (idx * SHDR_SIZE) as u64;
    if symtab.entsize != SYM_SIZE as u64 || !symtab.data.len().is_multiple_of(SYM_SIZE) {
        return Err(FormatError::new(
            at + 56,
            format!(
                "symbol table {} has entry size {} and size {:#x}; expected entries of 24 bytes",
                symtab.name,
                symtab.entsize,
                symtab.data.len()
            ),
        ));
    }
    let strndx = symtab.link as usize;
    if strndx == 0 || sections[strndx].sh_type != SHT_STRTAB {
        return Err(FormatError::new(
            at + 40,
            format!("symbol table links to section {strndx}, which is not a string table"),
        ));
    }
    let strtab = &sections[strndx].data;
    let sym_off = shdrs[idx].sh_offset.get(LE);
    let syms: &[Sym64<LE>] = slice_at(data, sym_off, symtab.data.len() / SYM_SIZE, "symbol table")?;
    // ELF extended section numbering: the symbols' real section indices.
    let extended: &[u8] = match sections
        .iter()
        .position(|s| s.sh_type == SHT_SYMTAB_SHNDX && s.link as usize == idx)
    {
        Some(x) if sections[x].data.len() < syms.len() * 4 => {
            return Err(FormatError::new(
                shoff + (x * SHDR_SIZE) as u64 + 32,
                format!(
                    "{} holds {:#x} bytes; the symbol table needs {:#x}",
                    sections[x].name,
                    sections[x].data.len(),
                    syms.len() * 4
                ),
            ));
        }
        Some(x) => &sections[x].data,
        None => &[],
    };
    let mut out = Vec::with_capacity(syms.len());
    for (i, s) in syms.iter().enumerate() {
        let here = sym_off + (i * SYM_SIZE) as u64;
        let name = string_at(strtab, s.st_name.get(LE) as usize).ok_or_else(|| {
            FormatError::new(
                here,
                format!(
                    "symbol {i} name offset {:#x} is outside {} (size {:#x})",
                    s.st_name.get(LE),
                    sections[strndx].name,
                    strtab.len()
                ),
            )
        })?;
        let raw = s.st_shndx.get(LE).0;
        let ext = extended
            .get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let shndx = shndx_from_raw(raw, ext);
        if shndx != SHN_UNDEF && shndx < 0xffff_0000 && shndx as usize >= sections.len() {
            return Err(FormatError::new(
                here + 6,
                format!("symbol {i} ({name}) is in section {shndx}, past the last section"),
            ));
        }
        out.push(Symbol {
            name: name.to_string(),
            value: s.st_value.get(LE),
            size: s.st_size.get(LE),
            binding: s.st_info.0 >> 4,
            sym_type: s.st_info.0 & 0xf,
            other: s.st_other.0,
            shndx,
        });
    }
    Ok(out)
}

fn parse_relocs(
    data: &[u8],
    sh: &SectionHeader64<LE>,
    sec: &Section<'_>,
    nsyms: usize,
    hdr_at: u64,
) -> Result<Vec<Reloc>> {
    let rela = sec.has_addends();
    let entsize = if rela { 24 } else { 16 };
    if !sec.data.len().is_multiple_of(entsize) {
        return Err(FormatError::new(
            hdr_at + 32,
            format!(
                "relocation section {} size {:#x} is not a multiple of {entsize}",
                sec.name,
                sec.data.len()
            ),
        ));
    }
    let off = sh.sh_offset.get(LE);
    let count = sec.data.len() / entsize;
    let mut out = Vec::with_capacity(count);
    let mut push = |i: usize, offset: u64, info: u64, addend: i64| -> Result<()> {
        let sym = (info >> 32) as u32;
        if sym as usize >= nsyms.max(1) && sym != 0 {
            return Err(FormatError::new(
                off + (i * entsize) as u64 + 8,
                format!(
                    "relocation {i} of {} refers to symbol {sym}, past the last symbol",
                    sec.name
                ),
            ));
        }
        out.push(Reloc {
            offset,
            sym,
            rtype: info as u32,
            addend,
        });
        Ok(())
    };
    if rela {
        let recs: &[Rela64<LE>] = slice_at(data, off, count, "relocation section")?;
        for (i, r) in recs.iter().enumerate() {
            push(i, r.r_offset.get(LE), r.r_info.get(LE), r.r_addend.get(LE))?;
        }
    } else {
        let recs: &[Rel64<LE>] = slice_at(data, off, count, "relocation section")?;
        for (i, r) in recs.iter().enumerate() {
            push(i, r.r_offset.get(LE), r.r_info.get(LE), 0)?;
        }
    }
    Ok(out)
}

fn parse_segments(data: &[u8], ehdr: &FileHeader64<LE>, shdrs: &[SectionHeader64<LE>]) -> Result<Vec<Segment>> {
    let phoff = ehdr.e_phoff.get(LE);
    let phnum = ehdr.e_phnum.get(LE) as usize;
    if phoff == 0 || phnum == 0 {
        return Ok(Vec::new());
    }
    if ehdr.e_phentsize.get(LE) as usize != PHDR_SIZE {
        return Err(FormatError::new(
            0x36,
            format!("e_phentsize is {}, expected 56", ehdr.e_phentsize.get(LE)),
        ));
    }
    let fits = phoff
        .checked_add((phnum * PHDR_SIZE) as u64)
        .is_some_and(|e| e <= data.len() as u64);
    if !fits {
        return Err(FormatError::new(
            phoff,
            format!(
                "program header table ({phnum} entries at {phoff:#x}) runs past the end of the file (size {:#x})",
                data.len()
            ),
        ));
    }
    let phdrs: &[ProgramHeader64<LE>] = slice_at(data, phoff, phnum, "program header table")?;
    let mut out = Vec::with_capacity(phnum);
    for (i, p) in phdrs.iter().enumerate() {
        let off = p.p_offset.get(LE);
        let filesz = p.p_filesz.get(LE);
        let memsz = p.p_memsz.get(LE);
        let covers = if off == phoff && filesz == (phnum * PHDR_SIZE) as u64 {
            SegmentCovers::ProgramHeaders
        } else {
            let inside: Vec<usize> = (1..shdrs.len())
                .filter(|&k| {
                    let sh = &shdrs[k];
                    let so = sh.sh_offset.get(LE);
                    let nobits = is_nobits(sh.sh_type.get(LE).0);
                    let in_file = so >= off && so < off + filesz.max(1) && !nobits;
                    // NOBITS sections have no file range; they belong to the
                    // segment whose memory image extends past its file image
                    // and whose file image ends where they start.
                    let in_mem = nobits && memsz > filesz && so >= off && so <= off + filesz;
                    (in_file && filesz > 0) || in_mem
                })
                .collect();
            // A segment covers a run of consecutive sections: a later one
            // inside its range shares bytes with one of them (nvlink's
            // `.nv.merc.nv.global.init` points at `.nv.global.init`'s).
            let run = inside.windows(2).take_while(|w| w[1] == w[0] + 1).count();
            match (inside.first(), inside.get(run)) {
                (Some(&first), Some(&last)) => SegmentCovers::Sections { first, last },
                _ if filesz == 0 && memsz == 0 => SegmentCovers::Empty,
                _ => {
                    return Err(FormatError::new(
                        phoff + (i * PHDR_SIZE) as u64,
                        format!("program header {i} ({filesz:#x} bytes at {off:#x}) covers no section"),
                    ));
                }
            }
        };
        out.push(Segment {
            p_type: p.p_type.get(LE).0,
            p_flags: p.p_flags.get(LE).0,
            p_align: p.p_align.get(LE),
            vaddr: p.p_vaddr.get(LE),
            paddr: p.p_paddr.get(LE),
            covers,
        });
    }
    Ok(out)
}

/// The NUL-terminated string at `off` of a string table.
pub(crate) fn string_at(table: &[u8], off: usize) -> Option<&str> {
    let rest = table.get(off..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

fn pod_at<'d, T: Pod>(data: &'d [u8], off: u64, what: &str) -> Result<&'d T> {
    let tail = data
        .get(off as usize..)
        .ok_or_else(|| FormatError::new(off, format!("{what} starts past the end of the file")))?;
    from_bytes::<T>(tail)
        .map(|(t, _)| t)
        .map_err(|_| FormatError::new(off, format!("{what} is truncated or misaligned")))
}

fn slice_at<'d, T: Pod>(data: &'d [u8], off: u64, count: usize, what: &str) -> Result<&'d [T]> {
    let tail = data
        .get(off as usize..)
        .ok_or_else(|| FormatError::new(off, format!("{what} starts past the end of the file")))?;
    slice_from_bytes::<T>(tail, count)
        .map(|(t, _)| t)
        .map_err(|_| FormatError::new(off, format!("{what} is truncated or misaligned")))
}
