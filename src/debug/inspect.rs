//! What the debugger shows: the link state between steps (`info …`,
//! `print …`, `x`), and the explanations built from the event history
//! (`why`, `explain`). Everything returns text; nothing here moves the session.
//!
//! It stays one file because every view here is read-only text in the same
//! conventions: the `info` lists, `print`, `why` and `explain` share its line
//! formatters (`symbol_line`, `event_line`).

use std::fmt::Write;

use serde_json::Value;

use crate::cubin::consts::*;
use crate::link::event::{Event, WeakCandidate};
use crate::link::state::{LinkState, OutReloc, OutSection, OutSymbol, Place, SymIdx};

use super::breakpoint::{self, reloc_type_name};
use super::{Session, class, names};

fn binding_name(b: u8) -> &'static str {
    match b {
        STB_LOCAL => "LOCAL",
        STB_GLOBAL => "GLOBAL",
        STB_WEAK => "WEAK",
        _ => "?",
    }
}

fn type_name(t: u8) -> String {
    match t {
        STT_NOTYPE => "NOTYPE".into(),
        STT_OBJECT => "OBJECT".into(),
        STT_FUNC => "FUNC".into(),
        STT_SECTION => "SECTION".into(),
        STT_FILE => "FILE".into(),
        STT_COMMON => "COMMON".into(),
        STT_CUDA_TEXTURE => "CUDA_TEXTURE".into(),
        STT_CUDA_SURFACE => "CUDA_SURFACE".into(),
        STT_CUDA_SAMPLER => "CUDA_SAMPLER".into(),
        t => format!("type {t}"),
    }
}

fn sh_type_name(t: u32) -> String {
    match t {
        SHT_NULL => "NULL".into(),
        SHT_PROGBITS => "PROGBITS".into(),
        SHT_SYMTAB => "SYMTAB".into(),
        SHT_STRTAB => "STRTAB".into(),
        SHT_RELA => "RELA".into(),
        SHT_NOTE => "NOTE".into(),
        SHT_NOBITS => "NOBITS".into(),
        SHT_REL => "REL".into(),
        SHT_CUDA_INFO => "CUDA_INFO".into(),
        SHT_CUDA_CALLGRAPH => "CUDA_CALLGRAPH".into(),
        SHT_CUDA_PROTOTYPE => "CUDA_PROTOTYPE".into(),
        SHT_CUDA_RELOCINFO => "CUDA_RELOCINFO".into(),
        SHT_CUDA_GLOBAL => "CUDA_GLOBAL".into(),
        SHT_CUDA_GLOBAL_INIT => "CUDA_GLOBAL_INIT".into(),
        SHT_CUDA_LOCAL => "CUDA_LOCAL".into(),
        SHT_CUDA_SHARED => "CUDA_SHARED".into(),
        SHT_CUDA_UFT => "CUDA_UFT".into(),
        SHT_CUDA_UFT_ENTRY => "CUDA_UFT_ENTRY".into(),
        SHT_CUDA_UDT => "CUDA_UDT".into(),
        SHT_CUDA_UDT_ENTRY => "CUDA_UDT_ENTRY".into(),
        SHT_CUDA_COMPAT_INFO => "CUDA_COMPAT_INFO".into(),
        t if (SHT_CUDA_CONSTANT0..SHT_CUDA_CONSTANT0 + 18).contains(&t) => {
            format!("CUDA_CONSTANT{}", t - SHT_CUDA_CONSTANT0)
        }
        t => format!("{t:#x}"),
    }
}

fn flags_text(f: u64) -> String {
    let mut s = String::new();
    if f & SHF_WRITE != 0 {
        s.push('W');
    }
    if f & SHF_ALLOC != 0 {
        s.push('A');
    }
    if f & SHF_EXECINSTR != 0 {
        s.push('X');
    }
    if f & SHF_INFO_LINK != 0 {
        s.push('I');
    }
    if s.is_empty() { "-".into() } else { s }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}

/// A symbol as one line.
pub fn symbol_line(st: &LinkState, idx: SymIdx, s: &OutSymbol) -> String {
    format!(
        "{:>5} {:<6} {:<7} {:<24} {:#8x} {:#7x} {:<14} regs {:>3}{} {}",
        idx.0,
        binding_name(s.binding),
        type_name(s.sym_type),
        st.place_name(s.place),
        s.value,
        s.size,
        st.input_name(s.input),
        opt(s.regcount),
        if s.removed { " removed" } else { "" },
        names::shown(&s.name)
    )
}

/// Symbols whose name `pattern` names (every symbol when None).
pub fn find_symbols<'s>(st: &'s LinkState, pattern: Option<&str>) -> Vec<(SymIdx, &'s OutSymbol)> {
    if let Some(p) = pattern
        && let Some(i) = st.lookup(p)
    {
        return st.symbol(i).map(|s| vec![(i, s)]).unwrap_or_default();
    }
    st.all_symbols()
        .filter(|(_, s)| pattern.is_none_or(|p| names::symbol_matches(p, &s.name)))
        .collect()
}

/// A section by name or index.
pub fn find_section(st: &LinkState, what: &str) -> Option<usize> {
    if let Some(i) = st.section_named(what) {
        return Some(i);
    }
    let n = what.strip_prefix('[').and_then(|w| w.strip_suffix(']')).unwrap_or(what);
    n.parse::<usize>().ok().filter(|&i| i > 0 && i < st.sections.len())
}

// ---- info

pub fn inputs(s: &Session) -> String {
    let st = s.state();
    let mut o = String::new();
    if st.inputs.is_empty() {
        o.push_str("no inputs loaded yet\n");
    }
    for (i, r) in st.inputs.iter().enumerate() {
        let merged = st.maps.get(i).is_some_and(|m| !m.map_symbol_index.is_empty());
        let _ = writeln!(
            o,
            "#{i:<3} {:<24} sm_{} virtual {} e_flags {:#x} {}{}",
            r.name,
            r.sm,
            r.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or_else(|| "?".into()),
            r.e_flags,
            r.origin,
            if merged { "" } else { " (not merged yet)" }
        );
    }
    for e in s.events() {
        if let Event::InputSkipped { path, reason } = e {
            let _ = writeln!(o, "skip {path}: {reason}");
        }
    }
    o
}

pub fn sections(st: &LinkState) -> String {
    let mut o = String::new();
    if st.sections.len() <= 1 {
        return "no output sections yet\n".into();
    }
    let _ = writeln!(
        o,
        "{:>4} {:<32} {:<18} {:<5} {:>8} {:>5} {:>6}  class",
        "idx", "name", "type", "flags", "size", "align", "pieces"
    );
    for (i, sec) in st.sections.iter().enumerate().skip(1) {
        let _ = writeln!(
            o,
            "{:>4} {:<32} {:<18} {:<5} {:#8x} {:>5} {:>6}  {:?}{}",
            i,
            sec.name,
            sh_type_name(sec.sh_type),
            flags_text(sec.flags),
            sec.size,
            sec.align,
            sec.contributions.len(),
            sec.class,
            if sec.removed { " removed" } else { "" }
        );
    }
    for t in &st.tables {
        let _ = writeln!(
            o,
            "     {:<32} {:<18} {:<5} {:#8x} {:>5}  (table built whole)",
            t.name,
            sh_type_name(t.sh_type),
            flags_text(t.flags),
            t.data.len(),
            t.align
        );
    }
    o
}

pub fn symbols(st: &LinkState, pattern: Option<&str>) -> String {
    let found = find_symbols(st, pattern);
    if found.is_empty() {
        return match pattern {
            Some(p) => format!("no symbol matches `{p}`\n"),
            None => "no output symbols yet\n".into(),
        };
    }
    let mut o = format!(
        "{:>5} {:<6} {:<7} {:<24} {:>8} {:>7} {:<14} {}\n",
        "idx", "bind", "type", "section", "value", "size", "input", "name"
    );
    for (i, sym) in found {
        o.push_str(&symbol_line(st, i, sym));
        o.push('\n');
    }
    o
}

/// The mapping arrays of one input (or all), with the input's own names.
pub fn maps(st: &LinkState, which: Option<&str>) -> Result<String, String> {
    let chosen: Vec<usize> = match which {
        None => (0..st.maps.len()).collect(),
        Some(w) => {
            let n = w.trim_start_matches('#');
            match n.parse::<usize>() {
                Ok(i) => vec![i],
                Err(_) => st
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| names::input_matches(w, &r.name))
                    .map(|(i, _)| i)
                    .collect(),
            }
        }
    };
    if chosen.is_empty() {
        return Err(match which {
            Some(w) => format!("no input `{w}` (see `info inputs`)"),
            None => "no input merged yet".into(),
        });
    }
    let mut o = String::new();
    for i in chosen {
        let Some(m) = st.maps.get(i).filter(|m| !m.map_symbol_index.is_empty()) else {
            let _ = writeln!(o, "input #{i}: not merged yet");
            continue;
        };
        let rec = &st.inputs[i];
        let cubin = crate::cubin::read::parse(&rec.data).ok();
        let _ = writeln!(o, "input #{i} {}:", rec.name);
        o.push_str("  map_symbol_index (input symbol -> output symbol), weak_processed:\n");
        for (k, out) in m.map_symbol_index.iter().enumerate() {
            let name = cubin
                .as_ref()
                .and_then(|c| c.symbols.get(k))
                .map(|s| s.name.clone())
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    [{k:>3}] {:<32} -> {:>5}{}",
                if name.is_empty() {
                    "(unnamed)".into()
                } else {
                    names::shown(&name)
                },
                out,
                if m.weak_processed.get(k).copied().unwrap_or(false) {
                    "  weak_processed"
                } else {
                    ""
                }
            );
        }
        o.push_str("  map_section_index / map_section_offset (input section -> output section at offset):\n");
        for (k, out) in m.map_section_index.iter().enumerate() {
            if *out == 0 {
                continue;
            }
            let name = cubin
                .as_ref()
                .and_then(|c| c.sections.get(k))
                .map(|s| s.name.clone())
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    [{k:>3}] {name:<32} -> [{out}] {} + {:#x}",
                st.sections.get(*out as usize).map(|s| s.name.as_str()).unwrap_or("?"),
                m.map_section_offset.get(k).copied().unwrap_or(0)
            );
        }
    }
    Ok(o)
}

fn candidate(c: &WeakCandidate, name: &str) -> String {
    format!(
        "{} {} in {} (input #{}): {} registers, virtual {}, size {:#x}",
        binding_name(c.binding).to_ascii_lowercase(),
        names::shown(name),
        c.input_name,
        c.input,
        opt(c.regcount),
        c.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or_else(|| "?".into()),
        c.size
    )
}

/// A weak decision, both candidates on their own lines.
pub fn weak_decision(e: &Event) -> Option<String> {
    let Event::WeakDecision {
        name,
        out,
        existing,
        incoming,
        rule,
        incoming_wins,
    } = e
    else {
        return None;
    };
    Some(format!(
        "weak decision for {} (output symbol {out}):\n  existing: {}\n  incoming: {}\n  rule: {:?}: {}\n  winner: {}\n",
        names::shown(name),
        candidate(existing, name),
        candidate(incoming, name),
        rule,
        rule.describe(),
        if *incoming_wins {
            format!("incoming ({})", incoming.input_name)
        } else {
            format!("existing ({})", existing.input_name)
        }
    ))
}

pub fn weak(s: &Session) -> String {
    let mut o = String::new();
    for (k, e) in s.events().iter().enumerate() {
        if let Some(t) = weak_decision(e) {
            let _ = write!(o, "#{k} {t}");
        }
    }
    if o.is_empty() {
        o.push_str("no weak decisions so far\n");
    }
    o
}

fn reloc_line(st: &LinkState, i: usize, r: &OutReloc) -> String {
    format!(
        "#{i:<4} {}+{:#x} {:<24} {} {:+#x} (input {}){}",
        st.sections.get(r.section).map(|s| s.name.as_str()).unwrap_or("?"),
        r.offset,
        reloc_type_name(r.rtype),
        names::shown(&st.symbol_name(r.sym)),
        r.addend,
        st.input_name(r.input),
        if r.live { "" } else { " (nullified)" }
    )
}

pub fn relocs(st: &LinkState, section: Option<&str>) -> Result<String, String> {
    let want = match section {
        Some(w) => Some(find_section(st, w).ok_or_else(|| format!("no section `{w}`"))?),
        None => None,
    };
    let mut o = String::new();
    for (i, r) in st.relocs.iter().enumerate() {
        if want.is_none_or(|w| w == r.section) {
            o.push_str(&reloc_line(st, i, r));
            o.push('\n');
        }
    }
    if o.is_empty() {
        o.push_str("no relocations\n");
    }
    Ok(o)
}

/// `info uft|udt|bindless`: the sections, symbols and layout decisions of
/// one table, or "none in this link".
pub fn table(s: &Session, which: &str) -> String {
    let st = s.state();
    let (sec_prefix, sym_prefix) = match which {
        "uft" => (".nv.uft", "__UFT"),
        "udt" => (".nv.udt", "__UDT"),
        _ => (".nv.bindless", "\u{0}"),
    };
    let mut o = String::new();
    for (i, sec) in st.sections.iter().enumerate() {
        if sec.name.starts_with(sec_prefix) {
            let _ = writeln!(o, "section [{i}] {} size {:#x}", sec.name, sec.size);
        }
    }
    for t in &st.tables {
        if t.name.starts_with(sec_prefix) {
            let _ = writeln!(o, "table {} ({:#x} bytes)", t.name, t.data.len());
        }
    }
    for (i, sym) in st.all_symbols() {
        if sym.name.starts_with(sym_prefix) {
            let _ = writeln!(o, "{}", symbol_line(st, i, sym));
        }
    }
    for (k, e) in s.events().iter().enumerate() {
        if matches!(e, Event::Layout(_) | Event::Reloc(_) | Event::Finalize(_)) {
            let (_, kind) = class::tag_and_kind(e);
            let text = e.to_string();
            if kind.is_some_and(|k| k.contains(which)) || text.to_ascii_lowercase().contains(which) {
                let _ = writeln!(o, "#{k} {text}");
            }
        }
    }
    if o.is_empty() {
        o = format!("{}: none in this link (so far)\n", which.to_ascii_uppercase());
    }
    o
}

pub fn callgraph(st: &LinkState) -> String {
    let mut o = String::new();
    let name = |i: u32| names::shown(&st.symbol_name(SymIdx(i as i32)));
    for e in &st.callgraph {
        let line = e.record.describe(&name, &|p| format!("strtab+{p:#x}"));
        let _ = writeln!(
            o,
            "{line}   (from {}{})",
            st.input_name(e.input),
            if e.live { "" } else { ", dead" }
        );
    }
    if o.is_empty() {
        o.push_str("no call-graph records yet\n");
    }
    o
}

pub fn layout(s: &Session) -> String {
    let st = s.state();
    let mut o = String::new();
    for (i, sec) in st.sections.iter().enumerate().skip(1) {
        let _ = writeln!(
            o,
            "[{i}] {} size {:#x} align {}{}",
            sec.name,
            sec.size,
            sec.align,
            if sec.removed { " removed" } else { "" }
        );
        for c in &sec.contributions {
            let _ = writeln!(
                o,
                "      +{:#06x} {:#6x} bytes from {} section [{}]{}",
                c.offset,
                c.size,
                st.input_name(c.input),
                c.in_section,
                if c.live { "" } else { " (dead)" }
            );
        }
    }
    let placed: Vec<String> = s
        .events()
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Layout(_)))
        .map(|(k, e)| format!("#{k} {e}"))
        .collect();
    if placed.is_empty() {
        o.push_str("layout decisions: none so far\n");
    } else {
        o.push_str("layout decisions:\n");
        for p in placed {
            let _ = writeln!(o, "  {p}");
        }
    }
    o
}

/// One event as the debugger prints it: `#k [phase] text`.
pub fn event_line(s: &Session, k: usize, e: &Event) -> String {
    format!("#{k} [{}] {e}", s.phase_of(k).map(|p| p.name()).unwrap_or("-"))
}

/// `info events [N|all|FROM-TO]`.
pub fn events(s: &Session, arg: Option<&str>) -> Result<String, String> {
    let evs = s.events();
    let (from, to) = match arg {
        None => (evs.len().saturating_sub(20), evs.len()),
        Some("all") => (0, evs.len()),
        Some(a) => match a.split_once('-') {
            Some((f, t)) => {
                let f: usize = f.parse().map_err(|_| format!("`{a}` is not FROM-TO"))?;
                let t: usize = t.parse().map_err(|_| format!("`{a}` is not FROM-TO"))?;
                (f.min(evs.len()), (t + 1).min(evs.len()))
            }
            None => {
                let n: usize = a
                    .parse()
                    .map_err(|_| format!("`{a}` is not a count, `all` or FROM-TO"))?;
                (evs.len().saturating_sub(n), evs.len())
            }
        },
    };
    let mut o = String::new();
    for (k, e) in evs.iter().enumerate().take(to).skip(from) {
        let mark = if k + 1 == s.position() { "=>" } else { "  " };
        let _ = writeln!(o, "{mark} {}", event_line(s, k, e));
    }
    let _ = writeln!(
        o,
        "{} event(s) so far{}; {} checkpoint(s)",
        evs.len(),
        if s.at_end() { ", link finished" } else { "" },
        s.checkpoint_count()
    );
    Ok(o)
}

pub fn breakpoints(s: &Session) -> String {
    if s.breakpoints().is_empty() {
        return "no breakpoints or watchpoints\n".into();
    }
    let mut o = "Num  Enb  Hits  What\n".to_string();
    for b in s.breakpoints() {
        let _ = writeln!(
            o,
            "{:<4} {:<4} {:<5} {}{}",
            b.id,
            if b.enabled { "y" } else { "n" },
            b.hits,
            b.kind.describe(),
            b.cond.as_ref().map(|c| format!(" if {}", c.text)).unwrap_or_default()
        );
    }
    o
}

// ---- print

pub fn print_symbol(st: &LinkState, pattern: &str) -> Result<String, String> {
    let found = find_symbols(st, Some(pattern));
    if found.is_empty() {
        return Err(format!("no symbol `{pattern}` in the link so far"));
    }
    let mut o = String::new();
    for (i, sym) in found {
        let _ = writeln!(o, "symbol {} {}", i.0, names::shown(&sym.name));
        let _ = writeln!(
            o,
            "  binding {}  type {}  st_other {:#x}",
            binding_name(sym.binding),
            type_name(sym.sym_type),
            sym.other
        );
        let place = match sym.place {
            Place::Common { align } => format!("COMMON (align {align})"),
            p => st.place_name(p),
        };
        let _ = writeln!(o, "  section {place}  value {:#x}  size {:#x}", sym.value, sym.size);
        let _ = writeln!(
            o,
            "  from input #{} {}  registers {}{}",
            sym.input,
            st.input_name(sym.input),
            opt(sym.regcount),
            if sym.removed { "  (removed from the output)" } else { "" }
        );
        let refs = st.relocs.iter().filter(|r| r.sym == i).count();
        if refs > 0 {
            let _ = writeln!(o, "  {refs} relocation(s) against it");
        }
    }
    Ok(o)
}

pub fn print_section(st: &LinkState, what: &str) -> Result<String, String> {
    let i = find_section(st, what).ok_or_else(|| format!("no section `{what}` in the link so far"))?;
    let sec: &OutSection = &st.sections[i];
    let mut o = String::new();
    let _ = writeln!(o, "section [{i}] {}", sec.name);
    let _ = writeln!(
        o,
        "  type {}  flags {} ({:#x})  align {}  entsize {}  size {:#x}{}",
        sh_type_name(sec.sh_type),
        flags_text(sec.flags),
        sec.flags,
        sec.align,
        sec.entsize,
        sec.size,
        if sec.nobits { " (no bits)" } else { "" }
    );
    let _ = writeln!(
        o,
        "  class {:?}{}{}",
        sec.class,
        sec.owner
            .map(|s| format!("  owner {}", names::shown(&st.symbol_name(s))))
            .unwrap_or_default(),
        if sec.removed { "  (removed from the output)" } else { "" }
    );
    for c in &sec.contributions {
        let _ = writeln!(
            o,
            "  +{:#06x} {:#6x} bytes from input #{} {} section [{}]{}",
            c.offset,
            c.size,
            c.input,
            st.input_name(c.input),
            c.in_section,
            if c.live { "" } else { " (dead)" }
        );
    }
    let n = st.relocs.iter().filter(|r| r.section == i).count();
    let _ = writeln!(o, "  {n} relocation(s) patch it");
    Ok(o)
}

/// A relocation by `#N` (index in `info relocs`) or `SECTION+OFFSET`.
pub fn find_reloc(st: &LinkState, what: &str) -> Result<Vec<usize>, String> {
    if let Some(n) = what.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
        return if n < st.relocs.len() {
            Ok(vec![n])
        } else {
            Err(format!("no relocation #{n} ({} so far)", st.relocs.len()))
        };
    }
    if let Ok(n) = what.parse::<usize>() {
        return find_reloc(st, &format!("#{n}"));
    }
    let (sec, off) = section_offset(st, what)?;
    let found: Vec<usize> = st
        .relocs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.section == sec && r.offset == off)
        .map(|(i, _)| i)
        .collect();
    if found.is_empty() {
        Err(format!("no relocation at {what}"))
    } else {
        Ok(found)
    }
}

pub fn print_reloc(st: &LinkState, what: &str) -> Result<String, String> {
    let mut o = String::new();
    for i in find_reloc(st, what)? {
        let r = &st.relocs[i];
        o.push_str(&reloc_line(st, i, r));
        o.push('\n');
        let _ = writeln!(o, "  {}, symbol index {}", if r.rela { "RELA" } else { "REL" }, r.sym.0);
    }
    Ok(o)
}

/// `SECTION+OFFSET` (or `SECTION`, offset 0) to (section index, offset).
pub fn section_offset(st: &LinkState, what: &str) -> Result<(usize, u64), String> {
    let (name, off) = match what.rsplit_once('+') {
        Some((n, o)) => (
            n,
            breakpoint::parse_u64(o).ok_or_else(|| format!("`{o}` is not an offset (decimal or 0x…)"))?,
        ),
        None => (what, 0),
    };
    let sec = find_section(st, name).ok_or_else(|| format!("no section `{name}` in the link so far"))?;
    Ok((sec, off))
}

/// The relocation descriptor's actions for a type, as the relocation
/// engine publishes them (read through serde: `{kind, bit, width}` each).
fn descriptor(st: &LinkState, r: &OutReloc) -> Option<Value> {
    let sm = st.inputs.get(r.input).map(|i| i.sm).unwrap_or(0);
    let d = crate::link::reloc::descriptors::cuda(r.rtype, sm)?;
    serde_json::to_value(d).ok()
}

/// Bytes a relocation patches from its offset: the end of its descriptor's
/// last field, else what the type's name tells (data relocations name
/// their width; instruction relocations patch a field of the 8-byte word).
fn field_width(st: &LinkState, r: &OutReloc) -> u64 {
    let end_bit = descriptor(st, r)
        .and_then(|d| {
            d.get("actions")?
                .as_array()?
                .iter()
                .filter_map(|a| Some(a.get("bit")?.as_u64()? + a.get("width")?.as_u64()?))
                .max()
        })
        .unwrap_or(0);
    if end_bit > 0 {
        return end_bit.div_ceil(8);
    }
    let n = reloc_type_name(r.rtype);
    if n == "R_CUDA_32" || n.ends_with("_32") && !n.contains("ABS") || n.contains("G32") {
        4
    } else {
        8
    }
}

/// `x SECTION+OFFSET [LEN]`: a hex view; bytes that relocations patch are
/// marked with `^` under them and listed after the row.
pub fn examine(st: &LinkState, what: &str, len: Option<u64>) -> Result<String, String> {
    let (si, off) = section_offset(st, what)?;
    let sec = &st.sections[si];
    if sec.nobits || sec.data.is_empty() {
        return Ok(format!(
            "{} holds no bytes ({}size {:#x})\n",
            sec.name,
            if sec.nobits { "NOBITS, " } else { "" },
            sec.size
        ));
    }
    let total = sec.data.len() as u64;
    if off >= total {
        return Err(format!(
            "offset {off:#x} is past the end of {} ({total:#x} bytes)",
            sec.name
        ));
    }
    let end = off.saturating_add(len.unwrap_or(64)).min(total);
    let relocs: Vec<(usize, &OutReloc)> = st.relocs.iter().enumerate().filter(|(_, r)| r.section == si).collect();
    let mut o = format!("{} [{si}] {off:#x}..{end:#x} of {total:#x}\n", sec.name);
    let mut row = off - off % 16;
    while row < end {
        let mut hex = String::new();
        let mut marks = String::new();
        for b in row..row + 16 {
            if b == row + 8 {
                hex.push(' ');
                marks.push(' ');
            }
            if b < off || b >= end {
                hex.push_str("   ");
                marks.push_str("   ");
                continue;
            }
            let _ = write!(hex, " {:02x}", sec.data[b as usize]);
            let covered = relocs
                .iter()
                .any(|(_, r)| b >= r.offset && b < r.offset + field_width(st, r) && r.live);
            marks.push_str(if covered { " ^^" } else { "   " });
        }
        let _ = writeln!(o, "{row:08x}:{hex}");
        if marks.contains('^') {
            let _ = writeln!(o, "         {}", marks.trim_end());
            for (i, r) in &relocs {
                if r.offset >= row && r.offset < row + 16 && r.offset < end {
                    let _ = writeln!(o, "          ^ {}", reloc_line(st, *i, r));
                }
            }
        }
        row += 16;
    }
    Ok(o)
}

// ---- why / explain

/// `why SYMBOL`: the chain of events that decided the symbol, up to the clock.
pub fn why(s: &Session, pattern: &str) -> Result<String, String> {
    let st = s.state();
    let evs = s.events();
    let mut chain: Vec<String> = Vec::new();
    let mut name_seen: Option<String> = None;
    for (k, e) in evs.iter().enumerate() {
        let mentioned = class::symbol_names(e);
        let Some(name) = mentioned.iter().find(|n| names::symbol_matches(pattern, n)) else {
            continue;
        };
        name_seen.get_or_insert_with(|| name.clone());
        let line = match e {
            Event::SymbolMapped {
                input, resolution, out, ..
            } => {
                use crate::link::event::Resolution as R;
                let inp = format!("{} (input #{input}{})", st.input_name(*input), origin_note(st, *input));
                let what = match resolution {
                    R::New => {
                        let defined = st.symbol(*out).is_some_and(|_| defines(s, *input, e));
                        if defined {
                            format!("{inp} defines it first (new output symbol {out})")
                        } else {
                            format!("{inp} references it first (new output symbol {out})")
                        }
                    }
                    R::DefinesUndefined => format!("{inp} defines it (it was undefined until then)"),
                    R::Reference => format!("{inp} references it"),
                    R::ReplacesCommon => format!("{inp} defines it over a common symbol"),
                    R::CommonIntoDefinition => format!("{inp} has it as common; the existing definition stays"),
                    R::CommonMerged => format!("{inp} has it as common too; the larger size is kept"),
                    R::Weak => format!("{inp}: mapped after the weak decision"),
                    R::Local => format!("{inp} has a local of this name (output symbol {out})"),
                };
                format!("#{k} {what}")
            }
            Event::WeakDecision { .. } => {
                let t = weak_decision(e).unwrap_or_default();
                format!("#{k} {}", t.trim_end().replace('\n', "\n     "))
            }
            Event::Undefined {
                referenced_by,
                reported,
                ..
            } => format!(
                "#{k} still undefined after the merge; referenced by {referenced_by}{}",
                if *reported {
                    ": reported as an error"
                } else {
                    ": left for the driver (not an error)"
                }
            ),
            Event::Diagnostic(d) => format!("#{k} diagnostic: {}", d.line()),
            other => format!("#{k} {other}"),
        };
        chain.push(line);
    }
    let mut o = String::new();
    let found = find_symbols(st, Some(pattern));
    if chain.is_empty() && found.is_empty() {
        let later = s.known_events()[evs.len()..]
            .iter()
            .any(|e| class::symbol_names(e).iter().any(|n| names::symbol_matches(pattern, n)));
        return Err(if later {
            format!("nothing has happened to `{pattern}` yet (it is met later: `continue` or `break symbol {pattern}`)")
        } else {
            format!("no symbol `{pattern}` in the link so far")
        });
    }
    let title = name_seen
        .or_else(|| found.first().map(|(_, s)| s.name.to_string()))
        .unwrap_or_else(|| pattern.to_string());
    let _ = writeln!(
        o,
        "why {} (as of event #{}):",
        names::shown(&title),
        s.position().saturating_sub(1)
    );
    for c in chain {
        let _ = writeln!(o, "  {c}");
    }
    for (i, sym) in found {
        let verdict = if sym.removed {
            "removed from the output".to_string()
        } else if !sym.is_defined() {
            format!("undefined; first referenced by {}", st.input_name(sym.input))
        } else {
            format!(
                "defined by {}{} in {} at {:#x}",
                st.input_name(sym.input),
                origin_note(st, sym.input),
                st.place_name(sym.place),
                sym.value
            )
        };
        let _ = writeln!(o, "  now: symbol {} is {verdict}", i.0);
        if !sym.is_defined() {
            let mut by: Vec<&str> = st
                .relocs
                .iter()
                .filter(|r| r.sym == i)
                .map(|r| st.input_name(r.input))
                .collect();
            by.sort();
            by.dedup();
            if !by.is_empty() {
                let _ = writeln!(o, "  relocations against it come from: {}", by.join(", "));
            }
        }
    }
    Ok(o)
}

/// True when the input's own symbol behind a SymbolMapped event is a definition.
fn defines(s: &Session, input: usize, e: &Event) -> bool {
    let Event::SymbolMapped { in_symbol, .. } = e else {
        return false;
    };
    let Some(rec) = s.state().inputs.get(input) else {
        return false;
    };
    crate::cubin::read::parse(&rec.data)
        .ok()
        .and_then(|c| c.symbols.get(*in_symbol).map(|sym| sym.shndx != SHN_UNDEF))
        .unwrap_or(false)
}

/// ", member m.o of libx.a" and the like, when the input was not a plain file.
fn origin_note(st: &LinkState, input: usize) -> String {
    match st.inputs.get(input) {
        Some(r) if r.origin != r.name && !r.origin.is_empty() && !r.origin.starts_with("file") => {
            format!(", {}", r.origin)
        }
        _ => String::new(),
    }
}

/// `explain RELOC`: the relocation's record, S and A, and every event about it.
pub fn explain(s: &Session, what: &str) -> Result<String, String> {
    let st = s.state();
    let mut o = String::new();
    for i in find_reloc(st, what)? {
        let r = &st.relocs[i];
        let sec_name = st.sections.get(r.section).map(|x| x.name.clone()).unwrap_or_default();
        let _ = writeln!(o, "relocation {}", reloc_line(st, i, r));
        let sym = st.symbol(r.sym);
        let s_val = match sym {
            Some(sym) if sym.is_defined() => format!(
                "{:#x} ({} {} + {:#x})",
                sym.value,
                names::shown(&sym.name),
                st.place_name(sym.place),
                sym.value
            ),
            Some(sym) => format!("unknown: {} is undefined", names::shown(&sym.name)),
            None => "0 (no symbol)".into(),
        };
        let _ = writeln!(o, "  S = {s_val}");
        let _ = writeln!(o, "  A = {:#x}", r.addend);
        if let Some(d) = descriptor(st, r) {
            let actions: Vec<String> = d
                .get("actions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|a| {
                    let bit = a.get("bit").and_then(Value::as_u64).unwrap_or(0);
                    let width = a.get("width").and_then(Value::as_u64).unwrap_or(0);
                    format!("{} -> bits [{bit}, {})", action_kind(a.get("kind")), bit + width)
                })
                .collect();
            let source = d.get("source").and_then(Value::as_str).unwrap_or("?");
            if actions.is_empty() {
                let _ = writeln!(
                    o,
                    "  descriptor: no actions (layout {source}): culdb never patches this type"
                );
            } else {
                let _ = writeln!(o, "  descriptor (layout {source}): {}", actions.join("; "));
            }
        }
        let width = field_width(st, r) as usize;
        if let Some(sec) = st.sections.get(r.section) {
            let at = r.offset as usize;
            if let Some(bytes) = sec.data.get(at..at + width) {
                let _ = writeln!(o, "  bytes now at +{:#x}: {}", r.offset, hex_bytes(bytes));
            }
        }
        let mut applied = false;
        for (k, e) in s.events().iter().enumerate() {
            let hit = match e {
                Event::RelocMapped {
                    out_section, offset, ..
                } => *out_section == r.section && *offset == r.offset,
                Event::Reloc(_) => {
                    let v = class::json(e);
                    if let Some(idx) = v.get("index").and_then(Value::as_u64) {
                        idx == i as u64
                    } else {
                        let sec_ok = match v.get("section") {
                            Some(Value::String(n)) => *n == sec_name,
                            Some(Value::Number(n)) => n.as_u64() == Some(r.section as u64),
                            _ => false,
                        };
                        sec_ok && v.get("offset").and_then(Value::as_u64) == Some(r.offset)
                    }
                }
                _ => false,
            };
            if !hit {
                continue;
            }
            let _ = writeln!(o, "  #{k} {e}");
            if let Event::Reloc(_) = e {
                applied = true;
                for (key, val) in class::json(e).as_object().into_iter().flatten() {
                    if matches!(
                        key.as_str(),
                        "event" | "kind" | "section" | "offset" | "rtype" | "symbol" | "index"
                    ) {
                        continue;
                    }
                    match (key.as_str(), val) {
                        (_, Value::Null) => {}
                        ("fields", Value::Array(fields)) => {
                            for f in fields {
                                let g = |n: &str| f.get(n).and_then(Value::as_u64).unwrap_or(0);
                                let _ = writeln!(
                                    o,
                                    "       field bits [{}, {}): before {:#x}, after {:#x}",
                                    g("bit"),
                                    g("bit") + g("width"),
                                    g("before"),
                                    g("after")
                                );
                            }
                        }
                        ("s", v) => {
                            let _ = writeln!(o, "       S = {}", show_value(v));
                        }
                        ("a", v) => {
                            let _ = writeln!(o, "       A = {}", show_value(v));
                        }
                        _ => {
                            let _ = writeln!(o, "       {key}: {}", show_value(val));
                        }
                    }
                }
            }
        }
        if !applied {
            let _ = writeln!(
                o,
                "  the relocation phase has not handled it yet{}",
                if s.at_end() {
                    " (and recorded no application: its descriptor actions and the bits before and after are not in culdb's events)"
                } else {
                    " (run to it: `break reloc section=... offset=...`, `continue`)"
                }
            );
        }
    }
    Ok(o)
}

/// A descriptor action's kind (`{"Value": 32}`, `"Clear"`, …) for a person.
fn action_kind(k: Option<&Value>) -> String {
    match k {
        Some(Value::String(s)) if s == "Clear" => "zero".into(),
        Some(Value::String(s)) if s == "SecTypeLo" => "section type code (low bits)".into(),
        Some(Value::String(s)) if s == "SecTypeHi" => "section type code >> 4".into(),
        Some(Value::String(s)) if s == "PcRel" => "S + A - P".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(m)) => match m.get("Value").and_then(Value::as_u64) {
            Some(0) => "S + A".into(),
            Some(sh) => format!("(S + A) >> {sh}"),
            None => Value::Object(m.clone()).to_string(),
        },
        Some(v) => v.to_string(),
        None => "?".into(),
    }
}

fn show_value(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(u) if u > 9 => format!("{u:#x}"),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(show_value).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}
