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

/// The function a relocation's symbol stands for: a text section's symbol
/// stands for the function owning the section (`owners`:
/// `state::query::text_owners`).
fn owning_function(st: &LinkState, owners: &foldhash::HashMap<usize, SymIdx>, s: SymIdx) -> SymIdx {
    match st.symbol(s) {
        Some(sym) if sym.sym_type == STT_SECTION => match sym.place {
            Place::Section(i) => owners.get(&i).copied().unwrap_or(s),
            _ => s,
        },
        _ => s,
    }
}

/// What each function refers to: its calls (call graph) and every symbol its
/// code has a relocation against (a text section symbol stands for the
/// function owning it). Built once, asked many times.
#[derive(Debug, Clone, Default)]
pub struct References {
    edges: BTreeMap<SymIdx, BTreeSet<SymIdx>>,
    /// The kernels (entry functions): another kernel's code runs in its
    /// own blocks, so what it refers to is not the referrer's.
    kernels: BTreeSet<SymIdx>,
}

impl References {
    pub fn of(st: &LinkState) -> Self {
        let owners = super::state::query::text_owners(st);
        let function_of = |s: SymIdx| owning_function(st, &owners, s);
        let mut edges: BTreeMap<SymIdx, BTreeSet<SymIdx>> = BTreeMap::new();
        for r in st.relocs.iter().filter(|r| r.live) {
            if let Some(&f) = owners.get(&r.section) {
                edges.entry(f).or_default().insert(function_of(r.sym));
            }
        }
        // An indirect call reaches every address-taken function of its
        // prototype, as in nvlink's call graph (README observation 209:
        // const2_indirect_debug_sm75, a `-G` `sinf`'s bank 2 reached
        // through a table of function pointers).
        let protos = prototype_texts(st);
        let text = |input: usize, off: u32| protos.get(&(input, off)).map_or("", String::as_str);
        let mut taken: BTreeMap<&str, Vec<SymIdx>> = BTreeMap::new();
        let mut indirect: Vec<(SymIdx, &str)> = Vec::new();
        for e in st.callgraph.iter().filter(|e| e.live) {
            match e.record {
                Record::Call { caller, callee } => {
                    edges
                        .entry(SymIdx(caller as i32))
                        .or_default()
                        .insert(SymIdx(callee as i32));
                }
                Record::AddressTaken { func, prototype } => taken
                    .entry(text(e.input, prototype))
                    .or_default()
                    .push(SymIdx(func as i32)),
                Record::IndirectCall { caller, prototype } => {
                    indirect.push((SymIdx(caller as i32), text(e.input, prototype)))
                }
                _ => {}
            }
        }
        for (caller, p) in indirect {
            let targets = taken.get(p).into_iter().flatten().copied();
            edges.entry(caller).or_default().extend(targets);
        }
        let kernels = st
            .all_symbols()
            .map(|(i, _)| i)
            .filter(|&i| super::state::query::is_kernel(st, i))
            .collect();
        References { edges, kernels }
    }

    /// Everything reachable from `root` (itself included): functions it
    /// calls, directly or not, and every symbol their code refers to. It
    /// stops at other kernels: a kernel that launches another (or stores
    /// its address) does not take that kernel's shared memory, not even
    /// one `-kernels-used` makes a function (README observation 202:
    /// shared_device_launched_kernel_sm90).
    pub fn closure(&self, root: SymIdx) -> BTreeSet<SymIdx> {
        let mut seen = BTreeSet::new();
        let mut work = vec![root];
        while let Some(f) = work.pop() {
            if f != root && self.kernels.contains(&f) {
                continue;
            }
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

/// What a final link's dead-code elimination keeps, as nvlink decides it.
/// `roots`: the kernels it keeps, whose calls and references it follows
/// (a kernel the host lists leave out but device code launches among
/// them: dce_device_launched_callee_sm90); `held`: functions whose address
/// data holds, kept.
///
/// A function the call graph lists as address-taken (its `-2` records)
/// is kept, but nvlink follows its own calls and references only when a
/// followed function makes an indirect call of its prototype
/// (dce_address_taken_callee_sm90: `op` stored in a pointer, no indirect
/// call of `float (float)`: `op` stays, the `inner` it calls goes; a
/// kernel `-kernels-used` leaves out but another launches, the same).
/// Any other function referred to is followed.
pub fn kept_functions(st: &LinkState, roots: &[SymIdx], held: &[SymIdx]) -> BTreeSet<SymIdx> {
    let owners = super::state::query::text_owners(st);
    let function_of = |s: SymIdx| owning_function(st, &owners, s);
    let protos = prototype_texts(st);
    let text = |input: usize, off: u32| protos.get(&(input, off)).map_or("", String::as_str);
    let mut edges: BTreeMap<SymIdx, Vec<SymIdx>> = BTreeMap::new();
    let mut taken: BTreeMap<SymIdx, Vec<&str>> = BTreeMap::new();
    let mut indirect: BTreeMap<SymIdx, Vec<&str>> = BTreeMap::new();
    for e in st.callgraph.iter().filter(|e| e.live) {
        match e.record {
            Record::Call { caller, callee } => edges
                .entry(SymIdx(caller as i32))
                .or_default()
                .push(SymIdx(callee as i32)),
            Record::AddressTaken { func, prototype } => taken
                .entry(SymIdx(func as i32))
                .or_default()
                .push(text(e.input, prototype)),
            Record::IndirectCall { caller, prototype } => indirect
                .entry(SymIdx(caller as i32))
                .or_default()
                .push(text(e.input, prototype)),
            _ => {}
        }
    }
    // References from code: kept; followed unless address-taken.
    let mut refs: BTreeMap<SymIdx, Vec<SymIdx>> = BTreeMap::new();
    for r in st.relocs.iter().filter(|r| r.live) {
        if let Some(&f) = owners.get(&r.section) {
            refs.entry(f).or_default().push(function_of(r.sym));
        }
    }
    let mut kept: BTreeSet<SymIdx> = BTreeSet::new();
    let mut followed: BTreeSet<SymIdx> = BTreeSet::new();
    let mut waiting: BTreeSet<SymIdx> = BTreeSet::new();
    let mut called: BTreeSet<&str> = BTreeSet::new();
    let mut work: Vec<SymIdx> = roots.to_vec();
    let hold = |f: SymIdx, kept: &mut BTreeSet<SymIdx>, work: &mut Vec<SymIdx>, waiting: &mut BTreeSet<SymIdx>| {
        kept.insert(f);
        if taken.contains_key(&f) {
            waiting.insert(f);
        } else {
            work.push(f);
        }
    };
    // Every address-taken function stays, whatever took its address: dead
    // code too (dce_address_taken_dead_referrer_sm90: a setter nothing
    // calls stores `gf`; nvlink keeps `gf`, and its callee only when live
    // code calls through `gf`'s prototype).
    for &f in held.iter().chain(taken.keys()) {
        hold(f, &mut kept, &mut work, &mut waiting);
    }
    loop {
        while let Some(f) = work.pop() {
            if !followed.insert(f) {
                continue;
            }
            kept.insert(f);
            called.extend(indirect.get(&f).into_iter().flatten().copied());
            work.extend(edges.get(&f).into_iter().flatten().copied());
            for &t in refs.get(&f).into_iter().flatten() {
                hold(t, &mut kept, &mut work, &mut waiting);
            }
        }
        // The address-taken functions an indirect call followed so far may reach.
        let ready: Vec<SymIdx> = waiting
            .iter()
            .copied()
            .filter(|f| !followed.contains(f) && taken[f].iter().any(|p| called.contains(p)))
            .collect();
        if ready.is_empty() {
            return kept;
        }
        for f in ready {
            waiting.remove(&f);
            work.push(f);
        }
    }
}

/// The prototype strings the call graph's address-taken and indirect-call
/// records name: (input, `.strtab` offset) → text. Only inputs with such
/// records are read again.
fn prototype_texts(st: &LinkState) -> BTreeMap<(usize, u32), String> {
    let mut wanted: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
    for e in st.callgraph.iter().filter(|e| e.live) {
        if let Record::AddressTaken { prototype, .. } | Record::IndirectCall { prototype, .. } = e.record {
            wanted.entry(e.input).or_default().insert(prototype);
        }
    }
    let mut out = BTreeMap::new();
    for (input, offs) in wanted {
        let Some(Ok(c)) = st.inputs.get(input).map(|r| crate::cubin::read::parse(&r.data)) else {
            continue;
        };
        let strtab = c.symbol_strings();
        for off in offs {
            if let Some(s) = crate::cubin::read::string_at(strtab, off as usize) {
                out.insert((input, off), s.to_string());
            }
        }
    }
    out
}
