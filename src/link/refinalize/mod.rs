//! sm_100+ code that nvlink's finalizer writes again.
//!
//! # What nvlink 13.5 does (docs/realworld.md; corpus README observation 139)
//!
//! For an sm_100 or later target nvlink does not copy every function's
//! code from its input: it finalizes some functions again, from their code
//! and Mercury capsule, and ptxas's scoreboard allocation runs again. What
//! changes is the control field of instructions (bits 105..127: the wait
//! mask, the read and write scoreboards, rarely stall, yield and reuse):
//! in every function of the real-world sweep whose first instruction is
//! the stack-pointer load `LDC R1, c[0x0][0x37c]` with a write scoreboard,
//! that makes no call and reads R1 nowhere else (532 of 708 functions per
//! arch), and in ptxas 13.0's functions that make calls (NVSHMEM 3's
//! device library). The result is what `ptxas` without `-c` writes for the
//! same PTX (whole program), not what the object holds.
//!
//! # What culdb does
//!
//! culdb does not reimplement NVIDIA's instruction scheduler. It asks
//! nvJitLink, NVIDIA's link library, whose finalizer is nvlink's (the same
//! bytes on every function of the sweep), to link each input cubin alone
//! (with the link's libcudadevrt, for the calls into it; in a child
//! process, `nvjitlink::link_in_child`, so that a crash of NVIDIA's library
//! on a hostile input only leaves that input's code as it is), and takes from
//! that output the control fields of each function whose code has the same
//! size and the same bits outside the control fields, instructions that
//! hold a relocation aside. Everything else (layout, relocation, tables,
//! capsules) is culdb's own link. The input's bytes change before the
//! merge; the debugger shows each function so changed
//! (`MercEvent::Refinalized`). Where the finalizer deletes instructions
//! (the dummy loads before a `MEMBAR`), `shrink` moves everything that
//! points into the function. Without nvJitLink, or where a check fails,
//! the code stays as ptxas wrote it: valid code, not nvlink's bytes. `CULDB_NO_REFINALIZE=1` turns it off.

mod edit;
mod lines;
mod shrink;

use std::path::PathBuf;

use rayon::prelude::*;

use super::nvjitlink;
use crate::cubin::consts::{SHF_EXECINSTR, SHT_PROGBITS, SHT_REL, SHT_RELA};
use crate::cubin::model::Cubin;
use crate::cubin::read;

/// Bytes of one instruction (sm_70 and later).
pub(super) const INSTRUCTION: usize = 16;
/// The bits of an instruction's upper half below its control field (bit
/// 105 of the instruction is bit 41 of that half).
pub(super) const BELOW_CONTROL: u64 = (1 << 41) - 1;

/// One function whose control fields came from the finalizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The function (its `.text.<name>` section).
    pub name: String,
    pub instructions: usize,
    /// Instructions whose control field changed.
    pub changed: usize,
    /// Instructions the finalizer deleted (`shrink`).
    pub deleted: usize,
    /// The finalizer wrote the code anew (a `-g` link's debug code).
    pub rewritten: bool,
}

/// What re-finalizing one input gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Some control fields changed: the input's new bytes, the functions,
    /// and why others keep their code.
    Changed {
        data: Vec<u8>,
        functions: Vec<Function>,
        skipped: Vec<String>,
    },
    /// The finalizer wrote every control field as the input has it.
    Unchanged,
    /// The input's code stays; why.
    Kept(String),
}

/// Whether code can be finalized again here (nvJitLink found, not turned
/// off); Err says why not.
pub fn available() -> Result<(), String> {
    turned_on()?;
    nvjitlink::find(&[])
        .map(|_| ())
        .ok_or_else(|| "no libnvJitLink.so found (set CULDB_NVJITLINK)".into())
}

thread_local! {
    static OFF_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Turns re-finalization off (or on again) for the links this thread runs
/// (the fuzz smoke test sends one mutation in sixteen through nvJitLink,
/// each run being a child process).
pub fn turn_off_in_this_thread(off: bool) {
    OFF_HERE.with(|c| c.set(off));
}

/// Err when `CULDB_NO_REFINALIZE` (or `turn_off_in_this_thread`) turns
/// re-finalization off.
fn turned_on() -> Result<(), String> {
    if OFF_HERE.with(std::cell::Cell::get) {
        return Err("turned off for this thread".into());
    }
    match std::env::var_os("CULDB_NO_REFINALIZE") {
        Some(v) if v != "0" => Err("CULDB_NO_REFINALIZE is set".into()),
        _ => Ok(()),
    }
}

/// What the re-finalization of a link needs.
pub struct Finalizer {
    /// libnvJitLink, run in a child process (`nvjitlink::link_in_child`).
    library: PathBuf,
    options: Vec<String>,
    devrt: Option<Vec<u8>>,
}

impl Finalizer {
    /// nvJitLink for target `arch` (e.g. `sm_100`), looked for in
    /// `lib_dirs` first (nvcc passes the toolkit's library folder), with
    /// the link's libcudadevrt; Err says why there is none.
    pub fn new(arch: &str, debug: bool, lib_dirs: &[PathBuf], devrt: Option<Vec<u8>>) -> Result<Finalizer, String> {
        turned_on()?;
        let path = nvjitlink::find(lib_dirs).ok_or("no libnvJitLink.so found (set CULDB_NVJITLINK)")?;
        let mut options = vec![format!("-arch={arch}")];
        if debug {
            options.push("-g".into());
        }
        Ok(Finalizer {
            library: path,
            options,
            devrt,
        })
    }

    /// Re-finalizes every input, in parallel (a child process each); one
    /// outcome per input. An input that calls into another cannot be
    /// linked alone (an undefined reference): those take their code from
    /// one link of all the inputs together, function by function where
    /// the function's name is unique there.
    pub fn inputs(&self, inputs: &[(&str, &[u8])]) -> Vec<Outcome> {
        let calls_out = calls_into_others(inputs);
        let alone: Vec<Result<Vec<u8>, String>> = inputs
            .par_iter()
            .zip(&calls_out)
            .map(|(&(name, data), out)| match out {
                Some(f) => Err(format!("Undefined reference to '{f}' (defined by another input)")),
                None => self.link(&[(name, data)]),
            })
            .collect();
        let undefined = |r: &Result<Vec<u8>, String>| r.as_ref().is_err_and(|e| e.contains("Undefined reference"));
        let together = alone
            .iter()
            .any(undefined)
            .then(|| self.link(inputs))
            .and_then(Result::ok);
        inputs
            .par_iter()
            .zip(alone.par_iter())
            .map(|(&(_, data), own)| match (own, &together) {
                (Ok(out), _) => apply(data, out, false),
                (Err(_), Some(all)) if undefined(own) => apply(data, all, true),
                (Err(e), _) => Outcome::Kept(e.clone()),
            })
            .collect()
    }

    /// Links one input alone (with libcudadevrt when it has to), as
    /// `input` does.
    pub fn input(&self, name: &str, data: &[u8]) -> Outcome {
        match self.link(&[(name, data)]) {
            Ok(out) => apply(data, &out, false),
            Err(e) => Outcome::Kept(e),
        }
    }

    /// nvJitLink's cubin for `cubins` linked together with libcudadevrt,
    /// or without it when that fails (libcudadevrt's own member cannot be
    /// linked with libcudadevrt: "conflicting crs_stack attribute"); Err
    /// says why there is none.
    fn link(&self, cubins: &[(&str, &[u8])]) -> Result<Vec<u8>, String> {
        let mut inputs: Vec<nvjitlink::Input<'_>> = cubins
            .iter()
            .map(|&(name, data)| nvjitlink::Input {
                kind: nvjitlink::INPUT_CUBIN,
                data,
                name,
            })
            .collect();
        if let Some(lib) = &self.devrt {
            inputs.push(nvjitlink::Input {
                kind: nvjitlink::INPUT_LIBRARY,
                data: lib,
                name: "libcudadevrt.a",
            });
        }
        let mut linked =
            nvjitlink::link_in_child(&self.library, &self.options, &inputs, false).map_err(|e| e.to_string())?;
        if linked.code != 0 && self.devrt.is_some() && !linked.error_log.contains("Undefined reference") {
            inputs.pop();
            let again =
                nvjitlink::link_in_child(&self.library, &self.options, &inputs, false).map_err(|e| e.to_string())?;
            if again.code == 0 {
                linked = again;
            }
        }
        linked.output.filter(|_| linked.code == 0).ok_or_else(|| {
            let first = linked.error_log.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let what = if cubins.len() == 1 {
                "it alone"
            } else {
                "the inputs together"
            };
            format!("nvJitLink could not link {what} (error {}): {first}", linked.code)
        })
    }
}

/// For each input, a global symbol it leaves undefined that another input
/// defines, if any: nvJitLink cannot link that input alone.
fn calls_into_others<'a>(inputs: &[(&str, &'a [u8])]) -> Vec<Option<String>> {
    use crate::cubin::consts::{SHN_UNDEF, STB_LOCAL};
    let parsed: Vec<Option<Cubin<'a>>> = inputs.par_iter().map(|(_, d)| read::parse(d).ok()).collect();
    let mut defined: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, c) in parsed.iter().enumerate() {
        for y in c.iter().flat_map(|c| &c.symbols) {
            if y.shndx != SHN_UNDEF && y.binding != STB_LOCAL && !y.name.is_empty() {
                defined.entry(y.name.as_str()).or_insert(i);
            }
        }
    }
    parsed
        .iter()
        .enumerate()
        .map(|(i, c)| {
            c.iter()
                .flat_map(|c| &c.symbols)
                .find(|y| {
                    y.shndx == SHN_UNDEF
                        && y.binding != STB_LOCAL
                        && defined.get(y.name.as_str()).is_some_and(|&d| d != i)
                })
                .map(|y| y.name.clone())
        })
        .collect()
}

/// The outcome of taking from `out` (nvJitLink's cubin) what it changed in
/// input `data`; with `shared`, `out` links other inputs too and only
/// functions whose name is unique in it are taken.
fn apply(data: &[u8], out: &[u8], shared: bool) -> Outcome {
    let Ok(cubin) = read::parse(data) else {
        return Outcome::Kept("the input does not parse".into());
    };
    let offsets = read::section_offsets(data);
    let Ok(finalized) = read::parse(out) else {
        return Outcome::Kept("nvJitLink's cubin does not parse".into());
    };
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for x in &finalized.sections {
        *seen.entry(x.name.as_str()).or_default() += 1;
    }
    let code: Vec<usize> = (0..cubin.sections.len())
        .filter(|&i| {
            let s = &cubin.sections[i];
            s.sh_type == SHT_PROGBITS
                && s.flags & SHF_EXECINSTR != 0
                && s.name.starts_with(".text.")
                && (!shared || seen.get(s.name.as_str()) == Some(&1))
        })
        .collect();
    if code.is_empty() {
        return Outcome::Unchanged;
    }
    let take = |shrinking| take(&cubin, data, &offsets, &code, &finalized, shrinking);
    // Where the line tables of the functions shortened cannot follow, no
    // function is shortened.
    let (new, functions, mut skipped) = take(true)
        .or_else(|why| {
            take(false).map(|(n, f, mut s)| {
                s.push(why);
                (n, f, s)
            })
        })
        .unwrap_or_else(|why| (Vec::new(), Vec::new(), vec![why]));
    if functions.is_empty() && skipped.is_empty() {
        Outcome::Unchanged
    } else if functions.is_empty() {
        Outcome::Kept(std::mem::take(&mut skipped).join("; "))
    } else {
        Outcome::Changed {
            data: new,
            functions,
            skipped,
        }
    }
}

/// What `take` gives: the input's new bytes, the functions changed, and
/// why others keep their code.
type Taken = (Vec<u8>, Vec<Function>, Vec<String>);

/// The input's new bytes: the control fields of `finalized` (nvJitLink's
/// output for the input alone), and with `shrinking` the functions it
/// shortened (`shrink`, `lines`); the functions changed, and why others
/// keep their code. Err when the line tables cannot follow.
fn take(
    cubin: &Cubin<'_>,
    data: &[u8],
    offsets: &[u64],
    code: &[usize],
    finalized: &Cubin<'_>,
    shrinking: bool,
) -> Result<Taken, String> {
    let mut new = data.to_vec();
    let mut functions: Vec<Function> = Vec::new();
    let mut skipped = Vec::new();
    for &i in code {
        let s = &cubin.sections[i];
        let Some((_, f)) = finalized.section_by_name(&s.name) else {
            continue;
        };
        let relocated: Vec<u64> = cubin
            .sections
            .iter()
            .filter(|r| matches!(r.sh_type, SHT_REL | SHT_RELA) && r.info as usize == i)
            .flat_map(|r| r.relocs.iter().map(|x| x.offset / INSTRUCTION as u64))
            .collect();
        let Some(&at) = offsets.get(i) else { continue };
        let Some(into) = new.get_mut(at as usize..) else {
            continue;
        };
        let same_code = control_fields(&s.data, &f.data, &relocated, into);
        if let Some(changed) = same_code
            && changed > 0
        {
            functions.push(Function {
                name: s.name[".text.".len()..].to_string(),
                instructions: s.data.len() / INSTRUCTION,
                changed,
                deleted: 0,
                rewritten: false,
            });
        } else if shrinking && same_code.is_none() {
            // Shortened by the finalizer, or (a `-g` link) written anew.
            let (moves, code) = if let Some(plan) = shrink::plan(&s.data, &f.data) {
                let code = shrink::code(&plan, &s.data, &f.data, &relocated);
                (shrink::Moves::Shrunk(plan), code)
            } else if let Some(m) = shrink::rewritten(&s.data, &f.data, &relocated) {
                (m, f.data.to_vec())
            } else {
                skipped.push(format!(
                    "function {}: the finalizer's code differs, and not all of its {} relocated instructions can be placed in it",
                    &s.name[".text.".len()..],
                    relocated.len()
                ));
                continue;
            };
            let before = new.clone();
            let mut editor = edit::Editor {
                cubin,
                offsets,
                data: &mut new,
            };
            let fname = &s.name[".text.".len()..];
            match editor.relayout(i, &moves, &code, finalized) {
                Ok(()) => functions.push(Function {
                    name: fname.to_string(),
                    instructions: s.data.len() / INSTRUCTION,
                    changed: match &moves {
                        shrink::Moves::Shrunk(p) => p.kept_changed(&s.data, &code),
                        shrink::Moves::Rewritten { .. } => code.len() / INSTRUCTION,
                    },
                    deleted: match &moves {
                        shrink::Moves::Shrunk(p) => p.deleted(),
                        shrink::Moves::Rewritten { .. } => 0,
                    },
                    rewritten: matches!(moves, shrink::Moves::Rewritten { .. }),
                }),
                Err(why) => {
                    skipped.push(format!("function {fname}: {why}"));
                    new = before;
                }
            }
        }
    }
    let shrunk: Vec<String> = functions
        .iter()
        .filter(|f| f.deleted > 0)
        .map(|f| f.name.clone())
        .collect();
    if !shrunk.is_empty() {
        let mut editor = edit::Editor {
            cubin,
            offsets,
            data: &mut new,
        };
        lines::replace(&mut editor, &shrunk, finalized)?;
    }
    Ok((new, functions, skipped))
}

/// Writes into `into` (the input's bytes from the section on) `code` with
/// the control fields of `finalized`, when both are the same code: the
/// same size, and the same bits below the control field in every
/// instruction whose index is not in `relocated`. Returns how many
/// instructions changed, or None (nothing written) when the code differs.
fn control_fields(code: &[u8], finalized: &[u8], relocated: &[u64], into: &mut [u8]) -> Option<usize> {
    if code.len() != finalized.len() || !code.len().is_multiple_of(INSTRUCTION) || into.len() < code.len() {
        return None;
    }
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default());
    let mut changed = Vec::new();
    for (n, at) in (0..code.len()).step_by(INSTRUCTION).enumerate() {
        let (lo, hi) = (word(code, at), word(code, at + 8));
        let (flo, fhi) = (word(finalized, at), word(finalized, at + 8));
        if !relocated.contains(&(n as u64)) && (lo != flo || hi & BELOW_CONTROL != fhi & BELOW_CONTROL) {
            return None;
        }
        if hi & !BELOW_CONTROL != fhi & !BELOW_CONTROL {
            changed.push((at, (hi & BELOW_CONTROL) | (fhi & !BELOW_CONTROL)));
        }
    }
    for &(at, hi) in &changed {
        into[at + 8..at + 16].copy_from_slice(&hi.to_le_bytes());
    }
    Some(changed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instruction(lo: u64, hi: u64) -> Vec<u8> {
        [lo.to_le_bytes(), hi.to_le_bytes()].concat()
    }

    #[test]
    fn control_fields_change_only_the_control_bits() {
        // LDC R1, c[0x0][0x37c] with write scoreboard 0, then without one
        // (vectorAdd for sm_100: ptxas -c's and nvlink's first instruction).
        let code = [instruction(0x0000df00ff017b82, 0x000e220000000800), instruction(7, 1)].concat();
        let fin = [instruction(0x0000df00ff017b82, 0x000fe20000000800), instruction(7, 1)].concat();
        let mut into = code.clone();
        assert_eq!(control_fields(&code, &fin, &[], &mut into), Some(1));
        assert_eq!(into, fin);
    }

    #[test]
    fn other_code_is_left_alone() {
        let code = instruction(0x0000df00ff017b82, 0x000e220000000800);
        let mut into = code.clone();
        // An operand bit differs: not the same code.
        let fin = instruction(0x0000df00ff027b82, 0x000fe20000000800);
        assert_eq!(control_fields(&code, &fin, &[], &mut into), None);
        assert_eq!(into, code);
        // Unless a relocation patches that instruction.
        assert_eq!(control_fields(&code, &fin, &[0], &mut into), Some(1));
        assert_eq!(&into[8..], &0x000fe20000000800u64.to_le_bytes());
        // Another size: instructions were added or deleted.
        let mut into = code.clone();
        assert_eq!(
            control_fields(&code, &[fin.clone(), fin].concat(), &[], &mut into),
            None
        );
    }
}
