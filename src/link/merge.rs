//! The merge phase (seed 001): one input cubin at a time is folded into the
//! link state, in three passes (weak symbols, all symbols, section headers),
//! one symbol or section per step.
//!
//! It stays one file because it is one phase: the three passes step through
//! the same per-input mapping arrays and share the weak rules.
//!
//! What nvlink 13.5 does, where the seed is silent or wrong, is pinned by the
//! corpus (tests/corpus/README.md, "Observations"): the weak tie rule
//! (registers, then virtual SM, then first input), weak data keeping the
//! loser's bytes, and the diagnostics' texts.

use foldhash::HashMap;
use std::collections::BTreeSet;

use serde::Serialize;

use crate::cubin::callgraph::{self, Record};
use crate::cubin::consts::*;
use crate::cubin::nvinfo::{self, code};
use crate::cubin::{Cubin, SharedCubin, Symbol, compat, read};

use super::diag::Diagnostic;
use super::event::{Event, MergePass, Resolution, WeakCandidate, WeakRule};
use super::frame_edit::{self, Fate, FrameEdit};
use super::frame_edit::{FrameRecord, frame_records};
use super::state::*;
use super::weak;

/// sh_flags bit of the Mercury companion sections (`.nv.merc.*`, `.nv.capmerc.*`)
/// of sm_100+ cubins. Seed 001 says the merge skips them; nvlink 13.5 carries
/// them into its output (arch_sm100_smoke), translated through the second
/// symbol table `.nv.merc.symtab`: the section pass hands each one to
/// `link::mercury_merge` (docs/seed-errata.md).
pub const SHF_MERCURY_DEFERRED: u64 = super::state::mercury::SHF_MERCURY;

/// Why an `-ewp` object's empty reserved shared section is skipped.
const EMPTY_RESERVED: &str = "an empty reserved shared memory section naming only aliases: nvlink makes nothing of it";
const MERCURY_ELSEWHERE: &str = "Mercury companion section: merged by link::mercury";

/// Where the merge of one input stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Cursor {
    Start,
    Pass(MergePass, usize),
    End,
}

/// The merge of one input, stepped.
#[derive(Debug, Clone)]
pub struct InputMerge {
    pub input: usize,
    pub cubin: SharedCubin,
    pub cursor: Cursor,
    /// Input sections that belong to a discarded weak definition.
    dropped: BTreeSet<usize>,
    /// Banks 2 of discarded weak definitions: merged for their bytes, their
    /// local symbols left out (`drop_definition`).
    lost_banks: BTreeSet<usize>,
    /// Weak functions this input's definition won: (input symbol, output
    /// symbol, the input whose definition it replaced).
    won: Vec<(u32, SymIdx, usize)>,
    /// The input's `.debug_frame` as it was, and how `frame_edit` rewrote it.
    frame: Option<(Vec<u8>, FrameEdit)>,
    /// Set when a fatal error stopped this input's merge.
    failed: bool,
    /// Set when an error was reported: nvlink reports every error of the
    /// pass (every "Multiple definition" of the input), then fails.
    errors: bool,
    /// Symbols whose error the weak pass reported (global functions defined
    /// twice), which the symbols pass then leaves alone.
    reported: BTreeSet<usize>,
    /// EIATTR_REGCOUNT per input symbol, from the input's `.nv.info`
    /// sections (the first record of a symbol counts), decoded once.
    regcounts: HashMap<usize, u32>,
    /// Sections holding a local function's code.
    local_code: BTreeSet<usize>,
    /// Each section's first section symbol.
    section_symbol_of: HashMap<usize, usize>,
    /// The input's `.nv.merc.debug_frame`.
    merc_frame: Option<usize>,
    /// Each code section's first function symbol.
    function_of: HashMap<usize, usize>,
    /// Weak data definitions of this input that lost to a strong (GLOBAL)
    /// one: unlike those that lost to a weak one, they keep their
    /// relocations (weak_data_lost_to_strong_sm90).
    lost_to_strong: BTreeSet<usize>,
}

/// A fatal problem: the merge stops ("merge_elf failed").
pub struct MergeFailed;

impl InputMerge {
    /// Parses the input's bytes (already validated by the reader) for merging.
    pub fn new(state: &LinkState, input: usize) -> Result<Self, Diagnostic> {
        let rec = &state.inputs[input];
        let shared = SharedCubin::parse(&rec.data, read::parse_for_link)
            .map_err(|e| Diagnostic::fatal(format!("Malformed input file '{}': {}", rec.name, e)))?;
        let cubin = shared.get();
        let mut regcounts = HashMap::default();
        for s in cubin.sections.iter().filter(|s| s.sh_type == SHT_CUDA_INFO) {
            let Ok(info) = nvinfo::decode(&s.data) else { continue };
            for e in info.find(code::REGCOUNT) {
                if let Some(nvinfo::Block::SymValue { sym, value }) = e.block() {
                    regcounts.entry(*sym as usize).or_insert(*value);
                }
            }
        }
        let local_code = cubin
            .symbols
            .iter()
            .filter(|y| y.sym_type == STT_FUNC && y.binding == STB_LOCAL)
            .map(|y| y.shndx as usize)
            .collect();
        let (mut section_symbol_of, mut function_of) = (HashMap::default(), HashMap::default());
        for (i, y) in cubin.symbols.iter().enumerate() {
            if y.sym_type == STT_SECTION {
                section_symbol_of.entry(y.shndx as usize).or_insert(i);
            } else if y.sym_type == STT_FUNC {
                function_of.entry(y.shndx as usize).or_insert(i);
            }
        }
        let merc_frame = cubin.section_by_name(".nv.merc.debug_frame").map(|(k, _)| k);
        Ok(InputMerge {
            input,
            local_code,
            section_symbol_of,
            merc_frame,
            function_of,
            cubin: shared,
            cursor: Cursor::Start,
            dropped: BTreeSet::new(),
            lost_banks: BTreeSet::new(),
            won: Vec::new(),
            regcounts,
            frame: None,
            failed: false,
            errors: false,
            reported: BTreeSet::new(),
            lost_to_strong: BTreeSet::new(),
        })
    }

    fn mercury_view(&self) -> super::mercury_merge::MergeView<'_> {
        super::mercury_merge::MergeView {
            input: self.input,
            cubin: self.cubin.get(),
            dropped: &self.dropped,
            lost_to_strong: &self.lost_to_strong,
        }
    }

    pub fn done(&self) -> bool {
        self.cursor == Cursor::End || self.failed
    }

    /// Performs one unit of work; returns its events. A fatal diagnostic
    /// among them ends the link.
    pub fn step(&mut self, st: &mut LinkState) -> Vec<Event> {
        let mut ev = Vec::new();
        let nsym = self.cubin.get().symbols.len();
        let nsec = self.cubin.get().sections.len();
        match self.cursor {
            Cursor::Start => {
                let maps = InputMaps {
                    map_symbol_index: vec![0; nsym],
                    map_section_index: vec![0; nsec],
                    map_section_offset: vec![0; nsec],
                    weak_processed: vec![false; nsym],
                    creation: creation_order(self.cubin.get()),
                    info_creation: Vec::new(),
                };
                if st.maps.len() <= self.input {
                    st.maps.resize(self.input + 1, InputMaps::default());
                }
                st.maps[self.input] = maps;
                let m = &mut st.maps[self.input];
                m.info_creation = self
                    .cubin
                    .get()
                    .sections
                    .iter()
                    .zip(&m.creation)
                    .enumerate()
                    .filter(|(_, (s, _))| s.sh_type == SHT_CUDA_INFO && s.name.starts_with(".nv.info."))
                    .map(|(j, (s, &c))| (s.name.clone(), c, j as u32))
                    .collect();
                super::mercury_merge::start_input(st, &self.mercury_view());
                ev.push(Event::MergeInputStart {
                    input: self.input,
                    name: st.input_name(self.input).to_string(),
                    symbols: nsym,
                    sections: nsec,
                });
                self.cursor = Cursor::Pass(MergePass::Weak, 0);
            }
            Cursor::Pass(pass, i) => {
                let limit = if pass == MergePass::Sections { nsec } else { nsym };
                if i >= limit {
                    // After the errors of the symbols (or sections) pass, the
                    // merge fails; the weak pass's go on into the symbols pass
                    // (nvlink names a twice-defined function before a
                    // twice-defined variable: corpus err_multiple_definitions).
                    if pass == MergePass::Symbols {
                        self.check_prototypes(st, &mut ev);
                    }
                    if self.errors && pass != MergePass::Weak {
                        self.fail(st, &mut ev);
                        return ev;
                    }
                    // The weak decisions are made: the frames can follow them
                    // before the symbols pass maps `.debug_frame`.
                    if pass == MergePass::Weak && !self.errors {
                        self.edit_frames(st, &mut ev);
                    }
                    self.cursor = match pass {
                        MergePass::Weak => Cursor::Pass(MergePass::Symbols, 0),
                        MergePass::Symbols => Cursor::Pass(MergePass::Sections, 0),
                        MergePass::Sections => Cursor::End,
                    };
                    return self.step(st);
                }
                let r = match pass {
                    MergePass::Weak => self.weak_symbol(st, i, &mut ev),
                    MergePass::Symbols => self.symbol(st, i, &mut ev),
                    MergePass::Sections => self.section(st, i, &mut ev),
                };
                if r.is_err() {
                    self.errors = true;
                    self.reported.insert(i);
                }
                self.cursor = Cursor::Pass(pass, i + 1);
            }
            Cursor::End => {}
        }
        if self.cursor == Cursor::End && !self.failed {
            ev.push(Event::MergeInputEnd { input: self.input });
        }
        ev
    }

    fn fail(&mut self, st: &mut LinkState, ev: &mut Vec<Event>) {
        self.failed = true;
        let d = Diagnostic::fatal("merge_elf failed");
        st.diagnostics.push(d.clone());
        ev.push(Event::Diagnostic(d));
    }

    fn error(&self, st: &mut LinkState, ev: &mut Vec<Event>, text: String) -> Result<(), MergeFailed> {
        let d = Diagnostic::error(text);
        st.diagnostics.push(d.clone());
        ev.push(Event::Diagnostic(d));
        Err(MergeFailed)
    }

    /// Each function this input's `.nv.prototype` names must have the
    /// prototype the first input naming it gave, references included:
    /// "Prototype doesn't match for 'pf' in 'p3.o', first defined in
    /// 'p1.o'", the earlier input being the one that now defines the name,
    /// else the first that referred to it (README observation 211:
    /// err_prototype_mismatch_sm90; `extern "C"` functions declared with
    /// two signatures). After the symbols pass's errors; the merge then
    /// fails.
    fn check_prototypes(&mut self, st: &mut LinkState, ev: &mut Vec<Event>) {
        let cubin = self.cubin.get();
        let strtab = cubin.symbol_strings();
        let mut mismatched = Vec::new();
        for s in cubin.sections.iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE) {
            let Ok(table) = crate::cubin::prototype::decode(&s.data) else {
                continue;
            };
            for r in &table.records {
                let Some(sym) = cubin.symbols.get(r.sym as usize) else {
                    continue;
                };
                let Some(text) = read::string_at(strtab, r.prototype as usize) else {
                    continue;
                };
                let signature = text.split('|').next().unwrap_or(text);
                match st.first_prototypes.get(&*sym.name) {
                    Some(first) if first != signature => mismatched.push(sym.name.to_string()),
                    Some(_) => {}
                    None => {
                        st.first_prototypes.insert(sym.name.to_string(), signature.to_string());
                    }
                }
            }
        }
        for name in mismatched {
            let first = st
                .lookup(&name)
                .and_then(|i| st.symbol(i))
                .map_or_else(String::new, |y| st.input_name(y.input).to_string());
            let text = format!(
                "Prototype doesn't match for '{name}' in '{}', first defined in '{first}'",
                self.name(st)
            );
            let _ = self.error(st, ev, text);
            self.errors = true;
        }
    }

    fn name(&self, st: &LinkState) -> String {
        st.input_name(self.input).to_string()
    }

    fn map_symbol(&self, st: &mut LinkState, i: usize, out: SymIdx, res: Resolution, ev: &mut Vec<Event>) {
        st.maps[self.input].map_symbol_index[i] = out.0;
        ev.push(Event::SymbolMapped {
            input: self.input,
            in_symbol: i,
            name: self.cubin.get().symbols[i].name.clone(),
            out,
            resolution: res,
        });
    }

    /// The register count .nv.info gives the function symbol `sym_idx` of this input.
    fn regcount(&self, sym_idx: usize) -> Option<u32> {
        self.regcounts.get(&sym_idx).copied()
    }

    fn candidate(&self, st: &LinkState, sym: &Symbol, idx: usize) -> WeakCandidate {
        let rec = &st.inputs[self.input];
        WeakCandidate {
            input: self.input,
            input_name: rec.name.clone(),
            binding: sym.binding,
            regcount: if sym.sym_type == STT_FUNC {
                self.regcount(idx)
            } else {
                None
            },
            virtual_sm: rec.virtual_sm,
            size: sym.size,
        }
    }

    fn out_symbol(
        &self,
        st: &mut LinkState,
        sym: &Symbol,
        idx: usize,
        ev: &mut Vec<Event>,
    ) -> Result<OutSymbol, MergeFailed> {
        let (place, value) = self.place_of(st, sym, ev)?;
        Ok(OutSymbol {
            name: sym.name.clone().into(),
            binding: sym.binding,
            sym_type: sym.sym_type,
            other: sym.other,
            place,
            value,
            size: sym.size,
            input: self.input,
            regcount: if sym.sym_type == STT_FUNC && sym.is_defined() {
                self.regcount(idx)
            } else {
                None
            },
            removed: false,
        })
    }

    /// Where an input symbol lands in the output (mapping its section if needed).
    fn place_of(&self, st: &mut LinkState, sym: &Symbol, ev: &mut Vec<Event>) -> Result<(Place, u64), MergeFailed> {
        Ok(match sym.shndx {
            SHN_UNDEF => (Place::Undefined, 0),
            SHN_COMMON => (Place::Common { align: sym.value }, sym.value),
            SHN_ABS => (Place::Absolute, sym.value),
            s => {
                let s = s as usize;
                let (out, off) = self.ensure_section(st, s, ev)?;
                (Place::Section(out), off + sym.value)
            }
        })
    }

    // ---- pass 1: weak symbols -------------------------------------------------

    fn weak_symbol(&mut self, st: &mut LinkState, i: usize, ev: &mut Vec<Event>) -> Result<(), MergeFailed> {
        let sym = self.cubin.get().symbols[i].clone();
        if sym.is_defined() && sym.sym_type == STT_NOTYPE && sym.size == 0 && self.is_reserved_shared(sym.shndx) {
            // An alias in reserved shared memory (`empty_reserved_shared`;
            // sm_110's section also holds `__nv_reservedSMEM_gb10b_war_var`,
            // which stays).
            st.maps[self.input].weak_processed[i] = true;
            return Ok(());
        }
        if sym.binding == STB_GLOBAL && sym.sym_type == STT_FUNC && sym.is_defined() {
            return self.function_defined_twice(st, &sym, ev);
        }
        if sym.binding != STB_WEAK || i == 0 {
            return Ok(());
        }
        let Some(existing) = st.lookup(&sym.name) else {
            let out = self.out_symbol(st, &sym, i, ev)?;
            let idx = st.add_global(out);
            self.claim_text(st, &sym, idx);
            self.map_symbol(st, i, idx, Resolution::New, ev);
            return Ok(());
        };
        if !sym.is_defined() {
            self.map_symbol(st, i, existing, Resolution::Reference, ev);
            return Ok(());
        }
        self.resolve_definition(st, i, &sym, existing, ev)
    }

    /// nvlink checks global function definitions in its first pass: a name
    /// an earlier input defines globally is an error there, before the
    /// variables of the symbols pass (corpus err_multiple_definitions).
    fn function_defined_twice(
        &mut self,
        st: &mut LinkState,
        sym: &Symbol,
        ev: &mut Vec<Event>,
    ) -> Result<(), MergeFailed> {
        let Some(old) = st.lookup(&sym.name).and_then(|k| st.symbol(k)) else {
            return Ok(());
        };
        if old.binding != STB_GLOBAL || matches!(old.place, Place::Undefined | Place::Common { .. }) {
            return Ok(());
        }
        let text = format!(
            "Multiple definition of '{}' in '{}', first defined in '{}'",
            sym.name,
            self.name(st),
            st.input_name(old.input)
        );
        self.error(st, ev, text)
    }

    /// A definition (weak or global) of a name already in the output.
    fn resolve_definition(
        &mut self,
        st: &mut LinkState,
        i: usize,
        sym: &Symbol,
        existing: SymIdx,
        ev: &mut Vec<Event>,
    ) -> Result<(), MergeFailed> {
        let old = st.symbol(existing).cloned().expect("looked-up symbol exists");
        match old.place {
            Place::Undefined => {
                let mut out = self.out_symbol(st, sym, i, ev)?;
                // A definition takes the slot of the reference; a weak
                // definition of a global reference stays weak.
                out.binding = sym.binding;
                *st.symbol_mut(existing).expect("slot") = out;
                self.claim_text(st, sym, existing);
                self.map_symbol(st, i, existing, Resolution::DefinesUndefined, ev);
                Ok(())
            }
            Place::Common { .. } if sym.shndx == SHN_COMMON => self.merge_commons(st, i, sym, existing, ev),
            Place::Common { .. } => {
                if old.size > sym.size {
                    let text = format!(
                        "Common symbol '{}' in file '{}' has larger size than initialization",
                        sym.name,
                        st.input_name(old.input)
                    );
                    return self.error(st, ev, text);
                }
                let mut out = self.out_symbol(st, sym, i, ev)?;
                out.binding = if old.binding == STB_WEAK && sym.binding == STB_WEAK {
                    STB_WEAK
                } else {
                    sym.binding
                };
                *st.symbol_mut(existing).expect("slot") = out;
                self.map_symbol(st, i, existing, Resolution::ReplacesCommon, ev);
                Ok(())
            }
            _ if sym.shndx == SHN_COMMON => {
                if sym.size > old.size {
                    let text = format!(
                        "Common symbol '{}' in file '{}' has larger size than initialization",
                        sym.name,
                        self.name(st)
                    );
                    return self.error(st, ev, text);
                }
                self.map_symbol(st, i, existing, Resolution::CommonIntoDefinition, ev);
                Ok(())
            }
            _ if old.binding == STB_GLOBAL && sym.binding == STB_GLOBAL => {
                // Variables of two sizes: that error first, then this one
                // (err_multidef_size_sm90).
                if sym.sym_type != STT_FUNC && sym.size != old.size {
                    let text = format!(
                        "Size doesn't match for '{}' in '{}', first specified in '{}'",
                        sym.name,
                        self.name(st),
                        st.input_name(old.input)
                    );
                    let _ = self.error(st, ev, text);
                }
                let text = format!(
                    "Multiple definition of '{}' in '{}', first defined in '{}'",
                    sym.name,
                    self.name(st),
                    st.input_name(old.input)
                );
                self.error(st, ev, text)
            }
            _ => self.weak_conflict(st, i, sym, existing, old, ev),
        }
    }

    fn merge_commons(
        &mut self,
        st: &mut LinkState,
        i: usize,
        sym: &Symbol,
        existing: SymIdx,
        ev: &mut Vec<Event>,
    ) -> Result<(), MergeFailed> {
        let out = st.symbol_mut(existing).expect("slot");
        if sym.size > out.size {
            let from = out.size;
            out.size = sym.size;
            if let Place::Common { align } = &mut out.place {
                *align = (*align).max(sym.value);
            }
            ev.push(Event::CommonGrown {
                name: sym.name.clone(),
                from,
                to: sym.size,
                input: self.input,
            });
        }
        self.map_symbol(st, i, existing, Resolution::CommonMerged, ev);
        Ok(())
    }

    /// Two definitions, at least one weak: nvlink's policy decides.
    fn weak_conflict(
        &mut self,
        st: &mut LinkState,
        i: usize,
        sym: &Symbol,
        existing: SymIdx,
        old: OutSymbol,
        ev: &mut Vec<Event>,
    ) -> Result<(), MergeFailed> {
        let is_func = sym.sym_type == STT_FUNC;
        // Variables of two sizes, one of them or both weak (observation
        // 208: err_weak_strong_size_sm90, strong first or weak first).
        if !is_func && sym.size != old.size {
            let text = format!(
                "Size doesn't match for '{}' in '{}', first specified in '{}'",
                sym.name,
                self.name(st),
                st.input_name(old.input)
            );
            return self.error(st, ev, text);
        }
        let old_cand = WeakCandidate {
            input: old.input,
            input_name: st.input_name(old.input).to_string(),
            binding: old.binding,
            regcount: old.regcount,
            virtual_sm: st.inputs.get(old.input).and_then(|r| r.virtual_sm),
            size: old.size,
        };
        let new_cand = self.candidate(st, sym, i);
        let (rule, incoming_wins) = weak::decide(&old_cand, &new_cand, is_func);
        ev.push(Event::WeakDecision {
            name: sym.name.clone(),
            out: existing,
            existing: old_cand,
            incoming: new_cand,
            rule,
            incoming_wins,
        });
        if incoming_wins {
            if is_func {
                self.replace_function(st, existing, &old, ev);
                self.won.push((i as u32, existing, old.input));
                self.info_with_code(st, i, sym);
            }
            let mut out = self.out_symbol(st, sym, i, ev)?;
            if rule == WeakRule::GlobalOverWeak {
                out.binding = STB_GLOBAL;
            }
            *st.symbol_mut(existing).expect("slot") = out;
            self.claim_text(st, sym, existing);
        } else {
            st.maps[self.input].weak_processed[i] = true;
            if !is_func && old.binding == STB_GLOBAL {
                self.lost_to_strong.insert(i);
            }
            if is_func && sym.is_defined() && (sym.shndx as usize) < self.cubin.get().sections.len() {
                self.drop_definition(sym.shndx as usize);
            } else if self.is_reserved_shared(sym.shndx) {
                // Reserved shared memory belongs to its variable: one copy
                // (arch_sm110_smoke, with and without -r).
                self.dropped.insert(sym.shndx as usize);
            } else if sym.is_defined()
                && sym.shndx != SHN_COMMON
                && sym.shndx != SHN_ABS
                && !self
                    .cubin
                    .get()
                    .sections
                    .get(sym.shndx as usize)
                    .is_some_and(|x| is_nobits(x.sh_type))
            {
                // Data: the section is still merged (its bytes stay, dead).
                // A NOBITS one waits: it gets no space when it holds only
                // lost duplicates (`lost_nobits`).
                self.ensure_section(st, sym.shndx as usize, ev)?;
            }
        }
        self.map_symbol(st, i, existing, Resolution::Weak, ev);
        Ok(())
    }

    /// A function that replaces an earlier definition of its name (weak or
    /// strong over weak) has its `.nv.info.<fn>` made with its code, as a
    /// kernel's is, not after the input's other sections: nvlink lists it
    /// before the input's kernels that follow the function
    /// (weak_replaced_info_order_sm90: kw, wf, ks).
    fn info_with_code(&self, st: &mut LinkState, i: usize, sym: &Symbol) {
        let text = sym.shndx as usize;
        let m = &mut st.maps[self.input];
        for (_, at, j) in m.info_creation.iter_mut() {
            let info = self.cubin.get().sections.get(*j as usize);
            if info.is_some_and(|x| x.flags & SHF_INFO_LINK != 0 && x.info as usize == text) && at.0 != 0 {
                *at = (0, i as u32, 2);
            }
        }
    }

    /// Whether input section `j` is an empty reserved shared memory section
    /// ([`empty_reserved_shared`]).
    fn empty_reserved_shared(&self, j: usize) -> bool {
        empty_reserved_shared(self.cubin.get(), j)
    }

    /// Whether input section `j` is `.nv.shared.reserved.*`.
    fn is_reserved_shared(&self, j: u32) -> bool {
        self.cubin
            .get()
            .sections
            .get(j as usize)
            .is_some_and(|s| j != 0 && classify(&s.name, s.sh_type) == SectionClass::SharedReserved)
    }

    /// Marks an input text section, and every section attached to it through
    /// sh_info (its relocations, .nv.info.<fn>, parameter bank), as not merged.
    ///
    /// Except its constant bank 2 (`.nv.constant2.<fn>`, a jump table or
    /// 64-bit literals): nvlink merges the losing copy's bank by name after
    /// the winner's, so the bank holds both (weak_jumptable_sm100; seen on
    /// sm_75, sm_90, sm_100 and sm_120, for kernels and device functions).
    fn drop_definition(&mut self, text: usize) {
        self.dropped.insert(text);
        for (j, s) in self.cubin.get().sections.iter().enumerate() {
            // Mercury sections' sh_info counts in their own numbering
            // (link::mercury_merge decides for them).
            if s.flags & SHF_MERCURY_DEFERRED == 0
                && s.info as usize == text
                && (s.flags & SHF_INFO_LINK != 0 || s.is_reloc())
            {
                if classify(&s.name, s.sh_type) == SectionClass::Constant(2) {
                    self.lost_banks.insert(j);
                } else {
                    self.dropped.insert(j);
                }
            }
        }
    }

    /// The clean-up after a weak function is replaced (seed 001's four
    /// passes, as nvlink does them: docs/seed-errata.md): relocations into
    /// its old text, and its RELA `.debug_frame` ones when that text had RELA
    /// relocations, its .nv.info records, and its indirect-call and
    /// address-taken records are made dead; its call records stay. The old
    /// code bytes are replaced when the new text section is mapped.
    fn replace_function(&mut self, st: &mut LinkState, idx: SymIdx, old: &OutSymbol, ev: &mut Vec<Event>) {
        let mut relocs = 0;
        let mut infos = 0;
        let mut edges = 0;
        let mut had_rela = false;
        if let Place::Section(text) = old.place {
            for r in st.relocs.iter_mut().filter(|r| r.live && r.section == text) {
                r.live = false;
                had_rela |= r.rela;
                relocs += 1;
            }
            if let Some(sec) = st.sections.get_mut(text) {
                for c in &mut sec.contributions {
                    c.live = false;
                }
                sec.data.clear();
                sec.size = 0;
            }
        }
        // A kernel's parameter bank goes with its code: the winner's bank
        // takes its place, not a place after it (a template kernel from a
        // `-G` object replaced by a plain object's copy: 0x21c, not 0x438;
        // weak_kernel_replaced_sm90).
        if old.other & super::state::query::STO_ENTRY != 0
            && let Some(bank) = st.section_named(&format!(".nv.constant0.{}", old.name))
        {
            for r in st
                .relocs
                .iter_mut()
                .filter(|r| r.live && r.section == bank && r.input == old.input)
            {
                r.live = false;
                relocs += 1;
            }
            if let Some(sec) = st.sections.get_mut(bank) {
                for c in sec.contributions.iter_mut().filter(|c| c.input == old.input) {
                    c.live = false;
                }
                if sec.contributions.iter().all(|c| !c.live) {
                    sec.data.clear();
                    sec.size = 0;
                }
            }
        }
        // The old input's debug relocations against the function stay: they now
        // refer to the winner (nvlink 13.5 keeps them, unlike those of an
        // incoming definition that loses; docs/seed-errata.md). Except when
        // the old code had RELA relocations (it reads a `__device__`
        // variable on sm_90, calls on sm_75): then its RELA `.debug_frame`
        // relocations against the function go (weak_replaced_text_relocs_sm90;
        // sm_75's REL ones stay). sm_100+ frames: not yet (the old copy's
        // frame record itself goes there).
        if had_rela && self.merc_frame.is_none() {
            for r in st.relocs.iter_mut().filter(|r| {
                r.live
                    && r.rela
                    && r.input == old.input
                    && r.sym == idx
                    && st.sections[r.section].name == ".debug_frame"
            }) {
                r.live = false;
                relocs += 1;
            }
        }
        for n in st.nvinfo.iter_mut().filter(|n| n.live && n.input == old.input) {
            let about_it = n.function == Some(idx)
                || (matches!(
                    n.entry.attr,
                    code::FRAME_SIZE | code::CRS_STACK_SIZE | code::REGCOUNT | code::MAX_STACK_SIZE
                ) && n.entry.symbol_refs().first() == Some(&(idx.0 as u32)));
            if about_it {
                n.live = false;
                infos += 1;
            }
        }
        // Its calls stay: nvlink keeps the replaced copy's call edges, now
        // from the winner, and with them the callees (a static helper only
        // the lost copy called, a global function only it called; weak
        // replaced by strong and by a weak copy of fewer registers, sm_75,
        // sm_90: weak_replaced_calls_sm90).
        for e in st.callgraph.iter_mut().filter(|e| e.live && e.input == old.input) {
            let from_it = match e.record {
                Record::IndirectCall { caller, .. } => caller == idx.0 as u32,
                Record::AddressRef { referrer, .. } => referrer == idx.0 as u32,
                _ => false,
            };
            if from_it {
                e.live = false;
                edges += 1;
            }
        }
        ev.push(Event::WeakCleanup {
            name: old.name.to_string(),
            relocs,
            nvinfo: infos,
            callgraph: edges,
        });
    }

    /// Records which output symbol owns a function's text section.
    fn claim_text(&self, st: &mut LinkState, sym: &Symbol, idx: SymIdx) {
        if sym.sym_type != STT_FUNC || !sym.is_defined() {
            return;
        }
        let s = sym.shndx as usize;
        if let Some(&out) = st.maps[self.input].map_section_index.get(s)
            && out != 0
            && let Some(sec) = st.sections.get_mut(out as usize)
        {
            sec.owner = Some(idx);
        }
    }

    // ---- pass 2: symbols --------------------------------------------------------

    fn symbol(&mut self, st: &mut LinkState, i: usize, ev: &mut Vec<Event>) -> Result<(), MergeFailed> {
        if i == 0
            || self.reported.contains(&i)
            || st.maps[self.input].map_symbol_index[i] != 0
            || st.maps[self.input].weak_processed[i]
        {
            return Ok(());
        }
        let sym = self.cubin.get().symbols[i].clone();
        if sym.binding == STB_LOCAL {
            if sym.sym_type == STT_SECTION {
                let s = sym.shndx as usize;
                if self.dropped.contains(&s) || self.skip_reason(s).is_some() || self.lost_nobits(st, s) {
                    return Ok(());
                }
                // A function's code is placed when its symbol is resolved (a
                // weak conflict may discard or replace it); its section symbol
                // is mapped in the section pass.
                if self
                    .cubin
                    .get()
                    .sections
                    .get(s)
                    .is_some_and(|x| classify(&x.name, x.sh_type) == SectionClass::Text)
                {
                    return Ok(());
                }
                let (out, _) = self.ensure_section(st, s, ev)?;
                let idx = self.section_symbol(st, out);
                self.map_symbol(st, i, idx, Resolution::Local, ev);
            } else {
                // The `.const_opt` objects of a losing copy's bank too: nvlink
                // lists them nowhere (weak_jumptable_sm100 linked with -r).
                if sym.is_defined()
                    && (self.dropped.contains(&(sym.shndx as usize)) || self.lost_banks.contains(&(sym.shndx as usize)))
                {
                    return Ok(());
                }
                let out = self.out_symbol(st, &sym, i, ev)?;
                let idx = st.add_local(out);
                self.map_symbol(st, i, idx, Resolution::Local, ev);
            }
            return Ok(());
        }
        let found = st.lookup(&sym.name);
        let attributes = match found {
            Some(existing) => self.attributes_match(st, &sym, existing, ev),
            None => Ok(()),
        };
        let resolved = match found {
            None => {
                let out = self.out_symbol(st, &sym, i, ev)?;
                let idx = st.add_global(out);
                self.claim_text(st, &sym, idx);
                self.map_symbol(st, i, idx, Resolution::New, ev);
                Ok(())
            }
            Some(existing) if !sym.is_defined() => {
                self.map_symbol(st, i, existing, Resolution::Reference, ev);
                Ok(())
            }
            Some(existing) => self.resolve_definition(st, i, &sym, existing, ev),
        };
        resolved.and(attributes)
    }

    /// A variable named again, defined or not, must be in the memory space
    /// and have the managed attribute it was first specified with: each
    /// mismatch is an error, before a multiple definition of it (corpus
    /// err_space_mismatch_sm90: `__device__` against `extern __constant__`,
    /// `__managed__` against `extern __device__`, both at once; either
    /// input first; `extern __shared__` against `extern __constant__`).
    fn attributes_match(
        &self,
        st: &mut LinkState,
        sym: &Symbol,
        existing: SymIdx,
        ev: &mut Vec<Event>,
    ) -> Result<(), MergeFailed> {
        use super::state::query::{STO_MANAGED, STO_MEMORY_SPACE};
        let Some(old) = st.symbol(existing) else { return Ok(()) };
        if sym.sym_type == STT_FUNC || old.sym_type == STT_FUNC {
            return Ok(());
        }
        let mut result = Ok(());
        let (first, other) = (st.input_name(old.input).to_string(), old.other);
        let checks = [(STO_MEMORY_SPACE, "Memory space"), (STO_MANAGED, "Managed attribute")];
        for (mask, what) in checks {
            if sym.other & mask != other & mask {
                let text = format!(
                    "{what} doesn't match for '{}' in '{}', first specified in '{first}'",
                    sym.name,
                    self.name(st),
                );
                result = self.error(st, ev, text);
            }
        }
        result
    }

    /// The output section symbol of output section `out` (created once).
    ///
    /// Named after the section, except where ptxas named the input's
    /// otherwise and nvlink keeps that name: an sm_100+ `.nv.constant2.<fn>`'s
    /// `.nv.constant.optimizer.<fn>` (jumptable_func_sm100; sm_90 inputs
    /// name it so too, and there nvlink writes `.nv.constant2.<fn>`).
    fn section_symbol(&self, st: &mut LinkState, out: usize) -> SymIdx {
        let mut name = st.sections[out].name.clone();
        if let Some(f) = name.strip_prefix(".nv.constant2.")
            && !self.cubin.get().merc_symbols.is_empty()
        {
            let optimizer = format!(".nv.constant.optimizer.{f}");
            let named = self.cubin.get().symbols.iter().any(|y| {
                y.sym_type == STT_SECTION
                    && y.name == optimizer
                    && self
                        .cubin
                        .get()
                        .sections
                        .get(y.shndx as usize)
                        .is_some_and(|x| x.name == name)
            });
            if named {
                name = optimizer;
            }
        }
        // Every symbol comes through `add_local`/`add_global`, which index
        // section symbols; places move only after the merge.
        if let Some(&idx) = st.section_symbols.get(&out) {
            return idx;
        }
        st.add_local(OutSymbol {
            name: name.into(),
            binding: STB_LOCAL,
            sym_type: STT_SECTION,
            other: 0,
            place: Place::Section(out),
            value: 0,
            size: 0,
            input: self.input,
            regcount: None,
            removed: false,
        })
    }

    /// Why an input section is not merged as code or data, if it is not.
    fn skip_reason(&self, j: usize) -> Option<&'static str> {
        let Some(s) = self.cubin.get().sections.get(j) else {
            return Some("not a section of the input");
        };
        if j == 0 {
            return Some("null section");
        }
        if s.flags & SHF_MERCURY_DEFERRED != 0 {
            return Some(MERCURY_ELSEWHERE);
        }
        if self.empty_reserved_shared(j) {
            return Some(EMPTY_RESERVED);
        }
        match s.sh_type {
            SHT_SYMTAB | SHT_STRTAB | SHT_CUDA_MERC_SYMTAB | SHT_SYMTAB_SHNDX => {
                Some("symbol and string tables are rebuilt")
            }
            SHT_NOTE => Some("notes are written anew for the output"),
            SHT_REL | SHT_RELA | SHT_CUDA_MERC_RELA => Some("relocations are translated record by record"),
            SHT_CUDA_INFO | SHT_CUDA_COMPAT_INFO | SHT_CUDA_CALLGRAPH => Some("translated record by record"),
            SHT_CUDA_PROTOTYPE | SHT_CUDA_MERC_PROTOTYPE | SHT_CUDA_MERC_CALLGRAPH | SHT_CUDA_MERC_INFO => {
                Some("rebuilt for the output")
            }
            _ => None,
        }
    }

    /// Maps input section `j` into the output (once): returns the output
    /// section and where the input's bytes start in it.
    fn ensure_section(&self, st: &mut LinkState, j: usize, ev: &mut Vec<Event>) -> Result<(usize, u64), MergeFailed> {
        let maps = &st.maps[self.input];
        if let Some(&out) = maps.map_section_index.get(j)
            && out != 0
        {
            return Ok((out as usize, maps.map_section_offset[j]));
        }
        let Some(s) = self.cubin.get().sections.get(j) else {
            return Ok((0, 0));
        };
        let class = classify(&s.name, s.sh_type);
        let nobits = is_nobits(s.sh_type);
        let align = s.align.max(1);
        // A local function's code is its input's own, even where another
        // input has a local function of the same name (ptxas's helpers such
        // as `__cuda_sm3x_div_rn_noftz_f32_slowpath`: dce_shared_helper_sm90),
        // and so is its bank 2, which sh_info ties to that code (libdevice's
        // `__internal_accurate_pow` in two objects: each copy's doubles go
        // to the kernels calling that copy, const2_local_twins_sm75).
        let local_code = match class {
            SectionClass::Text => self.local_code.contains(&j),
            SectionClass::Constant(2) => s.flags & SHF_INFO_LINK != 0 && self.local_code.contains(&(s.info as usize)),
            _ => false,
        };
        // Nor does a global function's code go into a local function's
        // section of the same name: a `-G` object's weak
        // `__cuda_sm3x_div_rn_noftz_f32_slowpath` after a plain object's
        // local one keeps a section of its own (weak_helper_after_local_sm90).
        let local_owner = |k: usize| st.local_code_sections.contains(&k);
        let existing = if local_code {
            None
        } else if class == SectionClass::Text {
            st.section_named(&s.name).filter(|&k| !local_owner(k)).or_else(|| {
                (1..st.sections.len())
                    .find(|&k| st.sections[k].name == s.name && !st.sections[k].removed && !local_owner(k))
            })
        } else {
            st.section_named(&s.name)
        };
        let (out, created) = match existing {
            Some(out) => (out, false),
            None => {
                let out = st.add_section(OutSection {
                    name: s.name.clone(),
                    sh_type: s.sh_type,
                    flags: s.flags,
                    align,
                    entsize: s.entsize,
                    class,
                    data: Vec::new(),
                    size: 0,
                    nobits,
                    contributions: Vec::new(),
                    owner: None,
                    removed: false,
                });
                if local_code && class == SectionClass::Text {
                    st.local_code_sections.insert(out);
                }
                (out, true)
            }
        };
        let sec = &mut st.sections[out];
        // A weak function's replacement reuses the emptied text section.
        let offset = if class == SectionClass::Text {
            0
        } else {
            sec.size.div_ceil(align) * align
        };
        if !nobits {
            sec.data.resize(offset as usize, 0);
            sec.data.extend_from_slice(&s.data);
        }
        if offset != 0 && s.name == ".debug_frame" && self.merc_frame.is_some() {
            self.rebase_frame_pointers(j, &mut sec.data, offset);
        }
        sec.size = offset + s.size();
        sec.align = sec.align.max(align);
        sec.flags |= s.flags;
        sec.contributions.push(Contribution {
            input: self.input,
            in_section: j,
            offset,
            size: s.size(),
            live: true,
        });
        let maps = &mut st.maps[self.input];
        maps.map_section_index[j] = out as u32;
        maps.map_section_offset[j] = offset;
        ev.push(Event::SectionMapped {
            input: self.input,
            in_section: j,
            name: s.name.clone(),
            out_section: out,
            offset,
            created,
        });
        Ok((out, offset))
    }

    /// sm_100+: the CIE pointers of this input's `.debug_frame` FDEs that no
    /// relocation patches (an `nvlink -r` output resolved them) count from
    /// the start of the output section: nvlink writes the classic table
    /// from the Mercury one, where they are (`-r` output of one input
    /// linked after another: 0x68 becomes 0xd0 + 0x68).
    fn rebase_frame_pointers(&self, j: usize, data: &mut [u8], base: u64) {
        let Some(s) = self.cubin.get().sections.get(j) else {
            return;
        };
        let patched: Vec<u64> = self
            .cubin
            .get()
            .sections
            .iter()
            .filter(|r| is_reloc_section(r.sh_type) && r.info as usize == j)
            .flat_map(|r| r.relocs.iter().map(|x| x.offset))
            .collect();
        for rec in frame_records(&s.data).into_iter().filter(|r| r.wide && !r.cie) {
            let at = rec.offset + frame_edit::WIDE_CIE_POINTER;
            if patched.contains(&at) {
                continue;
            }
            let Some(field) = data.get_mut((base + at) as usize..(base + at + 8) as usize) else {
                continue;
            };
            let v = u64::from_le_bytes(field.try_into().unwrap_or_default()).wrapping_add(base);
            field.copy_from_slice(&v.to_le_bytes());
        }
    }

    // ---- pass 3: section headers ------------------------------------------------

    fn section(&mut self, st: &mut LinkState, j: usize, ev: &mut Vec<Event>) -> Result<(), MergeFailed> {
        if j == 0 {
            return Ok(());
        }
        let s = &self.cubin.get().sections[j];
        let (name, flags, sh_type) = (s.name.clone(), s.flags, s.sh_type);
        if self.dropped.contains(&j) {
            ev.push(Event::SectionSkipped {
                input: self.input,
                in_section: j,
                name: name.clone(),
                reason: "belongs to a weak definition that was not kept".into(),
            });
            return Ok(());
        }
        if flags & SHF_MERCURY_DEFERRED != 0 {
            super::mercury_merge::merge_section(st, &self.mercury_view(), j, ev);
            return Ok(());
        }
        if self.lost_nobits(st, j) {
            ev.push(Event::SectionSkipped {
                input: self.input,
                in_section: j,
                name: name.clone(),
                reason: "a NOBITS section holding only weak duplicates that lost takes no space".into(),
            });
            return Ok(());
        }
        match sh_type {
            SHT_CUDA_INFO => self.nvinfo(st, j, ev),
            SHT_CUDA_COMPAT_INFO => self.merge_compat(st, &self.cubin.get().sections[j].data, ev)?,
            SHT_CUDA_CALLGRAPH => self.callgraph(st, j, ev),
            SHT_REL | SHT_RELA => self.relocations(st, j, ev)?,
            _ => {
                if let Some(reason) = self.skip_reason(j) {
                    ev.push(Event::SectionSkipped {
                        input: self.input,
                        in_section: j,
                        name: name.clone(),
                        reason: reason.into(),
                    });
                } else {
                    let (out, _) = self.ensure_section(st, j, ev)?;
                    self.map_section_symbol(st, j, out, ev);
                }
            }
        }
        Ok(())
    }

    /// Folds the input's `.nv.compat` into the output's (`link::compat`).
    /// An input without ISA_CLASS limits the output to the target's SM:
    /// nvlink says so after the input's symbol errors, as a warning that -w
    /// keeps and -Werror turns into an error that fails the merge (corpus
    /// compat_merge_sm90; tests/corpus/README.md, 85).
    fn merge_compat(&self, st: &mut LinkState, data: &[u8], ev: &mut Vec<Event>) -> Result<(), MergeFailed> {
        let Ok(c) = compat::decode(data) else { return Ok(()) };
        st.compat.add_input(&c);
        ev.push(Event::CompatMerged {
            input: self.input,
            attributes: c.entries.len(),
        });
        if c.get(compat::code::ISA_CLASS).is_some() {
            return Ok(());
        }
        let text = format!(
            "Output is limited to run on SM Arch '{}' only, due to missing attribute 'ISA_CLASS' in input file '{}'",
            st.compat.target_sm,
            self.name(st)
        );
        if st.compat.werror {
            return self.error(st, ev, text);
        }
        let d = Diagnostic::warning(text);
        st.diagnostics.push(d.clone());
        ev.push(Event::Diagnostic(d));
        Ok(())
    }

    /// For a GLOBAL function this input defines: the earlier WEAK definition
    /// of its name it will replace, and that definition's input.
    fn will_replace_weak(&self, st: &LinkState, sym: u32) -> Option<(SymIdx, usize)> {
        let s = self.cubin.get().symbols.get(sym as usize)?;
        if s.binding != STB_GLOBAL || s.sym_type != STT_FUNC || !s.is_defined() {
            return None;
        }
        let existing = st.lookup(&s.name)?;
        let old = st.symbol(existing)?;
        (old.binding == STB_WEAK && old.sym_type == STT_FUNC && old.is_defined() && old.input != self.input)
            .then_some((existing, old.input))
    }

    /// sm_100+ inputs: rewrites the classic `.debug_frame` around the weak
    /// functions this input lost or won (`frame_edit`), before it is merged
    /// (right after the weak pass), and moves its relocations with it.
    fn edit_frames(&mut self, st: &mut LinkState, ev: &mut Vec<Event>) {
        let (Some((df, classic)), Some((_, merc))) = (
            self.cubin.get().section_by_name(".debug_frame"),
            self.cubin.get().section_by_name(".nv.merc.debug_frame"),
        ) else {
            return;
        };
        let recs = frame_records(&classic.data);
        let mut fates = Vec::new();
        let mut winners = Vec::new();
        for s in self
            .cubin
            .get()
            .sections
            .iter()
            .filter(|s| is_reloc_section(s.sh_type) && s.info as usize == df)
        {
            for r in &s.relocs {
                let Some(k) = frame_edit::fde_at_initial_location(&recs, r.offset) else {
                    continue;
                };
                if self.is_discarded(st, r.sym) {
                    fates.push((k, Fate::Lost));
                } else if let Some(&(_, out, old_input)) = self.won.iter().find(|w| w.0 == r.sym) {
                    fates.push((k, Fate::Won));
                    winners.push((k, out, old_input));
                } else if let Some((out, old_input)) = self.will_replace_weak(st, r.sym) {
                    // A global definition the symbols pass will put in place
                    // of an earlier weak one wins the same way
                    // (weak_vs_global_func_sm100).
                    fates.push((k, Fate::Won));
                    winners.push((k, out, old_input));
                }
            }
        }
        let Some(edit) = frame_edit::edit(&classic.data, &merc.data, &fates) else {
            return;
        };
        let original = classic.data.to_vec();
        for (k, out, old_input) in winners {
            copy_fde_body(st, &original, recs[k], out, old_input);
        }
        let tied: Vec<usize> = (self.cubin.get().sections.iter().enumerate())
            .filter(|(_, s)| is_reloc_section(s.sh_type) && s.info as usize == df)
            .map(|(j, _)| j)
            .collect();
        for j in tied {
            let Some(relocs) = self.cubin.relocs_mut(j) else {
                continue;
            };
            relocs.retain_mut(|r| match edit.map(r.offset) {
                Some(o) => {
                    r.offset = o;
                    true
                }
                None => {
                    ev.push(Event::RelocDropped {
                        input: self.input,
                        in_section: j,
                        offset: r.offset,
                        reason: "its frame record belongs to a weak definition this input lost".into(),
                    });
                    false
                }
            });
        }
        self.cubin.set_section_data(df, edit.data.clone());
        self.frame = Some((original, edit));
    }

    /// Maps the input's section symbol of section `j` (if it has one and it
    /// is not mapped yet) to the output section symbol of `out`.
    fn map_section_symbol(&self, st: &mut LinkState, j: usize, out: usize, ev: &mut Vec<Event>) {
        let found = self.section_symbol_of.get(&j).copied();
        if let Some(i) = found
            && st.maps[self.input].map_symbol_index[i] == 0
        {
            let idx = self.section_symbol(st, out);
            self.map_symbol(st, i, idx, Resolution::Local, ev);
        }
    }

    fn translate(&self, st: &LinkState, in_sym: u32) -> Option<SymIdx> {
        let m = st.maps[self.input].map_symbol_index.get(in_sym as usize)?;
        (*m != 0 || in_sym == 0).then_some(SymIdx(*m))
    }

    /// Rewrites input symbol indices to output ones; false when one of them
    /// was not merged (the record is then dropped).
    fn translate_all(&self, st: &LinkState, refs: Vec<&mut u32>) -> bool {
        let mut ok = true;
        for r in refs {
            match self.translate(st, *r) {
                Some(o) => *r = o.0 as u32,
                None => ok = false,
            }
        }
        ok
    }

    /// Whether NOBITS input section `j` holds only weak data definitions
    /// that lost (zero-initialised C++17 inline `__device__` variables):
    /// nvlink gives it no space, while a section with one kept symbol is
    /// placed whole, with holes for its lost duplicates
    /// (weak_nobits_dups_sm90; tests/corpus/README.md, 121).
    fn lost_nobits(&self, st: &LinkState, j: usize) -> bool {
        if !self
            .cubin
            .get()
            .sections
            .get(j)
            .is_some_and(|x| j != 0 && is_nobits(x.sh_type))
        {
            return false;
        }
        let lost = &st.maps[self.input].weak_processed;
        let mut any = false;
        for (i, y) in self.cubin.get().symbols.iter().enumerate() {
            if i == 0 || y.sym_type == STT_SECTION || y.shndx as usize != j {
                continue;
            }
            if !lost.get(i).copied().unwrap_or(false) || y.sym_type == STT_FUNC {
                return false;
            }
            any = true;
        }
        any && st.maps[self.input].map_section_index.get(j).is_none_or(|&o| o == 0)
    }

    /// The byte ranges of input section `target` holding weak data
    /// definitions that lost to another weak one: nvlink keeps their bytes
    /// but not their relocations (weak_data_reloc_dups_sm90;
    /// tests/corpus/README.md, 122). One that lost to a strong definition
    /// keeps them (weak_data_lost_to_strong_sm90, observation 128). Found
    /// once per relocation section: a scan per relocation was most of the
    /// NVSHMEM link.
    fn lost_data_ranges(&self, st: &LinkState, target: usize) -> Vec<(u64, u64)> {
        lost_data_ranges(&self.cubin.get().symbols, target, |i| {
            lost_weak_data(st, self.input, &self.lost_to_strong, i)
        })
    }

    fn is_discarded(&self, st: &LinkState, in_sym: u32) -> bool {
        st.maps[self.input]
            .weak_processed
            .get(in_sym as usize)
            .copied()
            .unwrap_or(false)
            && self
                .cubin
                .get()
                .symbols
                .get(in_sym as usize)
                .is_some_and(|s| s.sym_type == STT_FUNC)
    }

    fn nvinfo(&mut self, st: &mut LinkState, j: usize, ev: &mut Vec<Event>) {
        let s = &self.cubin.get().sections[j];
        let Ok(info) = nvinfo::decode(&s.data) else {
            ev.push(Event::SectionSkipped {
                input: self.input,
                in_section: j,
                name: s.name.clone(),
                reason: "undecodable .nv.info".into(),
            });
            return;
        };
        // `.nv.info.<fn>` is tied to its function's text section through sh_info.
        let function = if s.name == ".nv.info" {
            None
        } else {
            let owner = self.function_of.get(&(s.info as usize)).copied();
            owner.and_then(|o| self.translate(st, o as u32))
        };
        let (mut kept, mut dropped) = (0, 0);
        for mut e in info.entries {
            let refs = e.symbol_refs();
            if refs.iter().any(|&r| self.is_discarded(st, r)) {
                dropped += 1;
                continue;
            }
            if !self.translate_all(st, e.symbol_refs_mut()) {
                dropped += 1;
                continue;
            }
            st.nvinfo.push(OutNvInfo {
                function,
                entry: e,
                input: self.input,
                live: true,
            });
            kept += 1;
        }
        ev.push(Event::NvInfoMapped {
            input: self.input,
            in_section: j,
            kept,
            dropped,
        });
    }

    fn callgraph(&mut self, st: &mut LinkState, j: usize, ev: &mut Vec<Event>) {
        let Ok(cg) = callgraph::decode(&self.cubin.get().sections[j].data) else {
            return;
        };
        let (mut kept, mut dropped) = (0, 0);
        for mut rec in cg.records {
            let from_discarded = match rec {
                Record::Call { caller, .. } | Record::IndirectCall { caller, .. } => self.is_discarded(st, caller),
                Record::AddressRef { referrer, .. } => self.is_discarded(st, referrer),
                _ => false,
            };
            if from_discarded {
                dropped += 1;
                continue;
            }
            if !self.translate_all(st, rec.symbol_refs_mut()) {
                dropped += 1;
                continue;
            }
            st.callgraph.push(OutCallEdge {
                record: rec,
                input: self.input,
                live: true,
            });
            kept += 1;
        }
        ev.push(Event::CallGraphMapped {
            input: self.input,
            kept,
            dropped,
        });
    }

    /// The addend of a `.debug_frame` CIE pointer. ptxas for sm_100+ writes
    /// the offset the CIE has in `.nv.merc.debug_frame`; nvlink points at
    /// the classic CIE of the same rank (arch_sm100_smoke: lib.cubin's
    /// `.debug_frame + 0x70` is its second CIE, at 0x68).
    fn frame_addend(&self, target: usize, addend: i64) -> i64 {
        let Some(classic) = self
            .cubin
            .get()
            .sections
            .get(target)
            .filter(|x| x.name == ".debug_frame")
        else {
            return addend;
        };
        let Some(merc) = self.merc_frame.and_then(|k| self.cubin.get().sections.get(k)) else {
            return addend;
        };
        // CIE ranks are those of the section as ptxas wrote it.
        let before = self.frame.as_ref().map_or(&classic.data[..], |f| &f.0[..]);
        let (c, m) = (frame_cies(before), frame_cies(&merc.data));
        let at = match m.iter().position(|&o| o as i64 == addend) {
            Some(k) if c.len() == m.len() => c[k],
            _ => return addend,
        };
        self.frame.as_ref().map_or(at, |f| f.1.map_boundary(at)) as i64
    }

    fn relocations(&self, st: &mut LinkState, j: usize, ev: &mut Vec<Event>) -> Result<(), MergeFailed> {
        let s = &self.cubin.get().sections[j];
        let target = s.info as usize;
        if self.dropped.contains(&target) {
            for r in &s.relocs {
                ev.push(Event::RelocDropped {
                    input: self.input,
                    in_section: j,
                    offset: r.offset,
                    reason: "the section it patches belongs to a discarded weak definition".into(),
                });
            }
            return Ok(());
        }
        let (out, base) = self.ensure_section(st, target, ev)?;
        if s.relocs.is_empty() && s.sh_type == SHT_RELA {
            st.empty_relas.push((out, st.relocs.len(), self.input));
        }
        let debug = classify(&self.cubin.get().sections[target].name, 0) == SectionClass::Debug;
        let lost_data = if debug {
            Vec::new()
        } else {
            self.lost_data_ranges(st, target)
        };
        for r in &s.relocs {
            // An incoming definition that lost: its debug relocations go (an
            // existing one that lost keeps them: see `replace_function`),
            // except in `.debug_info` and `.debug_loc`, which keep them
            // against the winner (debug_weak_template_sm90).
            let tname = self.cubin.get().sections[target].name.as_str();
            if debug && self.is_discarded(st, r.sym) && !matches!(tname, ".debug_info" | ".debug_loc") {
                if super::line_order::is_line_table(tname) {
                    st.lost_line_records.push((out, base + r.offset));
                }
                ev.push(Event::RelocDropped {
                    input: self.input,
                    in_section: j,
                    offset: r.offset,
                    reason: "debug relocation for a weak definition this input lost".into(),
                });
                continue;
            }
            if lost_data.iter().any(|&(a, b)| r.offset >= a && r.offset < b) {
                ev.push(Event::RelocDropped {
                    input: self.input,
                    in_section: j,
                    offset: r.offset,
                    reason: "it patches a weak data definition this input lost".into(),
                });
                continue;
            }
            let sym = match self.translate(st, r.sym) {
                Some(x) => x,
                None => {
                    // A section symbol of a section not yet mapped.
                    let y = &self.cubin.get().symbols[r.sym as usize];
                    if y.sym_type == STT_SECTION && !self.dropped.contains(&(y.shndx as usize)) {
                        let (o, _) = self.ensure_section(st, y.shndx as usize, ev)?;
                        let idx = self.section_symbol(st, o);
                        st.maps[self.input].map_symbol_index[r.sym as usize] = idx.0;
                        idx
                    } else {
                        ev.push(Event::RelocDropped {
                            input: self.input,
                            in_section: j,
                            offset: r.offset,
                            reason: format!("symbol {} was not merged", r.sym),
                        });
                        continue;
                    }
                }
            };
            let addend = if debug
                && self
                    .cubin
                    .get()
                    .symbols
                    .get(r.sym as usize)
                    .is_some_and(|y| y.sym_type == STT_SECTION && y.shndx as usize == target)
            {
                self.frame_addend(target, r.addend)
            } else {
                r.addend
            };
            let rec = OutReloc {
                section: out,
                offset: base + r.offset,
                rtype: r.rtype,
                sym,
                addend,
                rela: s.sh_type == SHT_RELA,
                input: self.input,
                live: true,
            };
            st.relocs.push(rec);
            ev.push(Event::RelocMapped {
                input: self.input,
                out_section: out,
                offset: rec.offset,
                rtype: r.rtype,
                sym,
            });
        }
        Ok(())
    }
}

/// Whether classic symbol `i` of input `input` is a weak data definition
/// that lost to another weak one (merge; `mercury_merge` for the Mercury
/// twins).
pub(super) fn lost_weak_data(st: &LinkState, input: usize, lost_to_strong: &BTreeSet<usize>, i: usize) -> bool {
    i != 0 && !lost_to_strong.contains(&i) && st.maps[input].weak_processed.get(i).copied().unwrap_or(false)
}

/// The byte ranges of section `target` that the data symbols of `symbols`
/// for which `lost` holds cover.
pub(super) fn lost_data_ranges(symbols: &[Symbol], target: usize, lost: impl Fn(usize) -> bool) -> Vec<(u64, u64)> {
    symbols
        .iter()
        .enumerate()
        .filter(|&(i, y)| y.sym_type != STT_FUNC && y.sym_type != STT_SECTION && y.shndx as usize == target && lost(i))
        .map(|(_, y)| (y.value, y.value + y.size))
        .collect()
}

/// When nvlink creates the output section of each input section while it
/// merges the input (corpus observation 59; the keys are [`Created`]).
fn creation_order(c: &Cubin<'_>) -> Vec<Created> {
    let n = c.sections.len();
    // sm_100+: a kernel's `.nv.constant0.<k>` is made with the kernel, in
    // its function symbol's order, not where the input lists it (libcudadevrt
    // lists its static kernels' banks in the reverse of its symbols: real
    // world cdpSimplePrint sm_100; cdp_local_undefined_sm100); sm_90
    // keeps the input's order (dynpar_cudadevrt_sm90).
    let mercury = c.sections.iter().any(super::state::mercury::is_mercury);
    let mut first_symbol: Vec<Option<u32>> = vec![None; n];
    let mut first_function: Vec<Option<(u32, bool)>> = vec![None; n];
    // sm_100+: local functions' code first, then the others': ptxas 13.0
    // lists weak functions among the locals, and nvlink still makes the
    // code of the local ones after them first (NVSHMEM's
    // transfer_device.cu.o for sm_120: `__cuda_sm20_div_u64`, listed after
    // the weak functions, gets its section symbol before theirs; for sm_90
    // nvlink keeps the symbol order). ptxas 13.5 lists every local first,
    // so there the order is the symbol order.
    let count = c.symbols.len() as u32;
    for (i, s) in c.symbols.iter().enumerate().skip(1) {
        let j = s.shndx as usize;
        if s.shndx == 0 || j >= n || s.sym_type == STT_SECTION {
            continue;
        }
        if s.sym_type == STT_FUNC {
            let rank = if s.binding == STB_LOCAL || !mercury {
                i as u32
            } else {
                count + i as u32
            };
            if first_function[j].is_none() {
                first_function[j] = Some((rank, s.other & super::state::query::STO_ENTRY != 0));
            }
        } else if first_symbol[j].is_none() {
            first_symbol[j] = Some(i as u32);
        }
    }
    c.sections
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let class = classify(&s.name, s.sh_type);
            let kernel = (s.flags & SHF_INFO_LINK != 0)
                .then(|| first_function.get(s.info as usize).copied().flatten())
                .flatten()
                .filter(|f| f.1)
                .map(|f| f.0);
            if is_reloc_section(s.sh_type) {
                (4, j as u32, 0)
            } else if let Some((i, _)) = first_function[j] {
                (0, i, 1)
            } else if class == SectionClass::Text {
                (0, u32::MAX, j as u32)
            } else if let Some(k) = kernel
                && s.sh_type == SHT_CUDA_INFO
            {
                (0, k, 2)
            } else if let Some(k) = kernel
                && class == SectionClass::Shared
            {
                (0, k, 3)
            } else if let Some(k) = kernel
                && mercury
                && class == SectionClass::Constant(0)
            {
                (0, k, 4)
            } else if let Some(f) = first_symbol[j] {
                (1, f, 0)
            } else if s.sh_type == SHT_CUDA_INFO {
                (3, j as u32, 0)
            } else {
                (2, j as u32, 0)
            }
        })
        .collect()
}

/// Whether section `j` of `c` is an empty `.nv.shared.reserved.*` that
/// only aliases name (`nvcc -ewp`: `__nv_reservedSMEM_offset_0_alias`,
/// NOTYPE): nvlink makes nothing of it, of its Mercury copy, nor of the
/// aliases (ewp_reserved_alias_sm90, ewp_reserved_alias_sm100).
pub(super) fn empty_reserved_shared(c: &Cubin<'_>, j: usize) -> bool {
    c.sections.get(j).is_some_and(|s| {
        j != 0
            && classify(&s.name, s.sh_type) == SectionClass::SharedReserved
            && s.size() == 0
            && c.symbols
                .iter()
                .filter(|y| y.shndx as usize == j && y.sym_type != STT_SECTION)
                .all(|y| y.sym_type == STT_NOTYPE && y.size == 0)
    })
}

fn is_reloc_section(sh_type: u32) -> bool {
    matches!(sh_type, SHT_REL | SHT_RELA)
}

/// The earlier definition's FDE in the output `.debug_frame` (found by its
/// initial-location relocation, which now names the winner) takes the
/// winner's classic FDE body when both have the same size.
fn copy_fde_body(st: &mut LinkState, classic: &[u8], fde: FrameRecord, out: SymIdx, old_input: usize) {
    let spots: Vec<(usize, u64)> = st
        .relocs
        .iter()
        .filter(|r| r.live && r.input == old_input && r.sym == out && st.sections[r.section].name == ".debug_frame")
        .map(|r| (r.section, r.offset))
        .collect();
    for (sec, at) in spots {
        let Some(start) = at.checked_sub(frame_edit::WIDE_INITIAL_LOCATION) else {
            continue;
        };
        let data = &mut st.sections[sec].data;
        let Some(old) = data
            .get(start as usize..)
            .and_then(|d| frame_records(d).first().copied())
        else {
            continue;
        };
        if old.cie || !old.wide || old.size != fde.size || fde.size < frame_edit::WIDE_INITIAL_LOCATION {
            continue;
        }
        let from = (fde.offset + frame_edit::WIDE_INITIAL_LOCATION) as usize..(fde.offset + fde.size) as usize;
        data[at as usize..at as usize + from.len()].copy_from_slice(&classic[from]);
        return;
    }
}

/// The offsets of the CIEs of a `.debug_frame` (32- or 64-bit DWARF).
pub fn frame_cies(d: &[u8]) -> Vec<u64> {
    frame_records(d)
        .into_iter()
        .filter(|r| r.cie)
        .map(|r| r.offset)
        .collect()
}

/// nvlink's classification of a section by name (seed 001: NOBITS and
/// PROGBITS sections are reclassified by their `.nv.*` prefix).
pub fn classify(name: &str, sh_type: u32) -> SectionClass {
    if name.starts_with(".text.") {
        SectionClass::Text
    } else if name == ".nv.global" || sh_type == SHT_CUDA_GLOBAL {
        SectionClass::Global
    } else if name.starts_with(".nv.global.init") || sh_type == SHT_CUDA_GLOBAL_INIT {
        SectionClass::GlobalInit
    } else if name.starts_with(".nv.shared.reserved.") {
        SectionClass::SharedReserved
    } else if name.starts_with(".nv.shared.") || sh_type == SHT_CUDA_SHARED {
        SectionClass::Shared
    } else if name.starts_with(".nv.local.") || sh_type == SHT_CUDA_LOCAL {
        SectionClass::Local
    } else if let Some(rest) = name.strip_prefix(".nv.constant") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        SectionClass::Constant(digits.parse().unwrap_or(0))
    } else if name.starts_with(".debug_") || name.starts_with(".nv_debug") {
        SectionClass::Debug
    } else if matches!(
        sh_type,
        SHT_CUDA_UFT | SHT_CUDA_UFT_ENTRY | SHT_CUDA_UDT | SHT_CUDA_UDT_ENTRY
    ) {
        SectionClass::Unified
    } else {
        SectionClass::Other
    }
}

/// The virtual SM recorded in `.note.nv.cuinfo` (desc: u16 version, u16 virtual SM, u32 toolkit).
pub fn virtual_sm(cubin: &Cubin<'_>) -> Option<u32> {
    let (_, s) = cubin.section_by_name(".note.nv.cuinfo")?;
    let d = &s.data;
    let namesz = u32::from_le_bytes(d.get(0..4)?.try_into().ok()?) as usize;
    let desc = 12 + namesz.div_ceil(4) * 4;
    let v = u16::from_le_bytes(d.get(desc + 2..desc + 4)?.try_into().ok()?);
    Some(v as u32)
}
