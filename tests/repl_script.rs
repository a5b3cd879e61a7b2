//! `culdb repl` driven from a pipe, `culdb trace`, and tab completion.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn link_args(name: &str) -> Vec<String> {
    std::fs::read_to_string(case(name).join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn expected_status(name: &str) -> i32 {
    std::fs::read_to_string(case(name).join("expected/status"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Runs `culdb SUB <link args>` in the case's folder with `script` on stdin.
fn culdb_in(name: &str, sub: &[&str], extra: &[&str], script: &str) -> (String, String, i32) {
    let mut args: Vec<String> = sub.iter().map(|s| s.to_string()).collect();
    args.extend(link_args(name));
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(&args)
        .current_dir(case(name))
        .env("CULDB_HISTORY", std::env::temp_dir().join("culdb-test-history"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run culdb");
    // A bad command line ends culdb before it reads: the pipe may be closed.
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn scripted_repl_stops_at_the_weak_decision_and_shows_both_candidates() {
    let name = "weak_func_regs_unequal_fewer_first_sm90";
    let (out, _, status) = culdb_in(name, &["repl"], &[], "break weak\ncontinue\ninfo weak\n");
    assert!(out.contains("(culdb) break weak\nBreakpoint 1: weak\n"), "{out}");
    assert!(out.contains("Breakpoint 1 (weak)"), "{out}");
    assert!(
        out.contains("existing: weak wf in a.cubin (input #1): 24 registers, virtual sm_90"),
        "{out}"
    );
    assert!(
        out.contains("incoming: weak wf in b.cubin (input #2): 75 registers, virtual sm_90"),
        "{out}"
    );
    assert!(
        out.contains("rule: FewerRegisters: the definition using fewer registers wins"),
        "{out}"
    );
    assert!(out.contains("winner: existing (a.cubin)"), "{out}");
    // The script stopped mid-link; the exit status is the link's all the same.
    assert_eq!(status, expected_status(name));
}

#[test]
fn scripted_repl_why_names_the_input_behind_an_undefined_reference() {
    let name = "err_undefined_func_sm90";
    let (out, _, status) = culdb_in(name, &["repl"], &[], "b error\nc\nwhy add_bias\nc\nc\n");
    assert!(
        out.contains("Undefined reference to 'add_bias' in 'main.cubin'"),
        "{out}"
    );
    assert!(out.contains("main.cubin (input #0) references it first"), "{out}");
    assert!(
        out.contains("still undefined after the merge; referenced by main.cubin"),
        "{out}"
    );
    assert!(out.contains("exit status 255"), "{out}");
    assert_eq!(status, 255);
    assert_eq!(status, expected_status(name));
}

#[test]
fn scripted_repl_reports_bad_commands_and_stops_at_quit() {
    let name = "extern_call_sm90";
    let (out, _, status) = culdb_in(name, &["repl"], &[], "frobnicate\nstep\nquit\nstep\n");
    assert!(out.contains("error: unknown command `frobnicate`"), "{out}");
    assert!(out.contains("#0 [read] phase read starts"), "{out}");
    assert!(!out.contains("#1 "), "nothing runs after quit: {out}");
    assert_eq!(status, expected_status(name));
}

#[test]
fn repl_with_a_bad_command_line_fails_as_nvlink_does() {
    let name = "err_unknown_option_sm90";
    let (out, err, status) = culdb_in(name, &["repl"], &[], "step\n");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("Unknown option"), "{err}");
    assert_eq!(status, expected_status(name));
}

#[test]
fn trace_json_prints_every_event_as_a_json_line() {
    let name = "weak_func_regs_unequal_fewer_first_sm90";
    let (out, _, status) = culdb_in(name, &["trace"], &["--json"], "");
    assert_eq!(status, expected_status(name));
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect(l)).collect();
    assert!(lines.len() > 100);
    for (i, v) in lines.iter().enumerate() {
        assert_eq!(v["index"], i, "{v}");
        assert!(v["event"].is_string(), "{v}");
    }
    let weak: Vec<&serde_json::Value> = lines.iter().filter(|v| v["event"] == "weak_decision").collect();
    assert_eq!(weak.len(), 1);
    assert_eq!(weak[0]["existing"]["regcount"], 24);
    assert_eq!(weak[0]["incoming"]["regcount"], 75);
    assert_eq!(weak[0]["rule"], "fewer_registers");
    // The same events as the debugger numbers them.
    let (text, _, _) = culdb_in(name, &["trace"], &[], "");
    assert_eq!(text.lines().count(), lines.len());
    assert!(text.lines().next().unwrap().starts_with("#0 phase read starts"));
}

#[test]
fn trace_levels_choose_the_detail() {
    let name = "err_undefined_func_sm90";
    let count = |level: &str| {
        let (out, _, status) = culdb_in(name, &["trace"], &["--json", "--level", level], "");
        assert_eq!(status, 255);
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let phase = count("phase");
    assert!(
        phase
            .iter()
            .all(|v| matches!(v["event"].as_str().unwrap(), "phase_start" | "phase_end" | "diagnostic"))
    );
    assert!(
        phase.iter().any(|v| v["event"] == "diagnostic"),
        "diagnostics are always shown"
    );
    let input = count("input");
    let decision = count("decision");
    let all = count("all");
    assert!(phase.len() < input.len() && input.len() < decision.len() && decision.len() < all.len());
    assert!(decision.iter().any(|v| v["event"] == "undefined"));
    assert!(!input.iter().any(|v| v["event"] == "undefined"));
    let (_, err, status) = culdb_in(name, &["trace"], &["--level=bogus"], "");
    assert_eq!(status, 2);
    assert!(err.contains("unknown level `bogus`"), "{err}");
}

#[test]
fn completion_offers_commands_topics_and_names() {
    use culdb::repl::{Names, complete};
    let dir = case("weak_func_regs_unequal_fewer_first_sm90");
    let s = culdb::debug::Session::new(&link_args("weak_func_regs_unequal_fewer_first_sm90"), &dir).unwrap();
    let names = Names::of(&s);
    assert!(names.symbols.contains(&"wf".to_string()));
    assert!(names.sections.contains(&".text.wf".to_string()));
    assert_eq!(
        complete("rev", &names),
        (
            0,
            vec![
                "reverse-continue".to_string(),
                "reverse-next".into(),
                "reverse-step".into()
            ]
        )
    );
    assert_eq!(complete("info sy", &names), (5, vec!["symbols".to_string()]));
    assert_eq!(complete("break ph", &names), (6, vec!["phase".to_string()]));
    assert_eq!(complete("break phase la", &names), (12, vec!["layout".to_string()]));
    assert_eq!(complete("break input b.", &names).1, vec!["b.cubin".to_string()]);
    assert_eq!(complete("why w", &names).1, vec!["wf".to_string()]);
    assert_eq!(complete("x .text.w", &names).1, vec![".text.wf+".to_string()]);
    assert_eq!(
        complete("print section .text.k", &names).1,
        vec![".text.k_weak".to_string()]
    );
    assert!(
        complete("break reloc R_CUDA_ABS32_L", &names)
            .1
            .contains(&"R_CUDA_ABS32_LO_32".to_string())
    );
    assert!(complete("b symbol nosuch", &names).1.is_empty());
}

#[test]
fn scripted_session_runs_in_process_too() {
    // The REPL's script loop over a session, without the binary.
    let dir = case("weak_func_regs_unequal_fewer_first_sm90");
    let mut s = culdb::debug::Session::new(&link_args("weak_func_regs_unequal_fewer_first_sm90"), &dir).unwrap();
    let mut out = Vec::new();
    let status = culdb::repl::scripted(&mut s, "b weak\nc\nrs\nwhere\n".as_bytes(), &mut out);
    let out = String::from_utf8(out).unwrap();
    // The weak decision's number, then one event before it.
    let k: usize = out
        .split("Breakpoint 1 (weak)\n#")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("stopped at the weak decision");
    assert!(out.contains(&format!("(culdb) rs\n#{} ", k - 1)), "{out}");
    assert!(out.contains(&format!("clock {k} (event #{})", k - 1)), "{out}");
    assert_eq!(status, expected_status("weak_func_regs_unequal_fewer_first_sm90"));
}
