//! Conformance of `culdb link` with nvlink over the whole corpus.
//!
//! Every case nvlink linked must give output equivalent to nvlink's
//! (`diff::equivalence`) once it is listed in `tests/data/conformance.txt`;
//! the list can only grow: a listed case that stops conforming fails the
//! test, and so does a conforming case that is not listed yet (so the list,
//! and README's figure, stay true). Every failing case must give nvlink's
//! diagnostics and status. Cases with PTX inputs are skipped where no
//! ptxas is installed. The same holds for the cases linked again with `-r`
//! (`conform::Mode::Relocatable`, listed in `tests/data/conformance-r.txt`).

mod common;

use std::collections::BTreeSet;

use culdb::conform;

fn listed(file: &str) -> BTreeSet<String> {
    std::fs::read_to_string(common::root().join(file))
        .expect(file)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn corpus_conforms_as_listed() {
    check_mode(conform::Mode::Final, "tests/data/conformance.txt", "successful cases");
}

#[test]
fn corpus_linked_with_r_conforms_as_listed() {
    check_mode(
        conform::Mode::Relocatable,
        "tests/data/conformance-r.txt",
        "cases linked with `-r`",
    );
}

/// Links every case of `mode`, checks it against the list in `file`, and
/// that README states "N/M <phrase>".
fn check_mode(mode: conform::Mode, file: &str, phrase: &str) {
    let listed = listed(file);
    let results: Vec<_> = conform::cases_for(&common::root().join("tests/corpus"), mode)
        .iter()
        .map(|c| conform::check_case(c, mode))
        .collect();
    let mut bad = Vec::new();
    for r in &results {
        if r.skipped.is_some() {
            eprintln!("note: {} skipped: {}", r.case, r.skipped.as_deref().unwrap_or(""));
            continue;
        }
        let want = r.expected_status != 0 || listed.contains(&r.case);
        match (want, r.conforms) {
            (true, false) => bad.push(format!(
                "{} does not conform:\n  {}",
                r.case,
                r.differences.iter().take(8).cloned().collect::<Vec<_>>().join("\n  ")
            )),
            (false, true) => bad.push(format!(
                "{} now conforms: add it to {file} and update README's figure",
                r.case
            )),
            _ => {}
        }
    }
    for name in &listed {
        if !results.iter().any(|r| &r.case == name) {
            bad.push(format!("{file} lists {name}, which is not a corpus case of this mode"));
        }
    }
    let s = conform::summarize(&results);
    eprintln!(
        "successful cases: {}/{} equivalent ({} byte-identical); failing cases: {}/{} conform; {} skipped",
        s.ok_equivalent, s.ok_total, s.ok_identical, s.failing_conforming, s.failing_total, s.skipped
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // README states the figure (when nothing was skipped, the figure is exact).
    if s.skipped == 0 {
        let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
        let figure = format!("{}/{} {phrase}", s.ok_equivalent, s.ok_total);
        assert!(readme.contains(&figure), "README.md should state \"{figure}\"");
        let strict = if mode == conform::Mode::Final {
            format!("({} byte-identical)", s.ok_identical)
        } else {
            format!("`-r`: {}/{}", s.ok_identical, s.ok_equivalent)
        };
        assert!(readme.contains(&strict), "README.md should state \"{strict}\"");
    }
}

/// Under `-g` nvlink's note names the output by its base name: nvcc -G
/// writes /tmp/tmpxft_…_dlink.sm_XX.cubin, and the bytes are those of the
/// same link written as `out.cubin` (corpus debug_paths_sm90 records the
/// inputs by their base names too).
#[test]
fn debug_output_path_is_recorded_by_its_base_name() {
    let case = common::root().join("tests/corpus/debug_paths_sm90");
    let dir = common::scratch("debug-output-path");
    let out = dir.join("deep/er/out.cubin");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_culdb"))
        .current_dir(&case)
        .args(["link", "-arch=sm_90", "-g", "./obj/../obj/paths.o", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = std::fs::read(case.join("expected/out.cubin")).unwrap();
    assert!(std::fs::read(&out).unwrap() == want, "differs from nvlink's out.cubin");
    let _ = std::fs::remove_dir_all(&dir);
}
