//! `save scenario FILE`: turns a live session into a scenario that replays
//! it. The link comes from the session's origin (the scenario it was opened
//! from, or nvlink's command line with its files made relative to FILE);
//! the breakpoints are the `break` commands run before the first other
//! command, the script is every command run since; the expectations are
//! what the session found: where it stands, the exit status, the
//! diagnostics and the weak decisions of the whole link.

use std::path::{Component, Path, PathBuf};

use super::replay::{run_to_end, weak_outcome};
use super::{Expect, Input, Scenario, StopAt};
use crate::cmd::{self, Command};
use crate::debug::Session;

/// `path` relative to the folder `base` (both made absolute first); the
/// absolute path when they share nothing.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let abs =
        |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| std::env::current_dir().unwrap_or_default().join(p));
    let (p, b) = (abs(path), abs(base));
    let pc: Vec<Component> = p.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return p;
    }
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &pc[common..] {
        out.push(c);
    }
    out
}

/// The folder a scenario file lives in.
fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The link of a session opened on nvlink's command line, as scenario
/// fields: the arch, and every other argument in order (files as `File`
/// relative to `to`, `-o` left out, `-L` folders relative to `to`).
fn link_from_args(args: &[String], dir: &Path, to: &Path) -> (String, Vec<String>, Vec<Input>) {
    let mut arch = String::new();
    let mut options = Vec::new();
    let mut inputs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value_of = |a: &str, names: &[&str]| -> Option<Option<String>> {
            for n in names {
                if a == *n {
                    return Some(None);
                }
                if let Some(v) = a.strip_prefix(&format!("{n}=")) {
                    return Some(Some(v.to_string()));
                }
            }
            None
        };
        if let Some(v) = value_of(a, &["-arch", "--arch"]) {
            arch = v.or_else(|| it.next().cloned()).unwrap_or_default();
        } else if let Some(v) = value_of(a, &["-o", "--output-file"]) {
            if v.is_none() {
                it.next();
            }
        } else if let Some(d) = a.strip_prefix("-L") {
            let d = if d.is_empty() {
                it.next().cloned().unwrap_or_default()
            } else {
                d.to_string()
            };
            options.push(format!("-L{}", relative_to(&dir.join(d), to).display()));
        } else if !a.starts_with('-') && dir.join(a).is_file() {
            inputs.push(Input::File(
                relative_to(&dir.join(a), to).to_string_lossy().into_owned(),
            ));
        } else {
            inputs.push(Input::Arg(a.clone()));
        }
    }
    (arch, options, inputs)
}

/// The scenario that replays `s`, to be written at `file`.
pub fn scenario_of(s: &Session, file: &Path) -> Scenario {
    let to = folder_of(file);
    let origin = s.origin();
    let replayed = origin
        .scenario
        .as_ref()
        .and_then(|(ron, from)| Some((Scenario::parse(from, ron).ok()?, from)));
    let mut sc = match replayed {
        Some((mut sc, from)) => {
            let from_dir = folder_of(from);
            for i in &mut sc.inputs {
                if let Input::File(p) = i {
                    *p = relative_to(&from_dir.join(&*p), &to).to_string_lossy().into_owned();
                }
            }
            sc.breakpoints.clear();
            sc.script.clear();
            sc
        }
        None => {
            let (arch, options, inputs) = link_from_args(&origin.args, &origin.dir, &to);
            Scenario {
                name: file.file_stem().unwrap_or_default().to_string_lossy().into_owned(),
                description: "Recorded with `save scenario`.".into(),
                arch,
                options,
                inputs,
                breakpoints: Vec::new(),
                script: Vec::new(),
                expect: Expect::default(),
            }
        }
    };
    let mut leading = true;
    for line in s.journal() {
        match cmd::parse(line) {
            Ok(Some(Command::Break(..))) if leading => {
                let args = line
                    .trim()
                    .split_once(char::is_whitespace)
                    .map_or("", |(_, r)| r.trim());
                sc.breakpoints.push(args.to_string());
            }
            _ => {
                leading = false;
                sc.script.push(line.clone());
            }
        }
    }
    let end = run_to_end(s);
    let weak = end.events().iter().filter_map(weak_outcome).collect();
    sc.expect = Expect {
        status: Some(end.exit_status()),
        diagnostics: end.state().diagnostics.iter().map(|d| d.line()).collect(),
        stop: s.current().map(|(k, e)| StopAt {
            event: Some(k),
            text: Some(e.to_string()),
        }),
        weak,
        ..Expect::default()
    };
    sc
}

/// [`cmd::run_line`] with what the line asks of this layer done:
/// `save scenario FILE` writes the scenario (the command language knows no
/// scenario files). The REPL, the TUI's command line and scenario scripts
/// run their lines through here.
pub fn run_line(s: &mut Session, line: &str) -> cmd::Output {
    let o = cmd::run_line(s, line);
    perform(s, o)
}

/// Carries out the [`cmd::Action`] an output asks for; the output of doing it.
pub fn perform(s: &Session, o: cmd::Output) -> cmd::Output {
    match &o.action {
        Some(cmd::Action::SaveScenario(file)) => match save(s, file) {
            Ok(t) => cmd::Output::ok(t),
            Err(e) => cmd::Output::err(e),
        },
        None => o,
    }
}

/// Writes the scenario of `s` to `file`; returns what to tell the user.
pub fn save(s: &Session, file: &Path) -> Result<String, String> {
    let sc = scenario_of(s, file);
    // Through a temporary file beside it, renamed on success: a full disk
    // leaves the old file, not a truncated one.
    crate::batch::write_output(file, sc.to_ron().as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(format!(
        "Saved scenario `{}` to {}: {} breakpoint(s), {} command(s); `culdb replay {}` checks it.\n",
        sc.name,
        file.display(),
        sc.breakpoints.len(),
        sc.script.len(),
        file.display()
    ))
}
