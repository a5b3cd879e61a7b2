//! Bindless references (seed 003), a sub-phase of layout (`layout.bindless`):
//! texture, sampler and surface references, the `$NVLINKBINDLESSOFF_`
//! symbols, the per-entry constant-bank slots, the bitmask propagated
//! through the call graph, pruning, and the resource limits.

use super::event::Event;
use super::pipeline::LinkSetup;
use super::state::LinkState;

/// The sub-phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Bindless {
    done: bool,
}

impl Bindless {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Bindless::default()
    }

    pub fn done(&self) -> bool {
        self.done
    }

    /// One unit of work.
    pub fn step(&mut self, _st: &mut LinkState, _setup: &LinkSetup) -> Vec<Event> {
        self.done = true;
        Vec::new()
    }
}
