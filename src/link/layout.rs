//! Layout: where everything lands in the memory spaces (globals,
//! global.init, shared per kernel, local, constant banks), common symbols,
//! reserved shared memory, and the two table passes that run inside layout:
//! bindless references and the unified function/data tables.

use std::fmt;

use serde::Serialize;

use super::pipeline::LinkSetup;
use super::state::LinkState;

/// A layout decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LayoutEvent {
    /// A symbol got its place in an output section.
    Placed {
        name: String,
        section: String,
        offset: u64,
        size: u64,
    },
}

impl fmt::Display for LayoutEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutEvent::Placed {
                name,
                section,
                offset,
                size,
            } => write!(
                f,
                "placed {} at {section}+{offset:#x} ({size:#x} bytes)",
                super::event::shown(name)
            ),
        }
    }
}

/// The phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    done: bool,
}

impl Layout {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Layout::default()
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
