//! What the phases are given besides the inputs: [`LinkSetup`] (the options
//! that steer them, made from nvlink's command line), [`LtoRequest`] (what
//! the LTO step needs), and the undefined names nvlink leaves to the CUDA
//! driver or to other parts of the link.

use std::path::PathBuf;

use serde::Serialize;

use crate::cubin::consts::{STT_CUDA_SAMPLER, STT_CUDA_SURFACE, STT_CUDA_TEXTURE};

use super::state::query::STO_SHARED;

/// What the pipeline needs besides the inputs.
#[derive(Debug, Clone, Serialize)]
pub struct LinkSetup {
    /// The `-arch` value, e.g. `sm_90`.
    pub arch: String,
    /// `-r`: undefined references are allowed.
    pub relocatable: bool,
    /// `-report-arch`: every message names the target (`Linker::step`).
    pub report_arch: bool,
    /// `-w` (nvlink 13.5 was not seen to silence any warning with it).
    pub disable_warnings: bool,
    /// `-Werror`: warnings become errors.
    pub werror: bool,
    /// `-suppress-stack-size-warning`.
    pub suppress_stack_size_warning: bool,
    /// `-disable-infos`: nvlink prints none of its own warnings, until the
    /// LTO step's code is linked (`Linker::silenced`); infos still come.
    pub disable_infos: bool,
    /// `-v`: finalize reports gmem and each kernel's properties (info lines).
    pub verbose: bool,
    /// `--dump-callgraph` or `--dump-callgraph-no-demangle`: finalize prints
    /// the call graph (tool-output lines, demangled either way as nvlink 13.5 does).
    pub dump_callgraph: bool,
    /// `-kernels-used`: when given, the only kernels dead-code elimination keeps.
    pub kernels_used: Vec<String>,
    /// `-variables-used`.
    pub variables_used: Vec<String>,
    /// `-ignore-host-info`: the host objects' kernel lists do not limit the kernels kept.
    pub ignore_host_info: bool,
    /// `--uidx-file` / `-uidx`: the index file ordering the unified tables (`link::uidx`).
    pub uidx_file: Option<String>,
    /// `-preserve-relocs`: applied relocations are kept in `.nv.resolvedrela.*`.
    pub preserve_relocs: bool,
    /// `-preserve-relocs` as given, on every architecture: dead-code
    /// elimination removes nothing (README observation 114).
    pub keep_dead_code: bool,
    /// The folder relative file names given in options (`-uidx`) are read
    /// from; None for the current folder.
    pub base_dir: Option<std::path::PathBuf>,
    /// `-g`.
    pub debug: bool,
    /// `-dlto`/`-lto` (with `-nvvmpath`): the LTO step runs first (`link::lto`).
    pub lto: Option<LtoRequest>,
    /// `-emit-ptx`: with LTO, the output is the PTX NVVM made.
    pub emit_ptx: bool,
    /// The options nvlink records in its `.note.nv.tkinfo` entry (`link::tkinfo`).
    pub tool_args: String,
    /// The object name of that entry: the output file's with `-g`, else empty.
    pub tool_object: String,
    /// `--register-link-binaries` was given: inputs that are not host
    /// objects get nvlink's "has no host code" note.
    pub register_link_binaries: bool,
}

impl LinkSetup {
    /// Whether `-kernels-used` keeps kernel `name`: each value matches any
    /// kernel whose name contains it, as nvlink's help says (checked:
    /// `-kernels-used=k_print` keeps `_Z7k_printPi`; corpus
    /// kernels_used_substring_sm90). Without the option every kernel is
    /// used, unless `-variables-used` is given: nvlink then keeps no kernel
    /// at all (kernels_used_host_lists_sm90).
    pub fn kernel_used(&self, name: &str) -> bool {
        if !self.used_lists_given() {
            return true;
        }
        self.kernels_used.iter().any(|k| name.contains(k.as_str()))
    }

    /// A kernel `-kernels-used` leaves out that stays in the output (`-r`,
    /// `-preserve-relocs`): nvlink names its sections as a device
    /// function's (kernels_used_sm90 with -r, preserve_relocs_dce_sm90).
    pub fn unused_kernel_kept(&self, name: &str) -> bool {
        (self.relocatable || self.keep_dead_code) && !self.kernel_used(name)
    }

    /// Whether `-kernels-used` or `-variables-used` was given: the kernels
    /// kept are then exactly those `-kernels-used` names, and the host
    /// objects' lists count for nothing (kernels_used_host_lists_sm90).
    pub fn used_lists_given(&self) -> bool {
        !self.kernels_used.is_empty() || !self.variables_used.is_empty()
    }

    pub fn from_options(o: &super::options::LinkOptions) -> Self {
        LinkSetup {
            arch: o.arch.clone().unwrap_or_default(),
            relocatable: o.relocatable,
            report_arch: o.report_arch,
            disable_warnings: o.disable_warnings,
            werror: o.werror,
            suppress_stack_size_warning: o.suppress_stack_size_warning,
            disable_infos: o.disable_infos,
            verbose: o.verbose,
            dump_callgraph: o.dump_callgraph || o.dump_callgraph_no_demangle,
            kernels_used: o.kernels_used.clone(),
            variables_used: o.variables_used.clone(),
            ignore_host_info: o.ignore_host_info,
            uidx_file: o.uidx_file.clone(),
            // sm_100+ writes no `.nv.resolvedrela*` (preserve_relocs_sm100).
            preserve_relocs: o.preserve_relocs
                && !o
                    .arch
                    .as_deref()
                    .and_then(crate::arch::lookup)
                    .is_some_and(|p| p.is_mercury()),
            keep_dead_code: o.preserve_relocs,
            base_dir: None,
            debug: o.debug,
            lto: (o.lto.dlto || o.lto.link_time_opt)
                .then_some(o.lto.nvvmpath.as_ref())
                .flatten()
                .map(|p| LtoRequest {
                    arch: o.arch.clone().unwrap_or_default(),
                    nvvmpath: p.into(),
                    xnvvm: o.lto.xnvvm.clone(),
                    xptxas: o.lto.xptxas.clone(),
                    maxrregcount: o.maxrregcount,
                    split_compile: o.lto.split_compile,
                    split_compile_extended: o.lto.split_compile_extended,
                }),
            emit_ptx: o.lto.emit_ptx,
            tool_args: super::tkinfo::nvlink_args(o),
            register_link_binaries: o.register_link_binaries.is_some(),
            tool_object: if o.debug {
                o.output_file
                    .as_deref()
                    .map(super::tkinfo::base_name)
                    .unwrap_or_default()
                    .to_string()
            } else {
                String::new()
            },
        }
    }
}

/// What the LTO step needs besides the modules.
#[derive(Debug, Clone, Serialize)]
pub struct LtoRequest {
    /// The link target, `sm_90`.
    pub arch: String,
    /// `-nvvmpath`.
    pub nvvmpath: PathBuf,
    /// `-Xnvvm` options, passed to NVVM.
    pub xnvvm: Vec<String>,
    /// `-Xptxas` options.
    pub xptxas: Vec<String>,
    /// `-maxrregcount`.
    pub maxrregcount: Option<i32>,
    /// `-split-compile=N` and `-split-compile-extended=N`: NVVM's threads
    /// (nvJitLink takes the same options; the code does not change).
    pub split_compile: Option<i32>,
    pub split_compile_extended: Option<i32>,
}

pub use super::system_lib::driver_syscall;

/// Undefined names that are not references to check at all: symbols the
/// linker defines in layout (`__UFT*`, `__UDT*`, `.nv.reservedSmem.*`),
/// texture, surface and sampler references (bound by the driver), and
/// extern `.shared` arrays (the dynamic shared memory).
pub fn bound_elsewhere(name: &str, sym_type: u8, other: u8) -> bool {
    name.starts_with("__UFT")
        || name.starts_with("__UDT")
        || name.starts_with(".nv.reservedSmem.")
        || matches!(sym_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER)
        || other & 0xe0 == STO_SHARED
}
