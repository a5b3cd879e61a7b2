//! Which symbols live code refers to. nvlink checks undefined functions
//! after dead-code elimination: a call from a function no kernel can
//! reach is not reported (corpus `dynpar_cudadevrt_sm90`: libcudadevrt's
//! unused wrappers refer to `cnp*` functions that nothing defines). An
//! undefined variable is reported whatever code refers to it.
//!
//! Roots are the kernels (st_other ENTRY) dead-code elimination keeps and
//! every relocation in a data section (initializers, constant banks:
//! function addresses taken there); edges are the call graph and the
//! relocations in each function's code. Debug sections refer to every
//! function and are not roots.

use std::collections::{BTreeMap, BTreeSet};

use crate::cubin::callgraph::Record;
use crate::cubin::consts::{STT_FUNC, STT_SECTION};

use super::state::query::STO_ENTRY;
use super::state::{LinkState, Place, SectionClass, SymIdx};

/// Every symbol an undefined reference is reported for: referenced from
/// reachable code or from data, and every variable any code refers to.
/// `removed`: the functions dead-code elimination will remove (kernels
/// among them are no roots).
pub fn referenced_as_checked(st: &LinkState, removed: &BTreeSet<SymIdx>) -> BTreeSet<SymIdx> {
    // A relocation against a text section symbol refers to the function owning it.
    let function_of = |s: SymIdx| -> SymIdx {
        match st.symbol(s) {
            Some(sym) if sym.sym_type == STT_SECTION => match sym.place {
                Place::Section(i) => st.sections.get(i).and_then(|x| x.owner).unwrap_or(s),
                _ => s,
            },
            _ => s,
        }
    };
    let mercury = !st.mercury.is_empty();
    let undefined_variable = |s: SymIdx| {
        st.symbol(s)
            .is_some_and(|y| y.place == Place::Undefined && y.sym_type != STT_FUNC && y.sym_type != STT_SECTION)
    };
    let mut edges: BTreeMap<SymIdx, Vec<SymIdx>> = BTreeMap::new();
    let mut referenced = BTreeSet::new();
    let mut work: Vec<SymIdx> = Vec::new();
    for r in st.relocs.iter().filter(|r| r.live) {
        let Some(sec) = st.sections.get(r.section) else {
            continue;
        };
        let target = function_of(r.sym);
        match (sec.class, sec.owner) {
            // On sm_100+ an undefined variable that only the debug
            // information names (`-G` code that loads nothing from it) is
            // an undefined reference too (undefined_debug_only_sm120).
            (SectionClass::Debug, _) if mercury && undefined_variable(target) => {
                referenced.insert(target);
            }
            (SectionClass::Debug, _) => {}
            // An undefined variable is reported whatever code refers to
            // it, dead code too (a function nothing calls; a kernel the
            // host lists drop; a library member's unused function:
            // err_undefined_var_dead_code_sm90). Undefined functions
            // count only from live code.
            (SectionClass::Text, Some(_)) if undefined_variable(target) => {
                referenced.insert(target);
            }
            (SectionClass::Text, Some(f)) => edges.entry(f).or_default().push(target),
            _ => {
                referenced.insert(target);
                work.push(target);
            }
        }
    }
    for e in st.callgraph.iter().filter(|e| e.live) {
        if let Record::Call { caller, callee } = e.record {
            edges
                .entry(SymIdx(caller as i32))
                .or_default()
                .push(SymIdx(callee as i32));
        }
    }
    for (idx, s) in st.all_symbols() {
        if s.other & STO_ENTRY != 0 && s.is_defined() && !removed.contains(&idx) {
            referenced.insert(idx);
            work.push(idx);
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        for &t in edges.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
            referenced.insert(t);
            work.push(t);
        }
    }
    referenced
}

/// What each function refers to: its calls (call graph) and every symbol its
/// code has a relocation against (a text section symbol stands for the
/// function owning it). Built once, asked many times.
#[derive(Debug, Clone, Default)]
pub struct References {
    edges: BTreeMap<SymIdx, BTreeSet<SymIdx>>,
}

impl References {
    pub fn of(st: &LinkState) -> Self {
        let owners = super::state::query::text_owners(st);
        let function_of = |s: SymIdx| -> SymIdx {
            match st.symbol(s) {
                Some(sym) if sym.sym_type == STT_SECTION => match sym.place {
                    Place::Section(i) => owners.get(&i).copied().unwrap_or(s),
                    _ => s,
                },
                _ => s,
            }
        };
        let mut edges: BTreeMap<SymIdx, BTreeSet<SymIdx>> = BTreeMap::new();
        for r in st.relocs.iter().filter(|r| r.live) {
            if let Some(&f) = owners.get(&r.section) {
                edges.entry(f).or_default().insert(function_of(r.sym));
            }
        }
        for e in st.callgraph.iter().filter(|e| e.live) {
            if let Record::Call { caller, callee } = e.record {
                edges
                    .entry(SymIdx(caller as i32))
                    .or_default()
                    .insert(SymIdx(callee as i32));
            }
        }
        References { edges }
    }

    /// Everything reachable from `root` (itself included): functions it
    /// calls, directly or not, and every symbol their code refers to.
    pub fn closure(&self, root: SymIdx) -> BTreeSet<SymIdx> {
        let mut seen = BTreeSet::new();
        let mut work = vec![root];
        while let Some(f) = work.pop() {
            if !seen.insert(f) {
                continue;
            }
            if let Some(ts) = self.edges.get(&f) {
                work.extend(ts.iter().copied());
            }
        }
        seen
    }
}
