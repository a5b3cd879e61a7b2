//! The link state: the output under construction plus everything the
//! debugger shows between steps (inputs, their mapping arrays, decisions).
//!
//! Symbols carry nvlink's signed indices: local symbols (section symbols
//! first of all) get positive indices 1, 2, …; global and weak symbols get
//! negative indices -1, -2, … in order of first appearance. An undefined
//! symbol keeps its slot when a later input defines it, so relocations and
//! call-graph edges recorded against the slot never need rewriting.

use foldhash::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::cubin::callgraph::Record;
use crate::cubin::nvinfo::Entry;

use super::diag::Diagnostic;

pub mod bindless;
pub mod mercury;
pub mod query;

/// A signed output symbol index (0 is the null symbol).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SymIdx(pub i32);

impl SymIdx {
    pub const NULL: SymIdx = SymIdx(0);
}

impl fmt::Display for SymIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where an output symbol lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Place {
    Undefined,
    /// In an output section (index into `LinkState::sections`).
    Section(usize),
    /// A common symbol: no storage yet; layout puts it in `.nv.global`.
    Common {
        align: u64,
    },
    Absolute,
}

/// One output symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutSymbol {
    /// Shared, so that cloning the state (a debugger checkpoint) copies no
    /// names.
    pub name: Arc<str>,
    pub binding: u8,
    pub sym_type: u8,
    pub other: u8,
    pub place: Place,
    /// Offset in its output section (the input value plus where the input's
    /// section landed), or the common alignment.
    pub value: u64,
    pub size: u64,
    /// The input that gave the current definition (or first referenced it,
    /// while undefined).
    pub input: usize,
    /// Register count of a function definition, from .nv.info REGCOUNT.
    pub regcount: Option<u32>,
    /// Set by a back-half phase (dead-code elimination, emit rules) for a
    /// symbol the output leaves out. Its index stays valid in the state.
    pub removed: bool,
}

impl OutSymbol {
    pub fn is_defined(&self) -> bool {
        !matches!(self.place, Place::Undefined)
    }
}

/// What an output section holds, by nvlink's classification of its name and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SectionClass {
    /// `.text.<fn>`: one function's code.
    Text,
    /// `.nv.global` (NOBITS device globals).
    Global,
    /// `.nv.global.init` (initialized device globals).
    GlobalInit,
    /// `.nv.shared.*` (per-kernel or module shared memory).
    Shared,
    /// `.nv.shared.reserved.*` (hardware-reserved shared memory).
    SharedReserved,
    /// `.nv.local.*`.
    Local,
    /// `.nv.constantN[.<fn>]`, bank N.
    Constant(u32),
    /// `.debug_*` and `.nv_debug_*`.
    Debug,
    /// `.nv.uft`, `.nv.udt` and their `.entry` tables.
    Unified,
    /// Any other section with contents.
    Other,
}

/// A piece of an output section that came from one input section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contribution {
    pub input: usize,
    /// Section index in that input.
    pub in_section: usize,
    pub offset: u64,
    pub size: u64,
    /// False once a weak replacement has made it dead (its bytes may stay).
    pub live: bool,
}

/// One output section (not yet laid out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutSection {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    pub class: SectionClass,
    /// The section's bytes (empty for NOBITS kinds).
    #[serde(skip)]
    pub data: Vec<u8>,
    /// Size, NOBITS included.
    pub size: u64,
    pub nobits: bool,
    pub contributions: Vec<Contribution>,
    /// For `.text.<fn>` and `.nv.info.<fn>`-like sections: the symbol they belong to.
    pub owner: Option<SymIdx>,
    /// Set by a back-half phase for a section the output leaves out.
    pub removed: bool,
}

impl OutSection {
    /// The input contribution that gave the section its live contents (the
    /// last live one; a weak replacement leaves earlier ones dead).
    pub fn live_contribution(&self) -> Option<&Contribution> {
        self.contributions
            .iter()
            .rev()
            .find(|c| c.live)
            .or(self.contributions.last())
    }
}

/// A note section of the output (`.note.nv.tkinfo`, `.note.nv.cuinfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutNote {
    pub name: String,
    pub flags: u64,
    pub link: u32,
    pub info: u32,
    /// When set, sh_link is the output index of the section of this name
    /// (`.note.nv.cuinfo` links to `.note.nv.tkinfo`); emit resolves it.
    pub link_section: Option<String>,
    /// When set, sh_info is the output index of the section of this name
    /// (`.note.nv.cuinfo` → `.nv.compat`, with SHF_INFO_LINK); emit resolves it.
    pub info_section: Option<String>,
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// A table section the back half builds whole (`.nv.prototype`,
/// `.nv.rel.action`, …): written as it is, linked to .symtab when it holds
/// symbol indices (already output indices: built in emit order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutTable {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    #[serde(skip)]
    pub data: Vec<u8>,
    pub links_symtab: bool,
}

/// One relocation in the output, against an output section and symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OutReloc {
    /// Output section patched.
    pub section: usize,
    pub offset: u64,
    pub rtype: u32,
    pub sym: SymIdx,
    pub addend: i64,
    /// RELA (true) or REL.
    pub rela: bool,
    /// The input it came from.
    pub input: usize,
    /// False when a weak replacement nullified it (nvlink zeroes its info word).
    pub live: bool,
}

/// A translated .nv.info record: `function` is None for the module-level
/// `.nv.info`, else the symbol whose `.nv.info.<fn>` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutNvInfo {
    pub function: Option<SymIdx>,
    pub entry: Entry,
    pub input: usize,
    pub live: bool,
}

/// A translated call-graph record (symbol fields hold `SymIdx.0 as u32`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutCallEdge {
    pub record: Record,
    pub input: usize,
    pub live: bool,
}

/// A symbol index to write into a section's bytes at emit time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SymFixup {
    pub section: usize,
    pub offset: u64,
    pub sym: SymIdx,
}

/// One input cubin as the merge phase sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputRecord {
    /// The name nvlink uses for it in diagnostics.
    pub name: String,
    /// Where it came from, for a person (file, archive member, fatbin entry).
    pub origin: String,
    pub sm: u32,
    /// "CUDA Virtual SM" of .note.nv.cuinfo: the PTX `.target` it was compiled from.
    pub virtual_sm: Option<u32>,
    pub e_flags: u32,
    /// The cubin bytes, shared by the debugger's checkpoints (clones of the
    /// linker): an input never changes once read.
    #[serde(skip)]
    pub data: std::sync::Arc<Vec<u8>>,
    /// The host object's `__nv_module_id`, for code from a host object.
    pub module_id: Option<String>,
}

/// When nvlink creates something while it merges an input, as (phase,
/// position, sub-position), compared in that order (corpus observation 59):
/// - phase 0, code: (0, i, 0) a LOCAL function symbol i, (0, i, 1) the code
///   of function symbol i, (0, i, 2) kernel i's `.nv.info.<k>`, (0, i, 3)
///   its `.nv.shared.<k>`, (0, i, 4) its `.nv.constant0.<k>` (sm_100+
///   inputs only); then code no function symbol names, in section
///   order (0, MAX, j);
/// - phase 1, symbols: (1, s, 0) the section of the first (non-section)
///   symbol s defined in it, (1, s, 1) the local symbol s itself;
/// - then the other sections in section order: (2, j, 0) data, (3, j, 0)
///   `.nv.info.<f>`, (4, j, 0) relocation sections.
pub type Created = (u8, u32, u32);

/// The per-input mapping arrays of seed 001, kept after the input is merged
/// so that the debugger can show them. Index = input symbol / section index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InputMaps {
    /// Input symbol → signed output symbol (0: not mapped).
    pub map_symbol_index: Vec<i32>,
    /// Input section → output section (0: not mapped or skipped).
    pub map_section_index: Vec<u32>,
    /// Where the input section starts inside its output section.
    pub map_section_offset: Vec<u64>,
    /// Set for weak symbols whose definition from this input was not kept.
    pub weak_processed: Vec<bool>,
    /// Input section → when nvlink creates an output section for it while
    /// merging this input ([`Created`]).
    pub creation: Vec<Created>,
    /// The `.nv.info.<fn>` sections of the input (merged into finalize's
    /// tables, not into output sections) with their `creation` keys and
    /// section indices.
    pub info_creation: Vec<(String, Created, u32)>,
}

/// A device function's bank 2 copied into a kernel's (`link::constant2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Constant2Copy {
    /// The function's `.nv.constant2.<fn>` (state section) and the function.
    pub from: usize,
    pub function: SymIdx,
    /// The kernel's bank (state section).
    pub to: usize,
    /// Where the block starts in `from`, how long it is, and where it went in `to`.
    pub start: u64,
    pub size: u64,
    pub offset: u64,
}

/// Everything about the link so far.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LinkState {
    /// A `-r` link (ET_REL output): some table and symbol rules differ.
    pub relocatable: bool,
    pub inputs: Vec<InputRecord>,
    pub maps: Vec<InputMaps>,
    /// Output sections; index 0 is the null section.
    pub sections: Vec<OutSection>,
    /// Local symbols: `locals[i]` has index `i + 1`.
    pub locals: Vec<OutSymbol>,
    /// Global and weak symbols: `globals[i]` has index `-(i + 1)`.
    pub globals: Vec<OutSymbol>,
    pub relocs: Vec<OutReloc>,
    /// `-preserve-relocs`: the relocations applied, as emit writes them into
    /// `.nv.resolvedrela.<section>` (addends of section-symbol records
    /// include the input section's offset).
    pub resolved: Vec<OutReloc>,
    pub nvinfo: Vec<OutNvInfo>,
    pub callgraph: Vec<OutCallEdge>,
    /// The inputs' `.nv.compat` merged so far (`link::compat`).
    pub compat: super::compat::CompatMerge,
    pub diagnostics: Vec<Diagnostic>,
    /// The undefined references the resolve phase found, in nvlink's order.
    /// nvlink goes on linking and prints them after the stack-size
    /// warnings, before the finalizer's errors (`finalize::report`; a
    /// phase failing before it prints them then).
    pub undefined: Vec<Diagnostic>,
    /// The output's e_flags, once finalize has chosen them (else the first input's).
    pub e_flags: Option<u32>,
    /// Notes of the output, in order.
    pub notes: Vec<OutNote>,
    /// Tables built whole by the back half, in order.
    pub tables: Vec<OutTable>,
    /// Per input (same index as `inputs`): the `.nvHR*` lists of the host
    /// object it came from, None for a cubin, fatbin or PTX file input.
    /// Dead-code elimination reads the kernel lists (corpus README obs. 33).
    pub host_refs: Vec<Option<super::inputs::HostRefs>>,
    /// A host object without relocatable device code was read: what its
    /// host code launches is unknown, so no kernel list limits the kernels.
    pub host_lists_incomplete: bool,
    /// `-preserve-relocs`: the kernels dead-code elimination would have
    /// removed and kept (they get no EIATTR_MIN_STACK_SIZE).
    pub dead_kernels_kept: Vec<SymIdx>,
    /// Kernels a final link keeps only because something refers to them
    /// (a device launch, an address stored) while the kernel lists
    /// (`-kernels-used`, the host objects' lists) keep exactly one kernel:
    /// nvlink then treats them as functions, not entry points (no
    /// EIATTR_MIN_STACK_SIZE, nothing propagated to them, no
    /// `.nv.shared.<kernel>` name; README observation 201).
    pub demoted_kernels: std::collections::BTreeSet<SymIdx>,
    /// Strings that open the output's `.strtab`, in order, right after its
    /// leading NUL: the call prototypes that `.nv.callgraph` and
    /// `.nv.prototype` point at by offset (finalize fills it; see
    /// `finalize::strtab_seed`).
    pub strtab_strings: Vec<String>,
    /// Names of sections layout dropped after nvlink had created them
    /// (`.nv_debug.shared` once its variables moved to the kernels): nvlink's
    /// string tables still hold them, so emit keeps them there too.
    pub dropped_section_names: Vec<String>,
    /// Output sections holding a local function's code (`merge`): a global
    /// function of the same name never goes into one.
    pub local_code_sections: std::collections::BTreeSet<usize>,
    /// The first call prototype (`.nv.prototype`, up to its `|`) met for
    /// each function name, referenced or defined (`merge`: nvlink refuses
    /// another; README observation 211).
    pub first_prototypes: std::collections::BTreeMap<String, String>,
    /// st_value of the symbols layout moves (shared variables, commons,
    /// undefined names) as their first input states it (`link::layout`).
    pub input_values: std::collections::BTreeMap<SymIdx, u64>,
    /// A final link's offset of an extern shared array as the code of one
    /// function sees it, by (array, the function's code section): the
    /// kernels reaching that code have their own (`link::layout`).
    pub extern_shared: std::collections::BTreeMap<(SymIdx, usize), u64>,
    /// A final link's shift of each device function's `.nv.constant2.<fn>`
    /// (left out of the output) to the offset its block has in the banks of
    /// the kernels reaching it: a relocation against the section or one of
    /// its symbols gets S plus this (`link::constant2`).
    pub moved_constant2: std::collections::BTreeMap<usize, i64>,
    /// Each device function's bank 2 copied into a kernel's, in the order
    /// `link::constant2` placed them: (the function's bank, the kernel's,
    /// the offset there). The Mercury twins follow it
    /// (`mercury::copy_function_banks`).
    pub constant2_copies: Vec<Constant2Copy>,
    /// RELA tables an input had with no record (`.rela.nv.constant2.<k>`
    /// beside a jump table): (the section they patch, how many relocations
    /// had been merged when they were met, the input). nvlink writes them
    /// again, empty, where the input had them when their Mercury twin keeps
    /// records.
    pub empty_relas: Vec<(usize, usize, usize)>,
    /// The bindless table layout built (`link::bindless`): where it starts,
    /// its slots, the kernels that got it. None before that sub-phase, or
    /// when it had nothing to do.
    pub bindless: Option<bindless::Table>,
    /// The Mercury (sm_100+) companion sections, relocations and records
    /// the merge collected (`link::mercury_merge`, types in `state::mercury`);
    /// emitted beside the classic ones (`link::mercury`).
    pub mercury: mercury::MercState,
    /// Symbol indices stored inside section bytes (the `symidx` word of
    /// `.nv.uft.entry`/`.nv.udt.entry` records, `link::uft`): emit writes the
    /// symbol's output index as a little-endian u32 at (section, offset).
    pub sym_fixups: Vec<SymFixup>,
    /// Where, in a line table (`.debug_line`, `.nv_debug_line_sass`), an
    /// input's `DW_LNE_set_address` record named a weak function that
    /// input lost: (state section, offset). The record itself is dropped;
    /// an sm_100+ link drops the line sequence too (`link::line_order`).
    pub lost_line_records: Vec<(usize, u64)>,
    /// What the LTO step did (`link::lto`); None when it did not run.
    pub lto: Option<LtoRecord>,
    /// Host objects read that had device code for other architectures
    /// only: (inputs linked before it, its `__nv_module_id`). Nothing of
    /// them is linked, but the registration file names them.
    pub registered_unlinked: Vec<(usize, String)>,
    /// The further module ids of the host objects linked (`ld -r`
    /// outputs: [`super::inputs::LoadedCubin::more_module_ids`]), in
    /// reading order; the registration file names them last, reversed.
    pub registered_more: Vec<String>,
    #[serde(skip)]
    pub symbol_names: HashMap<Arc<str>, SymIdx>,
    /// The first section symbol of each output section, as added.
    #[serde(skip)]
    pub section_symbols: HashMap<usize, SymIdx>,
    /// The first section made of each name.
    #[serde(skip)]
    pub section_names: HashMap<String, usize>,
    /// The later sections of a name made more than once (two inputs' local
    /// helpers), in the order made.
    #[serde(skip)]
    pub later_sections: HashMap<String, Vec<usize>>,
}

/// The LTO step's mark on the link: which inputs were compiled as IR and
/// where they were read, for `--register-link-binaries` (`link::register`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct LtoRecord {
    /// Full LTO: the compiled cubin is the output, nothing was merged.
    pub whole_program: bool,
    /// Everything read, in reading order: IR modules and linked inputs.
    pub read_order: Vec<ReadItem>,
    /// Partial LTO of a program all IR from host objects whose lists limit
    /// the kernels: those lists' kernel patterns (`_Z4used*`), which nvlink
    /// names the LTO cubin's kernels by, as `-kernels-used` (`link::emit`).
    pub kernels_listed: Option<Vec<String>>,
}

/// One item of [`LtoRecord::read_order`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ReadItem {
    /// An IR module: its host object's `__nv_module_id`, or its name.
    Module { module_id: Option<String>, name: String },
    /// `inputs[i]`.
    Input(usize),
}

/// The output section a section symbol stands for.
fn section_of_section_symbol(sym: &OutSymbol) -> Option<usize> {
    match sym.place {
        Place::Section(k) if sym.sym_type == crate::cubin::consts::STT_SECTION => Some(k),
        _ => None,
    }
}

impl LinkState {
    pub fn new() -> Self {
        let mut s = LinkState::default();
        s.sections.push(OutSection {
            name: String::new(),
            sh_type: 0,
            flags: 0,
            align: 0,
            entsize: 0,
            class: SectionClass::Other,
            data: Vec::new(),
            size: 0,
            nobits: false,
            contributions: Vec::new(),
            owner: None,
            removed: false,
        });
        s
    }

    pub fn symbol(&self, idx: SymIdx) -> Option<&OutSymbol> {
        match idx.0 {
            0 => None,
            i if i > 0 => self.locals.get(i as usize - 1),
            i => self.globals.get((-(i as i64) - 1) as usize),
        }
    }

    pub fn symbol_mut(&mut self, idx: SymIdx) -> Option<&mut OutSymbol> {
        match idx.0 {
            0 => None,
            i if i > 0 => self.locals.get_mut(i as usize - 1),
            i => self.globals.get_mut((-(i as i64) - 1) as usize),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<SymIdx> {
        self.symbol_names.get(name).copied()
    }

    /// The section called `name`: the first one made, unless it was removed
    /// and a later one of that name stays (two inputs' local helpers,
    /// dce_shared_helper_sm90).
    pub fn section_named(&self, name: &str) -> Option<usize> {
        let first = *self.section_names.get(name)?;
        if !self.sections[first].removed {
            return Some(first);
        }
        self.later_sections
            .get(name)
            .and_then(|v| v.iter().copied().find(|&k| !self.sections[k].removed))
            .or(Some(first))
    }

    /// Adds a local symbol; returns its positive index.
    pub fn add_local(&mut self, sym: OutSymbol) -> SymIdx {
        let section = section_of_section_symbol(&sym);
        self.locals.push(sym);
        let idx = SymIdx(self.locals.len() as i32);
        if let Some(k) = section {
            self.section_symbols.entry(k).or_insert(idx);
        }
        idx
    }

    /// Adds a global or weak symbol; returns its negative index.
    pub fn add_global(&mut self, sym: OutSymbol) -> SymIdx {
        let name = sym.name.clone();
        let section = section_of_section_symbol(&sym);
        self.globals.push(sym);
        let idx = SymIdx(-(self.globals.len() as i32));
        self.symbol_names.insert(name, idx);
        if let Some(k) = section {
            self.section_symbols.entry(k).or_insert(idx);
        }
        idx
    }

    pub fn add_section(&mut self, sec: OutSection) -> usize {
        let idx = self.sections.len();
        match self.section_names.entry(sec.name.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => {
                self.later_sections.entry(sec.name.clone()).or_default().push(idx);
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(idx);
            }
        }
        self.sections.push(sec);
        idx
    }

    /// Every symbol with its signed index: locals, then globals.
    pub fn all_symbols(&self) -> impl Iterator<Item = (SymIdx, &OutSymbol)> {
        let locals = self.locals.iter().enumerate().map(|(i, s)| (SymIdx(i as i32 + 1), s));
        let globals = self
            .globals
            .iter()
            .enumerate()
            .map(|(i, s)| (SymIdx(-(i as i32) - 1), s));
        locals.chain(globals)
    }

    /// The name of a symbol, `(null)` for 0, `#<idx>` for a bad index.
    pub fn symbol_name(&self, idx: SymIdx) -> String {
        match self.symbol(idx) {
            Some(s) => s.name.to_string(),
            None if idx == SymIdx::NULL => "(null)".into(),
            None => format!("#{idx}"),
        }
    }

    /// The section a symbol lives in, by name (`UNDEF`, `COMMON`, `ABS`).
    pub fn place_name(&self, place: Place) -> String {
        match place {
            Place::Undefined => "UNDEF".into(),
            Place::Common { .. } => "COMMON".into(),
            Place::Absolute => "ABS".into(),
            Place::Section(i) => self
                .sections
                .get(i)
                .map(|s| s.name.clone())
                .unwrap_or_else(|| format!("#{i}")),
        }
    }

    pub fn input_name(&self, input: usize) -> &str {
        self.inputs.get(input).map(|i| i.name.as_str()).unwrap_or("?")
    }
}
