//! `culdb repl <link args>`: the debugger at a prompt. On a terminal it uses
//! rustyline (history file, tab completion of commands, symbol, section
//! and input names; an empty line repeats the last command, as in gdb).
//! When stdin is not a terminal it reads commands line by line, echoes
//! each after the prompt, prints plain text, and exits with the link's
//! status, so a session can be scripted.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use crate::cmd::spec;
use crate::debug::Session;
use crate::debug::breakpoint::PHASES;

pub const PROMPT: &str = "(culdb) ";

/// The names completion offers besides the command words.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub symbols: Vec<String>,
    pub sections: Vec<String>,
    pub inputs: Vec<String>,
}

impl Names {
    /// Every name the link will know by its end (computed on a copy).
    pub fn of(s: &Session) -> Names {
        let st = s.final_state();
        let mut symbols: Vec<String> = Vec::new();
        for (_, sym) in st.all_symbols() {
            if sym.name.is_empty() {
                continue;
            }
            symbols.push(sym.name.to_string());
            if let Some(d) = crate::demangle::demangle(&sym.name) {
                // The demangled name without parameters: it has no spaces
                // more often than the full form, and `break` takes it.
                let bare = d.split('(').next().unwrap_or(&d).to_string();
                if !bare.contains(' ') {
                    symbols.push(bare);
                }
            }
        }
        symbols.sort();
        symbols.dedup();
        let mut sections: Vec<String> = st.sections.iter().skip(1).map(|s| s.name.clone()).collect();
        sections.sort();
        sections.dedup();
        let inputs = st.inputs.iter().map(|i| i.name.clone()).collect();
        Names {
            symbols,
            sections,
            inputs,
        }
    }
}

/// Completions for the word before the cursor: (where it starts, candidates).
pub fn complete(line: &str, names: &Names) -> (usize, Vec<String>) {
    let start = line.rfind(char::is_whitespace).map(|i| i + 1).unwrap_or(0);
    let word = &line[start..];
    let before: Vec<&str> = line[..start].split_whitespace().collect();
    let cmd = before
        .first()
        .and_then(|w| spec::lookup(w).ok())
        .map(|s| s.name)
        .unwrap_or("");
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let pool: Vec<String> = match (before.len(), cmd) {
        (0, _) => spec::COMMANDS.iter().map(|s| s.name.to_string()).collect(),
        (1, "info") => owned(&spec::INFO_TOPICS),
        (1, "break") => owned(&spec::BREAK_KINDS),
        (1, "print") => {
            let mut v = owned(&spec::PRINT_KINDS);
            v.extend(names.symbols.iter().cloned());
            v
        }
        (1, "help") => spec::COMMANDS.iter().map(|s| s.name.to_string()).collect(),
        (1, "watch") => {
            let mut v = vec!["symbol".to_string()];
            v.extend(names.symbols.iter().cloned());
            v
        }
        (1, "x" | "explain") => names.sections.iter().map(|s| format!("{s}+")).collect(),
        (2, "break") if before[1] == "phase" => PHASES.iter().map(|(n, _)| n.to_string()).collect(),
        (2, "break") if before[1] == "input" => names.inputs.clone(),
        (2, "break") if before[1] == "reloc" => {
            let mut v: Vec<String> = crate::cubin::catalog::CUDA_RELOCS
                .iter()
                .map(|(_, n)| n.to_string())
                .collect();
            v.push("section=".into());
            v.push("offset=".into());
            v
        }
        (2, "info") if matches!(before[1], "maps" | "map") => names.inputs.clone(),
        (2, "info") if matches!(before[1], "relocs" | "reloc") => names.sections.clone(),
        (2, "print") if matches!(before[1], "section" | "sec") => names.sections.clone(),
        _ => {
            let mut v = names.symbols.clone();
            v.extend(names.sections.iter().cloned());
            v
        }
    };
    let mut out: Vec<String> = pool.into_iter().filter(|c| c.starts_with(word)).collect();
    out.sort();
    out.dedup();
    (start, out)
}

struct ReplHelper {
    names: Names,
}

impl Completer for ReplHelper {
    type Candidate = Pair;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, c) = complete(&line[..pos], &self.names);
        Ok((
            start,
            c.into_iter()
                .map(|s| Pair {
                    display: s.clone(),
                    replacement: s,
                })
                .collect(),
        ))
    }
}
impl Hinter for ReplHelper {
    type Hint = String;
}
impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

fn history_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CULDB_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".culdb_history"))
}

/// Runs the REPL over nvlink's command line `args`; returns the exit status.
pub fn main(args: &[String]) -> i32 {
    let mut session = match Session::new(args, Path::new(".")) {
        Ok(s) => s,
        Err(e) => {
            for d in &e.diagnostics {
                eprintln!("{}", d.line());
            }
            return e.status;
        }
    };
    if std::io::stdin().is_terminal() {
        interactive(&mut session)
    } else {
        scripted(&mut session, std::io::stdin().lock(), &mut std::io::stdout().lock())
    }
}

/// Reads commands from `input` until the end or `quit`; echoes each after
/// the prompt and writes what it printed. Returns the link's exit status
/// (the link is finished on a copy when the script stopped before its end).
pub fn scripted(session: &mut Session, input: impl BufRead, out: &mut impl Write) -> i32 {
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let _ = writeln!(out, "{PROMPT}{}", line.trim_end());
        let o = crate::scenario::run_line(session, &line);
        if o.error {
            let _ = write!(out, "error: {}", o.text);
        } else {
            let _ = write!(out, "{}", o.text);
        }
        if o.quit {
            break;
        }
    }
    let _ = out.flush();
    session.final_status()
}

fn interactive(session: &mut Session) -> i32 {
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        .auto_add_history(false)
        .build();
    let mut ed: rustyline::Editor<ReplHelper, rustyline::history::DefaultHistory> =
        match rustyline::Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("culdb repl: cannot start the line editor: {e}");
                return scripted(session, std::io::stdin().lock(), &mut std::io::stdout().lock());
            }
        };
    ed.set_helper(Some(ReplHelper {
        names: Names::of(session),
    }));
    let hist = history_file();
    if let Some(h) = &hist {
        let _ = ed.load_history(h);
    }
    crate::cmd::out(&format!(
        "culdb {}: a link of {} input(s) ready to step. `help` lists the commands; \
`step`, `next`, `continue`, or set a breakpoint first.\n",
        env!("CARGO_PKG_VERSION"),
        session.final_state().inputs.len()
    ));
    let mut last = String::new();
    loop {
        match ed.readline(PROMPT) {
            Ok(line) => {
                let line = if line.trim().is_empty() { last.clone() } else { line };
                if line.trim().is_empty() {
                    continue;
                }
                let _ = ed.add_history_entry(line.as_str());
                let o = crate::scenario::run_line(session, &line);
                if o.error {
                    eprint!("{}", o.text);
                } else {
                    crate::cmd::out(&o.text);
                }
                last = line;
                if o.quit {
                    break;
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => {
                crate::cmd::out("(Ctrl-C: `quit` to leave)\n");
            }
            Err(_) => break,
        }
    }
    if let Some(h) = &hist {
        let _ = ed.save_history(h);
    }
    session.final_status()
}
