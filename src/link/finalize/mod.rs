//! Finalize: register-count and stack-size propagation through the call
//! graph, kernel properties, the output's own tables and notes, and the
//! lines nvlink prints about them.
//!
//! One step does one unit: read the inputs' tables, build the call graph,
//! one kernel's properties, then each table in turn, then the printed lines.

pub mod graph;
pub mod info;
pub mod tables;

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

    /// The lines nvlink prints at the end of a link: the stack warnings,
    /// then with `--dump-callgraph` the graph, with `-v` the properties.
    fn report(&self, st: &LinkState, setup: &LinkSetup) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        if setup.relocatable {
            // `-r -v` prints each kernel's own registers and no stack
            // (verbose_sm90, local_mem_sm90 with -r: 0 where the final link
            // says 648 and 4096), and no stack warning.
            if setup.verbose {
                out.push(Diagnostic::info(gmem_line(st)));
                let mut barriers = None;
                for p in self.props.iter().rev() {
                    let own = KernelProps {
                        regs: p.own_regs,
                        stack: Some(0),
                        ..p.clone()
                    };
                    let name = st.symbol_name(p.kernel);
                    out.push(Diagnostic::info(format!("Function properties for '{name}':")));
                    out.push(Diagnostic::info(properties_line(st, &own, &mut barriers)));
                }
            }
            return out;
        }
        // The warnings come in the reverse of the `-v` order: kernels as the
        // call graph numbers them, not output symbol order (stack_warning_order_sm90:
        // a local kernel between the global ones). A kernel's comes once per
        // call-graph edge of it (direct callees, then each possible target
        // of its indirect calls) into a recursive call tree
        // (stack_warning_count_sm86, observation 120).
        for p in self.props.iter() {
            if p.stack.is_none() && !setup.suppress_stack_size_warning {
                let recursive = self
                    .graph
                    .successors(p.kernel)
                    .into_iter()
                    .filter(|&c| self.graph.stack(c, &|_| 0).is_none())
                    .count();
                for _ in 0..recursive.max(1) {
                    out.push(Diagnostic::warning(format!(
                        "Stack size for entry function '{}' cannot be statically determined",
                        st.symbol_name(p.kernel)
                    )));
                }
            }
        }
        // The undefined references: nvlink links on and fails at the end
        // (err_undefined_stack_warning_sm90: after the stack warning;
        // err_undefined_maxreg_sm90: before the max-regcount error, then
        // `-v`'s lines).
        out.extend(st.undefined.iter().cloned());
        // A kernel that may reach `tcgen05` code of one CTA and of a CTA
        // pair fails the link, each such kernel in the `-v` order, once;
        // when the output has one kernel, once per other function using
        // `tcgen05` (err_tcgen05_mixed_cta_sm100a: two callees, twice;
        // measured: the kernel's own `::1` and one callee's `::2`, once;
        // two and three kernels, once each).
        use crate::cubin::nvinfo::code::{TCGEN05_1CTA_USED, TCGEN05_2CTA_USED};
        // (function, attribute) of every `tcgen05` flag, read once.
        let tcgen05: foldhash::HashSet<(SymIdx, u8)> = st
            .nvinfo
            .iter()
            .filter(|n| n.live && matches!(n.entry.attr, TCGEN05_1CTA_USED | TCGEN05_2CTA_USED))
            .filter_map(|n| Some((n.function?, n.entry.attr)))
            .collect();
        let uses_tcgen05 =
            |f: SymIdx| tcgen05.contains(&(f, TCGEN05_1CTA_USED)) || tcgen05.contains(&(f, TCGEN05_2CTA_USED));
        let repeat = match self.props.as_slice() {
            [only] => self
                .graph
                .funcs
                .iter()
                .filter(|&&f| f != only.kernel && graph::present(st, f) && uses_tcgen05(f))
                .count()
                .max(1),
            _ => 1,
        };
        for p in self.props.iter().rev() {
            if tcgen05.contains(&(p.kernel, TCGEN05_1CTA_USED)) && tcgen05.contains(&(p.kernel, TCGEN05_2CTA_USED)) {
                for _ in 0..repeat {
                    out.push(Diagnostic::error(format!(
                        "Function '{}' uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not allowed.",
                        st.symbol_name(p.kernel)
                    )));
                }
            }
        }
        // A kernel limited to fewer registers (EIATTR_MAXREG_COUNT, from
        // `__launch_bounds__`) than a function it calls uses fails the link
        // (err_maxreg_callee_sm90: cub's warp-specialized scan under `-G`),
        // each such kernel in the `-v` order (err_maxreg_order_sm90).
        // Each function's own limit, read once (a link of thousands of
        // kernels asks for each).
        let mut limits: foldhash::HashMap<SymIdx, u32> = foldhash::HashMap::default();
        for n in st
            .nvinfo
            .iter()
            .filter(|n| n.live && n.entry.attr == crate::cubin::nvinfo::code::MAXREG_COUNT)
        {
            if let (Some(f), Some(v)) = (n.function, n.entry.scalar()) {
                limits.entry(f).or_insert(v);
            }
        }
        // The kernel's count rises callee by callee, in the symbol order of
        // the input defining each; every rise above the limit is an error.
        // The errors come by that callee, and in the `-v` order for one
        // callee (err_maxreg_order_sm90: four kernels calling one function;
        // err_maxreg_callee_order_sm90: two kernels, each calling its own
        // function, in their callees' order; err_maxreg_two_callees_sm90:
        // 142 then 141 registers, one error; the twelfth sweep: 141 then
        // 148, two).
        let defined_at = |f: SymIdx| {
            st.symbol(f)
                .and_then(|s| {
                    let at = st.maps.get(s.input)?.map_symbol_index.iter().position(|&x| x == f.0)?;
                    Some((s.input, at))
                })
                .unwrap_or((usize::MAX, usize::MAX))
        };
        let mut limited: Vec<((usize, usize), Diagnostic)> = Vec::new();
        for p in self.props.iter().rev() {
            let Some(limit) = limits.get(&p.kernel).copied() else {
                continue;
            };
            if p.regs <= limit || p.regs_from.is_none() {
                continue;
            }
            let mut callees: Vec<(SymIdx, (usize, usize))> = self
                .graph
                .reachable(p.kernel)
                .into_iter()
                .map(|f| (f, defined_at(f)))
                .collect();
            callees.sort_by_key(|&(_, at)| at);
            let mut running = p.own_regs;
            for (f, at) in callees {
                let Some(regs) = self.values.regs_of(st, f).filter(|&r| r > running) else {
                    continue;
                };
                running = regs;
                if regs > limit {
                    limited.push((
                        at,
                        Diagnostic::error(format!(
                            "entry function '{}' with max regcount of {limit} calls function '{}' with regcount of {}",
                            st.symbol_name(p.kernel),
                            st.symbol_name(f),
                            regs
                        )),
                    ));
                }
            }
        }
        limited.sort_by_key(|(at, _)| *at);
        out.extend(limited.into_iter().map(|(_, d)| d));
        if setup.dump_callgraph {
            for line in self.callgraph_dump(st, setup) {
                out.push(Diagnostic::tool_output(line));
            }
        }
        if setup.verbose {
            out.push(Diagnostic::info(gmem_line(st)));
            let mut barriers = None;
            for p in self.props.iter().rev() {
                let name = st.symbol_name(p.kernel);
                out.push(Diagnostic::info(format!("Function properties for '{name}':")));
                out.push(Diagnostic::info(properties_line(st, p, &mut barriers)));
            }
        }
        out
    }

    /// `--dump-callgraph`: every function numbered in output order, its
    /// register count and possible callees; then the propagations.
    fn callgraph_dump(&self, st: &LinkState, setup: &LinkSetup) -> Vec<String> {
        // nvlink 13.5 demangles with --dump-callgraph-no-demangle too
        // (dump_callgraph_no_demangle_sm90).
        let shown = |i: SymIdx| nvlink_demangled(&st.symbol_name(i));
        // Functions removed as dead keep their number and show as an empty
        // line (dump_callgraph_dead_sm90: inlined and uncalled functions,
        // kernels -kernels-used drops, `vprintf` only they called).
        let order = crate::link::out::symbol_order(st);
        let first = tables::first_seen(st);
        let mut numbered: Vec<((usize, usize), SymIdx)> = st
            .all_symbols()
            .filter(|(i, s)| s.sym_type == crate::cubin::consts::STT_FUNC && (s.removed || order.index.contains_key(i)))
            .map(|(i, _)| (first.get(&i).copied().unwrap_or((usize::MAX, usize::MAX)), i))
            .collect();
        numbered.sort();
        let number: std::collections::HashMap<SymIdx, usize> =
            numbered.iter().enumerate().map(|(k, &(_, f))| (f, k + 1)).collect();
        let regs = info::module_value(st, crate::cubin::nvinfo::code::REGCOUNT);
        let mut out = vec![
            format!("callgraph for {}:", setup.arch),
            "# A: s -> B // s (number A) potentially calls B".to_string(),
            "# s [N]     // s uses N registers".to_string(),
            "# ^s        // s is entry point".to_string(),
            "# &s        // s has address taken".to_string(),
        ];
        for (k, &(_, f)) in numbered.iter().enumerate() {
            let mut line = format!("{}: ", k + 1);
            if !graph::present(st, f) {
                out.push(line);
                continue;
            }
            if crate::link::state::query::is_kernel(st, f) && !st.demoted_kernels.contains(&f) {
                line.push('^');
            }
            if self.graph.taken.iter().any(|(t, _)| *t == f) {
                line.push('&');
            }
            line.push_str(&shown(f));
            let count = self
                .props
                .iter()
                .find(|p| p.kernel == f)
                .map(|p| p.own_regs)
                .or_else(|| regs.get(&f).copied())
                .or_else(|| st.symbol(f).and_then(|s| s.regcount));
            if let Some(c) = count {
                line.push_str(&format!(" [{c}]"));
            }
            line.push_str(" ->");
            for s in self.graph.successors(f) {
                if let Some(n) = number.get(&s) {
                    line.push_str(&format!(" {n}"));
                }
            }
            out.push(line);
        }
        for p in &self.props {
            if let Some(from) = p.regs_from {
                out.push(format!(
                    "regcount {} for {} propagated to entry {}",
                    p.regs,
                    shown(from),
                    shown(p.kernel)
                ));
            }
        }
        out
    }
}

/// Bytes of device globals (`.nv.global` and `.nv.global.init`).
fn gmem(st: &LinkState) -> u64 {
    use super::state::SectionClass;
    st.sections
        .iter()
        .filter(|s| !s.removed && matches!(s.class, SectionClass::Global | SectionClass::GlobalInit))
        .map(|s| s.size)
        .sum()
}

/// `N bytes gmem`, with `, C bytes cmem[3]` when the output has user
/// `__constant__` data (`.nv.constant3`; not on sm_100+): verbose_cmem_sm80.
fn gmem_line(st: &LinkState) -> String {
    let bank3 = st
        .section_named(".nv.constant3")
        .and_then(|i| st.sections.get(i))
        .filter(|s| !s.removed && st.mercury.is_empty());
    match bank3 {
        Some(s) => format!("{} bytes gmem, {} bytes cmem[3]", gmem(st), s.size),
        None => format!("{} bytes gmem", gmem(st)),
    }
}

/// The BVAL or HVAL value of kernel `k`'s own `.nv.info` attribute `attr`.
fn own_scalar(st: &LinkState, k: SymIdx, attr: u8) -> Option<u32> {
    st.nvinfo
        .iter()
        .filter(|n| n.live && n.function == Some(k) && n.entry.attr == attr)
        .find_map(|n| n.entry.scalar())
}

/// `used N registers, used B barriers, S stack, M bytes smem, C bytes cmem[0], L bytes lmem`
/// (no cmem on sm_100+), with `K bytes cmem[2]` after cmem[0] for a kernel
/// with a `.nv.constant2.<kernel>` (sm_75-sm_89: verbose_cmem_sm80).
///
/// A kernel without EIATTR_NUM_BARRIERS shows the count of the kernel
/// printed before it (`barriers`, which the line updates); before any, the
/// number of NOBITS sections in the output (`.nv.global`, every
/// `.nv.shared.*` including sm_110's `.nv.shared.reserved.0`,
/// `.nv_debug.shared`), `-r` too: nvlink's stale values, not the kernel's
/// (verbose_cmem_sm80: 2; experiments with 0 to 4 such sections on sm_80
/// to sm_120; verbose_sm110, local_mem_sm110 from scripts/retarget-check:
/// the reserved section alone gives 1; verbose_barriers_carry_sm90: 3
/// after a kernel with 3).
fn properties_line(st: &LinkState, p: &KernelProps, barriers: &mut Option<u32>) -> String {
    let name = st.symbol_name(p.kernel);
    let size_of = |sec: String| {
        st.section_named(&sec)
            .and_then(|i| st.sections.get(i))
            .filter(|s| !s.removed)
            .map(|s| s.size)
            .unwrap_or(0)
    };
    let barriers = *barriers.insert(
        own_scalar(st, p.kernel, crate::cubin::nvinfo::code::NUM_BARRIERS)
            .or(*barriers)
            .unwrap_or_else(|| st.sections.iter().filter(|s| !s.removed && s.nobits).count() as u32),
    );
    // A kernel whose stack is unknown shows its own frame.
    let stack = p.stack.unwrap_or(p.frame);
    // sm_100+ leaves the constant bank out, and the reserved shared memory
    // (recursion_stack_sm100; shared_static_sm100: 0xc04 of a 0x1004-byte
    // section).
    let (cmem, reserved) = if st.mercury.is_empty() {
        (
            format!(
                " {} bytes cmem[0],{}",
                size_of(format!(".nv.constant0.{name}")),
                match size_of(format!(".nv.constant2.{name}")) {
                    0 => String::new(),
                    n => format!(" {n} bytes cmem[2],"),
                }
            ),
            0,
        )
    } else {
        let cap = st
            .lookup(".nv.reservedSmem.cap")
            .and_then(|i| st.symbol(i))
            .filter(|_| !st.relocatable)
            .map_or(0, |s| s.value);
        (String::new(), cap)
    };
    format!(
        "used {} registers, used {barriers} barriers, {stack} stack, {} bytes smem,{cmem} {} bytes lmem",
        p.regs,
        size_of(format!(".nv.shared.{name}")).saturating_sub(reserved),
        size_of(format!(".nv.local.{name}")),
    )
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

/// A name as nvlink's call-graph dump spells it: demangled in the EDG
/// style (`float *`, `const int *`, ` [deleting]` for a D0 destructor)
/// rather than the Itanium demangler's (`float*`, `int const*`).
pub fn nvlink_demangled(name: &str) -> String {
    let Some(d) = crate::demangle::demangle(name) else {
        return name.to_string();
    };
    let mut out = edg_style(&d);
    if name.contains("D0Ev") {
        out.push_str(" [deleting]");
    }
    out
}

/// Rewrites the parameter list spelling: `T const*` → `const T *`,
/// `T*` / `T&` → `T *` / `T &`.
fn edg_style(d: &str) -> String {
    let mut out = String::with_capacity(d.len() + 8);
    let b = d.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if (c == '*' || c == '&') && i > 0 && b[i - 1] != b' ' && b[i - 1] != b'*' && b[i - 1] != b'&' {
            // `X const*`: move const before the type word.
            if out.ends_with(" const") {
                out.truncate(out.len() - " const".len());
                let start = out.rfind(['(', ',', ' ']).map(|p| p + 1).unwrap_or(0);
                let word = out[start..].to_string();
                out.truncate(start);
                out.push_str("const ");
                out.push_str(&word);
            }
            out.push(' ');
        }
        out.push(c);
        i += 1;
    }
    out
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
