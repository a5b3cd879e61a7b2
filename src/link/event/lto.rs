//! What the LTO step (`link::lto`) reports when it compiled the IR.

use std::path::PathBuf;

use serde::Serialize;

/// The LTO step's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Compiled {
    /// The PTX NVVM made of all modules together.
    #[serde(skip)]
    pub ptx: String,
    /// ptxas's cubin.
    #[serde(skip)]
    pub cubin: Vec<u8>,
    /// Full LTO: `cubin` is the output as it is.
    pub whole_program: bool,
    /// The library that compiled the IR.
    pub library: PathBuf,
    /// Its options.
    pub nvvm_options: Vec<String>,
    /// Its log (nvJitLink's info log).
    pub nvvm_log: String,
    /// How long NVVM took, in microseconds.
    pub nvvm_us: u64,
    /// ptxas's options (before the file names).
    pub ptxas_args: Vec<String>,
    /// What ptxas printed (`-Xptxas -v`), as nvlink shows it.
    pub ptxas_lines: Vec<String>,
    /// How long ptxas took, in microseconds.
    pub ptxas_us: u64,
}
