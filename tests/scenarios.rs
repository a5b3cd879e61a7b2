//! Scenarios (`culdb replay`): every shipped scenario replays green; they
//! agree with real nvlink where it is installed; malformed and inconsistent
//! scenarios get errors with file, line and column; recording a session
//! then replaying it reproduces its stop.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use culdb::debug::Session;
use culdb::scenario::run_line;
use culdb::scenario::{Scenario, oracle, replay};

fn shipped() -> Vec<PathBuf> {
    replay::expand(&[common::root().join("scenarios")])
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("scenario-{name}"))
}

#[test]
fn every_shipped_scenario_replays_green() {
    let files = shipped();
    assert!(
        files.len() >= 12,
        "the issue asks for at least 12 scenarios, found {}",
        files.len()
    );
    for f in &files {
        let r = replay::replay_file(f);
        assert!(r.passed(), "{}", r.text(true));
        assert!(!r.checks.is_empty(), "{} checks nothing", f.display());
    }
}

#[test]
fn shipped_scenarios_round_trip_through_ron() {
    for f in shipped() {
        let s = Scenario::load(&f).unwrap();
        let again = Scenario::parse(&f, &s.to_ron()).unwrap_or_else(|e| panic!("{e}\n{}", s.to_ron()));
        assert_eq!(s, again, "{}", f.display());
    }
}

/// Where nvlink is installed, each scenario's synthetic inputs linked by
/// nvlink and by culdb give the same status, diagnostics and equivalent output.
#[test]
fn shipped_scenarios_agree_with_nvlink() {
    let Some(nvlink) = culdb::link::find_tool("nvlink") else {
        eprintln!("skipped: no nvlink (scripts/cuda-tools.sh installs it)");
        return;
    };
    for f in shipped() {
        let s = Scenario::load(&f).unwrap();
        let d = oracle::compare(&s, &f, &nvlink).unwrap();
        assert!(d.is_empty(), "{}: {d:#?}", f.display());
    }
}

#[test]
fn replay_exit_status_serves_ci() {
    let bin = env!("CARGO_BIN_EXE_culdb");
    let root = common::root();
    let run = |args: &[&str]| Command::new(bin).args(args).current_dir(&root).output().unwrap();
    let good = run(&["replay", "scenarios/weak-by-registers.ron"]);
    assert_eq!(good.status.code(), Some(0), "{}", String::from_utf8_lossy(&good.stdout));
    assert!(String::from_utf8_lossy(&good.stdout).contains("PASS weak-by-registers"));

    let dir = scratch("status");
    let text = std::fs::read_to_string(root.join("scenarios/weak-by-registers.ron"))
        .unwrap()
        .replace("winner: \"b.cubin\"", "winner: \"a.cubin\"");
    let bad = dir.join("wrong.ron");
    std::fs::write(&bad, text).unwrap();
    let o = run(&["replay", bad.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL weak decision for scale: a.cubin wins"), "{out}");
    assert!(
        out.contains("seen: scale: winner b.cubin, rule fewer_registers"),
        "{out}"
    );

    let o = run(&["replay", "--json", bad.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["passed"], 0);
    assert_eq!(
        v["reports"][0]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["passed"] == false)
            .count(),
        1
    );

    let o = run(&["replay", dir.join("missing.ron").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[track_caller]
fn parse_err(text: &str) -> String {
    Scenario::parse(Path::new("x.ron"), text).unwrap_err().to_string()
}

#[test]
fn malformed_scenarios_name_file_line_and_column() {
    let e = parse_err("(\n  name: \"a\",\n  arch: sm_90,\n)");
    assert!(e.starts_with("x.ron:3:8: Expected string"), "{e}");
    let e = parse_err("(name: \"a\", arch: \"sm_90\", inputs: [], colour: 1)");
    assert!(e.starts_with("x.ron:1:") && e.contains("colour"), "{e}");
    let e = parse_err("(name: \"a\", arch: \"sm_91\", inputs: [])");
    assert!(e.contains("arch `sm_91`"), "{e}");
    let e = parse_err("(name: \"a\", arch: \"sm_90\", inputs: [Object(name: \"a.cubin\"), File(\"x/a.cubin\")])");
    assert!(e.contains("two inputs are named `a.cubin`"), "{e}");
    let e = parse_err("(name: \"a\", arch: \"sm_90\", inputs: [Objet(name: \"a\")])");
    assert!(e.starts_with("x.ron:1:") && e.contains("Objet"), "{e}");
}

#[track_caller]
fn object_err(object: &str) -> String {
    parse_err(&format!("(name: \"a\", arch: \"sm_90\", inputs: [Object({object})])"))
}

#[test]
fn inconsistent_synthetic_objects_are_clear_errors() {
    let e = object_err(
        "name: \"a.cubin\", functions: [(name: \"k\", size: 32)], \
         relocations: [(section: \"k\", offset: 0x20, type: \"R_CUDA_ABS32_LO_32\", symbol: \"k\")]",
    );
    assert!(
        e.contains("object `a.cubin`") && e.contains("past the end of the section (0x20 bytes)"),
        "{e}"
    );
    let e = object_err(
        "name: \"a.cubin\", functions: [(name: \"k\")], \
         relocations: [(section: \".nv.constant9\", offset: 0, type: \"R_CUDA_32\", symbol: \"k\")]",
    );
    assert!(e.contains("there is no section `.nv.constant9`"), "{e}");
    let e = object_err(
        "name: \"a.cubin\", functions: [(name: \"k\")], \
         relocations: [(section: \"k\", offset: 0, type: \"R_CUDA_ABS32_LO_32\", symbol: \"ghost\")]",
    );
    assert!(
        e.contains("names `ghost`, which this object neither defines nor lists"),
        "{e}"
    );
    let e = object_err(
        "name: \"a.cubin\", functions: [(name: \"k\")], \
         relocations: [(section: \"k\", offset: 0, type: \"R_CUDA_NOPE\", symbol: \"k\")]",
    );
    assert!(e.contains("unknown relocation type `R_CUDA_NOPE`"), "{e}");
    let e = object_err("name: \"a.cubin\", functions: [(name: \"k\", size: 24)]");
    assert!(e.contains("not a positive multiple of 16"), "{e}");
    let e = object_err("name: \"a.cubin\", functions: [(name: \"k\"), (name: \"k\")]");
    assert!(e.contains("`k` is defined twice"), "{e}");
    let e = object_err("name: \"a.cubin\", info: [(attr: \"EIATTR_REGCOUNT\", function: \"nobody\", value: 3)]");
    assert!(e.contains("not a function here"), "{e}");
    let e = object_err("name: \"a.cubin\", uft: [(function: \"f\", uuid: (1, 2))]");
    assert!(e.contains("UFT slot for `f`"), "{e}");
    let e = object_err("name: \"a.cubin\", data: [(name: \"v\", size: 2, bytes: [1, 2, 3])]");
    assert!(e.contains("3 initial bytes for a size of 2"), "{e}");
    let e = parse_err(
        "(name: \"a\", arch: \"sm_90\", inputs: [Archive(name: \"l.a\", \
         members: [(name: \"a_very_long_member_name.cubin\")])])",
    );
    assert!(e.contains("at most 15 characters"), "{e}");
}

/// Records a session with `save scenario`, replays the file: the same stop.
fn record_and_replay(mut s: Session, commands: &[&str], dir: &Path) {
    let mut stop = None;
    for c in commands {
        let o = run_line(&mut s, c);
        assert!(!o.error, "{c}: {}", o.text);
        stop = s.current().map(|(k, _)| k);
    }
    let file = dir.join("recorded.ron");
    let o = run_line(&mut s, &format!("save scenario {}", file.display()));
    assert!(!o.error, "{}", o.text);
    let sc = Scenario::load(&file).unwrap();
    assert_eq!(sc.expect.stop.as_ref().and_then(|x| x.event), stop);
    let r = replay::replay_file(&file);
    assert!(
        r.passed(),
        "{}\n{}",
        r.text(true),
        std::fs::read_to_string(&file).unwrap()
    );
    assert!(r.checks.iter().any(|c| c.what.starts_with("stopped at event")));
}

#[test]
fn recording_a_corpus_session_then_replaying_reproduces_the_stop() {
    let case = common::root().join("tests/corpus/weak_func_regs_unequal_fewer_first_sm90");
    let args: Vec<String> = std::fs::read_to_string(case.join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let dir = scratch("corpus");
    record_and_replay(
        Session::new(&args, &case).unwrap(),
        &["break weak", "continue", "step 3"],
        &dir,
    );
    let sc = Scenario::load(&dir.join("recorded.ron")).unwrap();
    assert_eq!(sc.arch, "sm_90");
    assert_eq!(sc.breakpoints, ["weak"]);
    assert_eq!(sc.script, ["continue", "step 3"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recording_a_scenario_session_keeps_its_synthetic_inputs() {
    let file = common::root().join("scenarios/bindless-texture-helper.ron");
    let sc = Scenario::load(&file).unwrap();
    let opened = replay::open(&sc, &file).unwrap();
    let dir = scratch("synthetic");
    record_and_replay(
        opened.session,
        &[
            "continue",
            "break reloc section=.text.sample_helper",
            "continue",
            "reverse-step",
        ],
        &dir,
    );
    let rec = Scenario::load(&dir.join("recorded.ron")).unwrap();
    assert_eq!(rec.inputs, sc.inputs);
    let _ = std::fs::remove_dir_all(&dir);
}

/// nvlink 13.5 (checked by hand, corpus README obs. 53): a kernel, or a
/// function it calls, without EIATTR_REGCOUNT stops the link; an uncalled
/// one does not matter (dead-code elimination removes it).
#[test]
fn a_reached_function_without_a_register_count_is_fatal() {
    let dir = scratch("regcount");
    let run = |functions: &str| {
        let file = dir.join("s.ron");
        let text =
            format!("(name: \"r\", arch: \"sm_90\", inputs: [Object(name: \"a.cubin\", functions: [{functions}])])");
        std::fs::write(&file, text).unwrap();
        let sc = Scenario::load(&file).unwrap();
        let opened = replay::open(&sc, &file).unwrap();
        let end = replay::run_to_end(&opened.session);
        let lines: Vec<String> = end.state().diagnostics.iter().map(|d| d.line()).collect();
        (end.exit_status(), lines)
    };
    let fatal = (1, vec!["culdb fatal   : Internal error: no regcount?".to_string()]);
    assert_eq!(run("(name: \"k\", kernel: true)"), fatal);
    assert_eq!(
        run("(name: \"k\", kernel: true, registers: 8, calls: [\"f\"]), (name: \"f\")"),
        fatal
    );
    assert_eq!(
        run("(name: \"k\", kernel: true, registers: 8), (name: \"f\")"),
        (0, vec![])
    );
    let _ = std::fs::remove_dir_all(&dir);
}
