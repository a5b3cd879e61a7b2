//! culdb's device linker: nvlink's pipeline as a resumable state machine.
//!
//! `options` parses nvlink's command line, `inputs` finds and opens the input
//! files (archives, fatbins, host objects, PTX), `state` holds the output
//! under construction, `merge` (with `weak`) folds each input into it, and
//! `pipeline::Linker` steps the whole thing one unit of work at a time,
//! returning typed `event`s.

pub mod diag;
pub mod event;
pub mod merge;
pub mod state;
pub mod weak;
