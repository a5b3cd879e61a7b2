//! Finalize: register-count and stack-size propagation through the call
//! graph, kernel properties, the output's own tables and notes, and the
//! lines nvlink prints about them.
//!
//! One step does one unit: read the inputs' tables, build the call graph,
//! one kernel's properties, then each table in turn, then the printed lines.

pub mod graph;
pub mod info;
mod report;
pub mod tables;

pub use report::nvlink_demangled;

use super::diag::Diagnostic;
use super::event::Event;
pub use super::event::finalize::FinalizeEvent;
use super::setup::LinkSetup;
use super::state::{LinkState, SymIdx};
use graph::{Graph, InputTables};
use info::KernelProps;
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    ReadInputs,
    Graph,
    Kernel(usize),
    NvInfo,
    CallGraph,
    Tables,
    Notes,
    Report,
    Done,
}

/// The phase's cursor.
#[derive(Debug, Clone)]
pub struct Finalize {
    stage: Stage,
    tables: Vec<InputTables>,
    graph: Graph,
    kernels: Vec<SymIdx>,
    props: Vec<KernelProps>,
    values: info::ModuleValues,
}

impl Finalize {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Finalize {
            stage: Stage::ReadInputs,
            tables: Vec::new(),
            graph: Graph::default(),
            kernels: Vec::new(),
            props: Vec::new(),
            values: info::ModuleValues::default(),
        }
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// True when `kernel` or a defined function it reaches by direct calls
    /// has no register count.
    fn missing_regcount(&self, st: &LinkState, kernel: SymIdx) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![kernel];
        while let Some(f) = todo.pop() {
            if !seen.insert(f) {
                continue;
            }
            match st.symbol(f) {
                Some(s) if s.is_defined() && !s.removed && s.regcount.is_none() => return true,
                _ => {}
            }
            todo.extend(self.graph.direct.get(&f).into_iter().flatten().copied());
        }
        false
    }

    /// Kernel properties computed so far (output symbol order).
    pub fn kernel_props(&self) -> &[KernelProps] {
        &self.props
    }

    /// One unit of work.
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        let mut ev = Vec::new();
        let fin = |e: FinalizeEvent| Event::Finalize(e);
        self.stage = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::ReadInputs => {
                if setup.debug && !setup.relocatable {
                    debug_shared_symbols(st);
                }
                let mut callgraph = vec![Vec::new(); st.inputs.len()];
                for (k, e) in st.callgraph.iter().enumerate() {
                    if let Some(v) = callgraph.get_mut(e.input) {
                        v.push(k);
                    }
                }
                self.tables = (0..st.inputs.len())
                    .into_par_iter()
                    .map(|i| graph::input_tables(st, i, &callgraph[i]))
                    .collect();
                Stage::Graph
            }
            Stage::Graph => {
                self.graph = Graph::build(st, &self.tables);
                self.values = info::ModuleValues::read(st);
                self.kernels = self
                    .graph
                    .funcs
                    .iter()
                    .copied()
                    .filter(|&f| crate::link::state::query::is_kernel(st, f))
                    .collect();
                Stage::Kernel(0)
            }
            Stage::Kernel(k) => match self.kernels.get(k) {
                Some(&kernel) if !setup.relocatable && self.missing_regcount(st, kernel) => {
                    // nvlink 13.5 stops when a kernel, or a function it
                    // reaches by direct calls, has no EIATTR_REGCOUNT
                    // (corpus README obs. 53).
                    ev.push(Event::Diagnostic(Diagnostic::fatal("Internal error: no regcount?")));
                    Stage::Done
                }
                Some(&kernel) => {
                    let mut p = info::kernel_props(st, &self.graph, &self.values, kernel);
                    // -preserve-relocs: a kernel dead-code elimination kept
                    // although dead takes nothing from its callees: its own
                    // registers and frame, no stack-size warning (the
                    // thirteenth sweep; preserve_relocs_dead_kernel_sm90).
                    // A kernel kept as a function (README observation
                    // 201) likewise: nvlink lists its own registers.
                    if st.dead_kernels_kept.contains(&kernel) || st.demoted_kernels.contains(&kernel) {
                        p.regs = p.own_regs;
                        p.regs_from = None;
                        p.stack = Some(p.frame);
                    }
                    let name = st.symbol_name(kernel);
                    ev.push(fin(FinalizeEvent::Property {
                        function: name.clone(),
                        property: "regcount".into(),
                        value: p.regs as u64,
                    }));
                    if let Some(from) = p.regs_from {
                        ev.push(fin(FinalizeEvent::RegcountPropagated {
                            kernel: name.clone(),
                            from: st.symbol_name(from),
                            regs: p.regs,
                        }));
                    }
                    match p.stack {
                        Some(s) => ev.push(fin(FinalizeEvent::Property {
                            function: name,
                            property: "min_stack_size".into(),
                            value: s,
                        })),
                        None => ev.push(fin(FinalizeEvent::StackUnknown { kernel: name })),
                    }
                    self.props.push(p);
                    Stage::Kernel(k + 1)
                }
                None => Stage::NvInfo,
            },
            Stage::NvInfo => {
                // Kernels kept as functions (README observation 201) are no
                // entry points here: no minimum stack size, nothing
                // propagated to them, and they do not count as a second
                // kernel (the only entry point takes the barriers of every
                // function, theirs included: kernels_used_single_root_sm90).
                let entries = |props: &[KernelProps]| -> Vec<KernelProps> {
                    props
                        .iter()
                        .filter(|p| !st.demoted_kernels.contains(&p.kernel))
                        .cloned()
                        .collect()
                };
                st.mercury.table_values =
                    info::mercury_values(st, &self.graph, &self.values, &entries(&self.props), setup.relocatable);
                if !setup.relocatable {
                    info::classic_leaf_stacks(st, &self.graph, &mut self.props);
                }
                let entry_props = entries(&self.props);
                info::rewrite(st, &self.graph, &entry_props, setup.relocatable);
                // -preserve-relocs: a kernel dead-code elimination kept
                // although dead has no minimum stack size
                // (preserve_relocs_dce_sm90).
                let dead = std::mem::take(&mut st.dead_kernels_kept);
                st.nvinfo.retain(|n| {
                    !(n.function.is_none()
                        && n.entry.attr == crate::cubin::nvinfo::code::MIN_STACK_SIZE
                        && n.entry.symbol_refs().iter().any(|&r| dead.contains(&SymIdx(r as i32))))
                });
                st.dead_kernels_kept = dead;
                // nvlink creates the module `.nv.info` whatever the inputs
                // hold; an empty one is left out but its name stays in
                // `.shstrtab` (corpus uft_uidx_reorder_sm90).
                let has_info = st.section_named(".nv.info").is_some_and(|k| !st.sections[k].removed);
                if !has_info && !st.dropped_section_names.iter().any(|n| n == ".nv.info") {
                    st.dropped_section_names.push(".nv.info".into());
                }
                ev.push(fin(FinalizeEvent::TableBuilt {
                    name: ".nv.info".into(),
                    records: st.nvinfo.len(),
                }));
                Stage::CallGraph
            }
            Stage::CallGraph => {
                st.strtab_strings = tables::prototype_strings(&self.tables);
                let offsets = tables::string_offsets(&st.strtab_strings);
                // nvlink writes `.nv.callgraph` even when no input has one:
                // then it holds only the four list markers (scenarios
                // checked with `culdb replay --nvlink`, corpus README obs. 51).
                tables::rewrite_callgraph(st, &self.tables, &offsets);
                ev.push(fin(FinalizeEvent::TableBuilt {
                    name: ".nv.callgraph".into(),
                    records: st.callgraph.len(),
                }));
                Stage::Notes
            }
            Stage::Notes => {
                let arch = setup.arch.clone();
                st.notes
                    .retain(|n| n.name != ".note.nv.tkinfo" && n.name != ".note.nv.cuinfo");
                st.notes.push(tables::tkinfo(st, &setup.tool_args, &setup.tool_object));
                let target = crate::arch::lookup(&arch);
                if st.inputs.is_empty() {
                    nothing_linked(st, target);
                }
                let target_sm = target.map(|p| p.sm);
                if let Some(n) = tables::cuinfo(st, target_sm) {
                    st.notes.push(n);
                }
                for n in &st.notes {
                    ev.push(fin(FinalizeEvent::TableBuilt {
                        name: n.name.clone(),
                        records: 1,
                    }));
                }
                Stage::Tables
            }
            Stage::Tables => {
                // The tables' section symbols shape the output symbol order,
                // so every table exists before the prototype records are
                // numbered.
                let sm = tables::arch_number(&setup.arch);
                st.tables
                    .retain(|x| x.name != ".nv.prototype" && x.name != ".nv.rel.action");
                let offsets = tables::string_offsets(&st.strtab_strings);
                if tables::prototype_table(st, &self.tables, &offsets).is_some() {
                    st.tables.push(tables::placeholder(".nv.prototype"));
                }
                if let Some(t) = tables::rel_action_table(sm.unwrap_or(0), setup.relocatable) {
                    ev.push(fin(FinalizeEvent::TableBuilt {
                        name: t.name.clone(),
                        records: 1,
                    }));
                    st.tables.push(t);
                }
                if let Some(t) = tables::prototype_table(st, &self.tables, &offsets) {
                    ev.push(fin(FinalizeEvent::TableBuilt {
                        name: t.name.clone(),
                        records: t.data.len() / 8,
                    }));
                    if let Some(slot) = st.tables.iter_mut().find(|x| x.name == t.name) {
                        *slot = t;
                    }
                }
                st.e_flags = tables::e_flags(st, sm);
                if let Some(e_flags) = st.e_flags {
                    ev.push(fin(FinalizeEvent::Flags { e_flags }));
                }
                Stage::Report
            }
            Stage::Report => {
                for d in self.report(st, setup) {
                    ev.push(Event::Diagnostic(d));
                }
                st.undefined.clear();
                Stage::Done
            }
            Stage::Done => Stage::Done,
        };
        ev
    }
}

/// The output's `.strtab` must open with these bytes (its NUL, then the
/// prototype strings finalize placed there) for the offsets in
/// `.nv.callgraph` and `.nv.prototype` to hold. Emit seeds `.strtab` with it.
pub fn strtab_seed(st: &LinkState) -> Vec<u8> {
    let mut b = vec![0u8];
    for s in &st.strtab_strings {
        b.extend_from_slice(s.as_bytes());
        b.push(0);
    }
    b
}

/// A `-g` final link keeps the shared variables' symbols, as plain OBJECTs
/// (st_other 0): a static one's value counts the reserved shared memory
/// before it, an extern array's only when `.nv_debug.shared` holds static
/// variables (debug_shared_symbols_sm90, debug_extern_shared_sm90), and
/// always on sm_100+ (debug_shared_extern_sm100). Done after relocation,
/// whose fields take the offsets without the cap.
///
/// On sm_100+ the Mercury table keeps what the classic one drops: the
/// input's CUDA_OBJECT type, its memory-space bits (0x40) and the offset
/// without the reserved part (debug_shared_vars_sm100: `modv` at 0 in
/// `.nv.merc.symtab`, 0x400 in `.symtab`).
fn debug_shared_symbols(st: &mut LinkState) {
    use crate::cubin::consts::{STT_OBJECT, STT_SECTION};
    use crate::link::state::query::STO_SHARED;
    let cap = st
        .lookup(".nv.reservedSmem.cap")
        .and_then(|i| st.symbol(i))
        .map(|s| s.value)
        .unwrap_or(0);
    let mercury = !st.mercury.is_empty();
    let module = st.section_named(".nv_debug.shared");
    let vars: Vec<SymIdx> = st
        .all_symbols()
        .filter(|(_, s)| !s.removed && s.other & 0xe0 == STO_SHARED && s.sym_type != STT_SECTION)
        .map(|(i, _)| i)
        .collect();
    let module_static = vars.iter().any(|&i| {
        st.symbol(i)
            .is_some_and(|s| s.size > 0 && module.is_some_and(|m| s.place == super::state::Place::Section(m)))
    });
    for i in vars {
        let Some(s) = st.symbol_mut(i) else { continue };
        let (value, sym_type, other) = (s.value, s.sym_type, s.other);
        let is_extern = s.size == 0;
        if !is_extern || module_static || mercury {
            s.value += cap;
        }
        s.other &= !0xe0;
        s.sym_type = STT_OBJECT;
        if mercury {
            st.mercury.values.insert(i, value);
            st.mercury.kinds.insert(i, (sym_type, other));
        }
    }
}

/// A link nothing was linked into gets, from sm_90 on, a `.nv.compat` with
/// only nvlink's own attributes: EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET, 1
/// for an `a` target, else 0 (empty_link_sm90; sm_75 and sm_80 have none),
/// and into a Mercury target the finalizer's two after it (see
/// `compat::CompatMerge::entries`). A Mercury output also gets the Mercury
/// symbol table and call graph an input with no code would give
/// (`mercury_merge::nothing_linked`; empty_link_sm100, empty_link_sm120).
fn nothing_linked(st: &mut LinkState, target: Option<&crate::arch::Profile>) {
    if target.is_some_and(|t| t.sm >= 90) {
        st.compat.target_only = true;
    }
    if target.is_some_and(|t| t.is_mercury()) {
        super::mercury_merge::nothing_linked(st);
    }
}
