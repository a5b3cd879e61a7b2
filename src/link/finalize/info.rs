//! The output's `.nv.info` records, rewritten as nvlink writes them.
//!
//! nvlink keeps each table's records in reverse order of reading (every
//! input's records, inputs in order, then the whole list reversed), and for
//! an executable:
//! - drops the module-level EIATTR_MAX_STACK_SIZE records;
//! - sets a kernel's EIATTR_REGCOUNT to the largest count among the
//!   functions it may call (indirect calls included);
//! - appends one EIATTR_MIN_STACK_SIZE per kernel (output symbol order):
//!   the deepest frame-size sum of its call chains, 0xffffffff when one is
//!   recursive (the kernel then also gets EIATTR_CRS_STACK_SIZE 0xffffffff);
//! - keeps in EIATTR_EXTERNS only the functions still undefined (and
//!   kernels), drops a function's record when none is left, and gives a
//!   kernel the names the functions its calls may reach list, in reading
//!   order (virtual_funcs_sm90: `free` through a virtual destructor); a
//!   kernel's own record that lost names is rewritten whole in that order
//!   (corpus externs_order_sm90, README observation 74); a callee's record
//!   naming a kernel that was read before the kernel's own comes after it
//!   (externs_kernel_record_sm75, observation 88).
//!
//! A relocatable link (`-r`) only reverses the lists and filters EXTERNS.

use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;

use crate::cubin::nvinfo::{Block, Entry, Value, code};

use super::graph::{self, Graph};
use crate::link::state::{LinkState, OutNvInfo, SymIdx};

/// EIATTR_NUM_MBARRIERS of a function whose count is unknown (NVSHMEM's
/// reductions).
const UNKNOWN_MBARRIERS: u32 = 0xffff;

/// Stack size nvlink writes when recursion makes it unknown.
pub const UNKNOWN_STACK: u32 = 0xffff_ffff;

/// What finalize decided for one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelProps {
    pub kernel: SymIdx,
    /// Register count before and after propagation.
    pub own_regs: u32,
    pub regs: u32,
    /// The callee whose count was taken, when it raised the kernel's.
    pub regs_from: Option<SymIdx>,
    /// None: a call chain is recursive.
    pub stack: Option<u64>,
    pub frame: u64,
}

/// Per-function values from the module-level table.
pub fn module_value(st: &LinkState, attr: u8) -> HashMap<SymIdx, u32> {
    let mut out = HashMap::default();
    for n in st
        .nvinfo
        .iter()
        .filter(|n| n.live && n.function.is_none() && n.entry.attr == attr)
    {
        if let Some(Block::SymValue { sym, value }) = n.entry.block() {
            out.insert(SymIdx(*sym as i32), *value);
        }
    }
    out
}

/// The module-level register counts and frame sizes, read once for all
/// kernels (they do not change while finalize computes kernel properties).
#[derive(Debug, Clone, Default)]
pub struct ModuleValues {
    regs: HashMap<SymIdx, u32>,
    frames: HashMap<SymIdx, u32>,
}

impl ModuleValues {
    pub fn read(st: &LinkState) -> ModuleValues {
        ModuleValues {
            regs: module_value(st, code::REGCOUNT),
            frames: module_value(st, code::FRAME_SIZE),
        }
    }

    /// Function `f`'s own register count.
    pub fn regs_of(&self, st: &LinkState, f: SymIdx) -> Option<u32> {
        self.regs
            .get(&f)
            .copied()
            .or_else(|| st.symbol(f).and_then(|s| s.regcount))
    }
}

/// The properties of kernel `k`.
pub fn kernel_props(st: &LinkState, g: &Graph, values: &ModuleValues, k: SymIdx) -> KernelProps {
    let count = |f: SymIdx| values.regs_of(st, f);
    let own = count(k).unwrap_or(0);
    let (mut best, mut from) = (own, None);
    for f in g.reachable(k) {
        if let Some(c) = count(f)
            && c > best
        {
            best = c;
            from = Some(f);
        }
    }
    let frame = |f: SymIdx| values.frames.get(&f).copied().unwrap_or(0) as u64;
    KernelProps {
        kernel: k,
        own_regs: own,
        regs: best,
        regs_from: from,
        stack: g.stack(k, &frame),
        frame: frame(k),
    }
}

/// Where the output's `.nv.merc.nv.info` differs from `.nv.info`
/// (`MercState::table_values`): the Mercury frame sizes and register
/// counts the inputs give, and each kernel's register count and minimum
/// stack size counted with them (sm107_texture_syscall: stack 0, classic
/// 0x58); a relocatable link, the inputs' values only.
pub fn mercury_values(
    st: &LinkState,
    g: &Graph,
    values: &ModuleValues,
    kernels: &[KernelProps],
    relocatable: bool,
) -> BTreeMap<(u8, SymIdx), u32> {
    let input = &st.mercury.input_values;
    let classic = |attr: u8, f: &SymIdx| match attr {
        code::FRAME_SIZE => values.frames.get(f),
        _ => values.regs.get(f),
    };
    let mut out: BTreeMap<(u8, SymIdx), u32> = input
        .iter()
        .filter(|((attr, f), v)| classic(*attr, f) != Some(*v))
        .map(|(&k, &v)| (k, v))
        .collect();
    if out.is_empty() || relocatable {
        return out;
    }
    let value = |attr: u8, f: SymIdx| input.get(&(attr, f)).or_else(|| classic(attr, &f)).copied();
    let frame = |f: SymIdx| value(code::FRAME_SIZE, f).unwrap_or(0) as u64;
    for k in kernels {
        let regs = std::iter::once(k.kernel)
            .chain(g.reachable(k.kernel))
            .filter_map(|f| value(code::REGCOUNT, f))
            .max()
            .unwrap_or(0);
        out.remove(&(code::REGCOUNT, k.kernel));
        if regs != k.regs {
            out.insert((code::REGCOUNT, k.kernel), regs);
        }
        if let (Some(classic), Some(merc)) = (k.stack, g.stack(k.kernel, &frame))
            && merc != classic
        {
            out.insert((code::MIN_STACK_SIZE, k.kernel), merc.min(UNKNOWN_STACK as u64) as u32);
        }
    }
    out
}

/// On sm_107, when the Mercury call graph has calls, a kernel that calls
/// nothing but symbols only the classic side has (texture syscalls) keeps
/// the Mercury frame size as its classic minimum stack size too; a kernel
/// with other callees sums the classic frames, and so does every kernel
/// when the Mercury graph has no call (sm107_texture_syscall, and the
/// real-world samples: dct8x8's texture kernels 0 where their classic frame
/// is 0x58, convolutionTexture's 0x58).
pub fn classic_leaf_stacks(st: &LinkState, g: &Graph, kernels: &mut [KernelProps]) {
    if st.mercury.classic_only.is_empty() {
        return;
    }
    let merc_callees = |f: SymIdx| {
        g.successors(f)
            .into_iter()
            .filter(|&c| !crate::link::state::mercury::classic_only(st, c))
            .count()
    };
    if g.funcs.iter().all(|&f| merc_callees(f) == 0) {
        return;
    }
    for k in kernels.iter_mut().filter(|k| k.stack.is_some()) {
        if merc_callees(k.kernel) == 0
            && let Some(&v) = st.mercury.input_values.get(&(code::FRAME_SIZE, k.kernel))
        {
            k.stack = Some(v as u64);
        }
    }
}

fn sym_value(attr: u8, sym: SymIdx, value: u32) -> Entry {
    Entry {
        attr,
        value: Value::Block(Block::SymValue {
            sym: sym.0 as u32,
            value,
        }),
    }
}

/// Rewrites `st.nvinfo` for the output; `kernels` in output symbol order.
pub fn rewrite(st: &mut LinkState, g: &Graph, kernels: &[KernelProps], relocatable: bool) {
    let refs_present = |st: &LinkState, e: &Entry| {
        e.attr == code::EXTERNS
            || e.symbol_refs()
                .iter()
                .all(|&r| r == 0 || graph::present(st, SymIdx(r as i32)))
    };
    let old: Vec<OutNvInfo> = std::mem::take(&mut st.nvinfo);
    // Every function's EXTERNS in reading order (inputs in order, each
    // input's `.nv.info.<f>` sections in order), kept names only.
    let records: Vec<ExternsRecord> = old
        .iter()
        .filter(|n| n.live && n.entry.attr == code::EXTERNS)
        .filter_map(|n| match (n.function, n.entry.block()) {
            (Some(function), Some(Block::Symbols { syms })) => {
                let names: Vec<u32> = syms
                    .iter()
                    .copied()
                    .filter(|&s| stays_extern(st, SymIdx(s as i32)))
                    .collect();
                let names_kernel = names
                    .iter()
                    .any(|&s| crate::link::state::query::is_kernel(st, SymIdx(s as i32)));
                Some(ExternsRecord {
                    function,
                    names,
                    names_kernel,
                })
            }
            _ => None,
        })
        .collect();
    let mut of: HashMap<SymIdx, Vec<usize>> = HashMap::default();
    for (n, r) in records.iter().enumerate() {
        of.entry(r.function).or_default().push(n);
    }
    let externs = Externs { records, of };
    // Which functions had which of the records a kernel can inherit, in
    // reading order (the order the kernel gets them in, below).
    let inherited = [
        code::NUM_BARRIERS,
        code::NUM_MBARRIERS,
        code::EXTERNS,
        code::CTAIDZ_USED,
        code::RESERVED_SMEM_USED,
        code::TCGEN05_1CTA_USED,
        code::TCGEN05_2CTA_USED,
        code::CLUSTER_LAUNCH_CONTROL_USED,
        code::AT_ENTRY_FRAGMENTS,
        code::GRID_ATTRIBUTES,
    ];
    let fragments: Vec<(SymIdx, Entry)> = old
        .iter()
        .filter(|n| n.live && n.entry.attr == code::AT_ENTRY_FRAGMENTS)
        .filter_map(|n| Some((n.function?, n.entry.clone())))
        .collect();
    let vrc: Vec<(SymIdx, u8, u32)> = old
        .iter()
        .filter(|n| n.live && n.entry.attr == code::VRC_CTA_INIT_COUNT)
        .filter_map(|n| Some((n.function?, n.entry.attr, n.entry.scalar()?)))
        .collect();
    let givers: Vec<(SymIdx, u8)> = old
        .iter()
        .filter(|n| n.live && inherited.contains(&n.entry.attr))
        .filter_map(|n| Some((n.function?, n.entry.attr)))
        .collect();
    let barriers: Vec<(SymIdx, u8, u32)> = old
        .iter()
        .filter(|n| {
            n.live
                && matches!(
                    n.entry.attr,
                    code::NUM_BARRIERS | code::NUM_MBARRIERS | code::GRID_ATTRIBUTES | code::PREEXIT_USED
                )
        })
        .filter_map(|n| Some((n.function?, n.entry.attr, n.entry.scalar()?)))
        .chain(
            old.iter()
                .filter(|n| n.live && FLAGS.contains(&n.entry.attr))
                .filter_map(|n| Some((n.function?, n.entry.attr, 0))),
        )
        .collect();
    let by_kernel: HashMap<SymIdx, &KernelProps> = kernels.iter().map(|k| (k.kernel, k)).collect();
    let is_kernel = |f: Option<SymIdx>| f.is_some_and(|f| by_kernel.contains_key(&f));
    // Kernels whose own EXTERNS lost a name that is now defined.
    let mut resolved: HashSet<SymIdx> = HashSet::default();
    let mut out = Records::default();
    for n in old.into_iter().rev() {
        if !n.live || n.function.is_some_and(|f| !graph::present(st, f)) || !refs_present(st, &n.entry) {
            continue;
        }
        let mut n = n;
        match n.entry.attr {
            code::MAX_STACK_SIZE if n.function.is_none() && !relocatable => continue,
            code::REGCOUNT if n.function.is_none() && !relocatable => {
                if let Some(Block::SymValue { sym, value }) = n.entry.block().cloned()
                    && let Some(k) = by_kernel.get(&SymIdx(sym as i32))
                    && k.regs != value
                {
                    n.entry = sym_value(code::REGCOUNT, k.kernel, k.regs);
                }
            }
            code::EXTERNS => {
                let kernel = !relocatable && is_kernel(n.function);
                if let Value::Block(Block::Symbols { syms }) = &mut n.entry.value {
                    let before = syms.len();
                    syms.retain(|&s| stays_extern(st, SymIdx(s as i32)));
                    if kernel && syms.len() < before {
                        resolved.extend(n.function);
                    } else if syms.is_empty() {
                        continue;
                    }
                }
            }
            _ => {}
        }
        out.push(n);
    }
    if !relocatable {
        let (grid, counts): (Vec<u8>, Vec<u8>) = KERNEL_INHERITS
            .into_iter()
            .filter(|&a| a != code::AT_ENTRY_FRAGMENTS && a != code::VRC_CTA_INIT_COUNT)
            .partition(|&a| a == code::GRID_ATTRIBUTES);
        propagate_barriers(st, g, kernels, &barriers, &counts, &mut out);
        move_entry_fragments(st, g, kernels, &fragments, &mut out);
        if kernels.len() > 1 {
            propagate_barriers(st, g, kernels, &vrc, &[code::VRC_CTA_INIT_COUNT], &mut out);
        }
        // The one entry point of an output whose other kernels are kept as
        // functions (observation 201) takes their names too, and those of
        // what they call (kernels_used_nested_externs_sm90).
        let also: Vec<SymIdx> = if kernels.len() == 1 {
            st.demoted_kernels.iter().copied().collect()
        } else {
            Vec::new()
        };
        for k in kernels {
            let input = st.symbol(k.kernel).map(|s| s.input).unwrap_or(0);
            let own = out.find(Some(k.kernel), code::EXTERNS);
            let record = |syms: Vec<u32>| OutNvInfo {
                function: Some(k.kernel),
                entry: Entry {
                    attr: code::EXTERNS,
                    value: Value::Block(Block::Symbols { syms }),
                },
                input,
                live: true,
            };
            match own {
                // When the callees bring names the record does not hold
                // while the output has no other kernel, the record goes and
                // the whole list comes in a new record at the end, in
                // reading order (virtual_funcs_sm90: all names lost;
                // externs_order_single_kernel_sm90: `malloc` kept, `vprintf`
                // brought; externs_brought_intact_sm90: the record intact,
                // `free` brought). A record that lost names is rewritten
                // whole too (cdpSimpleQuicksort), and goes when nothing is
                // left. Otherwise the record keeps its place and gets the
                // callees' names after its own (syscalls_printf_malloc_sm90:
                // nothing brought; externs_kept_first_sm90 and
                // externs_order_sm90: a second kernel anywhere in the
                // output, not one -kernels-used drops).
                Some(i) => {
                    let kept = match out.list[i].entry.block() {
                        Some(Block::Symbols { syms }) => syms.clone(),
                        _ => Vec::new(),
                    };
                    let all = reached_externs(g, k.kernel, &externs, true, &also);
                    let brought = all.iter().any(|s| !kept.contains(s));
                    let lost = resolved.contains(&k.kernel);
                    if (lost && all.is_empty()) || (brought && kernels.len() < 2) {
                        out.drop_at(i);
                        if !all.is_empty() {
                            out.push(record(all));
                        }
                    } else {
                        let mut syms = kept;
                        for r in reached_externs(g, k.kernel, &externs, false, &also) {
                            if !syms.contains(&r) {
                                syms.push(r);
                            }
                        }
                        out.list[i].entry.value = Value::Block(Block::Symbols { syms });
                    }
                }
                None => {
                    let reach = reached_externs(g, k.kernel, &externs, false, &also);
                    if !reach.is_empty() {
                        out.push(record(reach));
                    }
                }
            }
            if k.stack.is_none() {
                let crs = out.find(Some(k.kernel), code::CRS_STACK_SIZE);
                let e = Entry::sval_words(code::CRS_STACK_SIZE, &[UNKNOWN_STACK]);
                match crs {
                    Some(i) => out.list[i].entry = e,
                    None => out.push(OutNvInfo {
                        function: Some(k.kernel),
                        entry: e,
                        input,
                        live: true,
                    }),
                }
            }
        }
        // A kernel's new EIATTR_GRID_ATTRIBUTES comes after its EXTERNS and
        // CRS_STACK_SIZE (grid_attributes_sm90 `kS`; with one kernel reaching
        // a recursion, CRS_STACK_SIZE then GRID_ATTRIBUTES).
        propagate_barriers(st, g, kernels, &barriers, &grid, &mut out);
        // sm_100+ only: an sm_90 kernel keeps its own value
        // (preexit_callee_sm90).
        if !st.mercury.is_empty() {
            propagate_barriers(st, g, kernels, &barriers, &[code::PREEXIT_USED], &mut out);
        }
        // In output symbol order (dynpar_cudadevrt_sm90: libcudadevrt's
        // local kernels before the program's global ones).
        let order = crate::link::out::symbol_order(st);
        let mut kernels: Vec<&KernelProps> = kernels.iter().collect();
        kernels.sort_by_key(|k| order.index.get(&k.kernel).copied().unwrap_or(u32::MAX));
        for k in kernels {
            let input = st.symbol(k.kernel).map(|s| s.input).unwrap_or(0);
            let v = k
                .stack
                .map(|s| s.min(UNKNOWN_STACK as u64) as u32)
                .unwrap_or(UNKNOWN_STACK);
            out.push(OutNvInfo {
                function: None,
                entry: sym_value(code::MIN_STACK_SIZE, k.kernel, v),
                input,
                live: true,
            });
        }
    }
    let mut out = out.finish();
    if !relocatable && kernels.len() > 1 {
        order_inherited(g, kernels, &givers, &inherited, &mut out);
    }
    st.nvinfo = out;
}

/// The records a kernel takes from the functions it may call, by value
/// (`propagate_barriers`), in the order a kernel that had none of them gets
/// them when the output has one kernel: the flags, then the counts, whatever
/// the reading order of their givers or the depth of the calls
/// (inherited_order_single_sm75; the real-world samples
/// simpleCooperativeGroups and matrixMul_nvrtc with -G; experiments on
/// sm_80 with all four). With several kernels `order_inherited` puts them
/// in their givers' reading order instead.
pub const KERNEL_INHERITS: [u8; 10] = [
    code::CTAIDZ_USED,
    code::RESERVED_SMEM_USED,
    code::TCGEN05_1CTA_USED,
    code::TCGEN05_2CTA_USED,
    code::CLUSTER_LAUNCH_CONTROL_USED,
    code::AT_ENTRY_FRAGMENTS,
    code::VRC_CTA_INIT_COUNT,
    code::NUM_BARRIERS,
    code::NUM_MBARRIERS,
    code::GRID_ATTRIBUTES,
];

/// Valueless attributes a kernel inherits from the functions it may call:
/// EIATTR_CTAIDZ_USED (ctaidz_callee_sm80), EIATTR_RESERVED_SMEM_USED
/// (the real-world sample matrixMul_nvrtc with -G), and on sm_100+
/// EIATTR_TCGEN05_1CTA_USED, _2CTA_USED and CLUSTER_LAUNCH_CONTROL_USED
/// (tcgen05_callee_sm100a, clc_callee_sm100).
const FLAGS: [u8; 5] = [
    code::CTAIDZ_USED,
    code::RESERVED_SMEM_USED,
    code::TCGEN05_1CTA_USED,
    code::TCGEN05_2CTA_USED,
    code::CLUSTER_LAUNCH_CONTROL_USED,
];

/// EIATTR_NUM_BARRIERS (the largest) and EIATTR_NUM_MBARRIERS (the sum, each
/// function once, 0xffff when one of them has 0xffff) over a kernel and the
/// functions it may call, indirect calls included; when the output has one kernel, over every function in
/// it. EIATTR_CTAIDZ_USED likewise when any of them has it (NVSHMEM's
/// device library on sm_80; ctaidz_callee_sm80); EIATTR_GRID_ATTRIBUTES
/// the bitwise OR (grid_attributes_sm90: a multimem callee's 0x4; with
/// values patched in the inputs, 0x2 own and 0x8 called give 0xa);
/// EIATTR_PREEXIT_USED 1 when any of them has 1 (left alone otherwise;
/// sm_100+). A
/// kernel's own record is updated in place, a missing one appended;
/// other functions keep theirs (corpus barriers_*_sm90, mbarriers_sum_sm90;
/// the real-world -G samples).
fn propagate_barriers(
    st: &LinkState,
    g: &Graph,
    kernels: &[KernelProps],
    barriers: &[(SymIdx, u8, u32)],
    attrs: &[u8],
    out: &mut Records,
) {
    let everything: Vec<SymIdx> = g.funcs.iter().copied().filter(|&f| graph::present(st, f)).collect();
    // Each function's values of the attributes asked for, read once (every
    // result below is a count, maximum, sum or OR: order does not matter).
    let mut of: HashMap<(SymIdx, u8), Vec<u32>> = HashMap::default();
    for &(f, a, v) in barriers.iter().filter(|(_, a, _)| attrs.contains(a)) {
        of.entry((f, a)).or_default().push(v);
    }
    if of.is_empty() {
        return;
    }
    for k in kernels {
        let input = st.symbol(k.kernel).map(|s| s.input).unwrap_or(0);
        let counted: HashSet<SymIdx> = if kernels.len() == 1 {
            everything.iter().copied().collect()
        } else {
            std::iter::once(k.kernel).chain(g.reachable(k.kernel)).collect()
        };
        for &attr in attrs {
            let values = counted.iter().filter_map(|&f| of.get(&(f, attr))).flatten().copied();
            let entry = if FLAGS.contains(&attr) {
                if values.count() == 0 {
                    continue;
                }
                Entry {
                    attr,
                    value: Value::None { pad: 0 },
                }
            } else if attr == code::GRID_ATTRIBUTES {
                match values.reduce(|a, b| a | b) {
                    Some(v) => Entry::hval(attr, v as u16),
                    None => continue,
                }
            } else if attr == code::PREEXIT_USED {
                // sm_100+: a kernel that may call a function using PREEXIT
                // (`cudaTriggerProgrammaticLaunchCompletion()` not inlined)
                // is marked 1; other functions keep their own value
                // (preexit_callee_sm100; the real-world sample
                // radixSortThrust with -G: CUB's init kernels).
                if !values.into_iter().any(|v| v != 0) {
                    continue;
                }
                Entry::bval(attr, 1)
            } else if attr == code::VRC_CTA_INIT_COUNT {
                // The largest, in the kernel's own record (tcgen05_callee_sm100a:
                // 0x80 from a `tcgen05` callee, with two kernels in the output).
                match (values.max(), out.find(Some(k.kernel), attr)) {
                    (Some(v), Some(_)) => Entry::bval(attr, v as u8),
                    _ => continue,
                }
            } else if attr == code::NUM_BARRIERS {
                match values.max() {
                    Some(v) => Entry::bval(attr, v as u8),
                    None => continue,
                }
            } else {
                let v: Vec<u32> = values.collect();
                if v.is_empty() {
                    continue;
                }
                // When the output has one kernel, callees that use none (a
                // function waiting on a barrier passed in: NUM_MBARRIERS 0)
                // give it no record if it has none; beside a second kernel
                // it gets 0 (mbarriers_zero_callee_sm90; measured with a
                // second kernel in either object).
                if kernels.len() == 1 && v.iter().all(|&x| x == 0) && out.find(Some(k.kernel), attr).is_none() {
                    continue;
                }
                // 0xffff is an unknown count and stays; other sums wrap at
                // 16 bits (mbarriers_unknown_sm90; inputs patched to 0x8001
                // and 0x8002 give 0x3, 0xfffe and 0x2 give 0).
                let sum = if v.contains(&UNKNOWN_MBARRIERS) {
                    UNKNOWN_MBARRIERS
                } else {
                    v.iter().fold(0u32, |a, &b| a.wrapping_add(b))
                };
                Entry::hval(attr, sum as u16)
            };
            match out.find(Some(k.kernel), attr) {
                Some(i) => out.list[i].entry = entry,
                None => out.push(OutNvInfo {
                    function: Some(k.kernel),
                    entry,
                    input,
                    live: true,
                }),
            }
        }
    }
}

/// EIATTR_AT_ENTRY_FRAGMENTS (sm_100+: the code `tcgen05.alloc` needs run
/// at kernel entry) moves to the kernels: each kernel gets the fragments of
/// the functions it may call (every function when the output has one
/// kernel), and other functions lose theirs (tcgen05_callee_sm100a).
fn move_entry_fragments(
    st: &LinkState,
    g: &Graph,
    kernels: &[KernelProps],
    fragments: &[(SymIdx, Entry)],
    out: &mut Records,
) {
    if fragments.is_empty() {
        return;
    }
    for k in kernels {
        let counted: HashSet<SymIdx> = if kernels.len() == 1 {
            g.funcs.iter().copied().filter(|&f| graph::present(st, f)).collect()
        } else {
            std::iter::once(k.kernel).chain(g.reachable(k.kernel)).collect()
        };
        let mut words: Vec<u32> = Vec::new();
        for (_, e) in fragments.iter().filter(|(f, _)| counted.contains(f)) {
            if let Value::Block(Block::Words { words: w }) = &e.value {
                for &x in w {
                    if !words.contains(&x) {
                        words.push(x);
                    }
                }
            }
        }
        if words.is_empty() {
            continue;
        }
        let entry = Entry::sval_words(code::AT_ENTRY_FRAGMENTS, &words);
        match out.find(Some(k.kernel), code::AT_ENTRY_FRAGMENTS) {
            Some(i) => out.list[i].entry = entry,
            None => out.push(OutNvInfo {
                function: Some(k.kernel),
                entry,
                input: st.symbol(k.kernel).map(|s| s.input).unwrap_or(0),
                live: true,
            }),
        }
    }
    let is_kernel: HashSet<SymIdx> = kernels.iter().map(|k| k.kernel).collect();
    for i in 0..out.list.len() {
        let n = &out.list[i];
        if n.entry.attr == code::AT_ENTRY_FRAGMENTS && n.function.is_some_and(|f| !is_kernel.contains(&f)) {
            out.drop_at(i);
        }
    }
}

/// With several kernels, the records a kernel inherits (barrier counts,
/// EXTERNS, the CTAIDZ_USED and RESERVED_SMEM_USED flags) that it did not
/// have come in the reading order of the first function it reaches that had
/// each (multi_kernel_order_sm90; the real-world samples dmmaTensorCoreGemm
/// and matrixMul_nvrtc with -G).
fn order_inherited(
    g: &Graph,
    kernels: &[KernelProps],
    givers: &[(SymIdx, u8)],
    inherited: &[u8],
    out: &mut [OutNvInfo],
) {
    let gave: HashSet<(SymIdx, u8)> = givers.iter().copied().collect();
    // Each kernel's inherited records, in output order.
    let mut slots_of: HashMap<SymIdx, Vec<usize>> = HashMap::default();
    for (n, r) in out.iter().enumerate() {
        if let Some(f) = r.function
            && inherited.contains(&r.entry.attr)
            && !gave.contains(&(f, r.entry.attr))
        {
            slots_of.entry(f).or_default().push(n);
        }
    }
    for k in kernels {
        let Some(slots) = slots_of.remove(&k.kernel) else {
            continue;
        };
        let reach: HashSet<SymIdx> = g.reachable(k.kernel).into_iter().collect();
        let key = |attr: u8| {
            givers
                .iter()
                .position(|(f, a)| *a == attr && reach.contains(f))
                .unwrap_or(usize::MAX)
        };
        let mut records: Vec<OutNvInfo> = slots.iter().map(|&n| out[n].clone()).collect();
        records.sort_by_key(|r| key(r.entry.attr));
        for (n, r) in slots.into_iter().zip(records) {
            out[n] = r;
        }
    }
}

/// An EXTERNS symbol nvlink keeps in an executable: one still undefined, or
/// a kernel (launched through dynamic parallelism: dynpar_cudadevrt_sm90
/// keeps `_Z5childPii`).
fn stays_extern(st: &LinkState, i: SymIdx) -> bool {
    st.symbol(i)
        .is_some_and(|y| !y.removed && (!y.is_defined() || crate::link::state::query::is_kernel(st, i)))
}

/// The functions' EXTERNS records in reading order, and where each
/// function's are.
struct Externs {
    records: Vec<ExternsRecord>,
    of: HashMap<SymIdx, Vec<usize>>,
}

/// One function's EXTERNS record, as read: its kept names, and whether one
/// of them is a kernel.
struct ExternsRecord {
    function: SymIdx,
    names: Vec<u32>,
    names_kernel: bool,
}

/// The externs kernel `k` lists: the kept EXTERNS of every function its calls
/// may reach (and its own when `with_own`), records in reading order, each
/// name once (helper experiments: linking the same objects in another order
/// reorders the list; cdpSimpleQuicksort, cdpAdvancedQuicksort). A record
/// naming a kernel that was read before the kernel's own comes right after
/// the own one (externs_kernel_record_sm75: a callee taking a kernel's
/// address, in the same input or an earlier one, while a callee's record of
/// driver names alone keeps its place; on sm_75-sm_89 ptxas puts the
/// addresses a kernel takes into the table of the first function, like
/// `__cuda_sm70_shflsync_idx_p` in the real-world cdpAdvancedQuicksort).
fn reached_externs(g: &Graph, k: SymIdx, externs: &Externs, with_own: bool, also: &[SymIdx]) -> Vec<u32> {
    let of = |f: SymIdx| externs.of.get(&f).map(Vec::as_slice).unwrap_or(&[]);
    let own_at = of(k).first().copied().unwrap_or(0);
    let mut at: Vec<usize> = g
        .reachable(k)
        .into_iter()
        .chain(also.iter().flat_map(|&d| std::iter::once(d).chain(g.reachable(d))))
        .filter(|&f| f != k)
        .flat_map(of)
        .copied()
        .collect();
    if with_own {
        at.extend(of(k));
    }
    at.sort_unstable();
    at.dedup();
    let mut order: Vec<(usize, &ExternsRecord)> = at
        .into_iter()
        .map(|n| (n, &externs.records[n]))
        .map(|(n, r)| {
            let deferred = with_own && n < own_at && r.names_kernel;
            (if deferred { own_at } else { n }, r)
        })
        .collect();
    // Stable: the own record stays before the ones deferred to its place.
    order.sort_by_key(|&(at, r)| (at, r.function != k));
    let mut out: Vec<u32> = Vec::new();
    for (_, r) in order {
        for &s in &r.names {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// The output's records while `rewrite` edits them, found by function and
/// attribute without a scan (links of thousands of kernels).
#[derive(Default)]
struct Records {
    list: Vec<OutNvInfo>,
    at: HashMap<(Option<SymIdx>, u8), Vec<usize>>,
}

impl Records {
    fn push(&mut self, n: OutNvInfo) {
        self.at
            .entry((n.function, n.entry.attr))
            .or_default()
            .push(self.list.len());
        self.list.push(n);
    }

    /// The first record of `function` with `attr` still in the list.
    fn find(&self, function: Option<SymIdx>, attr: u8) -> Option<usize> {
        self.at
            .get(&(function, attr))?
            .iter()
            .copied()
            .find(|&i| self.list[i].live)
    }

    /// Takes record `i` out (it goes when the list is finished).
    fn drop_at(&mut self, i: usize) {
        self.list[i].live = false;
    }

    fn finish(self) -> Vec<OutNvInfo> {
        self.list.into_iter().filter(|n| n.live).collect()
    }
}
