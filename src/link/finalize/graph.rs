//! The link's call graph as nvlink sees it in finalize: direct calls, and
//! indirect calls resolved to every address-taken function of the same
//! prototype. Prototypes are strings (the inputs' `.strtab` offsets are
//! resolved here, per input).

use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;

use crate::cubin::callgraph::Record;
use crate::cubin::consts::{SHT_CUDA_PROTOTYPE, SHT_SYMTAB, STT_FUNC};
use crate::cubin::{prototype, read};

use crate::link::out::{section_created, symbol_order};
use crate::link::state::{LinkState, Place, SymIdx};

/// st_other bit of a kernel (`.entry`).
pub const STO_ENTRY: u8 = 0x10;

/// What finalize needs from one input besides what merge kept: its
/// `.strtab` strings behind the call-graph and prototype records, and its
/// `.nv.prototype` records translated to state symbols.
#[derive(Debug, Clone, Default)]
pub struct InputTables {
    /// `.strtab` offset → string, for the offsets its tables use.
    pub strings: BTreeMap<u32, String>,
    /// (state symbol, prototype string), in section order.
    pub prototypes: Vec<(SymIdx, String)>,
    /// The strings in the order the input's records refer to them (call
    /// graph, then `.nv.prototype`): the order nvlink names them in
    /// (README observation 80).
    pub order: Vec<String>,
}

/// Reads the tables of input `i` (nothing for an input that no longer
/// parses); `callgraph` holds the indices of its `st.callgraph` records.
pub fn input_tables(st: &LinkState, i: usize, callgraph: &[usize]) -> InputTables {
    let mut out = InputTables::default();
    let Some(rec) = st.inputs.get(i) else { return out };
    let Some(sections) = read::raw_sections(&rec.data) else {
        return out;
    };
    let strtab = (sections.iter().find(|s| s.sh_type == SHT_SYMTAB))
        .and_then(|s| sections.get(s.link as usize))
        .map_or(&[][..], |s| s.data);
    let want = |off: u32, out: &mut InputTables| {
        if let Some(s) = read::string_at(strtab, off as usize)
            && out.strings.insert(off, s.to_string()).is_none()
        {
            out.order.push(s.to_string());
        }
    };
    for e in callgraph.iter().filter_map(|&k| st.callgraph.get(k)) {
        let mut r = e.record;
        for o in r.string_refs_mut() {
            want(*o, &mut out);
        }
    }
    let map = st.maps.get(i);
    for s in sections.iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE) {
        let Ok(p) = prototype::decode(s.data) else { continue };
        for r in p.records {
            want(r.prototype, &mut out);
            let Some(text) = read::string_at(strtab, r.prototype as usize) else {
                continue;
            };
            let sym = map
                .and_then(|m| m.map_symbol_index.get(r.sym as usize))
                .copied()
                .unwrap_or(0);
            if sym != 0 {
                out.prototypes.push((SymIdx(sym), text.to_string()));
            }
        }
    }
    out
}

/// The call graph over the output's functions.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Function symbols (defined or not) in output symbol-table order.
    pub funcs: Vec<SymIdx>,
    /// Direct callees per caller, in input order.
    pub direct: HashMap<SymIdx, Vec<SymIdx>>,
    /// Prototypes of the indirect calls per caller, in input order.
    pub indirect: HashMap<SymIdx, Vec<String>>,
    /// Address-taken functions with their prototype, in output order.
    pub taken: Vec<(SymIdx, String)>,
}

/// True for a symbol that is in the output.
pub fn present(st: &LinkState, i: SymIdx) -> bool {
    st.symbol(i).is_some_and(|s| !s.removed)
}

impl Graph {
    pub fn build(st: &LinkState, tables: &[InputTables]) -> Graph {
        let order = symbol_order(st);
        // nvlink numbers functions in order of first appearance
        // (dump_callgraph_cpp_sm90), which is mostly its symbol order, but
        // a function counts where its code is, not where an earlier input
        // referred to it (verbose_callgraph_order_sm75: the first object
        // lists the kernels it launches before its own; observation 196).
        // Functions without code come first.
        let first = super::tables::first_seen(st);
        let key = |i: SymIdx| {
            let code = match st.symbol(i).map(|s| s.place) {
                Some(Place::Section(k)) => Some(section_created(st, k)),
                _ => None,
            };
            (code, first.get(&i).copied().unwrap_or((usize::MAX, usize::MAX)))
        };
        let mut funcs: Vec<(_, SymIdx)> = st
            .all_symbols()
            .filter(|(i, s)| s.sym_type == STT_FUNC && order.index.contains_key(i))
            .map(|(i, _)| (key(i), i))
            .collect();
        funcs.sort();
        let mut g = Graph {
            funcs: funcs.into_iter().map(|(_, i)| i).collect(),
            ..Graph::default()
        };
        let string = |input: usize, off: u32| -> String {
            tables
                .get(input)
                .and_then(|t| t.strings.get(&off))
                .cloned()
                .unwrap_or_default()
        };
        let mut taken: Vec<(SymIdx, String)> = Vec::new();
        let mut seen_taken = HashSet::default();
        for e in st.callgraph.iter().filter(|e| e.live) {
            let sym = |x: u32| SymIdx(x as i32);
            match e.record {
                Record::Call { caller, callee } if present(st, sym(caller)) && present(st, sym(callee)) => {
                    g.direct.entry(sym(caller)).or_default().push(sym(callee));
                }
                Record::IndirectCall { caller, prototype } if present(st, sym(caller)) => {
                    g.indirect
                        .entry(sym(caller))
                        .or_default()
                        .push(string(e.input, prototype));
                }
                Record::AddressTaken { func, prototype } if present(st, sym(func)) && seen_taken.insert(func) => {
                    taken.push((sym(func), string(e.input, prototype)));
                }
                _ => {}
            }
        }
        taken.sort_by_key(|(f, _)| key(*f));
        g.taken = taken;
        g
    }

    /// The functions `f` may call, as nvlink lists them (`--dump-callgraph`):
    /// the direct callees, then every address-taken function matching each
    /// indirect call (the calls taken last to first), all reversed.
    pub fn successors(&self, f: SymIdx) -> Vec<SymIdx> {
        let mut seq: Vec<SymIdx> = self.direct.get(&f).cloned().unwrap_or_default();
        if let Some(protos) = self.indirect.get(&f) {
            for p in protos.iter().rev() {
                seq.extend(self.taken.iter().filter(|(_, q)| q == p).map(|(t, _)| *t));
            }
        }
        seq.reverse();
        seq
    }

    /// Every function reachable from `f` (not `f` itself unless it is on a
    /// cycle), in depth-first pre-order along [`Graph::successors`] taken in
    /// insertion order.
    pub fn reachable(&self, f: SymIdx) -> Vec<SymIdx> {
        let mut out = Vec::new();
        let mut seen = HashSet::default();
        let mut stack: Vec<SymIdx> = self.successors(f);
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            out.push(n);
            stack.extend(self.successors(n));
        }
        out
    }

    /// The deepest stack any call chain from `f` needs (frame sizes summed),
    /// or None when a chain is recursive.
    pub fn stack(&self, f: SymIdx, frame: &dyn Fn(SymIdx) -> u64) -> Option<u64> {
        let mut memo: HashMap<SymIdx, Option<u64>> = HashMap::default();
        let mut on_path = HashSet::default();
        self.stack_of(f, frame, &mut memo, &mut on_path)
    }

    fn stack_of(
        &self,
        f: SymIdx,
        frame: &dyn Fn(SymIdx) -> u64,
        memo: &mut HashMap<SymIdx, Option<u64>>,
        on_path: &mut HashSet<SymIdx>,
    ) -> Option<u64> {
        if let Some(&v) = memo.get(&f) {
            return v;
        }
        if !on_path.insert(f) {
            return None;
        }
        let mut deepest = Some(0u64);
        for c in self.successors(f) {
            deepest = match (deepest, self.stack_of(c, frame, memo, on_path)) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
            if deepest.is_none() {
                break;
            }
        }
        on_path.remove(&f);
        let v = deepest.map(|d| d.saturating_add(frame(f)));
        memo.insert(f, v);
        v
    }
}

/// True for an undefined function the output still refers to.
pub fn undefined_func(st: &LinkState, i: SymIdx) -> bool {
    st.symbol(i)
        .is_some_and(|s| !s.removed && s.place == Place::Undefined && s.sym_type == STT_FUNC)
}
