//! The events of the Mercury (sm_100+) companion sections
//! (`link::mercury_merge`, `link::mercury`).

use std::fmt;

use serde::Serialize;

/// A Mercury decision, for the debugger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MercEvent {
    /// An input Mercury section was placed in an output Mercury section.
    SectionMapped {
        input: usize,
        in_section: usize,
        name: String,
        offset: u64,
        created: bool,
        /// A later weak definition's code replaced the earlier one.
        replaced: bool,
    },
    /// An input Mercury section was not merged.
    SectionSkipped {
        input: usize,
        in_section: usize,
        name: String,
        reason: String,
    },
    /// Records of a `.nv.merc.nv.info*` or `.nv.merc.rela*` section were translated.
    RecordsMapped {
        input: usize,
        in_section: usize,
        name: String,
        kept: usize,
        dropped: usize,
    },
    /// The finalizer wrote a function's code again: its control fields
    /// (scoreboards, wait masks) come from NVIDIA's finalizer (`link::refinalize`).
    Refinalized {
        input: usize,
        function: String,
        instructions: usize,
        /// Instructions whose control field changed.
        changed: usize,
        /// Instructions the finalizer deleted (dummy loads before a `MEMBAR`).
        deleted: usize,
        /// The capsule is the finalizer's (its items are not the code's
        /// instructions, or the code was written again).
        capsule: bool,
    },
    /// An input's code stays as ptxas wrote it (`input` None: the whole link's).
    RefinalizeSkipped { input: Option<usize>, reason: String },
}

impl fmt::Display for MercEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MercEvent::SectionMapped {
                input,
                in_section,
                name,
                offset,
                created,
                replaced,
            } => {
                let how = if *replaced {
                    " (replaces the earlier code)"
                } else if *created {
                    " (new)"
                } else {
                    ""
                };
                write!(
                    f,
                    "mercury: input #{input} section {in_section} {name} placed at {offset:#x}{how}"
                )
            }
            MercEvent::SectionSkipped {
                input,
                in_section,
                name,
                reason,
            } => write!(
                f,
                "mercury: input #{input} section {in_section} {name} skipped: {reason}"
            ),
            MercEvent::RecordsMapped {
                input,
                in_section,
                name,
                kept,
                dropped,
            } => write!(
                f,
                "mercury: input #{input} section {in_section} {name}: {kept} records kept, {dropped} dropped"
            ),
            MercEvent::Refinalized {
                input,
                function,
                instructions,
                changed,
                deleted,
                capsule,
            } => {
                write!(
                    f,
                    "mercury: input #{input} function {function} finalized again: {changed} of {instructions} \
                     instructions get other scoreboards"
                )?;
                if *deleted > 0 {
                    write!(f, ", {deleted} deleted")?;
                }
                if *capsule {
                    write!(f, ", capsule from the finalizer")?;
                }
                Ok(())
            }
            MercEvent::RefinalizeSkipped { input: Some(i), reason } => {
                write!(f, "mercury: input #{i} keeps ptxas's code: {reason}")
            }
            MercEvent::RefinalizeSkipped { input: None, reason } => {
                write!(
                    f,
                    "mercury: the inputs keep ptxas's code, not finalized again: {reason}"
                )
            }
        }
    }
}
