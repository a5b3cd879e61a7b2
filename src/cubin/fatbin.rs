//! Fatbin containers: the `0xBA55ED50` format that `fatbinary` writes, which
//! nvcc embeds in host objects and `nvcc -fatbin` writes as a file.
//!
//! It stays one file because it is one format: reading, decompressing,
//! selecting for a target and writing all follow the container and entry
//! headers laid out below.
//!
//! # Layout
//!
//! Determined from files written by nvcc/fatbinary 13.5 (cross-checked with
//! `cuobjdump -lelf/-lptx/-xelf`); all integers little-endian.
//!
//! A fatbin is one or more **containers** back to back (`ld -r` concatenates
//! the `__nv_relfatbin` sections of its inputs; zero padding may sit between
//! them). A container is a 16-byte header followed by entries:
//!
//! | off  | type | field |
//! |------|------|-------|
//! | 0x00 | u32  | magic `0xBA55ED50` |
//! | 0x04 | u16  | version (1) |
//! | 0x06 | u16  | header size (0x10): the first entry starts there |
//! | 0x08 | u64  | byte size of the entries that follow the header |
//!
//! Each **entry** is a header of at least 0x40 bytes followed by its payload:
//!
//! | off  | type | field |
//! |------|------|-------|
//! | 0x00 | u16  | kind: 1 PTX, 2 ELF (cubin), 8 NVVM IR (LTO), 0x100 concatenated group |
//! | 0x02 | u16  | 0x0101 in every file seen |
//! | 0x04 | u32  | header size: the payload starts at entry + this (0x40, 0x48, 0x60, ...) |
//! | 0x08 | u64  | stored payload size (padded to a multiple of 8) |
//! | 0x10 | u32  | exact compressed length (0 when not compressed) |
//! | 0x14 | u32  | offset from the entry of the options descriptor (0 = none) |
//! | 0x18 | u16  | code version minor |
//! | 0x1a | u16  | code version major (ELF 1.8, PTX ISA 9.5, NVVM 1.67, group 0.1) |
//! | 0x1c | u32  | SM number (90 for sm_90, sm_90a and compute_90) |
//! | 0x20 | u32  | offset from the entry of the identifier (source file name, `-G`/`-lineinfo`) |
//! | 0x24 | u32  | identifier length |
//! | 0x28 | u64  | flags, see [`flags`] |
//! | 0x30 | u64  | reserved: 0, except on encrypted LTO IR |
//! | 0x38 | u64  | uncompressed payload size (0 when not compressed) |
//!
//! The variable part of the header (0x40 up to the header size) holds the
//! identifier (NUL-padded to 8) and the options descriptor `{u32 offset from
//! the entry, u32 length}` followed by the options bytes: ptxas options for
//! PTX (`--compile-only ...`), nvvm options for NVVM IR, and a binary
//! capability blob for sm_100+ ELF entries (flag 0x1000000).
//!
//! Compressed payloads (flag 0x8000: one zstd frame; flag 0x2000: one raw LZ4
//! block) occupy the first `compressed length` bytes of the stored payload and
//! decompress to exactly `uncompressed size` bytes. nvcc 13.5 compresses every
//! entry with zstd by default (`-Xfatbin=-compress-mode=speed` gives LZ4,
//! `--no-compress`/`-compress-mode=none` gives none). A decompressed PTX
//! payload ends with a NUL; a stored uncompressed one is NUL-padded to 8.
//!
//! A **group** entry (kind 0x100, `nvcc --concat`/`fatbinary --concat`) packs
//! several images into one (compressed) payload. Its options-descriptor field
//! points at a table `{u32 count, u32 table size = 8 + 0x40 * count}` followed
//! by `count` sub-entry headers in the 0x40-byte layout above, in which field
//! 0x04 is the offset of the image inside the *decompressed* group payload and
//! 0x08 its size (their flags say "not compressed"). [`parse`] expands a group
//! into its images, in place, the way cuobjdump lists them.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use super::consts::is_nobits;
use super::error::{FormatError, Result};

/// First four bytes of every container.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Size of the container header.
pub const CONTAINER_HEADER_SIZE: usize = 0x10;
/// Size of the fixed part of an entry header (and of a group's sub-entry header).
pub const ENTRY_HEADER_SIZE: usize = 0x40;

/// Entry kind codes.
pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;
pub const KIND_NVVM: u16 = 8;
pub const KIND_GROUP: u16 = 0x100;

/// Entry flag bits (field 0x28).
pub mod flags {
    /// compile_size = 64bit.
    pub const BIT64: u64 = 0x1;
    /// Debug compile (`-G`): "has debug info".
    pub const DEBUG: u64 = 0x2;
    /// host = linux.
    pub const HOST_LINUX: u64 = 0x10;
    /// host = mac (from other reverse-engineering; not seen here).
    pub const HOST_MAC: u64 = 0x20;
    /// host = windows (from other reverse-engineering; not seen here).
    pub const HOST_WINDOWS: u64 = 0x40;
    /// Payload is one raw LZ4 block (`-compress-mode=speed`).
    pub const COMPRESSED_LZ4: u64 = 0x2000;
    /// Payload is one zstd frame (the default of nvcc 13.5).
    pub const COMPRESSED_ZSTD: u64 = 0x8000;
    /// Payload is encrypted (LTO IR from `-gencode code=lto_XX`); set together
    /// with COMPRESSED_ZSTD, but the bytes are not a zstd frame.
    pub const ENCRYPTED: u64 = 0x1_0000;
    /// Architecture-specific target (`sm_90a`, `sm_100a`).
    pub const ARCH_SPECIFIC: u64 = 0x10_0000;
    /// Family-specific target (`sm_100f`).
    pub const ARCH_FAMILY: u64 = 0x20_0000;
    /// Seen on every sm_100+ ELF entry; its options blob is then binary.
    pub const CAPABILITIES: u64 = 0x100_0000;
    /// Any compression bit: LZ4, zstd, and 0x1000 (an older NVIDIA scheme
    /// according to other reverse-engineering; culdb does not decode it).
    pub const ANY_COMPRESSION: u64 = 0x1000 | COMPRESSED_LZ4 | COMPRESSED_ZSTD;
}

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum EntryKind {
    /// PTX text.
    Ptx,
    /// A cubin (CUDA ELF).
    Elf,
    /// NVVM IR for link-time optimisation (needs `nvlink -dlto`).
    Nvvm,
    /// A concatenated group. Groups are expanded into their images, so this
    /// kind only shows for a group nested inside a group's table.
    Group,
    /// Any other kind code.
    Other(u16),
}

impl EntryKind {
    pub fn from_code(code: u16) -> EntryKind {
        match code {
            KIND_PTX => EntryKind::Ptx,
            KIND_ELF => EntryKind::Elf,
            KIND_NVVM => EntryKind::Nvvm,
            KIND_GROUP => EntryKind::Group,
            c => EntryKind::Other(c),
        }
    }

    pub fn code(self) -> u16 {
        match self {
            EntryKind::Ptx => KIND_PTX,
            EntryKind::Elf => KIND_ELF,
            EntryKind::Nvvm => KIND_NVVM,
            EntryKind::Group => KIND_GROUP,
            EntryKind::Other(c) => c,
        }
    }

    /// The word cuobjdump uses ("Fatbin elf code", "Fatbin ptx code", ...).
    pub fn name(self) -> Cow<'static, str> {
        match self {
            EntryKind::Ptx => "ptx".into(),
            EntryKind::Elf => "elf".into(),
            EntryKind::Nvvm => "nvvm".into(),
            EntryKind::Group => "group".into(),
            EntryKind::Other(c) => format!("kind{c:#x}").into(),
        }
    }
}

/// How a payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
    /// A compression bit culdb cannot decode (the flag bits).
    Unknown(u64),
}

impl Compression {
    fn from_flags(f: u64) -> Compression {
        if f & flags::COMPRESSED_ZSTD != 0 {
            Compression::Zstd
        } else if f & flags::COMPRESSED_LZ4 != 0 {
            Compression::Lz4
        } else if f & flags::ANY_COMPRESSION != 0 {
            Compression::Unknown(f & flags::ANY_COMPRESSION)
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
            Compression::Unknown(_) => "unknown",
        }
    }
}

/// The suffix of an architecture name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub enum ArchVariant {
    /// `sm_90`: runs on later minors of the same major.
    #[default]
    Plain,
    /// `sm_90a`: runs only on exactly that SM.
    Specific,
    /// `sm_100f`: runs on later minors of the same major (family).
    Family,
}

/// A target or code architecture: SM number and suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct SmArch {
    pub sm: u32,
    pub variant: ArchVariant,
}

impl SmArch {
    pub fn new(sm: u32) -> SmArch {
        SmArch {
            sm,
            variant: ArchVariant::Plain,
        }
    }

    /// Parses `sm_90`, `sm_90a`, `compute_100f`, `lto_90` or a bare `90`.
    pub fn parse(s: &str) -> Option<SmArch> {
        let s = s.trim();
        let digits = ["sm_", "compute_", "lto_"]
            .iter()
            .find_map(|p| s.strip_prefix(p))
            .unwrap_or(s);
        let (num, variant) = match digits.as_bytes().last()? {
            b'a' => (&digits[..digits.len() - 1], ArchVariant::Specific),
            b'f' => (&digits[..digits.len() - 1], ArchVariant::Family),
            _ => (digits, ArchVariant::Plain),
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(SmArch {
            sm: num.parse().ok()?,
            variant,
        })
    }

    /// The major version (9 for sm_90, 10 for sm_103, 12 for sm_121).
    pub fn major(self) -> u32 {
        self.sm / 10
    }
}

impl From<u32> for SmArch {
    fn from(sm: u32) -> SmArch {
        SmArch::new(sm)
    }
}

impl fmt::Display for SmArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            ArchVariant::Plain => "",
            ArchVariant::Specific => "a",
            ArchVariant::Family => "f",
        };
        write!(f, "sm_{}{}", self.sm, suffix)
    }
}

/// One container of a (possibly concatenated) fatbin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Container {
    /// Offset of the container header in the parsed bytes.
    pub offset: u64,
    pub version: u16,
    pub header_size: u16,
    /// Bytes of entries after the header (the header's size field).
    pub entries_size: u64,
    /// Indices into [`Fatbin::entries`] of this container's entries.
    pub entries: std::ops::Range<usize>,
}

impl Container {
    /// Total size, header included.
    pub fn size(&self) -> u64 {
        self.header_size as u64 + self.entries_size
    }
}

/// One image of a fatbin.
#[derive(Debug, Clone)]
pub struct FatbinEntry<'a> {
    pub kind: EntryKind,
    /// SM number of the code (90 for sm_90/sm_90a/compute_90).
    pub sm: u32,
    /// Suffix of the architecture (from the flags).
    pub variant: ArchVariant,
    /// Code version (major, minor): ELF (1, 8), PTX ISA (9, 5), ...
    pub version: (u16, u16),
    /// The flags field, see [`flags`].
    pub flags: u64,
    /// The payload is stored compressed (for group members: the group is).
    pub compressed: bool,
    pub compression: Compression,
    /// Offset of the entry header in the parsed bytes. For a group member, the
    /// offset of its sub-entry header inside the group's header.
    pub offset: u64,
    /// Size of the entry header.
    pub header_size: u32,
    /// Offset of the stored payload in the parsed bytes (for a group member:
    /// of the group's payload).
    pub payload_offset: u64,
    /// The stored payload size field (padded; for a group member: the group's).
    pub stored_size: u64,
    /// The uncompressed size of this image.
    pub size: u64,
    /// Index of the container this entry belongs to.
    pub container: usize,
    /// For an image unpacked from a concatenated group: where it came from.
    pub group: Option<GroupRef>,
    /// Identifier (source file name) if the entry has one.
    pub identifier: Option<String>,
    /// The bytes the options descriptor points at (ptxas/nvvm options, or a
    /// binary blob on sm_100+ ELF entries).
    pub options: Option<&'a [u8]>,
    /// The stored payload bytes exactly as in the container (the compressed
    /// bytes when compressed, without padding; for a group member: the whole
    /// group's stored payload).
    pub raw: &'a [u8],
    /// The image, decompressed. Empty when `decoded` is false.
    pub data: Cow<'a, [u8]>,
    /// Whether `data` holds the image: false after [`parse_headers`], and for
    /// payloads culdb cannot decode (encrypted LTO IR) after [`parse`].
    pub decoded: bool,
}

impl<'a> FatbinEntry<'a> {
    pub fn arch(&self) -> SmArch {
        SmArch {
            sm: self.sm,
            variant: self.variant,
        }
    }

    pub fn is_64bit(&self) -> bool {
        self.flags & flags::BIT64 != 0
    }

    pub fn is_debug(&self) -> bool {
        self.flags & flags::DEBUG != 0
    }

    pub fn is_encrypted(&self) -> bool {
        self.flags & flags::ENCRYPTED != 0
    }

    /// "linux", "mac", "windows" or "&lt;unknown&gt;", as cuobjdump prints it.
    pub fn host(&self) -> &'static str {
        if self.flags & flags::HOST_LINUX != 0 {
            "linux"
        } else if self.flags & flags::HOST_MAC != 0 {
            "mac"
        } else if self.flags & flags::HOST_WINDOWS != 0 {
            "windows"
        } else {
            "<unknown>"
        }
    }

    /// Options as text, for PTX and NVVM entries.
    pub fn options_text(&self) -> Option<String> {
        match self.kind {
            EntryKind::Ptx | EntryKind::Nvvm => self.options.map(|o| {
                let end = o.iter().position(|&b| b == 0).unwrap_or(o.len());
                String::from_utf8_lossy(&o[..end]).into_owned()
            }),
            _ => None,
        }
    }

    /// The PTX text up to its terminating NUL (what `cuobjdump -xptx` writes).
    pub fn ptx_text(&self) -> Option<&[u8]> {
        if self.kind != EntryKind::Ptx || !self.decoded {
            return None;
        }
        let d: &[u8] = &self.data;
        Some(&d[..d.iter().position(|&b| b == 0).unwrap_or(d.len())])
    }

    /// The image, decompressing it if [`parse_headers`] left it out.
    pub fn payload(&self) -> Result<Cow<'a, [u8]>> {
        if self.decoded {
            return Ok(self.data.clone());
        }
        if self.is_encrypted() {
            return Err(FormatError::new(
                self.payload_offset,
                format!("the {} payload is encrypted", self.kind.name()),
            ));
        }
        let whole = decompress(
            self.compression,
            self.raw,
            self.group_or_own_size(),
            self.payload_offset,
        )?;
        match self.group {
            None => Ok(whole),
            Some(g) => slice_cow(whole, g.image_offset, self.size, self.payload_offset),
        }
    }

    fn group_or_own_size(&self) -> u64 {
        self.group.map_or(self.size, |g| g.payload_size)
    }
}

/// Where an image unpacked from a concatenated group (kind 0x100) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GroupRef {
    /// Offset of the group's entry header in the parsed bytes.
    pub entry_offset: u64,
    /// Offset of the image inside the group's decompressed payload.
    pub image_offset: u64,
    /// Size of the group's decompressed payload.
    pub payload_size: u64,
    /// The group entry's own flags (the images carry their own).
    pub flags: u64,
}

/// A parsed fatbin: its containers and all their entries, groups expanded.
#[derive(Debug, Clone)]
pub struct Fatbin<'a> {
    pub containers: Vec<Container>,
    pub entries: Vec<FatbinEntry<'a>>,
}

/// True when `data` starts with a fatbin container header.
pub fn is_fatbin(data: &[u8]) -> bool {
    read_u32(data, 0) == Some(FATBIN_MAGIC)
}

/// Parses every container in `data` and decompresses every entry (see
/// [`FatbinEntry::decoded`] for the exceptions). Groups are expanded.
pub fn parse(data: &[u8]) -> Result<Vec<FatbinEntry<'_>>> {
    Ok(parse_fatbin(data)?.entries)
}

/// Like [`parse`], keeping the container boundaries.
pub fn parse_fatbin(data: &[u8]) -> Result<Fatbin<'_>> {
    parse_impl(data, true)
}

/// Parses the headers only: entries have `decoded == false` and an empty
/// `data`; [`FatbinEntry::payload`] decompresses one on demand.
pub fn parse_headers(data: &[u8]) -> Result<Fatbin<'_>> {
    parse_impl(data, false)
}

/// The cubin nvlink would merge for `target`: an ELF entry for exactly that
/// architecture, or else the best compatible one — but only when nvlink would
/// not rather JIT-compile a PTX entry (see [`select`]). None when nvlink would
/// compile PTX or finds nothing usable.
pub fn select_cubin<'e, 'a>(entries: &'e [FatbinEntry<'a>], target: impl Into<SmArch>) -> Option<&'e FatbinEntry<'a>> {
    match select(entries, target) {
        Choice::Cubin(e) => Some(e),
        _ => None,
    }
}

/// What nvlink uses from one fatbin for a target.
#[derive(Debug, Clone, Copy)]
pub enum Choice<'e, 'a> {
    /// Merge this cubin as it is.
    Cubin(&'e FatbinEntry<'a>),
    /// JIT-compile this PTX with the embedded ptxas, then merge the result.
    Ptx(&'e FatbinEntry<'a>),
    /// Nothing usable: nvlink warns "SM Arch ('sm_XX') not found in 'file'"
    /// and skips the file (silently for archive members).
    None,
}

/// nvlink's choice among the entries of one fatbin container, as observed
/// with nvlink 13.5:
///
/// * an ELF entry is usable when [`elf_runs_on`] the target, a PTX entry when
///   [`ptx_compiles_for`] it; other kinds (NVVM IR) need `-dlto` and are not
///   considered;
/// * among the usable ones the highest SM wins, and on a tie the ELF entry.
///
/// Seen: sm_80 ELF + compute_80 PTX for sm_86 gives the sm_80 cubin (no JIT);
/// sm_80 ELF + compute_86 PTX for sm_86 or sm_89 compiles the PTX; sm_80 +
/// sm_86 ELF for sm_89 gives the sm_86 cubin; sm_80 ELF + compute_90 PTX for
/// sm_89 gives the sm_80 cubin; sm_80 + sm_90 ELF + compute_90 PTX for sm_100
/// compiles the PTX.
///
/// An exact variant match ranks above a compatible one of the same SM.
pub fn select<'e, 'a>(entries: &'e [FatbinEntry<'a>], target: impl Into<SmArch>) -> Choice<'e, 'a> {
    let target = target.into();
    let mut best: Option<((u32, bool, bool), &'e FatbinEntry<'a>)> = None;
    for e in entries {
        let usable = match e.kind {
            EntryKind::Elf => elf_runs_on(e.arch(), target),
            EntryKind::Ptx => ptx_compiles_for(e.arch(), target),
            _ => false,
        };
        if !usable {
            continue;
        }
        let key = (e.sm, e.kind == EntryKind::Elf, e.variant == target.variant);
        if best.is_none_or(|(k, _)| key > k) {
            best = Some((key, e));
        }
    }
    match best {
        Some((_, e)) if e.kind == EntryKind::Elf => Choice::Cubin(e),
        Some((_, e)) => Choice::Ptx(e),
        None => Choice::None,
    }
}

/// The NVVM IR (LTO) entry `nvlink -dlto` compiles for `target`: among the
/// entries whose IR [`ptx_compiles_for`] the target, the highest SM (an
/// exact variant first). None when the container has no usable IR.
pub fn select_lto<'e, 'a>(entries: &'e [FatbinEntry<'a>], target: impl Into<SmArch>) -> Option<&'e FatbinEntry<'a>> {
    let target = target.into();
    entries
        .iter()
        .filter(|e| e.kind == EntryKind::Nvvm && e.group.is_none() && ptx_compiles_for(e.arch(), target))
        .max_by_key(|e| (e.sm, e.variant == target.variant))
}

/// A fatbin of one container holding only entry `e` of `data` (the bytes
/// `e` was parsed from), header and stored payload copied as they are: what
/// the LTO step hands to NVIDIA's library for one module. None for an image
/// of a concatenated group or an entry that does not fit in `data`.
pub fn standalone_entry(data: &[u8], e: &FatbinEntry<'_>) -> Option<Vec<u8>> {
    if e.group.is_some() {
        return None;
    }
    let start = usize::try_from(e.offset).ok()?;
    let payload = usize::try_from(e.payload_offset).ok()?;
    let end = payload.checked_add(usize::try_from(e.stored_size).ok()?)?;
    let bytes = data.get(start..end)?;
    let mut out = Vec::with_capacity(16 + bytes.len());
    out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0x10u16.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
    Some(out)
}

/// Whether nvlink links a cubin built for `code` into a `target` link, as
/// observed with nvlink 13.5: `sm_XXa` code only for exactly `sm_XXa`;
/// plain and `f` code for any target of the same major with an equal or
/// higher minor, whatever its suffix (sm_80 → sm_86, sm_89; sm_90 → sm_90a;
/// sm_100/sm_100f → sm_100a, sm_103, sm_103f; not sm_80 → sm_90, sm_86 →
/// sm_80, sm_100 → sm_110 or sm_120, sm_90a → sm_90).
pub fn elf_runs_on(code: SmArch, target: SmArch) -> bool {
    match code.variant {
        ArchVariant::Specific => code.sm == target.sm && target.variant == ArchVariant::Specific,
        ArchVariant::Plain | ArchVariant::Family => code.major() == target.major() && code.sm <= target.sm,
    }
}

/// Whether nvlink JIT-compiles PTX for `code` when linking for `target`
/// (observed with nvlink 13.5): plain PTX for any equal or higher SM
/// (compute_80 → sm_86, sm_90, sm_100); `compute_XXf` for the same major only
/// (compute_100f → sm_103, not sm_110/sm_120); `compute_XXa` only for exactly
/// `sm_XXa`.
pub fn ptx_compiles_for(code: SmArch, target: SmArch) -> bool {
    match code.variant {
        ArchVariant::Plain => code.sm <= target.sm,
        ArchVariant::Family => code.major() == target.major() && code.sm <= target.sm,
        ArchVariant::Specific => code.sm == target.sm && target.variant == ArchVariant::Specific,
    }
}

// ---------------------------------------------------------------------------

/// Largest image culdb will allocate for one decompressed payload.
const MAX_IMAGE: u64 = 1 << 30;

fn parse_impl(data: &[u8], decode: bool) -> Result<Fatbin<'_>> {
    let mut fb = Fatbin {
        containers: Vec::new(),
        entries: Vec::new(),
    };
    let mut pos = 0usize;
    loop {
        if !fb.containers.is_empty() {
            // ld -r may leave alignment padding between containers.
            while pos < data.len() && data[pos] == 0 {
                pos += 1;
            }
        }
        if pos >= data.len() && !fb.containers.is_empty() {
            break;
        }
        let c = parse_container(data, pos, fb.containers.len(), decode, &mut fb.entries)?;
        // parse_container checked that the container lies inside `data`.
        pos += c.size() as usize;
        fb.containers.push(c);
    }
    Ok(fb)
}

fn parse_container<'a>(
    data: &'a [u8],
    at: usize,
    index: usize,
    decode: bool,
    entries: &mut Vec<FatbinEntry<'a>>,
) -> Result<Container> {
    let at64 = at as u64;
    let left = data.len().saturating_sub(at);
    if left < CONTAINER_HEADER_SIZE {
        return Err(FormatError::new(
            at64,
            format!("fatbin header truncated: needs {CONTAINER_HEADER_SIZE} bytes, {left} left"),
        ));
    }
    let magic = read_u32(data, at).unwrap_or(0);
    if magic != FATBIN_MAGIC {
        return Err(FormatError::new(
            at64,
            format!("not a fatbin: magic {magic:#010x}, expected {FATBIN_MAGIC:#010x}"),
        ));
    }
    let version = read_u16(data, at + 4).unwrap_or(0);
    if version != 1 {
        return Err(FormatError::new(
            at64 + 4,
            format!("unsupported fatbin version {version}"),
        ));
    }
    let header_size = read_u16(data, at + 6).unwrap_or(0);
    if (header_size as usize) < CONTAINER_HEADER_SIZE || header_size as usize > left {
        return Err(FormatError::new(
            at64 + 6,
            format!("fatbin header size {header_size:#x} is not between 0x10 and the {left:#x} bytes left"),
        ));
    }
    let entries_size = read_u64(data, at + 8).unwrap_or(0);
    let body_left = (left - header_size as usize) as u64;
    if entries_size > body_left {
        return Err(FormatError::new(
            at64 + 8,
            format!("fatbin claims {entries_size:#x} bytes of entries but only {body_left:#x} remain"),
        ));
    }
    let body = at + header_size as usize;
    let end = body + entries_size as usize;
    let first = entries.len();
    let mut p = body;
    while p < end {
        p = parse_entry(data, p, end, index, decode, entries)?;
    }
    Ok(Container {
        offset: at64,
        version,
        header_size,
        entries_size,
        entries: first..entries.len(),
    })
}

/// Parses the entry at `p` (which ends at or before `end`); returns the offset
/// of the next entry.
fn parse_entry<'a>(
    data: &'a [u8],
    p: usize,
    end: usize,
    container: usize,
    decode: bool,
    entries: &mut Vec<FatbinEntry<'a>>,
) -> Result<usize> {
    let p64 = p as u64;
    let left = end - p;
    if left < ENTRY_HEADER_SIZE {
        return Err(FormatError::new(
            p64,
            format!(
                "fatbin entry header truncated: needs {ENTRY_HEADER_SIZE:#x} bytes, {left:#x} left in the container"
            ),
        ));
    }
    let f = EntryFields::read(&data[p..p + ENTRY_HEADER_SIZE]);
    if (f.header_size as usize) < ENTRY_HEADER_SIZE || f.header_size as usize > left {
        return Err(FormatError::new(
            p64 + 4,
            format!(
                "entry header size {:#x} is not between 0x40 and the {left:#x} bytes left in the container",
                f.header_size
            ),
        ));
    }
    let hsz = f.header_size as usize;
    let header = &data[p..p + hsz];
    let payload_left = (left - hsz) as u64;
    if f.size > payload_left {
        return Err(FormatError::new(
            p64 + 8,
            format!(
                "entry payload size {:#x} runs past the container ({payload_left:#x} bytes left)",
                f.size
            ),
        ));
    }
    let payload_at = p + hsz;
    let stored = &data[payload_at..payload_at + f.size as usize];
    let compression = Compression::from_flags(f.flags);
    let compressed = compression != Compression::None;
    let raw = if compressed && f.compressed_size != 0 {
        if f.compressed_size as u64 > f.size {
            return Err(FormatError::new(
                p64 + 0x10,
                format!(
                    "compressed size {:#x} is bigger than the stored payload ({:#x})",
                    f.compressed_size, f.size
                ),
            ));
        }
        &stored[..f.compressed_size as usize]
    } else {
        stored
    };
    let kind = EntryKind::from_code(f.kind);
    // An uncompressed cubin is stored padded to 8; its real end is where its
    // headers say (what cuobjdump -xelf extracts).
    let image_size = if compressed {
        f.uncompressed_size
    } else if kind == EntryKind::Elf {
        elf_extent(stored).map_or(f.size, |n| n as u64)
    } else {
        f.size
    };
    let identifier = if f.ident_len == 0 {
        None
    } else {
        let b = sub_range(header, f.ident_offset as u64, f.ident_len as u64).ok_or_else(|| {
            FormatError::new(
                p64 + 0x20,
                format!(
                    "identifier ({:#x} bytes at {:#x}) is outside the {hsz:#x}-byte entry header",
                    f.ident_len, f.ident_offset
                ),
            )
        })?;
        let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
        Some(String::from_utf8_lossy(b).into_owned())
    };
    let mut entry = FatbinEntry {
        kind,
        sm: f.sm,
        variant: variant_of(f.flags),
        version: (f.major, f.minor),
        flags: f.flags,
        compressed,
        compression,
        offset: p64,
        header_size: f.header_size,
        payload_offset: payload_at as u64,
        stored_size: f.size,
        size: image_size,
        container,
        group: None,
        identifier,
        options: None,
        raw,
        data: Cow::Borrowed(&[]),
        decoded: false,
    };
    if kind == EntryKind::Group {
        expand_group(entry, header, decode, entries)?;
        return Ok(payload_at + f.size as usize);
    }
    if f.options_offset != 0 {
        let d = sub_range(header, f.options_offset as u64, 8).ok_or_else(|| {
            FormatError::new(
                p64 + 0x14,
                format!(
                    "options descriptor at {:#x} is outside the {hsz:#x}-byte entry header",
                    f.options_offset
                ),
            )
        })?;
        let (o, l) = (read_u32(d, 0).unwrap_or(0), read_u32(d, 4).unwrap_or(0));
        let opts = sub_range(header, o as u64, l as u64).ok_or_else(|| {
            FormatError::new(
                p64 + f.options_offset as u64,
                format!("options ({l:#x} bytes at {o:#x}) are outside the {hsz:#x}-byte entry header"),
            )
        })?;
        entry.options = Some(opts);
    }
    if decode && !entry.is_encrypted() {
        match entry.payload() {
            Ok(d) => {
                entry.data = d;
                entry.decoded = true;
            }
            // An image culdb has no use for stays undecoded rather than
            // making the whole file unreadable.
            Err(_) if !matches!(kind, EntryKind::Elf | EntryKind::Ptx) => {}
            Err(e) => return Err(e),
        }
    }
    entries.push(entry);
    Ok(payload_at + f.size as usize)
}

/// Expands a concatenated group (kind 0x100) into its images.
fn expand_group<'a>(
    group: FatbinEntry<'a>,
    header: &'a [u8],
    decode: bool,
    entries: &mut Vec<FatbinEntry<'a>>,
) -> Result<()> {
    let p = group.offset;
    let table_at = read_u32(header, 0x14).unwrap_or(0) as u64;
    let t = sub_range(header, table_at, 8).ok_or_else(|| {
        FormatError::new(
            p + 0x14,
            format!("group table at {table_at:#x} is outside the entry header"),
        )
    })?;
    let count = read_u32(t, 0).unwrap_or(0) as u64;
    let table = sub_range(header, table_at + 8, count * ENTRY_HEADER_SIZE as u64).ok_or_else(|| {
        FormatError::new(
            p + table_at,
            format!(
                "group table of {count} entries does not fit in the {:#x}-byte entry header",
                header.len()
            ),
        )
    })?;
    let whole: Option<Cow<'a, [u8]>> = if decode && !group.is_encrypted() {
        Some(decompress(
            group.compression,
            group.raw,
            group.size,
            group.payload_offset,
        )?)
    } else {
        None
    };
    for (i, h) in table.chunks_exact(ENTRY_HEADER_SIZE).enumerate() {
        let sub_at = p + table_at + 8 + (i * ENTRY_HEADER_SIZE) as u64;
        let f = EntryFields::read(h);
        let image_offset = f.header_size as u64;
        if sub_range_ok(group.size, image_offset, f.size).is_none() {
            return Err(FormatError::new(
                sub_at + 4,
                format!(
                    "group member ({:#x} bytes at {image_offset:#x}) runs past the group's {:#x}-byte payload",
                    f.size, group.size
                ),
            ));
        }
        let mut e = FatbinEntry {
            kind: EntryKind::from_code(f.kind),
            sm: f.sm,
            variant: variant_of(f.flags),
            version: (f.major, f.minor),
            flags: f.flags,
            compressed: group.compressed,
            compression: group.compression,
            offset: sub_at,
            header_size: ENTRY_HEADER_SIZE as u32,
            payload_offset: group.payload_offset,
            stored_size: group.stored_size,
            size: f.size,
            container: group.container,
            group: Some(GroupRef {
                entry_offset: p,
                image_offset,
                payload_size: group.size,
                flags: group.flags,
            }),
            identifier: group.identifier.clone(),
            options: None,
            raw: group.raw,
            data: Cow::Borrowed(&[]),
            decoded: false,
        };
        if let Some(w) = &whole {
            e.data = slice_cow(w.clone(), image_offset, f.size, sub_at)?;
            e.decoded = true;
        }
        entries.push(e);
    }
    Ok(())
}

/// The fixed 0x40 bytes of an entry header.
struct EntryFields {
    kind: u16,
    header_size: u32,
    size: u64,
    compressed_size: u32,
    options_offset: u32,
    minor: u16,
    major: u16,
    sm: u32,
    ident_offset: u32,
    ident_len: u32,
    flags: u64,
    uncompressed_size: u64,
}

impl EntryFields {
    /// `h` is at least ENTRY_HEADER_SIZE bytes.
    fn read(h: &[u8]) -> EntryFields {
        EntryFields {
            kind: read_u16(h, 0).unwrap_or(0),
            header_size: read_u32(h, 4).unwrap_or(0),
            size: read_u64(h, 8).unwrap_or(0),
            compressed_size: read_u32(h, 0x10).unwrap_or(0),
            options_offset: read_u32(h, 0x14).unwrap_or(0),
            minor: read_u16(h, 0x18).unwrap_or(0),
            major: read_u16(h, 0x1a).unwrap_or(0),
            sm: read_u32(h, 0x1c).unwrap_or(0),
            ident_offset: read_u32(h, 0x20).unwrap_or(0),
            ident_len: read_u32(h, 0x24).unwrap_or(0),
            flags: read_u64(h, 0x28).unwrap_or(0),
            uncompressed_size: read_u64(h, 0x38).unwrap_or(0),
        }
    }
}

/// The bytes an ELF file's headers account for (ELF header, program and
/// section header tables, section contents), if that is within `d`.
fn elf_extent(d: &[u8]) -> Option<usize> {
    if d.get(..4)? != b"\x7fELF" || *d.get(5)? != 1 {
        return None;
    }
    let c64 = match *d.get(4)? {
        2 => true,
        1 => false,
        _ => return None,
    };
    let word = |off: usize| {
        if c64 {
            read_u64(d, off)
        } else {
            read_u32(d, off).map(u64::from)
        }
    };
    let (phoff, shoff, sizes_at) = if c64 {
        (word(0x20)?, word(0x28)?, 0x34)
    } else {
        (word(0x1c)?, word(0x20)?, 0x28)
    };
    let ehsize = read_u16(d, sizes_at)? as u64;
    let phentsize = read_u16(d, sizes_at + 2)? as u64;
    let phnum = read_u16(d, sizes_at + 4)? as u64;
    let shentsize = read_u16(d, sizes_at + 6)? as u64;
    let shnum = read_u16(d, sizes_at + 8)? as u64;
    let mut end = ehsize.max(phoff.checked_add(phentsize * phnum)?);
    if shoff != 0 {
        end = end.max(shoff.checked_add(shentsize * shnum)?);
        for i in 0..shnum {
            let h = usize::try_from(shoff + i * shentsize).ok()?;
            let sh_type = read_u32(d, h.checked_add(4)?)?;
            let (off, size) = if c64 {
                (read_u64(d, h.checked_add(0x18)?)?, read_u64(d, h.checked_add(0x20)?)?)
            } else {
                (
                    read_u32(d, h.checked_add(0x10)?)? as u64,
                    read_u32(d, h.checked_add(0x14)?)? as u64,
                )
            };
            if !is_nobits(sh_type) {
                end = end.max(off.checked_add(size)?);
            }
        }
    }
    (end <= d.len() as u64).then_some(end as usize)
}

fn variant_of(f: u64) -> ArchVariant {
    if f & flags::ARCH_SPECIFIC != 0 {
        ArchVariant::Specific
    } else if f & flags::ARCH_FAMILY != 0 {
        ArchVariant::Family
    } else {
        ArchVariant::Plain
    }
}

/// Decompresses `raw` into exactly `out_len` bytes (`at` is the payload offset
/// for errors). Uncompressed payloads are borrowed.
fn decompress<'a>(c: Compression, raw: &'a [u8], out_len: u64, at: u64) -> Result<Cow<'a, [u8]>> {
    let n = match c {
        Compression::None => {
            return match raw.get(..out_len.min(usize::MAX as u64) as usize) {
                Some(d) if out_len <= raw.len() as u64 => Ok(Cow::Borrowed(d)),
                _ => Err(FormatError::new(
                    at,
                    format!(
                        "payload of {:#x} bytes is shorter than the {out_len:#x} bytes expected",
                        raw.len()
                    ),
                )),
            };
        }
        Compression::Unknown(bits) => {
            return Err(FormatError::new(
                at,
                format!("unsupported compression (flag bits {bits:#x})"),
            ));
        }
        Compression::Lz4 | Compression::Zstd => out_len,
    };
    // A zstd block expands at most 128 KiB from 4 bytes, an LZ4 sequence ~255x.
    let ratio: u64 = if c == Compression::Zstd { 1 << 15 } else { 256 };
    let limit = ((raw.len() as u64).saturating_add(64))
        .saturating_mul(ratio)
        .min(MAX_IMAGE);
    if n > limit {
        return Err(FormatError::new(
            at,
            format!(
                "uncompressed size {n:#x} is implausible for {:#x} compressed bytes (limit {limit:#x})",
                raw.len()
            ),
        ));
    }
    let mut out = vec![0u8; n as usize];
    let written = match c {
        Compression::Zstd => zstd::bulk::decompress_to_buffer(raw, &mut out[..])
            .map_err(|e| FormatError::new(at, format!("zstd payload does not decompress: {e}")))?,
        _ => lz4_flex::block::decompress_into(raw, &mut out)
            .map_err(|e| FormatError::new(at, format!("LZ4 payload does not decompress: {e}")))?,
    };
    if written as u64 != n {
        return Err(FormatError::new(
            at,
            format!(
                "{} payload decompresses to {written:#x} bytes, header says {n:#x}",
                c.name()
            ),
        ));
    }
    Ok(Cow::Owned(out))
}

/// `len` bytes at `off` of `whole` (borrowed stays borrowed).
fn slice_cow(whole: Cow<'_, [u8]>, off: u64, len: u64, at: u64) -> Result<Cow<'_, [u8]>> {
    let r = sub_range_ok(whole.len() as u64, off, len).ok_or_else(|| {
        FormatError::new(
            at,
            format!(
                "image ({len:#x} bytes at {off:#x}) is outside its {:#x}-byte group",
                whole.len()
            ),
        )
    })?;
    Ok(match whole {
        Cow::Borrowed(b) => Cow::Borrowed(&b[r]),
        // An image at the start of its group keeps the decompressed buffer.
        Cow::Owned(mut v) if r.start == 0 => {
            v.truncate(r.end);
            Cow::Owned(v)
        }
        Cow::Owned(v) => Cow::Owned(v[r].to_vec()),
    })
}

fn sub_range_ok(total: u64, off: u64, len: u64) -> Option<std::ops::Range<usize>> {
    let end = off.checked_add(len)?;
    (end <= total).then_some(off as usize..end as usize)
}

fn sub_range(d: &[u8], off: u64, len: u64) -> Option<&[u8]> {
    sub_range_ok(d.len() as u64, off, len).map(|r| &d[r])
}

fn read_u16(d: &[u8], off: usize) -> Option<u16> {
    let b = d.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(d: &[u8], off: usize) -> Option<u32> {
    let b = d.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u64(d: &[u8], off: usize) -> Option<u64> {
    let b = d.get(off..off.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> SmArch {
        SmArch::parse(s).unwrap()
    }

    #[test]
    fn arch_names() {
        assert_eq!(
            a("sm_90a"),
            SmArch {
                sm: 90,
                variant: ArchVariant::Specific
            }
        );
        assert_eq!(
            a("compute_100f"),
            SmArch {
                sm: 100,
                variant: ArchVariant::Family
            }
        );
        assert_eq!(a("lto_90"), SmArch::new(90));
        assert_eq!(a("86"), SmArch::new(86));
        assert_eq!(a("sm_103f").to_string(), "sm_103f");
        assert_eq!(SmArch::parse("sm_"), None);
        assert_eq!(SmArch::parse("sm_x0"), None);
        assert_eq!(SmArch::parse(""), None);
    }

    /// What nvlink 13.5 accepted and refused ("SM Arch not found").
    #[test]
    fn compatibility_as_observed() {
        let elf_yes = [
            ("sm_80", "sm_86"),
            ("sm_80", "sm_89"),
            ("sm_86", "sm_89"),
            ("sm_90", "sm_90a"),
            ("sm_90a", "sm_90a"),
            ("sm_100", "sm_100a"),
            ("sm_100", "sm_100f"),
            ("sm_100", "sm_103"),
            ("sm_100f", "sm_103f"),
            ("sm_100a", "sm_100a"),
        ];
        let elf_no = [
            ("sm_80", "sm_90"),
            ("sm_86", "sm_80"),
            ("sm_90", "sm_100"),
            ("sm_90a", "sm_90"),
            ("sm_100", "sm_110"),
            ("sm_100", "sm_120"),
            ("sm_100f", "sm_110"),
            ("sm_100a", "sm_100"),
            ("sm_100a", "sm_100f"),
            ("sm_100a", "sm_103a"),
        ];
        for (c, t) in elf_yes {
            assert!(elf_runs_on(a(c), a(t)), "{c} on {t}");
        }
        for (c, t) in elf_no {
            assert!(!elf_runs_on(a(c), a(t)), "{c} on {t}");
        }
        let ptx_yes = [
            ("sm_80", "sm_86"),
            ("sm_80", "sm_100"),
            ("sm_90a", "sm_90a"),
            ("sm_100f", "sm_103"),
        ];
        let ptx_no = [
            ("sm_90", "sm_89"),
            ("sm_90a", "sm_90"),
            ("sm_90a", "sm_100"),
            ("sm_100f", "sm_120"),
            ("sm_100a", "sm_103a"),
        ];
        for (c, t) in ptx_yes {
            assert!(ptx_compiles_for(a(c), a(t)), "{c} for {t}");
        }
        for (c, t) in ptx_no {
            assert!(!ptx_compiles_for(a(c), a(t)), "{c} for {t}");
        }
    }

    /// A fatbin built by hand: one container per entry list.
    fn build(containers: &[&[(u16, u32, &[u8])]]) -> Vec<u8> {
        let mut out = Vec::new();
        for entries in containers {
            let mut body = Vec::new();
            for &(kind, sm, payload) in *entries {
                let size = payload.len().div_ceil(8) * 8;
                let mut h = vec![0u8; 0x40];
                h[0..2].copy_from_slice(&kind.to_le_bytes());
                h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
                h[4..8].copy_from_slice(&0x40u32.to_le_bytes());
                h[8..16].copy_from_slice(&(size as u64).to_le_bytes());
                h[0x1c..0x20].copy_from_slice(&sm.to_le_bytes());
                h[0x28..0x30].copy_from_slice(&0x11u64.to_le_bytes());
                body.extend_from_slice(&h);
                body.extend_from_slice(payload);
                body.resize(body.len() + size - payload.len(), 0);
            }
            out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
            out.extend_from_slice(&1u16.to_le_bytes());
            out.extend_from_slice(&0x10u16.to_le_bytes());
            out.extend_from_slice(&(body.len() as u64).to_le_bytes());
            out.extend_from_slice(&body);
            out.extend_from_slice(&[0u8; 8]); // padding, as ld -r may leave
        }
        out
    }

    #[test]
    fn hand_built_containers() {
        let d = build(&[&[(2, 80, b"cubin-80"), (1, 80, b"ptx 80\0")], &[(2, 90, b"cubin-90!")]]);
        assert!(is_fatbin(&d));
        let fb = parse_fatbin(&d).unwrap();
        assert_eq!(fb.containers.len(), 2);
        assert_eq!(fb.containers[0].entries, 0..2);
        assert_eq!(fb.containers[1].entries, 2..3);
        assert_eq!(fb.containers[1].offset, 0x10 + 0x48 + 0x48 + 8);
        let e = &fb.entries;
        assert_eq!(
            (e[0].kind, e[0].sm, &*e[0].data),
            (EntryKind::Elf, 80, &b"cubin-80"[..])
        );
        assert_eq!(e[1].ptx_text(), Some(&b"ptx 80"[..]));
        // Not an ELF: kept as stored, padding included.
        assert_eq!(&*e[2].data, b"cubin-90!\0\0\0\0\0\0\0");
        assert_eq!(e[2].container, 1);
        assert!(matches!(select(e, 86), Choice::Cubin(x) if x.sm == 80));
        assert!(matches!(select(e, 90), Choice::Cubin(x) if x.sm == 90));
        assert!(matches!(select(&e[..2], 90), Choice::Ptx(x) if x.sm == 80));
        assert!(matches!(select(e, 75), Choice::None));
        assert_eq!(select_cubin(&e[..2], 90).map(|x| x.sm), None);
        assert_eq!(select_cubin(e, 89).map(|x| x.sm), Some(80));

        // Damaged headers give errors with offsets.
        let mut bad = d.clone();
        bad[0x10 + 8] = 0xff; // first entry's payload size
        let err = parse(&bad).unwrap_err();
        assert_eq!(err.offset, 0x18);
        let mut bad = d.clone();
        bad[12] = 0xff; // container size
        assert_eq!(parse(&bad).unwrap_err().offset, 8);
        let mut bad = d.clone();
        bad.push(1); // junk after the last container
        assert_eq!(parse(&bad).unwrap_err().offset, d.len() as u64);
        assert!(parse(&[]).is_err());
        assert!(parse(&d[..15]).is_err());
    }

    #[test]
    fn compressed_payloads() {
        // An LZ4 block and a zstd frame (RLE block) for the same 64 bytes.
        let image = [7u8; 64];
        let lz4 = lz4_flex::block::compress(&image);
        assert_eq!(&*decompress(Compression::Lz4, &lz4, 64, 0).unwrap(), &image[..]);
        let zstd_frame = [0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x40, 0x03, 0x02, 0x00, 0x07];
        assert_eq!(&*decompress(Compression::Zstd, &zstd_frame, 64, 0).unwrap(), &image[..]);
        // Wrong sizes and implausible claims are errors, not allocations.
        assert!(decompress(Compression::Zstd, &zstd_frame, 63, 5).is_err());
        assert!(decompress(Compression::Zstd, &zstd_frame, 65, 5).is_err());
        assert!(decompress(Compression::Lz4, &lz4, 1 << 40, 5).is_err());
        assert!(decompress(Compression::Unknown(0x1000), &lz4, 64, 5).is_err());
        assert_eq!(
            decompress(Compression::Zstd, &zstd_frame[..6], 64, 5)
                .unwrap_err()
                .offset,
            5
        );
    }
}
