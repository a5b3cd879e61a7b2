//! The command language: every command through `cmd::run_line`, as the
//! REPL, the TUI and scenario scripts run it, on cubin-only corpus links.

mod common;

use std::path::PathBuf;

use culdb::cmd::{self, COMMANDS, Command, Output};
use culdb::debug::Session;
use culdb::link::event::Event;
use culdb::scenario::run_line;

fn session(name: &str) -> Session {
    let dir: PathBuf = common::root().join("tests/corpus").join(name);
    let args: Vec<String> = std::fs::read_to_string(dir.join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    Session::new(&args, &dir).unwrap()
}

const WEAK: &str = "weak_func_regs_unequal_fewer_first_sm90";
const UNDEF: &str = "err_undefined_func_sm90";
const EXTERN: &str = "extern_call_sm90";

#[track_caller]
fn ok(s: &mut Session, line: &str) -> String {
    let o = run_line(s, line);
    assert!(!o.error, "`{line}` failed: {}", o.text);
    o.text
}

#[track_caller]
fn err(s: &mut Session, line: &str) -> String {
    let o = run_line(s, line);
    assert!(o.error, "`{line}` should fail, printed: {}", o.text);
    assert!(!o.text.is_empty());
    o.text
}

/// The commands this file tests, one test (or more) each; the list must
/// cover the language.
const TESTED: &[&str] = &[
    "step",
    "next",
    "finish",
    "continue",
    "run",
    "reverse-step",
    "reverse-next",
    "reverse-continue",
    "goto",
    "restart",
    "break",
    "watch",
    "delete",
    "disable",
    "enable",
    "info",
    "print",
    "x",
    "why",
    "why-kept",
    "why-pulled",
    "explain",
    "where",
    "save",
    "help",
    "quit",
];

#[test]
fn every_command_is_tested_and_has_help() {
    for c in COMMANDS {
        assert!(TESTED.contains(&c.name), "command {} has no test here", c.name);
        let h = cmd::help(Some(c.name)).unwrap();
        assert!(h.starts_with(&format!("usage: {}", c.name)), "{h}");
        for a in c.aliases {
            assert_eq!(cmd::lookup(a).unwrap().name, c.name, "alias {a}");
        }
    }
    assert_eq!(TESTED.len(), COMMANDS.len());
    let mut s = session(WEAK);
    let all = ok(&mut s, "help");
    for c in COMMANDS {
        assert!(all.contains(c.name), "help lists {}", c.name);
    }
    assert!(ok(&mut s, "h break").contains("break weak [NAME]"));
    assert!(err(&mut s, "help nosuch").contains("unknown command"));
}

#[test]
fn gdb_abbreviations_and_prefixes() {
    for (a, full) in [
        ("s", "step"),
        ("n", "next"),
        ("c", "continue"),
        ("b", "break"),
        ("i", "info"),
        ("p", "print"),
        ("x", "x"),
        ("fin", "finish"),
        ("rs", "reverse-step"),
        ("rn", "reverse-next"),
        ("rc", "reverse-continue"),
        ("d", "delete"),
        ("q", "quit"),
        ("expl", "explain"),
        ("reverse-c", "reverse-continue"),
    ] {
        assert_eq!(cmd::lookup(a).unwrap().name, full, "{a}");
    }
    assert!(cmd::lookup("re").unwrap_err().contains("ambiguous"));
    assert_eq!(cmd::parse("  # a comment").unwrap(), None);
    assert_eq!(cmd::parse("").unwrap(), None);
    assert_eq!(cmd::parse("s 3").unwrap(), Some(Command::Step(3)));
}

#[test]
fn step() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "step").starts_with("#0 [read] phase read starts"));
    assert!(ok(&mut s, "s 2").starts_with("#2 [read] input #1 a.cubin"));
    assert_eq!(s.position(), 3);
    err(&mut s, "step 0");
    err(&mut s, "step x");
    err(&mut s, "step 1 2");
    ok(&mut s, "goto end");
    assert!(err(&mut s, "step").contains("finished"));
}

#[test]
fn next() {
    let mut s = session(WEAK);
    ok(&mut s, "n");
    assert!(ok(&mut s, "next").contains("input #0 k.cubin"));
    assert!(ok(&mut s, "next 2").contains("input #2 b.cubin"));
    err(&mut s, "next -1");
}

#[test]
fn finish() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "finish").contains("phase read ends"));
    assert!(ok(&mut s, "fin").contains("phase merge ends"));
    err(&mut s, "finish now");
}

#[test]
fn continue_and_run() {
    let mut s = session(UNDEF);
    let out = ok(&mut s, "continue");
    assert!(out.contains("exit status 255"), "{out}");
    assert!(err(&mut s, "c").contains("finished"));
    ok(&mut s, "break error");
    let out = ok(&mut s, "run");
    assert!(out.contains("Breakpoint 1 (error)"), "{out}");
    assert!(
        out.contains("Undefined reference to 'add_bias' in 'main.cubin'"),
        "{out}"
    );
    assert!(ok(&mut s, "r").contains("'add_bias'"), "run restarts");
    err(&mut s, "run now");
}

#[test]
fn reverse_step_next_and_continue() {
    let mut s = session(WEAK);
    ok(&mut s, "s 5");
    assert!(ok(&mut s, "reverse-step").starts_with("#3 "));
    assert!(ok(&mut s, "rs 2").starts_with("#1 "));
    assert!(ok(&mut s, "rs 9").contains("beginning"));
    assert_eq!(s.position(), 0);
    ok(&mut s, "n 3");
    let at = s.position();
    assert!(ok(&mut s, "reverse-next").contains("input #0 k.cubin"));
    assert!(s.position() < at);
    ok(&mut s, "b weak");
    ok(&mut s, "goto end");
    let out = ok(&mut s, "reverse-continue");
    assert!(
        out.contains("Breakpoint 1 (weak)") && out.contains("winner: existing (a.cubin)"),
        "{out}"
    );
    assert!(ok(&mut s, "rc").contains("beginning"));
    err(&mut s, "rc 2");
}

#[test]
fn goto_and_restart() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "goto 4").starts_with("#4 "));
    assert!(ok(&mut s, "goto #2").starts_with("#2 "));
    assert!(ok(&mut s, "goto end").contains("The link finished"));
    let n = s.position();
    let e = err(&mut s, "goto 999999");
    assert!(e.contains(&format!("only {n} events")), "{e}");
    err(&mut s, "goto");
    err(&mut s, "goto x");
    assert!(ok(&mut s, "restart").contains("beginning"));
    assert_eq!(s.position(), 0);
    err(&mut s, "restart 1");
}

#[test]
fn break_commands() {
    let mut s = session(WEAK);
    assert_eq!(ok(&mut s, "break phase merge"), "Breakpoint 1: phase merge\n");
    assert!(ok(&mut s, "b input a.cubin").starts_with("Breakpoint 2"));
    assert!(ok(&mut s, "b symbol wf if event == weak_decision").contains("if event == weak_decision"));
    ok(&mut s, "b weak wf if incoming.regcount > 10");
    ok(&mut s, "b reloc R_CUDA_64 section=.debug_frame");
    ok(&mut s, "b reloc offset=0x10");
    ok(&mut s, "b error");
    ok(&mut s, "b dce");
    ok(&mut s, "b phase layout.bindless");
    err(&mut s, "break");
    err(&mut s, "break phase nope");
    err(&mut s, "break phase merge.weak");
    err(&mut s, "break input");
    err(&mut s, "break reloc R_CUDA_NOPE");
    err(&mut s, "break weak a b");
    err(&mut s, "break symbol wf if");
    err(&mut s, "break symbol wf if x ==");
    err(&mut s, "break error now");
    assert_eq!(s.breakpoints().len(), 9);
    ok(&mut s, "delete 5 6");
    // a.cubin is loaded in the read phase, before the merge starts.
    let t = ok(&mut s, "c");
    assert!(
        t.contains("Breakpoint 2 (input a.cubin)") && t.contains("[read]"),
        "{t}"
    );
    assert!(ok(&mut s, "c").contains("Breakpoint 1 (phase merge)"));
    let t = ok(&mut s, "c");
    assert!(
        t.contains("Breakpoint 2 (input a.cubin)") && t.contains("merge input #1"),
        "{t}"
    );
}

#[test]
fn watch() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "watch symbol wf").contains("not in the link yet"));
    let out = ok(&mut s, "c");
    assert!(out.starts_with("Watchpoint 1: symbol wf changed"), "{out}");
    assert!(out.contains("old: (no such symbol)") && out.contains("UNDEF"), "{out}");
    let out = ok(&mut s, "c");
    assert!(out.contains("a.cubin") && out.contains(".text.wf"), "{out}");
    assert!(ok(&mut s, "watch wf").contains("now wf in .text.wf, from a.cubin"));
    err(&mut s, "watch");
    err(&mut s, "watch symbol");
}

#[test]
fn delete_disable_enable() {
    let mut s = session(WEAK);
    ok(&mut s, "b weak");
    ok(&mut s, "b error");
    assert_eq!(ok(&mut s, "disable 1"), "disabled breakpoint 1\n");
    assert!(ok(&mut s, "info breakpoints").contains("1    n"));
    assert!(
        ok(&mut s, "c").contains("The link finished"),
        "disabled weak breakpoint does not stop"
    );
    ok(&mut s, "enable 1");
    assert!(ok(&mut s, "run").contains("Breakpoint 1"));
    assert!(err(&mut s, "enable 7").contains("no breakpoint 7"));
    err(&mut s, "disable");
    err(&mut s, "disable x");
    assert_eq!(ok(&mut s, "delete 1"), "deleted breakpoint 1\n");
    err(&mut s, "delete 1");
    assert_eq!(ok(&mut s, "d"), "deleted 1 breakpoint(s)\n");
    assert!(ok(&mut s, "i b").contains("no breakpoints"));
}

#[test]
fn info_topics() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "info inputs").contains("no inputs"));
    assert!(ok(&mut s, "info uft").contains("UFT: none in this link"));
    assert!(ok(&mut s, "info bindless").contains("BINDLESS: none in this link"));
    assert!(ok(&mut s, "info symbols").contains("no output symbols"));
    assert!(ok(&mut s, "info weak").contains("no weak decisions"));
    ok(&mut s, "b weak");
    ok(&mut s, "c");
    let t = ok(&mut s, "info inputs");
    assert!(t.contains("#1   a.cubin") && t.contains("sm_90"), "{t}");
    let t = ok(&mut s, "info sections");
    assert!(t.contains(".text.wf"), "{t}");
    let t = ok(&mut s, "info symbols wf");
    assert!(t.contains("WEAK") && t.contains("a.cubin") && t.contains(" 24 "), "{t}");
    assert!(ok(&mut s, "info symbols nosuch").contains("no symbol matches"));
    let t = ok(&mut s, "info maps a.cubin");
    assert!(t.contains("map_symbol_index") && t.contains("wf"), "{t}");
    assert!(ok(&mut s, "info maps #0").contains("input #0 k.cubin"));
    err(&mut s, "info maps nosuch.cubin");
    let t = ok(&mut s, "info weak");
    assert!(
        t.contains("24 registers") && t.contains("75 registers") && t.contains("FewerRegisters"),
        "{t}"
    );
    ok(&mut s, "info relocs");
    err(&mut s, "info relocs .nosuch");
    // ptxas gives every cubin the unified-table placeholder symbols.
    assert!(ok(&mut s, "info uft").contains("__UFT_OFFSET"));
    assert!(ok(&mut s, "info udt").contains("__UDT_OFFSET"));
    ok(&mut s, "info bindless");
    ok(&mut s, "info callgraph");
    assert!(ok(&mut s, "info layout").contains(".text.wf"));
    let t = ok(&mut s, "info events 3");
    assert!(t.contains("=> #") && t.contains("weak decision"), "{t}");
    assert_eq!(t.lines().count(), 4);
    ok(&mut s, "info events all");
    assert!(ok(&mut s, "info events 0-2").contains("#2 "));
    err(&mut s, "info events x");
    assert!(ok(&mut s, "info status").contains("phase merge"));
    ok(&mut s, "goto end");
    let t = ok(&mut s, "info relocs .debug_frame");
    assert!(t.contains("R_CUDA_64"), "{t}");
    err(&mut s, "info");
    err(&mut s, "info nosuch");
    err(&mut s, "info sections extra");
    assert!(ok(&mut s, "i sym k_weak").contains("k_weak"));
}

#[test]
fn print_commands() {
    let mut s = session(UNDEF);
    err(&mut s, "print symbol add_bias");
    ok(&mut s, "goto end");
    let t = ok(&mut s, "print symbol add_bias");
    assert!(t.contains("section UNDEF") && t.contains("main.cubin"), "{t}");
    let t = ok(&mut s, "p add_bias");
    assert!(t.contains("symbol -"), "{t}");
    let t = ok(&mut s, "print section .text.k_main");
    assert!(
        t.contains("type PROGBITS") && t.contains("from input #0 main.cubin"),
        "{t}"
    );
    assert!(ok(&mut s, "print section 1").contains("section [1]"));
    assert!(ok(&mut s, "p 1").contains("section [1]")); // not a symbol: a section
    let t = ok(&mut s, "print reloc #0");
    assert!(t.contains("R_CUDA_"), "{t}");
    err(&mut s, "print reloc #9999");
    err(&mut s, "print nosuch");
    err(&mut s, "print");
    err(&mut s, "print symbol");
}

#[test]
fn examine_bytes_with_relocations_marked() {
    let mut s = session(EXTERN);
    ok(&mut s, "goto end");
    let t = ok(&mut s, "x .text.k_main+0x40 0x40");
    assert!(t.starts_with(".text.k_main ["), "{t}");
    assert!(
        t.contains("00000050:") && t.contains("^^") && t.contains("R_CUDA_ABS32_LO_32"),
        "{t}"
    );
    let t = ok(&mut s, "x .text.k_main");
    assert_eq!(
        t.lines().filter(|l| l.starts_with("000000")).count(),
        4,
        "64 bytes by default: {t}"
    );
    err(&mut s, "x .text.k_main+0x99999");
    err(&mut s, "x .nosuch+0");
    err(&mut s, "x .text.k_main+zz");
    err(&mut s, "x");
    err(&mut s, "x .text.k_main 0x10 extra");
}

#[test]
fn why_names_the_referencing_input_of_an_undefined_symbol() {
    let mut s = session(UNDEF);
    err(&mut s, "why add_bias"); // nothing has happened yet
    ok(&mut s, "b error");
    ok(&mut s, "c");
    let t = ok(&mut s, "why add_bias");
    assert!(t.contains("main.cubin (input #0) references it"), "{t}");
    assert!(t.contains("referenced by main.cubin: reported as an error"), "{t}");
    assert!(t.contains("undefined; first referenced by main.cubin"), "{t}");
    err(&mut s, "why");
    err(&mut s, "why nosuch_symbol");
}

#[test]
fn why_tells_the_weak_rule_and_the_replaced_definition() {
    let mut s = session("weak_func_regs_unequal_fewer_second_sm90");
    ok(&mut s, "goto end");
    let t = ok(&mut s, "why wf");
    assert!(t.contains("a.cubin (input #1) defines it"), "{t}");
    assert!(t.contains("rule: FewerRegisters"), "{t}");
    assert!(t.contains("winner: incoming (b.cubin)"), "{t}");
    assert!(t.contains("defined by b.cubin"), "{t}");
}

#[test]
fn why_names_the_archive_member() {
    let mut s = session("dynpar_cudadevrt_sm90");
    ok(&mut s, "goto end");
    let defined: Vec<String> = s
        .state()
        .globals
        .iter()
        .filter(|g| g.input == 1 && g.is_defined())
        .map(|g| g.name.to_string())
        .collect();
    let name = defined.first().expect("a symbol from libcudadevrt.a");
    let t = ok(&mut s, &format!("why {name}"));
    assert!(t.contains("libcudadevrt.a"), "{t}");
    assert!(t.contains("member cuda_device_runtime.o"), "{t}");
}

#[test]
fn explain_a_relocation() {
    let mut s = session(EXTERN);
    ok(&mut s, "b phase relocate");
    ok(&mut s, "c");
    let t = ok(&mut s, "explain #0");
    assert!(t.contains("S = ") && t.contains("A = 0x0"), "{t}");
    assert!(t.contains("descriptor"), "{t}");
    assert!(t.contains("has not handled it yet"), "{t}");
    ok(&mut s, "goto end");
    let t = ok(&mut s, "explain .text.k_main+0x90");
    assert!(
        t.contains("[relocate]") || t.contains(" kept ") || t.contains("applied"),
        "{t}"
    );
    // Every relocation the phase handled is shown with its event.
    let n = s.state().relocs.len();
    for i in 0..n {
        let t = ok(&mut s, &format!("explain #{i}"));
        let handled = s
            .events()
            .iter()
            .any(|e| matches!(e, Event::Reloc(_)) && serde_json::to_value(e).unwrap()["index"] == i);
        if handled {
            assert!(!t.contains("has not handled it yet"), "{t}");
        }
    }
    err(&mut s, "explain #999");
    err(&mut s, "explain .text.k_main+0x3");
    err(&mut s, "explain");
}

#[test]
fn where_and_quit() {
    let mut s = session(WEAK);
    assert!(ok(&mut s, "where").contains("beginning"));
    ok(&mut s, "s 3");
    let t = ok(&mut s, "where");
    assert!(t.starts_with("clock 3 (event #2), phase read"), "{t}");
    err(&mut s, "where now");
    let o: Output = run_line(&mut s, "quit");
    assert!(o.quit && !o.error);
    assert!(run_line(&mut s, "q").quit);
    err(&mut s, "quit now");
}

#[test]
fn bad_input_never_panics() {
    let mut s = session(WEAK);
    for line in [
        "b reloc section=",
        "b symbol '",
        "b weak if a == \"x",
        "x +",
        "x +0x",
        "x [999]+0",
        "print reloc .text+",
        "info events 5-2",
        "info events 99999999999999999999",
        "goto 18446744073709551615",
        "s 18446744073709551615",
        "explain +",
        "why *",
        "\u{1F600}",
        "break phase .",
    ] {
        let _ = run_line(&mut s, line);
    }
}

#[test]
fn save_scenario() {
    let mut s = session(WEAK);
    ok(&mut s, "break weak");
    ok(&mut s, "continue");
    let dir = std::env::temp_dir().join(format!("culdb-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rec.ron");
    let said = ok(&mut s, &format!("save scenario {}", file.display()));
    assert!(said.contains("1 breakpoint(s), 1 command(s)"), "{said}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"weak\"") && text.contains("\"continue\""), "{text}");
    // `save` is not journalled: saving twice gives the same scenario.
    ok(&mut s, &format!("save scenario {}", file.display()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert!(err(&mut s, "save").contains("usage: save scenario FILE"));
    assert!(err(&mut s, "save scenario").contains("usage"));
    assert!(err(&mut s, &format!("save scenario {}/no/such/dir/x.ron", dir.display())).contains("cannot write"));
    let _ = std::fs::remove_dir_all(&dir);
}
