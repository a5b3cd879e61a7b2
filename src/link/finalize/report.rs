//! The lines nvlink prints at the end of a link: errors about each
//! kernel's limits, the stack warnings, the undefined references,
//! `--dump-callgraph` and `-v`.

use super::info::KernelProps;
use super::{Diagnostic, Finalize, LinkSetup, LinkState, SymIdx};
use super::{graph, info, tables};

impl Finalize {
    /// The lines nvlink prints at the end of a link: the stack warnings,
    /// then with `--dump-callgraph` the graph, with `-v` the properties.
    pub(super) fn report(&self, st: &LinkState, setup: &LinkSetup) -> Vec<Diagnostic> {
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
        // A kernel whose static shared memory (its own and what its callees
        // bring, without the reserved part) is over 48 KB fails the link,
        // each such kernel in the stack warnings' order; the stack warnings
        // are then not printed (README observation 207:
        // err_shared_overflow_sm90: 40000 and 16000 bytes, 0xdac0; 0xc000
        // links; sm_75 and sm_120 alike).
        let over = shared_overflows(st, &self.props);
        let stack_warnings = over.is_empty();
        out.extend(over);
        // The warnings come in the reverse of the `-v` order: kernels as the
        // call graph numbers them, not output symbol order (stack_warning_order_sm90:
        // a local kernel between the global ones). A kernel's comes once per
        // call-graph edge of it (direct callees, then each possible target
        // of its indirect calls) into a recursive call tree
        // (stack_warning_count_sm86, observation 120).
        for p in self.props.iter() {
            if p.stack.is_none() && !setup.suppress_stack_size_warning && stack_warnings {
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
    pub(super) fn callgraph_dump(&self, st: &LinkState, setup: &LinkSetup) -> Vec<String> {
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
    use crate::link::state::SectionClass;
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

/// The most static shared memory a kernel may have.
const SHARED_MAX: u64 = 0xc000;

/// "Entry function 'k' uses too much shared data (0xdac0 bytes, 0xc000
/// max)" for each kernel (in `props` order) whose `.nv.shared.<k>`, less
/// the reserved part, is over [`SHARED_MAX`].
fn shared_overflows(st: &LinkState, props: &[KernelProps]) -> Vec<Diagnostic> {
    let reserved = st
        .lookup(".nv.reservedSmem.cap")
        .and_then(|i| st.symbol(i))
        .map_or(0, |s| s.value);
    props
        .iter()
        .filter_map(|p| {
            let name = st.symbol_name(p.kernel);
            let k = st.section_named(&format!(".nv.shared.{name}"))?;
            let size = st.sections.get(k).filter(|x| !x.removed)?.size.saturating_sub(reserved);
            (size > SHARED_MAX).then(|| {
                Diagnostic::error(format!(
                    "Entry function '{name}' uses too much shared data ({size:#x} bytes, {SHARED_MAX:#x} max)"
                ))
            })
        })
        .collect()
}
