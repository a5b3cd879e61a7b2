//! Conformance against the corpus: each case links in-process, as
//! `culdb link` would, and is compared with what real nvlink produced
//! (`expected/`). A successful case conforms when culdb's output is
//! equivalent to nvlink's (`diff::equivalence`); a failing case conforms when
//! culdb prints nvlink's diagnostics (text after the tool name, in order)
//! with nvlink's exit status and builds no output.
//!
//! The relocatable mode links each successful case again with `-r` added
//! and compares with nvlink's `-r` output of the same inputs
//! (`expected/r/`, which `scripts/regen-corpus` writes beside the rest).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cubin::read;
use crate::diff;

/// The result for one corpus case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub case: String,
    /// nvlink's exit status for it.
    pub expected_status: i32,
    pub status: i32,
    pub conforms: bool,
    /// Output byte for byte nvlink's, .note.nv.tkinfo included (successful cases).
    pub identical: bool,
    /// For an equivalent output that is not byte-identical: where the bytes
    /// first differ (`diff::strict`).
    pub strict_difference: Option<String>,
    /// Why it does not conform (empty when it does), most useful first.
    pub differences: Vec<String>,
    /// Set when the case cannot be linked on this machine (a PTX input and no ptxas).
    pub skipped: Option<String>,
}

/// Which of nvlink's results a case is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The case's own command line (`expected/`).
    Final,
    /// The command line with `-r` added (`expected/r/`).
    Relocatable,
}

impl Mode {
    /// Where nvlink's results for this mode are, inside a case folder.
    pub fn expected(self) -> &'static str {
        match self {
            Mode::Final => "expected",
            Mode::Relocatable => "expected/r",
        }
    }
}

/// The cases of `dir` that have results for `mode` (every case for
/// [`Mode::Final`]; for [`Mode::Relocatable`], the ones nvlink linked, which
/// have `expected/r/status`).
pub fn cases_for(dir: &Path, mode: Mode) -> Vec<PathBuf> {
    cases(dir)
        .into_iter()
        .filter(|c| mode == Mode::Final || c.join(mode.expected()).join("status").is_file())
        .collect()
}

/// The corpus cases under `dir` (folders with a `link.args`), sorted.
pub fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("link.args").is_file())
        .collect();
    v.sort();
    v
}

fn link_args(case: &Path, mode: Mode) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).unwrap_or_default();
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    // The output names scripts/regen-corpus gave nvlink (`-g` records it).
    let out = if mode == Mode::Relocatable {
        v.push("-r".to_string());
        "out.r.cubin"
    } else {
        "out.cubin"
    };
    v.extend(["-o".to_string(), out.to_string()]);
    v
}

/// nvlink's stderr lines with the tool name replaced by culdb's.
pub fn as_culdb(nvlink_stderr: &str) -> Vec<String> {
    nvlink_stderr
        .lines()
        .map(|l| match l.strip_prefix("nvlink ") {
            Some(rest) => format!("{} {rest}", crate::link::diag::TOOL),
            None => l.to_string(),
        })
        .collect()
}

/// Links one case and compares it with nvlink's result for `mode`.
pub fn check_case(case: &Path, mode: Mode) -> CaseResult {
    let name = case.file_name().unwrap_or_default().to_string_lossy().to_string();
    let expected = case.join(mode.expected());
    let expected_status: i32 = std::fs::read_to_string(expected.join("status"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let mut r = CaseResult {
        case: name,
        expected_status,
        status: 0,
        conforms: false,
        identical: false,
        strict_difference: None,
        differences: Vec::new(),
        skipped: None,
    };
    // nvlink finalizes such a case's code again; culdb asks nvJitLink.
    if case.join("needs-finalizer").is_file()
        && let Err(why) = crate::link::refinalize::available()
    {
        r.skipped = Some(why);
        return r;
    }
    let args = link_args(case, mode);
    if args.iter().any(|a| a.contains(crate::link::lto::CORPUS_NVVMPATH))
        && let Err(why) = crate::link::lto::prepare_nvvmpath(Path::new(crate::link::lto::CORPUS_NVVMPATH))
    {
        r.skipped = Some(why);
        return r;
    }
    let (lines, output) = match crate::link::options::parse_in(&args, case) {
        Err(e) => {
            r.status = e.status;
            (e.diagnostics.iter().map(|d| d.line()).collect::<Vec<_>>(), None)
        }
        Ok(opts) => {
            let mut linker = crate::link::linker_from(&opts, case);
            linker.run();
            r.status = linker.exit_status();
            if r.status == 0 && linker.failed() {
                r.status = 1;
            }
            // The command line's warnings come first, as `culdb link` prints them.
            let lines = opts
                .warnings
                .iter()
                .chain(&linker.state().diagnostics)
                .map(|d| d.line())
                .collect();
            (lines, linker.output().map(<[u8]>::to_vec))
        }
    };
    // nvlink's text: culdb's bracketed hints (`[culdb: ...]`) aside, a
    // message of several lines (libNVVM's log) line by line, as printed.
    let lines: Vec<String> = lines
        .iter()
        .map(|l| crate::link::inputs::nvlink_text(l).to_string())
        .flat_map(|l| l.split('\n').map(str::to_string).collect::<Vec<_>>())
        .collect();
    let needs_ptxas = lines.iter().any(|l| l.contains("ptxas"));
    if needs_ptxas && !crate::link::find_ptxas().is_some_and(|p| p.is_file()) {
        r.skipped = Some("a PTX input needs ptxas, and this machine has none".into());
    }
    if expected_status != 0 {
        let want = as_culdb(&std::fs::read_to_string(expected.join("stderr")).unwrap_or_default());
        if lines != want {
            r.differences
                .push(format!("diagnostics: culdb {lines:?}, nvlink {want:?}"));
        }
        if r.status != expected_status {
            r.differences
                .push(format!("status: culdb {}, nvlink {expected_status}", r.status));
        }
        if output.is_some() {
            r.differences.push("culdb built an output; nvlink left none".into());
        }
        r.conforms = r.differences.is_empty();
        return r;
    }
    let Some(ours) = output else {
        r.differences.push(format!("no output: status {}, {lines:?}", r.status));
        return r;
    };
    // A successful link prints what nvlink printed too (warnings, `-v`).
    let want = as_culdb(&std::fs::read_to_string(expected.join("stderr")).unwrap_or_default());
    if lines != want {
        r.differences
            .push(format!("diagnostics: culdb {lines:?}, nvlink {want:?}"));
    }
    let theirs = match std::fs::read(expected.join("out.cubin")) {
        Ok(t) => t,
        Err(e) => {
            r.differences.push(format!("{}/out.cubin: {e}", mode.expected()));
            return r;
        }
    };
    match (read::parse(&ours), read::parse(&theirs)) {
        (Ok(a), Ok(b)) => {
            r.differences
                .extend(diff::equivalence(&a, &b).iter().map(|d| d.to_string()));
            r.conforms = r.differences.is_empty();
            if r.conforms {
                r.strict_difference = diff::strict(&ours, &a, &theirs, &b)
                    .map(|d| d.to_string())
                    .or_else(|| (ours != theirs).then(|| "section .note.nv.tkinfo differs".to_string()));
                r.identical = r.strict_difference.is_none();
            }
        }
        (Err(e), _) => r.differences.push(format!("culdb's output does not parse: {e}")),
        (_, Err(e)) => r.differences.push(format!("nvlink's output does not parse: {e}")),
    }
    r
}

/// The figures README states.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub ok_total: usize,
    pub ok_equivalent: usize,
    pub ok_identical: usize,
    pub failing_total: usize,
    pub failing_conforming: usize,
    pub skipped: usize,
}

pub fn summarize(results: &[CaseResult]) -> Summary {
    let mut s = Summary::default();
    for r in results {
        if r.skipped.is_some() {
            s.skipped += 1;
        }
        if r.expected_status == 0 {
            s.ok_total += 1;
            s.ok_equivalent += r.conforms as usize;
            s.ok_identical += r.identical as usize;
        } else {
            s.failing_total += 1;
            s.failing_conforming += r.conforms as usize;
        }
    }
    s
}
