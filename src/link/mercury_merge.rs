//! Mercury (sm_100+), the merge half: folds an input's `.nv.merc.*`
//! companion sections, relocations and nv.info records into
//! `LinkState::mercury` as `merge` folds the classic ones (see `mercury` for
//! what nvlink does with them, and for the emit half).

use foldhash::HashMap;
use std::collections::BTreeSet;

use crate::cubin::capsule::Capsule;
use crate::cubin::consts::*;
use crate::cubin::model::{Cubin, Reloc, Symbol};
use crate::cubin::nvinfo::{self};

use super::event::Event;
use super::event::mercury::MercEvent;
use super::state::mercury::*;
use super::state::{Contribution, LinkState, OutNvInfo, SymIdx};

/// What the merge of one input tells the Mercury half.
pub struct MergeView<'a> {
    pub input: usize,
    pub cubin: &'a Cubin<'a>,
    /// Classic input sections of weak definitions that were not kept.
    pub dropped: &'a BTreeSet<usize>,
    /// Classic symbols of weak data definitions that lost to a strong one
    /// (they keep their relocations, `merge`).
    pub lost_to_strong: &'a BTreeSet<usize>,
}

impl MergeView<'_> {
    /// The classic symbol index of Mercury symbol `i`.
    fn classic_of(&self, i: usize) -> Option<usize> {
        let m = self.cubin.merc_symbols.get(i)?;
        if let Some(c) = self.cubin.symbols.get(i)
            && (c.name == m.name || (c.sym_type == STT_SECTION && m.sym_type == STT_SECTION))
        {
            return Some(i);
        }
        if m.sym_type == STT_SECTION || m.name.is_empty() {
            return None;
        }
        self.cubin.symbols.iter().position(|c| c.name == m.name)
    }

    /// The output symbol of Mercury symbol `i` (through the classic mapping).
    fn translate(&self, st: &LinkState, i: u32) -> Option<SymIdx> {
        if i == 0 {
            return Some(SymIdx::NULL);
        }
        let c = self.classic_of(i as usize)?;
        let m = *st.maps.get(self.input)?.map_symbol_index.get(c)?;
        (m != 0).then_some(SymIdx(m))
    }

    /// Whether Mercury symbol `i` is a weak function definition that was not kept.
    fn is_discarded(&self, st: &LinkState, i: u32) -> bool {
        let Some(c) = self.classic_of(i as usize) else {
            return false;
        };
        st.maps[self.input].weak_processed.get(c).copied().unwrap_or(false)
            && self.cubin.symbols.get(c).is_some_and(|s| s.sym_type == STT_FUNC)
    }

    /// The byte ranges of Mercury section `target` holding weak data
    /// definitions this input lost to a weak one: their relocations go, as
    /// the classic twins' do (weak_data_inline_sm100).
    fn lost_data_ranges(&self, st: &LinkState, target: usize) -> Vec<(u64, u64)> {
        super::merge::lost_data_ranges(&self.cubin.merc_symbols, target, |i| {
            self.classic_of(i)
                .is_some_and(|c| super::merge::lost_weak_data(st, self.input, self.lost_to_strong, c))
        })
    }

    /// Whether Mercury section `j` belongs to a weak definition that was not
    /// kept: its code, or a section tied to that code through sh_info.
    fn is_dropped(&self, j: usize, depth: usize) -> bool {
        let Some(s) = self.cubin.sections.get(j) else {
            return false;
        };
        if s.sh_type == SHT_CUDA_CAPMERC_TEXT || s.name.starts_with(CAPMERC_TEXT) {
            let Some(c) = self.classic_of(s.info as usize) else {
                return false;
            };
            return self
                .cubin
                .symbols
                .get(c)
                .is_some_and(|y| self.dropped.contains(&(y.shndx as usize)));
        }
        // The Mercury twin of a losing copy's constant bank 2 stays, as the
        // bank does (`merge::drop_definition`; weak_jumptable_sm100).
        if s.name.starts_with(OPTIMIZER) {
            return false;
        }
        if let Some(classic) = s.name.strip_prefix(".nv.merc")
            && classic.starts_with(".nv.shared.reserved.")
        {
            // The Mercury copy of reserved shared memory goes with its twin.
            return self
                .cubin
                .sections
                .iter()
                .position(|t| t.name == classic && t.flags & SHF_MERCURY == 0)
                .is_some_and(|t| self.dropped.contains(&t) || super::merge::empty_reserved_shared(self.cubin, t));
        }
        depth < 4
            && (s.flags & SHF_INFO_LINK != 0 || s.is_reloc())
            && s.info as usize != j
            && self.is_dropped(s.info as usize, depth + 1)
    }
}

/// Records the input's Mercury symbol table and section pairs (merge start).
pub fn start_input(st: &mut LinkState, v: &MergeView<'_>) {
    let m = &mut st.mercury;
    if m.inputs.len() <= v.input {
        m.inputs.resize(v.input + 1, MercInput::default());
    }
    m.has_symbols |= !v.cubin.merc_symbols.is_empty();
    m.inputs[v.input] = MercInput {
        symbols: v.cubin.merc_symbols.clone(),
        section_map: vec![None; v.cubin.sections.len()],
        is_merc: v.cubin.sections.iter().map(is_mercury).collect(),
    };
    if !v.cubin.merc_symbols.is_empty() {
        let merc: foldhash::HashSet<&str> = v.cubin.merc_symbols.iter().map(|s| s.name.as_str()).collect();
        for s in &v.cubin.symbols {
            if s.sym_type != STT_SECTION
                && !s.name.is_empty()
                && !merc.contains(s.name.as_str())
                && !m.inputs.iter().any(|i| i.symbols.iter().any(|y| y.name == s.name))
            {
                m.classic_only.insert(s.name.clone());
            }
        }
        m.classic_only.retain(|n| !merc.contains(n.as_str()));
    }
    for (i, ms) in v.cubin.merc_symbols.iter().enumerate() {
        let Some(cs) = v.cubin.symbols.get(i) else { break };
        if ms.sym_type != STT_SECTION || cs.sym_type != STT_SECTION {
            continue;
        }
        let (Some(cn), Some(mn)) = (
            v.cubin.sections.get(cs.shndx as usize),
            v.cubin.sections.get(ms.shndx as usize),
        ) else {
            continue;
        };
        if !m.pairs.iter().any(|p| p.classic == cn.name) {
            m.pairs.push(SectionPair {
                classic: cn.name.clone(),
                merc: mn.name.clone(),
                sym_name: if ms.name.is_empty() {
                    mn.name.clone()
                } else {
                    ms.name.clone()
                },
            });
        }
    }
}

/// The Mercury side of a link into a Mercury target that nothing was linked
/// into (whole-program host objects: nvcc's device link of a non -rdc
/// build): nvlink writes what an input with no code would give, a
/// `.nv.merc.symtab` with the section symbols of the notes and the call
/// graph (the notes' own sections, `.nv.merc.nv.callgraph` named
/// `.nv.callgraph`) and `.nv.merc.nv.callgraph`, the copy of the classic
/// call graph (empty_link_sm100, empty_link_sm120; `-r` and `-g` alike).
pub fn nothing_linked(st: &mut LinkState) {
    let m = &mut st.mercury;
    for (classic, merc) in [
        (".note.nv.tkinfo", ".note.nv.tkinfo"),
        (".note.nv.cuinfo", ".note.nv.cuinfo"),
        (".nv.callgraph", ".nv.merc.nv.callgraph"),
    ] {
        if !m.pairs.iter().any(|p| p.classic == classic) {
            m.pairs.push(SectionPair {
                classic: classic.into(),
                merc: merc.into(),
                sym_name: classic.into(),
            });
        }
    }
    if !m.copies.iter().any(|c| c.classic == ".nv.callgraph") {
        m.copies.push(MercCopy {
            name: ".nv.merc.nv.callgraph".into(),
            classic: ".nv.callgraph".into(),
            sh_type: SHT_CUDA_MERC_CALLGRAPH,
            flags: SHF_MERCURY,
            align: 4,
            entsize: 8,
        });
    }
}

fn skipped(v: &MergeView<'_>, j: usize, reason: &str) -> Event {
    Event::Mercury(MercEvent::SectionSkipped {
        input: v.input,
        in_section: j,
        name: v.cubin.sections[j].name.clone(),
        reason: reason.into(),
    })
}

/// Merges Mercury section `j` of the input (section pass, one section per step).
pub fn merge_section(st: &mut LinkState, v: &MergeView<'_>, j: usize, ev: &mut Vec<Event>) {
    let Some(s) = v.cubin.sections.get(j) else { return };
    if v.is_dropped(j, 0) {
        ev.push(skipped(v, j, "belongs to a weak definition that was not kept"));
        return;
    }
    match s.sh_type {
        SHT_CUDA_MERC_SYMTAB => ev.push(skipped(
            v,
            j,
            "rebuilt for the output from .symtab (symbols are mapped through it)",
        )),
        SHT_CUDA_MERC_RELA => relocations(st, v, j, ev),
        SHT_CUDA_MERC_INFO if s.name != ".nv.merc.nv.info" => nvinfo(st, v, j, ev),
        SHT_CUDA_MERC_INFO | SHT_CUDA_MERC_CALLGRAPH | SHT_CUDA_MERC_PROTOTYPE => {
            if s.sh_type == SHT_CUDA_MERC_INFO {
                module_values(st, v, j);
            }
            let classic = s.name.replacen(".nv.merc", "", 1);
            if !st.mercury.copies.iter().any(|c| c.name == s.name) {
                st.mercury.copies.push(MercCopy {
                    name: s.name.clone(),
                    classic: classic.clone(),
                    sh_type: s.sh_type,
                    flags: s.flags,
                    align: s.align,
                    entsize: s.entsize,
                });
            }
            ev.push(skipped(
                v,
                j,
                &format!("written as a copy of the output's {classic}, as nvlink does"),
            ));
        }
        _ => {
            ensure_section(st, v, j, ev);
        }
    }
}

/// Records the functions' EIATTR_FRAME_SIZE and EIATTR_REGCOUNT in the
/// input's module-level `.nv.merc.nv.info` (`MercState::input_values`).
fn module_values(st: &mut LinkState, v: &MergeView<'_>, j: usize) {
    let Ok(info) = nvinfo::decode(&v.cubin.sections[j].data) else {
        return;
    };
    for e in &info.entries {
        if matches!(e.attr, nvinfo::code::FRAME_SIZE | nvinfo::code::REGCOUNT)
            && let Some(nvinfo::Block::SymValue { sym, value }) = e.block()
            && let Some(f) = v.translate(st, *sym)
            && st.symbol(f).is_some_and(|s| s.input == v.input)
        {
            // The definition kept (a weak function's winning copy).
            st.mercury.input_values.insert((e.attr, f), *value);
        }
    }
}

/// Places Mercury section `j` in the output (once); returns its output
/// Mercury section and offset.
fn ensure_section(st: &mut LinkState, v: &MergeView<'_>, j: usize, ev: &mut Vec<Event>) -> Option<(usize, u64)> {
    if let Some(Some(m)) = st.mercury.inputs.get(v.input).and_then(|i| i.section_map.get(j)) {
        return Some(*m);
    }
    let s = v.cubin.sections.get(j)?;
    let links_symtab = v
        .cubin
        .sections
        .get(s.link as usize)
        .is_some_and(|t| t.sh_type == SHT_CUDA_MERC_SYMTAB);
    let info_symbol = if s.sh_type == SHT_CUDA_CAPMERC_TEXT {
        v.translate(st, s.info)
    } else {
        None
    };
    let info_section = if s.flags & SHF_INFO_LINK != 0 && s.info != 0 {
        v.cubin.sections.get(s.info as usize).map(|t| t.name.clone())
    } else {
        None
    };
    let nobits = is_nobits(s.sh_type);
    let align = s.align.max(1);
    let m = &mut st.mercury;
    let existing = m
        .sections
        .iter()
        .position(|x| same_output_section(x, &s.name, info_symbol));
    let created = existing.is_none();
    let out = existing.unwrap_or_else(|| {
        m.sections.push(MercSection {
            name: s.name.clone(),
            sh_type: s.sh_type,
            flags: s.flags,
            align,
            entsize: s.entsize,
            data: Vec::new(),
            size: 0,
            nobits,
            contributions: Vec::new(),
            links_symtab,
            info_section,
            info_symbol,
            rela: None,
        });
        m.sections.len() - 1
    });
    let sec = &mut m.sections[out];
    // A weak function's replacement takes the place of the earlier code.
    let replaced = !created && sec.is_text();
    let offset = if sec.is_text() {
        if replaced {
            for c in &mut sec.contributions {
                c.live = false;
            }
            sec.data.clear();
            sec.size = 0;
            sec.info_symbol = info_symbol.or(sec.info_symbol);
        }
        0
    } else {
        sec.size.div_ceil(align).saturating_mul(align)
    };
    // Bad alignments must not make the merge allocate without bound.
    if !nobits && offset > sec.size.saturating_add(0x1_0000) {
        ev.push(skipped(v, j, "its alignment is out of range"));
        return None;
    }
    if !nobits {
        sec.data.resize(offset as usize, 0);
        sec.data.extend_from_slice(&s.data);
    }
    sec.size = offset.saturating_add(s.size());
    sec.align = sec.align.max(align);
    sec.flags |= s.flags;
    sec.contributions.push(Contribution {
        input: v.input,
        in_section: j,
        offset,
        size: s.size(),
        live: true,
    });
    if replaced {
        for r in m.relocs.iter_mut().filter(|r| r.section == out && r.input != v.input) {
            r.live = false;
        }
    }
    if let Some(slot) = m.inputs.get_mut(v.input).and_then(|i| i.section_map.get_mut(j)) {
        *slot = Some((out, offset));
    }
    ev.push(Event::Mercury(MercEvent::SectionMapped {
        input: v.input,
        in_section: j,
        name: s.name.clone(),
        offset,
        created,
        replaced,
    }));
    Some((out, offset))
}

/// Whether an input Mercury section named `name` (of function `function`,
/// for code) goes into output section `x`: sections merge by name, but the
/// code of two different functions of one name never does. Two inputs'
/// local helpers (ptxas's `__cuda_sm3x_div_rn_noftz_f32_slowpath`) keep
/// one `.nv.capmerc.text.<helper>` each, as their classic twins do
/// (local_helper_twice_sm100); a weak function's copies are one output
/// symbol, so its later code still replaces the earlier one.
fn same_output_section(x: &MercSection, name: &str, function: Option<SymIdx>) -> bool {
    x.name == name
        && (!x.is_text()
            || match (x.info_symbol, function) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
}

fn relocations(st: &mut LinkState, v: &MergeView<'_>, j: usize, ev: &mut Vec<Event>) {
    let s = &v.cubin.sections[j];
    let target = s.info as usize;
    let is_merc_target = v.cubin.sections.get(target).is_some_and(is_mercury);
    if !is_merc_target {
        ev.push(skipped(v, j, "patches no Mercury section"));
        return;
    }
    let Some((out, base)) = ensure_section(st, v, target, ev) else {
        ev.push(skipped(v, j, "its target section is missing"));
        return;
    };
    if st.mercury.sections[out].rela.is_none() {
        st.mercury.sections[out].rela = Some((s.name.clone(), s.flags));
    }
    // Debug records of a weak definition this input lost go, except in the
    // Mercury `.debug_info` and `.debug_loc`, which keep them against the
    // winner as the classic twins do (debug_weak_lost_lines_sm120).
    let tname = v.cubin.sections[target].name.as_str();
    let debug = tname.contains("debug") && !matches!(tname, ".nv.merc.debug_info" | ".nv.merc.debug_loc");
    let twins = capsule_twins(v, target, &s.relocs, ev);
    let lost_data = if tname.contains("debug") {
        Vec::new()
    } else {
        v.lost_data_ranges(st, target)
    };
    let (mut kept, mut dropped) = (0, 0);
    for (r, (operand, classic)) in s.relocs.iter().zip(twins) {
        if debug && v.is_discarded(st, r.sym) {
            dropped += 1;
            continue;
        }
        if lost_data.iter().any(|&(a, b)| r.offset >= a && r.offset < b) {
            dropped += 1;
            continue;
        }
        let Some(sym) = v.translate(st, r.sym) else {
            dropped += 1;
            continue;
        };
        st.mercury.relocs.push(MercReloc {
            section: out,
            offset: base.wrapping_add(r.offset),
            rtype: r.rtype,
            sym,
            addend: r.addend,
            input: v.input,
            live: true,
            operand: operand.map(|o| base.wrapping_add(o as u64)),
            classic,
            copied: false,
        });
        kept += 1;
    }
    ev.push(Event::Mercury(MercEvent::RecordsMapped {
        input: v.input,
        in_section: j,
        name: s.name.clone(),
        kept,
        dropped,
    }));
}

/// A Mercury relocation's operand field in the capsule, and its classic
/// twin (see [`capsule_twins`]).
type Twin = (Option<usize>, Option<(usize, u64)>);

/// The classic twin of each of `relocs` (the relocations of input section
/// `target`, a `.nv.capmerc.text.<fn>`: the `.text.<fn>` section and the
/// offset there), and where the capsule keeps the operand it patches.
///
/// A Mercury relocation's offset counts the driver's expanded instructions,
/// which the capsule does not record; its classic twin's offset counts the
/// classic instructions, which are the capsule's items. So each Mercury
/// relocation is paired with the classic relocation of `.text.<fn>` against
/// the same symbol name, the k-th with the k-th in offset order (corpus:
/// every sm_100/sm_120 case; the addends may differ, a function's own
/// address has different ones on the two sides; a name whose counts differ
/// on the two sides, like the Mercury-only `.nv.reservedSmem.cap`, pairs
/// nothing), and the classic offset names the item (`Capsule::items_of`:
/// the `NOP`s have none).
fn capsule_twins(v: &MergeView<'_>, target: usize, relocs: &[Reloc], ev: &mut Vec<Event>) -> Vec<Twin> {
    let mut out = vec![(None, None); relocs.len()];
    let sec = &v.cubin.sections[target];
    let Some(fname) = sec.name.strip_prefix(CAPMERC_TEXT) else {
        return out;
    };
    let capsule = match Capsule::parse(&sec.data) {
        Ok(c) => Some(c),
        Err(e) => {
            ev.push(skipped(v, target, &format!("its operands cannot be patched: {e}")));
            None
        }
    };
    let classic_text = format!(".text.{fname}");
    let Some(text) = v.cubin.sections.iter().position(|x| x.name == classic_text) else {
        return out;
    };
    // Where the items are not the code's instructions, the records cannot
    // be matched to instructions: their operands stay as the input has
    // them (ptxas's, or the finalizer's where `refinalize` took them)
    // rather than be written into the wrong record.
    let items = capsule.as_ref().and_then(|c| {
        let items = c.items_of(&v.cubin.sections[text].data);
        if items.is_none() {
            ev.push(skipped(
                v,
                target,
                "its items do not follow the code's instructions: operands left as the input has them",
            ));
        }
        items
    });
    let classic: Vec<&Reloc> = v
        .cubin
        .sections
        .iter()
        .filter(|x| x.is_reloc() && x.info as usize == text)
        .flat_map(|x| x.relocs.iter())
        .collect();
    let name = |syms: &[Symbol], i: u32| syms.get(i as usize).map(|y| y.name.clone()).unwrap_or_default();
    let mut sides: HashMap<String, (Vec<u64>, Vec<usize>)> = HashMap::default();
    for r in classic {
        sides.entry(name(&v.cubin.symbols, r.sym)).or_default().0.push(r.offset);
    }
    for (k, r) in relocs.iter().enumerate() {
        sides.entry(name(&v.cubin.merc_symbols, r.sym)).or_default().1.push(k);
    }
    for (mut offsets, mut merc) in sides.into_values() {
        if offsets.len() != merc.len() {
            continue;
        }
        offsets.sort_unstable();
        merc.sort_by_key(|&k| relocs[k].offset);
        for (classic_offset, k) in offsets.into_iter().zip(merc) {
            let record = items
                .as_ref()
                .and_then(|m| m.item_at(classic_offset))
                .zip(capsule.as_ref())
                .and_then(|(item, c)| c.record(item));
            out[k] = (record.and_then(|r| r.operand_field()), Some((text, classic_offset)));
        }
    }
    out
}

fn nvinfo(st: &mut LinkState, v: &MergeView<'_>, j: usize, ev: &mut Vec<Event>) {
    let s = &v.cubin.sections[j];
    let Ok(info) = nvinfo::decode(&s.data) else {
        ev.push(skipped(v, j, "undecodable .nv.merc.nv.info"));
        return;
    };
    // sh_info names the function's `.nv.capmerc.text.<fn>`, whose sh_info
    // is the function's Mercury symbol.
    let function = v
        .cubin
        .sections
        .get(s.info as usize)
        .filter(|t| t.sh_type == SHT_CUDA_CAPMERC_TEXT)
        .and_then(|t| v.translate(st, t.info))
        .or_else(|| {
            let text = s.info as usize;
            v.cubin
                .merc_symbols
                .iter()
                .position(|y| y.sym_type == STT_FUNC && y.shndx as usize == text)
                .and_then(|i| v.translate(st, i as u32))
        });
    let Some(function) = function else {
        ev.push(skipped(v, j, "its function was not merged"));
        return;
    };
    let (mut kept, mut dropped) = (0, 0);
    for mut e in info.entries {
        let mut ok = true;
        for r in e.symbol_refs_mut() {
            match v.translate(st, *r) {
                Some(x) => *r = x.0 as u32,
                None => ok = false,
            }
        }
        if !ok {
            dropped += 1;
            continue;
        }
        st.mercury.nvinfo.push(OutNvInfo {
            function: Some(function),
            entry: e,
            input: v.input,
            live: true,
        });
        kept += 1;
    }
    ev.push(Event::Mercury(MercEvent::RecordsMapped {
        input: v.input,
        in_section: j,
        name: s.name.clone(),
        kept,
        dropped,
    }));
}

/// The Mercury half of `constant2::merge_function_banks` (a layout stage):
/// a device function's `.nv.merc.nv.constant.optimizer.<fn>` (the Mercury
/// twin of its `.nv.constant2.<fn>`, a jump table whose entries the driver
/// relocates) is copied with its relocations into the twin of each bank
/// the classic block went to, at the same offset; a kernel without one gets
/// `.nv.merc.nv.constant.optimizer.<k>` (sh_info its `.nv.capmerc.text.<k>`,
/// relocations in `.nv.merc.rela.nv.constant.optimizer.<k>`), and the
/// function's own copy is left out, as its classic bank is
/// (jumptable_func_sm100, jumptable_two_files_sm100).
///
/// The copied records follow the kernel's own, one block after the other
/// in placement order. Within a block, nvlink takes the function's
/// `.const_opt` objects one by one (the function's input's, by offset),
/// each object's records in merge order, then the records no
/// object covers (a losing weak copy's bank), and writes that list
/// backwards (measured: a jump table of objects 0x0, 0xc, 0x1c, 0x28 gives
/// 0x28…0x34, 0x1c…0x24, 0xc…0x18, 0x0…0x8; a weak function's second copy
/// at 0x38 comes first, 0x38…0x6c).
pub fn copy_function_banks(st: &mut LinkState) {
    let copies = std::mem::take(&mut st.constant2_copies);
    if copies.is_empty() || st.mercury.is_empty() {
        st.constant2_copies = copies;
        return;
    }
    let mut emptied: BTreeSet<usize> = BTreeSet::new();
    for c in &copies {
        let (Some(from), Some(to)) = (st.sections.get(c.from), st.sections.get(c.to)) else {
            continue;
        };
        let (from_name, to_name) = (from.name.clone(), to.name.clone());
        let m = &st.mercury;
        let Some(pair) = m.pairs.iter().find(|p| p.classic == from_name).cloned() else {
            continue;
        };
        let Some(mf) = m.sections.iter().position(|s| s.name == pair.merc) else {
            continue;
        };
        let function = from_name.strip_prefix(".nv.constant2.").unwrap_or_default();
        let kernel = to_name.strip_prefix(".nv.constant2.").unwrap_or_default();
        if function.is_empty() || kernel.is_empty() {
            continue;
        }
        let mk = match m.pairs.iter().find(|p| p.classic == to_name) {
            Some(p) => m.sections.iter().position(|s| s.name == p.merc),
            None => None,
        };
        let mk = match mk {
            Some(k) => k,
            None => {
                let src = &m.sections[mf];
                let rename = |n: &str| {
                    n.strip_suffix(function)
                        .map_or_else(|| n.to_string(), |p| format!("{p}{kernel}"))
                };
                let sec = MercSection {
                    name: rename(&src.name),
                    sh_type: src.sh_type,
                    flags: src.flags,
                    align: src.align,
                    entsize: src.entsize,
                    data: Vec::new(),
                    size: 0,
                    nobits: false,
                    contributions: Vec::new(),
                    links_symtab: src.links_symtab,
                    info_section: Some(format!("{CAPMERC_TEXT}{kernel}")),
                    info_symbol: None,
                    rela: src.rela.as_ref().map(|(n, f)| (rename(n), *f)),
                };
                let new_pair = SectionPair {
                    classic: to_name.clone(),
                    merc: sec.name.clone(),
                    sym_name: rename(&pair.sym_name),
                };
                let m = &mut st.mercury;
                m.sections.push(sec);
                m.pairs.push(new_pair);
                m.sections.len() - 1
            }
        };
        // The bytes, at the classic block's offset.
        let m = &mut st.mercury;
        let bytes: Vec<u8> = m.sections[mf]
            .data
            .get(c.start as usize..c.start.saturating_add(c.size) as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let input = st.symbol(c.function).map_or(0, |s| s.input);
        let m = &mut st.mercury;
        let dst = &mut m.sections[mk];
        let end = c.offset.saturating_add(bytes.len() as u64);
        if (dst.data.len() as u64) < end {
            dst.data.resize(end as usize, 0);
        }
        if let Some(d) = dst.data.get_mut(c.offset as usize..end as usize) {
            d.copy_from_slice(&bytes);
        }
        dst.size = dst.size.max(end);
        if dst.contributions.is_empty() {
            dst.contributions.push(Contribution {
                input,
                in_section: 0,
                offset: 0,
                size: 0,
                live: true,
            });
        }
        // The relocations, in the order described above.
        let mut objects: Vec<(u64, u64)> = m
            .inputs
            .get(input)
            .map(|mi| {
                mi.symbols
                    .iter()
                    .filter(|y| y.sym_type != STT_SECTION && y.size > 0)
                    .filter_map(|y| match mi.section_map.get(y.shndx as usize) {
                        Some(Some((k, off))) if *k == mf => {
                            let at = y.value.wrapping_add(*off);
                            Some((at, at.saturating_add(y.size)))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        // By offset: the symbol order of ptxas 13.0's objects is not
        // theirs (NVSHMEM's `.const_opt.0.12`, `.const_opt.220.232`, ...,
        // `.const_opt.12.24`; nvlink takes them by offset: observation 147).
        objects.sort_by_key(|&(lo, _)| lo);
        let block = c.start..c.start.saturating_add(c.size);
        let own: Vec<MercReloc> = m
            .relocs
            .iter()
            .filter(|r| r.live && r.section == mf && block.contains(&r.offset))
            .copied()
            .collect();
        let mut order: Vec<MercReloc> = Vec::new();
        let mut taken = vec![false; own.len()];
        for &(lo, hi) in &objects {
            for (n, r) in own.iter().enumerate() {
                if !taken[n] && (lo..hi).contains(&r.offset) {
                    taken[n] = true;
                    order.push(*r);
                }
            }
        }
        order.extend(own.iter().zip(&taken).filter(|(_, t)| !**t).map(|(r, _)| *r));
        for r in order.into_iter().rev() {
            m.relocs.push(MercReloc {
                section: mk,
                offset: r.offset - c.start + c.offset,
                operand: None,
                classic: None,
                copied: true,
                ..r
            });
        }
        emptied.insert(mf);
    }
    // The banks end where their classic twins do.
    for k in 0..st.mercury.sections.len() {
        let Some(p) = st.mercury.pairs.iter().find(|p| p.merc == st.mercury.sections[k].name) else {
            continue;
        };
        let Some(size) = st
            .section_named(&p.classic)
            .and_then(|i| st.sections.get(i))
            .map(|s| s.size)
        else {
            continue;
        };
        let sec = &mut st.mercury.sections[k];
        if sec.name.starts_with(OPTIMIZER) && sec.size < size {
            sec.data.resize(size as usize, 0);
            sec.size = size;
        }
    }
    for mf in emptied {
        let m = &mut st.mercury;
        for c in &mut m.sections[mf].contributions {
            c.live = false;
        }
        for r in m.relocs.iter_mut().filter(|r| r.section == mf) {
            r.live = false;
        }
    }
    st.constant2_copies = copies;
}
