//! Constant bank 2 of device functions, a stage of layout (final links).
//!
//! ptxas puts the 64-bit literals it cannot encode in an instruction into
//! `.nv.constant2.<fn>`, for kernels and device functions alike, under LOCAL
//! `<fn>.const_opt.A.B` objects (st_other 0x81) that the function's code
//! reaches through `R_CUDA_CONST_FIELD19_40` relocations (seen on sm_75 …
//! sm_89; sm_90 and later code has none). A kernel sees only its own bank 2,
//! so nvlink 13.5 copies each device function's block into the bank of every
//! kernel that reaches the function. What it does, as experiments show it
//! (corpus `const_opt_functions_sm75`, the real-world sample `interval` on
//! sm_75, sm_80, sm_86 and sm_89; generated sources with two to five
//! kernels and one or two inputs):
//!
//! * a kernel's own bank stays where it is, at offset 0;
//! * each device function's block gets one offset, the same in every kernel
//!   that reaches the function (call-graph closure);
//! * the blocks are placed one after the other in reverse input order (the
//!   last input first, and within an input its last `.nv.constant2.<fn>`
//!   first), each at the largest end of the banks of the kernels reaching
//!   it, aligned to the highest of the block's alignment and the current
//!   alignments of those kernels' banks (a 4-aligned jump table after an
//!   8-aligned block of doubles starts at 8); those kernels' banks take
//!   that alignment and then end after it, padded with zeros to their
//!   alignment (gaps stay zero; corpus `const2_align_mix_sm75`);
//! * a kernel with no bank of its own gets a `.nv.constant2.<k>` (PROGBITS,
//!   SHF_ALLOC|SHF_INFO_LINK, aligned as its blocks) when the first block reaching it
//!   is placed, the kernels of one block in reverse symbol order; the
//!   section follows every other constant bank, its name and its section
//!   symbol come after `.nv.prototype`'s, before `.nv.rel.action`'s
//!   (`emit`);
//! * the relocations against a function's block get its offset in the field
//!   (`reloc::decide` through `LinkState::moved_constant2`), and the
//!   function's section and its symbols are left out: nvlink never names
//!   that section in the output; `-preserve-relocs` does not list those
//!   relocations, and `-r` keeps the function's section as it is;
//! * a function no kernel reaches (`-g` keeps it) has its block at 0.
//!
//! Corpus README observations 86 and 110.

use foldhash::HashMap;
use std::cmp::Reverse;
use std::collections::BTreeSet;

use crate::cubin::consts::{SHF_ALLOC, SHF_INFO_LINK, SHT_CUDA_CONSTANT0, STB_LOCAL, STT_SECTION};

use super::event::layout::LayoutEvent;
use super::reach::References;
use super::state::query::{input_of, is_kernel, state_rank, text_owners};
use super::state::{Constant2Copy, LinkState, OutSection, OutSymbol, Place, SectionClass, SymIdx};

/// The name prefix of a function's bank 2.
const PREFIX: &str = ".nv.constant2.";

/// A device function's `.nv.constant2.<fn>`: its live bytes and where its
/// input had it.
#[derive(Debug, Clone)]
struct Block {
    section: usize,
    function: SymIdx,
    /// (input, section index there): the placement order.
    at: (usize, usize),
    /// Where the live bytes start in the state section, and how many.
    start: u64,
    size: u64,
    align: u64,
}

/// Whether state section `k` is a bank 2 that the link made for a kernel
/// without one (no input contributed to it).
pub fn is_made_bank(st: &LinkState, k: usize) -> bool {
    st.sections
        .get(k)
        .is_some_and(|s| s.class == SectionClass::Constant(2) && s.contributions.is_empty() && !s.removed)
}

/// The section symbols of the banks the link made, in the order it made
/// them: nvlink lists them after `.nv.prototype`'s (corpus
/// `const_opt_functions_sm75`).
pub fn made_bank_symbols(st: &LinkState) -> Vec<SymIdx> {
    let mut out: Vec<(usize, SymIdx)> = st
        .all_symbols()
        .filter(|(_, s)| s.sym_type == STT_SECTION && !s.removed)
        .filter_map(|(i, s)| match s.place {
            Place::Section(k) if is_made_bank(st, k) => Some((k, i)),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.into_iter().map(|(_, i)| i).collect()
}

/// The function whose code input section (input, j) names through sh_info.
fn linked_function(
    st: &LinkState,
    infos: &mut HashMap<usize, Vec<u32>>,
    owners: &HashMap<usize, SymIdx>,
    (input, j): (usize, usize),
) -> Option<SymIdx> {
    let info = infos.entry(input).or_insert_with(|| {
        st.inputs
            .get(input)
            .and_then(|r| crate::cubin::read::parse(&r.data).ok())
            .map(|c| c.sections.iter().map(|s| s.info).collect())
            .unwrap_or_default()
    });
    let text = *st.maps.get(input)?.map_section_index.get(*info.get(j)? as usize)? as usize;
    owners.get(&text).copied()
}

/// A bank 2 (state section) and the function it belongs to.
type Owned = (usize, SymIdx);

/// The banks 2 of the output with the function each belongs to.
fn banks(st: &LinkState) -> Vec<Owned> {
    let owners = text_owners(st);
    let mut infos = HashMap::default();
    (1..st.sections.len())
        .filter(|&k| {
            let s = &st.sections[k];
            s.class == SectionClass::Constant(2) && s.name.starts_with(PREFIX) && !s.removed
        })
        .filter_map(|k| {
            // The first input whose code is kept names the function (a
            // losing weak copy's bank follows the winner's, its code gone).
            let at = input_of(st, k)?;
            st.sections[k]
                .contributions
                .iter()
                .filter(|c| c.live)
                .map(|c| (c.input, c.in_section))
                .chain(std::iter::once(at))
                .find_map(|at| linked_function(st, &mut infos, &owners, at))
                .map(|f| (k, f))
        })
        .collect()
}

/// A device function's block: the live contributions of its section (a
/// weak function's losing copy keeps its bank after the winner's, and
/// nvlink copies both: weak_jumptable_sm100, `tf<1>`).
fn block(st: &LinkState, section: usize, function: SymIdx) -> Option<Block> {
    let sec = st.sections.get(section)?;
    let c = sec.live_contribution()?;
    let live = || sec.contributions.iter().filter(|x| x.live);
    let start = live().map(|x| x.offset).min().unwrap_or(c.offset);
    let end = live()
        .map(|x| x.offset.saturating_add(x.size))
        .max()
        .unwrap_or(c.offset.saturating_add(c.size));
    let first = live().next().unwrap_or(c);
    Some(Block {
        section,
        function,
        at: (first.input, first.in_section),
        start,
        size: end.saturating_sub(start),
        align: sec.align.max(1),
    })
}

/// The largest bank 2 this stage builds: hardware constant banks hold 64 KiB,
/// so a block that would end past this comes from a damaged input and is
/// left where it is.
const MAX_BANK: u64 = 1 << 24;

/// Where a block aligned to `align` can start at or after `x`, if the bank
/// stays within [`MAX_BANK`] with its `size` bytes.
fn block_offset(x: u64, align: u64, size: u64) -> Option<u64> {
    let at = x.checked_next_multiple_of(align.max(1))?;
    (at.checked_add(size)? <= MAX_BANK).then_some(at)
}

/// Where the blocks are being laid out: each kernel's bank and its end.
struct Banks {
    /// The kernels in reverse symbol order, with what they reach.
    kernels: Vec<(SymIdx, BTreeSet<SymIdx>)>,
    bank: HashMap<SymIdx, usize>,
    end: HashMap<SymIdx, u64>,
}

impl Banks {
    fn new(st: &LinkState, own: &[Owned]) -> Self {
        let references = References::of(st);
        let mut kernels: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(i, s)| !s.removed && is_kernel(st, *i))
            .map(|(i, _)| i)
            .collect();
        let rank = state_rank(st);
        kernels.sort_by_key(|&i| Reverse(rank(i)));
        let bank: HashMap<SymIdx, usize> = own.iter().map(|&(k, f)| (f, k)).collect();
        let end = bank
            .iter()
            .map(|(&f, &k)| (f, st.sections.get(k).map_or(0, |s| s.size)))
            .collect();
        Banks {
            kernels: kernels.into_iter().map(|k| (k, references.closure(k))).collect(),
            bank,
            end,
        }
    }

    /// The kernels reaching function `f`, in reverse symbol order.
    fn users(&self, f: SymIdx) -> Vec<SymIdx> {
        self.kernels
            .iter()
            .filter(|(_, reach)| reach.contains(&f))
            .map(|&(k, _)| k)
            .collect()
    }

    /// Kernel `k`'s bank 2, made if it has none (its section symbol named
    /// with `symbol_prefix`).
    fn bank_of(&mut self, st: &mut LinkState, k: SymIdx, symbol_prefix: &str, ev: &mut Vec<LayoutEvent>) -> usize {
        if let Some(&b) = self.bank.get(&k) {
            return b;
        }
        let b = new_bank(st, k, symbol_prefix, ev);
        self.bank.insert(k, b);
        b
    }
}

/// A `.nv.constant2.<k>` for kernel `k`, which had none (corpus
/// `const_opt_functions_sm75`: `k_c`, `k_new1`, `k_new2`). Its section
/// symbol is named as ptxas named the function's: `.nv.constant2.<k>`, or
/// on sm_100+ `.nv.constant.optimizer.<k>` (jumptable_func_sm100).
fn new_bank(st: &mut LinkState, kernel: SymIdx, symbol_prefix: &str, ev: &mut Vec<LayoutEvent>) -> usize {
    let name = format!("{PREFIX}{}", st.symbol_name(kernel));
    let symbol = format!("{symbol_prefix}{}", st.symbol_name(kernel));
    let k = st.add_section(OutSection {
        name: name.clone(),
        sh_type: SHT_CUDA_CONSTANT0 + 2,
        flags: SHF_ALLOC | SHF_INFO_LINK,
        // Raised to each block's as they are copied in: 8 for doubles
        // (const_opt_functions_sm75), 4 for NVSHMEM's blocks.
        align: 1,
        entsize: 0,
        class: SectionClass::Constant(2),
        data: Vec::new(),
        size: 0,
        nobits: false,
        contributions: Vec::new(),
        owner: Some(kernel),
        removed: false,
    });
    st.add_local(OutSymbol {
        name: symbol.into(),
        binding: STB_LOCAL,
        sym_type: STT_SECTION,
        other: 0,
        place: Place::Section(k),
        value: 0,
        size: 0,
        input: st.symbol(kernel).map_or(0, |s| s.input),
        regcount: None,
        removed: false,
    });
    ev.push(LayoutEvent::SectionCreated {
        section: name,
        reason: "its kernel reaches a device function's constant bank 2".into(),
    });
    k
}

/// Copies `bytes` into bank `k` at `offset`; the bank grows to hold them.
fn copy_into(st: &mut LinkState, k: usize, offset: u64, bytes: &[u8], align: u64) {
    let Some(sec) = st.sections.get_mut(k) else { return };
    let end = offset + bytes.len() as u64;
    if (sec.data.len() as u64) < end {
        sec.data.resize(end as usize, 0);
    }
    if let Some(dst) = sec.data.get_mut(offset as usize..end as usize) {
        dst.copy_from_slice(bytes);
    }
    sec.align = sec.align.max(align);
    // The bank ends at its alignment: zeros pad the last block.
    let size = sec.size.max(end).next_multiple_of(sec.align.max(1));
    sec.data.resize(sec.data.len().max(size as usize), 0);
    sec.size = size;
}

/// Leaves a placed block's section and its symbols out of the output.
fn drop_block(st: &mut LinkState, b: &Block, ev: &mut Vec<LayoutEvent>) {
    let mut names = Vec::new();
    for s in st.locals.iter_mut().chain(st.globals.iter_mut()) {
        if s.place == Place::Section(b.section) && !s.removed {
            s.removed = true;
            names.push(s.name.clone());
        }
    }
    if let Some(sec) = st.sections.get_mut(b.section) {
        sec.removed = true;
        ev.push(LayoutEvent::Dropped {
            name: sec.name.clone(),
            reason: "a device function's constant bank 2: copied into its kernels' banks".into(),
        });
    }
    for name in names {
        ev.push(LayoutEvent::Dropped {
            name: name.to_string(),
            reason: "symbol of a device function's constant bank 2".into(),
        });
    }
}

/// Places one block in the banks of the kernels reaching its function
/// (a block whose bytes are not all there, from a damaged input, stays).
fn place(st: &mut LinkState, banks: &mut Banks, b: &Block, ev: &mut Vec<LayoutEvent>) {
    let users = banks.users(b.function);
    let start = users
        .iter()
        .filter_map(|u| banks.end.get(u))
        .copied()
        .max()
        .unwrap_or(0);
    // A block goes at the alignment of the banks it joins when that is
    // higher than its own: a 4-aligned block follows an 8-aligned one at an
    // 8-aligned offset, and raises the banks it joins to that alignment.
    let align = users
        .iter()
        .filter_map(|u| banks.bank.get(u))
        .filter_map(|&k| st.sections.get(k))
        .map(|s| s.align)
        .fold(b.align, u64::max);
    let Some(offset) = block_offset(start, align, b.size) else {
        return;
    };
    let bytes: Vec<u8> = st
        .sections
        .get(b.section)
        .and_then(|s| s.data.get(b.start as usize..b.start.checked_add(b.size)? as usize))
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    if bytes.len() as u64 != b.size {
        return;
    }
    let name = st.sections.get(b.section).map(|s| s.name.clone()).unwrap_or_default();
    let prefix = symbol_prefix(st);
    for u in users {
        let k = banks.bank_of(st, u, prefix, ev);
        st.constant2_copies.push(Constant2Copy {
            from: b.section,
            function: b.function,
            to: k,
            start: b.start,
            size: b.size,
            offset,
        });
        let from = st.sections.get(k).map_or(0, |s| s.size);
        copy_into(st, k, offset, &bytes, align);
        banks.end.insert(u, offset + b.size);
        let Some(sec) = st.sections.get(k) else { continue };
        ev.push(LayoutEvent::Placed {
            name: name.clone(),
            section: sec.name.clone(),
            offset,
            size: b.size,
        });
        if sec.size != from {
            ev.push(LayoutEvent::SectionSized {
                section: sec.name.clone(),
                from,
                to: sec.size,
                reason: "a device function's constant bank 2 copied in".into(),
            });
        }
    }
    st.moved_constant2
        .insert(b.section, (offset as i64).wrapping_sub(b.start as i64));
    drop_block(st, b, ev);
}

/// What nvlink leaves in the null symbol's st_value after a final link
/// that moved a weak device function's bank 2 holding a losing copy: where
/// the last losing copy went in the kernels' banks (measured: two copies
/// of 0x34 placed at 0 give 0x34, three give 0x68; weak_jumptable_sm90,
/// the block placed at 0x68 after a weak kernel's own two copies, 0x9c;
/// a weak kernel's bank, which stays, leaves 0).
pub fn null_symbol_value(st: &LinkState) -> Option<u64> {
    st.moved_constant2
        .iter()
        .filter_map(|(&k, &d)| Some((st.sections.get(k)?, d)))
        .filter(|(s, _)| s.contributions.iter().filter(|c| c.live).count() > 1)
        .filter_map(|(s, d)| {
            let last = s.contributions.iter().filter(|c| c.live).map(|c| c.offset).max()?;
            Some(last.wrapping_add_signed(d))
        })
        .next_back()
}

/// The prefix of the section symbol of a bank made for a kernel: on sm_100+
/// `.nv.constant.optimizer.`, whatever the function's input named its own
/// bank's (ptxas 13.5 names it so; ptxas 13.0, which built NVSHMEM's
/// libnvshmem_device, `.nv.constant2.<fn>`: nvshmem_lib_sm100), below
/// `.nv.constant2.` (sm_90 inputs name their function banks'
/// `.nv.constant.optimizer.<fn>` too).
fn symbol_prefix(st: &LinkState) -> &'static str {
    if st.mercury.is_empty() {
        PREFIX
    } else {
        ".nv.constant.optimizer."
    }
}

/// Merges every device function's bank 2 into its kernels' banks.
pub fn merge_function_banks(st: &mut LinkState, ev: &mut Vec<LayoutEvent>) {
    let (own, functions): (Vec<Owned>, Vec<Owned>) = banks(st).into_iter().partition(|&(_, f)| is_kernel(st, f));
    let mut blocks: Vec<Block> = functions
        .into_iter()
        .filter(|&(_, f)| st.symbol(f).is_some_and(|s| !s.removed))
        .filter_map(|(k, f)| block(st, k, f))
        .collect();
    if blocks.is_empty() {
        return;
    }
    blocks.sort_by_key(|b| Reverse(b.at));
    let mut banks = Banks::new(st, &own);
    for b in &blocks {
        place(st, &mut banks, b, ev);
    }
}
