//! The command line: `culdb link`, `culdb repl`, `culdb trace`, `culdb dump`, `culdb diff`.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::cubin::{self, Cubin};

#[derive(Parser, Debug)]
#[command(name = "culdb", version, about = "An interactive debugger for CUDA device links")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Link like nvlink: takes nvlink's device-link command line (see
    /// `culdb link -h`). Diagnostics, their order and exit statuses are
    /// nvlink's; a failing link leaves no output file.
    #[command(disable_help_flag = true)]
    Link {
        /// Print every event of the link (one line each) on stdout.
        #[arg(long)]
        events: bool,
        /// Print the events as JSON lines on stdout instead.
        #[arg(long)]
        json: bool,
        /// nvlink's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Debug a link at a prompt: takes nvlink's command line. Reads commands
    /// from stdin line by line (and exits with the link's status) when stdin
    /// is not a terminal. `help` at the prompt lists the commands.
    #[command(disable_help_flag = true)]
    Repl {
        /// nvlink's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Print every event of a link, one line each (`--json`: JSON lines);
    /// `--level phase|input|decision|all` chooses the detail (default all).
    /// Takes nvlink's command line; writes no output file; exits with the
    /// link's status.
    #[command(disable_help_flag = true)]
    Trace {
        /// nvlink's arguments, with --json and --level anywhere among them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// List sections, symbols (with demangled names), relocations and the decoded
    /// .nv.* tables of cubins; archives, host objects and fatbins are listed
    /// member by member with the cubins inside dumped.
    Dump {
        /// Files to list.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON (one document: an array with an entry per file).
        #[arg(long)]
        json: bool,
    },
    /// Compare two cubins under the equivalence contract with nvlink. Exits 0
    /// when equivalent, 1 when not, 2 on bad input.
    Diff {
        a: PathBuf,
        b: PathBuf,
        /// Also compare the files byte for byte apart from .note.nv.tkinfo.
        #[arg(long)]
        strict: bool,
        /// Print the differences as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Link every case of a corpus (default: tests/corpus) and compare each
    /// with what nvlink produced: equivalent output for the cases nvlink
    /// linked, nvlink's diagnostics and status for the ones it refused.
    /// Exits 0 when every case conforms, 1 otherwise.
    Conform {
        #[arg(default_value = "tests/corpus")]
        corpus: PathBuf,
        /// Only the cases whose name contains this.
        #[arg(long)]
        only: Option<String>,
        /// Print one JSON document (the summary and every case).
        #[arg(long)]
        json: bool,
        /// Print every difference, not just the first three per case.
        #[arg(long)]
        all: bool,
    },
}

/// Runs the command line; returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Link { events, json, args } => run_link(&args, events, json),
        Command::Repl { args } => crate::repl::main(&args),
        Command::Trace { args } => crate::debug::trace::main(&args),
        Command::Dump { files, json } => run_dump(&files, json),
        Command::Diff { a, b, strict, json } => run_diff(&a, &b, strict, json),
        Command::Conform {
            corpus,
            only,
            json,
            all,
        } => run_conform(&corpus, only.as_deref(), json, all),
    }
}

/// Writes to stdout; a closed pipe (`culdb dump x | head`) is not an error.
fn out(s: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

/// A diagnostic naming the file, printed as one line.
fn report(cmd: &str, file: &Path, msg: impl std::fmt::Display) {
    eprintln!("culdb {cmd}: {}: {msg}", file.display());
}

fn read_file(cmd: &str, path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(d) => Some(d),
        Err(e) => {
            report(cmd, path, format!("cannot read: {e}"));
            None
        }
    }
}

fn run_dump(files: &[PathBuf], json: bool) -> i32 {
    let mut docs = Vec::new();
    let mut status = 0;
    for f in files {
        let Some(data) = read_file("dump", f) else {
            status = 2;
            continue;
        };
        match crate::dump::file(&f.display().to_string(), &data) {
            Ok(d) => {
                if json {
                    docs.push(d);
                } else {
                    out(&crate::dump::file_text(&d));
                }
            }
            Err(e) => {
                report("dump", f, e);
                status = 2;
            }
        }
    }
    if json {
        match serde_json::to_string_pretty(&docs) {
            Ok(s) => out(&format!("{s}\n")),
            Err(e) => {
                eprintln!("culdb dump: cannot write JSON: {e}");
                return 2;
            }
        }
    }
    status
}

fn parse_cubin<'d>(path: &Path, data: &'d [u8]) -> Option<Cubin<'d>> {
    match cubin::read::parse(data) {
        Ok(c) => Some(c),
        Err(e) => {
            report("diff", path, e);
            None
        }
    }
}

fn run_diff(a: &Path, b: &Path, strict: bool, json: bool) -> i32 {
    let (Some(da), Some(db)) = (read_file("diff", a), read_file("diff", b)) else {
        return 2;
    };
    let (Some(ca), Some(cb)) = (parse_cubin(a, &da), parse_cubin(b, &db)) else {
        return 2;
    };
    let diffs = crate::diff::equivalence(&ca, &cb);
    let strict_diff = if strict {
        crate::diff::strict(&da, &ca, &db, &cb)
    } else {
        None
    };
    if json {
        let doc = serde_json::json!({
            "a": a.display().to_string(),
            "b": b.display().to_string(),
            "equivalent": diffs.is_empty(),
            "differences": diffs,
            "strict": if strict { Some(serde_json::json!({ "identical": strict_diff.is_none(), "difference": strict_diff })) } else { None },
        });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        let mut o = String::new();
        for d in &diffs {
            o.push_str(&format!("{d}\n"));
        }
        if let Some(d) = &strict_diff {
            o.push_str(&format!("strict: {d}\n"));
        }
        if diffs.is_empty() {
            o.push_str(&format!("equivalent: {} and {}\n", a.display(), b.display()));
        } else {
            o.push_str(&format!(
                "{} difference(s) between {} and {}\n",
                diffs.len(),
                a.display(),
                b.display()
            ));
        }
        if strict && strict_diff.is_none() {
            o.push_str("identical apart from .note.nv.tkinfo\n");
        }
        out(&o);
    }
    if diffs.is_empty() && strict_diff.is_none() {
        0
    } else {
        1
    }
}

fn run_conform(corpus: &Path, only: Option<&str>, json: bool, all: bool) -> i32 {
    let cases: Vec<PathBuf> = crate::conform::cases(corpus)
        .into_iter()
        .filter(|c| only.is_none_or(|o| c.to_string_lossy().contains(o)))
        .collect();
    if cases.is_empty() {
        report("conform", corpus, "no corpus cases (folders with a link.args) here");
        return 2;
    }
    let mut results = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        if !json {
            eprint!("\r[{}/{}] {:<60}", n + 1, cases.len(), case.display());
        }
        results.push(crate::conform::check_case(case));
    }
    let summary = crate::conform::summarize(&results);
    if json {
        let doc = serde_json::json!({ "summary": summary, "cases": results });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        eprintln!();
        let mut o = String::new();
        for r in &results {
            let mark = match (&r.skipped, r.conforms) {
                (Some(_), _) => "skip",
                (None, true) if r.identical => "same",
                (None, true) => "ok",
                (None, false) => "DIFF",
            };
            o.push_str(&format!("{mark:<5} {}\n", r.case));
            let shown = if all { r.differences.len() } else { 3 };
            for d in r.differences.iter().take(shown) {
                o.push_str(&format!("        {d}\n"));
            }
            if r.differences.len() > shown {
                o.push_str(&format!("        … {} more\n", r.differences.len() - shown));
            }
        }
        o.push_str(&format!(
            "successful cases: {}/{} equivalent ({} byte-identical); failing cases: {}/{} conform; {} skipped\n",
            summary.ok_equivalent,
            summary.ok_total,
            summary.ok_identical,
            summary.failing_conforming,
            summary.failing_total,
            summary.skipped
        ));
        out(&o);
    }
    if results.iter().all(|r| r.conforms || r.skipped.is_some()) {
        0
    } else {
        1
    }
}

fn run_link(args: &[String], events: bool, json: bool) -> i32 {
    use crate::link::{self, options};
    let opts = match options::parse_in(args, Path::new(".")) {
        Ok(o) => o,
        Err(e) => {
            for d in &e.diagnostics {
                eprintln!("{}", d.line());
            }
            return e.status;
        }
    };
    for w in &opts.warnings {
        eprintln!("{}", w.line());
    }
    if opts.help {
        out(&options::usage());
        return 0;
    }
    if opts.version {
        out(&format!(
            "culdb {} (links as nvlink 13.5 does)\n",
            env!("CARGO_PKG_VERSION")
        ));
        return 0;
    }
    let mut linker = link::linker_from(&opts, Path::new("."));
    loop {
        let step = linker.step();
        for e in &step.events {
            if let link::event::Event::Diagnostic(d) = e {
                eprintln!("{}", d.line());
            }
            if json {
                out(&format!("{}\n", serde_json::to_string(e).unwrap_or_default()));
            } else if events {
                out(&format!("{e}\n"));
            }
        }
        if step.finished {
            break;
        }
    }
    let status = linker.exit_status();
    if status != 0 || linker.failed() {
        return if status != 0 { status } else { 1 };
    }
    let (Some(bytes), Some(path)) = (linker.output(), opts.output_file.as_deref()) else {
        eprintln!("{}", link::diag::Diagnostic::fatal("no output was built").line());
        return 1;
    };
    match write_output(Path::new(path), bytes) {
        Ok(()) => 0,
        Err(e) => {
            let d = link::diag::Diagnostic::fatal(format!("Could not open output file '{path}': {e}"));
            eprintln!("{}", d.line());
            1
        }
    }
}

/// Writes the output through a temporary file beside it, renamed into
/// place, so that a failed write leaves no partial output file.
fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".culdb-{}.tmp", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let r = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
