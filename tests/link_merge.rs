//! The state after the merge phase, pinned against nvlink for every corpus case.
//!
//! For each case nvlink linked, every symbol of nvlink's output (apart from
//! the ones the back half creates, listed in `MADE_AFTER_MERGE`) must be in
//! culdb's merged state with the same binding, section and size; every
//! global of the merged state must be in nvlink's output unless nvlink's
//! dead-code elimination removed it (hand-checked list `REMOVED_BY_DCE`).
//! The winner of every weak function conflict must be the input whose code
//! nvlink's output carries, byte for byte outside relocated words.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use culdb::cubin::consts::*;

use culdb::cubin::{Cubin, read};
use culdb::link::event::Event;
use culdb::link::state::{LinkState, Place};

/// Symbols nvlink's output has that no input defines: made by layout,
/// bindless and unified-table processing (issue 4), not by the merge.
fn made_after_merge(name: &str) -> bool {
    name.starts_with("$NVLINKBINDLESSOFF_")
        || name.starts_with("__UFT")
        || name.starts_with("__UDT")
        || name.starts_with(".nv.reservedSmem")
}

/// Globals the merge keeps and a later phase of nvlink removes, checked by
/// hand in the corpus outputs, other than functions no kernel reaches (those
/// are checked against culdb's reachability): `-kernels-used`
/// (tests/corpus/README.md observation 22), kernels the host objects do not
/// reference (`k_reset`, `kB2`, `kSys`: the `.nvHRKE` lists, observation 33),
/// and the extern `.shared` array that layout turns into dynamic shared
/// memory. Shared variables, which layout leaves out, are not checked.
const REMOVED_BY_DCE: &[(&str, &[&str])] = &[
    ("dead_frame_order_sm100", &["_Z4idlePff"]),
    ("host_lists_single_root_sm90", &["_Z4idlePf", "_Z5blendff"]),
    ("kernels_used_kept_externs_sm100", &["_Z2kaPi"]),
    ("kernels_used_launched_only_sm90", &["_Z4idlePf", "_Z5blendff"]),
    ("kernels_used_referenced_first_sm90", &["_Z5lonerPi"]),
    ("kernels_used_single_root_sm90", &["_Z4idlePf", "_Z5blendff"]),
    ("kernels_used_two_roots_sm90", &["_Z4idlePf"]),
    ("kernels_used_shared_sm75", &["_Z4blurPf", "_Z4fillPii", "_Z4scanPi"]),
    ("kernels_used_shared_sm90", &["_Z4blurPf", "_Z4fillPii", "_Z4scanPi"]),
    ("cudadevrt_fake_func_ref_sm90", &["_Z4kSysPi"]),
    ("dce_address_taken_callee_sm100", &["_Z11twice_innerd"]),
    ("dce_address_taken_callee_sm90", &["_Z11twice_innerd"]),
    ("dce_device_launched_kernel_sm90", &["_Z8k_parentPi"]),
    ("debug_line_dead_unit_sm120", &["_Z6unusedPf"]),
    ("dce_removed_extern_shared_sm90", &["_Z6k_gonePf"]),
    ("dump_callgraph_dead_sm90", &["_Z2k3Pi"]),
    ("host_lists_ld_r_empty_sm90", &["_Z4fillPf", "_Z5clearPf", "_Z5scalePf"]),
    ("host_lists_ld_r_sm90", &["_Z4fillPf", "_Z5clearPf", "_Z5scalePf"]),
    ("host_obj_ptx_jit_sm90", &["_Z7k_resetv"]),
    ("host_obj_rdc_sm90", &["_Z7k_resetv"]),
    ("host_obj_sm80_into_sm90_jit", &["_Z7k_resetv"]),
    ("kernels_used_address_taken_sm90", &["_Z7kUnusedPKfPf"]),
    ("kernels_used_host_lists_sm90", &["_Z2k1Pi"]),
    ("shared_dead_extern_order_sm100", &["_Z10unlaunchedPf"]),
    ("shared_dead_extern_order_sm90", &["_Z10unlaunchedPf"]),
    ("kernels_used_sm90", &["k_graph", "f_one", "f_three"]),
    ("kernels_used_substring_sm90", &["_Z7k_otherPi"]),
    ("kernels_used_sm100", &["k_graph", "f_one", "f_three"]),
    ("shared_dynamic_sm90", &["dyn_smem"]),
    ("shared_dynamic_kernels_sm75", &["dyn_smem"]),
    ("shared_dynamic_kernels_sm90", &["dyn_smem"]),
    ("shared_dynamic_kernels_sm100", &["dyn_smem"]),
    ("static_kernel_host_sm90", &["_Z3kB2Pi"]),
    ("variables_used_only_sm90", &["_Z2k1Pi", "_Z2k2Pi"]),
];

/// Whether PTX inputs can be compiled here (a CULDB_PTXAS naming no file counts as none).
fn have_ptxas() -> bool {
    culdb::link::find_ptxas().is_some_and(|p| p.is_file())
}

fn args_of(case: &Path) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).expect("link.args");
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    v.extend(["-o".to_string(), "out.cubin".to_string()]);
    v
}

fn status_of(case: &Path) -> i32 {
    std::fs::read_to_string(case.join("expected/status"))
        .expect("status")
        .trim()
        .parse()
        .expect("status number")
}

fn merged(case: &Path) -> (LinkState, Vec<Event>) {
    let mut linker = match culdb::link::linker_for(&args_of(case), case) {
        Ok(l) => l,
        Err(d) => panic!("{}: {:?}", case.display(), d),
    };
    let events = linker.run();
    (linker.state().clone(), events)
}

fn section_name(c: &Cubin<'_>, shndx: u32) -> String {
    match shndx {
        SHN_UNDEF => "UNDEF".into(),
        SHN_COMMON => "COMMON".into(),
        SHN_ABS => "ABS".into(),
        s => c.section_name(s as usize).to_string(),
    }
}

/// Compares one case; returns the mismatches.
fn check_symbols(case: &Path, st: &LinkState) -> Vec<String> {
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    let data = std::fs::read(case.join("expected/out.cubin")).expect("out.cubin");
    let out = read::parse(&data).expect("nvlink output parses");
    let mut bad = Vec::new();
    // `-g` removes nothing and moves module shared variables into kernels'
    // sections as locals (README observation 84): neither check applies.
    let debug = args_of(case).iter().any(|a| a == "-g");
    // `-r` removes nothing either (cdp_local_undefined_sm100 keeps every
    // function of libcudadevrt's member).
    // -r, -g and -preserve-relocs remove nothing (preserve_relocs_dce_sm90).
    let keeps_all = debug || args_of(case).iter().any(|a| a == "-r" || a == "-preserve-relocs");
    let ours: BTreeMap<&str, _> = st
        .all_symbols()
        .filter(|(_, s)| s.sym_type != STT_SECTION && s.binding != STB_LOCAL)
        .map(|(_, s)| (s.name.as_ref(), s))
        .collect();
    // Local symbols (file-static data, string literals) may repeat a name:
    // compared as multisets of (name, section, size).
    let their_locals: Vec<(String, String, u64)> = out
        .symbols
        .iter()
        .skip(1)
        .filter(|s| s.binding == STB_LOCAL && s.sym_type != STT_SECTION)
        .map(|s| (s.name.clone(), section_name(&out, s.shndx), s.size))
        .collect();
    let mut our_locals: Vec<(String, String, u64)> = st
        .locals
        .iter()
        .filter(|s| s.sym_type != STT_SECTION)
        .map(|s| (s.name.to_string(), st.place_name(s.place), s.size))
        .collect();
    // nvlink's output lacks some locals the merge keeps for the debugger
    // (`_param` of .nv.constant0, `$__s_buf` shared buffers): every local of
    // nvlink's output must be among culdb's.
    for l in &their_locals {
        match our_locals.iter().position(|o| o == l) {
            Some(i) => {
                our_locals.remove(i);
            }
            None if debug && l.1.starts_with(".nv.shared.") => {}
            None => bad.push(format!("{name}: local {l:?} missing from the merged state")),
        }
    }
    let mut seen = BTreeSet::new();
    for s in out.symbols.iter().skip(1) {
        if s.sym_type == STT_SECTION || s.binding == STB_LOCAL || made_after_merge(&s.name) {
            continue;
        }
        seen.insert(s.name.as_str());
        let Some(o) = ours.get(s.name.as_str()) else {
            bad.push(format!("{name}: {} missing from the merged state", s.name));
            continue;
        };
        let theirs = section_name(&out, s.shndx);
        let mine = match o.place {
            // Layout gives commons their storage in .nv.global.
            Place::Common { .. } => ".nv.global".to_string(),
            p => st.place_name(p),
        };
        if theirs != mine {
            bad.push(format!("{name}: {} in {mine}, nvlink: {theirs}", s.name));
        }
        if s.binding != o.binding {
            bad.push(format!(
                "{name}: {} binding {}, nvlink: {}",
                s.name, o.binding, s.binding
            ));
        }
        if s.size != o.size {
            bad.push(format!("{name}: {} size {:#x}, nvlink: {:#x}", s.name, o.size, s.size));
        }
    }
    // What nvlink's dead-code elimination drops must be unreachable for
    // culdb (or be listed above with the reason).
    let kernels: Vec<culdb::link::state::SymIdx> = st
        .all_symbols()
        .filter(|(_, s)| {
            s.other & culdb::link::state::query::STO_ENTRY != 0 && s.sym_type == STT_FUNC && s.is_defined()
        })
        .map(|(i, _)| i)
        .collect();
    let live = culdb::link::reach::kept_functions(st, &kernels, &[]);
    let dce: BTreeSet<&str> = REMOVED_BY_DCE
        .iter()
        .filter(|(c, _)| *c == name)
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    for (n, s) in &ours {
        // A final link leaves shared variables out once laid out (README
        // observation 69 and the layout module doc).
        let shared = s.other & 0xe0 == culdb::link::state::query::STO_SHARED;
        if s.binding == STB_LOCAL || made_after_merge(n) || shared {
            continue;
        }
        let dead_function = s.sym_type == STT_FUNC && !live.contains(&st.lookup(n).unwrap());
        if !seen.contains(n) && !dce.contains(n) && !dead_function {
            bad.push(format!("{name}: {n} merged but not in nvlink's output"));
        }
        if !keeps_all
            && seen.contains(n)
            && s.sym_type == STT_FUNC
            && s.is_defined()
            && !live.contains(&st.lookup(n).unwrap())
        {
            bad.push(format!("{name}: {n} kept by nvlink but unreachable for culdb"));
        }
        if seen.contains(n) && dce.contains(n) {
            bad.push(format!("{name}: {n} listed as removed but nvlink kept it"));
        }
    }
    bad
}

#[test]
fn merged_symbols_match_nvlink_output() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for case in common::corpus_cases() {
        if status_of(&case) != 0 || common::finalizer_missing(&case) {
            continue;
        }
        let (st, _) = merged(&case);
        let errors: Vec<_> = st
            .diagnostics
            .iter()
            .filter(|d| d.severity >= culdb::link::diag::Severity::Error)
            .collect();
        if !have_ptxas() && errors.iter().any(|d| d.text.contains("ptxas")) {
            eprintln!(
                "note: {} skipped: it has PTX inputs and this machine has no ptxas",
                case.display()
            );
            continue;
        }
        if !errors.is_empty() {
            bad.push(format!("{}: {:?}", case.display(), errors));
            continue;
        }
        bad.extend(check_symbols(&case, &st));
        checked += 1;
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
    // 74 cases link; 5 of them need ptxas for their PTX inputs.
    let least = if have_ptxas() { 74 } else { 69 };
    assert!(checked >= least, "only {checked} cases checked");
}

/// The weak-function winners, from the marker constants in nvlink's output
/// SASS (tests/corpus/README.md, the case table).
const WEAK_WINNERS: &[(&str, &str)] = &[
    ("weak_func_fewer_regs_beats_vsm_sm90", "b.cubin"),
    ("weak_func_regs_equal_sm90", "a.cubin"),
    ("weak_func_regs_unequal_fewer_first_sm90", "a.cubin"),
    ("weak_func_regs_unequal_fewer_second_sm120", "b.cubin"),
    ("weak_func_regs_unequal_fewer_second_sm90", "b.cubin"),
    ("weak_func_vsm_80_then_86_sm90", "b.cubin"),
    ("weak_func_vsm_high_first_sm90", "a.cubin"),
    ("weak_func_vsm_low_first_sm100", "b.cubin"),
    ("weak_func_vsm_low_first_sm90", "b.cubin"),
    ("weak_func_ptxver_new_first_sm90", "a.cubin"),
    ("weak_func_ptxver_old_first_sm90", "a.cubin"),
    ("global_vs_weak_func_sm90", "a.cubin"),
    ("weak_vs_global_func_sm90", "b.cubin"),
    ("weak_vs_global_func_fewer_regs_weak_sm90", "b.cubin"),
];

#[test]
fn weak_winners_match_nvlink() {
    for (case, winner) in WEAK_WINNERS {
        let dir = common::root().join("tests/corpus").join(case);
        let (st, events) = merged(&dir);
        let decisions: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::WeakDecision {
                    name,
                    existing,
                    incoming,
                    incoming_wins,
                    ..
                } if name == "wf" => Some(if *incoming_wins {
                    incoming.input_name.clone()
                } else {
                    existing.input_name.clone()
                }),
                _ => None,
            })
            .collect();
        assert_eq!(decisions, vec![winner.to_string()], "{case}");
        let wf = st.globals.iter().find(|s| &*s.name == "wf").expect("wf");
        assert_eq!(st.input_name(wf.input), *winner, "{case}: wf's definition");
        // The code nvlink kept is the winner's, outside relocated words.
        let out = std::fs::read(dir.join("expected/out.cubin")).unwrap();
        let out = read::parse(&out).unwrap();
        let win = std::fs::read(dir.join(winner)).unwrap();
        let win = read::parse(&win).unwrap();
        let (_, ot) = out.section_by_name(".text.wf").expect("output .text.wf");
        let (wi, wt) = win.section_by_name(".text.wf").expect("winner .text.wf");
        let mut patched = BTreeSet::new();
        for s in win.sections.iter().filter(|s| s.is_reloc() && s.info as usize == wi) {
            for r in &s.relocs {
                patched.extend(r.offset as usize..r.offset as usize + 8);
            }
        }
        assert_eq!(ot.data.len(), wt.data.len(), "{case}: size of .text.wf");
        let differs = (0..wt.data.len()).any(|i| !patched.contains(&i) && ot.data[i] != wt.data[i]);
        assert!(!differs, "{case}: output .text.wf is not {winner}'s code");
        // And the merged state carries exactly the winner's code.
        let ours = st
            .sections
            .iter()
            .find(|s| s.name == ".text.wf")
            .expect("merged .text.wf");
        assert!(
            ours.data == wt.data.as_ref(),
            "{case}: merged .text.wf is not {winner}'s code"
        );
    }
}

#[test]
fn weak_decision_reads_as_an_explanation() {
    let dir = common::root().join("tests/corpus/weak_func_vsm_low_first_sm90");
    let (_, events) = merged(&dir);
    let text: Vec<String> = events.iter().map(|e| e.describe()).collect();
    let decision = text
        .iter()
        .find(|l| l.starts_with("weak decision for wf"))
        .expect("a weak decision");
    assert_eq!(
        decision,
        "weak decision for wf: existing weak wf in a.cubin (input #1, 24 registers, virtual sm_75) vs incoming weak wf \
         in b.cubin (input #2, 24 registers, virtual sm_90): equal registers: the definition compiled for the higher \
         virtual SM wins; winner: b.cubin, discarded: a.cubin"
    );
    // The replacement is followed by the clean-up of the old definition.
    let i = text.iter().position(|l| l == decision).unwrap();
    assert!(
        text[i + 1].starts_with("old definition of wf removed"),
        "{}",
        text[i + 1]
    );
}

/// Data symbols: where the merge places each input's section (appended at
/// its alignment, the loser of a weak data conflict included) is where
/// nvlink's output has the symbol. Commons get their storage in layout.
#[test]
fn data_symbol_offsets_match_nvlink() {
    let mut bad = Vec::new();
    let mut compared = 0;
    for case in common::corpus_cases() {
        if status_of(&case) != 0 || common::finalizer_missing(&case) {
            continue;
        }
        let (st, _) = merged(&case);
        let Ok(data) = std::fs::read(case.join("expected/out.cubin")) else {
            continue;
        };
        let out = read::parse(&data).unwrap();
        for s in out
            .symbols
            .iter()
            .filter(|s| s.sym_type != STT_SECTION && s.shndx != 0 && s.shndx < 0xffff_0000)
        {
            let sec = out.section_name(s.shndx as usize);
            let Some(o) = st.lookup(&s.name).and_then(|i| st.symbol(i)) else {
                continue;
            };
            // sm_110's `.nv.shared.reserved.0` is laid out after the merge
            // (layout's reserved stage; tests/corpus/README.md, 63).
            if sec.starts_with(".text.")
                || sec.starts_with(".nv.shared.reserved.")
                || matches!(o.place, Place::Common { .. })
            {
                continue;
            }
            compared += 1;
            if o.value != s.value {
                let case = case.file_name().unwrap().to_string_lossy().to_string();
                bad.push(format!(
                    "{case}: {} in {sec} at {:#x}, nvlink: {:#x}",
                    s.name, o.value, s.value
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(compared > 50, "only {compared} data symbols compared");
}

fn linker(case: &str) -> culdb::link::Linker {
    let dir = common::root().join("tests/corpus").join(case);
    culdb::link::linker_for(&args_of(&dir), &dir).expect("options")
}

/// The pipeline steps one unit of work at a time, a copy taken between
/// steps finishes the same way, and the result does not depend on how the
/// link was stepped.
#[test]
fn stepping_is_resumable_and_deterministic() {
    let case = "call_graph_4obj_sm90";
    let mut whole = linker(case);
    let all = whole.run();
    let mut stepped = linker(case);
    let mut events = Vec::new();
    let mut steps = 0;
    let mut copy = None;
    loop {
        let s = stepped.step();
        steps += 1;
        events.extend(s.events);
        if steps == 40 {
            copy = Some(stepped.clone());
        }
        if s.finished {
            break;
        }
    }
    assert_eq!(events, all);
    let symbols: usize = stepped.state().maps.iter().map(|m| m.map_symbol_index.len()).sum();
    assert!(
        steps > symbols,
        "{steps} steps for {symbols} input symbols: not one unit of work per step"
    );
    let mut copy = copy.expect("the link took more than 40 steps");
    copy.run();
    let json = |l: &culdb::link::Linker| serde_json::to_string(l.state()).unwrap();
    assert_eq!(json(&copy), json(&stepped));
    assert_eq!(json(&whole), json(&stepped));
}

/// The mapping arrays of seed 001, kept per input: the loser of a weak
/// conflict maps to the winner's (signed, negative) output index and is
/// marked weak_processed; its code section is not mapped.
#[test]
fn mapping_arrays_record_the_weak_loser() {
    let mut l = linker("weak_func_regs_unequal_fewer_first_sm90");
    l.run();
    let st = l.state();
    let wf = st.lookup("wf").expect("wf");
    assert!(wf.0 < 0, "globals have negative indices");
    let b = st.inputs.iter().position(|i| i.name == "b.cubin").expect("b.cubin");
    let cubin = read::parse(&st.inputs[b].data).unwrap();
    let (i, sym) = cubin.symbol_by_name("wf").unwrap();
    let maps = &st.maps[b];
    assert_eq!(maps.map_symbol_index.len(), cubin.symbols.len());
    assert_eq!(maps.map_section_index.len(), cubin.sections.len());
    assert_eq!(maps.map_symbol_index[i], wf.0);
    assert!(maps.weak_processed[i]);
    assert_eq!(
        maps.map_section_index[sym.shndx as usize], 0,
        "the loser's .text.wf is not merged"
    );
    let a = st.inputs.iter().position(|i| i.name == "a.cubin").unwrap();
    let ca = read::parse(&st.inputs[a].data).unwrap();
    let (ia, sa) = ca.symbol_by_name("wf").unwrap();
    assert!(!st.maps[a].weak_processed[ia]);
    assert_ne!(st.maps[a].map_section_index[sa.shndx as usize], 0);
    assert_eq!(st.symbol(wf).unwrap().regcount, Some(24));
}

/// `.debug_frame` records, 64-bit DWARF as ptxas writes them: a CIE
/// (id all ones) then an FDE; what `frame_cies` lists is where the CIEs start.
#[test]
fn frame_records_find_cies_and_fdes() {
    let mut d = Vec::new();
    // CIE: length 0x0c after the 12-byte head, id u64::MAX, 4 bytes of body.
    d.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
    d.extend_from_slice(&12u64.to_le_bytes());
    d.extend_from_slice(&u64::MAX.to_le_bytes());
    d.extend_from_slice(&[3, 0, 4, 0x7c]);
    // FDE pointing at it.
    d.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
    d.extend_from_slice(&24u64.to_le_bytes());
    d.extend_from_slice(&0u64.to_le_bytes());
    d.extend_from_slice(&[0; 16]);
    let r = culdb::link::frame_edit::frame_records(&d);
    assert_eq!(r.len(), 2);
    assert!(r[0].cie && !r[1].cie && r[0].wide);
    assert_eq!((r[1].offset, r[1].size), (24, 36));
    assert_eq!(culdb::link::merge::frame_cies(&d), vec![0]);
    // A truncated record ends the list rather than failing.
    assert_eq!(culdb::link::frame_edit::frame_records(&d[..30]).len(), 1);
}

/// An input whose `.nv.compat` lacks ISA_CLASS: nvlink warns (status 0,
/// corpus compat_merge_sm90); under -Werror the warning is an error and the
/// merge fails, as nvlink 13.5 does: `error : Output is limited …`, then
/// `fatal : merge_elf failed` (tests/corpus/README.md, 85).
#[test]
fn missing_isa_class_fails_the_merge_under_werror() {
    let dir = common::root().join("tests/corpus/compat_merge_sm90");
    let mut args = args_of(&dir);
    args.insert(0, "-Werror".to_string());
    let mut l = culdb::link::linker_for(&args, &dir).expect("options");
    l.run();
    let lines: Vec<String> = l.state().diagnostics.iter().map(|d| d.line()).collect();
    assert_eq!(
        lines,
        vec![
            "culdb error   : Output is limited to run on SM Arch '90' only, due to missing attribute 'ISA_CLASS' in input file 'f2.cubin'",
            "culdb fatal   : merge_elf failed",
        ]
    );
}
