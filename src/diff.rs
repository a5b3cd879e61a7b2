//! The equivalence contract between two cubins (culdb's output and nvlink's):
//! headers, sections by name, symbols by name, relocations as multisets, and
//! the .nv.* tables decoded with symbol indices replaced by names. See
//! README.md, "Equivalence".

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::cubin::catalog::{RelocFamily, reloc_family_of_section, reloc_name};
use crate::cubin::consts::*;
use crate::cubin::tables;
use crate::cubin::{Cubin, Section, Symbol};

/// One difference, in a person's terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// What differs: "header", "section .text._Z1kPi", "symbol gv", "relocations of .rela.text.k".
    pub item: String,
    /// Which property: "flags", "size", "contents at 0x40", "missing", …
    pub property: String,
    /// The value in A (the first file).
    pub a: String,
    /// The value in B.
    pub b: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {} vs {}", self.item, self.property, self.a, self.b)
    }
}

fn diff(item: impl Into<String>, property: impl Into<String>, a: impl ToString, b: impl ToString) -> Difference {
    Difference {
        item: item.into(),
        property: property.into(),
        a: a.to_string(),
        b: b.to_string(),
    }
}

/// Sections whose contents are not compared as bytes: rebuilt tables compared
/// through the model, and the tool note.
const TKINFO: &str = ".note.nv.tkinfo";

/// Every difference between `a` and `b` under the equivalence contract; empty when equivalent.
pub fn equivalence(a: &Cubin<'_>, b: &Cubin<'_>) -> Vec<Difference> {
    let mut out = Vec::new();
    compare_header(a, b, &mut out);
    compare_sections(a, b, &mut out);
    compare_symbols(a, b, &mut out);
    out
}

fn compare_header(a: &Cubin<'_>, b: &Cubin<'_>, out: &mut Vec<Difference>) {
    let (ha, hb) = (&a.header, &b.header);
    let fields: [(&str, u64, u64); 7] = [
        ("e_type", ha.e_type.into(), hb.e_type.into()),
        ("e_machine", ha.e_machine.into(), hb.e_machine.into()),
        (
            "e_flags",
            (ha.e_flags & 0x00ff_ffff).into(),
            (hb.e_flags & 0x00ff_ffff).into(),
        ),
        ("OS/ABI", ha.os_abi.into(), hb.os_abi.into()),
        ("ABI version", ha.abi_version.into(), hb.abi_version.into()),
        ("e_version", ha.e_version.into(), hb.e_version.into()),
        ("e_entry", ha.e_entry, hb.e_entry),
    ];
    for (name, x, y) in fields {
        if x != y {
            out.push(diff("ELF header", name, format!("{x:#x}"), format!("{y:#x}")));
        }
    }
    let (na, nb) = (flags_note(a), flags_note(b));
    if na != nb {
        out.push(diff("ELF header", "e_flags top byte", na, nb));
    }
}

/// What the top byte of e_flags names: the section index of the
/// `.note.nv.cuinfo` note (0xff: none given, the tools look it up by name).
/// It is compared like a section link, by the name it points at; the CUDA
/// tools read the note through it (`cuobjdump -elf` rejects an sm_90+ file
/// whose byte names another section).
fn flags_note(c: &Cubin<'_>) -> String {
    match c.header.e_flags >> 24 {
        0xff => "0xff (by name)".into(),
        i => match c.sections.get(i as usize) {
            Some(s) if i > 0 => format!("section {}", s.name),
            _ => format!("{i:#x} (no such section)"),
        },
    }
}

/// Sections keyed by name; a repeated name gets "#2", "#3" in order of appearance.
fn keyed_sections<'c, 'a>(c: &'c Cubin<'a>) -> BTreeMap<String, (usize, &'c Section<'a>)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (i, s) in c.sections.iter().enumerate().skip(1) {
        let n = seen.entry(&s.name).or_insert(0);
        *n += 1;
        let key = if *n == 1 {
            s.name.clone()
        } else {
            format!("{}#{}", s.name, n)
        };
        out.insert(key, (i, s));
    }
    out
}

/// What a section's sh_link / sh_info points at, as a name.
fn link_target(c: &Cubin<'_>, s: &Section<'_>) -> String {
    if s.link == 0 {
        "-".into()
    } else {
        format!("section {}", c.section_name(s.link as usize))
    }
}

fn info_target(c: &Cubin<'_>, s: &Section<'_>) -> String {
    if s.sh_type == SHT_SYMTAB {
        // Index of the first non-local symbol: a count, not a reference.
        return s.info.to_string();
    }
    if s.info == 0 {
        return "-".into();
    }
    if s.flags & SHF_INFO_LINK != 0 || s.is_reloc() {
        format!("section {}", c.section_name(s.info as usize))
    } else if s.flags & SHF_EXECINSTR != 0 {
        // Before sm_90 the top byte of a code section's sh_info holds its
        // register count; the low 24 bits are the owning symbol.
        let sym = format!("symbol {}", c.symbol_name((s.info & 0x00ff_ffff) as usize));
        match s.info >> 24 {
            0 => sym,
            regs => format!("{sym}, {regs} registers"),
        }
    } else {
        s.info.to_string()
    }
}

fn compare_sections(a: &Cubin<'_>, b: &Cubin<'_>, out: &mut Vec<Difference>) {
    let ka = keyed_sections(a);
    let kb = keyed_sections(b);
    for (name, &(_, sa)) in &ka {
        let item = format!("section {name}");
        let Some(&(_, sb)) = kb.get(name) else {
            out.push(diff(item, "presence", "present", "missing"));
            continue;
        };
        let type_name = |t: u32| {
            section_type_name(t)
                .map(str::to_string)
                .unwrap_or_else(|| format!("{t:#x}"))
        };
        if sa.sh_type != sb.sh_type {
            out.push(diff(&item, "type", type_name(sa.sh_type), type_name(sb.sh_type)));
        }
        let props: [(&str, u64, u64); 4] = [
            ("flags", sa.flags, sb.flags),
            ("alignment", sa.align, sb.align),
            ("entry size", sa.entsize, sb.entsize),
            ("address", sa.addr, sb.addr),
        ];
        for (p, x, y) in props {
            if x != y {
                out.push(diff(&item, p, format!("{x:#x}"), format!("{y:#x}")));
            }
        }
        if name.as_str() != TKINFO && sa.size() != sb.size() {
            out.push(diff(
                &item,
                "size",
                format!("{:#x}", sa.size()),
                format!("{:#x}", sb.size()),
            ));
        }
        let (la, lb) = (link_target(a, sa), link_target(b, sb));
        if la != lb {
            out.push(diff(&item, "link", la, lb));
        }
        let (ia, ib) = (info_target(a, sa), info_target(b, sb));
        if ia != ib {
            out.push(diff(&item, "info", ia, ib));
        }
        compare_contents(a, sa, b, sb, &item, out);
    }
    for name in kb.keys().filter(|n| !ka.contains_key(*n)) {
        out.push(diff(format!("section {name}"), "presence", "missing", "present"));
    }
}

fn compare_contents(
    a: &Cubin<'_>,
    sa: &Section<'_>,
    b: &Cubin<'_>,
    sb: &Section<'_>,
    item: &str,
    out: &mut Vec<Difference>,
) {
    if sa.name == TKINFO
        || matches!(sa.sh_type, SHT_SYMTAB | SHT_STRTAB | SHT_CUDA_MERC_SYMTAB)
        || is_nobits(sa.sh_type)
    {
        return;
    }
    if sa.is_reloc() {
        compare_relocs(a, sa, b, sb, item, out);
        return;
    }
    match (tables::canonical(a, sa), tables::canonical(b, sb)) {
        (Some(ta), Some(tb)) => match (ta, tb) {
            (Ok(la), Ok(lb)) => compare_multisets(item, "entry", la, lb, out),
            (Err(e), _) => out.push(diff(item, "decoding", format!("cannot decode: {e}"), "-")),
            (_, Err(e)) => out.push(diff(item, "decoding", "-", format!("cannot decode: {e}"))),
        },
        _ if sa.name.starts_with(CAPMERC_TEXT) && sa.data.len() >= 4 && sb.data.len() >= 4 => {
            // The first word of a `.nv.capmerc.text.<fn>` section is the
            // index of its classic `.text.<fn>`: compared by name.
            let text = |c: &Cubin<'_>, d: &[u8]| {
                c.section_name(u32::from_le_bytes([d[0], d[1], d[2], d[3]]) as usize)
                    .to_string()
            };
            let (ta, tb) = (text(a, &sa.data), text(b, &sb.data));
            if ta != tb {
                out.push(diff(item, "code section (first word)", ta, tb));
            }
            compare_bytes(&sa.data[4..], &sb.data[4..], item, out)
        }
        _ => compare_bytes(&sa.data, &sb.data, item, out),
    }
}

/// Mercury capsule code: `.nv.capmerc.text.<fn>`.
const CAPMERC_TEXT: &str = ".nv.capmerc.text.";

/// The first differing byte, shown with the 16-byte line around it.
fn compare_bytes(x: &[u8], y: &[u8], item: &str, out: &mut Vec<Difference>) {
    if x == y {
        return;
    }
    let at = x
        .iter()
        .zip(y)
        .position(|(p, q)| p != q)
        .unwrap_or(x.len().min(y.len()));
    let line = at & !0xf;
    let hex = |d: &[u8]| -> String {
        let end = (line + 16).min(d.len());
        d.get(line..end)
            .map(|w| w.iter().map(|v| format!("{v:02x}")).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    out.push(diff(
        item,
        format!("contents at {at:#x} (line {line:#x})"),
        hex(x),
        hex(y),
    ));
}

fn compare_multisets(item: &str, what: &str, la: Vec<String>, lb: Vec<String>, out: &mut Vec<Difference>) {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for l in &la {
        *count.entry(l).or_default() += 1;
    }
    for l in &lb {
        *count.entry(l).or_default() -= 1;
    }
    for (l, n) in count {
        for _ in 0..n.abs() {
            if n > 0 {
                out.push(diff(item, format!("{what} only in A"), l, "-"));
            } else {
                out.push(diff(item, format!("{what} only in B"), "-", l));
            }
        }
    }
}

fn compare_relocs(
    a: &Cubin<'_>,
    sa: &Section<'_>,
    b: &Cubin<'_>,
    sb: &Section<'_>,
    item: &str,
    out: &mut Vec<Difference>,
) {
    let lines = |c: &Cubin<'_>, s: &Section<'_>| -> Vec<String> {
        let fam = reloc_family_of_section(s.sh_type).unwrap_or(RelocFamily::Cuda);
        s.relocs
            .iter()
            .map(|r| {
                let ty = reloc_name(fam, r.rtype)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("type {}", r.rtype));
                format!(
                    "{:#x} {} {} {:+#x}",
                    r.offset,
                    ty,
                    c.symbol_name_for(s, r.sym as usize),
                    r.addend
                )
            })
            .collect()
    };
    compare_multisets(item, "relocation", lines(a, sa), lines(b, sb), out);
}

/// Symbols keyed by name; unnamed section symbols by their section's name.
fn keyed_symbols(c: &Cubin<'_>, table: &[Symbol]) -> BTreeMap<String, usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (i, s) in table.iter().enumerate().skip(1) {
        let base = if s.sym_type == STT_SECTION && s.name.is_empty() {
            format!("[section {}]", c.section_name(s.shndx as usize))
        } else {
            s.name.clone()
        };
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        out.insert(if *n == 1 { base } else { format!("{base}#{n}") }, i);
    }
    out
}

fn compare_symbols(a: &Cubin<'_>, b: &Cubin<'_>, out: &mut Vec<Difference>) {
    compare_symbol_table(a, &a.symbols, b, &b.symbols, "symbol", out);
    compare_symbol_table(a, &a.merc_symbols, b, &b.merc_symbols, "mercury symbol", out);
}

fn compare_symbol_table(
    a: &Cubin<'_>,
    ta: &[Symbol],
    b: &Cubin<'_>,
    tb: &[Symbol],
    label: &str,
    out: &mut Vec<Difference>,
) {
    let ka = keyed_symbols(a, ta);
    let kb = keyed_symbols(b, tb);
    for (name, &ia) in &ka {
        let item = format!("{label} {name}");
        let Some(&ib) = kb.get(name) else {
            out.push(diff(item, "presence", "present", "missing"));
            continue;
        };
        let (x, y) = (&ta[ia], &tb[ib]);
        if x.binding != y.binding {
            out.push(diff(&item, "binding", binding_name(x.binding), binding_name(y.binding)));
        }
        if x.sym_type != y.sym_type {
            out.push(diff(
                &item,
                "type",
                symbol_type_name(x.sym_type),
                symbol_type_name(y.sym_type),
            ));
        }
        if x.other != y.other {
            out.push(diff(
                &item,
                "st_other",
                format!("{:#x}", x.other),
                format!("{:#x}", y.other),
            ));
        }
        let (sx, sy) = (a.shndx_name(x.shndx), b.shndx_name(y.shndx));
        if sx != sy {
            out.push(diff(&item, "section", sx, sy));
        }
        if x.value != y.value {
            out.push(diff(
                &item,
                "value",
                format!("{:#x}", x.value),
                format!("{:#x}", y.value),
            ));
        }
        if x.size != y.size {
            out.push(diff(&item, "size", format!("{:#x}", x.size), format!("{:#x}", y.size)));
        }
    }
    for name in kb.keys().filter(|n| !ka.contains_key(*n)) {
        out.push(diff(format!("{label} {name}"), "presence", "missing", "present"));
    }
}

/// The byte-for-byte comparison apart from .note.nv.tkinfo. When both tool
/// notes have the same size, B's note is overwritten with A's and the files are
/// compared as they are. When the sizes differ (the note records the command
/// line), every later offset shifts by the difference: the layouts are
/// compared with that shift taken out, and the contents by writing both files
/// again with an empty note. Returns the first difference, or None when identical.
pub fn strict(a_bytes: &[u8], a: &Cubin<'_>, b_bytes: &[u8], b: &Cubin<'_>) -> Option<Difference> {
    let ra = note_range(a_bytes, a);
    let rb = note_range(b_bytes, b);
    match (ra, rb) {
        (Some(ra), Some(rb)) if ra.len() != rb.len() => strict_shifted(a_bytes, a, b_bytes, b, ra, rb),
        (ra, rb) => {
            let mut b_norm = b_bytes.to_vec();
            if let (Some(ra), Some(rb)) = (ra, rb) {
                b_norm[rb].copy_from_slice(&a_bytes[ra]);
            }
            first_byte_difference(a_bytes, a, &b_norm, "")
        }
    }
}

fn first_byte_difference(x: &[u8], c: &Cubin<'_>, y: &[u8], note: &str) -> Option<Difference> {
    if x == y {
        return None;
    }
    let at = x
        .iter()
        .zip(y)
        .position(|(p, q)| p != q)
        .unwrap_or(x.len().min(y.len()));
    let region = file_region(x, c, at as u64);
    let byte = |d: &[u8]| {
        d.get(at)
            .map(|v| format!("{v:#04x}"))
            .unwrap_or_else(|| "end of file".into())
    };
    Some(diff(
        "file bytes",
        format!(
            "first difference at offset {at:#x}{note} ({region}); file sizes {:#x} and {:#x}",
            x.len(),
            y.len()
        ),
        byte(x),
        byte(y),
    ))
}

fn strict_shifted(
    a_bytes: &[u8],
    a: &Cubin<'_>,
    b_bytes: &[u8],
    b: &Cubin<'_>,
    ra: std::ops::Range<usize>,
    rb: std::ops::Range<usize>,
) -> Option<Difference> {
    // Layout: A's file laid out again with B's note size. Each piece past the
    // note keeps its alignment and any extra padding it had in A.
    let delta = rb.len() as i64 - ra.len() as i64;
    let (oa, ob) = (
        crate::cubin::read::section_offsets(a_bytes),
        crate::cubin::read::section_offsets(b_bytes),
    );
    let header_off = |d: &[u8], at: usize| {
        d.get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
    };
    // (offset in A, size, alignment, what) in file order.
    let mut pieces: Vec<(u64, u64, u64, String)> = a
        .sections
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, s)| {
            let size = if is_nobits(s.sh_type) { 0 } else { s.data.len() as u64 };
            Some((*oa.get(i)?, size, s.align.max(1), format!("section [{i}] {}", s.name)))
        })
        .collect();
    let nsec = a.sections.len() as u64;
    if let Some(shoff) = header_off(a_bytes, 40).filter(|&o| o != 0) {
        pieces.push((shoff, nsec * 64, 1, "section header table".into()));
    }
    if let Some(phoff) = header_off(a_bytes, 32).filter(|&o| o != 0) {
        pieces.push((phoff, a.segments.len() as u64 * 56, 1, "program header table".into()));
    }
    pieces.sort_by_key(|p| p.0);
    let mut expected: Vec<(String, u64)> = Vec::new();
    let (mut end_a, mut end_b) = (64u64, 64u64);
    let mut moved_to: HashMap<u64, u64> = HashMap::new();
    for (off, size, align, what) in &pieces {
        // A piece laid over an earlier one (nvlink's `.nv.merc.nv.global.init`
        // over `.nv.global.init`) moves with it.
        if *off < end_a
            && let Some(&m) = moved_to.get(off)
        {
            expected.push((what.clone(), m));
            continue;
        }
        let natural = end_a.next_multiple_of(*align);
        let extra = off.saturating_sub(natural);
        let moved = if *off as usize >= ra.end {
            end_b.next_multiple_of(*align) + extra
        } else {
            *off
        };
        expected.push((what.clone(), moved));
        moved_to.insert(*off, moved);
        let size_b = if *off as usize == ra.start {
            rb.len() as u64
        } else {
            *size
        };
        end_a = end_a.max(off + size);
        end_b = end_b.max(moved + size_b);
    }
    let mut actual: Vec<(String, u64)> = b
        .sections
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, s)| Some((format!("section [{i}] {}", s.name), *ob.get(i)?)))
        .collect();
    if let Some(o) = header_off(b_bytes, 40).filter(|&o| o != 0) {
        actual.push(("section header table".into(), o));
    }
    if let Some(o) = header_off(b_bytes, 32).filter(|&o| o != 0) {
        actual.push(("program header table".into(), o));
    }
    for (what, want) in &expected {
        let got = actual.iter().find(|(w, _)| w == what).map(|(_, o)| *o);
        if got != Some(*want) {
            return Some(diff(
                what.clone(),
                format!("file offset (expected from A with B's {delta:+}-byte tool note)"),
                format!("{want:#x}"),
                got.map(|o| format!("{o:#x}")).unwrap_or_else(|| "missing".into()),
            ));
        }
    }
    // Contents: both files written again with an empty note.
    let without_note = |c: &Cubin<'_>| -> Option<Vec<u8>> {
        let mut c = c.clone();
        let i = c.sections.iter().position(|s| s.name == TKINFO)?;
        c.sections[i].data = std::borrow::Cow::Borrowed(&[]);
        crate::cubin::write::write(&c).ok()
    };
    let (Some(na), Some(nb)) = (without_note(a), without_note(b)) else {
        return Some(diff("file bytes", "cannot be rewritten for comparison", "-", "-"));
    };
    let na_c = crate::cubin::read::parse(&na).ok()?;
    first_byte_difference(&na, &na_c, &nb, " of the files rewritten with empty tool notes")
}

/// The file range of the tool note's contents.
fn note_range(bytes: &[u8], c: &Cubin<'_>) -> Option<std::ops::Range<usize>> {
    let (i, s) = c.section_by_name(TKINFO)?;
    let off = *crate::cubin::read::section_offsets(bytes).get(i)? as usize;
    let end = off.checked_add(s.data.len())?;
    (end <= bytes.len()).then_some(off..end)
}

/// Which part of the file an offset falls in, for messages.
fn file_region(bytes: &[u8], c: &Cubin<'_>, at: u64) -> String {
    if at < 64 {
        return "ELF header".into();
    }
    let shoff = bytes
        .get(40..48)
        .and_then(|w| w.try_into().ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0);
    let shend = shoff + 64 * c.sections.len() as u64;
    if at >= shoff && at < shend {
        let i = ((at - shoff) / 64) as usize;
        return format!("section header {} ({})", i, c.section_name(i));
    }
    let offsets = crate::cubin::read::section_offsets(bytes);
    for (i, s) in c.sections.iter().enumerate().skip(1) {
        let Some(&off) = offsets.get(i) else { break };
        let len = if is_nobits(s.sh_type) { 0 } else { s.data.len() as u64 };
        if at >= off && at < off + len {
            return format!("section {} + {:#x}", s.name, at - off);
        }
    }
    if at >= shend {
        "program headers".into()
    } else {
        "padding between sections".into()
    }
}
