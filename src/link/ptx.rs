//! PTX inputs: nvlink 13.5 compiles them with the ptxas built into it; culdb
//! runs an external `ptxas` with the options that give the same cubin.
//!
//! # What nvlink does (tested with nvlink/ptxas 13.5)
//!
//! * It compiles for the link target with `-arch sm_XX -m 64 -c` (that is
//!   what the JIT-compiled cubin's `.note.nv.tkinfo` records). `ptxas
//!   -arch=sm_XX -m64 -c in.ptx` gives a byte-identical cubin (checked for
//!   sm_90, sm_90a, sm_100a, sm_100f, sm_103f, sm_120); without `-m64` the
//!   tkinfo note differs, with `-O3` too.
//! * PTX taken from a fatbin entry is compiled with the ptxas options that
//!   entry records (`-O2 --compile-only -maxrregcount=16`), its `-arch`
//!   replaced by the target's: the tkinfo then says `-maxrregcount 16 -O 2
//!   -arch sm_90 -m 64 -c`, and ptxas's own warnings ("ptxas warning : For
//!   profile sm_90 adjusting per thread register count ...") are printed.
//! * A PTX error prints ptxas's lines with `application ptx input` where a
//!   file name would be (`ptxas application ptx input, line 29; error   :
//!   ...`, `ptxas fatal   : Ptx assembly aborted due to errors`), then
//!   `nvlink fatal   : elfLink fatbinary error` (status 1).

use std::path::Path;
use std::process::Command;

/// What nvlink's messages call the PTX being compiled.
pub const PTX_INPUT_NAME: &str = "application ptx input";

/// A successful compile.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub cubin: Vec<u8>,
    /// What ptxas printed (warnings), file names replaced as nvlink does.
    pub messages: Vec<String>,
}

/// Why a compile gave no cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PtxError {
    /// ptxas could not be run (or its temporary files not written).
    Run(String),
    /// ptxas rejected the PTX; its messages, file names replaced.
    Rejected { messages: Vec<String> },
}

/// The ptxas command-line options for compiling PTX for `target` (`sm_90a`),
/// given the options a fatbin entry recorded: its own `-arch` and
/// compile-only flags are dropped, the rest kept in front.
pub fn ptxas_args(entry_options: Option<&str>, target: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = entry_options.unwrap_or("").split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "-arch" | "--gpu-name" | "-m" | "--machine" => {
                words.next();
            }
            "-c" | "--compile-only" | "-m64" => {}
            _ if w.starts_with("-arch=") || w.starts_with("--gpu-name=") || w.starts_with("--machine=") => {}
            _ => out.push(w.to_string()),
        }
    }
    out.extend([format!("-arch={target}"), "-m64".to_string(), "-c".to_string()]);
    out
}

/// The `.target` architecture of PTX text (`sm_75` for `.target sm_75,
/// texmode_independent`), if it names one.
pub fn ptx_target(ptx: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&ptx[..ptx.len().min(1 << 16)]);
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim_start();
        if let Some(rest) = line.strip_prefix(".target") {
            let arch = rest.split([',', ' ', '\t']).find(|w| !w.is_empty())?;
            return Some(arch.to_string());
        }
    }
    None
}

/// Compiles PTX text for `target` with `ptxas` as nvlink's embedded ptxas
/// would (see [`ptxas_args`]).
pub fn compile(ptxas: &Path, ptx: &[u8], target: &str, entry_options: Option<&str>) -> Result<Compiled, PtxError> {
    run(ptxas, ptx, &ptxas_args(entry_options, target))
}

/// Runs `ptxas ARGS FILE.ptx -o FILE.cubin` on `ptx` in a temporary folder
/// (removed afterwards): the cubin and every line ptxas printed (stdout,
/// then stderr; the temporary file's name replaced by nvlink's
/// [`PTX_INPUT_NAME`]).
pub fn run(ptxas: &Path, ptx: &[u8], args: &[String]) -> Result<Compiled, PtxError> {
    let dir = tempfile::Builder::new()
        .prefix("culdb-ptxas-")
        .tempdir()
        .map_err(|e| PtxError::Run(format!("cannot create a temporary folder: {e}")))?;
    let input = dir.path().join("culdb-jit.ptx");
    let output = dir.path().join("culdb-jit.cubin");
    std::fs::write(&input, ptx).map_err(|e| PtxError::Run(format!("cannot write {}: {e}", input.display())))?;
    let out = Command::new(ptxas)
        .args(args)
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| PtxError::Run(format!("cannot run ptxas '{}': {e}", ptxas.display())))?;
    let input_name = input.to_string_lossy().into_owned();
    let messages: Vec<String> = [&out.stdout, &out.stderr]
        .iter()
        .flat_map(|b| {
            String::from_utf8_lossy(b)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|l| l.replace(&input_name, PTX_INPUT_NAME))
        .collect();
    if !out.status.success() {
        return Err(PtxError::Rejected { messages });
    }
    let cubin = std::fs::read(&output).map_err(|e| {
        PtxError::Run(format!(
            "ptxas '{}' succeeded but wrote no cubin ({e})",
            ptxas.display()
        ))
    })?;
    Ok(Compiled { cubin, messages })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_like_nvlink() {
        assert_eq!(ptxas_args(None, "sm_90"), ["-arch=sm_90", "-m64", "-c"]);
        assert_eq!(
            ptxas_args(Some("-arch=sm_80 -O2 --compile-only  -maxrregcount=16 "), "sm_90a"),
            ["-O2", "-maxrregcount=16", "-arch=sm_90a", "-m64", "-c"]
        );
        assert_eq!(
            ptxas_args(Some("-arch sm_80 -m 64 -c"), "sm_100f"),
            ["-arch=sm_100f", "-m64", "-c"]
        );
    }

    #[test]
    fn target_of_ptx() {
        let p = b"// c\n.version 9.5\n.target sm_75 // x\n.address_size 64\n";
        assert_eq!(ptx_target(p).as_deref(), Some("sm_75"));
        assert_eq!(
            ptx_target(b".version 7.0\n.target sm_90a, debug\n").as_deref(),
            Some("sm_90a")
        );
        assert_eq!(ptx_target(b".version 7.0\n"), None);
    }

    #[test]
    fn missing_ptxas_is_an_error_not_a_panic() {
        let e = compile(Path::new("/nonexistent/ptxas"), b".version 7.0\n", "sm_90", None).unwrap_err();
        assert!(
            matches!(&e, PtxError::Run(m) if m.contains("/nonexistent/ptxas")),
            "{e:?}"
        );
    }
}
