//! Layout: where everything lands in the memory spaces (globals,
//! global.init, shared per kernel, local, constant banks), common symbols,
//! reserved shared memory, and the two table passes that run inside layout:
//! bindless references and the unified function/data tables.
//!
//! It stays one file because it is one phase over one model: every rule
//! below places something in the same memory spaces, and the bindless and
//! unified-table passes run inside it on the same placement state.
//!
//! What nvlink 13.5 does, as the corpus and experiments show it:
//!
//! * Common symbols go to `.nv.global` (created NOBITS, WA, when no input has
//!   one), in reverse order of first appearance, each aligned to the
//!   alignment its *first* definition gave (a later, larger common grows
//!   the size only): experiments in the report, corpus
//!   `common_data_diff_size_sm90` (align 4 kept although b.cubin says 8).
//! * A relocatable cubin gives a shared variable its alignment, not an
//!   offset, as st_value (like a common). A final link lays shared memory
//!   out per kernel: the module-level shared variables (`.nv_debug.shared`)
//!   several kernels reach, placed once for all by first fit
//!   (`shared_order::first_fit`, observation 204); then, from the furthest
//!   end of those the kernel reaches, its own and the module variables
//!   only it reaches; the section grows by the reserved shared memory
//!   (`.nv.reservedSmem.cap`, 0x400 on sm_90) (corpus `shared_static_sm90`,
//!   `arch_sm90_smoke`: 0x100 → 0x500; sm_75…sm_89 inputs declare no cap).
//! * An extern `.shared` array (dynamic shared memory, undefined, size 0,
//!   st_value its alignment) is placed in `.nv_debug.shared` (size 0); each
//!   kernel that reaches it has it at the end of its static shared memory,
//!   aligned, and each function's code sees it where its kernels have it
//!   (`LinkState::extern_shared`); it raises those kernels' sections'
//!   alignment, and a kernel without static shared memory gets a section
//!   (corpus `shared_dynamic_sm90`, `shared_dynamic_kernels_sm90`). `-r`
//!   gives each kernel naming it an `externsharedinstance` instead
//!   (`relocatable_externs`).
//! * A final link leaves out the shared variables, the kernels' `_param`
//!   symbols and the unified-table placeholders `__UFT*`/`__UDT*`.
//! * A final link copies each device function's constant bank 2 into the
//!   banks of the kernels reaching it (`link::constant2`).

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

use crate::cubin::consts::*;

use super::event::Event;
pub use super::event::layout::LayoutEvent;
use super::reach::References;
use super::setup::LinkSetup;
use super::shared_order;
use super::state::query::{input_of, is_local_undefined_object, is_undefined_variable, state_rank, text_owners};
use super::state::{LinkState, OutSection, OutSymbol, Place, SectionClass, SymIdx};

pub use super::state::query::STO_SHARED;
/// st_other memory-space bits of a reserved-shared-memory variable (seed 001).
const STO_RESERVED: u8 = 0xa0;
/// Prefix of the reserved shared memory sections; `.nv.shared.reserved.N`
/// starts at `.nv.reservedSmem.offsetN`.
const RESERVED_SECTION: &str = ".nv.shared.reserved.";
const RESERVED_OFFSET: &str = ".nv.reservedSmem.offset";
/// Name of the reserved-shared-memory size symbol.
const RESERVED_CAP: &str = ".nv.reservedSmem.cap";
/// The module-level shared section nvlink uses.
const MODULE_SHARED: &str = ".nv_debug.shared";
/// What `-r` names a kernel's view of the extern shared arrays, with its
/// st_other and the alignment of the kernel's shared section it sits after.
pub const EXTERN_INSTANCE: &str = "externsharedinstance";
const EXTERN_INSTANCE_OTHER: u8 = 0x41;
const EXTERN_INSTANCE_ALIGN: u64 = 16;
/// The reserved shared memory every kernel's section grows by
/// (`.nv.reservedSmem.cap`'s value; 0 where the inputs declare none).
fn reserved_cap(st: &LinkState) -> u64 {
    st.lookup(RESERVED_CAP)
        .and_then(|i| st.symbol(i))
        .map_or(0, |s| s.value)
}

/// Where `-r` defines an extern shared array in `.nv_debug.shared`.
const EXTERN_ARRAY_VALUE: u64 = 0x10;

/// Defines extern shared array `x` in `.nv_debug.shared` (section `k`) at `offset`.
fn place_extern(st: &mut LinkState, x: SymIdx, k: usize, offset: u64, ev: &mut Vec<LayoutEvent>) {
    if let Some(s) = st.symbol_mut(x) {
        s.place = Place::Section(k);
        s.value = offset;
        ev.push(LayoutEvent::Placed {
            name: s.name.to_string(),
            section: MODULE_SHARED.into(),
            offset,
            size: s.size,
        });
    }
}

/// Where the layout stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    /// Undefined symbols get back the value their input gave them.
    Values,
    /// The i-th common symbol (in layout order).
    Commons(usize),
    /// The module-level shared variables.
    ModuleShared,
    /// The i-th kernel's shared memory.
    KernelShared(usize),
    /// The dynamic shared arrays.
    ExternShared,
    /// The reserved shared memory (`.nv.shared.reserved.*`).
    ReservedShared,
    /// The device functions' constant banks 2 (`link::constant2`).
    FunctionConstants,
    /// Symbols and sections a final link leaves out.
    Prune,
    Done,
}

/// Why a final link makes a `.nv.shared.<k>` for a kernel that had none: it
/// has a section symbol on every architecture for a module-level variable,
/// on sm_90 only for an extern array alone (generated kernels on sm_75,
/// sm_80, sm_86, sm_89, sm_90, sm_100, sm_120; shared_module_only_sm75),
/// or when kernels sharing a function raise it (`share_extern_offset`).
/// `-r` with extern shared arrays also gives every other kernel one, without
/// a section symbol (dce_removed_extern_shared_sm90 with -r: k_kept, which
/// has no shared memory, gets 0x10 aligned to 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NewSection {
    ModuleVariable,
    ExternArray,
    RelocatableExterns,
}

/// A kernel with its own shared section.
#[derive(Debug, Clone)]
struct KernelShared {
    kernel: SymIdx,
    section: usize,
    /// Its own shared variables' alignment, once laid out (`kernel_shared`).
    own_align: u64,
}

/// The phase's cursor.
#[derive(Debug, Clone)]
pub struct Layout {
    stage: Stage,
    /// st_value of symbols as their (first) input states it: the alignment
    /// of commons and shared variables, the value of undefined names. Moved
    /// into `LinkState::input_values` by the first step, read there after.
    raw_value: BTreeMap<SymIdx, u64>,
    commons: Vec<SymIdx>,
    kernels: Vec<KernelShared>,
    /// Module-level shared variables: offset and alignment once laid out.
    module_vars: Vec<SymIdx>,
    /// What each kernel (same index as `kernels`) reaches.
    reach: Vec<BTreeSet<SymIdx>>,
    /// Module shared variables more than one kernel reaches: laid out once,
    /// first, for all of them.
    prefix: Vec<SymIdx>,
    /// What nvlink lays out in `.nv_debug.shared` by first fit: the prefix
    /// and the variables no kernel reaches. Once it holds any, every kernel
    /// takes the module's alignment (fuzzed links on sm_90: a kernel with a
    /// 16-byte `char` array of its own, beside dead functions' `float4`
    /// arrays, gets a section aligned to 16).
    fit: Vec<SymIdx>,
    module_size: u64,
    module_align: u64,
    /// Extern shared arrays: the offset each needs (the largest over kernels).
    externs: BTreeMap<SymIdx, u64>,
    /// A final link's offset of each extern shared array in each kernel
    /// reaching it.
    extern_at: BTreeMap<(SymIdx, SymIdx), u64>,
    /// Extern shared arrays only removed code named: nvlink made their
    /// `.nv_debug.shared` before dead-code elimination, and it stays, empty,
    /// at their alignment (a kernel nothing launches with an extern array).
    dead_externs: Vec<SymIdx>,
    /// An input's `.nv_debug.shared` that a final link leaves out because
    /// its variables or extern arrays want more than 16-byte alignment
    /// (`extern_shared`).
    module_over_aligned: Option<usize>,
    /// Kernels' `.nv.shared.<k>` made for extern arrays alone.
    extern_made: Vec<usize>,
    /// Inputs with a weak shared variable, whose kernels' sections ptxas
    /// aligned to 16 (`kernel_shared`).
    weak_shared_inputs: BTreeSet<usize>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            stage: Stage::Done,
            raw_value: BTreeMap::new(),
            commons: Vec::new(),
            kernels: Vec::new(),
            module_vars: Vec::new(),
            reach: Vec::new(),
            prefix: Vec::new(),
            fit: Vec::new(),
            module_size: 0,
            module_align: 1,
            externs: BTreeMap::new(),
            extern_at: BTreeMap::new(),
            dead_externs: Vec::new(),
            module_over_aligned: None,
            extern_made: Vec::new(),
            weak_shared_inputs: BTreeSet::new(),
        }
    }
}

fn is_shared_var(s: &OutSymbol) -> bool {
    s.other & 0xe0 == STO_SHARED && s.sym_type != STT_SECTION
}

/// STV_INTERNAL, the visibility in st_other's low bits.
const STV_INTERNAL: u8 = 1;

/// A variable of reserved shared memory (`__nv_reservedSMEM_*`).
fn is_reserved_var(s: &OutSymbol) -> bool {
    s.other & 0xe0 == STO_RESERVED && s.sym_type != STT_SECTION
}

fn align_up(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// Where each symbol stands in the input that defines it: (input, index in
/// its symbol table).
fn input_positions(st: &LinkState) -> foldhash::HashMap<SymIdx, (usize, usize)> {
    let mut at = foldhash::HashMap::default();
    for (input, maps) in st.maps.iter().enumerate() {
        for (j, &m) in maps.map_symbol_index.iter().enumerate() {
            let idx = SymIdx(m);
            if st.symbol(idx).is_some_and(|s| s.input == input) {
                at.entry(idx).or_insert((input, j));
            }
        }
    }
    at
}

impl Layout {
    pub fn new(st: &LinkState, _setup: &LinkSetup) -> Self {
        // What layout reads of each input: its symbols' values and its
        // sections' sh_info (a parse per input, dropped at once: keeping
        // every parsed input was a fifth of a 5,000-object link's memory).
        let parsed: Vec<Option<(Vec<u64>, Vec<u32>)>> = st
            .inputs
            .par_iter()
            .map(|r| {
                let c = crate::cubin::read::parse(&r.data).ok()?;
                let values = c.symbols.iter().map(|y| y.value).collect();
                Some((values, c.sections.iter().map(|s| s.info).collect()))
            })
            .collect();
        // Raw input values, found through the mapping arrays.
        let mut raw_value = BTreeMap::new();
        for (input, maps) in st.maps.iter().enumerate() {
            let Some(Some(c)) = parsed.get(input) else { continue };
            for (j, &m) in maps.map_symbol_index.iter().enumerate() {
                let idx = SymIdx(m);
                let Some(s) = st.symbol(idx) else { continue };
                if s.input != input || raw_value.contains_key(&idx) {
                    continue;
                }
                let wanted = !s.is_defined()
                    || matches!(s.place, Place::Common { .. })
                    || is_shared_var(s)
                    || is_reserved_var(s);
                if wanted && let Some(&v) = c.0.get(j) {
                    raw_value.insert(idx, v);
                }
            }
        }
        let mut commons: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(_, s)| matches!(s.place, Place::Common { .. }) && !s.removed)
            .map(|(i, _)| i)
            .collect();
        commons.reverse();
        // Per-kernel shared sections: linked (sh_info) to a kernel's code.
        let owners = text_owners(st);
        let mut kernels = Vec::new();
        for (k, sec) in st.sections.iter().enumerate() {
            if sec.class != SectionClass::Shared || sec.removed || sec.flags & SHF_INFO_LINK == 0 {
                continue;
            }
            let Some((input, j)) = input_of(st, k) else { continue };
            let Some(info) = parsed
                .get(input)
                .and_then(|c| c.as_ref())
                .and_then(|c| c.1.get(j))
                .map(|&info| info as usize)
            else {
                continue;
            };
            let text = st.maps[input].map_section_index.get(info).copied().unwrap_or(0) as usize;
            if let Some(&kernel) = owners.get(&text) {
                kernels.push(KernelShared {
                    kernel,
                    section: k,
                    own_align: 1,
                });
            }
        }
        let module_vars: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(_, s)| is_shared_var(s) && !s.removed)
            .filter(|(_, s)| match s.place {
                Place::Section(k) => !kernels.iter().any(|x| x.section == k),
                _ => false,
            })
            .map(|(i, _)| i)
            .collect();
        let references = References::of(st);
        let reach: Vec<BTreeSet<SymIdx>> = kernels.iter().map(|k| references.closure(k.kernel)).collect();
        let externs = st
            .all_symbols()
            .filter(|(_, s)| is_shared_var(s) && !s.removed && s.place == Place::Undefined)
            .map(|(i, _)| (i, 0))
            .collect();
        let dead_externs = st
            .all_symbols()
            .filter(|(_, s)| is_shared_var(s) && s.removed && s.place == Place::Undefined)
            .map(|(i, _)| i)
            .collect();
        let weak_shared_inputs = st
            .all_symbols()
            .filter(|(_, s)| s.binding == STB_WEAK && is_shared_var(s))
            .map(|(_, s)| s.input)
            .collect();
        Layout {
            stage: Stage::Values,
            raw_value,
            commons,
            kernels,
            module_vars,
            reach,
            prefix: Vec::new(),
            fit: Vec::new(),
            module_size: 0,
            module_align: 1,
            externs,
            extern_at: BTreeMap::new(),
            dead_externs,
            module_over_aligned: None,
            extern_made: Vec::new(),
            weak_shared_inputs,
        }
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// One unit of work.
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        let mut ev = Vec::new();
        let final_link = !setup.relocatable;
        self.stage = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Values => {
                st.input_values = std::mem::take(&mut self.raw_value);
                Self::restore_values(st);
                Self::local_undefined(st, final_link, &mut ev);
                Stage::Commons(0)
            }
            // `-r` places commons too (common_data_*_sm90 linked with -r),
            // then leaves shared memory to the final link.
            Stage::Commons(i) => match self.commons.get(i).copied() {
                Some(idx) => {
                    self.place_common(st, idx, &mut ev);
                    Stage::Commons(i + 1)
                }
                None if final_link => Stage::ModuleShared,
                None => {
                    Self::relocatable_shared(st);
                    self.relocatable_externs(st, &mut ev);
                    Stage::Done
                }
            },
            Stage::ModuleShared => {
                self.new_kernel_sections(st, &mut ev);
                let position = input_positions(st);
                let size = |v: &SymIdx| st.symbol(*v).map_or(0, |s| s.size);
                // nvlink's list holds the extern shared arrays too (size 0, in
                // `.nv_debug.shared` with the variables): they change where
                // equal sizes land (fuzzed sm_75 -G link with an extern array
                // in the first input: two equal `float4[24]` arrays).
                let mut vars = self.module_vars.clone();
                vars.extend(self.externs.keys().copied());
                vars.sort_by_key(|v| position.get(v).copied());
                vars = shared_order::module_order(&vars, size);
                vars.retain(|v| !self.externs.contains_key(v));
                self.module_vars = vars;
                self.prefix = self
                    .module_vars
                    .iter()
                    .copied()
                    .filter(|v| self.reach.iter().filter(|r| r.contains(v)).count() > 1)
                    .collect();
                // The first fit takes the variables no kernel reaches too (a
                // dead function's): at 0, as they meet none, where they push
                // aside variables that jump past them (`shared_order::first_fit`).
                self.fit = self
                    .module_vars
                    .iter()
                    .copied()
                    .filter(|v| self.reach.iter().filter(|r| r.contains(v)).count() != 1)
                    .collect();
                self.module_shared(st, &mut ev);
                self.every_kernel_section(st, &mut ev);
                Stage::KernelShared(0)
            }
            Stage::KernelShared(i) if i < self.kernels.len() => {
                self.kernel_shared(st, i, setup.debug, &mut ev);
                Stage::KernelShared(i + 1)
            }
            Stage::KernelShared(_) => Stage::ExternShared,
            Stage::ExternShared => {
                self.extern_shared(st, setup.debug, &mut ev);
                Stage::ReservedShared
            }
            Stage::ReservedShared => {
                self.reserved_shared(st, &mut ev);
                Stage::FunctionConstants
            }
            Stage::FunctionConstants => {
                super::constant2::merge_function_banks(st, &mut ev);
                super::mercury_merge::copy_function_banks(st);
                Stage::Prune
            }
            Stage::Prune => {
                self.prune(st, setup.preserve_relocs, setup.debug, &mut ev);
                Stage::Done
            }
            Stage::Done => Stage::Done,
        };
        let mut out: Vec<Event> = ev.into_iter().map(Event::Layout).collect();
        if matches!(self.stage, Stage::Done) {
            out.extend(constant_bank_limit(st).map(Event::Diagnostic));
        }
        out
    }

    /// nvlink keeps the st_value of an undefined name (`.nv.reservedSmem.cap`
    /// stays 0x400 in every corpus output that has it).
    fn restore_values(st: &mut LinkState) {
        let values: Vec<(SymIdx, u64)> = st.input_values.iter().map(|(&i, &v)| (i, v)).collect();
        for (idx, v) in values {
            if let Some(s) = st.symbol_mut(idx)
                && s.place == Place::Undefined
            {
                s.value = v;
            }
        }
    }

    /// LOCAL undefined names (libcudadevrt's `.nv.ptx.const0.size`; probed
    /// by giving a kernel's relocation a LOCAL undefined symbol, sm_90): an
    /// OBJECT gets st_value all ones (relocations against it write it and
    /// go, see reloc::decide) and is a CUDA object in the output, but a
    /// final link leaves it out when its visibility is internal (st_other
    /// 1); a NOTYPE one (its relocations write 0) is left out. libcudadevrt's
    /// `.nv.ptx.const0.size` is the size of the output's `.nv.constant3`
    /// where the link has one (0x18 for 24 bytes of `__constant__` data:
    /// devrt_const0_size_sm90, observation 150).
    fn local_undefined(st: &mut LinkState, final_link: bool, ev: &mut Vec<LayoutEvent>) {
        let user_bank = st
            .section_named(".nv.constant3")
            .and_then(|i| st.sections.get(i))
            .map(|s| s.size)
            .filter(|&n| n > 0);
        let found: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(_, s)| s.binding == STB_LOCAL && s.place == Place::Undefined && !s.removed)
            .filter(|(_, s)| s.sym_type != STT_SECTION)
            .map(|(i, _)| i)
            .collect();
        for idx in found {
            let Some(s) = st.symbol_mut(idx) else { continue };
            let object = is_local_undefined_object(s);
            if object {
                s.value = match user_bank {
                    Some(size) if s.name.as_ref() == ".nv.ptx.const0.size" => size,
                    _ => u64::MAX,
                };
            }
            let reason = if !object {
                Some("LOCAL undefined name without a type")
            } else if final_link && s.other & 3 == STV_INTERNAL {
                Some("LOCAL undefined object of internal visibility")
            } else {
                None
            };
            if let Some(reason) = reason {
                s.removed = true;
                ev.push(LayoutEvent::Dropped {
                    name: s.name.to_string(),
                    reason: reason.into(),
                });
            }
        }
        // `-r` gives an undefined variable (a CUDA object with a memory
        // space) all ones too (err_undefined_var_sm90 linked with -r:
        // `missing_var`, `missing_c`; err_undefined_func_sm90: `bias`).
        if !final_link {
            for s in st.globals.iter_mut() {
                if is_undefined_variable(s) {
                    s.value = u64::MAX;
                }
            }
        }
    }

    fn alignment(&self, st: &LinkState, idx: SymIdx) -> u64 {
        let raw = st.input_values.get(&idx).copied();
        match st.symbol(idx).map(|s| s.place) {
            Some(Place::Common { align }) => raw.unwrap_or(align),
            _ => raw.unwrap_or(1),
        }
        .max(1)
    }

    /// The section named `name`, created (NOBITS, with a section symbol) if missing.
    fn ensure_nobits(
        st: &mut LinkState,
        name: &str,
        sh_type: u32,
        class: SectionClass,
        section_symbol: bool,
        reason: &str,
        ev: &mut Vec<LayoutEvent>,
    ) -> usize {
        if let Some(k) = st.section_named(name) {
            return k;
        }
        let k = st.add_section(OutSection {
            name: name.to_string(),
            sh_type,
            flags: SHF_WRITE | SHF_ALLOC,
            align: 1,
            entsize: 0,
            class,
            data: Vec::new(),
            size: 0,
            nobits: true,
            contributions: Vec::new(),
            owner: None,
            removed: false,
        });
        if section_symbol {
            Self::add_section_symbol(st, k);
        }
        ev.push(LayoutEvent::SectionCreated {
            section: name.to_string(),
            reason: reason.to_string(),
        });
        k
    }

    /// Gives made section `k` its section symbol. On sm_100+ the symbol is
    /// in `.nv.merc.symtab` too, naming the section itself (the kernels'
    /// shared sections, commons' `.nv.global`: common_data_same_size_sm100).
    /// Its place in the table follows the section's creation, not the
    /// symbol's (`out::symbol_order`).
    fn add_section_symbol(st: &mut LinkState, k: usize) {
        if st.section_symbols.contains_key(&k) {
            return;
        }
        let name = st.sections[k].name.clone();
        let m = &mut st.mercury;
        if !m.is_empty() && !m.pairs.iter().any(|p| p.classic == name) {
            m.pairs.push(super::state::mercury::SectionPair {
                classic: name.clone(),
                merc: name.clone(),
                sym_name: name.clone(),
            });
        }
        st.add_local(OutSymbol {
            name: name.into(),
            binding: STB_LOCAL,
            sym_type: STT_SECTION,
            other: 0,
            place: Place::Section(k),
            value: 0,
            size: 0,
            input: 0,
            regcount: None,
            removed: false,
        });
    }

    fn place_common(&self, st: &mut LinkState, idx: SymIdx, ev: &mut Vec<LayoutEvent>) {
        let align = self.alignment(st, idx);
        let k = Self::ensure_nobits(
            st,
            ".nv.global",
            SHT_CUDA_GLOBAL,
            SectionClass::Global,
            true,
            "common symbols are placed there",
            ev,
        );
        let offset = align_up(st.sections[k].size, align);
        let Some(s) = st.symbol(idx).cloned() else { return };
        let sec = &mut st.sections[k];
        sec.size = offset + s.size;
        sec.align = sec.align.max(align);
        if !sec.nobits {
            sec.data.resize(sec.size as usize, 0);
        }
        let name = sec.name.clone();
        if let Some(sym) = st.symbol_mut(idx) {
            sym.place = Place::Section(k);
            sym.value = offset;
        }
        ev.push(LayoutEvent::Placed {
            name: s.name.to_string(),
            section: name,
            offset,
            size: s.size,
        });
    }

    /// `-r`: a kernel's shared section keeps its variables where its input
    /// put them, and takes at least the alignment of the module's shared
    /// memory, `.nv_debug.shared` (shared_static_sm90 linked with -r: 4 and 8
    /// become 0x10; relocatable_link_sm90 and dynpar_cudadevrt_sm90, without
    /// module shared memory, keep 4 and 8).
    fn relocatable_shared(st: &mut LinkState) {
        let Some(module) = st
            .section_named(".nv_debug.shared")
            .filter(|&k| !st.sections[k].removed)
        else {
            return;
        };
        let align = st.sections[module].align;
        for sec in st.sections.iter_mut() {
            if sec.class == SectionClass::Shared && sec.flags & SHF_INFO_LINK != 0 && !sec.removed {
                sec.align = sec.align.max(align);
            }
        }
    }

    /// `-r` with extern shared arrays (corpus shared_dynamic_sm90,
    /// shared_dynamic_kernels_sm90 and observation 66; sizes from
    /// experiments with one kernel of 0 to 100 bytes of static shared
    /// memory, the array aligned to 4, 8 or 16):
    /// - every array is defined in `.nv_debug.shared` at 0x10, the section
    ///   0x10 bytes aligned to 16;
    /// - a kernel whose own code names an array gets a WEAK undefined
    ///   `externsharedinstance` (CUDA object, st_other 0x41) at its static
    ///   size aligned to 16, at least 0x10; its own relocations against the
    ///   array name that symbol (a device function's keep the array); its
    ///   `.nv.shared.<k>` (made if it had none) grows to that offset;
    /// - every kernel's `.nv.shared.<k>` is aligned to 16 and, when 0x10
    ///   bytes or smaller, grows by 0x10 (8 → 0x18, 0x10 → 0x20, 0x14 stays).
    fn relocatable_externs(&self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        if self.externs.is_empty() {
            return;
        }
        let module = Self::ensure_nobits(
            st,
            MODULE_SHARED,
            SHT_CUDA_SHARED,
            SectionClass::Shared,
            false,
            "-r defines the extern shared arrays there",
            ev,
        );
        let sec = &mut st.sections[module];
        sec.align = sec.align.max(EXTERN_INSTANCE_ALIGN);
        sec.size = sec.size.max(EXTERN_ARRAY_VALUE);
        for &x in self.externs.keys() {
            place_extern(st, x, module, EXTERN_ARRAY_VALUE, ev);
        }
        let grown = |size: u64| {
            if size <= EXTERN_ARRAY_VALUE {
                size + EXTERN_ARRAY_VALUE
            } else {
                size
            }
        };
        // What a kernel's own shared variables take, laid out from 0 (a
        // 4-byte variable in an 8-byte section: 4, which grows to 0x14).
        let content = |st: &LinkState, k: usize| {
            let mut vars: Vec<SymIdx> = st
                .all_symbols()
                .filter(|(_, s)| is_shared_var(s) && !s.removed && s.place == Place::Section(k))
                .map(|(i, _)| i)
                .collect();
            vars.sort_by_key(|&v| state_rank(st)(v));
            vars.iter().fold(0, |cur, &v| {
                align_up(cur, self.alignment(st, v)) + st.symbol(v).map_or(0, |s| s.size)
            })
        };
        let mut shared_of: BTreeMap<SymIdx, usize> = self.kernels.iter().map(|k| (k.kernel, k.section)).collect();
        // Kernels whose own code names an array, in code order.
        let mut direct: Vec<(usize, SymIdx)> = text_owners(st)
            .into_iter()
            .filter(|&(_, f)| super::state::query::is_kernel(st, f))
            .filter(|&(text, _)| {
                st.relocs
                    .iter()
                    .any(|r| r.live && r.section == text && self.externs.contains_key(&r.sym))
            })
            .collect();
        direct.sort_unstable();
        for &(text, kernel) in &direct {
            let name = st.symbol(kernel).map(|s| s.name.clone()).unwrap_or_default();
            let input = st.symbol(kernel).map(|s| s.input).unwrap_or(0);
            let k = match shared_of.get(&kernel) {
                Some(&k) => k,
                None => {
                    let k = Self::kernel_section(st, kernel, &name, NewSection::ExternArray, ev);
                    shared_of.insert(kernel, k);
                    k
                }
            };
            let value = align_up(st.sections[k].size, EXTERN_INSTANCE_ALIGN).max(EXTERN_ARRAY_VALUE);
            // The section ends at a multiple of its alignment, past the
            // instance (shared_align128_dynamic_sm90: 0x190 aligned to 128
            // is 0x200, the instance at 0x190).
            st.sections[k].size = align_up(value, st.sections[k].align.max(1));
            let instance = st.add_global(OutSymbol {
                name: EXTERN_INSTANCE.into(),
                binding: STB_WEAK,
                sym_type: STT_CUDA_OBJECT,
                other: EXTERN_INSTANCE_OTHER,
                place: Place::Undefined,
                value,
                size: 0,
                input,
                regcount: None,
                removed: false,
            });
            ev.push(LayoutEvent::Placed {
                name: format!("{EXTERN_INSTANCE} (of {name})"),
                section: "UNDEF".into(),
                offset: value,
                size: 0,
            });
            for r in st
                .relocs
                .iter_mut()
                .filter(|r| r.section == text && self.externs.contains_key(&r.sym))
            {
                r.sym = instance;
            }
            // And so do its Mercury relocations (sm_100+).
            let capsule = format!(".nv.capmerc.text.{name}");
            let m = &mut st.mercury;
            if let Some(c) = m.sections.iter().position(|s| s.name == capsule) {
                for r in m
                    .relocs
                    .iter_mut()
                    .filter(|r| r.section == c && self.externs.contains_key(&r.sym))
                {
                    r.sym = instance;
                }
            }
        }
        // Every other kernel gets one too, in code order.
        let mut others: Vec<(usize, SymIdx)> = text_owners(st)
            .into_iter()
            .filter(|&(_, f)| super::state::query::is_kernel(st, f) && !shared_of.contains_key(&f))
            .collect();
        others.sort_unstable();
        for (_, kernel) in others {
            let name = st.symbol(kernel).map(|s| s.name.clone()).unwrap_or_default();
            let k = Self::kernel_section(st, kernel, &name, NewSection::RelocatableExterns, ev);
            shared_of.insert(kernel, k);
        }
        let instances: BTreeSet<usize> = direct.iter().filter_map(|(_, f)| shared_of.get(f).copied()).collect();
        for &k in shared_of.values() {
            let used = if instances.contains(&k) {
                st.sections[k].size
            } else {
                content(st, k)
            };
            let sec = &mut st.sections[k];
            let from = sec.size;
            sec.align = sec.align.max(EXTERN_INSTANCE_ALIGN);
            if used <= EXTERN_ARRAY_VALUE {
                sec.size = grown(used);
            }
            ev.push(LayoutEvent::SectionSized {
                section: sec.name.clone(),
                from,
                to: sec.size,
                reason: "-r with extern shared arrays: aligned to 16, 0x10 more when 0x10 or smaller".into(),
            });
        }
    }

    /// The module shared variables several kernels reach, in the module
    /// order, each by first fit past the ones placed before it that some
    /// kernel reaches together with it (`shared_order::first_fit`; with one
    /// kernel reaching them all, one after the other: two kernels calling
    /// one function that uses four `.shared` variables of 100, 52, 16 and 4
    /// bytes get them at 0, 0x64, 0x98, 0xa8 in both kernels' memory;
    /// overlapping: shared_overlap_sm90, shared_overlap_hole_sm75).
    fn module_shared(&mut self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        let vars = self.fit.clone();
        let key = |v: &SymIdx| (self.alignment(st, *v), st.symbol(*v).map_or(0, |s| s.size));
        let meets = |a: &SymIdx, b: &SymIdx| self.reach.iter().any(|r| r.contains(a) && r.contains(b));
        let offsets = shared_order::first_fit(&vars, key, meets);
        let mut cur = 0;
        let mut max_align = 1;
        for (idx, offset) in vars.into_iter().zip(offsets) {
            let align = self.alignment(st, idx);
            let Some(s) = st.symbol_mut(idx) else { continue };
            s.value = offset;
            cur = cur.max(offset + s.size);
            max_align = max_align.max(align);
            let (name, size, place) = (s.name.clone(), s.size, s.place);
            ev.push(LayoutEvent::Placed {
                name: name.to_string(),
                section: st.place_name(place),
                offset,
                size,
            });
        }
        self.module_size = cur;
        // `.nv_debug.shared` is aligned for all its variables, the ones a
        // single kernel reaches too, and for its extern arrays; once a
        // prefix exists, every kernel takes that alignment (generated
        // kernels: 16, not the variables' 4; a kernel reaching none of it
        // gets 64 from a 64-aligned prefix variable, 32 from a weak
        // template kernel's 32-aligned variable: shared_module_align_sm75).
        for &v in &self.module_vars {
            max_align = max_align.max(self.alignment(st, v));
        }
        for x in self.externs.keys().filter(|&&x| !is_instance(st, x)) {
            max_align = max_align.max(st.input_values.get(x).copied().unwrap_or(1).max(1));
        }
        self.module_align = max_align;
    }

    /// With a prefix and extern shared arrays, every kernel gets a
    /// `.nv.shared.<k>`, the ones reaching neither too (sm_75: 0 bytes,
    /// aligned to the module's 16; sm_90: 0x400); `prune` leaves out again
    /// the empty ones aligned to more than 16 (shared_module_align_sm75).
    /// Without extern arrays a kernel reaching nothing gets none.
    fn every_kernel_section(&mut self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        if self.fit.is_empty() || self.externs.is_empty() {
            return;
        }
        let kernels = self.kernels_without_section(st);
        if kernels.is_empty() {
            return;
        }
        let references = References::of(st);
        for kernel in kernels {
            let name = st.symbol(kernel).map(|s| s.name.clone()).unwrap_or_default();
            let section = Self::kernel_section(st, kernel, &name, NewSection::ExternArray, ev);
            self.extern_made.push(section);
            self.kernels.push(KernelShared {
                kernel,
                section,
                own_align: 1,
            });
            self.reach.push(references.closure(kernel));
        }
    }

    /// One kernel's shared memory: after the common prefix (when it reaches
    /// any of it), its own variables in input symbol order and the module
    /// variables only it reaches, in nvlink's sort by alignment (largest
    /// first), then size (smallest first) (`shared_order`; corpus
    /// shared_static_sm90, shared_order_sm90). The section grows by the
    /// reserved shared memory.
    fn kernel_shared(&mut self, st: &mut LinkState, n: usize, debug: bool, ev: &mut Vec<LayoutEvent>) {
        let Some(k) = self.kernels.get(n).cloned() else { return };
        let reach = self.reach.get(n).cloned().unwrap_or_default();
        // Its own memory starts at the furthest end of the shared variables
        // it reaches (shared_overlap_hole_sm75: a kernel reaching only a
        // variable at 0 puts its own after it, under another at 0x100).
        let uses_prefix = self.prefix.iter().any(|v| reach.contains(v));
        let mut cur = self
            .prefix
            .iter()
            .filter(|v| reach.contains(v))
            .filter_map(|v| st.symbol(*v).map(|s| s.value + s.size))
            .max()
            .unwrap_or(0);
        let mut align = if self.fit.is_empty() { 1 } else { self.module_align };
        let position = input_positions(st);
        let mut own: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(_, s)| is_shared_var(s) && !s.removed && s.place == Place::Section(k.section))
            .map(|(i, _)| i)
            .collect();
        own.sort_by_key(|v| position.get(v).copied());
        own.extend(
            self.module_vars
                .iter()
                .filter(|v| reach.contains(v) && !self.prefix.contains(v)),
        );
        // A section with no variables keeps the size its inputs gave it: a
        // `-r` output's `.nv.shared.<k>` grown for its `externsharedinstance`
        // (rel_extern_shared_sm90: 0x20, the array at 0x20).
        let mut own_align = 1;
        if own.is_empty() && !uses_prefix && !st.sections[k.section].contributions.is_empty() {
            cur = st.sections[k.section].size;
            align = align.max(st.sections[k.section].align);
            own_align = align;
        }
        let pool = shared_order::kernel_order(&own, |v| (self.alignment(st, *v), st.symbol(*v).map_or(0, |s| s.size)));
        let section = st.sections[k.section].name.clone();
        for idx in pool {
            let a = self.alignment(st, idx);
            let Some(s) = st.symbol_mut(idx) else { continue };
            let offset = align_up(cur, a);
            s.value = offset;
            cur = offset + s.size;
            align = align.max(a);
            own_align = own_align.max(a);
            ev.push(LayoutEvent::Placed {
                name: s.name.to_string(),
                section: section.clone(),
                offset,
                size: s.size,
            });
        }
        // The extern arrays it reaches start after its own memory, which
        // grows to that point (shared_dynamic_kernels_sm90: 0x64 bytes and
        // an array aligned to 16 give 0x70, and 0x470 with the cap), first
        // rounded up to its own variables' alignment (shared_align128_dynamic_sm90:
        // a 400-byte array aligned to 128 puts the extern array at 0x200).
        // The arrays themselves start there under `-g` only; without it
        // they keep the unrounded end (0x190: the section is 0x600, the
        // array at 0x190).
        if let Some(me) = self.kernels.get_mut(n) {
            me.own_align = own_align;
        }
        let rounded = if self.externs.keys().any(|x| reach.contains(x)) {
            align_up(cur, own_align)
        } else {
            cur
        };
        if debug {
            cur = rounded;
        }
        let mut end = rounded;
        for (&x, need) in self.externs.iter_mut() {
            if reach.contains(&x) {
                // Its st_value is its alignment, taken as it is: an
                // `externsharedinstance` of a `-r` output has its offset there
                // (0x30, not a power of two), and nvlink rounds up to a
                // multiple of it (rel_extern_shared_sm90).
                let a = st.input_values.get(&x).copied().unwrap_or(1).max(1);
                let at = align_up(cur, a);
                *need = (*need).max(at);
                self.extern_at.insert((x, k.kernel), at);
                end = end.max(at);
                align = align.max(a);
            }
        }
        let cur = end;
        let cap = reserved_cap(st);
        // ptxas aligns every `.nv.shared.<k>` of an object that has a weak
        // shared variable (a template's) to 16; nvlink aligns such a
        // section as what it holds (shared_align_weak_sm90: two float
        // arrays, 4). Other inputs' alignment stays (dct8x8's `short`
        // array in a section aligned to 4).
        let raised = cur > 0
            && st.sections[k.section]
                .contributions
                .iter()
                .any(|c| self.weak_shared_inputs.contains(&c.input));
        let sec = &mut st.sections[k.section];
        let from = sec.size;
        sec.size = cur + cap;
        sec.align = if raised { align } else { sec.align.max(align) };
        ev.push(LayoutEvent::SectionSized {
            section,
            from,
            to: sec.size,
            reason: format!("{cur:#x} bytes of shared variables and {cap:#x} reserved"),
        });
    }

    /// A final link gives a kernel that has no shared memory of its own but
    /// reaches an extern shared array or a module-level shared variable a
    /// `.nv.shared.<k>` (NOBITS: what it reaches and the reserved part;
    /// shared_dynamic_kernels_sm90's k_b: 0x400, aligned 16;
    /// shared_module_only_sm90: two kernels reaching two 0x100-byte
    /// variables get 0x600 each).
    ///
    /// Such a section made for extern arrays alone that stays empty (apart
    /// from the reserved part) and is aligned to more than 16 is left out
    /// again below sm_90 and on sm_100+ (`prune`).
    fn new_kernel_sections(&mut self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        if self.externs.is_empty() && self.module_vars.is_empty() {
            return;
        }
        let references = References::of(st);
        for kernel in self.kernels_without_section(st) {
            let reach = references.closure(kernel);
            let reason = if self.module_vars.iter().any(|v| reach.contains(v)) {
                NewSection::ModuleVariable
            } else if self.externs.keys().any(|x| reach.contains(x)) {
                NewSection::ExternArray
            } else {
                continue;
            };
            let name = st.symbol(kernel).map(|s| s.name.clone()).unwrap_or_default();
            let section = Self::kernel_section(st, kernel, &name, reason, ev);
            if reason == NewSection::ExternArray {
                self.extern_made.push(section);
            }
            self.kernels.push(KernelShared {
                kernel,
                section,
                own_align: 1,
            });
            self.reach.push(reach);
        }
    }

    /// The kernels with no `.nv.shared.<k>` yet, in code order.
    fn kernels_without_section(&self, st: &LinkState) -> Vec<SymIdx> {
        let mut kernels: Vec<(usize, SymIdx)> = text_owners(st)
            .into_iter()
            .filter(|&(_, f)| super::state::query::is_kernel(st, f))
            .filter(|&(_, f)| !self.kernels.iter().any(|k| k.kernel == f))
            .collect();
        kernels.sort_unstable();
        kernels.into_iter().map(|(_, f)| f).collect()
    }

    /// A `.nv.shared.<k>` for a kernel that had none.
    fn kernel_section(
        st: &mut LinkState,
        kernel: SymIdx,
        name: &str,
        reason: NewSection,
        ev: &mut Vec<LayoutEvent>,
    ) -> usize {
        // It gets a section symbol with `-r`, and in a final link for a
        // module-level variable, or for sm_90 (see `NewSection`).
        let sm = st
            .symbol(kernel)
            .and_then(|f| st.inputs.get(f.input))
            .map_or(0, |i| i.sm);
        let section_symbol = reason != NewSection::RelocatableExterns
            && (st.relocatable || (90..100).contains(&sm) || reason == NewSection::ModuleVariable);
        let why = match reason {
            NewSection::ModuleVariable => "its kernel reaches a module-level shared variable",
            NewSection::ExternArray => "its kernel reaches an extern shared array",
            NewSection::RelocatableExterns => "-r with extern shared arrays gives every kernel one",
        };
        let k = Self::ensure_nobits(
            st,
            &format!(".nv.shared.{name}"),
            SHT_CUDA_SHARED,
            SectionClass::Shared,
            section_symbol,
            why,
            ev,
        );
        st.sections[k].flags |= SHF_INFO_LINK;
        st.sections[k].owner = Some(kernel);
        k
    }

    fn extern_shared(&mut self, st: &mut LinkState, debug: bool, ev: &mut Vec<LayoutEvent>) {
        if self.externs.is_empty() {
            if !self.dead_externs.is_empty() && !st.relocatable {
                let k = Self::ensure_nobits(
                    st,
                    MODULE_SHARED,
                    SHT_CUDA_SHARED,
                    SectionClass::Shared,
                    false,
                    "extern shared arrays of removed code: nvlink made it before removing them",
                    ev,
                );
                for x in &self.dead_externs {
                    let a = st.input_values.get(x).copied().unwrap_or(1).max(1);
                    st.sections[k].align = st.sections[k].align.max(a);
                }
            }
            return;
        }
        if debug {
            // -g puts each extern array at one offset, the largest any kernel
            // reaching it needs, rounded up to the largest alignment of
            // those kernels' own variables; those kernels grow to it (the
            // real-world samples reduction, threadFenceReduction with -G;
            // 0x190 bytes beside a kernel's 32-, 64- or 256-aligned array:
            // 0x1a0, 0x1c0, 0x200, debug_shared_round_sm75).
            // A kernel grows to every array it reaches, and an array starts
            // past the end of every kernel reaching it, those arrays
            // included: arrays sharing a kernel end up at one offset
            // (README observation 210: debug_extern_shared_raised_sm90,
            // `late` at `early`'s 0x420, not at its kernels' own 0x410).
            let cap = reserved_cap(st);
            let reaching: Vec<(SymIdx, u64, Vec<SymIdx>, u64)> = self
                .externs
                .iter()
                .map(|(&x, &need)| {
                    let ks: Vec<&KernelShared> = self
                        .kernels
                        .iter()
                        .filter(|k| self.extern_at.contains_key(&(x, k.kernel)))
                        .collect();
                    let align = ks.iter().fold(1, |m, k| m.max(k.own_align));
                    (x, align_up(need, align), ks.iter().map(|k| k.kernel).collect(), align)
                })
                .collect();
            let mut at: BTreeMap<SymIdx, u64> = reaching.iter().map(|(x, need, _, _)| (*x, *need)).collect();
            loop {
                let mut end: BTreeMap<SymIdx, u64> = BTreeMap::new();
                for (x, _, ks, _) in &reaching {
                    for k in ks {
                        let e = end.entry(*k).or_default();
                        *e = (*e).max(at[x]);
                    }
                }
                let mut changed = false;
                for (x, _, ks, align) in &reaching {
                    let want = ks
                        .iter()
                        .filter_map(|k| end.get(k))
                        .fold(at[x], |m, &e| m.max(align_up(e, *align)));
                    if want > at[x] {
                        at.insert(*x, want);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            let rounded: Vec<(SymIdx, u64)> = at.into_iter().collect();
            self.externs.extend(rounded);
            for (&x, &need) in &self.externs {
                for k in &self.kernels {
                    if let Some(at) = self.extern_at.get_mut(&(x, k.kernel)) {
                        *at = need;
                        let sec = &mut st.sections[k.section];
                        sec.size = sec.size.max(need + cap);
                        // A section this makes hold more than the reserved
                        // part gets its section symbol even when it holds no
                        // variable (sm_75, sm_89: debug_shared_padded_sm75;
                        // sm_100: one holding only the reserved part has
                        // none, debug_shared_extern_sm100).
                        if sec.size > cap {
                            Self::add_section_symbol(st, k.section);
                        }
                    }
                }
            }
        } else {
            self.share_extern_offset(st, ev);
        }
        // Each function's code sees the array where the kernels reaching it
        // have it (shared_dynamic_kernels_sm90: dyn_sum, reached from k_c
        // only, gets k_c's 0x20; k_b's own code 0; k_a's 0x70); kernels
        // sharing such a function have one offset (`share_extern_offset`).
        for (text, f) in text_owners(st) {
            for &x in self.externs.keys() {
                let at = self
                    .kernels
                    .iter()
                    .zip(&self.reach)
                    .filter(|(k, reach)| k.kernel == f || reach.contains(&f))
                    .filter_map(|(k, _)| self.extern_at.get(&(x, k.kernel)).copied())
                    .max();
                if let Some(at) = at {
                    st.extern_shared.insert((x, text), at);
                }
            }
        }
        // -g names it with a section symbol in a final link only for sm_90
        // (debug_extern_shared_sm90; not sm_75, sm_89 or sm_100:
        // debug_extern_shared_sm75), and with -r.
        let from_inputs = st.section_named(MODULE_SHARED);
        let k = Self::ensure_nobits(
            st,
            MODULE_SHARED,
            SHT_CUDA_SHARED,
            SectionClass::Shared,
            debug && (st.relocatable || hopper(st)),
            "dynamic shared arrays are placed there",
            ev,
        );
        // A final link that makes it for extern arrays aligns it to at most
        // 16; an input's section (module variables) whose variables or
        // arrays want more is left out altogether, except under -g, which
        // keeps it at their alignment (extern arrays `__align__(4)` to 64
        // with and without module variables of alignment 4 and 64, sm_75,
        // sm_80, sm_86, sm_90, sm_100, with and without -g:
        // shared_extern_align32_sm90, shared_extern_align32_module_sm75).
        // The variables count only with a prefix (observation 159: then
        // everything the section holds counts): without one, a template
        // kernel's weak variable aligned to 32 beside an array aligned to
        // 16 leaves it in, aligned to 16, -g or not (shared_weak_extern_sm75);
        // with one, -g keeps it aligned to 32.
        let mut want = if self.fit.is_empty() { 1 } else { self.module_align };
        if !st.relocatable && from_inputs.is_some() && self.fit.is_empty() {
            st.sections[k].align = st.sections[k].align.min(16);
        }
        for (&x, &offset) in &self.externs {
            // A `-r` output's `externsharedinstance` belongs to its kernels:
            // it leaves `.nv_debug.shared`'s alignment (rel_extern_shared_sm90).
            if !is_instance(st, x) {
                let a = st.input_values.get(&x).copied().unwrap_or(1).max(1);
                want = want.max(a);
                let capped = if st.relocatable || from_inputs.is_some() {
                    a
                } else {
                    a.min(16)
                };
                st.sections[k].align = st.sections[k].align.max(capped);
            }
            // Without -g the array has no one offset (each kernel's code
            // has its own): nvlink leaves its value at -1, which `-G`
            // code's `DW_OP_addr` shows (0xffff_ffff_ffff_ffff, or 0x3ff
            // with the reserved part on sm_90+: debug_extern_nodebug_sm90).
            let value = if debug || st.relocatable { offset } else { u64::MAX };
            place_extern(st, x, k, value, ev);
        }
        if !st.relocatable && !debug && from_inputs.is_some() && want > 16 {
            self.module_over_aligned = Some(k);
        }
    }

    /// A device function's code has one address for the extern shared
    /// arrays, so the kernels reaching a function that names one share it:
    /// kernels joined through such functions (transitively, whichever array
    /// each names) form a group, the arrays start at the largest offset any
    /// member needs, in every member's code and the functions', and each
    /// member's `.nv.shared.<k>` grows to that offset (aligned to the
    /// section) plus the reserved part. A member's section made for the
    /// arrays alone gets its section symbol when it grows (sm_75: made
    /// without one). Corpus shared_dynamic_helper_sm75/_sm90; experiments
    /// with PTX kernels of 0 to 0x100 bytes of static shared memory on
    /// sm_75, sm_80, sm_90, sm_100, sm_120: kernels of 0x40 and 0 bytes
    /// sharing f1 (naming `dyn`) and kernels of 0 and 0x80 bytes sharing f2
    /// (naming `dyn2`), one kernel in both, all get 0x80; two such pairs
    /// with no common member get 0x40 and 0x80; a function without an
    /// array joins nothing; a kernel reaching the function through another
    /// joins; two kernels of 0 bytes stay 0 without a symbol.
    fn share_extern_offset(&mut self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        let n = self.kernels.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for (text, f) in text_owners(st) {
            if super::state::query::is_kernel(st, f)
                || !st
                    .relocs
                    .iter()
                    .any(|r| r.live && r.section == text && self.externs.contains_key(&r.sym))
            {
                continue;
            }
            let users: Vec<usize> = (0..n).filter(|&i| self.reach[i].contains(&f)).collect();
            for w in users.windows(2) {
                let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for i in 0..n {
            let r = root(&mut parent, i);
            groups.entry(r).or_default().push(i);
        }
        let cap = reserved_cap(st);
        for members in groups.into_values().filter(|g| g.len() > 1) {
            let offset = members
                .iter()
                .flat_map(|&i| {
                    let kernel = self.kernels[i].kernel;
                    self.extern_at
                        .iter()
                        .filter(move |((_, k), _)| *k == kernel)
                        .map(|(_, &at)| at)
                })
                .max()
                .unwrap_or(0);
            for &i in &members {
                let k = self.kernels[i].clone();
                for (&x, need) in self.externs.iter_mut() {
                    if let Some(at) = self.extern_at.get_mut(&(x, k.kernel)) {
                        *at = offset;
                        *need = (*need).max(offset);
                    }
                }
                let sec = &mut st.sections[k.section];
                let from = sec.size;
                let to = align_up(offset, sec.align) + cap;
                if to <= from {
                    continue;
                }
                sec.size = to;
                ev.push(LayoutEvent::SectionSized {
                    section: sec.name.clone(),
                    from,
                    to,
                    reason: format!("its kernel shares code naming extern shared arrays, at {offset:#x}"),
                });
                Self::add_section_symbol(st, k.section);
            }
        }
    }

    /// Reserved shared memory: a final link places each variable of
    /// `.nv.shared.reserved.N` (its st_value was its alignment) from
    /// `.nv.reservedSmem.offsetN`, in both symbol tables, and the section
    /// becomes NOBITS reaching to the last variable's end; the Mercury copy
    /// keeps its type (arch_sm110_smoke: `__nv_reservedSMEM_gb10b_war_var`,
    /// 0x80 bytes aligned 0x10, lands at 0x40 in a 0xc0-byte section, and
    /// at the Mercury offset0's 0 in its 0x80-byte Mercury copy).
    fn reserved_shared(&self, st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
        let sections: Vec<usize> = (0..st.sections.len())
            .filter(|&k| st.sections[k].class == SectionClass::SharedReserved && !st.sections[k].removed)
            .collect();
        for k in sections {
            let name = st.sections[k].name.clone();
            let suffix = name.strip_prefix(RESERVED_SECTION).unwrap_or_default();
            let base = st.lookup(&format!("{RESERVED_OFFSET}{suffix}"));
            let mut cur = base.and_then(|i| st.symbol(i)).map(|s| s.value).unwrap_or(0);
            let mut merc_cur = base
                .and_then(|i| super::state::mercury::input_symbol(st, i))
                .map(|(_, m)| m.value)
                .unwrap_or(0);
            let rank = state_rank(st);
            let mut vars: Vec<SymIdx> = st
                .all_symbols()
                .filter(|(_, s)| !s.removed && is_reserved_var(s) && s.place == Place::Section(k))
                .map(|(i, _)| i)
                .collect();
            vars.sort_by_key(|v| rank(*v));
            for idx in vars {
                let a = self.alignment(st, idx);
                let Some(s) = st.symbol_mut(idx) else { continue };
                let offset = align_up(cur, a);
                s.value = offset;
                cur = offset + s.size;
                let size = s.size;
                ev.push(LayoutEvent::Placed {
                    name: s.name.to_string(),
                    section: name.clone(),
                    offset,
                    size,
                });
                let merc_offset = align_up(merc_cur, a);
                merc_cur = merc_offset + size;
                st.mercury.values.insert(idx, merc_offset);
            }
            let sec = &mut st.sections[k];
            let from = sec.size;
            sec.sh_type = SHT_NOBITS;
            sec.nobits = true;
            sec.data.clear();
            sec.size = cur;
            ev.push(LayoutEvent::SectionSized {
                section: name.clone(),
                from,
                to: cur,
                reason: "reserved shared memory of a final link: NOBITS, its variables placed from the reserved offset"
                    .into(),
            });
            let merc_name = format!(".nv.merc{name}");
            if let Some(m) = st.mercury.sections.iter_mut().find(|m| m.name == merc_name) {
                m.size = merc_cur;
                m.data.clear();
            }
        }
    }

    fn prune(&self, st: &mut LinkState, preserve_relocs: bool, debug: bool, ev: &mut Vec<LayoutEvent>) {
        // Module shared sections: their variables now live in the kernels'.
        let module_sections: BTreeSet<usize> = st
            .sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.class == SectionClass::Shared && s.flags & SHF_INFO_LINK == 0 && !s.removed)
            .map(|(k, _)| k)
            .collect();
        for &k in &module_sections {
            let keeps_externs = self
                .externs
                .keys()
                .any(|x| st.symbol(*x).is_some_and(|s| s.place == Place::Section(k)))
                || (self.externs.is_empty() && !self.dead_externs.is_empty() && st.sections[k].name == MODULE_SHARED);
            let keeps_externs = keeps_externs && self.module_over_aligned != Some(k);
            // On sm_100+ it holds the reserved shared memory too
            // (generated kernels with an extern array on sm_100 and sm_120:
            // 0x400); before, nothing.
            let cap = reserved_cap(st);
            let size = if st.mercury.is_empty() { 0 } else { cap };
            // -g keeps it for extern arrays or variables several kernels
            // share, sized to them and the reserved part (the real-world
            // samples clock, template with -G: 0x400).
            let keep_debug = debug && (keeps_externs || !self.fit.is_empty());
            let sec = &mut st.sections[k];
            if keep_debug {
                sec.size = self.module_size + cap;
                sec.data.clear();
            } else if keeps_externs {
                sec.size = size;
                sec.data.clear();
            } else {
                sec.removed = true;
                let name = sec.name.clone();
                st.dropped_section_names.push(name);
                let sec = &st.sections[k];
                ev.push(LayoutEvent::Dropped {
                    name: sec.name.clone(),
                    reason: "its shared variables are laid out in the kernels' shared memory".into(),
                });
            }
        }
        // A kernel's section made for extern arrays alone, still empty but
        // for the reserved part and aligned to more than 16, is left out
        // below sm_90 and on sm_100+, -g or not (kernels whose only shared
        // memory is an `__align__(32)` array, sm_75, sm_80, sm_100, sm_120;
        // one that the arrays' shared offset grows stays:
        // shared_extern_align32_sm75, shared_extern_align32_sm90).
        let cap = reserved_cap(st);
        for &k in &self.extern_made {
            let sm = st.sections[k]
                .owner
                .and_then(|f| st.symbol(f))
                .and_then(|f| st.inputs.get(f.input))
                .map_or(0, |i| i.sm);
            let sec = &st.sections[k];
            if (90..100).contains(&sm) || sec.removed || sec.align <= 16 || sec.size > cap {
                continue;
            }
            let name = sec.name.clone();
            st.sections[k].removed = true;
            st.dropped_section_names.push(name.clone());
            let symbols: Vec<SymIdx> = st
                .all_symbols()
                .filter(|(_, s)| s.sym_type == STT_SECTION && s.place == Place::Section(k))
                .map(|(i, _)| i)
                .collect();
            for i in symbols {
                if let Some(s) = st.symbol_mut(i) {
                    s.removed = true;
                }
            }
            ev.push(LayoutEvent::Dropped {
                name,
                reason: "made for extern shared arrays aligned to more than 16, and empty".into(),
            });
        }
        let param_bank = |st: &LinkState, s: &OutSymbol| match s.place {
            Place::Section(k) => st.sections.get(k).is_some_and(|x| {
                (x.class == SectionClass::Constant(0) && x.name.starts_with(".nv.constant0."))
                    || (x.class == SectionClass::Constant(2) && x.name.starts_with(".nv.constant2."))
            }),
            _ => false,
        };
        let mut drops = Vec::new();
        for (i, s) in st.all_symbols() {
            if s.removed {
                continue;
            }
            let reason = if s.place == Place::Undefined && (s.name.starts_with("__UFT") || s.name.starts_with("__UDT"))
            {
                Some("unified-table placeholder, no unified table is built")
            } else if is_shared_var(s) && !debug {
                Some("shared variable: laid out in the kernels' shared memory")
            } else if i.0 > 0 && s.sym_type != STT_SECTION && param_bank(st, s) && !preserve_relocs {
                // `-preserve-relocs` keeps it (preserve_relocs_sm75: `_param`).
                Some("local symbol of a kernel's parameter bank")
            } else if s.sym_type == STT_SECTION
                && matches!(s.place, Place::Section(k) if module_sections.contains(&k) && (!debug || st.sections[k].removed))
            {
                // Also when the section stays for an extern array (the
                // real-world sample shfl_scan: its `.nv_debug.shared` held a
                // device function's static array; module_shared_extern_sm90).
                Some("module-level shared section: left out, or kept without its symbol")
            } else {
                None
            };
            if let Some(r) = reason {
                drops.push((i, r));
            }
        }
        if debug {
            // -g keeps the shared variables' symbols: a module-level one only
            // one kernel reaches moves into that kernel's section as a local
            // (keeping its place in the symbol table); one several reach
            // stays in `.nv_debug.shared` (debug_shared_symbols_sm90).
            for v in self.module_vars.iter().filter(|v| !self.prefix.contains(v)) {
                let owners: Vec<usize> = (0..self.kernels.len()).filter(|&n| self.reach[n].contains(v)).collect();
                if let [n] = owners[..] {
                    let sec = self.kernels[n].section;
                    if let Some(s) = st.symbol_mut(*v) {
                        s.place = Place::Section(sec);
                        s.binding = STB_LOCAL;
                    }
                }
            }
            // Outside sm_90 a final link's `.nv_debug.shared` left with
            // no static variable (only extern arrays) loses its section
            // symbol (debug_extern_shared_sm75; sm_90 keeps it:
            // debug_extern_shared_sm90).
            if !st.relocatable && !hopper(st) {
                for &k in &module_sections {
                    let holds_static = st.all_symbols().any(|(_, s)| {
                        !s.removed && s.sym_type != STT_SECTION && s.size > 0 && s.place == Place::Section(k)
                    });
                    if holds_static || st.sections[k].name != MODULE_SHARED {
                        continue;
                    }
                    let syms: Vec<SymIdx> = st
                        .all_symbols()
                        .filter(|(_, s)| s.sym_type == STT_SECTION && s.place == Place::Section(k))
                        .map(|(i, _)| i)
                        .filter(|i| !drops.iter().any(|(d, _)| d == i))
                        .collect();
                    for i in syms {
                        drops.push((i, "-g below sm_90: module shared section holds no static variable"));
                    }
                }
            }
        }
        for (i, reason) in drops {
            if let Some(s) = st.symbol_mut(i) {
                s.removed = true;
                ev.push(LayoutEvent::Dropped {
                    name: s.name.to_string(),
                    reason: reason.into(),
                });
            }
        }
    }
}

/// Whether the link is for sm_90 (sm_9x), where -g gives the module shared
/// section its section symbol even when it holds only extern arrays.
fn hopper(st: &LinkState) -> bool {
    st.inputs.iter().any(|i| (90..100).contains(&i.sm))
}

/// An `externsharedinstance`: the extern shared array a `-r` link made for
/// one kernel.
fn is_instance(st: &LinkState, x: SymIdx) -> bool {
    st.symbol(x).is_some_and(|s| &*s.name == EXTERN_INSTANCE)
}

/// The user constant bank's limit (bank 3 is 64 KB).
const CONSTANT_BANK_MAX: u64 = 0x10000;

/// nvlink's error for a final link whose `.nv.constant3` is larger than the
/// bank: "File uses too much global constant data (0x10004 bytes, 0x10000
/// max)" (err_constant_overflow_sm90: 32 KB and 32 KB + 4 bytes), which
/// fails the link (`-r` too) with status 255 and no output.
fn constant_bank_limit(st: &LinkState) -> Option<crate::diag::Diagnostic> {
    let size = st.section_named(".nv.constant3").and_then(|i| st.sections.get(i))?.size;
    (size > CONSTANT_BANK_MAX).then(|| {
        crate::diag::Diagnostic::error(format!(
            "File uses too much global constant data ({size:#x} bytes, {CONSTANT_BANK_MAX:#x} max)"
        ))
    })
}
