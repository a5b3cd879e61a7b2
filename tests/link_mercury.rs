//! The Mercury (sm_100+) companion sections and `.nv.merc.symtab`, pinned
//! against nvlink's output for every corpus case that has them (the
//! contents of `.nv.capmerc.text.*` included), and the sm_100+ rules that
//! touch the classic side: `.nv.compat` rewrites, reserved shared memory.

mod common;

use std::path::Path;

use culdb::cubin::read;
use culdb::link::event::Event;
use culdb::link::mercury::MercEvent;

fn args_of(case: &Path) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).expect("link.args");
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    v.extend(["-o".to_string(), "out.cubin".to_string()]);
    v
}

/// Corpus cases nvlink linked into an output with Mercury sections.
/// The sm_100+ cases culdb links as nvlink does (listed in
/// tests/data/conformance.txt; a case kept to pin part of a link is
/// checked by its own test). A case whose code nvlink finalizes again
/// (`needs-finalizer`) only where nvJitLink is there to do the same.
fn mercury_cases() -> Vec<std::path::PathBuf> {
    let listed = std::fs::read_to_string(common::root().join("tests/data/conformance.txt")).unwrap_or_default();
    let listed: std::collections::BTreeSet<&str> = listed.lines().filter(|l| !l.starts_with('#')).collect();
    common::corpus_cases()
        .into_iter()
        .filter(|c| listed.contains(c.file_name().unwrap_or_default().to_string_lossy().as_ref()))
        .filter(|c| !common::finalizer_missing(c))
        .filter(|c| {
            std::fs::read(c.join("expected/out.cubin"))
                .ok()
                .and_then(|d| read::parse(&d).ok().map(|x| !x.merc_symbols.is_empty()))
                .unwrap_or(false)
        })
        .collect()
}

fn link(case: &Path) -> (Vec<u8>, Vec<Event>) {
    let mut linker = match culdb::link::linker_for(&args_of(case), case) {
        Ok(l) => l,
        Err(d) => panic!("{}: {:?}", case.display(), d),
    };
    let events = linker.run();
    let out = linker
        .output()
        .unwrap_or_else(|| panic!("{}: no output", case.display()))
        .to_vec();
    (out, events)
}

#[test]
fn mercury_sections_and_symbols_match_nvlink() {
    let cases = mercury_cases();
    assert!(cases.len() >= 8, "Mercury corpus cases: {}", cases.len());
    let mut bad = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let (ours, _) = link(case);
        let theirs = std::fs::read(case.join("expected/out.cubin")).unwrap();
        let a = read::parse(&ours).expect("our output parses");
        let b = read::parse(&theirs).expect("nvlink's output parses");
        assert!(!a.merc_symbols.is_empty(), "{name}: no .nv.merc.symtab");
        for d in culdb::diff::equivalence(&a, &b) {
            let merc = d.item.contains(".nv.merc") || d.item.contains(".nv.capmerc") || d.item.starts_with("mercury");
            if merc {
                bad.push(format!("{name}: {d}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn mercury_sections_are_merged_not_skipped() {
    let case = common::root().join("tests/corpus/arch_sm100_smoke");
    let (_, events) = link(&case);
    let mapped: Vec<&MercEvent> = events
        .iter()
        .filter_map(|e| match e {
            Event::Mercury(m) => Some(m),
            _ => None,
        })
        .collect();
    let placed = |n: &str| {
        mapped
            .iter()
            .any(|m| matches!(m, MercEvent::SectionMapped { name, .. } if name == n))
    };
    assert!(placed(".nv.capmerc.text.k_arch"));
    assert!(placed(".nv.merc.debug_frame"));
    assert!(placed(".nv.capmerc.text.lib_func"));
    // lib.cubin's weak_helper loses to main.cubin's: its code is not merged.
    assert!(mapped.iter().any(|m| matches!(
        m,
        MercEvent::SectionSkipped { input: 1, name, .. } if name == ".nv.capmerc.text.weak_helper"
    )));
    assert!(mapped.iter().any(|m| matches!(
        m,
        MercEvent::RecordsMapped { name, .. } if name == ".nv.merc.rela.text.k_arch"
    )));
    // No Mercury section is left to the classic merge's "skipped" list.
    assert!(!events.iter().any(|e| matches!(
        e,
        Event::SectionSkipped { name, .. } if name.starts_with(".nv.merc") || name.starts_with(".nv.capmerc")
    )));
}

#[test]
fn classic_outputs_have_no_mercury_side() {
    let case = common::root().join("tests/corpus/arch_sm90_smoke");
    let (ours, _) = link(&case);
    let a = read::parse(&ours).unwrap();
    assert!(a.merc_symbols.is_empty());
    assert!(!a.sections.iter().any(|s| s.name.contains("merc")));
}

/// What nvlink rewrites in the classic side of an sm_100+ output: string
/// tables built afresh, the trailing `.nv.constant0.<kernel>` section
/// symbols after the globals (sh_info one past the last local),
/// `.nv.reservedSmem.*` as CUDA objects, and `.debug_frame` CIE pointers.
#[test]
fn classic_side_of_mercury_outputs_matches_nvlink() {
    let mut bad = Vec::new();
    for case in &mercury_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let (ours, _) = link(case);
        let theirs = std::fs::read(case.join("expected/out.cubin")).unwrap();
        let a = read::parse(&ours).expect("our output parses");
        let b = read::parse(&theirs).expect("nvlink's output parses");
        for d in culdb::diff::equivalence(&a, &b) {
            let checked = matches!(
                d.item.as_str(),
                "section .strtab" | "section .shstrtab" | "section .symtab"
            ) || d.item.starts_with("symbol ")
                || d.item == "section .debug_frame";
            if checked {
                bad.push(format!("{name}: {d}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

/// An sm_100 object linked for sm_103 loses CAN_FASTPATH_FINALIZE (9 → 0).
#[test]
fn foreign_sm_object_clears_fast_path_finalize() {
    let case = common::root().join("tests/corpus/arch_sm100_obj_into_sm103");
    let (ours, _) = link(&case);
    let a = read::parse(&ours).expect("our output parses");
    let (_, s) = a.section_by_name(".nv.compat").expect(".nv.compat");
    let c = culdb::cubin::compat::decode(&s.data).expect("decodes");
    let e = c
        .entries
        .iter()
        .find(|e| e.attr == culdb::cubin::compat::code::CAN_FASTPATH_FINALIZE)
        .expect("CAN_FASTPATH_FINALIZE");
    assert!(
        matches!(&e.value, culdb::cubin::nvinfo::Value::Block(culdb::cubin::nvinfo::Block::Words { words }) if words.iter().all(|&w| w == 0)),
        "{:?}",
        e.value
    );
}

/// sm_100 objects linked for sm_100a: CUDA_ACCELERATOR_TARGET becomes 1 and
/// CAN_FASTPATH_FINALIZE keeps only sm_100's bit (9 → 1), as nvlink does.
#[test]
fn accelerated_target_rewrites_compat() {
    use culdb::cubin::compat::code;
    use culdb::cubin::nvinfo::{Block, Value};
    let case = common::root().join("tests/corpus/arch_sm100_obj_into_sm100a");
    let (ours, _) = link(&case);
    let a = read::parse(&ours).expect("our output parses");
    let (_, s) = a.section_by_name(".nv.compat").expect(".nv.compat");
    let c = culdb::cubin::compat::decode(&s.data).expect("decodes");
    let value = |attr| &c.entries.iter().find(|e| e.attr == attr).expect("attribute").value;
    assert!(matches!(
        value(code::CUDA_ACCELERATOR_TARGET),
        Value::Byte { value: 1, .. }
    ));
    assert!(
        matches!(value(code::CAN_FASTPATH_FINALIZE), Value::Block(Block::Words { words }) if words[0] == 1),
        "{:?}",
        value(code::CAN_FASTPATH_FINALIZE)
    );
}

/// sm_110's weak `__nv_reservedSMEM_gb10b_war_var` (0x80 bytes, aligned 0x10,
/// in each input's 0x80-byte `.nv.shared.reserved.0`): nvlink keeps one copy
/// of the section; a final link makes it NOBITS and places the variable at
/// `.nv.reservedSmem.offset0` (0x40: a 0xc0-byte section; Mercury value 0).
#[test]
fn reserved_shared_memory_is_one_copy_laid_out_from_the_reserved_offset() {
    use culdb::cubin::consts::{SHT_CUDA_SHARED_RESERVED, SHT_NOBITS};
    use culdb::link::layout::LayoutEvent;
    let case = common::root().join("tests/corpus/arch_sm110_smoke");
    let var = "__nv_reservedSMEM_gb10b_war_var";
    let (ours, events) = link(&case);
    let a = read::parse(&ours).expect("our output parses");
    let (_, s) = a.section_by_name(".nv.shared.reserved.0").expect("classic section");
    assert_eq!((s.sh_type, s.size()), (SHT_NOBITS, 0xc0));
    let (_, m) = a
        .section_by_name(".nv.merc.nv.shared.reserved.0")
        .expect("Mercury copy");
    assert_eq!((m.sh_type, m.size()), (SHT_CUDA_SHARED_RESERVED, 0x80));
    let classic = a.symbols.iter().find(|y| y.name == var).expect("classic symbol");
    let merc = a.merc_symbols.iter().find(|y| y.name == var).expect("Mercury symbol");
    assert_eq!((classic.value, merc.value), (0x40, 0));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Layout(LayoutEvent::Placed { name, offset: 0x40, .. }) if name == var
    )));
    // lib.cubin's copy goes with its losing weak definition, on both sides.
    for name in [".nv.shared.reserved.0", ".nv.merc.nv.shared.reserved.0"] {
        assert!(
            events.iter().any(|e| match e {
                Event::SectionSkipped { input: 1, name: n, .. } => n == name,
                Event::Mercury(MercEvent::SectionSkipped { input: 1, name: n, .. }) => n == name,
                _ => false,
            }),
            "{name} of lib.cubin is not merged"
        );
    }

    // With -r: one 0x80-byte copy, the variable's st_value still its alignment.
    let mut args = args_of(&case);
    args.insert(0, "-r".into());
    let mut linker = culdb::link::linker_for(&args, &case).expect("links");
    linker.run();
    let r = read::parse(linker.output().expect("output")).expect("parses");
    let (_, s) = r.section_by_name(".nv.shared.reserved.0").expect("classic section");
    assert_eq!((s.sh_type, s.size()), (SHT_CUDA_SHARED_RESERVED, 0x80));
    let classic = r.symbols.iter().find(|y| y.name == var).expect("classic symbol");
    assert_eq!(classic.value, 0x10);
}
