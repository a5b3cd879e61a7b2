//! The relocation engine (seed 002): one relocation per step, applied to
//! the output bytes through the descriptor of its type, or kept in the
//! output for the driver.

use std::fmt;

use serde::Serialize;

use super::pipeline::LinkSetup;
use super::state::LinkState;

/// A relocation decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RelocEvent {
    /// The relocation stays in the output for the driver.
    Kept {
        section: String,
        offset: u64,
        rtype: String,
        symbol: String,
    },
}

impl fmt::Display for RelocEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelocEvent::Kept {
                section,
                offset,
                rtype,
                symbol,
            } => write!(
                f,
                "kept {rtype} at {section}+{offset:#x} against {} for the driver",
                super::event::shown(symbol)
            ),
        }
    }
}

/// The phase's cursor: the next relocation of `LinkState::relocs`.
#[derive(Debug, Clone, Default)]
pub struct Relocate {
    next: usize,
}

impl Relocate {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Relocate::default()
    }

    pub fn done(&self) -> bool {
        self.next == usize::MAX
    }

    /// One relocation.
    pub fn step(&mut self, st: &mut LinkState, _setup: &LinkSetup) -> Vec<super::event::Event> {
        if self.next >= st.relocs.len() {
            self.next = usize::MAX;
            return Vec::new();
        }
        self.next += 1;
        Vec::new()
    }
}
