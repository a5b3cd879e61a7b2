//! The equivalence contract between two cubins (culdb's output and nvlink's):
//! headers, sections by name, symbols by name, relocations as multisets, and
//! the .nv.* tables decoded with symbol indices replaced by names. See
//! README.md, "Equivalence".

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cubin::catalog::{reloc_family, reloc_name};
use crate::cubin::consts::*;
use crate::cubin::tables;
use crate::cubin::{Cubin, Section};

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
        ("e_flags", ha.e_flags.into(), hb.e_flags.into()),
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
        format!("symbol {}", c.symbol_name(s.info as usize))
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
    if sa.name == TKINFO || matches!(sa.sh_type, SHT_SYMTAB | SHT_STRTAB) || is_nobits(sa.sh_type) {
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
        _ => compare_bytes(&sa.data, &sb.data, item, out),
    }
}

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
        let fam = reloc_family(c.header.e_flags);
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
                    c.symbol_name(r.sym as usize),
                    r.addend
                )
            })
            .collect()
    };
    compare_multisets(item, "relocation", lines(a, sa), lines(b, sb), out);
}

/// Symbols keyed by name; unnamed section symbols by their section's name.
fn keyed_symbols(c: &Cubin<'_>) -> BTreeMap<String, usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for i in 1..c.symbols.len() {
        let s = &c.symbols[i];
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

fn section_of(c: &Cubin<'_>, shndx: u16) -> String {
    match shndx {
        SHN_UNDEF => "UNDEF".into(),
        SHN_ABS => "ABS".into(),
        SHN_COMMON => "COMMON".into(),
        i => c.section_name(i as usize).to_string(),
    }
}

fn compare_symbols(a: &Cubin<'_>, b: &Cubin<'_>, out: &mut Vec<Difference>) {
    let ka = keyed_symbols(a);
    let kb = keyed_symbols(b);
    for (name, &ia) in &ka {
        let item = format!("symbol {name}");
        let Some(&ib) = kb.get(name) else {
            out.push(diff(item, "presence", "present", "missing"));
            continue;
        };
        let (x, y) = (&a.symbols[ia], &b.symbols[ib]);
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
        let (sx, sy) = (section_of(a, x.shndx), section_of(b, y.shndx));
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
        out.push(diff(format!("symbol {name}"), "presence", "missing", "present"));
    }
}

/// The byte-for-byte comparison apart from .note.nv.tkinfo: B is written back
/// with A's tkinfo contents, then the files are compared. Returns the first
/// differing offset (in A) and the section holding it, or None when identical.
pub fn strict(a_bytes: &[u8], a: &Cubin<'_>, b: &Cubin<'_>) -> Result<Option<Difference>, String> {
    let mut b2 = b.clone();
    if let (Some((_, ta)), Some(ib)) = (
        a.section_by_name(TKINFO),
        b.sections.iter().position(|s| s.name == TKINFO),
    ) {
        b2.sections[ib].data = ta.data.clone();
    }
    let b_bytes = crate::cubin::write::write(&b2).map_err(|e| e.to_string())?;
    if a_bytes == b_bytes.as_slice() {
        return Ok(None);
    }
    let at = a_bytes
        .iter()
        .zip(&b_bytes)
        .position(|(x, y)| x != y)
        .unwrap_or(a_bytes.len().min(b_bytes.len()));
    let region = file_region(a_bytes, a, at as u64);
    let byte = |d: &[u8]| {
        d.get(at)
            .map(|v| format!("{v:#04x}"))
            .unwrap_or_else(|| "end of file".into())
    };
    Ok(Some(diff(
        "file bytes",
        format!(
            "first difference at offset {at:#x} ({region}); sizes {:#x} and {:#x}",
            a_bytes.len(),
            b_bytes.len()
        ),
        byte(a_bytes),
        byte(&b_bytes),
    )))
}

/// Which part of the file an offset falls in, for messages.
fn file_region(bytes: &[u8], c: &Cubin<'_>, at: u64) -> String {
    if at < 64 {
        return "ELF header".into();
    }
    let shoff = bytes
        .get(40..48)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
        .unwrap_or(0);
    let shend = shoff + 64 * c.sections.len() as u64;
    if at >= shoff && at < shend {
        let i = ((at - shoff) / 64) as usize;
        return format!("section header {} ({})", i, c.section_name(i));
    }
    if at >= shend {
        return "program headers".into();
    }
    // Section contents: find the last section starting at or before `at`
    // in file order by re-deriving offsets from the writer's layout rule.
    let mut pos = 64u64;
    let mut found = "between sections".to_string();
    for s in c.sections.iter().skip(1) {
        if s.align > 1 {
            pos = pos.div_ceil(s.align).saturating_mul(s.align);
        }
        let len = if is_nobits(s.sh_type) { 0 } else { s.data.len() as u64 };
        if at >= pos && at < pos + len {
            found = format!("section {} + {:#x}", s.name, at - pos);
        }
        pos += len;
    }
    found
}
