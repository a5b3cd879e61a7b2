//! The command line: `culdb dump`, `culdb diff`.

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
        Command::Dump { files, json } => run_dump(&files, json),
        Command::Diff { a, b, strict, json } => run_diff(&a, &b, strict, json),
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
