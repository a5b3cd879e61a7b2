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
//! (with the link's libcudadevrt, for the calls into it), or all the inputs
//! together where one calls into another or one is `-G` code (whose module
//! attribute makes the finalizer put exit barriers into every kernel of
//! the link); each run is a child process
//! (`nvjitlink::link_in_child`), so that a crash of NVIDIA's library on a
//! hostile input only leaves that input's code as it is. From that output
//! it takes, per function:
//!
//! - the control fields, where the code is otherwise the same
//!   (instructions that hold a relocation aside);
//! - the shortened code, where the finalizer deleted the dummy loads
//!   before a fence (`shrink`), moving everything that points into the
//!   function (`edit`), its line sequences and its register ranges
//!   (`lines`);
//! - the code written anew (a `-g` link's libcudadevrt, ptxas 13.0's
//!   sm_120 code), where each relocated instruction can be placed in it;
//!   with exit barriers put in (a `-G` input, `-g`), where every
//!   instruction can (`shrink::rewritten`);
//! - the capsule, where its items are not the code's instructions and the
//!   finalizer linked every input (`finalizer_capsule`).
//!
//! Everything else (layout, relocation, tables) is culdb's own link. The
//! input's bytes change before the merge; the debugger shows each function
//! so changed (`MercEvent::Refinalized`) and why others keep their code
//! (`RefinalizeSkipped`). Without nvJitLink, or where a check fails, the
//! code stays as ptxas wrote it: valid code, not nvlink's bytes.
//! `CULDB_NO_REFINALIZE=1` turns it off.

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

/// One function whose code came from the finalizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The function (its `.text.<name>` section).
    pub name: String,
    pub instructions: usize,
    /// Instructions whose control field changed.
    pub changed: usize,
    /// Instructions the finalizer deleted (`shrink`).
    pub deleted: usize,
    /// The finalizer wrote the code anew (a `-g` link's libcudadevrt,
    /// ptxas 13.0's sm_120 code).
    pub rewritten: bool,
    /// The capsule's operand fields are the finalizer's (`finalizer_capsule`).
    pub capsule: bool,
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
    /// linked alone (an undefined reference), and none is beside `-G` code
    /// (`symbol_facts`): those take their code from one link of all the
    /// inputs together, function by function where
    /// the function's name is unique there. `whole`: `inputs` are all of a
    /// final link's, and capsules may be taken, from a link of them all or
    /// of one alone (nvJitLink's capsule of an object linked alone equals
    /// nvlink's with other objects beside it: capsule_recursion_sm100).
    pub fn inputs(&self, inputs: &[(&str, &[u8])], whole: bool) -> Vec<Outcome> {
        let (not_alone, code_names) = symbol_facts(inputs);
        let alone: Vec<Result<Vec<u8>, String>> = inputs
            .par_iter()
            .zip(&not_alone)
            .map(|(&(name, data), why)| match why {
                Some(why) => Err(why.clone()),
                None => self.link(&[(name, data)]),
            })
            .collect();
        // Known before, or nvJitLink found a reference it cannot resolve.
        let needs_all =
            |i: usize| not_alone[i].is_some() || alone[i].as_ref().is_err_and(|e| e.contains("Undefined reference"));
        let together = (0..inputs.len())
            .any(needs_all)
            .then(|| self.link(inputs))
            .and_then(Result::ok);
        // A local function several inputs define (`__cuda_sm20_div_u64`)
        // comes out of the link of all inputs once per input, in input
        // order (NVSHMEM for sm_120: ring.o's copy, then
        // transfer_device.cu.o's, as nvlink's output has them).
        let defined_before =
            |i: usize, name: &str| code_names[..i].iter().filter(|n| n.iter().any(|x| x == name)).count();
        let defined_by = |name: &str| code_names.iter().filter(|n| n.iter().any(|x| x == name)).count();
        inputs
            .par_iter()
            .zip(alone.par_iter())
            .enumerate()
            .map(|(i, (&(_, data), own))| match (own, &together) {
                (Ok(out), _) => apply(data, out, None, whole),
                (Err(_), Some(all)) if needs_all(i) => {
                    let copy = |name: &str| (defined_before(i, name), defined_by(name));
                    apply(data, all, Some(&copy), whole)
                }
                (Err(e), _) => Outcome::Kept(e.clone()),
            })
            .collect()
    }

    /// Links one input alone (with libcudadevrt when it has to), as
    /// `input` does.
    pub fn input(&self, name: &str, data: &[u8]) -> Outcome {
        match self.link(&[(name, data)]) {
            Ok(out) => apply(data, &out, None, false),
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

/// Whether `c`'s module `.nv.info` asks for errors made visible at exit
/// (`EIATTR_GEN_ERRBAR_AT_EXIT`, what `-G` code carries).
fn errors_visible_at_exit(c: &Cubin<'_>) -> bool {
    use crate::cubin::nvinfo::{self, code};
    c.section_by_name(".nv.info")
        .and_then(|(_, s)| nvinfo::decode(&s.data).ok())
        .is_some_and(|info| info.find(code::GEN_ERRBAR_AT_EXIT).next().is_some())
}

/// What re-finalization needs to know of the inputs before linking them:
/// for each, why it is not linked alone, if so (a global symbol it
/// leaves undefined that another input defines: nvJitLink cannot link it
/// alone; or another input is `-G` code, whose module attribute makes the
/// finalizer put exit barriers into every kernel of the link, which only a
/// link of them all shows: mixed_g_exit_barriers_sm100), and the names of
/// its code sections.
type Facts = (Vec<Option<String>>, Vec<Vec<String>>);

fn symbol_facts(inputs: &[(&str, &[u8])]) -> Facts {
    use crate::cubin::consts::{SHN_UNDEF, STB_LOCAL};
    let parsed: Vec<Option<Cubin<'_>>> = inputs.par_iter().map(|(_, d)| read::parse(d).ok()).collect();
    let mut defined: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, c) in parsed.iter().enumerate() {
        for y in c.iter().flat_map(|c| &c.symbols) {
            if y.shndx != SHN_UNDEF && y.binding != STB_LOCAL && !y.name.is_empty() {
                defined.entry(y.name.as_str()).or_insert(i);
            }
        }
    }
    let debug_input = inputs.len() > 1 && parsed.iter().flatten().any(errors_visible_at_exit);
    let not_alone = parsed
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
                .map(|y| format!("Undefined reference to '{}' (defined by another input)", y.name))
                .or_else(|| {
                    debug_input.then(|| {
                        "another input is -G code: the finalizer puts exit barriers into every kernel".to_string()
                    })
                })
        })
        .collect();
    let code_names = parsed
        .iter()
        .map(|c| {
            c.iter()
                .flat_map(|c| &c.sections)
                .filter(|x| x.name.starts_with(".text."))
                .map(|x| x.name.clone())
                .collect()
        })
        .collect();
    (not_alone, code_names)
}

/// The sections of a function's own, by name prefix (the function's name
/// follows).
const PER_FUNCTION: &[&str] = &[
    ".text.",
    ".rela.text.",
    ".rel.text.",
    ".nv.info.",
    ".nv.constant0.",
    ".nv.shared.",
    ".nv.capmerc.text.",
    ".nv.merc.rela.text.",
    ".nv.merc.nv.info.",
];

/// `fin` with, for each function name in `keep`, only the copy numbered
/// there (its sections and symbols, counted in order) under its own name:
/// the other copies' names get a suffix no name has.
fn one_copy<'a>(fin: &Cubin<'a>, keep: &std::collections::HashMap<String, usize>) -> Cubin<'a> {
    let mut view = fin.clone();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for x in &mut view.sections {
        let Some(f) = PER_FUNCTION.iter().find_map(|p| x.name.strip_prefix(p)) else {
            continue;
        };
        let Some(&k) = keep.get(f) else { continue };
        let n = seen.entry(x.name.clone()).or_default();
        if *n != k {
            x.name = format!("{}\u{1}{n}", x.name);
        }
        *n += 1;
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for y in &mut view.symbols {
        let Some(&k) = keep.get(&y.name) else { continue };
        let n = seen.entry(y.name.clone()).or_default();
        if *n != k {
            y.name = format!("{}\u{1}{n}", y.name);
        }
        *n += 1;
    }
    view
}

/// Which copy of a function (by code section name) in the link of all
/// inputs is this input's, and how many inputs define one.
type CopyOf<'a> = &'a (dyn Fn(&str) -> (usize, usize) + Sync);

/// The outcome of taking from `out` (nvJitLink's cubin) what it changed in
/// input `data`; with `shared`, `out` links the other inputs too: a
/// function several inputs define is taken from this input's copy when
/// the link kept every copy, and not otherwise. `capsules`: a final
/// link's, whose capsules may be taken (`finalizer_capsule`).
fn apply(data: &[u8], out: &[u8], shared: Option<CopyOf<'_>>, capsules: bool) -> Outcome {
    let Ok(cubin) = read::parse(data) else {
        return Outcome::Kept("the input does not parse".into());
    };
    let offsets = read::section_offsets(data);
    let Ok(mut finalized) = read::parse(out) else {
        return Outcome::Kept("nvJitLink's cubin does not parse".into());
    };
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for x in &finalized.sections {
        *seen.entry(x.name.as_str()).or_default() += 1;
    }
    let mut keep = std::collections::HashMap::new();
    let code: Vec<usize> = (0..cubin.sections.len())
        .filter(|&i| {
            let s = &cubin.sections[i];
            if !(s.sh_type == SHT_PROGBITS && s.flags & SHF_EXECINSTR != 0 && s.name.starts_with(".text.")) {
                return false;
            }
            let copies = seen.get(s.name.as_str()).copied().unwrap_or(0);
            match shared {
                Some(copy_of) if copies > 1 => {
                    let (k, of) = copy_of(&s.name);
                    if of != copies {
                        return false;
                    }
                    keep.insert(s.name[".text.".len()..].to_string(), k);
                    true
                }
                _ => true,
            }
        })
        .collect();
    if !keep.is_empty() {
        finalized = one_copy(&finalized, &keep);
    }
    if code.is_empty() {
        return Outcome::Unchanged;
    }
    let take = |shrinking| take(&cubin, data, &offsets, &code, &finalized, shrinking, capsules);
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
/// shortened (`shrink`, `lines`), and with `capsules` the capsules whose
/// items are not the code's instructions (`finalizer_capsule`); the
/// functions changed, and why others keep their code. Err when the line
/// tables cannot follow.
fn take(
    cubin: &Cubin<'_>,
    data: &[u8],
    offsets: &[u64],
    code: &[usize],
    finalized: &Cubin<'_>,
    shrinking: bool,
    capsules: bool,
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
        let capsule = capsules && same_code.is_some() && finalizer_capsule(cubin, offsets, &mut new, i, finalized);
        if let Some(changed) = same_code
            && (changed > 0 || capsule)
        {
            functions.push(Function {
                name: s.name[".text.".len()..].to_string(),
                instructions: s.data.len() / INSTRUCTION,
                changed,
                deleted: 0,
                rewritten: false,
                capsule,
            });
        } else if shrinking && same_code.is_none() {
            // Shortened by the finalizer, or (a `-g` link) written anew.
            let (moves, code) = if let Some(plan) = shrink::plan(&s.data, &f.data, &relocated) {
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
                    capsule: true,
                }),
                Err(why) => {
                    skipped.push(format!("function {fname}: {why}"));
                    new = before;
                }
            }
        }
    }
    // Code of another length: shortened, or written anew.
    let moved: Vec<String> = functions
        .iter()
        .filter(|f| f.deleted > 0 || f.rewritten)
        .map(|f| f.name.clone())
        .collect();
    let mut editor = edit::Editor {
        cubin,
        offsets,
        data: &mut new,
    };
    if !moved.is_empty() {
        lines::replace(&mut editor, &moved, finalized)?;
    }
    lines::register_ranges(&mut editor, &moved, finalized);
    Ok((new, functions, skipped))
}

/// Where the items of function `code`'s capsule are not its instructions
/// (ptxas 13.0's code, NVSHMEM 3's device library; ptxas 13.5's calls that
/// take a return address), culdb cannot tell which record holds a
/// relocated instruction's operand (`mercury_merge`), and the finalizer's
/// capsule holds them all resolved (corpus observation 147): it replaces
/// the input's in `new` when both have the same records. True when it
/// did. Final links only (`Finalizer::inputs`).
fn finalizer_capsule(cubin: &Cubin<'_>, offsets: &[u64], new: &mut [u8], code: usize, finalized: &Cubin<'_>) -> bool {
    use crate::cubin::capsule::Capsule;
    let text = &cubin.sections[code];
    let name = format!(".nv.capmerc.text.{}", &text.name[".text.".len()..]);
    let (Some((ci, own)), Some((_, theirs))) = (cubin.section_by_name(&name), finalized.section_by_name(&name)) else {
        return false;
    };
    // The header's symbol index aside, the same item count and flags.
    const HEADER: usize = 12;
    if own.data.len() != theirs.data.len()
        || own.data.len() < HEADER
        || own.data[4..HEADER] != theirs.data[4..HEADER]
        || own.data[HEADER..] == theirs.data[HEADER..]
    {
        return false;
    }
    let (Ok(mine), Ok(fin)) = (Capsule::parse(&own.data), Capsule::parse(&theirs.data)) else {
        return false;
    };
    let same_records = mine.records.len() == fin.records.len()
        && mine
            .records
            .iter()
            .zip(&fin.records)
            .all(|(a, b)| (a.item, a.offset, a.kind, a.inner) == (b.item, b.offset, b.kind, b.inner));
    if !same_records || mine.items_of(&text.data).is_some() {
        return false;
    }
    let Some(&at) = offsets.get(ci) else { return false };
    let at = at as usize + HEADER;
    match new.get_mut(at..at + own.data.len() - HEADER) {
        Some(into) => {
            into.copy_from_slice(&theirs.data[HEADER..]);
            true
        }
        None => false,
    }
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
