//! `culdb replay`: opens a scenario's session, sets its breakpoints, runs
//! its script through the command language, and checks each expectation
//! against what the session saw (where it stopped, and the whole link run
//! to its end on a copy), saying what was seen for every one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::workdir::Workdir;
use super::{Binding, Expect, Scenario, ScenarioError};
use crate::cmd;
use crate::debug::{Session, inspect, names};
use crate::link::event::Event;
use crate::link::reloc::RelocEvent;
use crate::link::state::{LinkState, Place};

/// One expectation and what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub what: String,
    pub passed: bool,
    pub seen: String,
}

/// The outcome of one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub file: PathBuf,
    pub name: String,
    /// The scenario could not be read or opened (then there are no checks).
    pub error: Option<String>,
    pub checks: Vec<Check>,
    /// The script's commands and what they printed, as the REPL shows them.
    pub transcript: String,
    /// What the scenario is about (its description).
    pub about: String,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.checks.iter().all(|c| c.passed)
    }

    /// The report for a person: one line per expectation.
    pub fn text(&self, verbose: bool) -> String {
        let mut o = String::new();
        let verdict = if self.passed() { "PASS" } else { "FAIL" };
        let _ = writeln!(o, "{verdict} {} ({})", self.name, self.file.display());
        if !self.about.is_empty() {
            let _ = writeln!(o, "  {}", self.about);
        }
        // The story: where the session stopped and what the linker decided
        // there (the stop's event, e.g. a weak decision and its rule).
        if !verbose
            && let Some(stop) = self
                .checks
                .iter()
                .find(|c| c.passed && c.what.starts_with("stopped at"))
        {
            for l in stop.seen.lines() {
                let _ = writeln!(o, "  found: {l}");
            }
        }
        if let Some(e) = &self.error {
            let _ = writeln!(o, "  error: {e}");
        }
        for c in &self.checks {
            if c.passed && !verbose {
                continue;
            }
            let mark = if c.passed { "ok  " } else { "FAIL" };
            let _ = writeln!(o, "  {mark} {}", c.what);
            if !c.passed || verbose {
                for l in c.seen.lines() {
                    let _ = writeln!(o, "         seen: {l}");
                }
            }
        }
        if verbose && !self.transcript.is_empty() {
            o.push_str("  transcript:\n");
            for l in self.transcript.lines() {
                let _ = writeln!(o, "    {l}");
            }
        }
        let passed = self.checks.iter().filter(|c| c.passed).count();
        let _ = writeln!(o, "  {passed}/{} expectations met", self.checks.len());
        o
    }
}

/// A scenario's session, opened: its inputs written, its breakpoints set
/// (the folder lives as long as this does).
pub struct Opened {
    pub session: Session,
    pub workdir: Workdir,
}

/// Writes the inputs and opens the session with the breakpoints set.
pub fn open(scenario: &Scenario, file: &Path) -> Result<Opened, ScenarioError> {
    let workdir = Workdir::create(scenario, file)?;
    let mut session = Session::new(&workdir.args, &workdir.dir).map_err(|e| {
        let lines: Vec<String> = e.diagnostics.iter().map(|d| d.line()).collect();
        ScenarioError::new(
            file,
            format!("the link's command line is refused: {}", lines.join("; ")),
        )
    })?;
    session.set_scenario(scenario.to_ron(), file);
    for b in &scenario.breakpoints {
        let o = cmd::run_line(&mut session, &format!("break {b}"));
        if o.error {
            return Err(ScenarioError::new(
                file,
                format!("breakpoint `{b}`: {}", o.text.trim_end()),
            ));
        }
    }
    Ok(Opened { session, workdir })
}

/// Reads, runs and checks the scenario in `file`.
pub fn replay_file(file: &Path) -> Report {
    match Scenario::load(file) {
        Ok(s) => replay(&s, file),
        Err(e) => Report {
            file: file.to_path_buf(),
            name: file.file_stem().unwrap_or_default().to_string_lossy().into_owned(),
            error: Some(e.to_string()),
            checks: Vec::new(),
            transcript: String::new(),
            about: String::new(),
        },
    }
}

/// Runs a scenario and checks it.
pub fn replay(scenario: &Scenario, file: &Path) -> Report {
    let mut report = Report {
        file: file.to_path_buf(),
        name: scenario.name.clone(),
        error: None,
        checks: Vec::new(),
        transcript: String::new(),
        about: scenario.description.clone(),
    };
    let mut opened = match open(scenario, file) {
        Ok(o) => o,
        Err(e) => {
            report.error = Some(e.to_string());
            return report;
        }
    };
    let s = &mut opened.session;
    for line in &scenario.script {
        let _ = writeln!(report.transcript, "(culdb) {line}");
        let o = super::run_line(s, line);
        if o.error {
            let _ = write!(report.transcript, "error: {}", o.text);
            report.checks.push(Check {
                what: format!("command `{line}` runs"),
                passed: false,
                seen: o.text.trim_end().to_string(),
            });
        } else {
            report.transcript.push_str(&o.text);
        }
        if o.quit {
            break;
        }
    }
    let end = run_to_end(s);
    report
        .checks
        .extend(check(&scenario.expect, s, &end, &report.transcript));
    report
}

/// A weak decision's outcome: the symbol, the input that won, the rule
/// (snake_case, as scenarios name it).
pub fn weak_outcome(e: &Event) -> Option<super::WeakExpect> {
    let Event::WeakDecision {
        name,
        existing,
        incoming,
        rule,
        incoming_wins,
        ..
    } = e
    else {
        return None;
    };
    let winner = if *incoming_wins {
        &incoming.input_name
    } else {
        &existing.input_name
    };
    Some(super::WeakExpect {
        symbol: name.clone(),
        winner: Some(winner.clone()),
        rule: serde_json::to_value(rule)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string)),
    })
}

/// A copy of the session run to the end of the link, breakpoints ignored.
pub fn run_to_end(s: &Session) -> Session {
    let mut end = s.clone();
    end.delete_all();
    end.cont();
    end
}

/// Whether each of `wanted` is a substring of a line of `lines`, in order.
fn in_order(wanted: &[String], lines: &[String]) -> (bool, String) {
    let mut at = 0;
    for w in wanted {
        match lines[at..].iter().position(|l| l.contains(w.as_str())) {
            Some(i) => at += i + 1,
            None => {
                return (
                    false,
                    format!(
                        "`{w}` not found after line {at} of {}:\n{}",
                        lines.len(),
                        lines.join("\n")
                    ),
                );
            }
        }
    }
    (true, format!("{} line(s) searched", lines.len()))
}

fn binding_of(b: u8) -> Binding {
    match b {
        crate::cubin::consts::STB_WEAK => Binding::Weak,
        crate::cubin::consts::STB_LOCAL => Binding::Local,
        _ => Binding::Global,
    }
}

/// The expectations against the session `now` and the finished link `end`.
fn check(x: &Expect, now: &Session, end: &Session, transcript: &str) -> Vec<Check> {
    let mut out = Vec::new();
    let mut push = |what: String, passed: bool, seen: String| out.push(Check { what, passed, seen });
    let st = end.state();
    if let Some(want) = x.status {
        let got = end.exit_status();
        push(format!("exit status {want}"), got == want, format!("exit status {got}"));
    }
    if !x.diagnostics.is_empty() {
        let lines: Vec<String> = st.diagnostics.iter().map(|d| d.line()).collect();
        let (ok, seen) = in_order(&x.diagnostics, &lines);
        push(format!("diagnostics {:?}", x.diagnostics), ok, seen);
    }
    if let Some(stop) = &x.stop {
        let (k, line) = match now.current() {
            Some((k, e)) => (Some(k), format!("#{k} {e}")),
            None => (None, "before the first event".to_string()),
        };
        let ok = stop.event.is_none_or(|want| Some(want) == k)
            && stop.text.as_ref().is_none_or(|t| line.contains(t.as_str()));
        let mut what = String::from("stopped at");
        if let Some(e) = stop.event {
            let _ = write!(what, " event #{e}");
        }
        if let Some(t) = &stop.text {
            let _ = write!(what, " `{t}`");
        }
        push(what, ok, line);
    }
    let events = end.events();
    for w in &x.weak {
        let found: Vec<String> = events
            .iter()
            .filter_map(weak_outcome)
            .filter(|o| names::symbol_matches(&w.symbol, &o.symbol))
            .map(|o| {
                format!(
                    "{}: winner {}, rule {}",
                    o.symbol,
                    o.winner.unwrap_or_default(),
                    o.rule.unwrap_or_default()
                )
            })
            .collect();
        let ok = !found.is_empty()
            && found.iter().all(|f| {
                w.winner.as_ref().is_none_or(|v| f.contains(&format!("winner {v},")))
                    && w.rule.as_ref().is_none_or(|r| f.ends_with(&format!("rule {r}")))
            });
        let mut what = format!("weak decision for {}", w.symbol);
        if let Some(v) = &w.winner {
            let _ = write!(what, ": {v} wins");
        }
        if let Some(r) = &w.rule {
            let _ = write!(what, " by {r}");
        }
        let seen = if found.is_empty() {
            "no weak decision for it".into()
        } else {
            found.join("\n")
        };
        push(what, ok, seen);
    }
    for want in &x.symbols {
        let (ok, seen) = symbol_check(st, want);
        push(format!("symbol {}", describe_symbol(want)), ok, seen);
    }
    for want in &x.sections {
        let sec = st.sections.iter().find(|s| s.name == want.name && !s.removed);
        let present = want.present.unwrap_or(true);
        let ok = match sec {
            None => !present,
            Some(s) => present && want.size.is_none_or(|z| z == s.size),
        };
        let mut what = format!("section {}", want.name);
        if !present {
            what.push_str(" absent");
        }
        if let Some(z) = want.size {
            let _ = write!(what, " of {z:#x} bytes");
        }
        let seen = sec.map_or("no such section".into(), |s| {
            format!("{} of {:#x} bytes", s.name, s.size)
        });
        push(what, ok, seen);
    }
    for want in &x.relocations {
        let found: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::Reloc(r) if reloc_matches(r, want) => Some(r.to_string()),
                _ => None,
            })
            .collect();
        let all: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::Reloc(r) => Some(r.to_string()),
                _ => None,
            })
            .collect();
        let seen = if found.is_empty() {
            format!(
                "no match among {} relocation decision(s):\n{}",
                all.len(),
                all.join("\n")
            )
        } else {
            found.join("\n")
        };
        push(format!("relocation {}", describe_reloc(want)), !found.is_empty(), seen);
    }
    if !x.events.is_empty() {
        let lines: Vec<String> = events
            .iter()
            .enumerate()
            .map(|(k, e)| inspect::event_line(end, k, e))
            .collect();
        let (ok, seen) = in_order(&x.events, &lines);
        let seen = if ok {
            format!("{} events searched", lines.len())
        } else {
            seen
        };
        push(format!("events {:?}", x.events), ok, seen);
    }
    if !x.output.is_empty() {
        let lines: Vec<String> = transcript.lines().map(str::to_string).collect();
        let (ok, seen) = in_order(&x.output, &lines);
        push(format!("script output {:?}", x.output), ok, seen);
    }
    out
}

fn describe_symbol(w: &super::SymbolExpect) -> String {
    let mut o = w.name.clone();
    if w.present == Some(false) {
        o.push_str(" absent");
    }
    if let Some(b) = w.binding {
        let _ = write!(o, " {b:?}");
    }
    if let Some(s) = &w.section {
        let _ = write!(o, " in {s}");
    }
    if let Some(v) = w.value {
        let _ = write!(o, " at {v:#x}");
    }
    if let Some(z) = w.size {
        let _ = write!(o, " size {z:#x}");
    }
    if let Some(i) = &w.input {
        let _ = write!(o, " from {i}");
    }
    o
}

fn symbol_check(st: &LinkState, w: &super::SymbolExpect) -> (bool, String) {
    let found = st
        .locals
        .iter()
        .chain(&st.globals)
        .find(|s| !s.removed && names::symbol_matches(&w.name, &s.name));
    let present = w.present.unwrap_or(true);
    let Some(s) = found else {
        return (!present, "not in the output".into());
    };
    let section = match s.place {
        Place::Section(i) => st.sections.get(i).map_or("?".into(), |x| x.name.clone()),
        Place::Undefined => "UNDEF".into(),
        Place::Common { .. } => "COMMON".into(),
        Place::Absolute => "ABS".into(),
    };
    let input = st.inputs.get(s.input).map_or("?".into(), |i| i.name.clone());
    let seen = format!(
        "{} {:?} in {section} at {:#x} size {:#x} from {input}",
        s.name,
        binding_of(s.binding),
        s.value,
        s.size
    );
    let ok = present
        && w.binding.is_none_or(|b| b == binding_of(s.binding))
        && w.section.as_ref().is_none_or(|x| *x == section)
        && w.value.is_none_or(|v| v == s.value)
        && w.size.is_none_or(|z| z == s.size)
        && w.input.as_ref().is_none_or(|i| *i == input);
    (ok, seen)
}

fn describe_reloc(w: &super::RelocExpect) -> String {
    let mut o = String::new();
    if let Some(a) = &w.action {
        let _ = write!(o, "{a} ");
    }
    o.push_str(w.rtype.as_deref().unwrap_or("*"));
    if let Some(s) = &w.section {
        let _ = write!(o, " at {s}");
        if let Some(off) = w.offset {
            let _ = write!(o, "+{off:#x}");
        }
    }
    if let Some(s) = &w.symbol {
        let _ = write!(o, " against {s}");
    }
    if let Some(t) = &w.text {
        let _ = write!(o, " `{t}`");
    }
    o
}

fn reloc_matches(r: &RelocEvent, w: &super::RelocExpect) -> bool {
    let (action, section, offset, rtype, symbol) = match r {
        RelocEvent::Applied {
            section,
            offset,
            rtype,
            symbol,
            ..
        } => ("applied", section, offset, rtype, symbol),
        RelocEvent::Kept {
            section,
            offset,
            rtype,
            symbol,
            ..
        } => ("kept", section, offset, rtype, symbol),
        RelocEvent::Dropped {
            section,
            offset,
            rtype,
            symbol,
            ..
        } => ("dropped", section, offset, rtype, symbol),
    };
    w.action.as_deref().is_none_or(|a| a == action)
        && w.section.as_ref().is_none_or(|s| s == section)
        && w.offset.is_none_or(|o| o == *offset)
        && w.rtype.as_ref().is_none_or(|t| t == rtype)
        && w.symbol.as_ref().is_none_or(|s| names::symbol_matches(s, symbol))
        && w.text.as_ref().is_none_or(|t| r.to_string().contains(t.as_str()))
}

/// The scenario files named: files as they are, folders by their `.ron` files (sorted).
pub fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == "ron"))
                .collect();
            v.sort();
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// `culdb replay FILE...`: exit 0 when all pass, 1 when one fails, 2 when one cannot be read.
pub fn main(paths: &[PathBuf], json: bool, verbose: bool, nvlink: bool) -> i32 {
    let files = expand(paths);
    let tool = if nvlink {
        match crate::link::find_tool("nvlink") {
            Some(t) => Some(t),
            None => {
                eprintln!(
                    "culdb replay: --nvlink: no nvlink on PATH or in $CULDB_CUDA_HOME (scripts/cuda-tools.sh installs it)"
                );
                return 2;
            }
        }
    } else {
        None
    };
    let reports: Vec<Report> = files
        .iter()
        .map(|f| {
            let mut r = replay_file(f);
            if let (Some(t), None) = (&tool, &r.error)
                && let Ok(sc) = Scenario::load(f)
            {
                r.checks.push(match super::oracle::compare(&sc, f, t) {
                    Ok(d) => Check {
                        what: "nvlink agrees (status, diagnostics, equivalent output)".into(),
                        passed: d.is_empty(),
                        seen: if d.is_empty() { "the same".into() } else { d.join("\n") },
                    },
                    Err(e) => Check {
                        what: "nvlink agrees".into(),
                        passed: false,
                        seen: e.to_string(),
                    },
                });
            }
            r
        })
        .collect();
    if json {
        let doc = serde_json::json!({
            "scenarios": reports.len(),
            "passed": reports.iter().filter(|r| r.passed()).count(),
            "reports": reports,
        });
        crate::cmd::out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        for r in &reports {
            crate::cmd::out(&r.text(verbose));
        }
        let passed = reports.iter().filter(|r| r.passed()).count();
        crate::cmd::out(&format!("{passed}/{} scenario(s) passed\n", reports.len()));
    }
    if reports.iter().any(|r| r.error.is_some()) {
        2
    } else if reports.iter().all(Report::passed) {
        0
    } else {
        1
    }
}
