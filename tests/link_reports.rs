//! The link reports (`culdb link -Map`, `culdb size`, `why-kept`,
//! `why-pulled`) checked against the cubins they describe: the map's
//! section rows against the written file's section headers, the size
//! report's rows against the file size, keep chains against every function
//! of the output.

mod common;

use std::path::{Path, PathBuf};

use culdb::cubin::consts::STT_FUNC;
use culdb::link::state::query::STO_ENTRY as STO_ENTRY_BIT;
use culdb::report::keep::KeepGraph;
use culdb::report::size::{self, Dim};
use culdb::report::{map, run};

fn args_of(case: &Path) -> Vec<String> {
    std::fs::read_to_string(case.join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The corpus cases nvlink linked (status 0) that culdb links without ptxas.
fn linked_cases() -> Vec<(PathBuf, run::LinkRun)> {
    common::corpus_cases()
        .into_iter()
        .filter(|c| std::fs::read_to_string(c.join("expected/status")).is_ok_and(|s| s.trim() == "0"))
        .filter_map(|c| {
            let r = run::link(&args_of(&c), &c).ok()?;
            (r.status == 0 && r.output.is_some()).then_some((c, r))
        })
        .collect()
}

#[test]
fn map_sections_match_the_written_cubin() {
    let cases = linked_cases();
    assert!(cases.len() > 50, "only {} corpus cases linked", cases.len());
    for (case, r) in &cases {
        let bytes = r.output.as_deref().unwrap();
        let m = map::build(r, bytes, None).unwrap();
        let c = culdb::cubin::read::parse(bytes).unwrap();
        let offsets = culdb::cubin::read::section_offsets(bytes);
        let name = common::rel(case);
        assert_eq!(m.sections.len(), c.sections.len() - 1, "{name}: one row per section");
        assert_eq!(m.file_size, bytes.len() as u64);
        for row in &m.sections {
            let s = &c.sections[row.index];
            assert_eq!(row.name, s.name, "{name}: section {}", row.index);
            assert_eq!(row.size, s.size(), "{name}: size of {}", row.name);
            assert_eq!(row.align, s.align, "{name}: align of {}", row.name);
            assert_eq!(row.vma, s.addr, "{name}: address of {}", row.name);
            assert_eq!(row.offset, offsets[row.index], "{name}: offset of {}", row.name);
            for i in &row.inputs {
                assert!(
                    i.section_offset + i.size <= row.size,
                    "{name}: {} of {} runs past it",
                    i.input,
                    row.name
                );
                if row.size > 0 && !row.sh_type.contains("NOBITS") {
                    assert_eq!(i.offset, row.offset + i.section_offset, "{name}: {}", row.name);
                }
                for y in &i.symbols {
                    let found = c.symbols.iter().any(|x| {
                        x.name == y.name && x.shndx as usize == row.index && (x.value, x.size) == (y.value, y.size)
                    });
                    assert!(found, "{name}: {} in {}", y.name, row.name);
                    assert!(
                        y.value >= i.section_offset && y.value <= i.section_offset + i.size,
                        "{name}: {} outside its input's piece",
                        y.name
                    );
                }
            }
        }
    }
}

#[test]
fn map_option_leaves_the_output_alone() {
    for case in [
        "dynpar_cudadevrt_sm90",
        "archive_hostobj_lx_sm90",
        "call_graph_4obj_sm90",
    ] {
        let dir = common::root().join("tests/corpus").join(case);
        let tmp = common::scratch(&format!("map-{case}"));
        let plain = tmp.join("plain.cubin");
        let mapped = tmp.join("mapped.cubin");
        let text = tmp.join("out.map");
        let json = tmp.join("out.map.json");
        let link = |extra: &[&str], out: &Path| {
            let mut a: Vec<String> = vec!["link".into()];
            a.extend(extra.iter().map(|s| s.to_string()));
            a.extend(args_of(&dir));
            a.extend(["-o".to_string(), out.display().to_string()]);
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_culdb"))
                .args(&a)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(o.status.success(), "{case}: {}", String::from_utf8_lossy(&o.stderr));
        };
        link(&[], &plain);
        link(&["-Map", text.to_str().unwrap()], &mapped);
        assert_eq!(
            std::fs::read(&plain).unwrap(),
            std::fs::read(&mapped).unwrap(),
            "{case}"
        );
        link(&[&format!("--map-json={}", json.display())], &mapped);
        assert_eq!(
            std::fs::read(&plain).unwrap(),
            std::fs::read(&mapped).unwrap(),
            "{case}"
        );
        let t = std::fs::read_to_string(&text).unwrap();
        assert!(t.contains("VMA") && t.contains(".text."), "{case}: {t}");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert!(v["sections"].as_array().is_some_and(|s| !s.is_empty()));
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

fn check_sum(what: &str, bytes: &[u8], pieces: &[size::Piece]) {
    let mut at = 0;
    for p in pieces {
        assert_eq!(p.offset, at, "{what}: pieces are contiguous");
        at += p.size;
    }
    assert_eq!(at, bytes.len() as u64, "{what}: pieces cover the file");
    for d in [
        Dim::Section,
        Dim::Kind,
        Dim::Input,
        Dim::Member,
        Dim::Kernel,
        Dim::Symbol,
    ] {
        let total: u64 = size::tree(pieces, &[d]).iter().map(|r| r.size).sum();
        assert_eq!(total, bytes.len() as u64, "{what}: by {}", d.name());
    }
}

#[test]
fn size_adds_up_to_the_file_size() {
    let mut n = 0;
    for case in common::corpus_cases() {
        let Ok(rd) = std::fs::read_dir(case.join("expected")) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(d) = std::fs::read(&p) else { continue };
            if !culdb::cubin::read::is_cubin(&d) {
                continue;
            }
            let pieces = size::pieces(&d, None).unwrap();
            check_sum(&common::rel(&p), &d, &pieces);
            n += 1;
        }
    }
    assert!(n > 100, "{n} nvlink outputs");
    for (case, r) in linked_cases() {
        let d = r.output.as_deref().unwrap();
        check_sum(&common::rel(&case), d, &size::pieces(d, Some(&r)).unwrap());
    }
}

#[test]
fn size_never_panics_on_bad_files() {
    let good = std::fs::read(common::root().join("tests/corpus/dynpar_cudadevrt_sm90/expected/out.cubin")).unwrap();
    for cut in [0, 3, 63, 64, 100, good.len() / 2, good.len() - 1] {
        let _ = size::pieces(&good[..cut], None);
    }
    let mut bad = good.clone();
    bad[0x3c] = 0xff; // e_shnum
    assert!(size::pieces(&bad, None).is_err());
}

#[test]
fn size_diff_explains_what_grew() {
    let c = |n: &str| common::root().join("tests/corpus").join(n).join("link.args");
    let o = common::culdb(&[
        "size",
        "--diff",
        "--by",
        "symbol",
        c("kernels_used_sm90").to_str().unwrap(),
        c("call_graph_4obj_sm90").to_str().unwrap(),
    ]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(t.contains("TOTAL") && t.contains("new; kept by"), "{t}");
}

/// Every function of the output has a chain ending in a root.
#[test]
fn every_output_function_is_kept_by_a_chain() {
    for case in [
        "dynpar_cudadevrt_sm90",
        "archive_hostobj_lx_sm90",
        "archive_nvcc_lib_sm80",
        "call_graph_4obj_sm90",
        "kernels_used_sm90",
        "host_obj_rdc_sm90",
        "func_ptr_sm90",
        "debug_no_dce_sm90",
    ] {
        let dir = common::root().join("tests/corpus").join(case);
        let r = run::link(&args_of(&dir), &dir).unwrap();
        assert_eq!(r.status, 0, "{case}: {:?}", r.diagnostics);
        let g = KeepGraph::of(&r);
        let c = culdb::cubin::read::parse(r.output.as_deref().unwrap()).unwrap();
        let mut n = 0;
        for s in c.symbols.iter().filter(|s| s.sym_type == STT_FUNC && s.is_defined()) {
            let k = g.why_kept(&s.name);
            assert_eq!(k.status, "kept", "{case}: {}: {k:?}", s.name);
            let root = k
                .chain
                .first()
                .unwrap_or_else(|| panic!("{case}: {} has no chain", s.name));
            assert_eq!(k.chain.last().unwrap().symbol, s.name);
            let root_is_kernel = c
                .symbol_by_name(&root.symbol)
                .is_some_and(|(_, y)| y.other & STO_ENTRY_BIT != 0);
            assert!(
                (root_is_kernel && root.via.starts_with("kernel"))
                    || root.via.starts_with("address held by data")
                    || root.via.starts_with("-g")
                    || root.via.starts_with("-r"),
                "{case}: {} kept by {root:?}",
                s.name
            );
            n += 1;
        }
        assert!(n > 0, "{case}: no functions");
    }
}

#[test]
fn removed_functions_say_why() {
    let dir = common::root().join("tests/corpus/dynpar_cudadevrt_sm90");
    let r = run::link(&args_of(&dir), &dir).unwrap();
    let k = KeepGraph::of(&r).why_kept("__cudaCDP2LaunchDevice");
    assert_eq!(k.status, "removed");
    assert!(k.reason.unwrap().contains("no kept kernel reaches it"));
}

#[test]
fn why_pulled_names_the_rule_and_the_reference() {
    let dir = common::root().join("tests/corpus/dynpar_cudadevrt_sm90");
    let r = run::link(&args_of(&dir), &dir).unwrap();
    let v = culdb::report::keep::why_pulled(&r, "cuda_device_runtime.o");
    assert_eq!(v.len(), 1);
    assert!(v[0].linked && v[0].rule.contains("system library member"), "{v:?}");
    assert!(
        v[0].resolves
            .iter()
            .any(|(s, by)| s.starts_with("__cudaCDP2") && by == "dp.cubin")
    );
    let dir = common::root().join("tests/corpus/archive_hostobj_lx_sm90");
    let r = run::link(&args_of(&dir), &dir).unwrap();
    let members: Vec<String> = r
        .state
        .inputs
        .iter()
        .map(|i| i.name.clone())
        .filter(|n| n.contains(".a:"))
        .collect();
    assert!(!members.is_empty());
    for m in members {
        let v = culdb::report::keep::why_pulled(&r, &m);
        assert!(v[0].rule.contains("every host-object member"), "{v:?}");
    }
}

#[test]
fn cli_why_kept_and_pulled() {
    let args = common::root().join("tests/corpus/dynpar_cudadevrt_sm90/link.args");
    let a = args.to_str().unwrap();
    let o = common::culdb(&["why-kept", "--json", a, "--", "__cudaCDP2LaunchDeviceV2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["chain"][0]["symbol"], "_Z6parentPii");
    let o = common::culdb(&["why-pulled", a, "--", "cuda_device_runtime.o"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("linked"));
    let o = common::culdb(&["why-kept", a, "--", "no_such_symbol"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn repl_commands() {
    let dir = common::root().join("tests/corpus/dynpar_cudadevrt_sm90");
    let mut s = culdb::debug::Session::new(&args_of(&dir), &dir).unwrap();
    let o = culdb::cmd::run_line(&mut s, "why-kept child");
    assert!(!o.error && o.text.contains("root _Z5childPii"), "{}", o.text);
    let o = culdb::cmd::run_line(&mut s, "why-pulled cuda_device_runtime.o");
    assert!(!o.error && o.text.contains("__cudaCDP2"), "{}", o.text);
    assert!(culdb::cmd::run_line(&mut s, "why-kept nosuch").error);
    assert!(culdb::cmd::run_line(&mut s, "why-pulled nosuch.o").error);
}
