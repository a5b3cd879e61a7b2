//! Finalize against nvlink's goldens: kernel properties propagated through
//! the call graph, the rewritten .nv.info records, the call graph, the
//! prototype and rel.action tables, notes, and the lines nvlink prints.

use std::path::{Path, PathBuf};

use culdb::cubin::callgraph::Record;
use culdb::cubin::nvinfo::{Block, code};
use culdb::link::finalize::nvlink_demangled;
use culdb::link::pipeline::Linker;
use culdb::link::state::{LinkState, SymIdx};

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name)
}

fn linked(name: &str) -> Linker {
    let dir = case(name);
    let line = std::fs::read_to_string(dir.join("link.args")).expect("link.args");
    let mut args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    args.extend(["-o".to_string(), "out.cubin".to_string()]);
    let mut l = culdb::link::linker_for(&args, &dir).expect("options");
    l.run();
    l
}

/// nvlink's stderr and stdout lines with culdb's tool name.
fn expected_lines(dir: &Path) -> Vec<String> {
    let mut text = std::fs::read_to_string(dir.join("expected/stdout")).unwrap_or_default();
    text.push_str(&std::fs::read_to_string(dir.join("expected/stderr")).unwrap_or_default());
    text.lines()
        .map(|l| match l.strip_prefix("nvlink ") {
            Some(rest) => format!("{} {rest}", culdb::link::diag::TOOL),
            None => l.to_string(),
        })
        .collect()
}

fn printed(l: &Linker) -> Vec<String> {
    l.state().diagnostics.iter().map(|d| d.line()).collect()
}

fn module_value(st: &LinkState, attr: u8, func: &str) -> Option<u32> {
    let f = st.lookup(func)?;
    st.nvinfo
        .iter()
        .filter(|n| n.live && n.function.is_none() && n.entry.attr == attr)
        .find_map(|n| match n.entry.block() {
            Some(Block::SymValue { sym, value }) if *sym == f.0 as u32 => Some(*value),
            _ => None,
        })
}

fn externs(st: &LinkState, func: &str) -> Vec<Vec<String>> {
    let f = st.lookup(func).expect("function");
    st.nvinfo
        .iter()
        .filter(|n| n.live && n.function == Some(f) && n.entry.attr == code::EXTERNS)
        .map(|n| {
            n.entry
                .symbol_refs()
                .iter()
                .map(|&s| st.symbol_name(SymIdx(s as i32)))
                .collect()
        })
        .collect()
}

#[test]
fn recursion_gives_unknown_stack_and_a_warning() {
    let l = linked("recursion_stack_sm90");
    let st = l.state();
    assert_eq!(module_value(st, code::MIN_STACK_SIZE, "k_chain"), Some(0x288));
    assert_eq!(module_value(st, code::MIN_STACK_SIZE, "k_rec"), Some(0xffff_ffff));
    assert_eq!(module_value(st, code::MAX_STACK_SIZE, "k_chain"), None);
    let k_rec = st.lookup("k_rec").unwrap();
    let crs: Vec<_> = st
        .nvinfo
        .iter()
        .filter(|n| n.function == Some(k_rec) && n.entry.attr == code::CRS_STACK_SIZE)
        .collect();
    assert_eq!(crs.len(), 1);
    assert_eq!(crs[0].entry.symbol_refs(), Vec::<u32>::new());
    assert!(externs(st, "k_rec").is_empty(), "a defined callee is no extern");
    assert_eq!(printed(&l), expected_lines(&case("recursion_stack_sm90")));
}

#[test]
fn verbose_lines_match_nvlink() {
    for name in ["verbose_sm90", "local_mem_sm90", "shared_static_sm90"] {
        let l = linked(name);
        assert_eq!(printed(&l), expected_lines(&case(name)), "{name}");
    }
}

#[test]
fn dump_callgraph_matches_nvlink() {
    for name in [
        "dump_callgraph_sm90",
        "dump_callgraph_cpp_sm90",
        "dump_callgraph_no_demangle_sm90",
    ] {
        let l = linked(name);
        assert_eq!(printed(&l), expected_lines(&case(name)), "{name}");
    }
}

#[test]
fn regcount_propagates_through_indirect_calls() {
    let l = linked("virtual_funcs_sm90");
    let st = l.state();
    assert_eq!(module_value(st, code::REGCOUNT, "_Z8k_shapesPfPKii"), Some(36));
    assert_eq!(module_value(st, code::MIN_STACK_SIZE, "_Z8k_shapesPfPKii"), Some(0x28));
    // Non-kernels keep their own count.
    assert_eq!(module_value(st, code::REGCOUNT, "_Z8apply_opif"), Some(24));
    // The kernel inherits `free` from the virtual destructors it may call.
    assert_eq!(externs(st, "_Z8k_shapesPfPKii"), vec![vec!["free".to_string()]]);
    let markers = st
        .callgraph
        .iter()
        .filter(|e| matches!(e.record, Record::Marker { .. }))
        .count();
    assert_eq!(markers, 4);
}

#[test]
fn module_info_is_reversed_with_min_stack_last() {
    let l = linked("extern_call_sm90");
    let st = l.state();
    let module: Vec<(u8, Option<String>)> = st
        .nvinfo
        .iter()
        .filter(|n| n.function.is_none())
        .map(|n| {
            let sym = n.entry.symbol_refs().first().map(|&s| st.symbol_name(SymIdx(s as i32)));
            (n.entry.attr, sym)
        })
        .collect();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        module,
        vec![
            (0x5f, None),
            (code::FRAME_SIZE, s("add_bias")),
            (code::REGCOUNT, s("add_bias")),
            (code::FRAME_SIZE, s("k_main")),
            (code::REGCOUNT, s("k_main")),
            (code::MIN_STACK_SIZE, s("k_main")),
        ]
    );
    assert!(externs(st, "k_main").is_empty());
    let names: Vec<&str> = st.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, [".nv.prototype", ".nv.rel.action"]);
    assert_eq!(st.strtab_strings, ["#ii"]);
    let notes: Vec<&str> = st.notes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(notes, [".note.nv.tkinfo", ".note.nv.cuinfo"]);
    assert_eq!(st.e_flags, Some(0x6005a04));
}

#[test]
fn relocatable_link_keeps_max_stack_and_filters_externs() {
    let l = linked("relocatable_link_sm90");
    let st = l.state();
    assert_eq!(module_value(st, code::MAX_STACK_SIZE, "k_rel"), Some(0));
    assert_eq!(module_value(st, code::MIN_STACK_SIZE, "k_rel"), None);
    assert_eq!(externs(st, "k_rel"), vec![vec!["f_c".to_string()]]);
    assert!(st.tables.iter().all(|t| t.name != ".nv.rel.action"));
}

#[test]
fn cuinfo_takes_the_lowest_virtual_sm() {
    let l = linked("arch_sm80_obj_into_sm86");
    let st = l.state();
    let cu = st.notes.iter().find(|n| n.name == ".note.nv.cuinfo").expect("cuinfo");
    assert_eq!(u16::from_le_bytes([cu.data[26], cu.data[27]]), 80);
    assert_eq!(cu.link_section.as_deref(), Some(".note.nv.tkinfo"));
    assert_eq!(st.e_flags, Some(0x6005604));
}

#[test]
fn demangled_names_follow_nvlink_spelling() {
    assert_eq!(
        nvlink_demangled("_Z8k_shapesPfPKii"),
        "k_shapes(float *, const int *, int)"
    );
    assert_eq!(nvlink_demangled("_ZN6SquareD0Ev"), "Square::~Square() [deleting]");
    assert_eq!(nvlink_demangled("_ZNK6Square5sidesEv"), "Square::sides() const");
    assert_eq!(nvlink_demangled("k_main"), "k_main");
}
