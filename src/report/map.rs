//! The link map (`culdb link -Map FILE`), modelled on lld's: every output
//! section with its address, file offset, size and alignment and the CUDA
//! memory space it holds; under it each input's contribution (file, archive
//! member, input section, offset, size) and the symbols in it; then what
//! the link left out and why. Section rows come from the written file's
//! section headers ([`super::elf`]), so they match it by construction.

use std::collections::HashMap;

use serde::Serialize;

use crate::cubin::consts::{STT_FUNC, STT_SECTION};
use crate::link::dce::DceEvent;
use crate::link::event::Event;
use crate::link::state::LinkState;

use super::elf::{self, Shdr};
use super::run::{LinkRun, archive_member};

/// A symbol in the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MapSymbol {
    pub name: String,
    pub demangled: Option<String>,
    pub vma: u64,
    /// File offset (the section's for NOBITS kinds).
    pub offset: u64,
    /// Offset in the output section (st_value).
    pub value: u64,
    pub size: u64,
}

/// One input's piece of an output section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MapInput {
    /// The input as nvlink names it (`a.cubin`, `libx.a:m.o`).
    pub input: String,
    pub archive: Option<String>,
    pub member: Option<String>,
    /// The input's section it came from.
    pub in_section: String,
    pub vma: u64,
    pub offset: u64,
    /// Offset in the output section.
    pub section_offset: u64,
    pub size: u64,
    pub symbols: Vec<MapSymbol>,
}

/// One output section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MapSection {
    pub index: usize,
    pub name: String,
    pub sh_type: String,
    pub vma: u64,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// The CUDA memory space (global, shared of a kernel, a constant bank,
    /// local, code); empty for metadata.
    pub space: String,
    /// False for sections the linker builds whole (tables, notes).
    pub from_inputs: bool,
    pub inputs: Vec<MapInput>,
    /// Symbols of the section outside any input's piece.
    pub symbols: Vec<MapSymbol>,
}

/// Something the link left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Discarded {
    /// `function`, `symbol`, `section`, `input section`, `input` or `weak copy`.
    pub what: String,
    pub name: String,
    pub demangled: Option<String>,
    pub input: Option<String>,
    pub reason: String,
}

/// The whole map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkMap {
    pub output: Option<String>,
    pub file_size: u64,
    pub sections: Vec<MapSection>,
    pub discarded: Vec<Discarded>,
}

/// Section names of each input, parsed once.
struct InputSections<'a> {
    st: &'a LinkState,
    cache: HashMap<usize, Vec<String>>,
}

impl InputSections<'_> {
    fn name(&mut self, input: usize, sec: usize) -> String {
        let st = self.st;
        let names = self.cache.entry(input).or_insert_with(|| {
            st.inputs
                .get(input)
                .and_then(|r| crate::cubin::read::parse(&r.data).ok())
                .map(|c| c.sections.iter().map(|s| s.name.clone()).collect())
                .unwrap_or_default()
        });
        names.get(sec).cloned().unwrap_or_else(|| format!("section {sec}"))
    }
}

fn symbol(s: &crate::cubin::model::Symbol, sh: &Shdr) -> MapSymbol {
    let nobits = sh.file_size() == 0;
    MapSymbol {
        name: s.name.clone(),
        demangled: crate::demangle::demangle(&s.name),
        vma: sh.addr.wrapping_add(s.value),
        offset: if nobits {
            sh.offset
        } else {
            sh.offset.wrapping_add(s.value)
        },
        value: s.value,
        size: s.size,
    }
}

/// The map of `run`'s output, `data` (the bytes written).
pub fn build(run: &LinkRun, data: &[u8], output: Option<&str>) -> Result<LinkMap, String> {
    let lay = elf::layout(data)?;
    let cubin = crate::cubin::read::parse(data).ok();
    let st = &run.state;
    let mut names = InputSections {
        st,
        cache: HashMap::new(),
    };
    let mut sections = Vec::new();
    for sh in lay.sections.iter().skip(1) {
        let nobits = sh.file_size() == 0;
        let mut syms: Vec<MapSymbol> = cubin
            .as_ref()
            .map(|c| {
                c.symbols
                    .iter()
                    .filter(|s| s.shndx as usize == sh.index && s.sym_type != STT_SECTION && !s.name.is_empty())
                    .map(|s| symbol(s, sh))
                    .collect()
            })
            .unwrap_or_default();
        syms.sort_by_key(|s| (s.value, s.name.clone()));
        let mut inputs = Vec::new();
        let state_sec = st.section_named(&sh.name).filter(|&k| !st.sections[k].removed);
        if let Some(k) = state_sec {
            // Pieces an edit after the merge shrank (dead `.debug_frame`
            // entries dropped) are clipped to the section as written.
            for c in st.sections[k]
                .contributions
                .iter()
                .filter(|c| c.live && c.offset <= sh.size)
            {
                let c = crate::link::state::Contribution {
                    size: c.size.min(sh.size - c.offset),
                    ..c.clone()
                };
                let rec = st.inputs.get(c.input);
                let name = rec.map(|r| r.name.clone()).unwrap_or_else(|| "?".into());
                let am = rec.and_then(|r| archive_member(&r.name, &r.origin));
                let end = c.offset.saturating_add(c.size);
                let (mine, rest): (Vec<MapSymbol>, Vec<MapSymbol>) = syms
                    .into_iter()
                    .partition(|s| s.value >= c.offset && (s.value < end || (s.value == c.offset && c.size == 0)));
                syms = rest;
                inputs.push(MapInput {
                    input: name,
                    archive: am.as_ref().map(|x| x.0.clone()),
                    member: am.map(|x| x.1),
                    in_section: names.name(c.input, c.in_section),
                    vma: sh.addr.wrapping_add(c.offset),
                    offset: if nobits {
                        sh.offset
                    } else {
                        sh.offset.wrapping_add(c.offset)
                    },
                    section_offset: c.offset,
                    size: c.size,
                    symbols: mine,
                });
            }
        }
        sections.push(MapSection {
            index: sh.index,
            name: sh.name.clone(),
            sh_type: crate::cubin::consts::section_type_name(sh.sh_type)
                .map_or_else(|| format!("{:#x}", sh.sh_type), str::to_string),
            vma: sh.addr,
            offset: sh.offset,
            size: sh.size,
            align: sh.align,
            space: super::labels::space(&sh.name),
            from_inputs: state_sec.is_some(),
            inputs,
            symbols: syms,
        });
    }
    Ok(LinkMap {
        output: output.map(str::to_string),
        file_size: lay.file_size,
        sections,
        discarded: discarded(run),
    })
}

/// What the link left out, and why.
pub fn discarded(run: &LinkRun) -> Vec<Discarded> {
    let st = &run.state;
    let mut out = Vec::new();
    let mut reasons: HashMap<String, String> = HashMap::new();
    let item = |what: &str, name: &str, input: Option<String>, reason: String| Discarded {
        what: what.into(),
        name: name.to_string(),
        demangled: crate::demangle::demangle(name),
        input,
        reason,
    };
    for e in &run.events {
        match e {
            Event::InputSkipped { path, reason } => out.push(item("input", path, None, reason.clone())),
            Event::SectionSkipped {
                input, name, reason, ..
            } => out.push(item(
                "input section",
                name,
                Some(st.input_name(*input).to_string()),
                reason.clone(),
            )),
            Event::Dce(DceEvent::Removed { name, reason }) => {
                let sym = st.lookup(name).and_then(|i| st.symbol(i));
                let what = if sym.is_some_and(|s| s.sym_type == STT_FUNC) {
                    "function"
                } else {
                    "symbol"
                };
                let input = sym.map(|s| st.input_name(s.input).to_string());
                reasons.insert(name.clone(), reason.clone());
                out.push(item(what, name, input, reason.clone()));
            }
            _ => {}
        }
    }
    for s in st.sections.iter().skip(1) {
        if s.removed {
            let owner = s.owner.map(|o| st.symbol_name(o));
            let reason = match owner.as_ref().and_then(|o| reasons.get(o).map(|r| (o, r))) {
                Some((o, r)) => format!("belongs to {}, removed: {r}", crate::link::event::shown(o)),
                None => match super::labels::owner_of(&s.name).and_then(|f| reasons.get(f).map(|r| (f, r))) {
                    Some((f, r)) => format!("belongs to {}, removed: {r}", crate::link::event::shown(f)),
                    None => "left out of the output".into(),
                },
            };
            let input = s.contributions.first().map(|c| st.input_name(c.input).to_string());
            out.push(item("section", &s.name, input, reason));
        }
        for c in s.contributions.iter().filter(|c| !c.live) {
            out.push(item(
                "weak copy",
                &s.name,
                Some(st.input_name(c.input).to_string()),
                format!(
                    "{} bytes at +{:#x}: another input's definition won the weak decision",
                    c.size, c.offset
                ),
            ));
        }
    }
    out
}

fn sym_lines(o: &mut String, syms: &[MapSymbol]) {
    for s in syms {
        o.push_str(&format!(
            "{:>16x} {:>8x} {:>8x} {:>5} {:16}{}\n",
            s.vma,
            s.offset,
            s.size,
            "",
            "",
            crate::link::event::shown(&s.name)
        ));
    }
}

/// The map as text, lld's columns.
pub fn text(m: &LinkMap) -> String {
    let mut o = String::new();
    if let Some(out) = &m.output {
        o.push_str(&format!("# link map of {out} ({} bytes)\n", m.file_size));
    }
    o.push_str(&format!(
        "{:>16} {:>8} {:>8} {:>5} Out     In      Symbol\n",
        "VMA", "Offset", "Size", "Align"
    ));
    for s in &m.sections {
        let space = if s.space.is_empty() {
            String::new()
        } else {
            format!("  [{}]", s.space)
        };
        o.push_str(&format!(
            "{:>16x} {:>8x} {:>8x} {:>5} {}{space}\n",
            s.vma, s.offset, s.size, s.align, s.name
        ));
        for i in &s.inputs {
            o.push_str(&format!(
                "{:>16x} {:>8x} {:>8x} {:>5}         {}:({})\n",
                i.vma, i.offset, i.size, "", i.input, i.in_section
            ));
            sym_lines(&mut o, &i.symbols);
        }
        sym_lines(&mut o, &s.symbols);
    }
    if !m.discarded.is_empty() {
        o.push_str("\n# left out of the output\n");
        for d in &m.discarded {
            let from = d.input.as_ref().map(|i| format!(" in {i}")).unwrap_or_default();
            o.push_str(&format!(
                "{:<13} {}{from}: {}\n",
                d.what,
                crate::link::event::shown(&d.name),
                d.reason
            ));
        }
    }
    o
}
