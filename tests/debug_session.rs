//! The debugger engine: stepping, reverse movement by checkpoint and
//! replay, breakpoints and watchpoints, over cubin-only corpus links.

mod common;

use std::path::{Path, PathBuf};

use culdb::debug::{Hit, Kind, Session, Stop, digest};
use culdb::link::event::{Event, Phase};

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn args_of(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("link.args"))
        .expect("link.args")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn session(name: &str) -> Session {
    let dir = case(name);
    Session::new(&args_of(&dir), &dir).expect("link args parse")
}

/// The events of a straight run, and the state digest after each event
/// (the state after the linker step that produced it) where `want(clock)`;
/// clock 0 is the state before any event.
fn straight_where(name: &str, want: impl Fn(usize) -> bool) -> (Vec<Event>, Vec<Option<u64>>) {
    let dir = case(name);
    let mut l = culdb::debug::linker_for(&args_of(&dir), &dir).expect("args");
    let mut events = Vec::new();
    let mut prints = vec![Some(digest(l.state()))];
    loop {
        let s = l.step();
        let n = s.events.len();
        let fp = (0..n).any(|i| want(events.len() + 1 + i)).then(|| digest(l.state()));
        for e in s.events {
            events.push(e);
            prints.push(fp.filter(|_| want(events.len())));
        }
        if s.finished {
            return (events, prints);
        }
    }
}

fn straight(name: &str) -> (Vec<Event>, Vec<Option<u64>>) {
    straight_where(name, |_| true)
}

/// Cases whose inputs are all cubins (no ptxas needed), by link.args.
fn cubin_only_cases() -> Vec<String> {
    common::corpus_cases()
        .into_iter()
        .filter(|c| args_of(c).iter().all(|a| a.starts_with('-') || a.ends_with(".cubin")))
        .map(|c| c.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn reverse_stepping_over_a_whole_link_returns_identical_state() {
    for name in [
        "weak_func_regs_unequal_fewer_first_sm90",
        "call_graph_4obj_sm90",
        "err_undefined_func_sm90",
    ] {
        let (events, prints) = straight(name);
        assert!(events.len() > 10, "{name}: {} events", events.len());
        let mut s = session(name);
        s.set_checkpoint_interval(7);
        // Forward to the end, one event at a time, checking each state.
        let mut n = 0;
        while s.step() != Stop::End {
            n += 1;
            assert_eq!(s.position(), n);
            assert_eq!(Some(digest(s.state())), prints[n], "{name}: forward at clock {n}");
        }
        assert_eq!(n, events.len(), "{name}");
        assert_eq!(s.events(), &events[..], "{name}: same events as a straight run");
        // Back to the start, one event at a time.
        while s.position() > 0 {
            s.reverse_step();
            let p = s.position();
            assert_eq!(Some(digest(s.state())), prints[p], "{name}: reverse at clock {p}");
            assert_eq!(
                s.current().map(|(k, e)| (k, e.clone())),
                p.checked_sub(1).map(|k| (k, events[k].clone()))
            );
        }
        assert_eq!(s.reverse_step(), Stop::Start);
        // Jumps back and forth.
        let len = events.len();
        let mut k = 1usize;
        for _ in 0..40 {
            k = (k * 7919 + 13) % len;
            assert_eq!(s.goto(k), Stop::Done);
            assert_eq!(s.position(), k + 1);
            assert_eq!(Some(digest(s.state())), prints[k + 1], "{name}: goto {k}");
        }
    }
}

#[test]
fn every_cubin_only_corpus_link_replays_to_the_same_state() {
    let cases = cubin_only_cases();
    assert!(cases.len() > 40, "{} cases", cases.len());
    for name in cases {
        let dir = case(&name);
        if Session::new(&args_of(&dir), &dir).is_err() {
            continue; // command-line errors: nothing to step
        }
        let n = straight_where(&name, |_| false).0.len();
        let ks = [n / 2, 0, n - 1, n / 3];
        let wanted = |c: usize| c == 0 || c == n || ks.iter().any(|k| k + 1 == c);
        let (events, prints) = straight_where(&name, wanted);
        let mut s = session(&name);
        s.set_checkpoint_interval(5);
        while s.cont() != Stop::End {}
        assert_eq!(s.events(), &events[..], "{name}");
        assert_eq!(Some(digest(s.state())), prints[events.len()], "{name}: end");
        for k in ks {
            s.goto(k);
            assert_eq!(Some(digest(s.state())), prints[k + 1], "{name}: goto {k}");
        }
        s.restart();
        assert_eq!(s.position(), 0);
        assert_eq!(Some(digest(s.state())), prints[0], "{name}: restart");
    }
}

#[test]
fn checkpoints_stay_bounded_and_replay_stays_exact_on_the_largest_case() {
    // dynpar_cudadevrt_sm90 pulls members out of the real libcudadevrt.a.
    let name = "dynpar_cudadevrt_sm90";
    let sampled = |c: usize| c % 97 == 1;
    let (events, prints) = straight_where(name, sampled);
    assert!(events.len() > 3000, "{} events", events.len());
    let mut s = session(name);
    s.set_checkpoint_interval(1);
    assert_eq!(s.cont(), Stop::End);
    assert_eq!(s.events(), &events[..]);
    assert!(s.checkpoint_count() <= 65, "{} checkpoints", s.checkpoint_count());
    for clock in (0..=events.len()).rev().filter(|&c| sampled(c)) {
        s.seek(clock);
        assert_eq!(s.position(), clock);
        assert_eq!(Some(digest(s.state())), prints[clock], "clock {clock}");
    }
}

#[test]
fn a_weak_breakpoint_stops_at_the_decision_with_both_candidates() {
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    let id = s.add_breakpoint(Kind::parse(&["weak"]).unwrap(), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(id)));
    let (_, e) = s.current().unwrap();
    let Event::WeakDecision {
        name,
        existing,
        incoming,
        incoming_wins,
        ..
    } = e
    else {
        panic!("stopped at {e}");
    };
    assert_eq!(name, "wf");
    // The corpus: a.cubin has 24 registers, b.cubin 75; fewer registers wins.
    assert_eq!((existing.input_name.as_str(), existing.regcount), ("a.cubin", Some(24)));
    assert_eq!((incoming.input_name.as_str(), incoming.regcount), ("b.cubin", Some(75)));
    assert!(!incoming_wins);
    assert_eq!(s.phase(), Some(Phase::Merge));
    // No second weak decision in this link.
    assert_eq!(s.cont(), Stop::End);
    assert_eq!(s.breakpoints()[0].hits, 1);
}

#[test]
fn phase_input_symbol_and_error_breakpoints() {
    let mut s = session("err_undefined_func_sm90");
    let b_phase = s.add_breakpoint(Kind::parse(&["phase", "resolve"]).unwrap(), None);
    let b_err = s.add_breakpoint(Kind::parse(&["error"]).unwrap(), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b_phase)));
    assert!(matches!(
        s.current().unwrap().1,
        Event::PhaseStart { phase: Phase::Resolve }
    ));
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b_err)));
    let Event::Diagnostic(d) = s.current().unwrap().1 else {
        panic!()
    };
    assert_eq!(d.text, "Undefined reference to 'add_bias' in 'main.cubin'");
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b_err)));
    assert_eq!(s.cont(), Stop::End);
    assert_eq!(s.exit_status(), 255);

    // Input breakpoints match by file name; symbol breakpoints by a demangled name.
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    let b = s.add_breakpoint(Kind::parse(&["input", "b.cubin"]).unwrap(), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    assert!(matches!(s.current().unwrap().1, Event::InputLoaded { input: 2, .. }));
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    assert!(matches!(
        s.current().unwrap().1,
        Event::MergeInputStart { input: 2, .. }
    ));

    let mut s = session("dump_callgraph_cpp_sm90");
    let mangled: Vec<String> = s
        .final_state()
        .globals
        .iter()
        .map(|g| g.name.to_string())
        .filter(|n| n.starts_with("_Z"))
        .collect();
    let target = mangled.first().expect("a C++ symbol in this case").clone();
    let demangled = culdb::demangle::demangle(&target).unwrap();
    let bare = demangled.split('(').next().unwrap().to_string();
    let b = s.add_breakpoint(Kind::Symbol(bare.clone()), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)), "break symbol {bare}");
    let names = culdb::debug::class::symbol_names(s.current().unwrap().1);
    assert!(names.contains(&target), "{names:?}");
}

#[test]
fn conditions_filter_hits() {
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    let never = culdb::debug::Cond::parse("incoming.regcount < 30").unwrap();
    let b = s.add_breakpoint(Kind::Weak(None), Some(never));
    assert_eq!(s.cont(), Stop::End, "b.cubin has 75 registers");
    assert_eq!(s.breakpoints()[0].hits, 0);
    s.delete(b);
    let yes = culdb::debug::Cond::parse("incoming.regcount >= 75 && rule == fewer_registers").unwrap();
    let b = s.add_breakpoint(Kind::Weak(Some("wf".into())), Some(yes));
    s.restart();
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    // Symbol breakpoint restricted to one input by a condition on the event.
    let c = culdb::debug::Cond::parse("event == symbol_mapped && input == 1").unwrap();
    let b2 = s.add_breakpoint(Kind::Symbol("wf".into()), Some(c));
    s.restart();
    s.set_enabled(b, false);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b2)));
    assert!(matches!(s.current().unwrap().1, Event::SymbolMapped { input: 1, .. }));
}

#[test]
fn reloc_breakpoints_match_type_section_and_offset() {
    let mut s = session("extern_call_sm90");
    let all = s.add_breakpoint(Kind::parse(&["reloc"]).unwrap(), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(all)));
    let Event::RelocMapped {
        out_section,
        offset,
        rtype,
        ..
    } = s.current().unwrap().1.clone()
    else {
        panic!("{}", s.current().unwrap().1);
    };
    let sec = s.state().sections[out_section].name.clone();
    let tname = culdb::debug::breakpoint::reloc_type_name(rtype);
    let short = tname.trim_start_matches("R_CUDA_").to_string();
    let k = s.position() - 1;
    s.delete(all);
    s.restart();
    let off = format!("offset={offset:#x}");
    let secw = format!("section={sec}");
    let b = s.add_breakpoint(Kind::parse(&["reloc", short.as_str(), &secw, &off]).unwrap(), None);
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    assert_eq!(s.position() - 1, k);
    // A different offset never hits.
    s.delete(b);
    s.restart();
    s.add_breakpoint(Kind::parse(&["reloc", &secw, "offset=0x7fffffff"]).unwrap(), None);
    assert_eq!(s.cont(), Stop::End);
}

#[test]
fn watchpoints_stop_when_the_record_changes() {
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    let w = s.add_breakpoint(
        Kind::Watch {
            symbol: "wf".into(),
            last: None,
        },
        None,
    );
    // First change: wf appears (k.cubin references it).
    let Stop::Hit(Hit::Watch { id, old, new, .. }) = s.cont() else {
        panic!("no watch hit")
    };
    assert_eq!(id, w);
    assert!(old.is_none());
    let first = new.expect("wf exists now");
    assert!(!first.is_defined(), "k.cubin only references wf");
    // Next change: a.cubin defines it.
    let Stop::Hit(Hit::Watch { old, new, .. }) = s.cont() else {
        panic!("no second watch hit")
    };
    assert_eq!(old.as_ref(), Some(&first));
    let defined = new.unwrap();
    assert!(defined.is_defined());
    assert_eq!(s.state().input_name(defined.input), "a.cubin");
    // Moving back re-bases the watch: the same change is seen again.
    let at = s.position();
    s.reverse_step();
    assert!(matches!(s.cont(), Stop::Hit(Hit::Watch { .. })));
    assert_eq!(s.position(), at);
}

#[test]
fn next_finish_and_reverse_movement() {
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    // At the start, `next` goes to the first event; from a phase start, to
    // the first input-level event; from an input, to the next input.
    s.next();
    assert!(matches!(
        s.current().unwrap().1,
        Event::PhaseStart { phase: Phase::Read }
    ));
    s.next();
    assert!(matches!(s.current().unwrap().1, Event::InputLoaded { input: 0, .. }));
    s.next();
    assert!(matches!(s.current().unwrap().1, Event::InputLoaded { input: 1, .. }));
    s.reverse_next();
    assert!(matches!(s.current().unwrap().1, Event::InputLoaded { input: 0, .. }));
    // finish: the end of the read phase.
    s.finish();
    assert!(matches!(s.current().unwrap().1, Event::PhaseEnd { phase: Phase::Read }));
    // Into the merge: from MergeInputStart, `next` skips the input's symbols.
    let b = s.add_breakpoint(
        Kind::parse(&["input", "a.cubin"]).unwrap(),
        Some(culdb::debug::Cond::parse("event == merge_input_start").unwrap()),
    );
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    s.delete(b);
    s.next();
    assert!(
        matches!(s.current().unwrap().1, Event::MergeInputEnd { input: 1 }),
        "{}",
        s.current().unwrap().1
    );
    // From a symbol, `next` goes to the next item, never deeper.
    s.reverse_step();
    let before = s.position();
    s.reverse_next();
    assert!(s.position() < before);
    assert!(culdb::debug::class::level(s.current().unwrap().1) <= culdb::debug::Level::Item);
    s.next();
    assert_eq!(s.position(), before);
    // reverse-continue goes back to the previous hit.
    let w = s.add_breakpoint(Kind::Weak(None), None);
    while s.cont() != Stop::End {}
    let end = s.position();
    assert_eq!(s.reverse_continue(), Stop::Hit(Hit::Break(w)));
    assert!(matches!(s.current().unwrap().1, Event::WeakDecision { .. }));
    assert!(s.position() < end);
    assert_eq!(s.reverse_continue(), Stop::Start);
    assert_eq!(s.position(), 0);
}

#[test]
fn disabled_and_deleted_breakpoints_do_not_stop() {
    let mut s = session("weak_func_regs_unequal_fewer_first_sm90");
    let b = s.add_breakpoint(Kind::Weak(None), None);
    assert!(s.set_enabled(b, false));
    assert_eq!(s.cont(), Stop::End);
    assert!(s.set_enabled(b, true));
    s.restart();
    assert_eq!(s.cont(), Stop::Hit(Hit::Break(b)));
    assert!(s.delete(b));
    assert!(!s.delete(b));
    assert!(!s.set_enabled(b, true));
    s.restart();
    assert_eq!(s.cont(), Stop::End);
}

#[test]
fn watchpoints_find_symbols_by_demangled_name() {
    let mut s = session("dump_callgraph_cpp_sm90");
    let st = s.final_state();
    let target = st
        .globals
        .iter()
        .map(|g| g.name.clone())
        .find(|n| n.starts_with("_Z"))
        .expect("a C++ symbol");
    let bare = culdb::demangle::demangle(&target)
        .unwrap()
        .split('(')
        .next()
        .unwrap()
        .to_string();
    s.add_breakpoint(
        Kind::Watch {
            symbol: bare.clone(),
            last: None,
        },
        None,
    );
    let Stop::Hit(Hit::Watch { old, new, .. }) = s.cont() else {
        panic!("watch {bare} never hit")
    };
    assert!(old.is_none());
    assert_eq!(new.unwrap().name, target);
    // The same after moving back past its creation and forward again.
    let at = s.position();
    s.restart();
    assert!(matches!(s.cont(), Stop::Hit(Hit::Watch { .. })));
    assert_eq!(s.position(), at);
}
