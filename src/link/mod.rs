//! culdb's device linker: nvlink's pipeline as a resumable state machine.
//!
//! `options` parses nvlink's command line, `inputs` finds and opens the input
//! files (archives, fatbins, host objects, PTX), `state` holds the output
//! under construction, `merge` (with `weak`) folds each input into it, and
//! `pipeline::Linker` steps the whole thing one unit of work at a time,
//! returning typed `event`s.
//!
//! The modules form no import circle. At the bottom `options` and the read
//! phase, `inputs` (+ `ptx`, `system_lib`), which needs nothing else of the
//! linker; then the shared definitions `state` (with its `query` helpers;
//! it keeps the inputs' host-object lists), `event` and `setup`; then the
//! phases in pipeline order, each importing only those and earlier phases:
//! `lto`, `merge` (+ `weak`, `frame_edit`, `mercury_merge`),
//! `reach`, `dce`, `layout` (+ `constant2`, `bindless`, `uidx`, `uft`),
//! `out`, `reloc`, `finalize`, `mercury`, `emit`; `pipeline` on top, which
//! no phase imports.

pub mod bindless;
pub mod compat;
pub mod constant2;
pub mod dce;
pub use crate::diag;
pub mod emit;
pub mod event;
pub mod finalize;
pub mod frame_edit;
pub mod host_script;
pub mod inputs;
pub mod layout;
pub mod line_order;
pub mod lto;
pub mod mercury;
pub mod mercury_merge;
pub mod merge;
pub mod nvjitlink;
pub mod options;
pub mod out;
pub mod pipeline;
pub mod ptx;
pub mod reach;
pub mod refinalize;
pub mod reg_sass;
pub mod register;
pub mod reloc;
pub mod setup;
pub mod shared_order;
pub mod state;
pub mod system_lib;
pub mod tkinfo;
pub mod uft;
pub mod uidx;
pub mod virtual_target;
pub mod weak;

use std::path::{Path, PathBuf};

pub use pipeline::{Linker, Step};
pub use setup::LinkSetup;

/// A linker for nvlink's command line `args` (without the program name),
/// with relative file names read from `dir`. Command-line errors come back
/// with nvlink's diagnostics and exit status.
pub fn linker_for(args: &[String], dir: &Path) -> Result<Linker, options::OptionsError> {
    let opts = options::parse_in(args, dir)?;
    Ok(linker_from(&opts, dir))
}

/// A linker for parsed options.
pub fn linker_from(opts: &options::LinkOptions, dir: &Path) -> Linker {
    let mut setup = LinkSetup::from_options(opts);
    setup.base_dir = Some(dir.to_path_buf());
    if let Some(l) = &mut setup.lto
        && l.nvvmpath.is_relative()
    {
        l.nvvmpath = dir.join(&l.nvvmpath);
    }
    let target = crate::arch::lookup(&setup.arch);
    let req = inputs::InputRequest {
        args: opts.inputs.clone(),
        lib_paths: library_search_dirs(opts),
        target_sm: target.map(|t| t.sm).unwrap_or(0),
        target_suffix: target.and_then(|t| t.suffix.letter().chars().next()),
        ptxas: find_ptxas(),
        keep_system_libraries: opts.keep_system_libraries,
        lto: opts.lto.link_time_opt || opts.lto.dlto,
    };
    Linker::new(setup, inputs::InputLoader::new(req).in_dir(dir))
}

/// The folders `-l` libraries are searched in: the `-L` ones, then
/// `LIBRARY_PATH`'s.
pub fn library_search_dirs(opts: &options::LinkOptions) -> Vec<String> {
    let mut dirs = opts.library_paths.clone();
    if let Ok(lp) = std::env::var("LIBRARY_PATH") {
        dirs.extend(inputs::library_path_dirs(&lp));
    }
    dirs
}

/// The ptxas used for PTX inputs: `$CULDB_PTXAS`, else [`find_tool`].
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CULDB_PTXAS") {
        return Some(PathBuf::from(p));
    }
    find_tool("ptxas")
}

/// An NVIDIA tool (`nvlink`, `ptxas`, `cuobjdump`): on PATH, else the one
/// `scripts/cuda-tools.sh` installs (under `$CULDB_CUDA_HOME`, default
/// `~/.cache/culdb/cuda-13.5`).
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|c| c.is_file()))
        .unwrap_or(None);
    if on_path.is_some() {
        return on_path;
    }
    let home = std::env::var_os("CULDB_CUDA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/culdb/cuda-13.5")))?;
    let p = home.join("nvidia/cu13/bin").join(name);
    p.is_file().then_some(p)
}
