//! The one command language of culdb (DESIGN.md §3): parsed here and run
//! against a [`Session`]; the REPL, the TUI's command line and scenario
//! scripts all go through [`run_line`]. A bad command is a message, never a
//! panic.
//!
//! The command language knows nothing of the layers above it: what it
//! cannot do against the session alone (`save scenario FILE` writes a
//! scenario file) comes back as an [`Action`] for its caller to carry out
//! (the scenario layer's `run_line` does it for the REPL, the TUI and
//! scenario scripts).

pub mod spec;

use std::fmt::Write;
use std::path::PathBuf;

use crate::debug::breakpoint::{self, Cond, Kind};
use crate::debug::{Hit, Session, Stop, inspect};

pub use spec::{COMMANDS, Spec, help, lookup};

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Step(usize),
    Next(usize),
    Finish,
    Continue,
    Run,
    ReverseStep(usize),
    ReverseNext(usize),
    ReverseContinue,
    /// An event index, or None for the end.
    Goto(Option<usize>),
    Restart,
    Break(Kind, Option<Cond>),
    Watch(String),
    Delete(Vec<usize>),
    Disable(Vec<usize>),
    Enable(Vec<usize>),
    Info(String, Option<String>),
    Print(Option<String>, String),
    Examine(String, Option<u64>),
    Why(String),
    /// `why-kept SYMBOL` / `why-pulled MEMBER` (`crate::report`).
    WhyKept(String),
    WhyPulled(String),
    Explain(String),
    Where,
    /// `save scenario FILE`.
    Save(String),
    Help(Option<String>),
    Quit,
}

/// What running a command gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    pub text: String,
    /// The command was bad or could not be done (the text says why).
    pub error: bool,
    /// `quit` was asked.
    pub quit: bool,
    /// What the caller is asked to do (the command language cannot).
    pub action: Option<Action>,
}

/// What a command asks of the layer that ran it.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `save scenario FILE`: record the session as a scenario at FILE.
    SaveScenario(PathBuf),
}

impl Output {
    /// A command's answer.
    pub fn ok(text: String) -> Self {
        Output {
            text,
            ..Default::default()
        }
    }
    /// Why a command is bad or could not be done.
    pub fn err(text: String) -> Self {
        Output {
            text: if text.ends_with('\n') { text } else { text + "\n" },
            error: true,
            ..Default::default()
        }
    }
}

fn count(arg: Option<&&str>) -> Result<usize, String> {
    match arg {
        None => Ok(1),
        Some(a) => match a.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("`{a}` is not a positive count")),
        },
    }
}

fn numbers(args: &[&str]) -> Result<Vec<usize>, String> {
    args.iter()
        .map(|a| {
            a.parse::<usize>()
                .map_err(|_| format!("`{a}` is not a breakpoint number"))
        })
        .collect()
}

fn no_args(name: &str, args: &[&str]) -> Result<(), String> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(format!("`{name}` takes no argument"))
    }
}

/// Parses one line; None for a blank line or a `#` comment.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let spec = lookup(words[0])?;
    let args = &words[1..];
    let one = |what: &str| -> Result<String, String> {
        match args {
            [a] => Ok(a.to_string()),
            [] => Err(format!("`{}` needs {what} (usage: {})", spec.name, spec.usage)),
            _ => Err(format!("`{}` takes one {what} (usage: {})", spec.name, spec.usage)),
        }
    };
    let at_most_one = || -> Result<(), String> {
        if args.len() > 1 {
            Err(format!("usage: {}", spec.usage))
        } else {
            Ok(())
        }
    };
    let cmd = match spec.name {
        "step" => {
            at_most_one()?;
            Command::Step(count(args.first())?)
        }
        "next" => {
            at_most_one()?;
            Command::Next(count(args.first())?)
        }
        "reverse-step" => {
            at_most_one()?;
            Command::ReverseStep(count(args.first())?)
        }
        "reverse-next" => {
            at_most_one()?;
            Command::ReverseNext(count(args.first())?)
        }
        "finish" => no_args(spec.name, args).map(|_| Command::Finish)?,
        "continue" => no_args(spec.name, args).map(|_| Command::Continue)?,
        "run" => no_args(spec.name, args).map(|_| Command::Run)?,
        "reverse-continue" => no_args(spec.name, args).map(|_| Command::ReverseContinue)?,
        "restart" => no_args(spec.name, args).map(|_| Command::Restart)?,
        "where" => no_args(spec.name, args).map(|_| Command::Where)?,
        "quit" => no_args(spec.name, args).map(|_| Command::Quit)?,
        "goto" => {
            let a = one("an event number")?;
            let a = a.trim_start_matches('#');
            if a == "end" {
                Command::Goto(None)
            } else {
                Command::Goto(Some(
                    a.parse()
                        .map_err(|_| format!("`{a}` is not an event number (or `end`)"))?,
                ))
            }
        }
        "break" => {
            let (kind_words, cond) = match args.iter().position(|w| *w == "if") {
                Some(i) => {
                    let rest = line
                        .split_once(" if ")
                        .map(|(_, c)| c)
                        .ok_or_else(|| "`if` needs a condition".to_string())?;
                    (&args[..i], Some(Cond::parse(rest)?))
                }
                None => (args, None),
            };
            Command::Break(Kind::parse(kind_words)?, cond)
        }
        "watch" => match args {
            ["symbol" | "sym", n] => Command::Watch(n.to_string()),
            [n] if *n != "symbol" => Command::Watch(n.to_string()),
            _ => return Err(format!("usage: {}", spec.usage)),
        },
        "delete" => Command::Delete(numbers(args)?),
        "disable" | "enable" => {
            if args.is_empty() {
                return Err(format!("usage: {}", spec.usage));
            }
            let n = numbers(args)?;
            if spec.name == "disable" {
                Command::Disable(n)
            } else {
                Command::Enable(n)
            }
        }
        "info" => {
            let Some(topic) = args.first() else {
                return Err(format!("info what? {}", spec::INFO_TOPICS.join(", ")));
            };
            let topic = match *topic {
                "b" | "br" | "break" | "watch" | "watchpoints" => "breakpoints",
                "sym" | "syms" => "symbols",
                "reloc" | "relocations" => "relocs",
                "sec" | "section" => "sections",
                "input" => "inputs",
                "event" => "events",
                "map" => "maps",
                "cg" => "callgraph",
                t => {
                    let c: Vec<&'static str> = spec::INFO_TOPICS.iter().copied().filter(|x| x.starts_with(t)).collect();
                    match c.as_slice() {
                        [one] => *one,
                        [] => return Err(format!("no `info {t}`; topics: {}", spec::INFO_TOPICS.join(", "))),
                        many => return Err(format!("`info {t}` is ambiguous: {}", many.join(", "))),
                    }
                }
            };
            if args.len() > 2 {
                return Err(format!("`info {topic}` takes at most one argument"));
            }
            Command::Info(topic.to_string(), args.get(1).map(|s| s.to_string()))
        }
        "print" => match args {
            [
                k @ ("symbol" | "sym" | "section" | "sec" | "reloc" | "relocation"),
                what,
            ] => {
                let k = match *k {
                    "sym" | "symbol" => "symbol",
                    "sec" | "section" => "section",
                    _ => "reloc",
                };
                Command::Print(Some(k.to_string()), what.to_string())
            }
            [what] => Command::Print(None, what.to_string()),
            _ => return Err(format!("usage: {}", spec.usage)),
        },
        "x" => match args {
            [w] => Command::Examine(w.to_string(), None),
            [w, l] => Command::Examine(
                w.to_string(),
                Some(breakpoint::parse_u64(l).ok_or_else(|| format!("`{l}` is not a length"))?),
            ),
            _ => return Err(format!("usage: {}", spec.usage)),
        },
        "why" => Command::Why(one("a symbol")?),
        "why-kept" => Command::WhyKept(one("a symbol")?),
        "why-pulled" => Command::WhyPulled(one("an archive member")?),
        "explain" => Command::Explain(one("a relocation")?),
        "save" => match args {
            ["scenario", f] => Command::Save(f.to_string()),
            _ => return Err(format!("usage: {}", spec.usage)),
        },
        "help" => {
            at_most_one()?;
            Command::Help(args.first().map(|s| s.to_string()))
        }
        other => return Err(format!("`{other}` is not handled")),
    };
    Ok(Some(cmd))
}

/// Parses and runs one line.
pub fn run_line(s: &mut Session, line: &str) -> Output {
    match parse(line) {
        Ok(Some(c)) => {
            let o = execute(s, &c);
            if !o.error && !matches!(c, Command::Save(_) | Command::Help(_) | Command::Quit) {
                s.log_command(line);
            }
            o
        }
        Ok(None) => Output::default(),
        Err(e) => Output::err(e),
    }
}

/// Where the session stopped, for a person.
pub fn describe_stop(s: &Session, stop: &Stop) -> String {
    let mut o = String::new();
    match stop {
        Stop::Hit(Hit::Break(id)) => {
            let what = s
                .breakpoints()
                .iter()
                .find(|b| b.id == *id)
                .map(|b| b.kind.describe())
                .unwrap_or_default();
            let _ = writeln!(o, "Breakpoint {id} ({what})");
        }
        Stop::Hit(Hit::Watch { id, symbol, old, new }) => {
            let st = s.state();
            let line = |v: &Option<crate::link::state::OutSymbol>| match v {
                Some(sym) => {
                    let idx = st.lookup(&sym.name).unwrap_or(crate::link::state::SymIdx::NULL);
                    inspect::symbol_line(st, idx, sym)
                }
                None => "(no such symbol)".to_string(),
            };
            let _ = writeln!(o, "Watchpoint {id}: symbol {symbol} changed");
            let _ = writeln!(o, "  old: {}", line(old));
            let _ = writeln!(o, "  new: {}", line(new));
        }
        Stop::Start => {
            o.push_str("At the beginning of the link (before event #0).\n");
            return o;
        }
        Stop::End | Stop::Done => {}
    }
    if let Some((k, e)) = s.current() {
        match inspect::weak_decision(e) {
            Some(t) => {
                let _ = write!(o, "#{k} [{}] {t}", s.phase_of(k).map(|p| p.name()).unwrap_or("-"));
            }
            None => {
                let _ = writeln!(o, "{}", inspect::event_line(s, k, e));
            }
        }
    }
    if *stop == Stop::End || s.at_end() {
        o.push_str(&end_line(s));
    }
    o
}

fn end_line(s: &Session) -> String {
    let st = s.state();
    let status = s.exit_status();
    let errors = st
        .diagnostics
        .iter()
        .filter(|d| d.severity >= crate::link::diag::Severity::Error)
        .count();
    match s.linker().output() {
        Some(b) if status == 0 => format!(
            "The link finished after {} events: exit status 0, output {} bytes.\n",
            s.position(),
            b.len()
        ),
        _ => format!(
            "The link {} after {} events: exit status {status}, {errors} error(s).\n",
            if status == 0 { "stopped" } else { "failed" },
            s.position()
        ),
    }
}

fn repeat(s: &mut Session, n: usize, mut f: impl FnMut(&mut Session) -> Stop) -> Stop {
    let mut stop = Stop::Done;
    for _ in 0..n {
        stop = f(s);
        if stop != Stop::Done {
            break;
        }
    }
    stop
}

/// Runs a parsed command.
pub fn execute(s: &mut Session, c: &Command) -> Output {
    let moved = |s: &Session, stop: Stop| Output::ok(describe_stop(s, &stop));
    let res = |r: Result<String, String>| match r {
        Ok(t) => Output::ok(t),
        Err(e) => Output::err(e),
    };
    match c {
        Command::Step(n) | Command::Next(n) if s.at_end() => {
            let _ = n;
            Output::err(format!(
                "The link has finished ({} events). {}",
                s.position(),
                "Use reverse-step, goto or restart."
            ))
        }
        Command::Continue | Command::Finish if s.at_end() => Output::err(format!(
            "The link has finished ({} events). Use reverse-continue, goto or run.",
            s.position()
        )),
        Command::Step(n) => {
            let stop = repeat(s, *n, Session::step);
            moved(s, stop)
        }
        Command::Next(n) => {
            let stop = repeat(s, *n, Session::next);
            moved(s, stop)
        }
        Command::Finish => {
            let stop = s.finish();
            moved(s, stop)
        }
        Command::Continue => {
            let stop = s.cont();
            moved(s, stop)
        }
        Command::Run => {
            s.restart();
            let stop = s.cont();
            moved(s, stop)
        }
        Command::ReverseStep(n) => {
            let stop = repeat(s, *n, Session::reverse_step);
            moved(s, stop)
        }
        Command::ReverseNext(n) => {
            let stop = repeat(s, *n, Session::reverse_next);
            moved(s, stop)
        }
        Command::ReverseContinue => {
            let stop = s.reverse_continue();
            moved(s, stop)
        }
        Command::Goto(k) => {
            let stop = match k {
                Some(k) => s.goto(*k),
                None => s.goto(usize::MAX - 1),
            };
            if let (Stop::End, Some(k)) = (&stop, k) {
                let mut o = describe_stop(s, &stop);
                o.insert_str(
                    0,
                    &format!("The link has only {} events; no event #{k}.\n", s.position()),
                );
                return Output {
                    error: true,
                    ..Output::ok(o)
                };
            }
            moved(s, stop)
        }
        Command::Restart => {
            s.restart();
            moved(s, Stop::Start)
        }
        Command::Break(kind, cond) => {
            let id = s.add_breakpoint(kind.clone(), cond.clone());
            Output::ok(format!(
                "Breakpoint {id}: {}{}\n",
                kind.describe(),
                cond.as_ref().map(|c| format!(" if {}", c.text)).unwrap_or_default()
            ))
        }
        Command::Watch(name) => {
            let id = s.add_breakpoint(
                Kind::Watch {
                    symbol: name.clone(),
                    last: None,
                },
                None,
            );
            let st = s.state();
            let now = match breakpoint::watched(st, name) {
                Some(sym) if sym.is_defined() => format!(
                    " (now {} in {}, from {})",
                    crate::link::event::shown(&sym.name),
                    st.place_name(sym.place),
                    st.input_name(sym.input)
                ),
                Some(sym) => format!(" (now {} is undefined)", crate::link::event::shown(&sym.name)),
                None => " (not in the link yet)".into(),
            };
            Output::ok(format!("Watchpoint {id}: symbol {name}{now}\n"))
        }
        Command::Delete(ids) if ids.is_empty() => {
            let n = s.breakpoints().len();
            s.delete_all();
            Output::ok(format!("deleted {n} breakpoint(s)\n"))
        }
        Command::Delete(ids) => for_each_id(ids, |id| s.delete(id), "deleted"),
        Command::Disable(ids) => for_each_id(ids, |id| s.set_enabled(id, false), "disabled"),
        Command::Enable(ids) => for_each_id(ids, |id| s.set_enabled(id, true), "enabled"),
        Command::Info(topic, arg) => info(s, topic, arg.as_deref()),
        Command::Print(kind, what) => {
            let st = s.state();
            res(match kind.as_deref() {
                Some("symbol") => inspect::print_symbol(st, what),
                Some("section") => inspect::print_section(st, what),
                Some(_) => inspect::print_reloc(st, what),
                None => inspect::print_symbol(st, what)
                    .or_else(|_| inspect::print_section(st, what))
                    .map_err(|_| format!("no symbol or section `{what}` in the link so far")),
            })
        }
        Command::Examine(what, len) => res(inspect::examine(s.state(), what, *len)),
        Command::Why(sym) => res(inspect::why(s, sym)),
        Command::WhyKept(sym) => res(crate::report::session::why_kept(s, sym)),
        Command::WhyPulled(m) => res(crate::report::session::why_pulled(s, m)),
        Command::Explain(r) => res(inspect::explain(s, r)),
        Command::Where => Output::ok(where_text(s)),
        Command::Save(f) => Output {
            action: Some(Action::SaveScenario(PathBuf::from(f))),
            ..Default::default()
        },
        Command::Help(t) => res(help(t.as_deref())),
        Command::Quit => Output {
            quit: true,
            ..Default::default()
        },
    }
}

fn for_each_id(ids: &[usize], mut f: impl FnMut(usize) -> bool, verb: &str) -> Output {
    let mut o = Output::default();
    for &id in ids {
        if f(id) {
            let _ = writeln!(o.text, "{verb} breakpoint {id}");
        } else {
            let _ = writeln!(o.text, "no breakpoint {id}");
            o.error = true;
        }
    }
    o
}

fn where_text(s: &Session) -> String {
    let mut o = format!(
        "clock {} (event #{}), phase {}\n",
        s.position(),
        s.position().saturating_sub(1),
        s.phase().map(|p| p.name()).unwrap_or("-")
    );
    match s.current() {
        Some((k, e)) => o.push_str(&format!("{}\n", inspect::event_line(s, k, e))),
        None => o = "At the beginning of the link (no event yet).\n".into(),
    }
    if s.at_end() {
        o.push_str(&end_line(s));
    }
    o
}

fn info(s: &Session, topic: &str, arg: Option<&str>) -> Output {
    let st = s.state();
    let no_arg = |t: String| match arg {
        Some(a) => Output::err(format!("`info {topic}` takes no argument (got `{a}`)")),
        None => Output::ok(t),
    };
    let r = match topic {
        "breakpoints" => return no_arg(inspect::breakpoints(s)),
        "inputs" => return no_arg(inspect::inputs(s)),
        "sections" => return no_arg(inspect::sections(st)),
        "symbols" => Ok(inspect::symbols(st, arg)),
        "maps" => inspect::maps(st, arg),
        "weak" => return no_arg(inspect::weak(s)),
        "relocs" => inspect::relocs(st, arg),
        "uft" | "udt" | "bindless" => return no_arg(inspect::table(s, topic)),
        "callgraph" => return no_arg(inspect::callgraph(st)),
        "layout" => return no_arg(inspect::layout(s)),
        "events" => inspect::events(s, arg),
        "status" => return no_arg(where_text(s)),
        t => Err(format!("no `info {t}`")),
    };
    match r {
        Ok(t) => Output::ok(t),
        Err(e) => Output::err(e),
    }
}

pub use crate::diag::out;
