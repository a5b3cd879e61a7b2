//! Mercury (sm_100+): the `.nv.merc.*` companion sections ptxas writes
//! beside the classic ones (their own symbol table `.nv.merc.symtab`,
//! relocations, nv.info, call graph, prototype, `.nv.capmerc.text.*`), which
//! nvlink carries into its output.
//!
//! This module is the emit half (the output's `.nv.merc.*` sections,
//! called from `emit`); the merge half, which folds each input's Mercury
//! side into `LinkState::mercury`, is `mercury_merge`, and the state types
//! (with the Mercury flags and relocation types) are `state::mercury`. The
//! rules below cover both halves: the Mercury companions mirror the classic
//! sections one for one, every rule carrying a classic result over to its
//! `.nv.merc.*` twin.
//!
//! What nvlink 13.5 does with them (corpus: arch_sm100_smoke and the other
//! sm_100/sm_120 cases):
//! - an input's `.nv.merc.symtab` runs parallel to its `.symtab`: symbol i
//!   of one is symbol i of the other (same name; section symbols name the
//!   Mercury copy of the section, `.nv.capmerc.text.f` for `.text.f`,
//!   `.nv.merc.nv.constant.user` for `.nv.constant3`), the Mercury table
//!   only lacks the trailing `.nv.constant0.<kernel>` section symbols (and,
//!   on sm_107, the texture syscalls after the globals). The
//!   output's table is built the same way from the output's `.symtab`:
//!   classic order, Mercury attributes (the input's value and size, memory
//!   space bits and CUDA object types kept as in a relocatable link),
//!   without the symbols only the classic side has (sm_107's texture
//!   syscalls, `MercState::classic_only`);
//! - data sections (`.nv.capmerc.text.*`, `.nv.merc.debug_frame`,
//!   `.nv.merc.nv.constant.*`, `.nv.merc.nv.global.init`) are merged by
//!   name like classic ones, except the code of two local functions of one
//!   name (one `.nv.capmerc.text.<f>` each, paired with its classic twin
//!   through the function's symbol: local_helper_twice_sm100); a weak
//!   definition that loses takes its `.nv.capmerc.text.*` with it;
//!   `.nv.merc.debug_frame` is not compacted;
//! - `.nv.merc.nv.info`, `.nv.merc.nv.callgraph` and `.nv.merc.nv.prototype`
//!   of the output equal the classic `.nv.info`, `.nv.callgraph` and
//!   `.nv.prototype`, less what names a classic-only symbol, with the
//!   Mercury frame sizes and register counts where they differ
//!   (`MercState::table_values`; corpus README observation 183); `.nv.merc.nv.info.<fn>` keeps the function's Mercury
//!   records, in reverse order, with EXTERNS as in the classic table;
//! - `.nv.merc.rela.*` records are translated through the symbol tables;
//!   the ones against data nvlink lays out itself (constant banks, shared
//!   memory, debug sections), the unified-table placeholders and the
//!   `R_CUDA_UNUSED_CLEAR64` counterpart (0x1000e) are resolved and left
//!   out; the rest stay for the driver.
//! - the classic side is rewritten too: fresh string tables (see
//!   `string_tables`), the inputs' trailing `.nv.constant0.<kernel>`
//!   section symbols after the globals (`out::symbol_order`),
//!   `.nv.reservedSmem.*` as CUDA objects, and the classic `.debug_frame`
//!   CIE pointers, whose input addends are `.nv.merc.debug_frame` offsets,
//!   pointed at the classic CIE of the same rank (`merge::frame_addend`);
//! - the classic `.debug_frame` of an input is rewritten around the weak
//!   functions it lost or won before it is merged (`frame_edit`);
//! - a device function's `.nv.merc.nv.constant.optimizer.<fn>` (the twin
//!   of its `.nv.constant2.<fn>`: a jump table, one driver record per
//!   entry) is copied with its records into each kernel's
//!   `.nv.merc.nv.constant.optimizer.<k>` where layout copied the classic
//!   block (`mercury_merge::copy_function_banks`; corpus README
//!   observation 124);
//! - a resolved relocation of code writes its Mercury value (a constant's
//!   offset in its Mercury bank, a bindless slot's offset in the header
//!   table) into the operand field the capsule keeps for the instruction
//!   (`cubin::capsule`; located by `capsule_twins`).
//!
//! It stays one file because it is one concept, the Mercury half of the
//! output that emit's classic half mirrors: its symbol table, its tables and
//! the relocation values in its capsules are one mapping from the classic
//! output (the merge half lives in `mercury_merge`).

use foldhash::HashMap;
use std::collections::BTreeSet;

use crate::cubin::callgraph::CallGraph;
use crate::cubin::consts::*;
use crate::cubin::model::{Cubin, Reloc, Section, Symbol};
use crate::cubin::nvinfo::{Block, Entry, NvInfo, Value, code};
use crate::cubin::prototype::Prototypes;

pub use super::event::mercury::MercEvent;
use super::finalize::info::KERNEL_INHERITS;
use super::state::mercury::*;
use super::state::query::{is_kernel, is_local_undefined_object, is_undefined_constant, is_undefined_variable};
use super::state::{LinkState, Place, SectionClass, SymIdx};

// ---- emit ----------------------------------------------------------------------

/// Whether nvlink resolves Mercury relocation `r` itself (and leaves it out).
fn resolved(st: &LinkState, r: &MercReloc, relocatable: bool) -> bool {
    // Resolved by `-r` too, like its classic counterpart (the sm_100/sm_120
    // corpus cases linked with -r).
    if r.rtype == R_MERCURY_UNUSED_CLEAR64 {
        return true;
    }
    let Some(sym) = st.symbol(r.sym) else {
        return false;
    };
    if sym.removed && sym.sym_type == STT_FUNC {
        return true;
    }
    if (sym.name.starts_with("__UFT") || sym.name.starts_with("__UDT")) && !sym.is_defined() {
        return true;
    }
    // Nothing can define a LOCAL name: its records go, with or without
    // `-r`, as their classic twins do (README observation 65; libcudadevrt's
    // `__cudaCDP2MemcpyAsync` 0x10003 against `.nv.ptx.const0.size`,
    // cdp_local_undefined_sm100).
    if sym.binding == STB_LOCAL && sym.place == Place::Undefined && sym.sym_type != STT_SECTION {
        return true;
    }
    // Texture, surface and sampler operands: nvlink's bindless rewrite
    // turns them into `.nv.merc.nv.constant.entry_image_header_indices.*`
    // entries (texref_helper_sm100).
    if !relocatable && matches!(sym.sym_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER) {
        return true;
    }
    // `-r` writes an undefined constant's all ones, as on the classic side.
    if relocatable && is_undefined_constant(sym) {
        return true;
    }
    // A type only the driver resolves stays, as its classic twin does
    // (const_bank_sm100: 0x10001 beside R_CUDA_G64 against a constant).
    // Against a debug section too, where its classic twin is applied:
    // `DW_AT_stmt_list`'s 0x10008 against `.debug_line` stays for the
    // driver (its field gets the classic value: `debug_line_units`), the
    // 0x10003 against `.debug_abbrev` beside it is applied and goes
    // (debug_stmt_list_sm100).
    let driver = is_driver_type(r.rtype);
    // A reserved shared-memory partition the driver sizes
    // (`__nv_reservedSMEM_tcgen05_partition`, a weak object in
    // `.nv.shared.reserved.0`) keeps its records (tcgen05_partition_sm100a).
    if sym.name.starts_with("__nv_reservedSMEM_") {
        return false;
    }
    match sym.place {
        Place::Section(i) => match st.sections.get(i).map(|s| s.class) {
            Some(SectionClass::Constant(_) | SectionClass::Debug) => !driver,
            Some(SectionClass::Shared | SectionClass::SharedReserved | SectionClass::Local) => !relocatable,
            _ => false,
        },
        _ => false,
    }
}

/// Whether nvlink leaves Mercury type `rtype` to the driver.
fn is_driver_type(rtype: u32) -> bool {
    super::reloc::descriptors::mercury(rtype) == Some(super::reloc::descriptors::MercKind::Driver)
}

/// The addend a kept Mercury relocation is written with: against a section
/// symbol, counted from the start of the output section, as on the classic
/// side (debug_stmt_list_sm100: the second input's `DW_AT_stmt_list` record
/// against `.debug_line` + 0x79, where its `.nv.merc.debug_line` starts).
fn kept_addend(st: &LinkState, r: &MercReloc) -> i64 {
    section_relative(st, r).map_or(r.addend, |v| v as i64)
}

/// The classic sections whose Mercury twin keeps relocations in the output
/// (`.text.k` for `.nv.capmerc.text.k`, by the section pairs): nvlink then
/// writes the classic relocation table too, empty if nothing is left in it
/// (sm_100: a kernel with static shared memory keeps its Mercury record
/// against `.nv.reservedSmem.cap` and an empty `.rela.text.<k>`; when both
/// sides are resolved both go).
pub fn classic_twins_of_kept(st: &LinkState, relocatable: bool) -> BTreeSet<String> {
    let m = &st.mercury;
    m.relocs
        .iter()
        .filter(|r| r.live && !resolved(st, r, relocatable))
        .filter_map(|r| m.sections.get(r.section))
        .filter_map(|s| m.pairs.iter().find(|p| p.merc == s.name))
        .map(|p| p.classic.clone())
        .collect()
}

/// Adds the Mercury sections and `.nv.merc.symtab` to the output model.
/// `after`: classic sections nvlink writes after the Mercury ones (see
/// `emit`).
pub fn emit<'a>(st: &'a LinkState, c: &mut Cubin<'a>, after: Vec<Section<'a>>) -> Result<(), String> {
    let m = &st.mercury;
    if m.is_empty() {
        c.sections.extend(after);
        return Ok(());
    }
    let relocatable = c.header.e_type == ET_REL;
    // Output classic symbol → state symbol.
    let order = super::out::symbol_order(st);
    let state_of: Vec<Option<SymIdx>> = if order.order.len() == c.symbols.len() {
        order
            .order
            .iter()
            .map(|s| match s {
                super::out::Slot::State(i) => Some(*i),
                _ => None,
            })
            .collect()
    } else {
        c.symbols.iter().map(|s| st.lookup(&s.name)).collect()
    };
    let classic_index: HashMap<SymIdx, usize> = state_of
        .iter()
        .enumerate()
        .filter_map(|(k, s)| s.map(|s| (s, k)))
        .collect();
    let strtab = c.section_by_name(".strtab").map(|(i, _)| i as u32).unwrap_or(0);

    // Which merged sections stay: code of functions still in the output,
    // and what hangs on kept code.
    let present = |i: SymIdx| classic_index.contains_key(&i);
    let mut keep: Vec<bool> = m
        .sections
        .iter()
        .map(|s| s.contributions.iter().any(|x| x.live) && s.info_symbol.is_none_or(present))
        .collect();
    for (k, s) in m.sections.iter().enumerate() {
        if let Some(t) = &s.info_section
            && let Some(ti) = m.sections.iter().position(|x| &x.name == t)
            && !keep[ti]
        {
            keep[k] = false;
        }
    }

    // Section order: the symbol table, debug sections, nv.info, the copies,
    // relocations, then constants, code (in classic code order) and the rest.
    let symtab = c.sections.len();
    c.sections.push(super::out::section(
        ".nv.merc.symtab",
        SHT_CUDA_MERC_SYMTAB,
        SHF_MERCURY,
        8,
        24,
        Vec::new(),
    ));
    c.sections[symtab].link = strtab;
    let mut out_of: HashMap<usize, usize> = HashMap::default();
    let push_data = |c: &mut Cubin<'a>, out_of: &mut HashMap<usize, usize>, k: usize| {
        let s = &m.sections[k];
        let mut o = super::out::section(&s.name, s.sh_type, s.flags, s.align, s.entsize, s.data.clone());
        if s.nobits {
            o.data = Vec::new().into();
            o.nobits_size = s.size;
        }
        if s.links_symtab {
            o.link = symtab as u32;
        }
        out_of.insert(k, c.sections.len());
        c.sections.push(o);
    };
    let is_debug = |s: &MercSection| s.flags & SHF_ALLOC == 0 && !s.is_text() && s.sh_type == SHT_PROGBITS;
    let debug: Vec<usize> = (0..m.sections.len())
        .filter(|&k| keep[k] && is_debug(&m.sections[k]))
        .collect();
    for k in debug {
        push_data(c, &mut out_of, k);
    }
    // Tables are filled once the symbol indices are known.
    let info_at = |c: &Cubin<'_>, name: &str| c.section_by_name(name).map(|(i, _)| i);
    let mut copies: Vec<(usize, &MercCopy)> = Vec::new();
    let mut per_fn: Vec<(usize, SymIdx)> = Vec::new();
    let module = m.copies.iter().find(|x| x.classic == ".nv.info");
    if let Some(x) = module
        && info_at(c, &x.classic).is_some()
    {
        copies.push((c.sections.len(), x));
        let mut s = super::out::section(&x.name, x.sh_type, x.flags, x.align, x.entsize, Vec::new());
        s.link = symtab as u32;
        c.sections.push(s);
    }
    // Per-function tables in the order of the classic ones.
    let mut fns: Vec<SymIdx> = Vec::new();
    for n in &m.nvinfo {
        if let Some(f) = n.function
            && present(f)
            && !fns.contains(&f)
        {
            fns.push(f);
        }
    }
    let classic_pos = |f: SymIdx| {
        let name = format!(".nv.info.{}", st.symbol_name(f));
        attached(c, &name, function_text(c, &classic_index, f)).unwrap_or(usize::MAX)
    };
    fns.sort_by_key(|&f| (classic_pos(f), classic_index.get(&f).copied().unwrap_or(0)));
    for f in fns {
        let name = format!(".nv.merc.nv.info.{}", st.symbol_name(f));
        per_fn.push((c.sections.len(), f));
        let mut s = super::out::section(&name, SHT_CUDA_MERC_INFO, SHF_MERCURY | SHF_INFO_LINK, 4, 0, Vec::new());
        s.link = symtab as u32;
        c.sections.push(s);
    }
    for x in m.copies.iter().filter(|x| x.classic != ".nv.info") {
        if info_at(c, &x.classic).is_none() {
            continue;
        }
        copies.push((c.sections.len(), x));
        let mut s = super::out::section(&x.name, x.sh_type, x.flags, x.align, x.entsize, Vec::new());
        s.link = symtab as u32;
        c.sections.push(s);
    }
    // Relocation sections: placeholders, filled below.
    // In the order of the classic relocation sections they mirror
    // (`.nv.merc.rela.X` beside `.rela.X`).
    let mut rela_for: Vec<(usize, usize)> = Vec::new();
    let mut with_rela: Vec<usize> = (0..m.sections.len()).filter(|&k| keep[k]).collect();
    with_rela.sort_by_key(|&k| {
        // A constant bank's twin by its section pair:
        // `.nv.merc.rela.nv.constant.optimizer.<k>` beside
        // `.rela.nv.constant2.<k>` (jumptable_func_sm100).
        let paired = m.sections[k]
            .name
            .starts_with(OPTIMIZER)
            .then(|| m.pairs.iter().find(|p| p.merc == m.sections[k].name))
            .flatten()
            .map(|p| format!(".rela{}", p.classic));
        let classic = m.sections[k]
            .rela
            .as_ref()
            // The user constant bank's classic twin is `.nv.constant3`
            // (`.nv.merc.rela.nv.constant.user` beside `.rela.nv.constant3`:
            // merc_constant_address_sm100).
            .map(|(n, _)| classic_twin_name(n))
            .unwrap_or_default();
        let classic = paired.unwrap_or(classic);
        let text = twin_text(c, &classic_index, &m.sections[k]);
        (attached(c, &classic, text).unwrap_or(usize::MAX), k)
    });
    for k in with_rela {
        let s = &m.sections[k];
        let Some((name, flags)) = &s.rela else { continue };
        let any = m
            .relocs
            .iter()
            .any(|r| r.live && r.section == k && !resolved(st, r, relocatable));
        if !any {
            continue;
        }
        rela_for.push((c.sections.len(), k));
        let mut o = super::out::section(name, SHT_CUDA_MERC_RELA, *flags, 8, 24, Vec::new());
        o.link = symtab as u32;
        c.sections.push(o);
    }
    // The image header index tables of the kernels' bindless references.
    let headers = header_tables(c);
    let mut header_out: Vec<(usize, usize, HeaderTable)> = Vec::new();
    for h in headers {
        let text = format!("{CAPMERC_TEXT}{}", h.kernel);
        if !m.sections.iter().enumerate().any(|(k, s)| keep[k] && s.name == text) {
            continue;
        }
        let rela = c.sections.len();
        let mut r = super::out::section(
            &format!(".nv.merc.rela{HEADER_TABLE}{}", h.kernel),
            SHT_CUDA_MERC_RELA,
            SHF_MERCURY | SHF_INFO_LINK,
            8,
            24,
            Vec::new(),
        );
        r.link = symtab as u32;
        c.sections.push(r);
        header_out.push((rela, 0, h));
    }
    let text_pos = |s: &MercSection| twin_text(c, &classic_index, s).unwrap_or(usize::MAX);
    let mut rest: Vec<usize> = (0..m.sections.len())
        .filter(|&k| keep[k] && !is_debug(&m.sections[k]))
        .collect();
    rest.sort_by_key(|&k| {
        let s = &m.sections[k];
        // A function's constant bank 2 twin (`.nv.merc.nv.constant.optimizer.<fn>`,
        // type SHT_CUDA_CONSTANT0 + 0x20) is a constant bank too, beside
        // its classic twin (jumptable_func_sm100).
        let optimizer = s.name.starts_with(OPTIMIZER);
        let rank = if s.is_text() {
            1
        } else if (SHT_CUDA_CONSTANT0..SHT_CUDA_CONSTANT0 + 0x20).contains(&s.sh_type) || optimizer {
            0
        } else {
            2
        };
        // Data copies follow their classic twins (arch_sm110_smoke:
        // `.nv.merc.nv.global.init` of the second input before the first
        // input's `.nv.merc.nv.shared.reserved.0`, as in the classic list).
        let twin = optimizer
            .then(|| m.pairs.iter().find(|p| p.merc == s.name))
            .flatten()
            .and_then(|p| info_at(c, &p.classic));
        let pos = if s.is_text() {
            text_pos(s)
        } else if let Some(at) = twin {
            at
        } else {
            info_at(c, &classic_twin_name(&s.name)).unwrap_or(usize::MAX)
        };
        (rank, pos, k)
    });
    for (_, table, h) in &mut header_out {
        *table = c.sections.len();
        let mut o = super::out::section(
            &format!(".nv.merc{HEADER_TABLE}{}", h.kernel),
            SHT_CUDA_CONSTANT0 + HEADER_TABLE_BANK,
            SHF_MERCURY | SHF_ALLOC | SHF_INFO_LINK,
            4,
            0,
            vec![0; h.size as usize],
        );
        o.info = section_index_of(c, &format!("{CAPMERC_TEXT}{}", h.kernel));
        c.sections.push(o);
    }
    for k in rest {
        push_data(c, &mut out_of, k);
    }
    // The capmerc text indices above were looked up before the code was placed.
    for (_, table, h) in &header_out {
        c.sections[*table].info = section_index_of(c, &format!("{CAPMERC_TEXT}{}", h.kernel));
    }
    let mut pairs: Vec<SectionPair> = m.pairs.clone();
    for (_, _, h) in &header_out {
        pairs.push(SectionPair {
            classic: format!(".nv.constant0.{}", h.kernel),
            merc: format!(".nv.merc{HEADER_TABLE}{}", h.kernel),
            sym_name: format!("{HEADER_TABLE}{}", h.kernel),
        });
    }

    // Output Mercury code by its classic twin's section and by its function
    // (two local helpers of one name have one each: local_helper_twice_sm100).
    let mut code_of_text: HashMap<usize, u32> = HashMap::default();
    let mut code_of_function: HashMap<SymIdx, usize> = HashMap::default();
    for (&k, &i) in &out_of {
        let s = &m.sections[k];
        if !s.is_text() {
            continue;
        }
        if let Some(t) = twin_text(c, &classic_index, s) {
            let e = code_of_text.entry(t).or_insert(i as u32);
            *e = (*e).min(i as u32);
        }
        if let Some(f) = s.info_symbol {
            let e = code_of_function.entry(f).or_insert(i);
            *e = (*e).min(i);
        }
    }

    // The symbol table, parallel to .symtab but for the classic-only symbols.
    let section_index = |c: &Cubin<'_>, name: &str| c.section_by_name(name).map(|(i, _)| i as u32);
    let mut merc_syms: Vec<Symbol> = vec![c.symbols.first().cloned().unwrap_or(Symbol {
        name: String::new(),
        value: 0,
        size: 0,
        binding: 0,
        sym_type: 0,
        other: 0,
        shndx: 0,
    })];
    let mut merc_index: HashMap<usize, u32> = HashMap::default();
    merc_index.insert(0, 0);
    for k in 1..c.symbols.len() {
        let s = c.symbols[k].clone();
        let sym = if s.sym_type == STT_SECTION {
            let cname = c.section_name(s.shndx as usize).to_string();
            let Some(p) = pairs.iter().rev().find(|p| p.classic == cname) else {
                continue;
            };
            // Code pairs by section: two local helpers of one name each
            // have their own (local_helper_twice_sm100).
            let twin = p
                .merc
                .starts_with(CAPMERC_TEXT)
                .then(|| code_of_text.get(&(s.shndx as usize)).copied())
                .flatten();
            let Some(idx) = twin.or_else(|| section_index(c, &p.merc)) else {
                continue;
            };
            Symbol {
                name: p.sym_name.clone(),
                shndx: idx,
                ..s
            }
        } else if m.is_classic_only(&s.name) {
            continue;
        } else {
            merc_symbol(st, c, &s, state_of.get(k).copied().flatten(), &out_of, relocatable)
        };
        merc_index.insert(k, merc_syms.len() as u32);
        merc_syms.push(sym);
    }
    let first_global = merc_syms
        .iter()
        .skip(1)
        .position(|s| s.binding != STB_LOCAL)
        .map(|p| p + 1)
        .unwrap_or(merc_syms.len());
    c.sections[symtab].info = first_global as u32;
    let to_merc = |classic: u32| merc_index.get(&(classic as usize)).copied().unwrap_or(0);
    let of_state = |i: SymIdx| -> u32 {
        if i == SymIdx::NULL {
            return 0;
        }
        classic_index.get(&i).map(|&k| to_merc(k as u32)).unwrap_or(0)
    };

    // sh_info links of the data sections.
    for (&k, &i) in &out_of {
        let s = &m.sections[k];
        if let Some(f) = s.info_symbol {
            c.sections[i].info = of_state(f);
        } else if let Some(t) = &s.info_section
            && let Some(ti) = m.sections.iter().position(|x| &x.name == t)
            && let Some(&to) = out_of.get(&ti)
        {
            c.sections[i].info = to as u32;
        }
    }
    // Copies of the classic tables.
    for (i, x) in copies {
        let Some((_, cs)) = c.section_by_name(&x.classic) else {
            continue;
        };
        // What names a classic-only symbol is left out (its index maps to 0).
        let gone = |r: u32| r != 0 && to_merc(r) == 0;
        let data = match x.classic.as_str() {
            ".nv.info" => NvInfo::decode(&cs.data).ok().map(|mut n| {
                n.entries.retain(|e| !e.symbol_refs().into_iter().any(gone));
                for e in &mut n.entries {
                    // Frame sizes, register counts and stack sizes are the
                    // Mercury code's (`MercState::table_values`).
                    let merc_value = |f: SymIdx| m.table_values.get(&(e.attr, f));
                    if let Some(Block::SymValue { sym, .. }) = e.block()
                        && let Some(&v) = state_of.get(*sym as usize).copied().flatten().and_then(merc_value)
                    {
                        e.value = Value::Block(Block::SymValue { sym: *sym, value: v });
                    }
                    for r in e.symbol_refs_mut() {
                        *r = to_merc(*r);
                    }
                }
                n.encode()
            }),
            ".nv.callgraph" => CallGraph::decode(&cs.data).ok().map(|mut g| {
                g.records
                    .retain(|r| !r.clone().symbol_refs_mut().into_iter().any(|x| gone(*x)));
                g.map_symbols(&mut |x| to_merc(x));
                g.encode()
            }),
            ".nv.prototype" => Prototypes::decode(&cs.data).ok().map(|mut p| {
                p.records.retain(|r| !gone(r.sym));
                p.map_symbols(&mut |x| to_merc(x));
                p.encode()
            }),
            _ => None,
        };
        c.sections[i].data = data.unwrap_or_else(|| cs.data.to_vec()).into();
    }
    // A classic EXTERNS record in Mercury indices, without the classic-only
    // names; none when nothing is left.
    let merc_externs = |e: &Entry| -> Option<Entry> {
        let Value::Block(Block::Symbols { syms }) = &e.value else {
            return None;
        };
        let syms: Vec<u32> = syms.iter().map(|&r| to_merc(r)).filter(|&r| r != 0).collect();
        (!syms.is_empty()).then_some(Entry {
            attr: e.attr,
            value: Value::Block(Block::Symbols { syms }),
        })
    };
    // Per-function tables: the function's Mercury records, last read first,
    // with EXTERNS as the classic table has it.
    for (i, f) in per_fn {
        let def_input = st.symbol(f).map(|s| s.input);
        let classic: Vec<Entry> = attached(
            c,
            &format!(".nv.info.{}", st.symbol_name(f)),
            function_text(c, &classic_index, f),
        )
        .and_then(|k| NvInfo::decode(&c.sections[k].data).ok())
        .map(|n| n.entries)
        .unwrap_or_default();
        let classic_externs: Option<Entry> = classic.iter().find(|e| e.attr == code::EXTERNS).cloned();
        // A kernel's EXTERNS that finalize made afresh follows the records
        // both tables have in the classic table; it comes last here
        // (virtual_funcs_sm100 `_Z8k_shapesPfPKii`; a device function's
        // stays in place).
        let merc_attrs: BTreeSet<u8> = m
            .nvinfo
            .iter()
            .filter(|n| n.live && n.function == Some(f) && n.entry.attr != code::EXTERNS)
            .map(|n| n.entry.attr)
            .collect();
        let position = |pred: &dyn Fn(&Entry) -> bool| classic.iter().rposition(pred);
        let externs_last = match (
            position(&|e| e.attr == code::EXTERNS),
            position(&|e| merc_attrs.contains(&e.attr)),
        ) {
            (Some(x), Some(last_shared)) => x > last_shared,
            _ => false,
        };
        let mut entries: Vec<Entry> = Vec::new();
        let mut externs_done = false;
        let kernel = is_kernel(st, f);
        for n in m.nvinfo.iter().rev() {
            if !n.live || n.function != Some(f) || Some(n.input) != def_input {
                continue;
            }
            // Entry fragments move to the kernels, as in the classic table
            // (`finalize::info`; tcgen05_callee_sm100a).
            if n.entry.attr == code::AT_ENTRY_FRAGMENTS && !kernel && !relocatable {
                continue;
            }
            if n.entry.attr == code::EXTERNS {
                if let Some(e) = &classic_externs
                    && !externs_done
                    && !externs_last
                {
                    entries.extend(merc_externs(e));
                    externs_done = true;
                }
                continue;
            }
            let mut e = n.entry.clone();
            let mut ok = true;
            for r in e.symbol_refs_mut() {
                let x = of_state(SymIdx(*r as i32));
                if x == 0 && *r != 0 {
                    ok = false;
                }
                *r = x;
            }
            if ok {
                entries.push(e);
            }
        }
        // What finalize gave a kernel from its callees (barrier counts,
        // flags, grid attributes, the unknown stack size of recursion) takes
        // the classic value in place, or comes after the kernel's own
        // records in the classic table's order, with the EXTERNS made afresh
        // (grid_attributes_sm100; recursion_stack_sm100: `k_rec`).
        let mut tail: Vec<Entry> = Vec::new();
        for e in &classic {
            if e.attr == code::EXTERNS {
                if !externs_done && let Value::Block(Block::Symbols { .. }) = &e.value {
                    tail.extend(merc_externs(e));
                    externs_done = true;
                }
                continue;
            }
            if !(e.attr == code::CRS_STACK_SIZE || kernel && KERNEL_INHERITS.contains(&e.attr)) {
                continue;
            }
            match entries.iter_mut().find(|x| x.attr == e.attr) {
                Some(x) => *x = e.clone(),
                None => tail.push(e.clone()),
            }
        }
        entries.extend(tail);
        c.sections[i].data = NvInfo {
            entries,
            trailing: Vec::new(),
        }
        .encode()
        .into();
        let text = format!("{CAPMERC_TEXT}{}", st.symbol_name(f));
        c.sections[i].info = code_of_function
            .get(&f)
            .copied()
            .or_else(|| section_index(c, &text).map(|x| x as usize))
            .unwrap_or(0) as u32;
    }
    // Relocations kept for the driver, last merged first as in the classic
    // tables (weak_func_vsm_low_first_sm100: 0x6c, 0x7c, 0x98 where the
    // input has 0x98, 0x7c, 0x6c).
    for (i, k) in rela_for {
        // Records layout copied from device functions' banks follow, in
        // the order they were copied (`mercury_merge::copy_function_banks`).
        let merged = m.relocs.iter().rev().filter(|r| !r.copied);
        let copied = m.relocs.iter().filter(|r| r.copied);
        let relocs: Vec<Reloc> = merged
            .chain(copied)
            .filter(|r| r.live && r.section == k && !resolved(st, r, relocatable))
            .map(|r| Reloc {
                offset: r.offset,
                sym: of_state(r.sym),
                rtype: if relocatable { r.rtype } else { kept_type(r.rtype) },
                addend: kept_addend(st, r),
            })
            .collect();
        c.sections[i].relocs = relocs;
        c.sections[i].info = out_of.get(&k).copied().unwrap_or(0) as u32;
    }
    for (rela, table, h) in header_out {
        c.sections[rela].info = table as u32;
        c.sections[rela].relocs = h
            .relocs
            .iter()
            .map(|r| Reloc {
                sym: to_merc(r.sym),
                ..*r
            })
            .collect();
    }
    // What resolved relocations write: against a section (`.debug_frame` +
    // offset), the section-relative address; in code, the Mercury value,
    // into the operand the capsule keeps for the instruction.
    for r in m.relocs.iter().filter(|r| r.live && resolved(st, r, relocatable)) {
        let Some(&i) = out_of.get(&r.section) else { continue };
        let gone = st.symbol(r.sym).is_none_or(|s| s.removed || s.sym_type != STT_FUNC);
        let (at, bytes) = if r.rtype == R_MERCURY_UNUSED_CLEAR64 && gone {
            // As its classic twin: the field of a function not in the output
            // is cleared (kernels_used_sm100: a removed kernel's address
            // range in `.nv.merc.debug_frame`).
            (r.offset, vec![0; 8])
        } else if let Some(at) = r.operand {
            let Some(v) = mercury_value(st, r, &merc_syms, of_state(r.sym)) else {
                continue;
            };
            (at, (v as u32).to_le_bytes().to_vec())
        } else if let Some(width) = super::reloc::descriptors::mercury_data_width(r.rtype)
            && let Some(v) = section_relative(st, r).or_else(|| {
                // Not in code: a record whose operand the capsule does not
                // show (an extern array's in debug_shared_extern_sm100) is
                // left as it is.
                (!m.sections[r.section].is_text())
                    .then(|| shared_variable_value(st, r, &merc_syms, of_state(r.sym)))
                    .flatten()
            })
        {
            // In data, the section-relative address: `.debug_frame` + offset
            // (0x10002), a compile unit's `.debug_abbrev` offset (0x10003,
            // debug_stmt_list_sm100).
            (r.offset, v.to_le_bytes()[..width].to_vec())
        } else {
            continue;
        };
        if let Some(field) = c.sections[i]
            .data
            .to_mut()
            .get_mut(at as usize..(at as usize).saturating_add(bytes.len()))
        {
            field.copy_from_slice(&bytes);
        }
    }
    if !relocatable {
        debug_line_units(st, c, &out_of);
    }
    line_header_fields(st, c, &out_of);
    // `.nv.capmerc.text.<fn>` opens with the index of its classic `.text.<fn>`.
    for (&k, &i) in &out_of {
        if !m.sections[k].is_text() {
            continue;
        }
        let Some(text) = twin_text(c, &classic_index, &m.sections[k]) else {
            continue;
        };
        if let Some(field) = c.sections[i].data.to_mut().get_mut(0..4) {
            field.copy_from_slice(&(text as u32).to_le_bytes());
        }
    }
    c.merc_symbols = merc_syms;
    c.sections.extend(after);
    string_tables(st, c);
    Ok(())
}

/// nvlink writes an sm_100+ output's string tables afresh: `.shstrtab`
/// holds the names of the sections present, in section order, then 36
/// zero bytes; `.strtab` the names of `.symtab`'s symbols, then those only
/// `.nv.merc.symtab` has, then the prototype strings (corpus: every sm_100
/// and sm_120 case).
fn string_tables(st: &LinkState, c: &mut Cubin<'_>) {
    let pool = |seed: Vec<u8>, names: &mut dyn Iterator<Item = &str>| {
        let mut out = seed;
        let mut seen: std::collections::HashSet<Vec<u8>> = out.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
        for n in names {
            if !n.is_empty() && seen.insert(n.as_bytes().to_vec()) {
                out.extend_from_slice(n.as_bytes());
                out.push(0);
            }
        }
        out
    };
    let mut shstr = pool(vec![0], &mut c.sections.iter().skip(1).map(|s| s.name.as_str()));
    shstr.extend_from_slice(&[0; 36]);
    // The prototype strings go last; the prototype tables and the call
    // graph, written with offsets into finalize's seed, are pointed at the
    // new places.
    let seed = super::finalize::strtab_seed(st);
    let mut strtab = pool(
        vec![0],
        &mut c.symbols.iter().chain(c.merc_symbols.iter()).map(|s| s.name.as_str()),
    );
    // The seed's strings (offset → bytes), written in the order the call
    // graph and then the prototype table first name them, then the rest
    // (virtual_funcs_sm100: "#ii", "#vl", "#il" from the call graph's
    // address-taken records, then "#liil" … from `.nv.prototype`).
    let mut strings: Vec<(u32, &[u8])> = Vec::new();
    let mut at = 1usize;
    for s in seed[1..].split(|&b| b == 0).take(st.strtab_strings.len()) {
        strings.push((at as u32, s));
        at += s.len() + 1;
    }
    let mut first_named: Vec<u32> = Vec::new();
    for sec in &c.sections {
        match sec.name.as_str() {
            ".nv.callgraph" => {
                if let Ok(mut g) = CallGraph::decode(&sec.data) {
                    for r in &mut g.records {
                        first_named.extend(r.string_refs_mut().into_iter().map(|x| *x));
                    }
                }
            }
            ".nv.prototype" => {
                if let Ok(mut p) = Prototypes::decode(&sec.data) {
                    first_named.extend(p.string_refs_mut().into_iter().map(|x| *x));
                }
            }
            _ => {}
        }
    }
    let rank = |off: u32| first_named.iter().position(|&x| x == off).unwrap_or(usize::MAX);
    strings.retain(|&(off, _)| rank(off) != usize::MAX);
    strings.sort_by_key(|&(off, _)| rank(off));
    let mut moved: HashMap<u32, u32> = HashMap::default();
    for (off, s) in strings {
        if s.is_empty() {
            moved.insert(off, 0);
            continue;
        }
        moved.insert(off, strtab.len() as u32);
        strtab.extend_from_slice(s);
        strtab.push(0);
    }
    let mv = |r: &mut u32| *r = moved.get(r).copied().unwrap_or(*r);
    for sec in c.sections.iter_mut() {
        let data = match sec.name.as_str() {
            ".nv.prototype" | ".nv.merc.nv.prototype" => Prototypes::decode(&sec.data).ok().map(|mut p| {
                p.string_refs_mut().into_iter().for_each(mv);
                p.encode()
            }),
            ".nv.callgraph" | ".nv.merc.nv.callgraph" => CallGraph::decode(&sec.data).ok().map(|mut g| {
                for r in &mut g.records {
                    r.string_refs_mut().into_iter().for_each(mv);
                }
                g.encode()
            }),
            _ => None,
        };
        if let Some(d) = data {
            sec.data = d.into();
        }
    }
    if let Some(i) = c
        .sections
        .iter()
        .position(|s| s.name == ".shstrtab" && s.sh_type == SHT_STRTAB)
    {
        c.sections[i].data = shstr.into();
    }
    if let Some(i) = c
        .sections
        .iter()
        .position(|s| s.name == ".strtab" && s.sh_type == SHT_STRTAB)
    {
        c.sections[i].data = strtab.into();
    }
}

const HEADER_TABLE: &str = ".nv.constant.entry_image_header_indices.";
/// `.nv.merc.nv.constant.entry_image_header_indices.<kernel>` is of type
/// SHT_CUDA_CONSTANT0 + 0x15 (0x70000079).
const HEADER_TABLE_BANK: u32 = 0x15;

/// A kernel's image header indices, from the classic
/// `.rela.nv.constant0.<kernel>` TEX/SURF_HEADER_INDEX relocations: one
/// 4-byte slot each, counted from the first (texref_helper_sm100: classic
/// slots 0x390..0x39c are Mercury slots 0x0..0xc).
struct HeaderTable {
    kernel: String,
    size: u64,
    /// Classic symbol indices, Mercury types, offsets in the table.
    relocs: Vec<Reloc>,
}

/// Mercury type of a classic image-header-index relocation (observed:
/// R_CUDA_TEX_HEADER_INDEX 6 → 0x1000b, R_CUDA_SURF_HEADER_INDEX 52 → 0x1000d).
fn header_type(rtype: u32) -> Option<u32> {
    match rtype {
        6 => Some(0x1_000b),
        52 => Some(0x1_000d),
        _ => None,
    }
}

fn header_tables(c: &Cubin<'_>) -> Vec<HeaderTable> {
    let mut out = Vec::new();
    for s in &c.sections {
        let Some(kernel) = s.name.strip_prefix(".rela.nv.constant0.") else {
            continue;
        };
        let found: Vec<&Reloc> = s.relocs.iter().filter(|r| header_type(r.rtype).is_some()).collect();
        let Some(base) = found.iter().map(|r| r.offset).min() else {
            continue;
        };
        let end = found.iter().map(|r| r.offset.saturating_add(4)).max().unwrap_or(base);
        // A constant bank holds at most 64 KiB.
        if end - base > 0x1_0000 {
            continue;
        }
        out.push(HeaderTable {
            kernel: kernel.to_string(),
            size: end - base,
            relocs: found
                .iter()
                .map(|r| Reloc {
                    offset: r.offset - base,
                    sym: r.sym,
                    rtype: header_type(r.rtype).unwrap_or(r.rtype),
                    addend: r.addend,
                })
                .collect(),
        });
    }
    out
}

/// The output section of the classic code of function `f`: where its
/// classic symbol lies.
fn function_text(c: &Cubin<'_>, classic_index: &HashMap<SymIdx, usize>, f: SymIdx) -> Option<usize> {
    let sym = c.symbols.get(*classic_index.get(&f)?)?;
    (sym.shndx != SHN_UNDEF && (sym.shndx as usize) < c.sections.len()).then_some(sym.shndx as usize)
}

/// The classic `.text.<fn>` twin of output Mercury code `s`: the section of
/// its function's classic symbol, when that section has the twin's name (two
/// inputs' local helpers of one name have one each: local_helper_twice_sm100),
/// else the first section of that name.
fn twin_text(c: &Cubin<'_>, classic_index: &HashMap<SymIdx, usize>, s: &MercSection) -> Option<usize> {
    let classic = s.name.strip_prefix(".nv.capmerc")?;
    s.info_symbol
        .and_then(|f| function_text(c, classic_index, f))
        .filter(|&i| c.section_name(i) == classic)
        .or_else(|| c.section_by_name(classic).map(|(i, _)| i))
}

/// The output section named `name` that hangs on section `text` through
/// sh_info (`.nv.info.<fn>`, `.rela.text.<fn>` of one of two local functions
/// of one name), else the first of that name.
fn attached(c: &Cubin<'_>, name: &str, text: Option<usize>) -> Option<usize> {
    text.and_then(|t| c.sections.iter().position(|x| x.name == name && x.info as usize == t))
        .or_else(|| c.section_by_name(name).map(|(i, _)| i))
}

fn section_index_of(c: &Cubin<'_>, name: &str) -> u32 {
    c.section_by_name(name).map(|(i, _)| i as u32).unwrap_or(0)
}

/// S + A of a relocation against a section symbol: where the relocation's
/// input placed its part of the section's Mercury copy, plus the addend.
fn section_relative(st: &LinkState, r: &MercReloc) -> Option<u64> {
    let sym = st.symbol(r.sym)?;
    if sym.sym_type != STT_SECTION {
        return None;
    }
    let Place::Section(k) = sym.place else { return None };
    let classic = &st.sections.get(k)?.name;
    let m = &st.mercury;
    let pair = m.pairs.iter().find(|p| &p.classic == classic)?;
    let sec = m.sections.iter().find(|s| s.name == pair.merc)?;
    let base = sec.contributions.iter().find(|c| c.input == r.input)?.offset;
    Some(base.wrapping_add(r.addend as u64))
}

/// S + A of a data relocation against a shared variable (the `DW_OP_addr`
/// of its `DW_AT_location` in `.nv.merc.debug_info` of `-G` code): its
/// Mercury value, the offset without the reserved part, plus the addend,
/// which counts the reserved part back in (debug_shared_vars_sm100: 0x414
/// for `k2::st` at 0x14 and addend 0x400, what its classic twin holds).
fn shared_variable_value(st: &LinkState, r: &MercReloc, merc_syms: &[Symbol], merc: u32) -> Option<u64> {
    let sym = st.symbol(r.sym)?;
    let Place::Section(k) = sym.place else { return None };
    if sym.sym_type == STT_SECTION || st.sections.get(k)?.class != SectionClass::Shared {
        return None;
    }
    // Without `-g` the variable has no symbol in the output; its place is
    // the same offset (`-G` objects linked without `-g`: 0 + 0x400,
    // debug_shared_nodebug_sm100).
    let s = merc_syms
        .get(merc as usize)
        .filter(|_| merc != 0)
        .map_or(sym.value, |y| y.value);
    Some(s.wrapping_add(r.addend as u64))
}

/// A compile unit's `DW_AT_stmt_list` in `.nv.merc.debug_info` (0x10008
/// against `.debug_line`, kept for the driver) holds, after a final link,
/// where the unit's line program starts in the *classic* `.debug_line`,
/// the value its classic twin was given: the output's `.nv.merc.debug_info`
/// equals its `.debug_info` (debug_stmt_list_sm100: 0x6f, not the 0x79 the
/// kept record's addend names). nvlink maps the Mercury S + A to the
/// classic start of the same unit: measured with edited addends, S + A
/// that is no unit's start is written as it is; a final link of an `-r`
/// output (two units in one input, addend 0x58) gets the second classic
/// unit's 0x4e. `-r` writes nothing there, on either side.
fn debug_line_units(st: &LinkState, c: &mut Cubin<'_>, out_of: &HashMap<usize, usize>) {
    let m = &st.mercury;
    for r in m.relocs.iter().filter(|r| r.live && is_driver_type(r.rtype)) {
        let Some(&i) = out_of.get(&r.section) else { continue };
        let Some(width) = super::reloc::descriptors::mercury_data_width(r.rtype) else {
            continue;
        };
        let Some(sym) = st.symbol(r.sym).filter(|s| s.sym_type == STT_SECTION) else {
            continue;
        };
        let Place::Section(k) = sym.place else { continue };
        let Some(classic) = st.sections.get(k).filter(|s| s.class == SectionClass::Debug) else {
            continue;
        };
        let Some(v) = section_relative(st, r) else { continue };
        let merc = m
            .pairs
            .iter()
            .find(|p| p.classic == classic.name)
            .and_then(|p| m.sections.iter().find(|s| s.name == p.merc));
        let v = merc
            .and_then(|merc| {
                let n = super::line_order::unit_starts(&merc.data)
                    .iter()
                    .position(|&x| x == v)?;
                // The classic table as written (`line_order` may drop
                // sequences, moving later units).
                let written = c.sections.iter().find(|s| s.name == classic.name);
                let data = written.map_or(&classic.data[..], |s| &s.data[..]);
                super::line_order::unit_starts(data).get(n).copied()
            })
            .unwrap_or(v);
        let at = r.offset as usize;
        if let Some(field) = c.sections[i].data.to_mut().get_mut(at..at.saturating_add(width)) {
            field.copy_from_slice(&v.to_le_bytes()[..width]);
        }
    }
}

/// A `-lineinfo` unit's header ends with the offset of its input's
/// strings in `.debug_str` (what its inlining records name), which only
/// the Mercury table relocates (0x10003 against `.debug_str`); nvlink
/// writes the classic table from the relocated Mercury one, so the
/// classic header holds the same value, `-r` included (debug_line_str_sm120:
/// the second input's unit holds the first's `.debug_str` size). A `-r`
/// output has no such record left, and its units keep what they hold.
fn line_header_fields(st: &LinkState, c: &mut Cubin<'_>, out_of: &HashMap<usize, usize>) {
    let m = &st.mercury;
    for r in m.relocs.iter().filter(|r| r.live) {
        let Some(merc) = m.sections.get(r.section) else {
            continue;
        };
        let Some(pair) = m.pairs.iter().find(|p| p.merc == merc.name) else {
            continue;
        };
        if !super::line_order::is_line_table(&pair.classic) {
            continue;
        }
        let (Some(&i), Some(width)) = (
            out_of.get(&r.section),
            super::reloc::descriptors::mercury_data_width(r.rtype),
        ) else {
            continue;
        };
        let Some(v) = section_relative(st, r) else { continue };
        let Some(k) = c.sections.iter().position(|s| s.name == pair.classic) else {
            continue;
        };
        let Some(at) = super::line_order::header_twin(&c.sections[i].data, &c.sections[k].data, r.offset) else {
            continue;
        };
        let at = at as usize;
        if let Some(field) = c.sections[k].data.to_mut().get_mut(at..at.saturating_add(width)) {
            field.copy_from_slice(&v.to_le_bytes()[..width]);
        }
    }
}

/// S + A of a resolved relocation, on the Mercury side: a texture,
/// surface or sampler's slot offset in the image header index table
/// (texref_helper_sm100: `tex_b` at 0x39c in constant bank 0, 0xc in the
/// table); otherwise the output Mercury symbol's value.
fn mercury_value(st: &LinkState, r: &MercReloc, merc_syms: &[Symbol], merc: u32) -> Option<u64> {
    let sym = st.symbol(r.sym)?;
    let s = if matches!(sym.sym_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER) {
        let table = st.bindless.as_ref()?;
        table.slot_of(r.sym)?.offset.checked_sub(table.base)?
    } else if let Place::Section(k) = sym.place
        && merc == 0
        && st.sections.get(k).is_some_and(|x| x.class == SectionClass::Constant(2))
    {
        // A `.const_opt` object of a constant bank 2 (a jump table), which
        // the output's symbol tables leave out: its offset in the bank,
        // where layout moved a device function's block (jumptable_func_sm100:
        // `0x8000 + offset` in the capsule's operand field for addend -0x8000).
        let v = st
            .moved_constant2
            .get(&k)
            .map_or(sym.value, |&d| sym.value.wrapping_add_signed(d));
        return super::reloc::descriptors::mercury_value(r.rtype, v, r.addend);
    } else {
        merc_syms.get(merc as usize).filter(|_| merc != 0)?.value
    };
    // The relocation's type decides what it makes of S + A (`lib_const+4`
    // through 0x10011, byte 1, leaves 0 in the operand).
    super::reloc::descriptors::mercury_value(r.rtype, s, r.addend)
}

/// The Mercury form of output symbol `s` (state symbol `si`): the defining
/// input's Mercury symbol gives value, size and section.
fn merc_symbol(
    st: &LinkState,
    c: &Cubin<'_>,
    s: &Symbol,
    si: Option<SymIdx>,
    out_of: &HashMap<usize, usize>,
    relocatable: bool,
) -> Symbol {
    let Some(si) = si else { return s.clone() };
    let Some(state) = st.symbol(si) else { return s.clone() };
    // Mercury symbols keep the CUDA object type and memory-space bits even
    // in an executable (arch_sm100_smoke: `lib_data` UNKNOWN/0x20 here,
    // OBJECT/0 in .symtab); a type the classic table turned into a CUDA
    // object (`.nv.reservedSmem.*`) is one here too.
    let (binding, mut sym_type, other) = super::out::output_symbol(state, true);
    if s.sym_type == crate::cubin::consts::STT_CUDA_OBJECT {
        sym_type = s.sym_type;
    }
    let _ = relocatable;
    let Some((input, ms)) = input_symbol(st, si) else {
        return s.clone();
    };
    let mut out = Symbol {
        name: s.name.clone(),
        value: ms.value,
        size: ms.size,
        binding,
        sym_type,
        other,
        shndx: s.shndx,
    };
    if s.shndx == SHN_UNDEF || matches!(ms.shndx, SHN_UNDEF | SHN_ABS | SHN_COMMON) {
        // An undefined variable `-r` gave all ones has them here too
        // (relocatable_undefined_sm100).
        // So does a common, where layout put it, at the size the merge
        // chose (common_data_same_size_sm100, common_data_diff_size_sm100),
        // and a LOCAL undefined object (`-r`: libcudadevrt's
        // `.nv.ptx.const0.size`, cdp_local_undefined_sm100).
        if (s.shndx != SHN_UNDEF && matches!(ms.shndx, SHN_UNDEF | SHN_COMMON))
            || is_undefined_variable(state)
            || is_local_undefined_object(state)
        {
            out.value = s.value;
        }
        if s.shndx != SHN_UNDEF && ms.shndx == SHN_COMMON {
            out.size = s.size;
        }
        // An extern shared array under -g (debug_shared_extern_sm100).
        return kept_by_mercury(st, si, out);
    }
    let mi = &st.mercury.inputs[input];
    let j = ms.shndx as usize;
    if mi.is_merc.get(j).copied().unwrap_or(false) {
        if let Some(Some((k, off))) = mi.section_map.get(j) {
            out.value = ms.value.wrapping_add(*off);
            if let Some(&i) = out_of.get(k) {
                out.shndx = i as u32;
            }
        }
    } else {
        // A classic section (`.nv.shared.<kernel>`): where the classic symbol is.
        out.value = s.value;
        let _ = c;
    }
    kept_by_mercury(st, si, out)
}

/// What the Mercury side keeps of symbol `si` where the classic side
/// changed it (`MercState::values`, `MercState::kinds`).
fn kept_by_mercury(st: &LinkState, si: SymIdx, mut out: Symbol) -> Symbol {
    if let Some(&value) = st.mercury.values.get(&si) {
        out.value = value;
    }
    if let Some(&(sym_type, other)) = st.mercury.kinds.get(&si) {
        out.sym_type = sym_type;
        out.other = other;
    }
    out
}

/// The classic section a Mercury section's name mirrors: `.nv.merc` off,
/// and the user constant bank's twin is `.nv.constant3`
/// (`.nv.merc.rela.nv.constant.user` beside `.rela.nv.constant3`:
/// merc_constant_address_sm100; `.nv.merc.nv.constant.user` where
/// `.nv.constant3` is among the banks: observation 147).
fn classic_twin_name(merc: &str) -> String {
    merc.replacen(".nv.merc", "", 1)
        .replace(".nv.constant.user", ".nv.constant3")
}
