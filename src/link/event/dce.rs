//! The events of dead-code elimination (`link::dce`).

use std::fmt;

use serde::Serialize;

use super::shown;

/// A dead-code-elimination decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DceEvent {
    /// A symbol (and what belongs to it) left out of the output.
    Removed { name: String, reason: String },
}

impl fmt::Display for DceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DceEvent::Removed { name, reason } => {
                write!(f, "removed {}: {reason}", shown(name))
            }
        }
    }
}
