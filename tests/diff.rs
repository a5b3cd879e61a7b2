//! `culdb diff` against nvlink's goldens: clean on itself, catches each kind
//! of perturbation, and tells every pair of different corpus outputs apart.

mod common;

use std::path::PathBuf;

use common::*;
use culdb::cubin::consts::*;
use culdb::cubin::{Cubin, read, write};

/// nvlink's successful outputs in the corpus.
fn goldens() -> Vec<PathBuf> {
    corpus_cases()
        .into_iter()
        .map(|c| c.join("expected/out.cubin"))
        .filter(|p| p.exists())
        .collect()
}

/// A golden with relocations kept in the output, .nv.info and a text section.
fn rich_golden() -> (PathBuf, Vec<u8>) {
    for g in goldens() {
        let d = std::fs::read(&g).unwrap();
        let c = read::parse(&d).unwrap();
        let has_rel = c
            .sections
            .iter()
            .any(|s| s.is_reloc() && !s.relocs.is_empty() && s.name.starts_with(".rela.text"));
        let has_info = c.sections.iter().any(|s| s.name.starts_with(".nv.info."));
        if has_rel && has_info {
            return (g, d);
        }
    }
    panic!("no corpus golden with text relocations and .nv.info");
}

fn diffs(a: &Cubin<'_>, b: &Cubin<'_>) -> Vec<String> {
    culdb::diff::equivalence(a, b).iter().map(|d| d.to_string()).collect()
}

#[test]
fn every_golden_is_equivalent_to_itself_and_differs_from_every_other() {
    let gs = goldens();
    assert!(gs.len() >= 30, "corpus has only {} successful cases", gs.len());
    let data: Vec<Vec<u8>> = gs.iter().map(|g| std::fs::read(g).unwrap()).collect();
    let cubins: Vec<Cubin<'_>> = data.iter().map(|d| read::parse(d).unwrap()).collect();
    let mut same_output = Vec::new();
    for (i, a) in cubins.iter().enumerate() {
        assert!(diffs(a, a).is_empty(), "{} differs from itself", rel(&gs[i]));
        assert_eq!(culdb::diff::strict(&data[i], a, &data[i], a), None);
        for (j, b) in cubins.iter().enumerate().filter(|(j, _)| *j != i) {
            // Two cases can make the same output (an archive given with -l or
            // by path): identical apart from the tool note, they must be
            // equivalent; any other pair must show differences.
            if culdb::diff::strict(&data[i], a, &data[j], b).is_none() {
                assert!(diffs(a, b).is_empty(), "{} vs {}", rel(&gs[i]), rel(&gs[j]));
                same_output.push((rel(&gs[i]), rel(&gs[j])));
            } else {
                assert!(
                    !diffs(a, b).is_empty(),
                    "{} vs {}: no difference reported",
                    rel(&gs[i]),
                    rel(&gs[j])
                );
            }
        }
    }
    // Cases that link to the same output (identical apart from the tool
    // note). Each group was checked by hand: its cases differ only in options
    // that print (-v, --dump-callgraph), in how an input is named (-l or a
    // path, fatbin or cubin), or in PTX .version / the weak tie (nvlink's tie
    // rule ignores .version: tests/corpus/README.md, "Observations").
    let case = |p: &str| {
        p.trim_start_matches("tests/corpus/")
            .trim_end_matches("/expected/out.cubin")
            .to_string()
    };
    let mut groups: Vec<Vec<String>> = Vec::new();
    for (x, y) in same_output {
        let (x, y) = (case(&x), case(&y));
        match groups.iter_mut().find(|g| g.contains(&x) || g.contains(&y)) {
            Some(g) => {
                for c in [x, y] {
                    if !g.contains(&c) {
                        g.push(c);
                    }
                }
            }
            None => groups.push(vec![x, y]),
        }
    }
    for g in &mut groups {
        g.sort();
    }
    groups.sort();
    let expected: Vec<Vec<&str>> = vec![
        // The same link; only nvlink's recorded options differ.
        vec![
            "arch_sm90_smoke",
            "tkinfo_host_info_sm90",
            "tkinfo_options_sm90",
            "tkinfo_verbose2_sm90",
        ],
        vec!["archive_hostobj_direct_sm90", "archive_hostobj_lx_sm90"],
        vec!["call_graph_4obj_sm90", "dump_callgraph_sm90", "verbose_sm90"],
        // The same link; -disable-infos -Werror and -report-arch -v change
        // only the messages.
        vec!["disable_infos_stack_sm90", "report_arch_messages_sm90"],
        vec![
            "dump_callgraph_cpp_sm90",
            "dump_callgraph_no_demangle_sm90",
            "virtual_funcs_sm90",
        ],
        vec!["extern_call_sm90", "fatbin_input_sm90"],
        vec!["host_obj_ptx_jit_sm90", "host_obj_sm80_into_sm90_jit"],
        // The same link; -suppress-stack-size-warning changes only the messages.
        vec!["recursion_stack_sm90", "stack_suppressed_sm90"],
        vec![
            "weak_func_ptx_inputs_new_first_sm90",
            "weak_func_ptx_inputs_old_first_sm90",
            "weak_func_ptxver_new_first_sm90",
            "weak_func_ptxver_old_first_sm90",
            "weak_func_vsm_high_first_sm90",
        ],
    ];
    assert_eq!(groups, expected);
}

#[test]
fn cli_exit_status_and_strict() {
    let (g, _) = rich_golden();
    let g = g.to_str().unwrap();
    let out = culdb(&["diff", "--strict", g, g]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let other = goldens().into_iter().find(|p| p.to_str() != Some(g)).unwrap();
    let out = culdb(&["diff", g, other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let out = culdb(&["diff", "--json", g, other.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["equivalent"], false);
    assert!(!v["differences"].as_array().unwrap().is_empty());
}

#[test]
fn flipped_text_byte_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b.sections.iter().position(|s| s.name.starts_with(".text.")).unwrap();
    let name = b.sections[i].name.clone();
    b.sections[i].data.to_mut()[0x21] ^= 0x40;
    let ds = diffs(&a, &b);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert!(
        ds[0].starts_with(&format!("section {name}: contents at 0x21")),
        "{ds:?}"
    );
    // The strict comparison finds the same byte in the file.
    let off = read::section_offsets(&d)[i] as usize;
    let mut flipped = d.clone();
    flipped[off + 0x21] ^= 0x40;
    let fc = read::parse(&flipped).unwrap();
    let s = culdb::diff::strict(&d, &a, &flipped, &fc).expect("strict difference");
    assert!(
        s.property
            .contains(&format!("offset {:#x} (section {name} + 0x21)", off + 0x21)),
        "{s}"
    );
}

#[test]
fn changed_binding_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .symbols
        .iter()
        .position(|s| s.binding == STB_GLOBAL && s.sym_type == STT_FUNC)
        .unwrap();
    b.symbols[i].binding = STB_WEAK;
    let name = b.symbols[i].name.clone();
    assert_eq!(diffs(&a, &b), vec![format!("symbol {name}: binding: GLOBAL vs WEAK")]);
}

#[test]
fn dropped_relocation_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .sections
        .iter()
        .position(|s| s.name.starts_with(".rela.text") && !s.relocs.is_empty())
        .unwrap();
    b.sections[i].relocs.pop();
    // Write and read back, as a real file would be.
    let bytes = write::write(&b).unwrap();
    let b = read::parse(&bytes).unwrap();
    let ds = diffs(&a, &b);
    assert!(ds.iter().any(|d| d.contains("relocation only in A")), "{ds:?}");
    assert!(
        ds.iter().any(|d| d.contains(": size: ")),
        "the section size changes too: {ds:?}"
    );
}

#[test]
fn changed_nvinfo_value_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .sections
        .iter()
        .position(|s| s.sh_type == SHT_CUDA_INFO && s.name.starts_with(".nv.info."))
        .unwrap();
    // Change the value byte of the last 4-byte field of the first SVAL entry.
    let data = b.sections[i].data.to_mut();
    let mut at = 0;
    while at + 4 <= data.len() {
        let (fmt, size) = (data[at], u16::from_le_bytes([data[at + 2], data[at + 3]]) as usize);
        if fmt == 4 {
            data[at + 4 + size - 1] ^= 0x01;
            break;
        }
        at += 4;
    }
    let ds = diffs(&a, &b);
    assert!(!ds.is_empty());
    assert!(
        ds.iter()
            .all(|d| d.starts_with(&format!("section {}", a.sections[i].name))),
        "{ds:?}"
    );
}
