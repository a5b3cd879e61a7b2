//! The reports' command lines: `culdb link -Map FILE`, `culdb size`,
//! `culdb why-kept`, `culdb why-pulled`.

use std::path::{Path, PathBuf};

use super::keep::{self, KeepGraph};
use super::run::{self, LinkRun};
use super::size::{self, Dim};
use crate::diag::out;

/// `-Map FILE`, `-Map=FILE`, `--Map FILE` and `--map-json FILE` taken out
/// of nvlink's arguments: (the rest, (file, as JSON)). A file ending in
/// `.json` is written as JSON too.
pub fn split_map_args(args: &[String]) -> (Vec<String>, Option<(String, bool)>) {
    let mut rest = Vec::new();
    let mut map = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (json, value) = match a.as_str() {
            "-Map" | "--Map" | "-map" => (false, it.next().cloned()),
            "--map-json" => (true, it.next().cloned()),
            _ => match a.split_once('=') {
                Some(("-Map" | "--Map" | "-map", v)) => (false, Some(v.to_string())),
                Some(("--map-json", v)) => (true, Some(v.to_string())),
                _ => {
                    rest.push(a.clone());
                    continue;
                }
            },
        };
        if let Some(v) = value {
            let json = json || v.ends_with(".json");
            map = Some((v, json));
        }
    }
    (rest, map)
}

/// Writes the map of the link `args` (run from the current folder), whose
/// output file holds `written`. The link is run again in memory: the map
/// never changes what `culdb link` writes.
pub fn write_map(args: &[String], file: &str, json: bool, written: &[u8]) -> i32 {
    let r = match run::link(args, Path::new(".")) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("culdb link: -Map: {e}");
            return 1;
        }
    };
    if r.output.as_deref() != Some(written) {
        eprintln!("culdb link: -Map: the link did not give the same output twice; no map written");
        return 1;
    }
    let output = crate::link::options::parse_in(args, Path::new("."))
        .ok()
        .and_then(|o| o.output_file);
    let m = match super::map::build(&r, written, output.as_deref()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("culdb link: -Map: {e}");
            return 1;
        }
    };
    let text = if json {
        serde_json::to_string_pretty(&m).unwrap_or_default() + "\n"
    } else {
        super::map::text(&m)
    };
    match crate::batch::write_output(Path::new(file), text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("culdb link: -Map: cannot write '{file}': {e}");
            1
        }
    }
}

/// What an operand of `culdb size` names.
enum Subject {
    Cubin(PathBuf, Vec<u8>),
    Link(Box<LinkRun>),
}

/// nvlink's arguments and their folder: `FILE.args` (a corpus `link.args`)
/// read from its folder, else the words themselves, from here.
fn link_args(words: &[String]) -> (Vec<String>, PathBuf) {
    if let [one] = words
        && one.ends_with(".args")
        && let Ok(text) = std::fs::read_to_string(one)
    {
        let dir = Path::new(one).parent().filter(|d| !d.as_os_str().is_empty());
        return (
            text.split_whitespace().map(str::to_string).collect(),
            dir.map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        );
    }
    (words.to_vec(), PathBuf::from("."))
}

fn link_run(words: &[String], cmd: &str) -> Result<LinkRun, i32> {
    let (args, dir) = link_args(words);
    match run::link(&args, &dir) {
        Ok(r) if r.status == 0 => Ok(r),
        Ok(r) => {
            for d in &r.diagnostics {
                eprintln!("{d}");
            }
            eprintln!("culdb {cmd}: the link failed (status {})", r.status);
            Err(r.status.max(1))
        }
        Err(e) => {
            eprintln!("{e}");
            eprintln!("culdb {cmd}: bad link command line");
            Err(2)
        }
    }
}

fn subject(words: &[String]) -> Result<Subject, i32> {
    if let [one] = words
        && let Ok(d) = std::fs::read(one)
        && crate::cubin::read::is_cubin(&d)
    {
        return Ok(Subject::Cubin(PathBuf::from(one), d));
    }
    link_run(words, "size").map(|r| Subject::Link(Box::new(r)))
}

fn attribute(s: &Subject) -> Result<(Vec<size::Piece>, u64), String> {
    match s {
        Subject::Cubin(p, d) => size::pieces(d, None)
            .map(|v| (v, d.len() as u64))
            .map_err(|e| format!("{}: {e}", p.display())),
        Subject::Link(r) => {
            let d = r.output.as_deref().ok_or("the link built no output")?;
            size::pieces(d, Some(r)).map(|v| (v, d.len() as u64))
        }
    }
}

const SIZE_USAGE: &str = "usage: culdb size [--by DIM[,DIM...]] [--limit N] [--json] (FILE.cubin | LINK.args | NVLINK-ARGS...)\n       culdb size --diff [--by DIM] [--json] A B   (each a cubin, a .args file or a quoted nvlink command line)\nDIM: section, kind, input, member, kernel, symbol (default: kind,section)\n";

/// `culdb size`.
pub fn size_main(args: &[String]) -> i32 {
    let mut dims = vec![Dim::Kind, Dim::Section];
    let mut json = false;
    let mut diff = false;
    let mut limit = 40usize;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        match flag {
            "--json" => json = true,
            "--diff" => diff = true,
            "-h" | "--help" => {
                out(SIZE_USAGE);
                return 0;
            }
            "--by" | "--limit" => {
                let Some(v) = inline.or_else(|| it.next().cloned()) else {
                    eprint!("culdb size: {flag} needs a value\n{SIZE_USAGE}");
                    return 2;
                };
                if flag == "--limit" {
                    match v.parse() {
                        Ok(n) => limit = n,
                        Err(_) => {
                            eprintln!("culdb size: --limit takes a number, not `{v}`");
                            return 2;
                        }
                    }
                } else {
                    let parsed: Option<Vec<Dim>> = v.split(',').map(Dim::parse).collect();
                    match parsed {
                        Some(d) if !d.is_empty() => dims = d,
                        _ => {
                            eprint!("culdb size: bad --by `{v}`\n{SIZE_USAGE}");
                            return 2;
                        }
                    }
                }
            }
            _ => {
                rest.push(a.clone());
                rest.extend(it.by_ref().cloned());
            }
        }
    }
    if rest.is_empty() {
        eprint!("{SIZE_USAGE}");
        return 2;
    }
    if diff {
        return size_diff(&rest, dims[0], json);
    }
    let s = match subject(&rest) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (pieces, total) = match attribute(&s) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("culdb size: {e}");
            return 2;
        }
    };
    let rows = size::tree(&pieces, &dims);
    if json {
        let doc = serde_json::json!({
            "file_size": total,
            "by": dims,
            "rows": rows,
            "pieces": pieces,
        });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        out(&size::text(&rows, &dims, total, limit));
    }
    0
}

fn size_diff(operands: &[String], dim: Dim, json: bool) -> i32 {
    let [a, b] = operands else {
        eprint!("culdb size: --diff takes two operands\n{SIZE_USAGE}");
        return 2;
    };
    let open = |w: &String| -> Result<Subject, i32> {
        let words: Vec<String> = if Path::new(w).is_file() {
            vec![w.clone()]
        } else {
            w.split_whitespace().map(str::to_string).collect()
        };
        subject(&words)
    };
    let (sa, sb) = match (open(a), open(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    let ((pa, ta), (pb, tb)) = match (attribute(&sa), attribute(&sb)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("culdb size: {e}");
            return 2;
        }
    };
    let keep_b = match &sb {
        Subject::Link(r) => Some(KeepGraph::of(r)),
        Subject::Cubin(..) => None,
    };
    let rows = size::diff(&pa, &pb, dim, keep_b.as_ref());
    if json {
        let doc = serde_json::json!({ "by": dim, "before": ta, "after": tb, "rows": rows });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        out(&size::diff_text(&rows, dim, ta, tb));
    }
    0
}

/// Splits `[--json] LINK-ARGS... -- NAMES...`.
fn split_names(args: &[String]) -> (bool, Vec<String>, Vec<String>) {
    let json = args.iter().any(|a| a == "--json");
    let args: Vec<String> = args.iter().filter(|a| *a != "--json").cloned().collect();
    match args.iter().rposition(|a| a == "--") {
        Some(i) => (json, args[..i].to_vec(), args[i + 1..].to_vec()),
        None => (json, args, Vec::new()),
    }
}

/// `culdb why-kept [--json] LINK-ARGS... -- SYMBOL...`.
pub fn why_kept_main(args: &[String]) -> i32 {
    let (json, link, names) = split_names(args);
    if link.is_empty() || names.is_empty() {
        eprintln!("usage: culdb why-kept [--json] (LINK.args | NVLINK-ARGS...) -- SYMBOL...");
        return 2;
    }
    let r = match link_run(&link, "why-kept") {
        Ok(r) => r,
        Err(c) => return c,
    };
    let g = KeepGraph::of(&r);
    let answers: Vec<keep::Kept> = names.iter().map(|n| g.why_kept(n)).collect();
    if json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&answers).unwrap_or_default()
        ));
    } else {
        for a in &answers {
            out(&keep::kept_text(a));
        }
    }
    if answers.iter().all(|a| a.status == "kept") {
        0
    } else {
        1
    }
}

/// `culdb why-pulled [--json] LINK-ARGS... -- MEMBER...`.
pub fn why_pulled_main(args: &[String]) -> i32 {
    let (json, link, names) = split_names(args);
    if link.is_empty() || names.is_empty() {
        eprintln!("usage: culdb why-pulled [--json] (LINK.args | NVLINK-ARGS...) -- MEMBER...");
        return 2;
    }
    let r = match link_run(&link, "why-pulled") {
        Ok(r) => r,
        Err(c) => return c,
    };
    let answers: Vec<(String, Vec<keep::Pulled>)> =
        names.iter().map(|n| (n.clone(), keep::why_pulled(&r, n))).collect();
    if json {
        let doc: Vec<_> = answers
            .iter()
            .map(|(n, v)| serde_json::json!({ "member": n, "answers": v }))
            .collect();
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        for (n, v) in &answers {
            out(&keep::pulled_text(n, v));
        }
    }
    if answers.iter().all(|(_, v)| !v.is_empty()) {
        0
    } else {
        1
    }
}
