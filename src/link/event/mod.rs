//! Events: one for every decision the linker takes, typed and serializable,
//! each carrying what a person needs to understand it.
//!
//! [`Event`] and the decisions of the read, merge and resolve steps live
//! here; each later phase's own decision type lives in a submodule (`dce`,
//! `layout` with bindless and uft, `reloc`, `finalize`, `mercury`, `lto`),
//! so that this module, like `state`, sits below every phase: the phases
//! import their event types from here (and re-export them), never the
//! other way round.

use std::fmt;

use serde::Serialize;

use super::diag::Diagnostic;
use super::state::SymIdx;

pub mod dce;
pub mod finalize;
pub mod layout;
pub mod lto;
pub mod mercury;
pub mod reloc;

/// The pipeline's phases, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Link-time optimisation (`-dlto`): the inputs' NVVM IR is found and
    /// compiled together into one cubin before the cubins are read.
    Lto,
    /// Opening the inputs: files, archives, fatbins, host objects, PTX.
    Read,
    /// Folding each input cubin into the output (seed 001).
    Merge,
    /// After the merge: undefined references are checked.
    Resolve,
    /// Dead-code elimination: unreachable functions and variables are removed.
    Dce,
    /// Placing data in the memory spaces, bindless and unified tables.
    Layout,
    /// Applying relocations (or keeping them for the driver).
    Relocate,
    /// Register and stack propagation, kernel properties, the output tables.
    Finalize,
    /// Writing the output file.
    Emit,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Lto => "lto",
            Phase::Read => "read",
            Phase::Merge => "merge",
            Phase::Resolve => "resolve",
            Phase::Dce => "dce",
            Phase::Layout => "layout",
            Phase::Relocate => "relocate",
            Phase::Finalize => "finalize",
            Phase::Emit => "emit",
        }
    }
}

/// Which step of the merge of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MergePass {
    /// The weak pre-pass over weak symbols.
    Weak,
    /// The symbol pass (sections are mapped as their symbols are met).
    Symbols,
    /// The section-header pass (.nv.info, .nv.compat, call graph, relocations).
    Sections,
}

/// One side of a weak conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WeakCandidate {
    pub input: usize,
    pub input_name: String,
    /// STB_GLOBAL (1) or STB_WEAK (2).
    pub binding: u8,
    pub regcount: Option<u32>,
    /// The virtual SM (PTX `.target`) the definition was compiled from.
    pub virtual_sm: Option<u32>,
    pub size: u64,
}

/// The rule that decided a weak conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WeakRule {
    /// A strong definition beats a weak one.
    GlobalOverWeak,
    /// The existing definition is strong; the weak one is ignored.
    GlobalKept,
    /// Fewer registers wins (higher occupancy).
    FewerRegisters,
    /// Equal registers: the higher virtual SM (PTX `.target`) wins.
    HigherVirtualSm,
    /// Everything equal: the first definition stays.
    FirstDefinition,
    /// Weak data: the first definition stays (the loser's bytes remain, dead).
    FirstDataDefinition,
}

impl WeakRule {
    pub fn describe(self) -> &'static str {
        match self {
            WeakRule::GlobalOverWeak => "a global definition replaces a weak one",
            WeakRule::GlobalKept => "the existing global definition is kept over a weak one",
            WeakRule::FewerRegisters => "the definition using fewer registers wins",
            WeakRule::HigherVirtualSm => "equal registers: the definition compiled for the higher virtual SM wins",
            WeakRule::FirstDefinition => "equal registers and virtual SM: the first definition stays",
            WeakRule::FirstDataDefinition => "weak data: the first definition stays, the other's bytes remain unused",
        }
    }
}

/// How a global symbol of an input was resolved against the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// First time the name is seen: a new output symbol.
    New,
    /// The name was undefined; this input defines it.
    DefinesUndefined,
    /// A reference to a symbol already in the output.
    Reference,
    /// A definition over a common symbol.
    ReplacesCommon,
    /// A common symbol where a definition exists: the definition stays.
    CommonIntoDefinition,
    /// Two commons: the larger size is kept.
    CommonMerged,
    /// Decided by the weak rules (see the WeakDecision event).
    Weak,
    /// A local symbol (always new).
    Local,
}

/// Something the linker did or decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    PhaseStart {
        phase: Phase,
    },
    /// A dead-code-elimination decision (`link::dce`).
    Dce(dce::DceEvent),
    /// A layout decision: an offset, a bindless rewrite, a UFT/UDT slot (`link::layout`).
    Layout(layout::LayoutEvent),
    /// A relocation applied or kept for the driver (`link::reloc`).
    Reloc(reloc::RelocEvent),
    /// A finalize decision: a propagated property, a rebuilt table (`link::finalize`).
    Finalize(finalize::FinalizeEvent),
    /// A Mercury (sm_100+) companion section, relocation or record merged
    /// or dropped (`link::mercury_merge`, `link::mercury`).
    Mercury(mercury::MercEvent),
    /// The output file was written (or would be: `path` is None when not asked for).
    OutputWritten {
        path: Option<String>,
        bytes: usize,
    },
    PhaseEnd {
        phase: Phase,
    },
    /// A cubin was taken from the inputs.
    InputLoaded {
        input: usize,
        name: String,
        origin: String,
        sm: u32,
    },
    /// NVVM IR for the LTO step was found in an input.
    LtoModule {
        name: String,
        origin: String,
        bytes: usize,
    },
    /// The LTO step compiled the IR: NVVM's options and log, ptxas's, the
    /// time each took, and what came out.
    LtoCompiled {
        modules: Vec<String>,
        compiled: Box<lto::Compiled>,
        cubin_bytes: usize,
    },
    /// Something on the command line contributed no cubin.
    InputSkipped {
        path: String,
        reason: String,
    },
    /// The merge of one input begins (its mapping arrays are allocated).
    MergeInputStart {
        input: usize,
        name: String,
        symbols: usize,
        sections: usize,
    },
    MergeInputEnd {
        input: usize,
    },
    /// An input section was given a place in an output section.
    SectionMapped {
        input: usize,
        in_section: usize,
        name: String,
        out_section: usize,
        offset: u64,
        created: bool,
    },
    /// An input section was not merged.
    SectionSkipped {
        input: usize,
        in_section: usize,
        name: String,
        reason: String,
    },
    /// map_symbol_index[in_symbol] was set.
    SymbolMapped {
        input: usize,
        in_symbol: usize,
        name: String,
        out: SymIdx,
        resolution: Resolution,
    },
    /// Two definitions of a name where at least one is weak.
    WeakDecision {
        name: String,
        out: SymIdx,
        existing: WeakCandidate,
        incoming: WeakCandidate,
        rule: WeakRule,
        /// True when the incoming definition replaced the existing one.
        incoming_wins: bool,
    },
    /// After a weak replacement, the old definition's records are dropped.
    WeakCleanup {
        name: String,
        relocs: usize,
        nvinfo: usize,
        callgraph: usize,
    },
    /// A common symbol grew to a larger size.
    CommonGrown {
        name: String,
        from: u64,
        to: u64,
        input: usize,
    },
    /// A relocation was translated into the output.
    RelocMapped {
        input: usize,
        out_section: usize,
        offset: u64,
        rtype: u32,
        sym: SymIdx,
    },
    /// A relocation of a discarded definition was dropped.
    RelocDropped {
        input: usize,
        in_section: usize,
        offset: u64,
        reason: String,
    },
    /// .nv.info records of a section were translated.
    NvInfoMapped {
        input: usize,
        in_section: usize,
        kept: usize,
        dropped: usize,
    },
    CallGraphMapped {
        input: usize,
        kept: usize,
        dropped: usize,
    },
    CompatMerged {
        input: usize,
        attributes: usize,
    },
    /// A symbol is still undefined after the merge.
    Undefined {
        name: String,
        referenced_by: String,
        reported: bool,
    },
    Diagnostic(Diagnostic),
}

/// `name`, with its demangled form beside it when it is a C++ name.
pub fn shown(name: &str) -> String {
    match crate::demangle::demangle(name) {
        Some(d) => format!("{name} [{d}]"),
        None => name.to_string(),
    }
}

impl Event {
    /// A one-line explanation for a person.
    pub fn describe(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::PhaseStart { phase } => write!(f, "phase {} starts", phase.name()),
            Event::Dce(e) => write!(f, "{e}"),
            Event::Layout(e) => write!(f, "{e}"),
            Event::Reloc(e) => write!(f, "{e}"),
            Event::Finalize(e) => write!(f, "{e}"),
            Event::Mercury(e) => write!(f, "{e}"),
            Event::OutputWritten { path: Some(p), bytes } => write!(f, "wrote {p} ({bytes} bytes)"),
            Event::OutputWritten { path: None, bytes } => write!(f, "output built ({bytes} bytes)"),
            Event::PhaseEnd { phase } => write!(f, "phase {} ends", phase.name()),
            Event::InputLoaded {
                input,
                name,
                origin,
                sm,
            } => {
                write!(f, "input #{input} {name}: sm_{sm} cubin, {origin}")
            }
            Event::InputSkipped { path, reason } => write!(f, "skipped {path}: {reason}"),
            Event::LtoModule { name, origin, bytes } => write!(f, "LTO: NVVM IR in {name} ({origin}, {bytes} bytes)"),
            Event::LtoCompiled {
                modules,
                compiled: c,
                cubin_bytes,
            } => write!(
                f,
                "LTO: {} module(s) compiled by {} ({}; {} ms), then ptxas {} ({} ms): {} cubin of {cubin_bytes} bytes{}",
                modules.len(),
                c.library.display(),
                c.nvvm_options.join(" "),
                c.nvvm_us / 1000,
                c.ptxas_args.join(" "),
                c.ptxas_us / 1000,
                if c.whole_program {
                    "whole-program"
                } else {
                    "relocatable"
                },
                if c.whole_program {
                    ", the output as it is (full LTO)"
                } else {
                    ", linked first (partial LTO)"
                }
            ),
            Event::MergeInputStart {
                input,
                name,
                symbols,
                sections,
            } => {
                write!(
                    f,
                    "merge input #{input} {name} ({symbols} symbols, {sections} sections)"
                )
            }
            Event::MergeInputEnd { input } => write!(f, "merge of input #{input} done"),
            Event::SectionMapped {
                input,
                in_section,
                name,
                out_section,
                offset,
                created,
            } => write!(
                f,
                "input #{input} section [{in_section}] {name} -> output [{out_section}] at {offset:#x}{}",
                if *created { " (new section)" } else { "" }
            ),
            Event::SectionSkipped {
                input,
                in_section,
                name,
                reason,
            } => {
                write!(f, "input #{input} section [{in_section}] {name} skipped: {reason}")
            }
            Event::SymbolMapped {
                input,
                in_symbol,
                name,
                out,
                resolution,
            } => {
                write!(
                    f,
                    "input #{input} symbol [{in_symbol}] {} -> {out} ({resolution:?})",
                    shown(name)
                )
            }
            Event::WeakDecision {
                name,
                existing,
                incoming,
                rule,
                incoming_wins,
                ..
            } => {
                let side = |c: &WeakCandidate| {
                    format!(
                        "{} {} in {} (input #{}, {} registers, virtual sm_{})",
                        if c.binding == 1 { "global" } else { "weak" },
                        name,
                        c.input_name,
                        c.input,
                        c.regcount.map(|r| r.to_string()).unwrap_or_else(|| "?".into()),
                        c.virtual_sm.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                    )
                };
                let (winner, loser) = if *incoming_wins {
                    (incoming, existing)
                } else {
                    (existing, incoming)
                };
                write!(
                    f,
                    "weak decision for {}: existing {} vs incoming {}: {}; winner: {}, discarded: {}",
                    shown(name),
                    side(existing),
                    side(incoming),
                    rule.describe(),
                    winner.input_name,
                    loser.input_name
                )
            }
            Event::WeakCleanup {
                name,
                relocs,
                nvinfo,
                callgraph,
            } => write!(
                f,
                "old definition of {name} removed: {relocs} relocations, {nvinfo} .nv.info records, {callgraph} call-graph records"
            ),
            Event::CommonGrown { name, from, to, input } => {
                write!(
                    f,
                    "common {name} grows from {from:#x} to {to:#x} bytes (input #{input})"
                )
            }
            Event::RelocMapped {
                input,
                out_section,
                offset,
                rtype,
                sym,
            } => write!(
                f,
                "input #{input} relocation {} at output [{out_section}]+{offset:#x} against {sym}",
                crate::cubin::catalog::reloc_name(crate::cubin::catalog::RelocFamily::Cuda, *rtype)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("type {rtype}"))
            ),
            Event::RelocDropped {
                input,
                in_section,
                offset,
                reason,
            } => {
                write!(
                    f,
                    "input #{input} relocation in [{in_section}] at {offset:#x} dropped: {reason}"
                )
            }
            Event::NvInfoMapped {
                input,
                in_section,
                kept,
                dropped,
            } => {
                write!(
                    f,
                    "input #{input} .nv.info [{in_section}]: {kept} records kept, {dropped} dropped"
                )
            }
            Event::CallGraphMapped { input, kept, dropped } => {
                write!(f, "input #{input} call graph: {kept} records kept, {dropped} dropped")
            }
            Event::CompatMerged { input, attributes } => {
                write!(f, "input #{input} .nv.compat: {attributes} attributes")
            }
            Event::Undefined {
                name,
                referenced_by,
                reported,
            } => write!(
                f,
                "{} is undefined (referenced by {referenced_by}){}",
                shown(name),
                if *reported { "" } else { "; left for the driver" }
            ),
            Event::Diagnostic(d) => write!(f, "{}", d.line()),
        }
    }
}
