//! Dead-code elimination as nvlink does it: which functions and variables
//! the output keeps (`--kernels-used`, `--variables-used`,
//! `-ignore-host-info`), one event per removal saying why.
//!
//! What nvlink 13.5 does (corpus):
//!
//! * A final link keeps the kernels and every function they reach through
//!   calls or address references (relocations in their code), and the
//!   functions whose address data holds (initializers, constant banks). A
//!   function nothing live reaches goes, with its code, its per-function
//!   sections (`.nv.constant0.<fn>`, `.nv.shared.<fn>`, …), their symbols,
//!   relocations, .nv.info records and call-graph records
//!   (`archive_hostobj_*`: `m4_func`; `dynpar_cudadevrt_sm90`: the unused
//!   libcudadevrt wrappers). Variables nothing refers to stay (`m4_data`).
//!   An address-taken function (the call graph's `-2` list) that only a
//!   reference keeps is followed no further unless a followed function
//!   makes an indirect call of its prototype (`reach::kept_functions`;
//!   dce_address_taken_callee_sm90).
//! * `-kernels-used=a,b` keeps only the kernels named (README obs. 22),
//!   whatever the host lists say; `-variables-used` alone keeps no kernel
//!   (kernels_used_host_lists_sm90).
//! * When every input comes from a host object that has a `.nvHRKE` list,
//!   no host object without relocatable device code was read (obs. 70),
//!   and the `.nvHRKE`/`.nvHRKI` lists name something, the kernels they do
//!   not name go (obs. 33), unless `-ignore-host-info`.
//! * A relocatable link (`-r`) removes nothing, and neither does `-g`
//!   (debug_no_dce_sm90: not even what `-kernels-used` leaves out) nor
//!   `-preserve-relocs` (preserve_relocs_dce_sm90: uncalled functions, and
//!   kernels that `-kernels-used` or the host lists leave out, stay; on
//!   every architecture).

use foldhash::HashMap;
use std::collections::BTreeSet;

use crate::cubin::callgraph::Record;
use crate::cubin::consts::*;
use crate::cubin::nvinfo::{Block, Value, code};

use super::event::Event;
pub use super::event::dce::DceEvent;
use super::setup::LinkSetup;
use super::state::query::STO_ENTRY;
use super::state::{LinkState, Place, SectionClass, SymIdx};

/// The phase's cursor: the functions to remove, decided when the phase is
/// made (before the undefined-reference check, which needs them), then one
/// removal per step.
#[derive(Debug, Clone, Default)]
pub struct Dce {
    planned: bool,
    /// What the plan removes (`plan`); nothing for `-r` and `-g`.
    plan: Vec<(SymIdx, String)>,
    /// Kernels the plan keeps as functions, not entry points
    /// (`LinkState::demoted_kernels`).
    demoted: BTreeSet<SymIdx>,
    dead: Vec<(SymIdx, String)>,
    next: usize,
    /// Undefined names some relocation referred to before the removals.
    referenced: BTreeSet<SymIdx>,
    /// Built with the plan: what each removal touches, so that a removal
    /// costs what it removes, not the size of the link.
    index: RemovalIndex,
    orphans_done: bool,
    done: bool,
}

/// Where a removed function's pieces are in the link state. Removals only
/// mark things removed or dead, so the index built once stays right.
#[derive(Debug, Clone, Default)]
struct RemovalIndex {
    /// Per-function sections (`.nv.constant0.<fn>`, …) by the function's
    /// code section name suffix.
    per_function: HashMap<String, Vec<usize>>,
    symbols_in: HashMap<usize, Vec<SymIdx>>,
    relocs_in: HashMap<usize, Vec<usize>>,
    relocs_against: HashMap<SymIdx, Vec<usize>>,
    nvinfo_of: HashMap<SymIdx, Vec<usize>>,
    callgraph_of: HashMap<SymIdx, Vec<usize>>,
    debug: BTreeSet<usize>,
}

impl RemovalIndex {
    fn new(st: &LinkState) -> RemovalIndex {
        let mut ix = RemovalIndex::default();
        // One section per name (the last), as the lookup by name gives it.
        let by_name: HashMap<&str, usize> = st
            .sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.flags & SHF_INFO_LINK != 0 && s.class != SectionClass::Text)
            .map(|(k, s)| (s.name.as_str(), k))
            .collect();
        for (name, k) in by_name {
            if let Some(f) = per_function_suffix(name) {
                ix.per_function.entry(f.to_string()).or_default().push(k);
            }
        }
        for (i, s) in st.all_symbols() {
            if let Place::Section(k) = s.place {
                ix.symbols_in.entry(k).or_default().push(i);
            }
        }
        for (n, r) in st.relocs.iter().enumerate() {
            ix.relocs_in.entry(r.section).or_default().push(n);
            ix.relocs_against.entry(r.sym).or_default().push(n);
        }
        for (n, info) in st.nvinfo.iter().enumerate() {
            let mut of: BTreeSet<SymIdx> = info.entry.symbol_refs().iter().map(|&x| SymIdx(x as i32)).collect();
            of.extend(info.function);
            for i in of {
                ix.nvinfo_of.entry(i).or_default().push(n);
            }
        }
        for (n, e) in st.callgraph.iter().enumerate() {
            let of: BTreeSet<SymIdx> = match e.record {
                Record::Call { caller, callee } => [caller, callee].into_iter().map(|x| SymIdx(x as i32)).collect(),
                mut rec => rec.symbol_refs_mut().iter().map(|x| SymIdx(**x as i32)).collect(),
            };
            for i in of {
                ix.callgraph_of.entry(i).or_default().push(n);
            }
        }
        ix.debug = st
            .sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.class == SectionClass::Debug)
            .map(|(k, _)| k)
            .collect();
        ix
    }
}

/// The function a per-function section belongs to, by its name:
/// `.nv.shared.<fn>`, `.nv.local.<fn>`, `.nv.constantN.<fn>`.
fn per_function_suffix(name: &str) -> Option<&str> {
    if let Some(f) = name
        .strip_prefix(".nv.shared.")
        .or_else(|| name.strip_prefix(".nv.local."))
    {
        return Some(f);
    }
    let rest = name.strip_prefix(".nv.constant")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| rest[digits..].strip_prefix('.')).flatten()
}

/// Whether `name` matches a host-object list entry: each `*` stands for any
/// run of characters. nvcc writes a static kernel as its module prefix, `*`,
/// the mangled name's tail and `*` (`__nv_static_22__5d2c3b06_4_s_cu_s_var_*2kS*`
/// for `..._s_var__Z2kSPi`), an external one as `_Z5k_sum*`; nvlink keeps
/// both (`static_kernel_host_sm90`).
pub(crate) fn host_match(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for p in middle {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

impl Dce {
    pub fn new(st: &LinkState, setup: &LinkSetup) -> Self {
        let (plan, demoted) = if setup.relocatable || setup.debug {
            Default::default()
        } else {
            plan(st, setup)
        };
        Dce {
            plan,
            demoted,
            ..Dce::default()
        }
    }

    /// The functions the phase will remove (none under `-preserve-relocs`),
    /// for the undefined-reference check that comes before it: nvlink
    /// reports an undefined function only when code it keeps calls it
    /// (host_lists_ld_r_sm90: a kernel the host lists drop calls one).
    pub fn removals(&self, setup: &LinkSetup) -> BTreeSet<SymIdx> {
        if setup.keep_dead_code {
            return BTreeSet::new();
        }
        self.plan.iter().map(|&(f, _)| f).collect()
    }

    pub fn done(&self) -> bool {
        self.done
    }

    /// One unit of work.
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        if self.done {
            return Vec::new();
        }
        if !self.planned {
            self.planned = true;
            if !setup.relocatable && !setup.debug && setup.keep_dead_code {
                // nvlink still decides which kernels are dead, and keeps them
                // (preserve_relocs_dce_sm90).
                st.dead_kernels_kept = std::mem::take(&mut self.plan)
                    .into_iter()
                    .map(|(f, _)| f)
                    .filter(|&f| st.symbol(f).is_some_and(|s| s.other & STO_ENTRY != 0))
                    .collect();
            } else if !setup.relocatable && !setup.debug {
                st.demoted_kernels = std::mem::take(&mut self.demoted);
                self.dead = std::mem::take(&mut self.plan);
                unlisted_shared_as_data(st, setup, &self.dead);
                self.referenced = undefined_referenced(st);
                if !self.dead.is_empty() {
                    self.index = RemovalIndex::new(st);
                }
            }
            if self.dead.is_empty() {
                self.done = true;
            }
            return Vec::new();
        }
        let Some((f, reason)) = self.dead.get(self.next).cloned() else {
            // Undefined names only removed code referred to go with it
            // (dynpar_cudadevrt_sm90: `malloc`, `cnp*`, `.nv.ptx.const0.size`).
            self.done = true;
            if self.orphans_done {
                return Vec::new();
            }
            self.orphans_done = true;
            super::frame_edit::drop_dead_frames(st);
            let still = undefined_referenced(st);
            let mut ev = Vec::new();
            for &i in self.referenced.difference(&still) {
                if let Some(s) = st.symbol_mut(i) {
                    s.removed = true;
                    ev.push(Event::Dce(DceEvent::Removed {
                        name: s.name.to_string(),
                        reason: "undefined name only removed code referred to".into(),
                    }));
                }
            }
            return ev;
        };
        self.next += 1;
        // Not for an LTO kernel the host lists miss: nvlink made no shared
        // section name for it (lto_device_launch_sm90).
        let input = st.symbol(f).map_or(0, |s| s.input);
        let name = format!(".nv.shared.{}", st.symbol_name(f));
        let host_unused = reason == HOST_UNUSED && !lto_unlisted(st, input, &st.symbol_name(f));
        if host_unused || st.section_named(&name).is_some() {
            // nvlink drops these kernels after it has made their shared
            // memory section: the name stays in the string tables
            // (host_obj_rdc_sm90). A -kernels-used drop keeps it only
            // for a kernel with static shared memory
            // (kernels_used_shared_sm90; none in kernels_used_sm90).
            st.dropped_section_names.push(name);
        }
        remove_function(st, f, &self.index);
        vec![Event::Dce(DceEvent::Removed {
            name: st.symbol_name(f),
            reason,
        })]
    }
}

/// A kernel `-kernels-used` leaves out that stays (launched or its address
/// taken) has its `.nv.shared.<k>` made as a data section, with the first
/// variable in it, not with the kernel's code (README observation 201:
/// kernels_used_single_root_sm90; the name tables do the same for every
/// unlisted kernel, `emit::NameIndex`).
fn unlisted_shared_as_data(st: &mut LinkState, setup: &LinkSetup, dead: &[(SymIdx, String)]) {
    if setup.kernels_used.is_empty() {
        return;
    }
    let removed: BTreeSet<SymIdx> = dead.iter().map(|&(f, _)| f).collect();
    let kept_unlisted = |st: &LinkState, f: SymIdx| {
        !removed.contains(&f)
            && super::state::query::is_kernel(st, f)
            && st.symbol(f).is_some_and(|s| !setup.kernel_used(&s.name))
    };
    for input in 0..st.maps.len() {
        let m = &st.maps[input];
        let mut changes: Vec<(usize, super::state::Created)> = Vec::new();
        for (j, &(phase, k, sub)) in m.creation.iter().enumerate() {
            if phase != 0 || sub != 3 {
                continue;
            }
            let Some(&f) = m.map_symbol_index.get(k as usize) else {
                continue;
            };
            let Some(&out) = m.map_section_index.get(j) else {
                continue;
            };
            if f == 0 || !kept_unlisted(st, SymIdx(f)) || out == 0 {
                continue;
            }
            let out = out as usize;
            let first_symbol = m.map_symbol_index.iter().position(|&o| {
                o != 0
                    && st
                        .symbol(SymIdx(o))
                        .is_some_and(|y| y.sym_type != STT_SECTION && y.place == Place::Section(out))
            });
            changes.push((j, first_symbol.map_or((2, j as u32, 0), |y| (1, y as u32, 0))));
        }
        for (j, at) in changes {
            st.maps[input].creation[j] = at;
        }
    }
}

/// Undefined symbols a live relocation refers to.
fn undefined_referenced(st: &LinkState) -> BTreeSet<SymIdx> {
    st.relocs
        .iter()
        .filter(|r| r.live)
        .map(|r| r.sym)
        .filter(|&i| st.symbol(i).is_some_and(|s| s.place == Place::Undefined && !s.removed))
        .collect()
}

/// Why a kernel no host object launches is removed.
/// A kernel of the LTO cubin that the host objects' lists (which nvlink
/// hands NVVM as `-kernels-used`) do not name: nvlink names its sections
/// as `-r -kernels-used` names an unused kernel's.
pub fn lto_unlisted(st: &LinkState, input: usize, kernel: &str) -> bool {
    let Some(listed) = st.lto.as_ref().and_then(|l| l.kernels_listed.as_ref()) else {
        return false;
    };
    st.inputs.get(input).is_some_and(|i| i.name == super::lto::LTO_CUBIN)
        && !listed.iter().any(|p| host_match(p, kernel))
}

const HOST_UNUSED: &str = "kernel the host objects do not launch (.nvHRKE/.nvHRKI)";

/// The functions to remove, each with its reason, in symbol order, and the
/// kernels kept as functions.
///
/// When the kernel lists keep exactly one kernel, nvlink makes it the only
/// entry point: a kernel they leave out that stays because something
/// refers to it (launched from the device, its address stored in code or
/// data) is kept as an address-taken function (its calls followed only
/// under observation 198's rule) and finalized as a function (README
/// observation 201: kernels_used_single_root_sm90). When they keep
/// several kernels (or none), every kernel that stays is an entry point
/// whose calls are followed (kernels_used_two_roots_sm90;
/// dce_device_launched_callee_sm90, where libcudadevrt's lists name its
/// static kernels beside `parent`).
fn plan(st: &LinkState, setup: &LinkSetup) -> (Vec<(SymIdx, String)>, BTreeSet<SymIdx>) {
    let is_kernel = |s: &super::state::OutSymbol| s.sym_type == STT_FUNC && s.other & STO_ENTRY != 0 && s.is_defined();
    // Host-object kernel lists apply when every input comes from a host object.
    let host_lists: Option<Vec<String>> = if setup.ignore_host_info
        || setup.used_lists_given()
        || st.host_lists_incomplete
        || st.inputs.is_empty()
        || st.host_refs.len() < st.inputs.len()
        || st.host_refs.iter().any(|r| r.is_none())
    {
        None
    } else {
        let names: Vec<String> = st
            .host_refs
            .iter()
            .flatten()
            .flat_map(|r| r.kernels.iter().chain(&r.internal_kernels).cloned())
            .collect();
        // A system library's lists (libcudadevrt's static kernels) count
        // only once another host object's lists name something.
        let named = st
            .host_refs
            .iter()
            .flatten()
            .any(|r| !r.system_library && (!r.kernels.is_empty() || !r.internal_kernels.is_empty()));
        named.then_some(names)
    };
    let mut dropped_kernels: Vec<(SymIdx, String)> = Vec::new();
    let mut roots: Vec<SymIdx> = Vec::new();
    for (i, s) in st.all_symbols() {
        if s.removed || !is_kernel(s) {
            continue;
        }
        if !setup.kernel_used(&s.name) {
            let why = if setup.kernels_used.is_empty() {
                "kernel: -variables-used without -kernels-used keeps no kernel"
            } else {
                "kernel not named by -kernels-used"
            };
            dropped_kernels.push((i, why.into()));
        } else if let Some(names) = &host_lists
            && !names.iter().any(|p| host_match(p, &s.name))
        {
            dropped_kernels.push((i, HOST_UNUSED.into()));
        } else {
            roots.push(i);
        }
    }
    let owners = super::state::query::text_owners(st);
    let function_of = |s: SymIdx| -> SymIdx {
        match st.symbol(s) {
            Some(sym) if sym.sym_type == STT_SECTION => match sym.place {
                Place::Section(k) => owners.get(&k).copied().unwrap_or(s),
                _ => s,
            },
            _ => s,
        }
    };
    // A kernel whose address some code takes (a launch from the device)
    // stays although the host lists miss it, even when that code goes
    // (lto_device_launch_sm90: `parent` launches `child`; the host launches
    // neither; nvlink keeps `child`).
    let launched_by_code: BTreeSet<SymIdx> = st
        .relocs
        .iter()
        .filter(|r| {
            r.live
                && st
                    .sections
                    .get(r.section)
                    .is_some_and(|s| s.class == SectionClass::Text && !s.removed)
        })
        .filter(|r| owners.get(&r.section) != Some(&function_of(r.sym)))
        .map(|r| function_of(r.sym))
        .collect();
    let single_root = roots.len() == 1;
    let mut held: Vec<SymIdx> = Vec::new();
    dropped_kernels.retain(|(k, why)| {
        let keep = why == HOST_UNUSED && launched_by_code.contains(k);
        if keep && single_root {
            held.push(*k);
        } else if keep {
            roots.push(*k);
        }
        !keep
    });
    // Function addresses held by data (not code, not debug information).
    for r in st.relocs.iter().filter(|r| r.live) {
        if let Some(sec) = st.sections.get(r.section)
            && !matches!(sec.class, SectionClass::Text | SectionClass::Debug)
            && !sec.removed
        {
            held.push(function_of(r.sym));
        }
    }
    let mut live = super::reach::kept_functions(st, &roots, &held);
    let mut demoted = BTreeSet::new();
    if single_root {
        demoted = dropped_kernels
            .iter()
            .map(|&(k, _)| k)
            .chain(held.iter().copied())
            .filter(|k| live.contains(k) && !roots.contains(k))
            .filter(|&k| st.symbol(k).is_some_and(is_kernel))
            .collect();
    } else {
        // Every kernel kept is an entry point: follow its calls too.
        loop {
            let more: Vec<SymIdx> = dropped_kernels
                .iter()
                .map(|&(k, _)| k)
                .filter(|k| live.contains(k) && !roots.contains(k))
                .collect();
            if more.is_empty() {
                break;
            }
            roots.extend(more);
            live = super::reach::kept_functions(st, &roots, &held);
        }
    }
    let mut dead = Vec::new();
    for (i, s) in st.all_symbols() {
        if s.removed || s.sym_type != STT_FUNC || !s.is_defined() || live.contains(&i) {
            continue;
        }
        match dropped_kernels.iter().find(|(k, _)| *k == i) {
            Some((_, why)) => dead.push((i, why.clone())),
            None if is_kernel(s) => dead.push((i, "kernel not kept".into())),
            None => dead.push((i, "no kept kernel reaches it".into())),
        }
    }
    (dead, demoted)
}

/// Removes function `f`: its symbol, its code and per-function sections
/// with their symbols, and the relocations, .nv.info and call-graph records
/// that belong to it or name it.
fn remove_function(st: &mut LinkState, f: SymIdx, ix: &RemovalIndex) {
    let Some(sym) = st.symbol(f).cloned() else { return };
    let mut sections: BTreeSet<usize> = BTreeSet::new();
    if let Place::Section(k) = sym.place
        && st.sections.get(k).is_some_and(|s| s.class == SectionClass::Text)
    {
        sections.insert(k);
        if let Some(fname) = st.sections[k].name.strip_prefix(".text.")
            && let Some(ks) = ix.per_function.get(fname)
        {
            sections.extend(ks.iter().copied().filter(|&x| x != k));
        }
    }
    let mut syms: BTreeSet<SymIdx> = BTreeSet::from([f]);
    for k in &sections {
        syms.extend(ix.symbols_in.get(k).into_iter().flatten().copied());
    }
    for &k in &sections {
        if let Some(s) = st.sections.get_mut(k) {
            s.removed = true;
        }
    }
    for &i in &syms {
        if let Some(s) = st.symbol_mut(i) {
            s.removed = true;
        }
    }
    // Debug information keeps its relocations against the removed symbols:
    // nvlink still applies them (R_CUDA_UNUSED_CLEAR64 zeroes the removed
    // function's address range in .debug_frame: kernels_used_sm90).
    for k in &sections {
        for &n in ix.relocs_in.get(k).into_iter().flatten() {
            st.relocs[n].live = false;
        }
    }
    for i in &syms {
        for &n in ix.relocs_against.get(i).into_iter().flatten() {
            if !ix.debug.contains(&st.relocs[n].section) {
                st.relocs[n].live = false;
            }
        }
        for &n in ix.nvinfo_of.get(i).into_iter().flatten() {
            let e = &mut st.nvinfo[n];
            // The EIATTR_EXTERNS list of a function that stays (a kernel
            // kept as a function whose calls are not followed) loses the
            // removed name alone (the fifteenth sweep: `kb` keeps `kc`).
            if e.entry.attr == code::EXTERNS
                && e.function.is_some_and(|g| !syms.contains(&g))
                && let Value::Block(Block::Symbols { syms: names }) = &mut e.entry.value
            {
                names.retain(|&x| x as i32 != i.0);
                if !names.is_empty() {
                    continue;
                }
            }
            e.live = false;
        }
        for &n in ix.callgraph_of.get(i).into_iter().flatten() {
            st.callgraph[n].live = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::host_match;

    #[test]
    fn host_list_patterns() {
        assert!(host_match("_Z5k_sum*", "_Z5k_sumPKiPii"));
        assert!(host_match("_Z5k_sum", "_Z5k_sum"));
        assert!(!host_match("_Z5k_sum", "_Z5k_sumPi"));
        let p = "__nv_static_22__5d2c3b06_4_s_cu_s_var_*2kS*";
        assert!(host_match(p, "__nv_static_22__5d2c3b06_4_s_cu_s_var__Z2kSPi"));
        assert!(!host_match(p, "__nv_static_22__5d2c3b06_4_s_cu_s_var__Z2kTPi"));
        assert!(!host_match(p, "_Z2kSPi"));
        assert!(host_match("a*b*c", "abc"));
        assert!(!host_match("a*bc*c", "abc"));
        assert!(host_match("*", ""));
    }
}
