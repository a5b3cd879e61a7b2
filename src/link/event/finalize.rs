//! The events of finalize (`link::finalize`).

use std::fmt;

use serde::Serialize;

use super::shown;

/// A finalize decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FinalizeEvent {
    /// A property of a function, computed or propagated.
    Property {
        function: String,
        property: String,
        value: u64,
    },
    /// A kernel's register count raised to a callee's.
    RegcountPropagated { kernel: String, from: String, regs: u32 },
    /// A kernel whose stack size recursion makes unknown.
    StackUnknown { kernel: String },
    /// A table or note of the output built.
    TableBuilt { name: String, records: usize },
    /// The output's e_flags.
    Flags { e_flags: u32 },
}

impl fmt::Display for FinalizeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FinalizeEvent::Property {
                function,
                property,
                value,
            } => write!(f, "{}: {property} = {value:#x}", shown(function)),
            FinalizeEvent::RegcountPropagated { kernel, from, regs } => {
                write!(f, "{}: regcount {regs} from {}", shown(kernel), shown(from))
            }
            FinalizeEvent::StackUnknown { kernel } => {
                write!(f, "{}: stack size unknown (recursion)", shown(kernel))
            }
            FinalizeEvent::TableBuilt { name, records } => write!(f, "built {name} ({records} records)"),
            FinalizeEvent::Flags { e_flags } => write!(f, "e_flags = {e_flags:#x}"),
        }
    }
}
