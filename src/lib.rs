//! culdb: a stepping debugger for CUDA device links.
//!
//! Data flows one way (see docs in README.md): inputs are read by [`cubin`],
//! compared by [`diff`], listed by [`dump`]; the linker phases grow on top.

pub mod arch;
pub mod batch;
pub mod capture;
pub mod cli;
pub mod cmd;
pub mod conform;
pub mod cubin;
pub mod debug;
pub mod demangle;
pub mod diag;
pub mod diff;
pub mod dump;
pub mod fuzz;
pub mod link;
pub mod repl;
pub mod report;
pub mod ronfile;
pub mod scenario;
pub mod toolkit;
pub mod tui;
