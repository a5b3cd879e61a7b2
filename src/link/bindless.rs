//! Bindless references (seed 003), a sub-phase of layout (`layout.bindless`):
//! texture, sampler and surface references, the `$NVLINKBINDLESSOFF_`
//! symbols, the per-entry constant-bank slots, the bitmask propagated
//! through the call graph, pruning, and the resource limits.
//!
//! What nvlink 13.5 does, as read from its outputs (corpus `texref_helper_*`,
//! and the bindless_* and err_bindless_* cases):
//!
//! - every texture, sampler and surface symbol of the output gets a 4-byte
//!   slot, referenced or not; the slots form one table, the same in every
//!   kernel that gets one, so that a helper function's constant-bank offset
//!   is right whichever kernel calls it;
//! - the table starts at the largest `.nv.constant0.<kernel>` size (pruned
//!   kernels included), aligned to the largest alignment of those sections;
//! - slot order: nvlink builds one list per kind by prepending (so each is in
//!   reverse symbol order), chains textures, samplers, surfaces, and sorts the
//!   chain with its linked-list merge sort; all slots being the same size,
//!   the sort's only effect is the fixed shuffle of [`list_sort`];
//! - every relocation against a texture, sampler or surface symbol is
//!   pointed at that symbol's `$NVLINKBINDLESSOFF_<name>`, whose value is its
//!   slot offset: the relocate phase then applies it (S = the slot offset,
//!   A = the record's addend) and drops it. The symbols never reach the
//!   output, nor do their names;
//! - a kernel gets the table when it, or a function it calls (through the
//!   call graph, transitively), has such a relocation; its constant bank
//!   grows by the table and gets one `R_CUDA_{TEX,SAMP,SURF}_HEADER_INDEX`
//!   record per slot against the resource symbol (REL before sm_100, RELA on
//!   Mercury), listed from the last slot to the first; other kernels keep
//!   their bank as it was ("no bindless ref in section");
//! - a kernel that gets the table gets every slot, so the limits (256
//!   textures, 32 samplers, 32 surfaces) apply to the whole table:
//!   `More than 256 textures used in entry function 'k'` (fatal);
//! - a relocatable link (`-r`) does none of this before sm_100; on sm_100+
//!   it finds the table's base (the largest bank aligned to 16, as a final
//!   link does there) and writes it into every reference's field, keeping
//!   the relocation (texref_helper_sm100: a helper's `c[0x0][0x380]`
//!   becomes 0x390).

use foldhash::HashMap;
use std::collections::BTreeMap;

use crate::cubin::consts::{STB_LOCAL, STT_FUNC};

use super::diag::Diagnostic;
use super::event::Event;
pub use super::event::layout::BindlessEvent;
use super::event::layout::LayoutEvent;
use super::setup::LinkSetup;
use super::state::bindless::{Kind, OFFSET_PREFIX, Slot, Table};
use super::state::{LinkState, OutNvInfo, OutReloc, OutSymbol, Place, SectionClass, SymIdx};
use crate::cubin::nvinfo::{Entry, Value};

/// The type nvlink gives its `$NVLINKBINDLESSOFF_` symbols.
const STT_OFFSET_SYMBOL: u8 = crate::cubin::consts::STT_CUDA_OBJECT;
/// On sm_100+ the table starts at a multiple of 16 (experiments: the largest
/// bank at 0x3c4 or 0x3c8 puts it at 0x3d0, at 0x3c0 at 0x3c0; sm_90 keeps
/// 0x254).
const MERCURY_TABLE_ALIGN: u64 = 16;
/// Bytes per slot (texture, sampler and unified surface descriptors alike).
const SLOT_SIZE: u64 = 4;
const CONST0_PREFIX: &str = ".nv.constant0.";
/// The size of constant bank 0.
const MAX_BANK: u64 = 0x1_0000;
/// EIATTR_BINDLESS_TEXTURE_BANK and EIATTR_BINDLESS_SURFACE_BANK.
const ATTR_TEXTURE_BANK: u8 = 0x15;
const ATTR_SURFACE_BANK: u8 = 0x16;

/// Whether a relocation type is one of the header-index records the tables
/// carry (never rewritten).
fn is_header_reloc(rtype: u32) -> bool {
    matches!(rtype, 6 | 7 | 52)
}

impl BindlessEvent {
    fn event(self) -> Event {
        Event::Layout(LayoutEvent::Bindless(self))
    }
}

/// Where the sub-phase stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    /// Gate, descriptor list, slot order, table base.
    Start,
    /// The i-th relocation of `LinkState::relocs`.
    Rewrite(usize),
    /// The i-th function with a bitmask (in `order`) passes it to its callers.
    Propagate(usize),
    /// The i-th per-entry constant bank (in `banks`).
    Tables(usize),
    Done,
}

/// The sub-phase's cursor.
#[derive(Debug, Clone)]
pub struct Bindless {
    stage: Stage,
    /// The table, in slot order.
    pub slots: Vec<Slot>,
    /// Where the table starts.
    pub base: u64,
    /// Resource symbol → index in `slots`.
    by_symbol: HashMap<SymIdx, usize>,
    /// Per function: the kinds it uses, itself or through its callees.
    pub bits: BTreeMap<SymIdx, u8>,
    /// Functions in the order they got their bits (for propagation).
    order: Vec<SymIdx>,
    /// Per-entry constant banks: (section, kernel).
    banks: Vec<(usize, SymIdx)>,
    /// Header-index records are RELA on Mercury (sm_100+).
    rela: bool,
}

impl Bindless {
    pub fn new(_st: &LinkState, setup: &LinkSetup) -> Self {
        let rela = crate::arch::profiles::lookup(&setup.arch).is_some_and(|p| p.is_mercury());
        Bindless {
            stage: Stage::Start,
            slots: Vec::new(),
            base: 0,
            by_symbol: HashMap::default(),
            bits: BTreeMap::new(),
            order: Vec::new(),
            banks: Vec::new(),
            rela,
        }
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// One unit of work.
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        match self.stage.clone() {
            Stage::Start => self.start(st, setup),
            Stage::Rewrite(i) => self.rewrite(st, i),
            Stage::Propagate(i) => self.propagate(st, i),
            Stage::Tables(i) => self.table(st, i),
            Stage::Done => Vec::new(),
        }
    }

    /// Publishes the table built so far in the state.
    fn save(&self, st: &mut LinkState) {
        let kernels = st.bindless.take().map(|t| t.kernels).unwrap_or_default();
        st.bindless = Some(Table {
            base: self.base,
            slots: self.slots.clone(),
            bits: self.bits.iter().map(|(&f, &b)| (f, b)).collect(),
            kernels,
        });
    }

    fn skip(&mut self, reason: &str) -> Vec<Event> {
        self.stage = Stage::Done;
        vec![
            BindlessEvent::Skipped {
                reason: reason.to_string(),
            }
            .event(),
        ]
    }

    fn start(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        if setup.relocatable && !self.rela {
            return self.skip("a relocatable link leaves bindless references to the final link");
        }
        let resources: Vec<(SymIdx, Kind)> = st
            .all_symbols()
            .filter(|(_, s)| !s.removed)
            .filter_map(|(i, s)| Kind::of(s.sym_type).map(|k| (i, k)))
            .collect();
        if resources.is_empty() {
            return self.skip("no texture, sampler or surface symbol");
        }
        // The per-entry banks and the table's base: the largest bank, pruned
        // ones included (probe: a kernel without references but with more
        // parameters moves the table).
        let mut largest = (0u64, String::new());
        let mut align = 1u64;
        for (k, s) in st.sections.iter().enumerate().skip(1) {
            if s.removed || s.class != SectionClass::Constant(0) {
                continue;
            }
            let Some(fname) = s.name.strip_prefix(CONST0_PREFIX) else {
                continue;
            };
            let Some(kernel) = st.lookup(fname) else {
                continue;
            };
            if s.size > largest.0 || largest.1.is_empty() {
                largest = (s.size, s.name.clone());
            }
            align = align.max(s.align.max(1));
            self.banks.push((k, kernel));
        }
        if self.rela {
            align = align.max(MERCURY_TABLE_ALIGN);
        }
        self.base = largest.0.div_ceil(align).saturating_mul(align);
        let mut ev = vec![
            BindlessEvent::TableBase {
                base: self.base,
                align,
                largest: if largest.1.is_empty() { "none".into() } else { largest.1 },
                slots: resources.len(),
            }
            .event(),
        ];
        if setup.relocatable {
            // sm_100+ `-r`: no slots yet, but every reference's field gets
            // the table's base and keeps its relocation (reloc::decide).
            self.banks.clear();
            self.save(st);
            ev.extend(self.skip(
                "a relocatable link lays out no slots: each reference's field gets the table's base \
                 and keeps its relocation for the final link",
            ));
            return ev;
        }
        // One list per kind, each built by prepending, chained in kind order.
        let mut chain = Vec::with_capacity(resources.len());
        for kind in Kind::ALL {
            chain.extend(resources.iter().rev().filter(|(_, k)| *k == kind).copied());
        }
        let home = self
            .banks
            .first()
            .map(|&(k, _)| Place::Section(k))
            .unwrap_or(Place::Absolute);
        for (n, (sym, kind)) in list_sort(chain).into_iter().enumerate() {
            let offset = self.base.saturating_add(SLOT_SIZE.saturating_mul(n as u64));
            let name = st.symbol_name(sym);
            let input = st.symbol(sym).map(|s| s.input).unwrap_or(0);
            let offset_symbol = st.add_local(OutSymbol {
                name: format!("{OFFSET_PREFIX}{name}").into(),
                binding: STB_LOCAL,
                sym_type: STT_OFFSET_SYMBOL,
                other: 0,
                place: home,
                value: offset,
                size: SLOT_SIZE,
                input,
                regcount: None,
                // nvlink's output never holds it, nor its name.
                removed: true,
            });
            self.by_symbol.insert(sym, self.slots.len());
            self.slots.push(Slot {
                symbol: sym,
                kind,
                offset_symbol,
                offset,
            });
            ev.push(
                BindlessEvent::Slot {
                    symbol: name,
                    resource: kind,
                    offset,
                    index: n,
                }
                .event(),
            );
        }
        self.stage = Stage::Rewrite(0);
        self.save(st);
        ev
    }

    fn rewrite(&mut self, st: &mut LinkState, i: usize) -> Vec<Event> {
        let Some(r) = st.relocs.get(i).copied() else {
            self.stage = Stage::Propagate(0);
            return Vec::new();
        };
        self.stage = Stage::Rewrite(i + 1);
        if !r.live || is_header_reloc(r.rtype) {
            return Vec::new();
        }
        let Some(&slot) = self.by_symbol.get(&r.sym) else {
            return Vec::new();
        };
        let Some(sec) = st.sections.get(r.section) else {
            return Vec::new();
        };
        if sec.removed {
            return Vec::new();
        }
        let section = sec.name.clone();
        let function = sec
            .owner
            .filter(|&f| st.symbol(f).is_some_and(|s| s.sym_type == STT_FUNC));
        let s = &self.slots[slot];
        let (from, to) = (st.symbol_name(r.sym), st.symbol_name(s.offset_symbol));
        st.relocs[i].sym = s.offset_symbol;
        let bit = s.kind.bit();
        let mut bits = 0;
        if let Some(f) = function {
            let e = self.bits.entry(f).or_insert(0);
            if *e == 0 {
                self.order.push(f);
            }
            *e |= bit;
            bits = *e;
        }
        vec![
            BindlessEvent::Rewritten {
                index: i,
                section,
                offset: r.offset,
                from,
                to,
                function: function.map(|f| st.symbol_name(f)),
                bits,
            }
            .event(),
        ]
    }

    /// Passes function `order[i]`'s bits to all its callers, transitively.
    fn propagate(&mut self, st: &mut LinkState, i: usize) -> Vec<Event> {
        let Some(&f) = self.order.get(i) else {
            self.stage = Stage::Tables(0);
            self.save(st);
            return Vec::new();
        };
        self.stage = Stage::Propagate(i + 1);
        let bits = self.bits.get(&f).copied().unwrap_or(0);
        let mut ev = Vec::new();
        let mut seen = vec![f];
        let mut work = vec![f];
        while let Some(callee) = work.pop() {
            for caller in callers(st, callee) {
                if seen.contains(&caller) {
                    continue;
                }
                seen.push(caller);
                work.push(caller);
                let e = self.bits.entry(caller).or_insert(0);
                if *e & bits != bits {
                    *e |= bits;
                    ev.push(
                        BindlessEvent::Propagated {
                            from: st.symbol_name(callee),
                            to: st.symbol_name(caller),
                            bits: *e,
                        }
                        .event(),
                    );
                }
            }
        }
        ev
    }

    fn table(&mut self, st: &mut LinkState, i: usize) -> Vec<Event> {
        let Some(&(k, kernel)) = self.banks.get(i) else {
            self.stage = Stage::Done;
            return Vec::new();
        };
        self.stage = Stage::Tables(i + 1);
        let kname = st.symbol_name(kernel);
        let bits = self.bits.get(&kernel).copied().unwrap_or(0);
        let Some(sec) = st.sections.get_mut(k) else {
            return Vec::new();
        };
        if bits == 0 {
            return vec![
                BindlessEvent::Pruned {
                    section: sec.name.clone(),
                    kernel: kname,
                }
                .event(),
            ];
        }
        for kind in Kind::ALL {
            let n = self.slots.iter().filter(|s| s.kind == kind).count();
            if n > kind.limit() {
                self.stage = Stage::Done;
                return vec![Event::Diagnostic(Diagnostic::fatal(format!(
                    "More than {} {} used in entry function '{kname}'",
                    kind.limit(),
                    kind.plural()
                )))];
            }
        }
        let from = sec.size;
        let end = self
            .base
            .saturating_add(SLOT_SIZE.saturating_mul(self.slots.len() as u64));
        // A constant bank holds 64 KiB; a bigger one comes from a bad input.
        let len = match usize::try_from(end) {
            Ok(len) if end <= MAX_BANK => len,
            _ => {
                self.stage = Stage::Done;
                return vec![Event::Diagnostic(Diagnostic::fatal(format!(
                    "Bindless table of entry function '{kname}' ends at {end:#x}, past the constant bank's {MAX_BANK:#x} bytes"
                )))];
            }
        };
        if !sec.nobits {
            sec.data.resize(len.max(sec.data.len()), 0);
        }
        sec.size = sec.size.max(end);
        let section = sec.name.clone();
        let input = st.symbol(kernel).map(|s| s.input).unwrap_or(0);
        if let Some(t) = st.bindless.as_mut() {
            t.kernels.push((kernel, k));
        }
        // In slot order; emit writes a table last record first, as nvlink
        // (texref_helper_sm90: 0x22c, 0x228, 0x224, 0x220).
        for s in self.slots.iter() {
            st.relocs.push(OutReloc {
                section: k,
                offset: s.offset,
                rtype: s.kind.header_reloc(),
                sym: s.symbol,
                addend: 0,
                rela: self.rela,
                input,
                live: true,
            });
        }
        let mut ev = Vec::new();
        if self.rela {
            ev.extend(self.bank_attributes(st, kernel, input));
        }
        ev.push(
            BindlessEvent::TableAdded {
                section,
                kernel: kname,
                from,
                to: end.max(from),
                bits,
            }
            .event(),
        );
        ev
    }

    /// On Mercury, ptxas leaves the bank attributes out and nvlink appends
    /// EIATTR_BINDLESS_TEXTURE_BANK and EIATTR_BINDLESS_SURFACE_BANK (bank 0)
    /// to every kernel that got the table, whatever kinds the table holds
    /// (corpus texref_helper_sm100: k_tex2 samples one texture and gets both;
    /// experiments: a table of one texture, or of one surface, gets both).
    fn bank_attributes(&self, st: &mut LinkState, kernel: SymIdx, input: usize) -> Vec<Event> {
        let mut ev = Vec::new();
        for attr in [ATTR_TEXTURE_BANK, ATTR_SURFACE_BANK] {
            let present = st
                .nvinfo
                .iter()
                .any(|n| n.live && n.function == Some(kernel) && n.entry.attr == attr);
            if present {
                continue;
            }
            st.nvinfo.push(OutNvInfo {
                function: Some(kernel),
                entry: Entry {
                    attr,
                    value: Value::Byte { value: 0, pad: 0 },
                },
                input,
                live: true,
            });
            ev.push(
                BindlessEvent::BankAttribute {
                    kernel: st.symbol_name(kernel),
                    attribute: if attr == ATTR_TEXTURE_BANK {
                        "EIATTR_BINDLESS_TEXTURE_BANK"
                    } else {
                        "EIATTR_BINDLESS_SURFACE_BANK"
                    }
                    .into(),
                }
                .event(),
            );
        }
        ev
    }
}

/// The callers of `f` in the call graph.
fn callers(st: &LinkState, f: SymIdx) -> Vec<SymIdx> {
    use crate::cubin::callgraph::Record;
    st.callgraph
        .iter()
        .filter(|e| e.live)
        .filter_map(|e| match e.record {
            Record::Call { caller, callee } if callee as i32 == f.0 => Some(SymIdx(caller as i32)),
            _ => None,
        })
        .collect()
}

/// nvlink's linked-list merge sort over slots of equal size: the list is
/// split by dealing its nodes alternately onto two lists (each dealt node
/// pushed on the front), both halves are sorted, and the merge, finding
/// equal keys, takes the first half whole before the second. Probed with
/// 1…16 textures of one kernel (corpus bindless_slot_order_sm90 is n = 8).
pub fn list_sort<T: Copy>(list: Vec<T>) -> Vec<T> {
    if list.len() <= 1 {
        return list;
    }
    let mut a = Vec::with_capacity(list.len() / 2 + 1);
    let mut b = Vec::with_capacity(list.len() / 2);
    for (i, x) in list.into_iter().enumerate() {
        if i % 2 == 0 {
            a.push(x);
        } else {
            b.push(x);
        }
    }
    a.reverse();
    b.reverse();
    let mut out = list_sort(a);
    out.extend(list_sort(b));
    out
}

#[cfg(test)]
mod tests {
    use super::list_sort;

    #[test]
    fn sort_shuffle_matches_nvlink() {
        // Slot order (ascending offsets) nvlink 13.5 gave to x1..xn, all
        // textures of one input, listed by prepending (xn first).
        let seen: &[&[u32]] = &[
            &[1],
            &[2, 1],
            &[1, 3, 2],
            &[2, 4, 1, 3],
            &[5, 1, 3, 2, 4],
            &[6, 2, 4, 5, 1, 3],
            &[5, 1, 7, 3, 6, 2, 4],
            &[6, 2, 8, 4, 5, 1, 7, 3],
            &[1, 9, 5, 7, 3, 6, 2, 8, 4],
            &[2, 10, 6, 8, 4, 1, 9, 5, 7, 3],
            &[1, 9, 5, 3, 11, 7, 2, 10, 6, 8, 4],
            &[2, 10, 6, 4, 12, 8, 1, 9, 5, 3, 11, 7],
            &[5, 13, 1, 9, 3, 11, 7, 2, 10, 6, 4, 12, 8],
        ];
        for want in seen {
            let n = want.len() as u32;
            let list: Vec<u32> = (1..=n).rev().collect();
            assert_eq!(list_sort(list), want.to_vec(), "n = {n}");
        }
        let list: Vec<u32> = (1..=16).rev().collect();
        assert_eq!(
            list_sort(list),
            vec![6, 14, 2, 10, 8, 16, 4, 12, 5, 13, 1, 9, 7, 15, 3, 11]
        );
    }
}
