//! `culdb trace <link args> [--json] [--level L]`: every event of a link,
//! numbered as the debugger numbers them, as text or JSON lines.

use std::io::Write;
use std::path::Path;

use super::class::TraceLevel;
use crate::link::event::Event;

/// The trace options taken out of the link's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceArgs {
    pub json: bool,
    pub level: TraceLevel,
    pub link: Vec<String>,
}

/// Splits `--json` and `--level L` (or `--level=L`) from nvlink's arguments.
pub fn parse_args(args: &[String]) -> Result<TraceArgs, String> {
    let mut t = TraceArgs {
        json: false,
        level: TraceLevel::All,
        link: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let level = if a == "--level" {
            Some(
                it.next()
                    .ok_or_else(|| format!("--level needs one of {}", TraceLevel::NAMES.join(", ")))?
                    .clone(),
            )
        } else {
            a.strip_prefix("--level=").map(str::to_string)
        };
        if let Some(l) = level {
            t.level = TraceLevel::parse(&l)
                .ok_or_else(|| format!("unknown level `{l}`: {}", TraceLevel::NAMES.join(", ")))?;
        } else if a == "--json" {
            t.json = true;
        } else {
            t.link.push(a.clone());
        }
    }
    Ok(t)
}

/// One traced event: `#k text`, or its JSON object with `index` added.
pub fn line(k: usize, e: &Event, json: bool) -> String {
    if json {
        let mut v = super::class::json(e);
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("index".into(), serde_json::Value::from(k));
        }
        serde_json::to_string(&v).unwrap_or_default()
    } else {
        format!("#{k} {e}")
    }
}

/// Runs the link, writing the events `t.level` shows; returns the exit status.
pub fn run(t: &TraceArgs, dir: &Path, out: &mut impl Write) -> i32 {
    let mut linker = match super::linker_for(&t.link, dir) {
        Ok(l) => l,
        Err(e) => {
            for d in &e.diagnostics {
                eprintln!("{}", d.line());
            }
            return e.status;
        }
    };
    let mut k = 0usize;
    loop {
        let step = linker.step();
        for e in &step.events {
            if let Event::Diagnostic(d) = e {
                eprintln!("{}", d.line());
            }
            if t.level.shows(e) && writeln!(out, "{}", line(k, e, t.json)).is_err() {
                // A closed pipe (`culdb trace … | head`): stop quietly.
                return linker.exit_status();
            }
            k += 1;
        }
        if step.finished {
            break;
        }
    }
    let _ = out.flush();
    linker.exit_status()
}

/// `culdb trace` from the command line.
pub fn main(args: &[String]) -> i32 {
    match parse_args(args) {
        Ok(t) => run(&t, Path::new("."), &mut std::io::stdout().lock()),
        Err(e) => {
            eprintln!("culdb trace: {e}");
            2
        }
    }
}
