//! The Mercury (sm_100+) half of the link state: the `.nv.merc.*` companion
//! sections, relocations and records the merge collects
//! (`link::mercury_merge`) and emit writes (`link::mercury`), with the
//! section flags and relocation types that name them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Contribution, LinkState, OutNvInfo, SymIdx};
use crate::cubin::model::{Section, Symbol};

/// sh_flags bit of every Mercury section.
pub const SHF_MERCURY: u64 = 0x1000_0000;
/// Section type of `.nv.capmerc.text.<fn>` (its sh_info is a Mercury symbol).
pub const SHT_CUDA_CAPMERC_TEXT: u32 = 0x7000_0016;
/// Mercury counterpart of R_CUDA_UNUSED_CLEAR64 (docs/catalog.md pairing).
pub const R_MERCURY_UNUSED_CLEAR64: u32 = 0x1_000e;

pub const CAPMERC_TEXT: &str = ".nv.capmerc.text.";
/// The Mercury twin of a function's `.nv.constant2.<fn>`.
pub const OPTIMIZER: &str = ".nv.merc.nv.constant.optimizer.";

/// Mercury counterpart of R_CUDA_64 (docs/catalog.md pairing).
pub const R_MERCURY_64: u32 = 0x1_0002;

/// The type nvlink writes for a kept Mercury relocation: the "unified"
/// function-address type 0x10032 becomes 0x10002, as R_CUDA_UNIFIED
/// becomes R_CUDA_64 (arch_sm100_smoke: `.nv.merc.rela.nv.global.init`).
pub fn kept_type(rtype: u32) -> u32 {
    match rtype {
        0x1_0032 => R_MERCURY_64,
        0x1_003e => 0x1_0005,
        0x1_003f => 0x1_0006,
        t => t,
    }
}

/// Whether a section is a Mercury companion section.
pub fn is_mercury(s: &Section<'_>) -> bool {
    s.flags & SHF_MERCURY != 0
}

/// One output Mercury section with contents, merged by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MercSection {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    #[serde(skip)]
    pub data: Vec<u8>,
    pub size: u64,
    pub nobits: bool,
    pub contributions: Vec<Contribution>,
    /// sh_link names `.nv.merc.symtab`.
    pub links_symtab: bool,
    /// sh_info names this section (by its input name).
    pub info_section: Option<String>,
    /// sh_info is this symbol's Mercury index (`.nv.capmerc.text.<fn>`).
    pub info_symbol: Option<SymIdx>,
    /// Name and flags of the relocation section that patches it.
    pub rela: Option<(String, u64)>,
}

impl MercSection {
    pub fn is_text(&self) -> bool {
        self.name.starts_with(CAPMERC_TEXT)
    }
}

/// One Mercury relocation, against an output Mercury section and a state symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MercReloc {
    /// Index into `MercState::sections`.
    pub section: usize,
    pub offset: u64,
    pub rtype: u32,
    pub sym: SymIdx,
    pub addend: i64,
    pub input: usize,
    pub live: bool,
    /// For a relocation of a `.nv.capmerc.text.<fn>`: where in the output
    /// section the capsule keeps the patched instruction's operand (see
    /// `capsule_twins`), if it keeps one.
    pub operand: Option<u64>,
    /// Its classic twin: the input's `.text.<fn>` (section index) and the
    /// offset there of the instruction both relocations patch.
    pub classic: Option<(usize, u64)>,
    /// Copied by layout from a device function's constant bank into a
    /// kernel's (`mercury::copy_function_banks`): written after the
    /// kernel's own records, in the order they were copied.
    pub copied: bool,
}

/// A Mercury table nvlink writes as a copy of a classic one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MercCopy {
    pub name: String,
    /// The classic section it copies (`.nv.info`, `.nv.callgraph`, `.nv.prototype`).
    pub classic: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
}

/// A classic section and its Mercury counterpart, from a pair of section
/// symbols at the same index of an input's two symbol tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionPair {
    pub classic: String,
    pub merc: String,
    /// The Mercury section symbol's own name (`.text.f`, `.nv.constant.user`).
    pub sym_name: String,
}

/// What the merge learned of one input's Mercury side.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MercInput {
    /// The input's `.nv.merc.symtab`.
    pub symbols: Vec<Symbol>,
    /// Input section → (index into `MercState::sections`, offset there).
    pub section_map: Vec<Option<(usize, u64)>>,
    /// Whether each input section is a Mercury one.
    pub is_merc: Vec<bool>,
}

/// The Mercury half of the link state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MercState {
    pub inputs: Vec<MercInput>,
    /// Whether an input has a `.nv.merc.symtab` (kept by
    /// `mercury_merge::start_input`, so that `is_empty` need not walk
    /// every input: a 5,000-object sm_90 link asks once per symbol).
    pub has_symbols: bool,
    pub sections: Vec<MercSection>,
    pub relocs: Vec<MercReloc>,
    /// Per-function `.nv.merc.nv.info.<fn>` records (symbols as `SymIdx.0`).
    pub nvinfo: Vec<OutNvInfo>,
    pub copies: Vec<MercCopy>,
    pub pairs: Vec<SectionPair>,
    /// Mercury st_value that layout gave a symbol (reserved shared variables),
    /// or that the Mercury side keeps where the classic one changed it (a
    /// `-g` shared variable's offset without the reserved part).
    pub values: BTreeMap<SymIdx, u64>,
    /// Mercury st_info type and st_other a symbol keeps where the classic
    /// table drops them (a `-g` shared variable: CUDA_OBJECT, 0x40).
    pub kinds: BTreeMap<SymIdx, (u8, u8)>,
    /// Names only the classic side has: symbols an input lists in its
    /// `.symtab` and no input in its `.nv.merc.symtab` (sm_107's
    /// `__cuda_syscall_bw_do_*`, which its finalizer calls for texture and
    /// surface instructions the Mercury code does natively). The output's
    /// Mercury tables leave them out and its classic tables list what
    /// names them after the rest (sm107_texture_syscall).
    pub classic_only: BTreeSet<String>,
    /// EIATTR_FRAME_SIZE and EIATTR_REGCOUNT per function (attribute,
    /// function) in the inputs' `.nv.merc.nv.info` (sm_107 texture
    /// kernels: frame 0, where the classic table has the 0x58 the syscall
    /// needs; a surface-write kernel's 10 registers against 24).
    pub input_values: BTreeMap<(u8, SymIdx), u32>,
    /// What the output's `.nv.merc.nv.info` says where it differs from
    /// `.nv.info`: those values, and the kernels' EIATTR_REGCOUNT and
    /// EIATTR_MIN_STACK_SIZE counted with them
    /// (`finalize::info::mercury_values`).
    pub table_values: BTreeMap<(u8, SymIdx), u32>,
}

impl MercState {
    /// Whether state symbol name `name` exists only on the classic side.
    pub fn is_classic_only(&self, name: &str) -> bool {
        !self.classic_only.is_empty() && self.classic_only.contains(name)
    }

    pub fn is_empty(&self) -> bool {
        !self.has_symbols && self.sections.is_empty() && self.copies.is_empty()
    }
}

/// Whether state symbol `si` exists only on the classic side
/// (`MercState::classic_only`).
pub fn classic_only(st: &LinkState, si: SymIdx) -> bool {
    !st.mercury.classic_only.is_empty() && st.symbol(si).is_some_and(|s| st.mercury.is_classic_only(&s.name))
}

/// The Mercury symbol of output symbol `si` in the input that defined it (or
/// first referenced it), with that input's number.
pub fn input_symbol(st: &LinkState, si: SymIdx) -> Option<(usize, &Symbol)> {
    let state = st.symbol(si)?;
    let inputs = std::iter::once(state.input).chain(0..st.maps.len());
    for input in inputs {
        let (Some(maps), Some(mi)) = (st.maps.get(input), st.mercury.inputs.get(input)) else {
            continue;
        };
        let Some(ci) = maps.map_symbol_index.iter().position(|&x| x == si.0) else {
            continue;
        };
        let ms = mi
            .symbols
            .get(ci)
            .filter(|y| *y.name == *state.name)
            .or_else(|| mi.symbols.iter().find(|y| *y.name == *state.name));
        if let Some(ms) = ms {
            return Some((input, ms));
        }
    }
    None
}
