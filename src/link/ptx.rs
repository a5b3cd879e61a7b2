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

/// The files [`run`] gives ptxas, which ptxas records in the cubin's
/// `.note.nv.tkinfo` entry (see [`as_nvlink_records`]).
const JIT_PTX: &str = "culdb-jit.ptx";
const JIT_CUBIN: &str = "culdb-jit.cubin";

/// The ptxas inside nvlink records PTX it compiled at link time as object
/// `elf.o`, with its options alone: no input file, no `-o` (a `-g` link of
/// a PTX-only `compute_80 -G` object into sm_86 keeps that entry). An
/// external ptxas records the files [`run`] gave it; this rewrites those
/// entries of an input's `.note.nv.tkinfo` bytes as nvlink's ptxas writes
/// them, and leaves every other entry (and bytes it cannot read) as it is.
/// `jit`: the note is that of a cubin culdb compiled from PTX, whose ptxas
/// records (on sm_100+ without file names) drop a family suffix as
/// nvlink's do (see [`without_family_suffix`]).
pub fn as_nvlink_records(note: &[u8], jit: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(note.len());
    let mut at = 0;
    let word = |i: usize| {
        note.get(i..i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let pad = |n: usize| n.div_ceil(4) * 4;
    while at < note.len() {
        let (Some(namesz), Some(descsz)) = (word(at), word(at + 4)) else {
            break;
        };
        let desc_at = at + 12 + pad(namesz);
        let end = desc_at.saturating_add(pad(descsz));
        let Some(desc) = note.get(desc_at..desc_at.saturating_add(descsz)) else {
            break;
        };
        if end > note.len() {
            break;
        }
        match jit_record(desc, jit) {
            Some(new) => {
                out.extend_from_slice(&note[at..at + 4]);
                out.extend_from_slice(&(new.len() as u32).to_le_bytes());
                out.extend_from_slice(&note[at + 8..desc_at]);
                out.extend_from_slice(&new);
                out.resize(out.len() + pad(new.len()) - new.len(), 0);
            }
            None => out.extend_from_slice(&note[at..end]),
        }
        at = end;
    }
    out.extend_from_slice(&note[at.min(note.len())..]);
    out
}

/// One tkinfo descriptor (u16 version, u16, u32 object offset, four string
/// offsets: tool, version, branch, options; then the strings) rewritten
/// when it names [`JIT_CUBIN`], or is a ptxas record of a `jit` cubin
/// that names no file.
fn jit_record(desc: &[u8], jit: bool) -> Option<Vec<u8>> {
    let head = desc.get(..24)?;
    let pool = &desc[24..];
    let string = |off: usize| -> Option<&[u8]> {
        let s = pool.get(off..)?;
        Some(&s[..s.iter().position(|&b| b == 0)?])
    };
    let offset = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]) as usize;
    let object = string(offset(4))?;
    let named = object == JIT_CUBIN.as_bytes();
    let unnamed_jit = jit && object.is_empty() && string(offset(8))? == b"ptxas";
    if !(named || unnamed_jit) {
        return None;
    }
    let args = String::from_utf8_lossy(string(offset(20))?).into_owned();
    let args = args
        .replacen(&format!("{JIT_PTX} "), "", 1)
        .replacen(&format!("-o {JIT_CUBIN} "), "", 1);
    let args = without_family_suffix(&args);
    if !named && args.as_bytes() == string(offset(20))? {
        // Nothing to rewrite: the record stays byte for byte.
        return None;
    }
    let strings: [&[u8]; 5] = [
        if named { b"elf.o" } else { object },
        string(offset(8))?,
        string(offset(12))?,
        string(offset(16))?,
        args.as_bytes(),
    ];
    let mut blob = Vec::new();
    let mut offs = Vec::new();
    for s in strings {
        offs.push(blob.len() as u32);
        blob.extend_from_slice(s);
        blob.push(0);
    }
    let mut d = head[..4].to_vec();
    for o in offs {
        d.extend_from_slice(&o.to_le_bytes());
    }
    d.extend_from_slice(&blob);
    Some(d)
}

/// nvlink's ptxas records a family target without its suffix: PTX compiled
/// for `--arch=sm_100f` says `-arch sm_100` (sm_103f, sm_110f, sm_120f
/// alike; `sm_100a` keeps its suffix). Found by the eleventh sweep; the
/// code is the same.
fn without_family_suffix(args: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut after_arch = false;
    for w in args.split(' ') {
        let family = after_arch
            && w.strip_prefix("sm_")
                .and_then(|n| n.strip_suffix('f'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        out.push(if family { &w[..w.len() - 1] } else { w });
        after_arch = w == "-arch";
    }
    out.join(" ")
}

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
    let input = dir.path().join(JIT_PTX);
    let output = dir.path().join(JIT_CUBIN);
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

    /// One tkinfo note entry: `strings` are object, tool, version, branch, options.
    fn tk_entry(strings: [&str; 5]) -> Vec<u8> {
        let mut blob = Vec::new();
        let mut desc = vec![2, 0, 0, 0];
        for s in strings {
            desc.extend_from_slice(&(blob.len() as u32).to_le_bytes());
            blob.extend_from_slice(s.as_bytes());
            blob.push(0);
        }
        desc.extend_from_slice(&blob);
        let mut b = Vec::new();
        for v in [12u32, desc.len() as u32, 2000] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(b"NVIDIA Corp\0");
        b.extend_from_slice(&desc);
        b.resize(b.len().div_ceil(4) * 4, 0);
        b
    }

    #[test]
    fn jit_records_as_nvlink_writes_them() {
        let (v, br) = ("Cuda compilation tools", "Build x");
        let other = tk_entry(["a.cubin", "ptxas", v, br, "a.ptx -o a.cubin -arch sm_86 "]);
        let jit = tk_entry([
            JIT_CUBIN,
            "ptxas",
            v,
            br,
            "culdb-jit.ptx -no-bb-merge  -ret-end  -g  -o culdb-jit.cubin -arch sm_86 -m 64 -c  ",
        ]);
        let want = tk_entry([
            "elf.o",
            "ptxas",
            v,
            br,
            "-no-bb-merge  -ret-end  -g  -arch sm_86 -m 64 -c  ",
        ]);
        let note = [other.clone(), jit].concat();
        assert_eq!(as_nvlink_records(&note, true), [other.clone(), want].concat());
        // Entries of other tools, and bytes that do not parse, stay as they are.
        assert_eq!(as_nvlink_records(&other, true), other);
        assert_eq!(as_nvlink_records(&other[..30], true), other[..30].to_vec());
        // sm_100+ records name no file; a family target loses its suffix
        // in a JIT cubin's record only (jit_family_target_sm100f).
        let family = tk_entry(["", "ptxas", v, br, "-arch sm_100f -m 64 -c  "]);
        let plain = tk_entry(["", "ptxas", v, br, "-arch sm_100 -m 64 -c  "]);
        assert_eq!(as_nvlink_records(&family, true), plain);
        assert_eq!(as_nvlink_records(&family, false), family);
        let accelerated = tk_entry(["", "ptxas", v, br, "-arch sm_100a -m 64 -c  "]);
        assert_eq!(as_nvlink_records(&accelerated, true), accelerated);
    }

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
