//! Capturing the links of a build: with `CULDB_CAPTURE=DIR` set, every link
//! culdb performs as `nvlink` (under nvcc or CMake, through `culdb toolkit`)
//! is also saved as `DIR/NNNN/`: a copy of its input files and libraries, a
//! jobs file (`job.ron`) that links them again from there, and
//! `record.json` (the folder it ran in, its command line, exit status, time
//! and output size). `culdb captured DIR` lists them and writes
//! `DIR/jobs.ron` for `culdb batch`; `--repl N` / `--tui N` open one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What `record.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// The folder the link ran in.
    pub cwd: String,
    /// The command line as nvlink got it.
    pub args: Vec<String>,
    /// The command line `job.ron` runs (inputs copied into `inputs/`).
    pub replay_args: Vec<String>,
    pub status: i32,
    pub millis: u128,
    /// The output's size, when one was written.
    pub output_size: Option<u64>,
}

/// Saves one link into a new numbered folder of `dir`; errors are reported
/// on stderr and never change the link's outcome.
pub fn save(dir: &Path, args: &[String], status: i32, millis: u128, output: Option<&Path>) {
    if let Err(e) = try_save(dir, args, status, millis, output) {
        eprintln!("culdb: could not capture this link in {}: {e}", dir.display());
    }
}

fn try_save(dir: &Path, args: &[String], status: i32, millis: u128, output: Option<&Path>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let slot = next_slot(dir)?;
    let inputs = slot.join("inputs");
    std::fs::create_dir_all(&inputs).map_err(|e| e.to_string())?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let replay_args = rewrite(args, &cwd, &inputs)?;
    let job = format!(
        "(jobs: [(name: {:?}, args: {:?})])\n",
        slot.file_name().unwrap_or_default().to_string_lossy(),
        replay_args
    );
    std::fs::write(slot.join("job.ron"), job).map_err(|e| e.to_string())?;
    let record = Record {
        cwd: cwd.display().to_string(),
        args: args.to_vec(),
        replay_args,
        status,
        millis,
        output_size: output.and_then(|o| std::fs::metadata(o).ok()).map(|m| m.len()),
    };
    let json = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
    std::fs::write(slot.join("record.json"), json).map_err(|e| e.to_string())
}

/// A new `NNNN` folder (created atomically, so parallel links of one build
/// each get their own).
fn next_slot(dir: &Path) -> Result<PathBuf, String> {
    for n in 1..100_000 {
        let p = dir.join(format!("{n:04}"));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("too many captured links".into())
}

/// The command line with its input files and `-l` libraries copied into
/// `inputs` (named there as `inputs/...`, relative to the capture folder),
/// the output and register file written beside `job.ron`.
fn rewrite(args: &[String], cwd: &Path, inputs: &Path) -> Result<Vec<String>, String> {
    let lib_dirs: Vec<PathBuf> = lib_dirs(args).into_iter().map(|d| cwd.join(d)).collect();
    let mut out = Vec::new();
    let mut n = 0;
    let mut copy = |path: &Path| -> Result<String, String> {
        n += 1;
        let name = format!("{n:03}-{}", path.file_name().unwrap_or_default().to_string_lossy());
        std::fs::copy(path, inputs.join(&name)).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(format!("inputs/{name}"))
    };
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output-file" => {
                it.next();
                out.extend(["-o".to_string(), "out.cubin".to_string()]);
            }
            s if s.starts_with("-o=") || s.starts_with("--output-file=") => out.push("-o=out.cubin".into()),
            s if s.starts_with("--register-link-binaries=") || s.starts_with("-register-link-binaries=") => {
                out.push("--register-link-binaries=register.c".into());
            }
            "-L" | "--library-path" => {
                it.next();
            }
            s if s.starts_with("-L") || s.starts_with("--library-path=") => {}
            s if s.starts_with("-l") && s.len() > 2 => {
                let name = &s[2..];
                match lib_dirs
                    .iter()
                    .map(|d| d.join(format!("lib{name}.a")))
                    .find(|p| p.is_file())
                {
                    Some(lib) => {
                        // Copied under its own name, so that libcudadevrt stays
                        // a system library (src/link/system_lib.rs).
                        let dest = inputs.join(lib.file_name().unwrap_or_default());
                        std::fs::copy(&lib, &dest).map_err(|e| format!("{}: {e}", lib.display()))?;
                        out.push(s.to_string());
                    }
                    None => out.push(s.to_string()),
                }
            }
            s if !s.starts_with('-') && cwd.join(s).is_file() => out.push(copy(&cwd.join(s))?),
            s => out.push(s.to_string()),
        }
    }
    out.push("-Linputs".into());
    Ok(out)
}

/// The `-L` folders of a command line, in order.
fn lib_dirs(args: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-L" || a == "--library-path" {
            v.extend(it.next().cloned());
        } else if let Some(d) = a.strip_prefix("--library-path=").or_else(|| a.strip_prefix("-L")) {
            v.push(d.to_string());
        }
    }
    v
}

/// The captured links of `dir`, by number.
pub fn list(dir: &Path) -> Result<Vec<(String, Record)>, String> {
    let mut v = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path().join("record.json");
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let r: Record = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        v.push((e.file_name().to_string_lossy().into_owned(), r));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// `DIR/jobs.ron`: every captured link as a `culdb batch` job.
pub fn jobs_file(dir: &Path, links: &[(String, Record)]) -> Result<PathBuf, String> {
    let mut text = String::from("(jobs: [\n");
    for (n, r) in links {
        text.push_str(&format!("    (name: {n:?}, dir: {n:?}, args: {:?}),\n", r.replay_args));
    }
    text.push_str("])\n");
    let path = dir.join("jobs.ron");
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_folders_in_order() {
        let args: Vec<String> = ["-L", "a", "-Lb", "--library-path=c", "x.o"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(lib_dirs(&args), ["a", "b", "c"]);
    }
}
