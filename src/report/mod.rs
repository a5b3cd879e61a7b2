//! Reports over a finished link: the link map ([`map`], `culdb link
//! -Map`), the size attribution of the output's bytes ([`size`], `culdb
//! size`) and keep chains ([`keep`], `why-kept` / `why-pulled`). They read
//! the link state and the written bytes; the linker knows nothing of them.

pub mod cli;
pub mod elf;
pub mod keep;
pub mod labels;
pub mod map;
pub mod run;
pub mod session;
pub mod size;
