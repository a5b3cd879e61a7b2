//! The one entry point for input files: what a file is, the cubins inside it
//! (through archive → host object → fatbin → cubin), what nvlink would take
//! from it for a target, and a flat listing of everything in it.
//!
//! It stays one file because it is one decision nvlink makes per file: the
//! extension rules, the descent through archive, host object and fatbin, and
//! the choice for a target all answer "what does this file give the link".
//!
//! # How nvlink 13.5 treats its inputs (tested)
//!
//! * Kind by **extension** first: `.cubin` must be a device ELF ("cubin not a
//!   device elf?"), `.fatbin` a fatbin ("fatbin wrong format?"), `.ptx` is
//!   JIT-compiled. Archives are recognised by magic whatever the name
//!   (`.a`, `.lib`, even `.o`). Other names: an `.o` cubin is linked as a
//!   cubin; a host ELF is read for its fatbin under any extension (`.o`,
//!   `.obj`, `.c`, `.xyz`) except `.so`; a cubin or fatbin with another
//!   extension (`.obj`, `.xyz`, `.a`), and any file without an extension,
//!   is silently ignored. [`classify`] goes by content only.
//! * Host objects: only the first fatbin container of `__nv_relfatbin` (see
//!   [`super::host`]); standalone fatbin files: only the first container too.
//! * Archives: every host-object member, whatever the symbol table says;
//!   cubin and fatbin members are ignored (see [`super::archive`]).
//! * Architecture: see [`fatbin::select`]. When nothing fits nvlink warns
//!   "SM Arch ('sm_90') not found in 'a.o'" (nothing for archive members)
//!   and links on without that file.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Serialize;

use super::archive;
use super::consts::{EM_CUDA, sm_from_flags};
use super::error::{FormatError, Result};
use super::fatbin::{self, Choice, EntryKind, FatbinEntry, SmArch};
use super::host;

/// What a file (or archive member, or fatbin entry) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum InputKind {
    /// A CUDA ELF (e_machine EM_CUDA).
    Cubin,
    /// A fatbin container.
    Fatbin,
    /// A host (CPU) ELF file, normally carrying an embedded fatbin.
    HostObject,
    /// An `ar` archive.
    Archive,
    /// PTX text.
    Ptx,
    Unknown,
}

/// Recognises a file by its content.
pub fn classify(data: &[u8]) -> InputKind {
    if archive::is_archive(data) {
        InputKind::Archive
    } else if fatbin::is_fatbin(data) {
        InputKind::Fatbin
    } else if is_cuda_elf(data) {
        InputKind::Cubin
    } else if host::is_host_elf(data) {
        InputKind::HostObject
    } else if is_ptx(data) {
        InputKind::Ptx
    } else {
        InputKind::Unknown
    }
}

/// One cubin (or PTX text) found in an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member<'a> {
    /// Display path: `a.cubin`, `a.o[sm_90]`, `libx.a(m.o)[sm_90]`,
    /// `libx.a(k.cubin)`, `x.fatbin[compute_90]`; a second container or
    /// section adds `#2`, an image from `.nv_fatbin` says `[.nv_fatbin:sm_90]`.
    pub path: String,
    /// What immediately contained it: Cubin (the file itself), Archive (a
    /// cubin member), Fatbin (an entry of a fatbin file or of a host object's
    /// fatbin section).
    pub kind: InputKind,
    /// SM number of the code.
    pub sm: Option<u32>,
    /// Architecture with suffix, for fatbin entries.
    pub arch: Option<SmArch>,
    /// The cubin bytes (decompressed). Borrowed bytes are 8-byte aligned;
    /// misaligned ones (common inside archives) are copied so that
    /// `read::parse` can use its aligned header types.
    pub data: Cow<'a, [u8]>,
    /// The ptxas options a PTX entry of a fatbin records (`-arch=sm_80
    /// --compile-only`, `-O2 -maxrregcount=16`): nvlink 13.5 passes them to
    /// its JIT compile, with the link target in place of `-arch`.
    pub ptxas_options: Option<String>,
}

/// What nvlink takes from an input for a target architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick<'a> {
    /// A cubin linked as it is.
    Cubin(Member<'a>),
    /// PTX nvlink would JIT-compile with its embedded ptxas (`data` is the
    /// PTX text); culdb cannot do that.
    Ptx(Member<'a>),
    /// NVVM IR for link-time optimisation (`-dlto`): `data` is a fatbin of
    /// that one entry, as stored (encrypted by nvcc).
    Lto(Member<'a>),
    /// No usable code. `warn`: nvlink prints "SM Arch ('sm_XX') not found in
    /// '&lt;path&gt;'" (it does for files on the command line, not for archive
    /// members).
    NotFound { path: String, warn: bool },
}

/// Every cubin in `data` (when `target_sm` is None: all architectures, all
/// fatbin sections and containers, cubin members of archives included), or
/// the cubins nvlink would link for `sm_<target_sm>` (see [`pick`]; inputs
/// nvlink would JIT from PTX contribute nothing here).
pub fn cubins<'a>(name: &str, data: &'a [u8], target_sm: Option<u32>) -> Result<Vec<Member<'a>>> {
    match target_sm {
        Some(sm) => Ok(pick(name, data, SmArch::new(sm))?
            .into_iter()
            .filter_map(|p| match p {
                Pick::Cubin(m) => Some(m),
                _ => None,
            })
            .collect()),
        None => {
            if classify(data) == InputKind::Unknown {
                return Err(unknown_input().in_context(name));
            }
            let mut out = Vec::new();
            all_cubins(name, data, 0, &mut out).map_err(|e| e.in_context(name))?;
            Ok(out)
        }
    }
}

/// What nvlink would take from the input `name` when linking for `target`.
pub fn pick<'a>(name: &str, data: &'a [u8], target: SmArch) -> Result<Vec<Pick<'a>>> {
    pick_for(name, data, target, false)
}

/// [`pick`]; with `lto` (`nvlink -dlto`) a fatbin container's NVVM IR for
/// the target ([`fatbin::select_lto`]) is taken before its cubins and PTX.
pub fn pick_for<'a>(name: &str, data: &'a [u8], target: SmArch, lto: bool) -> Result<Vec<Pick<'a>>> {
    let mut out = Vec::new();
    let how = How { target, lto };
    pick_in(name, data, how, false, &mut out).map_err(|e| e.in_context(name))?;
    Ok(out)
}

/// What [`pick_in`] looks for.
#[derive(Clone, Copy)]
struct How {
    target: SmArch,
    lto: bool,
}

/// Archive nesting culdb follows (nvlink does not nest at all).
const MAX_DEPTH: usize = 8;

fn all_cubins<'a>(path: &str, data: &'a [u8], depth: usize, out: &mut Vec<Member<'a>>) -> Result<()> {
    match classify(data) {
        InputKind::Cubin => out.push(member(
            path.to_string(),
            InputKind::Cubin,
            cubin_sm(data),
            None,
            Cow::Borrowed(data),
        )),
        InputKind::Fatbin => {
            let fb = fatbin::parse_headers(data)?;
            let mut labels = Labels::default();
            for e in fb.entries.iter().filter(|e| e.kind == EntryKind::Elf) {
                out.push(entry_member(path, "", &mut labels, e)?);
            }
        }
        InputKind::HostObject => {
            let mut labels = Labels::default();
            for s in host::fatbin_sections(data)? {
                let ctx = section_context(&s);
                let fb = fatbin::parse_headers(s.data).map_err(|e| e.in_context(ctx.clone()))?;
                let prefix = if s.read_by_nvlink() {
                    String::new()
                } else {
                    format!("{}:", s.section)
                };
                for e in fb.entries.iter().filter(|e| e.kind == EntryKind::Elf) {
                    out.push(entry_member(path, &prefix, &mut labels, e).map_err(|err| err.in_context(ctx.clone()))?);
                }
            }
        }
        InputKind::Archive => {
            if depth >= MAX_DEPTH {
                return Err(FormatError::new(0, "archives nested too deeply"));
            }
            for m in archive::members(data)? {
                let p = format!("{path}({})", m.name);
                match classify(m.data) {
                    InputKind::Cubin => out.push(member(
                        p,
                        InputKind::Archive,
                        cubin_sm(m.data),
                        None,
                        Cow::Borrowed(m.data),
                    )),
                    _ => all_cubins(&p, m.data, depth + 1, out).map_err(|e| e.in_context(member_context(&m)))?,
                }
            }
        }
        InputKind::Ptx | InputKind::Unknown => {}
    }
    Ok(())
}

fn pick_in<'a>(path: &str, data: &'a [u8], how: How, in_archive: bool, out: &mut Vec<Pick<'a>>) -> Result<()> {
    match classify(data) {
        InputKind::Cubin => out.push(Pick::Cubin(member(
            path.to_string(),
            InputKind::Cubin,
            cubin_sm(data),
            None,
            Cow::Borrowed(data),
        ))),
        InputKind::Ptx => out.push(Pick::Ptx(member(
            path.to_string(),
            InputKind::Ptx,
            None,
            None,
            Cow::Borrowed(data),
        ))),
        InputKind::Fatbin => {
            let fb = fatbin::parse_headers(data)?;
            pick_from_first_container(path, data, &fb, how, in_archive, out)?;
        }
        InputKind::HostObject => {
            let sections = host::fatbin_sections(data)?;
            match sections.iter().find(|s| s.read_by_nvlink()) {
                Some(s) => {
                    let ctx = section_context(s);
                    let fb = fatbin::parse_headers(s.data).map_err(|e| e.in_context(ctx.clone()))?;
                    pick_from_first_container(path, s.data, &fb, how, in_archive, out)
                        .map_err(|e| e.in_context(ctx))?;
                }
                None if sections.is_empty() => {
                    let elf = host::parse(data)?;
                    if elf.section(host::FATBIN_SEGMENT_SECTION).is_some() {
                        return Err(FormatError::new(
                            0,
                            "host object has .nvFatBinSegment but no fatbin section (nvlink: \"Could not find fatbin\")",
                        ));
                    }
                }
                // Only .nv_fatbin: nvlink links nothing from it, silently.
                None => {}
            }
        }
        InputKind::Archive => {
            if in_archive {
                // nvlink does not look into archives inside archives.
                return Ok(());
            }
            for m in archive::members(data)? {
                if classify(m.data) == InputKind::HostObject {
                    let p = format!("{path}({})", m.name);
                    pick_in(&p, m.data, how, true, out).map_err(|e| e.in_context(member_context(&m)))?;
                }
            }
        }
        InputKind::Unknown => return Err(unknown_input()),
    }
    Ok(())
}

fn unknown_input() -> FormatError {
    FormatError::new(0, "not a cubin, fatbin, host object, archive or PTX file")
}

fn pick_from_first_container<'a>(
    path: &str,
    raw: &'a [u8],
    fb: &fatbin::Fatbin<'a>,
    how: How,
    in_archive: bool,
    out: &mut Vec<Pick<'a>>,
) -> Result<()> {
    let target = how.target;
    let prefix = "";
    let first = fb.containers.first().map_or(0..0, |c| c.entries.clone());
    let entries = &fb.entries[first];
    let mut labels = Labels::default();
    if how.lto
        && let Some(e) = fatbin::select_lto(entries, target)
    {
        let bytes = fatbin::standalone_entry(raw, e)
            .ok_or_else(|| FormatError::new(e.offset, "NVVM IR entry that does not fit in its fatbin"))?;
        let label = labels.label(prefix, e);
        out.push(Pick::Lto(member(
            format!("{path}[{label}]"),
            InputKind::Fatbin,
            Some(e.sm),
            Some(e.arch()),
            Cow::Owned(bytes),
        )));
        return Ok(());
    }
    match fatbin::select(entries, target) {
        Choice::Cubin(e) => out.push(Pick::Cubin(entry_member(path, prefix, &mut labels, e)?)),
        Choice::Ptx(e) => {
            let mut m = entry_member(path, prefix, &mut labels, e)?;
            m.ptxas_options = e.options_text();
            // The PTX text ends at its NUL (stored payloads are NUL-padded).
            m.data = match std::mem::take(&mut m.data) {
                Cow::Borrowed(b) => Cow::Borrowed(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]),
                Cow::Owned(mut v) => {
                    v.truncate(v.iter().position(|&c| c == 0).unwrap_or(v.len()));
                    Cow::Owned(v)
                }
            };
            out.push(Pick::Ptx(m));
        }
        Choice::None => out.push(Pick::NotFound {
            path: path.to_string(),
            warn: !in_archive,
        }),
    }
    Ok(())
}

/// Makes a Member from a fatbin entry, decompressing it.
fn entry_member<'a>(path: &str, prefix: &str, labels: &mut Labels, e: &FatbinEntry<'a>) -> Result<Member<'a>> {
    let data = e
        .payload()
        .map_err(|err| err.in_context(format!("fatbin entry at {:#x}", e.offset)))?;
    let label = labels.label(prefix, e);
    Ok(member(
        format!("{path}[{label}]"),
        InputKind::Fatbin,
        Some(e.sm),
        Some(e.arch()),
        data,
    ))
}

fn member(path: String, kind: InputKind, sm: Option<u32>, arch: Option<SmArch>, data: Cow<'_, [u8]>) -> Member<'_> {
    Member {
        path,
        kind,
        sm,
        arch,
        data: aligned(data),
        ptxas_options: None,
    }
}

/// Copies borrowed bytes that are not 8-byte aligned.
fn aligned(data: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    match data {
        Cow::Borrowed(b) if !(b.as_ptr() as usize).is_multiple_of(8) => Cow::Owned(b.to_vec()),
        d => d,
    }
}

/// Entry labels for display paths, made unique with `#n`.
#[derive(Default)]
struct Labels(HashMap<String, usize>);

impl Labels {
    fn label(&mut self, prefix: &str, e: &FatbinEntry<'_>) -> String {
        let base = format!("{prefix}{}", entry_arch_name(e));
        let n = self.0.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 { base } else { format!("{base}#{n}") }
    }
}

/// `sm_90a` for ELF, `compute_90` for PTX, `lto_90` for NVVM IR.
fn entry_arch_name(e: &FatbinEntry<'_>) -> String {
    let a = e.arch().to_string();
    match e.kind {
        EntryKind::Ptx => a.replacen("sm_", "compute_", 1),
        EntryKind::Nvvm => a.replacen("sm_", "lto_", 1),
        EntryKind::Elf => a,
        other => format!("{}:{a}", other.name()),
    }
}

fn section_context(s: &host::EmbeddedFatbin<'_>) -> String {
    format!("section {} at {:#x}", s.section, s.offset)
}

fn member_context(m: &archive::ArchiveMember<'_>) -> String {
    format!("member {} at {:#x}", m.name, m.offset)
}

fn is_cuda_elf(data: &[u8]) -> bool {
    if data.len() < 20 || &data[..4] != b"\x7fELF" {
        return false;
    }
    let m = if data[5] == 2 {
        [data[19], data[18]]
    } else {
        [data[18], data[19]]
    };
    u16::from_le_bytes(m) == EM_CUDA
}

/// SM number from a cubin's e_flags (ELF64 or ELF32).
fn cubin_sm(data: &[u8]) -> Option<u32> {
    let at = match data.get(4)? {
        2 => 0x30,
        1 => 0x24,
        _ => return None,
    };
    let b = data.get(at..at + 4)?;
    Some(sm_from_flags(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
}

/// PTX text: after blank space and comments, the first directive is `.version`.
fn is_ptx(data: &[u8]) -> bool {
    let mut d = &data[..data.len().min(1 << 16)];
    loop {
        while let [c, rest @ ..] = d {
            if c.is_ascii_whitespace() {
                d = rest;
            } else {
                break;
            }
        }
        if let Some(rest) = d.strip_prefix(b"//") {
            d = rest.iter().position(|&c| c == b'\n').map_or(&[][..], |n| &rest[n..]);
        } else if let Some(rest) = d.strip_prefix(b"/*") {
            match rest.windows(2).position(|w| w == b"*/") {
                Some(n) => d = &rest[n + 2..],
                None => return false,
            }
        } else {
            return d.starts_with(b".version");
        }
    }
}

// ---------------------------------------------------------------------------
// Listing

/// What a listing line describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Node {
    /// An `ar` archive (the file or a member).
    Archive,
    /// A host object (the file or a member).
    HostObject,
    /// A cubin file or member.
    Cubin,
    /// A PTX file or member.
    Ptx,
    /// A fatbin file or member.
    Fatbin,
    /// A fatbin section of a host object.
    Section,
    /// One fatbin container (header) inside a fatbin file or section.
    Container,
    /// A concatenated group entry (its images follow, one level deeper).
    Group,
    /// One image of a fatbin (see `entry`).
    Entry,
    /// Anything else.
    Unknown,
}

/// One line of [`list`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// Nesting level (0 for the file itself).
    pub depth: usize,
    /// Display path, in the scheme of [`Member::path`].
    pub path: String,
    pub node: Node,
    /// Offset inside the enclosing item: archive member data in the archive,
    /// section contents in the host object, container in the fatbin or
    /// section, entry header in the fatbin or section.
    pub offset: u64,
    /// Size in bytes as stored.
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<EntryInfo>,
    /// Facts worth a person's attention (format, what nvlink does with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The header of a fatbin image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryInfo {
    /// "elf", "ptx", "nvvm", or "kindN".
    pub kind: String,
    /// "sm_90", "sm_90a", "sm_100f".
    pub arch: String,
    /// Code version "major.minor".
    pub version: String,
    /// "none", "zstd", "lz4" or "unknown".
    pub compression: String,
    /// Stored payload bytes (the group's, for an image of a group).
    pub stored_size: u64,
    /// Uncompressed image size.
    pub size: u64,
    pub flags: u64,
    /// "linux", "mac", "windows", "&lt;unknown&gt;".
    pub host: String,
    pub bits64: bool,
    pub debug: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifier: Option<String>,
    /// ptxas/nvvm options (PTX and NVVM entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<String>,
}

impl EntryInfo {
    fn of(e: &FatbinEntry<'_>) -> EntryInfo {
        EntryInfo {
            kind: e.kind.name().into_owned(),
            arch: e.arch().to_string(),
            version: format!("{}.{}", e.version.0, e.version.1),
            compression: e.compression.name().to_string(),
            stored_size: e.stored_size,
            size: e.size,
            flags: e.flags,
            host: e.host().to_string(),
            bits64: e.is_64bit(),
            debug: e.is_debug(),
            identifier: e.identifier.clone(),
            options: e.options_text(),
        }
    }
}

/// A flat, depth-annotated listing of everything in the input: archive
/// members, fatbin sections, containers, groups and entries. Decompresses
/// nothing.
pub fn list(name: &str, data: &[u8]) -> Result<Vec<Listing>> {
    let mut out = Vec::new();
    list_in(name, data, 0, 0, &mut out).map_err(|e| e.in_context(name))?;
    Ok(out)
}

fn line(depth: usize, path: &str, node: Node, offset: u64, size: u64, note: Option<String>) -> Listing {
    Listing {
        depth,
        path: path.to_string(),
        node,
        offset,
        size,
        entry: None,
        note,
    }
}

fn list_in(path: &str, data: &[u8], offset: u64, depth: usize, out: &mut Vec<Listing>) -> Result<()> {
    let size = data.len() as u64;
    match classify(data) {
        InputKind::Cubin => {
            let note = cubin_sm(data).map(|sm| format!("sm_{sm}"));
            out.push(line(depth, path, Node::Cubin, offset, size, note));
        }
        InputKind::Ptx => out.push(line(depth, path, Node::Ptx, offset, size, None)),
        InputKind::Unknown => out.push(line(depth, path, Node::Unknown, offset, size, None)),
        InputKind::Fatbin => {
            out.push(line(depth, path, Node::Fatbin, offset, size, None));
            list_fatbin(path, "", data, depth + 1, true, out)?;
        }
        InputKind::HostObject => {
            let elf = host::parse(data)?;
            let note = format!(
                "ELF{} e_machine {} e_type {}",
                if elf.class64 { 64 } else { 32 },
                elf.e_machine,
                elf.e_type
            );
            out.push(line(depth, path, Node::HostObject, offset, size, Some(note)));
            let sections = host::fatbin_sections(data)?;
            if sections.is_empty() && elf.section(host::FATBIN_SEGMENT_SECTION).is_some() {
                out.push(line(
                    depth + 1,
                    path,
                    Node::Unknown,
                    0,
                    0,
                    Some(
                        "has .nvFatBinSegment but no fatbin section: nvlink fails with \"Could not find fatbin\""
                            .into(),
                    ),
                ));
            }
            for s in &sections {
                let ctx = section_context(s);
                let note = if s.read_by_nvlink() {
                    "nvlink links the first container of this section"
                } else {
                    "executable device code; nvlink ignores this section"
                };
                out.push(line(
                    depth + 1,
                    &format!("{path}:{}", s.section),
                    Node::Section,
                    s.offset,
                    s.data.len() as u64,
                    Some(note.into()),
                ));
                let prefix = if s.read_by_nvlink() {
                    String::new()
                } else {
                    format!("{}:", s.section)
                };
                list_fatbin(path, &prefix, s.data, depth + 2, s.read_by_nvlink(), out)
                    .map_err(|e| e.in_context(ctx))?;
            }
        }
        InputKind::Archive => {
            if depth >= MAX_DEPTH {
                return Err(FormatError::new(0, "archives nested too deeply"));
            }
            let a = archive::parse(data)?;
            let note = format!(
                "{} archive, {} members, {} symbols",
                a.format,
                a.members.len(),
                a.symbols.len()
            );
            out.push(line(depth, path, Node::Archive, offset, size, Some(note)));
            for m in &a.members {
                let p = format!("{path}({})", m.name);
                list_in(&p, m.data, m.offset, depth + 1, out).map_err(|e| e.in_context(member_context(m)))?;
            }
        }
    }
    Ok(())
}

fn list_fatbin(
    path: &str,
    prefix: &str,
    data: &[u8],
    depth: usize,
    nvlink_reads: bool,
    out: &mut Vec<Listing>,
) -> Result<()> {
    let fb = fatbin::parse_headers(data)?;
    let mut labels = Labels::default();
    let several = fb.containers.len() > 1;
    for (ci, c) in fb.containers.iter().enumerate() {
        let note = match (nvlink_reads, ci) {
            (true, 0) if several => Some("the only container nvlink reads".to_string()),
            (true, n) if n > 0 => Some("nvlink ignores every container after the first".to_string()),
            _ => None,
        };
        out.push(line(
            depth,
            &format!("{path}[{prefix}container {}]", ci + 1),
            Node::Container,
            c.offset,
            c.size(),
            note,
        ));
        let mut group = None;
        for e in &fb.entries[c.entries.clone()] {
            let mut d = depth + 1;
            if let Some(g) = e.group {
                if group != Some(g.entry_offset) {
                    group = Some(g.entry_offset);
                    let mut l = line(
                        d,
                        &format!("{path}[{prefix}group]"),
                        Node::Group,
                        g.entry_offset,
                        e.stored_size,
                        None,
                    );
                    l.entry = Some(EntryInfo {
                        kind: "group".into(),
                        arch: String::new(),
                        size: g.payload_size,
                        flags: g.flags,
                        ..EntryInfo::of(e)
                    });
                    out.push(l);
                }
                d += 1;
            }
            let label = labels.label(prefix, e);
            let stored = if e.group.is_some() { e.size } else { e.stored_size };
            let mut l = line(d, &format!("{path}[{label}]"), Node::Entry, e.offset, stored, None);
            l.entry = Some(EntryInfo::of(e));
            if e.is_encrypted() {
                l.note = Some("encrypted payload".into());
            }
            out.push(l);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::fatbin::{ArchVariant, Compression};

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/containers");

    fn sample(name: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The samples cuobjdump describes, with their expected listing.
    const SAMPLES: &[&str] = &[
        "a_sm90.o",
        "multi.o",
        "lz4.o",
        "concat.o",
        "ptx_only.o",
        "lto.o",
        "debug.o",
        "variants.o",
        "exec.o",
        "ab_r.o",
        "nocomp.fatbin",
        "libab.a",
        "libcubins.a",
    ];

    /// (kind "ELF"/"PTX", extracted file name) from a `cuobjdump -lelf -lptx` listing.
    fn expected_list(name: &str) -> Vec<(String, String)> {
        let text = String::from_utf8(sample(&format!("expected/{name}.list"))).unwrap();
        text.lines()
            .filter_map(|l| {
                let (head, file) = l.split_once(": ")?;
                let kind = head.split_whitespace().next()?;
                matches!(kind, "ELF" | "PTX").then(|| (kind.to_string(), file.trim().to_string()))
            })
            .collect()
    }

    /// The SM number in a cuobjdump file name like `x.2.sm_100.cubin` or `c.sm_90.ptx`.
    fn sm_of_name(file: &str) -> u32 {
        let s = &file[file.rfind("sm_").unwrap() + 3..];
        s.chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .unwrap()
    }

    #[test]
    fn classify_samples() {
        for name in SAMPLES {
            let want = if name.ends_with(".a") {
                InputKind::Archive
            } else if name.ends_with(".fatbin") {
                InputKind::Fatbin
            } else {
                InputKind::HostObject
            };
            assert_eq!(classify(&sample(name)), want, "{name}");
        }
        assert_eq!(classify(&sample("expected/a_sm90.1.sm_90.cubin")), InputKind::Cubin);
        assert_eq!(classify(&sample("expected/a_sm90.1.sm_90.ptx")), InputKind::Ptx);
        assert_eq!(
            classify(b"/* x */\n  // y\n.version 9.5\n.target sm_90"),
            InputKind::Ptx
        );
        assert_eq!(classify(b""), InputKind::Unknown);
        assert_eq!(classify(b"hello"), InputKind::Unknown);
        assert_eq!(classify(&sample("a.cu")), InputKind::Unknown);
    }

    /// Every cubin is byte-identical to what `cuobjdump -all -xelf all` extracts,
    /// in the same order.
    #[test]
    fn cubins_match_cuobjdump_extraction() {
        for name in SAMPLES {
            let data = sample(name);
            let got = cubins(name, &data, None).unwrap();
            let want: Vec<_> = expected_list(name).into_iter().filter(|(k, _)| k == "ELF").collect();
            if *name == "libcubins.a" {
                // cuobjdump shows nothing for cubin members; culdb returns them.
                let paths: Vec<_> = got.iter().map(|m| m.path.as_str()).collect();
                assert_eq!(
                    paths,
                    ["libcubins.a(kernel_a_with_a_long_name.cubin)", "libcubins.a(b.cubin)"]
                );
                assert!(got.iter().all(|m| m.kind == InputKind::Archive && m.sm == Some(90)));
                continue;
            }
            assert_eq!(
                got.len(),
                want.len(),
                "{name}: {:?}",
                got.iter().map(|m| &m.path).collect::<Vec<_>>()
            );
            for (m, (_, file)) in got.iter().zip(&want) {
                assert_eq!(
                    &*m.data,
                    &sample(&format!("expected/{file}"))[..],
                    "{name}: {} vs {file}",
                    m.path
                );
                assert_eq!(m.sm, Some(sm_of_name(file)), "{name}: {}", m.path);
                assert_eq!(m.kind, InputKind::Fatbin);
                if let Cow::Borrowed(b) = &m.data {
                    assert_eq!(b.as_ptr() as usize % 8, 0, "{}", m.path);
                }
            }
        }
    }

    /// The listing has the entries `cuobjdump -all -lelf -lptx` lists, in order,
    /// and the PTX texts match `cuobjdump -xptx`.
    #[test]
    fn listing_matches_cuobjdump() {
        for name in SAMPLES {
            let data = sample(name);
            let listing = list(name, &data).unwrap();
            let got: Vec<(String, u32)> = listing
                .iter()
                .filter_map(|l| {
                    let e = l.entry.as_ref()?;
                    let kind = match e.kind.as_str() {
                        "elf" => "ELF",
                        "ptx" => "PTX",
                        _ => return None,
                    };
                    Some((kind.to_string(), SmArch::parse(&e.arch).unwrap().sm))
                })
                .collect();
            let want: Vec<(String, u32)> = expected_list(name)
                .into_iter()
                .map(|(k, f)| (k, sm_of_name(&f)))
                .collect();
            if *name != "libcubins.a" {
                assert_eq!(got, want, "{name}");
            }
            // PTX texts, in order.
            let ptx_files: Vec<_> = expected_list(name).into_iter().filter(|(k, _)| k == "PTX").collect();
            let mut ptx = Vec::new();
            collect_ptx(&data, &mut ptx);
            assert_eq!(ptx.len(), ptx_files.len(), "{name}");
            for (text, (_, file)) in ptx.iter().zip(&ptx_files) {
                assert_eq!(text, &sample(&format!("expected/{file}")), "{name}: {file}");
            }
        }
    }

    fn collect_ptx(data: &[u8], out: &mut Vec<Vec<u8>>) {
        match classify(data) {
            InputKind::Archive => {
                for m in archive::members(data).unwrap() {
                    collect_ptx(m.data, out);
                }
            }
            InputKind::HostObject => {
                for (_, d) in host::embedded_fatbins(data).unwrap() {
                    collect_ptx(d, out);
                }
            }
            InputKind::Fatbin => {
                for e in fatbin::parse(data).unwrap() {
                    if let Some(t) = e.ptx_text() {
                        out.push(t.to_vec());
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn listing_structure() {
        let data = sample("ab_r.o");
        let l = list("ab_r.o", &data).unwrap();
        let rows: Vec<_> = l.iter().map(|l| (l.depth, l.node, l.path.as_str())).collect();
        assert_eq!(
            rows,
            [
                (0, Node::HostObject, "ab_r.o"),
                (1, Node::Section, "ab_r.o:__nv_relfatbin"),
                (2, Node::Container, "ab_r.o[container 1]"),
                (3, Node::Entry, "ab_r.o[sm_90]"),
                (3, Node::Entry, "ab_r.o[compute_90]"),
                (2, Node::Container, "ab_r.o[container 2]"),
                (3, Node::Entry, "ab_r.o[sm_90#2]"),
                (3, Node::Entry, "ab_r.o[compute_90#2]"),
            ]
        );
        assert!(l[5].note.as_deref().unwrap().contains("ignores"));
        let e = l[3].entry.as_ref().unwrap();
        assert_eq!(
            (e.compression.as_str(), e.version.as_str(), e.host.as_str()),
            ("zstd", "1.8", "linux")
        );
        assert!(e.bits64 && !e.debug);
        assert_eq!(
            l[4].entry.as_ref().unwrap().options.as_deref(),
            Some("--compile-only  ")
        );

        let data = sample("concat.o");
        let l = list("concat.o", &data).unwrap();
        let rows: Vec<_> = l.iter().map(|l| (l.depth, l.node, l.path.as_str())).collect();
        assert_eq!(
            rows,
            [
                (0, Node::HostObject, "concat.o"),
                (1, Node::Section, "concat.o:__nv_relfatbin"),
                (2, Node::Container, "concat.o[container 1]"),
                (3, Node::Entry, "concat.o[compute_90]"),
                (3, Node::Group, "concat.o[group]"),
                (4, Node::Entry, "concat.o[sm_80]"),
                (4, Node::Entry, "concat.o[sm_90]"),
            ]
        );

        let data = sample("libab.a");
        let l = list("libab.a", &data).unwrap();
        assert_eq!(l[0].node, Node::Archive);
        assert!(l[0].note.as_deref().unwrap().starts_with("gnu archive, 2 members"));
        assert_eq!(
            (l[1].depth, l[1].node, l[1].path.as_str()),
            (1, Node::HostObject, "libab.a(a_sm90.o)")
        );
        assert!(l.iter().any(|x| x.path == "libab.a(b.o)[sm_90]" && x.depth == 4));

        let data = sample("exec.o");
        let l = list("exec.o", &data).unwrap();
        assert!(l.iter().any(|x| x.path == "exec.o[.nv_fatbin:sm_90]"));
        assert!(l[1].note.as_deref().unwrap().contains("ignores"));
        // serialises
        assert!(serde_json::to_string(&l).unwrap().contains("\"node\":\"entry\""));
    }

    #[test]
    fn paths_and_kinds() {
        let data = sample("libab.a");
        let got = cubins("libab.a", &data, None).unwrap();
        let paths: Vec<_> = got.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["libab.a(a_sm90.o)[sm_90]", "libab.a(b.o)[sm_90]"]);
        let data = sample("exec.o");
        let got = cubins("exec.o", &data, None).unwrap();
        assert_eq!(got[0].path, "exec.o[.nv_fatbin:sm_90]");
        let data = sample("expected/a_sm90.1.sm_90.cubin");
        let got = cubins("a.cubin", &data, None).unwrap();
        assert_eq!(
            (got[0].path.as_str(), got[0].kind, got[0].sm),
            ("a.cubin", InputKind::Cubin, Some(90))
        );
        assert!(matches!(got[0].data, Cow::Borrowed(_)));
    }

    fn picks(name: &str, target: &str) -> Vec<String> {
        let data = sample(name);
        pick(name, &data, SmArch::parse(target).unwrap())
            .unwrap()
            .into_iter()
            .map(|p| match p {
                Pick::Cubin(m) => format!("cubin {}", m.path),
                Pick::Ptx(m) => format!("ptx {}", m.path),
                Pick::Lto(m) => format!("lto {}", m.path),
                Pick::NotFound { path, warn } => format!("none {path} {warn}"),
            })
            .collect()
    }

    /// The choices nvlink 13.5 made for the same inputs.
    #[test]
    fn pick_like_nvlink() {
        assert_eq!(picks("multi.o", "sm_80"), ["cubin multi.o[sm_80]"]);
        assert_eq!(picks("multi.o", "sm_86"), ["cubin multi.o[sm_80]"]);
        assert_eq!(picks("multi.o", "sm_90"), ["cubin multi.o[sm_90]"]);
        assert_eq!(picks("multi.o", "sm_90a"), ["cubin multi.o[sm_90]"]);
        assert_eq!(picks("multi.o", "sm_100"), ["ptx multi.o[compute_90]"]);
        assert_eq!(picks("multi.o", "sm_75"), ["none multi.o true"]);
        assert_eq!(picks("ptx_only.o", "sm_86"), ["ptx ptx_only.o[compute_80]"]);
        assert_eq!(picks("variants.o", "sm_90"), ["none variants.o true"]);
        assert_eq!(picks("variants.o", "sm_90a"), ["cubin variants.o[sm_90a]"]);
        assert_eq!(picks("variants.o", "sm_103"), ["cubin variants.o[sm_100f]"]);
        assert_eq!(picks("variants.o", "sm_120"), ["none variants.o true"]);
        // Only the first container of __nv_relfatbin.
        assert_eq!(picks("ab_r.o", "sm_90"), ["cubin ab_r.o[sm_90]"]);
        // .nv_fatbin is ignored.
        assert!(picks("exec.o", "sm_90").is_empty());
        assert_eq!(picks("lto.o", "sm_90"), ["none lto.o true"]);
        assert_eq!(picks("nocomp.fatbin", "sm_100"), ["cubin nocomp.fatbin[sm_100]"]);
        assert_eq!(picks("nocomp.fatbin", "sm_90"), ["ptx nocomp.fatbin[compute_80]"]);
        // Every host-object member of an archive; no warnings for members.
        assert_eq!(
            picks("libab.a", "sm_90"),
            ["cubin libab.a(a_sm90.o)[sm_90]", "cubin libab.a(b.o)[sm_90]"]
        );
        assert_eq!(
            picks("libab.a", "sm_80"),
            ["none libab.a(a_sm90.o) false", "none libab.a(b.o) false"]
        );
        // Cubin members of archives are ignored.
        assert!(picks("libcubins.a", "sm_90").is_empty());

        let data = sample("multi.o");
        let got = cubins("multi.o", &data, Some(86)).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(&*got[0].data, &sample("expected/multi.1.sm_80.cubin")[..]);
        let data = sample("ptx_only.o");
        let p = pick("ptx_only.o", &data, SmArch::new(90)).unwrap();
        match &p[0] {
            Pick::Ptx(m) => assert_eq!(&*m.data, &sample("expected/ptx_only.1.sm_80.ptx")[..]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn entry_details() {
        let data = sample("lz4.o");
        let secs = host::embedded_fatbins(&data).unwrap();
        let e = fatbin::parse(secs[0].1).unwrap();
        assert!(
            e.iter()
                .all(|e| e.compression == Compression::Lz4 && e.compressed && e.decoded)
        );
        let data = sample("debug.o");
        let secs = host::embedded_fatbins(&data).unwrap();
        let e = fatbin::parse(secs[0].1).unwrap();
        assert!(e[0].is_debug());
        assert_eq!(e[0].identifier.as_deref(), Some("c.cu"));
        let data = sample("lto.o");
        let secs = host::embedded_fatbins(&data).unwrap();
        let e = fatbin::parse(secs[0].1).unwrap();
        assert_eq!((e[0].kind, e[0].sm, e[0].decoded), (EntryKind::Nvvm, 90, false));
        assert!(e[0].is_encrypted() && e[0].payload().is_err());
        assert!(e[0].options_text().unwrap().starts_with("-ftz=0"));
        let data = sample("variants.o");
        let secs = host::embedded_fatbins(&data).unwrap();
        let e = fatbin::parse(secs[0].1).unwrap();
        let arch: Vec<_> = e.iter().map(|e| (e.kind, e.arch().to_string())).collect();
        assert_eq!(
            arch,
            [
                (EntryKind::Elf, "sm_90a".to_string()),
                (EntryKind::Elf, "sm_100f".to_string()),
                (EntryKind::Ptx, "sm_100f".to_string())
            ]
        );
        assert_eq!(e[0].variant, ArchVariant::Specific);
        let data = sample("nocomp.fatbin");
        let e = fatbin::parse(&data).unwrap();
        assert_eq!((e[0].compressed, e[0].stored_size, e[0].size), (false, 7048, 7046));
        assert!(matches!(e[0].data, Cow::Borrowed(_)));
    }

    /// Nothing panics on any prefix of any sample, nor on damaged copies.
    #[test]
    fn no_panic_on_truncation_or_damage() {
        let mut all = SAMPLES.to_vec();
        all.push("expected/a_sm90.1.sm_90.cubin");
        for name in all {
            let data = sample(name);
            let n = data.len();
            // Every prefix near the start and the end, ~300 in between.
            let stride = (n / 300).max(1);
            let lens = (0..n.min(256))
                .chain((256..n).step_by(stride))
                .chain(n.saturating_sub(64)..=n);
            for len in lens {
                exercise(&data[..len]);
            }
            // Damage: every byte of every fatbin header, and a spread of others.
            let mut spots: Vec<usize> = (0..n).step_by((n / 200).max(1)).collect();
            spots.extend(fatbin_header_spots(&data));
            let mut d = data.clone();
            for i in spots {
                let old = d[i];
                for v in [0xff, old ^ 0x80] {
                    d[i] = v;
                    exercise(&d);
                }
                d[i] = old;
            }
        }
        // Garbage.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in [0usize, 1, 7, 16, 64, 100, 1000, 5000] {
            for _ in 0..20 {
                let g: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                exercise(&g);
                for magic in [
                    &b"!<arch>\n"[..],
                    b"\x50\xed\x55\xba\x01\x00\x10\x00",
                    b"\x7fELF\x02\x01\x01\x00",
                ] {
                    let mut h = magic.to_vec();
                    h.extend_from_slice(&g);
                    exercise(&h);
                }
            }
        }
    }

    /// File offsets of the bytes of every container and entry header.
    fn fatbin_header_spots(data: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut fatbins: Vec<(usize, &[u8])> = Vec::new();
        match classify(data) {
            InputKind::Fatbin => fatbins.push((0, data)),
            InputKind::HostObject => {
                for s in host::fatbin_sections(data).unwrap() {
                    fatbins.push((s.offset as usize, s.data));
                }
            }
            _ => {}
        }
        for (base, d) in fatbins {
            let fb = fatbin::parse_headers(d).unwrap();
            for c in &fb.containers {
                out.extend((0..16).map(|i| base + c.offset as usize + i));
            }
            for e in &fb.entries {
                let len = if e.group.is_some() {
                    0x40
                } else {
                    e.header_size as usize
                };
                out.extend((0..len).map(|i| base + e.offset as usize + i));
                out.extend((0..16).map(|i| base + e.payload_offset as usize + i));
            }
        }
        out
    }

    fn exercise(d: &[u8]) {
        let _ = classify(d);
        let _ = list("x", d);
        let _ = cubins("x", d, None);
        let _ = pick("x", d, SmArch::new(90));
    }

    #[test]
    fn errors_say_where() {
        let data = sample("a_sm90.o");
        // Cut inside the fatbin section.
        let e = cubins("a_sm90.o", &data[..0x500], None).unwrap_err();
        assert!(e.to_string().starts_with("a_sm90.o: "), "{e}");
        let data = sample("libab.a");
        let mut d = data.clone();
        // Corrupt the fatbin magic of the first member's __nv_relfatbin.
        let m = archive::members(&data).unwrap()[0].clone();
        let s = host::fatbin_sections(m.data).unwrap()[0].clone();
        let at = (m.offset + s.offset) as usize;
        d[at] ^= 0xff;
        let e = cubins("libab.a", &d, None).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(
            e.context.contains("member a_sm90.o at 0x") && e.context.contains("section __nv_relfatbin at 0x"),
            "{e}"
        );
        assert!(e.msg.contains("magic"), "{e}");
    }
}
