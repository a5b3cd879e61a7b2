//! Conformance of `culdb link` with nvlink over the whole corpus.
//!
//! Every case nvlink linked must give output equivalent to nvlink's
//! (`diff::equivalence`) once it is listed in `tests/data/conformance.txt`;
//! the list can only grow: a listed case that stops conforming fails the
//! test, and so does a conforming case that is not listed yet (so the list,
//! and README's figure, stay true). Every failing case must give nvlink's
//! diagnostics and status. Cases with PTX inputs are skipped where no
//! ptxas is installed.

mod common;

use std::collections::BTreeSet;

use culdb::conform;

fn listed() -> BTreeSet<String> {
    std::fs::read_to_string(common::root().join("tests/data/conformance.txt"))
        .expect("tests/data/conformance.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn corpus_conforms_as_listed() {
    let listed = listed();
    let results: Vec<_> = conform::cases(&common::root().join("tests/corpus"))
        .iter()
        .map(|c| conform::check_case(c))
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
                "{} now conforms: add it to tests/data/conformance.txt and update README's figure",
                r.case
            )),
            _ => {}
        }
    }
    for name in &listed {
        if !results.iter().any(|r| &r.case == name) {
            bad.push(format!(
                "tests/data/conformance.txt lists {name}, which is not a corpus case"
            ));
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
        let figure = format!("{}/{} successful cases", s.ok_equivalent, s.ok_total);
        assert!(readme.contains(&figure), "README.md should state \"{figure}\"");
    }
}
