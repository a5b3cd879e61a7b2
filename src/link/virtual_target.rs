//! A virtual target: `nvlink --arch=compute_NN`, which nvcc runs for
//! `nvcc -gencode arch=compute_90,code=compute_90 -rdc=true` (PTX only,
//! linked by the driver at run time), without `-o`.
//!
//! What nvlink 13.5 does (checked by hand; corpus observation 175,
//! tests/register.rs):
//!
//! * It links nothing and writes no output file, `-o` or not, and exits 0.
//! * With `--register-link-binaries FILE` it writes the registration file
//!   (`super::register`) naming every input that has relocatable device
//!   code, for any architecture: the files first, in order, then the `-l`
//!   libraries, every member of each (an unused one too; libcudadevrt's
//!   `cuda_device_runtime`). A host object without device code, a source
//!   file and a `-l` library that is not found are left out silently.
//! * A file that cannot be read is fatal, as in a link.
//!
//! `-dlto` with such a target is a link of its own (the IR to PTX), which
//! culdb does not make.

use std::path::Path;

use super::diag::Diagnostic;
use super::inputs::read_regular;
use super::options::{InputArg, LinkOptions};
use crate::cubin::{archive, host};

/// Whether `opts` asks for a virtual target without `-dlto`.
pub fn applies(opts: &LinkOptions) -> bool {
    let lto = opts.lto.dlto || opts.lto.link_time_opt;
    !lto && opts
        .arch
        .as_deref()
        .and_then(crate::arch::lookup)
        .is_some_and(|p| p.kind == crate::arch::Kind::Virtual)
}

/// The registration file's modules for `opts`, inputs read from `dir`.
pub fn modules(opts: &LinkOptions, dir: &Path, lib_paths: &[String]) -> Result<Vec<String>, Diagnostic> {
    let base = std::env::current_dir()
        .map(|cwd| if dir == Path::new(".") { cwd } else { cwd.join(dir) })
        .unwrap_or_else(|_| dir.to_path_buf());
    let mut out = Vec::new();
    for file in opts.inputs.iter().filter_map(|i| match i {
        InputArg::File(f) => Some(f),
        InputArg::Library(_) => None,
    }) {
        let data = read_regular(&dir.join(file))
            .map_err(|e| Diagnostic::fatal(format!("Could not open input file '{file}' [culdb: {e}]")))?;
        if archive::is_archive(&data) {
            out.extend(archive_modules(&data));
        } else if host::is_host_elf(&data) {
            out.extend(host_module(&data));
        } else if is_device_file(&data) {
            out.push(super::register::path_module(&base, file));
        }
    }
    for name in opts.inputs.iter().filter_map(|i| match i {
        InputArg::Library(l) => Some(l),
        InputArg::File(_) => None,
    }) {
        let found = lib_paths
            .iter()
            .map(|d| dir.join(super::inputs::library_candidate(d, name)))
            .find_map(|p| read_regular(&p).ok());
        if let Some(data) = found {
            out.extend(archive_modules(&data));
        }
    }
    Ok(out)
}

/// The modules of an archive's members that have device code.
fn archive_modules(data: &[u8]) -> Vec<String> {
    archive::members(data)
        .unwrap_or_default()
        .iter()
        .filter(|m| host::is_host_elf(m.data))
        .filter_map(|m| host_module(m.data))
        .collect()
}

/// A host object's `__nv_module_id`, when it has relocatable device code.
fn host_module(data: &[u8]) -> Option<String> {
    let fatbins = host::fatbin_sections(data).ok()?;
    if !fatbins.iter().any(|f| f.read_by_nvlink()) {
        return None;
    }
    host::module_id(data)
}

/// A cubin, fatbin or PTX file (not a source file or other text).
fn is_device_file(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF")
        || crate::cubin::fatbin::is_fatbin(data)
        || std::str::from_utf8(&data[..data.len().min(4096)])
            .is_ok_and(|t| t.contains(".version") && t.contains(".target"))
}
