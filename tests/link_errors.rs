//! Every failing corpus case: `culdb link` prints nvlink's diagnostics (the
//! same text after the tool-name prefix, in the same order), exits with
//! nvlink's status, and leaves no output file behind.

mod common;

use std::path::Path;
use std::process::Command;

fn copy_case(case: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(case).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn failing_cases_fail_like_nvlink() {
    let tmp = std::env::temp_dir().join(format!("culdb-link-errors-{}", std::process::id()));
    let mut bad = Vec::new();
    let mut checked = 0;
    for case in common::corpus_cases() {
        let status: i32 = std::fs::read_to_string(case.join("expected/status"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        if status == 0 {
            continue;
        }
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let dir = tmp.join(&name);
        copy_case(&case, &dir);
        let args = std::fs::read_to_string(case.join("link.args")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_culdb"))
            .arg("link")
            .args(args.split_whitespace())
            .args(["-o", "out.cubin"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let want: String = culdb::conform::as_culdb(&std::fs::read_to_string(case.join("expected/stderr")).unwrap())
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        // nvlink's text: culdb's bracketed hints aside.
        let got: String = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(|l| format!("{}\n", culdb::link::inputs::nvlink_text(l)))
            .collect();
        if got != want {
            bad.push(format!("{name}: stderr\n--- culdb\n{got}--- nvlink (as culdb)\n{want}"));
        }
        if out.status.code() != Some(status) {
            bad.push(format!("{name}: status {:?}, nvlink {status}", out.status.code()));
        }
        if !out.stdout.is_empty() {
            bad.push(format!("{name}: stdout not empty"));
        }
        if dir.join("out.cubin").exists() {
            bad.push(format!("{name}: out.cubin left behind"));
        }
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(checked >= 23, "only {checked} failing cases checked");
}

/// A clean link writes its output and exits 0; `--json` gives one event per
/// line, from the first phase to the output.
#[test]
fn clean_link_writes_output_and_json_events() {
    let case = common::root().join("tests/corpus/extern_call_sm90");
    let dir = std::env::temp_dir().join(format!("culdb-link-merge-only-{}", std::process::id()));
    copy_case(&case, &dir);
    let out = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args([
            "link",
            "--json",
            "-arch=sm_90",
            "main.cubin",
            "lib.cubin",
            "-o",
            "out.cubin",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read(dir.join("out.cubin")).expect("out.cubin written");
    assert!(culdb::cubin::read::parse(&written).is_ok());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"phase_start"));
    assert_eq!(kinds.last(), Some(&"phase_end"));
    assert!(kinds.contains(&"output_written"));
    assert!(kinds.contains(&"symbol_mapped") && kinds.contains(&"reloc_mapped"));
    let defined: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "symbol_mapped" && e["resolution"] == "defines_undefined")
        .collect();
    let names: Vec<&str> = defined.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(
        names,
        ["bias", "add_bias"],
        "lib.cubin defines what main.cubin references"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
