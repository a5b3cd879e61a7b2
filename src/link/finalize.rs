//! Finalize: register-count and stack-size propagation through the call
//! graph, kernel properties, the output's own tables and notes, and the
//! lines nvlink prints about them.

use std::fmt;

use serde::Serialize;

use super::pipeline::LinkSetup;
use super::state::LinkState;

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
}

impl fmt::Display for FinalizeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FinalizeEvent::Property {
                function,
                property,
                value,
            } => write!(f, "{}: {property} = {value:#x}", super::event::shown(function)),
        }
    }
}

/// The phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Finalize {
    done: bool,
}

impl Finalize {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Finalize::default()
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
