//! The back half's choices of sections, symbols and where data lands (dead-code
//! elimination, layout, emit), checked against nvlink's outputs in the
//! corpus: symbols by name (binding, type, st_other, section, value, size)
//! and section headers (type, flags, size, alignment, link, info), the
//! parts of the equivalence contract these phases decide.

mod common;

use std::path::{Path, PathBuf};

use culdb::cubin::read;
use culdb::link::event::Event;
use culdb::link::state::{LinkState, Place};

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn args_of(case: &Path) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).expect("link.args");
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    v.extend(["-o".to_string(), "out.cubin".to_string()]);
    v
}

/// Links a corpus case in-process: the final state, the events, the output bytes.
fn link(name: &str) -> (LinkState, Vec<Event>, Vec<u8>) {
    let dir = case(name);
    let mut linker = culdb::link::linker_for(&args_of(&dir), &dir).expect("options");
    let events = linker.run();
    let out = linker.output().map(<[u8]>::to_vec).unwrap_or_default();
    (linker.state().clone(), events, out)
}

/// Whether a difference is about what these phases decide (not relocation
/// contents, .nv.info/.nv.callgraph records, notes or debug sections).
fn in_scope(d: &culdb::diff::Difference) -> bool {
    let others = [
        "section .rel",
        "section .nv.info",
        "section .nv.callgraph",
        "section .nv.prototype",
        "section .nv.rel.action",
        "section .nv.resolvedrela",
        "section .note",
        "section .debug",
        "relocations",
    ];
    if others.iter().any(|p| d.item.starts_with(p)) {
        return false;
    }
    !(d.property.starts_with("contents") || d.property.starts_with("entry") || d.property.starts_with("relocation"))
}

const CASES: &[&str] = &[
    "arch_sm90_smoke",
    "common_data_diff_size_sm90",
    "common_data_same_size_sm90",
    "common_vs_global_data_sm90",
    "const_bank_sm90",
    "extern_call_sm90",
    "init_globals_sm90",
    "kernel_params_sm90",
    "kernels_used_sm90",
    "local_mem_sm90",
    "managed_var_sm90",
    "relocatable_link_sm90",
    "shared_dynamic_sm90",
    "shared_static_sm90",
    "weak_vs_common_data_sm90",
];

#[test]
fn symbols_and_section_headers_match_nvlink() {
    let mut bad = Vec::new();
    for name in CASES {
        let (_, _, out) = link(name);
        assert!(!out.is_empty(), "{name}: no output");
        let ours = read::parse(&out).expect("culdb output parses");
        let theirs_bytes = std::fs::read(case(name).join("expected/out.cubin")).expect("out.cubin");
        let theirs = read::parse(&theirs_bytes).expect("nvlink output parses");
        for d in culdb::diff::equivalence(&ours, &theirs) {
            if in_scope(&d) {
                bad.push(format!("{name}: {d}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn value_of(st: &LinkState, name: &str) -> u64 {
    let i = st
        .all_symbols()
        .find(|(_, s)| &*s.name == name)
        .unwrap_or_else(|| panic!("{name} missing"));
    i.1.value
}

fn section_size(st: &LinkState, name: &str) -> (u64, u64) {
    let k = st.section_named(name).unwrap_or_else(|| panic!("{name} missing"));
    (st.sections[k].size, st.sections[k].align)
}

/// nvlink's code in shared_static_sm90 addresses tile at 0x804, reduce_buf
/// at 0 and s_flag at 0x800 (cuobjdump -sass of expected/out.cubin).
#[test]
fn shared_memory_is_laid_out_per_kernel() {
    let (st, events, _) = link("shared_static_sm90");
    assert_eq!(value_of(&st, "$__tile__13"), 0x804);
    assert_eq!(value_of(&st, "reduce_buf"), 0);
    assert_eq!(value_of(&st, "s_flag"), 0x800);
    assert_eq!(value_of(&st, "$__small__38"), 0);
    assert_eq!(section_size(&st, ".nv.shared.k_smem"), (0x1004, 0x10));
    assert_eq!(section_size(&st, ".nv.shared.k_smem_only"), (0x4c8, 8));
    assert!(
        events.iter().any(|e| matches!(e, Event::Layout(_))),
        "layout reports its decisions"
    );
}

/// The dynamic shared array sits after the kernel's static shared memory
/// (nvlink patches 0x40 into both functions' code) and aligns the section.
/// Without -g it has no one offset: its symbol's value stays -1.
#[test]
fn dynamic_shared_array_follows_static_shared_memory() {
    let (st, _, _) = link("shared_dynamic_sm90");
    assert_eq!(value_of(&st, "dyn_smem"), u64::MAX);
    assert!(!st.extern_shared.is_empty());
    assert!(
        st.extern_shared.values().all(|&at| at == 0x40),
        "{:?}",
        st.extern_shared
    );
    assert_eq!(section_size(&st, ".nv.shared.k_dyn"), (0x440, 0x10));
    assert_eq!(section_size(&st, ".nv_debug.shared"), (0, 0x10));
}

/// The common keeps its first definition's alignment (4) though b.cubin's is 8.
#[test]
fn commons_go_to_nv_global() {
    let (st, _, _) = link("common_data_diff_size_sm90");
    let gv = st.all_symbols().find(|(_, s)| &*s.name == "gv").expect("gv").1.clone();
    assert_eq!(st.place_name(gv.place), ".nv.global");
    assert_eq!((gv.value, gv.size), (0, 0x40));
    assert_eq!(section_size(&st, ".nv.global"), (0x40, 4));
    assert!(!matches!(gv.place, Place::Common { .. }));
}

#[test]
fn kernels_used_drops_the_other_kernels_and_what_only_they_reach() {
    let (st, events, _) = link("kernels_used_sm90");
    let removed: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Dce(culdb::link::dce::DceEvent::Removed { name, .. }) => Some(name.clone()),
            _ => None,
        })
        .collect();
    for f in ["k_graph", "f_one", "f_three"] {
        assert!(removed.iter().any(|r| r == f), "{f} not removed: {removed:?}");
        let s = st.all_symbols().find(|(_, s)| &*s.name == f).expect("symbol").1;
        assert!(s.removed);
    }
    for f in ["k_other", "f_two", "f_leaf"] {
        assert!(!removed.iter().any(|r| r == f), "{f} removed");
    }
}

/// A relocatable link removes nothing and lays nothing out.
#[test]
fn relocatable_link_keeps_everything() {
    let (st, events, _) = link("relocatable_link_sm90");
    assert!(!events.iter().any(|e| matches!(e, Event::Dce(_))));
    assert_eq!(section_size(&st, ".nv.shared.k_rel").0, 0x80);
}
