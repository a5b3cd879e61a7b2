//! Host objects: the ELF relocatable files nvcc writes (x86-64 and other CPU
//! architectures), which carry device code as embedded fatbins.
//!
//! What nvcc 13.5 writes (checked with readelf and cuobjdump):
//!
//! * `nvcc -rdc=true -c` puts the fatbin of relocatable cubins (and PTX) in
//!   section **`__nv_relfatbin`** (alignment 8), next to `.nvFatBinSegment`
//!   (the 24-byte `__fatBinC_Wrapper_t` {magic 0x466243b1, version 1, pointer
//!   to the fatbin, ...}, relocated by `.rela.nvFatBinSegment`) and
//!   `__nv_module_id`.
//! * Whole-program `nvcc -c` and `nvcc -dlink` put an executable (ET_EXEC)
//!   cubin in **`.nv_fatbin`** instead.
//! * `ld -r a.o b.o` concatenates the `__nv_relfatbin` sections, so one section
//!   may hold several fatbin containers.
//!
//! What nvlink 13.5 reads (tested): only `__nv_relfatbin`, and in it only the
//! **first** container (after `ld -r a.o b.o` only a.o's device code is
//! linked), though it registers every id of `__nv_module_id` (corpus
//! observation 195). `.nv_fatbin` is ignored, even when it holds a
//! relocatable cubin.
//! An object that has `.nvFatBinSegment` but no fatbin section is fatal
//! ("Could not find fatbin in 'x.o'"); an object without either (plain gcc
//! output) is skipped silently.
//!
//! The ELF headers are read by hand, byte by byte: host objects inside `ar`
//! archives usually start at an offset that is not 8-aligned, which the
//! aligned `object::elf` header types refuse.

use super::consts::EM_CUDA;
use super::error::{FormatError, Result};

/// The section nvlink reads device code from.
pub const RELFATBIN_SECTION: &str = "__nv_relfatbin";
/// The section with executable (already linked) device code; nvlink ignores it.
pub const FATBIN_SECTION: &str = ".nv_fatbin";
/// The section holding the fatbin wrapper the CUDA runtime registers.
pub const FATBIN_SEGMENT_SECTION: &str = ".nvFatBinSegment";

const SHT_NOBITS: u32 = 8;
const SHF_COMPRESSED: u64 = 0x800;
const SHN_XINDEX: u16 = 0xffff;

/// True when `data` is an ELF file (either class, either byte order) for a
/// machine other than EM_CUDA.
pub fn is_host_elf(data: &[u8]) -> bool {
    match Ident::read(data) {
        Some(id) => id.u16(data, 18) != Some(EM_CUDA),
        None => false,
    }
}

/// One section of a host ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSection<'a> {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    /// File offset of the contents.
    pub offset: u64,
    /// Contents (empty for SHT_NOBITS).
    pub data: &'a [u8],
}

/// The parts of a host ELF file culdb needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostElf<'a> {
    pub class64: bool,
    pub big_endian: bool,
    pub e_type: u16,
    pub e_machine: u16,
    pub sections: Vec<HostSection<'a>>,
}

impl<'a> HostElf<'a> {
    pub fn section(&self, name: &str) -> Option<&HostSection<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// A fatbin section of a host object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedFatbin<'a> {
    /// `__nv_relfatbin` or `.nv_fatbin`.
    pub section: String,
    /// Section index.
    pub index: usize,
    /// File offset of the section contents.
    pub offset: u64,
    pub data: &'a [u8],
}

impl EmbeddedFatbin<'_> {
    /// Whether nvlink links from this section (only `__nv_relfatbin`, and
    /// only its first container).
    pub fn read_by_nvlink(&self) -> bool {
        self.section == RELFATBIN_SECTION
    }
}

/// A host object's `__nv_module_id`: the name nvcc's registration code
/// gives its device code (`--register-link-binaries`).
pub fn module_id(data: &[u8]) -> Option<String> {
    module_ids(data).into_iter().next()
}

/// Every module id of a host object, in order: `ld -r` concatenates the
/// objects' `__nv_module_id` sections (each id NUL-padded).
pub fn module_ids(data: &[u8]) -> Vec<String> {
    let Ok(elf) = parse(data) else {
        return Vec::new();
    };
    let Some(s) = elf.sections.iter().find(|s| s.name == "__nv_module_id") else {
        return Vec::new();
    };
    s.data
        .split(|&b| b == 0)
        .filter(|id| !id.is_empty())
        .map(|id| String::from_utf8_lossy(id).into_owned())
        .collect()
}

/// The fatbin sections (`__nv_relfatbin`, `.nv_fatbin`) of a host ELF file,
/// in section-header order, as (section name, contents).
pub fn embedded_fatbins(data: &[u8]) -> Result<Vec<(String, &[u8])>> {
    Ok(fatbin_sections(data)?
        .into_iter()
        .map(|f| (f.section, f.data))
        .collect())
}

/// The fatbin sections of a host ELF file with their indices and offsets.
pub fn fatbin_sections(data: &[u8]) -> Result<Vec<EmbeddedFatbin<'_>>> {
    let elf = parse(data)?;
    let mut out = Vec::new();
    for s in elf.sections {
        if s.name != RELFATBIN_SECTION && s.name != FATBIN_SECTION {
            continue;
        }
        if s.flags & SHF_COMPRESSED != 0 {
            return Err(FormatError::new(
                s.offset,
                format!("section {} is ELF-compressed", s.name),
            ));
        }
        if s.sh_type == SHT_NOBITS {
            return Err(FormatError::new(
                s.offset,
                format!("section {} has no contents (SHT_NOBITS)", s.name),
            ));
        }
        out.push(EmbeddedFatbin {
            section: s.name,
            index: s.index,
            offset: s.offset,
            data: s.data,
        });
    }
    Ok(out)
}

/// Parses the ELF header and section headers of a host object.
pub fn parse(data: &[u8]) -> Result<HostElf<'_>> {
    let id = Ident::read(data).ok_or_else(|| {
        FormatError::new(
            0,
            "not an ELF file (bad magic, class or byte order, or shorter than its header)",
        )
    })?;
    let e_machine = id.u16(data, 18).unwrap_or(0);
    if e_machine == EM_CUDA {
        return Err(FormatError::new(
            18,
            "this is a cubin (e_machine EM_CUDA), not a host object",
        ));
    }
    let e_type = id.u16(data, 16).unwrap_or(0);
    // Field offsets of e_shoff, e_shentsize, e_shnum, e_shstrndx.
    let (shoff, shentsize_at, min_shentsize) = if id.class64 {
        (id.u64(data, 0x28), 0x3a, 0x40)
    } else {
        (id.u32(data, 0x20).map(u64::from), 0x2e, 0x28)
    };
    let shoff = shoff.unwrap_or(0);
    let shentsize = id.u16(data, shentsize_at).unwrap_or(0) as u64;
    let mut shnum = id.u16(data, shentsize_at + 2).unwrap_or(0) as u64;
    let mut shstrndx = id.u16(data, shentsize_at + 4).unwrap_or(0) as u64;
    if shoff == 0 {
        return Ok(HostElf {
            class64: id.class64,
            big_endian: id.big,
            e_type,
            e_machine,
            sections: Vec::new(),
        });
    }
    if shentsize < min_shentsize {
        return Err(FormatError::new(
            shentsize_at as u64,
            format!("e_shentsize {shentsize:#x} is smaller than a section header ({min_shentsize:#x})"),
        ));
    }
    let raw = |i: u64| -> Result<SectionHeader> {
        let at = i
            .checked_mul(shentsize)
            .and_then(|o| o.checked_add(shoff))
            .filter(|&o| o.checked_add(min_shentsize).is_some_and(|e| e <= data.len() as u64))
            .ok_or_else(|| {
                FormatError::new(
                    shoff.saturating_add(i.saturating_mul(shentsize)),
                    format!("section header {i} lies outside the {:#x}-byte file", data.len()),
                )
            })?;
        Ok(SectionHeader::read(&id, data, at as usize))
    };
    // Extended numbering: the real counts live in section header 0.
    if shnum == 0 || shstrndx == SHN_XINDEX as u64 {
        let s0 = raw(0)?;
        if shnum == 0 {
            shnum = s0.size;
        }
        if shstrndx == SHN_XINDEX as u64 {
            shstrndx = s0.link as u64;
        }
    }
    let table_end = shnum.checked_mul(shentsize).and_then(|n| n.checked_add(shoff));
    if table_end.is_none_or(|e| e > data.len() as u64) {
        return Err(FormatError::new(
            shoff,
            format!(
                "{shnum} section headers of {shentsize:#x} bytes at {shoff:#x} do not fit in the {:#x}-byte file",
                data.len()
            ),
        ));
    }
    let headers: Vec<SectionHeader> = (0..shnum).map(raw).collect::<Result<_>>()?;
    let header_at = |i: usize| shoff + i as u64 * shentsize;
    let contents = |i: usize, h: &SectionHeader| -> Result<&[u8]> {
        if h.sh_type == SHT_NOBITS {
            return Ok(&[]);
        }
        h.offset
            .checked_add(h.size)
            .filter(|&e| e <= data.len() as u64)
            .map(|e| &data[h.offset as usize..e as usize])
            .ok_or_else(|| {
                FormatError::new(
                    header_at(i),
                    format!(
                        "section {i}: {:#x} bytes at {:#x} run past the end of the {:#x}-byte file",
                        h.size,
                        h.offset,
                        data.len()
                    ),
                )
            })
    };
    // e_shstrndx 0 (SHN_UNDEF): no section names.
    let shstrtab: Option<&[u8]> = match headers.get(shstrndx as usize) {
        _ if shstrndx == 0 => None,
        Some(h) => Some(contents(shstrndx as usize, h)?),
        None => {
            return Err(FormatError::new(
                shentsize_at as u64 + 4,
                format!("e_shstrndx {shstrndx} is not a section (there are {shnum})"),
            ));
        }
    };
    let mut sections = Vec::with_capacity(headers.len());
    for (i, h) in headers.iter().enumerate() {
        let name: &[u8] = match shstrtab {
            None => &[],
            Some(t) => t
                .get(h.name as usize..)
                .and_then(|s| s.iter().position(|&b| b == 0).map(|n| &s[..n]))
                .ok_or_else(|| {
                    FormatError::new(
                        header_at(i),
                        format!(
                            "section {i}: name offset {:#x} is outside the section name table",
                            h.name
                        ),
                    )
                })?,
        };
        sections.push(HostSection {
            index: i,
            name: String::from_utf8_lossy(name).into_owned(),
            sh_type: h.sh_type,
            flags: h.flags,
            offset: h.offset,
            data: contents(i, h)?,
        });
    }
    Ok(HostElf {
        class64: id.class64,
        big_endian: id.big,
        e_type,
        e_machine,
        sections,
    })
}

/// e_ident: class and byte order.
struct Ident {
    class64: bool,
    big: bool,
}

impl Ident {
    fn read(data: &[u8]) -> Option<Ident> {
        if data.get(..4)? != b"\x7fELF" {
            return None;
        }
        let class64 = match data.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let big = match data.get(5)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let ehsize = if class64 { 64 } else { 52 };
        (data.len() >= ehsize).then_some(Ident { class64, big })
    }

    fn bytes<const N: usize>(&self, d: &[u8], off: usize) -> Option<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(d.get(off..off.checked_add(N)?)?);
        if self.big {
            a.reverse();
        }
        Some(a)
    }

    fn u16(&self, d: &[u8], off: usize) -> Option<u16> {
        self.bytes(d, off).map(u16::from_le_bytes)
    }

    fn u32(&self, d: &[u8], off: usize) -> Option<u32> {
        self.bytes(d, off).map(u32::from_le_bytes)
    }

    fn u64(&self, d: &[u8], off: usize) -> Option<u64> {
        self.bytes(d, off).map(u64::from_le_bytes)
    }
}

struct SectionHeader {
    name: u32,
    sh_type: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
}

impl SectionHeader {
    /// The caller checked that a whole header lies at `at`.
    fn read(id: &Ident, d: &[u8], at: usize) -> SectionHeader {
        let u32_at = |o: usize| id.u32(d, at + o).unwrap_or(0);
        let u64_at = |o: usize| id.u64(d, at + o).unwrap_or(0);
        if id.class64 {
            SectionHeader {
                name: u32_at(0),
                sh_type: u32_at(4),
                flags: u64_at(8),
                offset: u64_at(0x18),
                size: u64_at(0x20),
                link: u32_at(0x28),
            }
        } else {
            SectionHeader {
                name: u32_at(0),
                sh_type: u32_at(4),
                flags: u32_at(8) as u64,
                offset: u32_at(0x10) as u64,
                size: u32_at(0x14) as u64,
                link: u32_at(0x18),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/containers");

    fn sample(name: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}/{name}")).unwrap()
    }

    #[test]
    fn sections_nvcc_writes() {
        let d = sample("a_sm90.o");
        assert!(is_host_elf(&d));
        let elf = parse(&d).unwrap();
        assert!(elf.class64 && !elf.big_endian);
        assert_eq!((elf.e_type, elf.e_machine), (1, 62));
        assert!(elf.section(FATBIN_SEGMENT_SECTION).is_some());
        let f = fatbin_sections(&d).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].section.as_str(), f[0].offset, f[0].data.len()),
            (RELFATBIN_SECTION, 0x390, 0x6a0)
        );
        assert!(f[0].read_by_nvlink());
        let exec = sample("exec.o");
        let e = embedded_fatbins(&exec).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, FATBIN_SECTION);
        assert!(!is_host_elf(&sample("expected/a_sm90.1.sm_90.cubin")));
        assert!(parse(&sample("expected/a_sm90.1.sm_90.cubin")).is_err());
    }

    /// A big-endian ELF32 with one section named __nv_relfatbin.
    #[test]
    fn elf32_big_endian() {
        let mut d = vec![0u8; 52];
        d[..7].copy_from_slice(b"\x7fELF\x01\x02\x01");
        d[16..20].copy_from_slice(&[0, 1, 0, 20]); // ET_REL, EM_PPC
        let strtab = b"\0__nv_relfatbin\0.shstrtab\0";
        let payload = b"FATBIN!!";
        let strtab_at = d.len() as u32;
        d.extend_from_slice(strtab);
        let payload_at = d.len() as u32;
        d.extend_from_slice(payload);
        let shoff = d.len() as u32;
        d[0x20..0x24].copy_from_slice(&shoff.to_be_bytes());
        d[0x2e..0x30].copy_from_slice(&40u16.to_be_bytes());
        d[0x30..0x32].copy_from_slice(&3u16.to_be_bytes());
        d[0x32..0x34].copy_from_slice(&2u16.to_be_bytes());
        let sh = |name: u32, ty: u32, off: u32, size: u32| {
            let mut h = [0u8; 40];
            h[0..4].copy_from_slice(&name.to_be_bytes());
            h[4..8].copy_from_slice(&ty.to_be_bytes());
            h[0x10..0x14].copy_from_slice(&off.to_be_bytes());
            h[0x14..0x18].copy_from_slice(&size.to_be_bytes());
            h
        };
        d.extend_from_slice(&[0u8; 40]);
        d.extend_from_slice(&sh(1, 1, payload_at, payload.len() as u32));
        d.extend_from_slice(&sh(16, 3, strtab_at, strtab.len() as u32));
        assert!(is_host_elf(&d));
        let f = embedded_fatbins(&d).unwrap();
        assert_eq!(f, vec![(RELFATBIN_SECTION.to_string(), &payload[..])]);
        // Truncations are errors with offsets, never panics.
        for n in 0..d.len() {
            let _ = parse(&d[..n]);
        }
        let err = parse(&d[..d.len() - 1]).unwrap_err();
        assert_eq!(err.offset, shoff as u64);
    }
}
