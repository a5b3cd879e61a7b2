//! Unified function and data tables (seed 000), a sub-phase of layout (`layout.uft`):
//! merging `.nv.uft`, `.nv.udt` and their `.entry` tables, the UIDX file of
//! `--uidx-file`, the UUID map, slot reordering, the synthetic `__UFT*`/`__UDT*`
//! symbols and the remapping of unified relocations.

use super::event::Event;
use super::pipeline::LinkSetup;
use super::state::LinkState;

/// The sub-phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Uft {
    done: bool,
}

impl Uft {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Uft::default()
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
