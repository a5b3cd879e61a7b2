//! Link-time optimisation (`-dlto`, `-lto`): the NVVM IR of the inputs is
//! compiled together into one cubin before the merge.
//!
//! # What nvlink 13.5 does (checked by hand; corpus `lto_*` cases)
//!
//! * `-dlto` without `-nvvmpath` is fatal before anything is read:
//!   `-nvvmpath should be specified with -lto`.
//! * Every input is read first. An input whose fatbin has NVVM IR for the
//!   target (`lto_NN`, usable as PTX of `compute_NN` is) gives that IR, not
//!   its cubin or PTX; every member of an archive with IR gives its IR
//!   (members are not pulled by need). No IR at all: `warning: Ignoring
//!   -dlto option because no LTO objects found`, and the link goes on as
//!   without `-dlto`. Each input with device code but no IR is reported
//!   (`info: requested LTO but 'c.o' not built for LTO so doing partial LTO`).
//! * In full LTO, when every input is a host object and their `.nvHR*`
//!   lists name a kernel, NVVM keeps only the kernels and variables the lists name (an
//!   archive member's kernel nothing launches is gone; corpus
//!   lto_archive_sm90); culdb passes them to nvJitLink's NVVM as nvlink
//!   does (`-has-global-host-info`, `-host-ref-ek=` ... one list per
//!   `.nvHR*` section), which gives the same PTX. In partial LTO (a plain
//!   input, or code calling libcudadevrt) every kernel stays.
//! * nvlink opens `<nvvmpath>/lib64/libnvvm.so` (fatal `elfLink linker
//!   library load error` when it cannot, before it opens any input) and compiles the modules together
//!   with `-arch=compute_NN -link-lto --device-c -has-global-host-info`.
//!   The IR in nvcc's objects is encrypted (fatbin flag 0x10000); nvlink
//!   decrypts it itself and hands libNVVM the plain module through a private
//!   entry point (`__nvvmHandle`), which culdb cannot do. culdb asks
//!   nvJitLink, NVIDIA's public LTO library, to compile the same modules to
//!   PTX (`-arch=sm_NN -lto -ptx -Xnvvm=--device-c`): the PTX is
//!   byte-identical to what nvlink's `-emit-ptx` writes. `--device-c`
//!   matters when the IR calls libcudadevrt: NVVM then keeps every external
//!   device function visible and calls an internal clone of it, `name$1`;
//!   without it nvJitLink internalizes them (corpus lto_cdp_extern_fn_sm90).
//! * The PTX then goes through ptxas with `-arch sm_NN -m 64`, nvlink's
//!   `-maxrregcount` and `-Xptxas` options first (the cubin's tkinfo note
//!   records them so; an `-Xptxas` value split at blanks). NVVM gets
//!   `-maxrregcount` too, as `-maxreg`. When every input was IR ("full LTO") and the code
//!   calls no function but the driver's, or no libcudadevrt was given,
//!   ptxas compiles the whole program (an unresolved call is then ptxas's
//!   `Unresolved extern function`) and its cubin, unchanged, is the output:
//!   no merge at all, the libcudadevrt given is left out, and nvlink
//!   insists that one was given (`expected libcudadevrt object`). Else
//!   ("partial LTO") ptxas compiles with `-c` and the result is linked
//!   first, before every other input, under the name `lto.cubin` (an
//!   unresolved call is then `Undefined reference to 'f' in 'lto.cubin'`).
//! * `--register-link-binaries` names each module in reading order (partial
//!   LTO: the IR modules where they were read, with the other inputs), or in
//!   the reverse of reading order (full LTO).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

pub use super::event::lto::Compiled;
use super::inputs::{HostRefs, InputLoader, LoadNote, LtoModule};
use super::nvjitlink::{self, RunError};
use super::ptx::{self, PtxError};
pub use super::setup::LtoRequest;

/// What reading every input once for its IR found.
pub struct Scan {
    /// The IR modules, in reading order.
    pub modules: Vec<LtoModule>,
    /// Inputs with device code but no IR (libcudadevrt's members aside).
    pub plain: Vec<String>,
    /// Every input's host lists (None: not a host object, or host code
    /// without device code), for [`HostInfo::of`].
    pub refs: Vec<Option<HostRefs>>,
    /// A libcudadevrt is among the inputs.
    pub devrt_given: bool,
}

impl Scan {
    /// Runs a copy of `loader` to the end; None when it stopped on an error.
    pub fn of(loader: &InputLoader) -> Option<Scan> {
        let mut l = loader.clone();
        let mut s = Scan {
            modules: Vec::new(),
            plain: Vec::new(),
            refs: Vec::new(),
            devrt_given: false,
        };
        while let Some(r) = l.step() {
            for n in r.ok()? {
                match n {
                    LoadNote::Lto(m) => {
                        s.refs.push(m.host_refs.clone());
                        s.modules.push(m);
                    }
                    LoadNote::Loaded(c) => {
                        if !c.host_refs.as_ref().is_some_and(|r| r.system_library) {
                            s.refs.push(c.host_refs.clone());
                            if !s.plain.contains(&c.name) {
                                s.plain.push(c.name);
                            }
                        }
                    }
                    // Host code that launches what nobody can tell.
                    LoadNote::HostCodeOnly { .. } => s.refs.push(None),
                    LoadNote::Skipped { .. } => {}
                }
            }
        }
        s.devrt_given = !l.system_libraries().is_empty();
        Some(s)
    }
}

/// The name nvlink gives the cubin the LTO step makes.
pub const LTO_CUBIN: &str = "lto.cubin";

/// The host objects' lists, as NVVM gets them: with every input a host
/// object and some list naming a kernel, the only kernels and variables
/// the compiled code keeps visible (nvlink's `-has-global-host-info`).
/// Each list keeps its patterns as the `.nvHR*` sections hold them (a
/// kernel's mangled name ends in `*`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostInfo {
    /// `.nvHRKE`, `.nvHRKI`: kernels, external and internal linkage.
    pub kernels: Vec<String>,
    pub internal_kernels: Vec<String>,
    /// `.nvHRDE`, `.nvHRDI`: `__device__` variables.
    pub data: Vec<String>,
    pub internal_data: Vec<String>,
    /// `.nvHRCE`, `.nvHRCI`: `__constant__` variables.
    pub constants: Vec<String>,
    pub internal_constants: Vec<String>,
}

impl HostInfo {
    /// The lists of all inputs (None for an input that is not a host
    /// object), or None when they do not limit what is kept.
    pub fn of<'a>(inputs: impl IntoIterator<Item = Option<&'a HostRefs>>) -> Option<HostInfo> {
        let mut info = HostInfo::default();
        for r in inputs {
            let r = r?;
            info.kernels.extend(r.kernels.iter().cloned());
            info.internal_kernels.extend(r.internal_kernels.iter().cloned());
            info.data.extend(r.data.iter().cloned());
            info.internal_data.extend(r.internal_data.iter().cloned());
            info.constants.extend(r.constants.iter().cloned());
            info.internal_constants.extend(r.internal_constants.iter().cloned());
        }
        for list in info.lists_mut() {
            // (`ld -r`'s concatenated empty lists hold an empty name.)
            list.retain(|n| !n.is_empty());
            list.sort();
            list.dedup();
        }
        (!info.kernels.is_empty() || !info.internal_kernels.is_empty()).then_some(info)
    }

    fn lists_mut(&mut self) -> [&mut Vec<String>; 6] {
        [
            &mut self.kernels,
            &mut self.internal_kernels,
            &mut self.data,
            &mut self.internal_data,
            &mut self.constants,
            &mut self.internal_constants,
        ]
    }

    /// nvJitLink's options for it: NVVM's own host-reference lists, as
    /// nvlink gives them. (nvJitLink's `-kernels-used` and
    /// `-variables-used` match substrings: a host list naming `ctr` would
    /// keep `ctr2` visible too, which nvlink internalizes; corpus
    /// lto_host_var_prefix_sm90.)
    fn options(&self) -> Vec<String> {
        let lists = [
            ("ek", &self.kernels),
            ("ik", &self.internal_kernels),
            ("eg", &self.data),
            ("ig", &self.internal_data),
            ("ec", &self.constants),
            ("ic", &self.internal_constants),
        ];
        let mut o = vec![format!("-Xnvvm={HAS_HOST_INFO}")];
        o.extend(
            lists
                .iter()
                .filter(|(_, l)| !l.is_empty())
                .map(|(k, l)| format!("-Xnvvm=-host-ref-{k}={}", l.join(","))),
        );
        o
    }
}

/// NVVM's option saying the host references are known (nvlink's).
const HAS_HOST_INFO: &str = "-has-global-host-info";

/// Why the step failed: NVVM's log as nvlink's info lines, ptxas's lines,
/// then nvlink's fatal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub infos: Vec<String>,
    pub printed: Vec<String>,
    pub fatal: String,
}

impl Failure {
    fn fatal(text: impl Into<String>) -> Failure {
        Failure {
            infos: Vec::new(),
            printed: Vec::new(),
            fatal: text.into(),
        }
    }
}

/// Checks that libNVVM loads from `-nvvmpath` as nvlink loads it.
pub fn check_libnvvm(nvvmpath: &Path) -> Result<(), Failure> {
    let path = nvvmpath.join("lib64").join("libnvvm.so");
    // SAFETY: loading NVIDIA's libNVVM runs only its initialisers.
    let lib =
        unsafe { libloading::Library::new(&path) }.map_err(|_| Failure::fatal("elfLink linker library load error"))?;
    // SAFETY: the symbol is only looked up, not called.
    unsafe { lib.get::<unsafe extern "C" fn()>(b"__nvvmHandle\0") }
        .map_err(|_| Failure::fatal("could not find __nvvmHandle"))?;
    Ok(())
}

/// Compiles `modules` (all of the link's IR): NVVM, then ptxas. `host`:
/// what the host code references, when that limits what is kept. `all_ir`:
/// no input had device code but IR; `devrt_given`: a libcudadevrt is among
/// the inputs. The code is compiled as a whole program (the output as it
/// is) when every input was IR and, if a libcudadevrt was given, it calls
/// no function but the driver's (`setup::driver_syscall`).
pub fn compile(
    req: &LtoRequest,
    modules: &[LtoModule],
    host: Option<&HostInfo>,
    all_ir: bool,
    devrt_given: bool,
) -> Result<Compiled, Failure> {
    let library = find_nvjitlink(&req.nvvmpath).ok_or_else(|| {
        Failure::fatal(
            "elfLink linker library load error [culdb: the IR in nvcc's objects is encrypted and only NVIDIA's \
             nvJitLink reads it; no libnvJitLink.so was found beside -nvvmpath (../lib64, ../lib), in \
             $CULDB_NVJITLINK or on the library path; scripts/cuda-tools.sh installs one]",
        )
    })?;
    // nvlink gives NVVM `--device-c` (separate compilation) always: with
    // it NVVM internalizes the external device functions only when the IR
    // calls nothing outside it. Code calling libcudadevrt keeps each one
    // visible and calls an internal clone, `name$1` (corpus
    // lto_cdp_extern_fn_sm90).
    let mut nvvm_options = vec![
        format!("-arch={}", req.arch),
        "-lto".to_string(),
        "-ptx".to_string(),
        format!("-Xnvvm={DEVICE_C}"),
    ];
    // With plain inputs beside the IR (partial LTO) NVVM internalizes
    // nothing: every external device function stays visible for the
    // plain code, called or not (nvlink's `-emit-ptx`: a function only a
    // plain object calls, and one nothing calls, both stay `.visible`).
    // nvJitLink's NVVM does that with `--force-device-c`, giving nvlink's
    // PTX byte for byte (corpus lto_partial_visible_sm90).
    if !all_ir {
        nvvm_options.push(format!("-Xnvvm={FORCE_DEVICE_C}"));
    }
    // nvlink's `-maxrregcount` reaches NVVM too, which then keeps register
    // pressure down (rematerializes) as it does (corpus lto_maxrreg_sm90).
    nvvm_options.extend(req.maxrregcount.map(|n| format!("-Xnvvm=-maxreg={n}")));
    nvvm_options.extend(req.xnvvm.iter().map(|o| format!("-Xnvvm={o}")));
    nvvm_options.extend(req.split_compile.map(|n| format!("-split-compile={n}")));
    nvvm_options.extend(
        req.split_compile_extended
            .map(|n| format!("-split-compile-extended={n}")),
    );
    // Host information only counts for full LTO.
    let host = host.filter(|_| all_ir);
    let t = Instant::now();
    // nvlink decides on a whole program from the code before the host
    // lists prune it: a kernel nothing on the host launches that launches
    // another from the device still makes the link partial, every kernel
    // kept, libcudadevrt linked (corpus lto_cdp_sm90, lto_device_launch_sm90).
    let (mut ptx, mut nvvm_log) = nvjitlink_ptx(&library, &nvvm_options, modules)?;
    let calls_out = extern_functions(&ptx).iter().any(|f| !super::setup::driver_syscall(f));
    let whole_program = all_ir && !(calls_out && devrt_given);
    if whole_program && let Some(h) = host {
        nvvm_options.extend(h.options());
        (ptx, nvvm_log) = nvjitlink_ptx(&library, &nvvm_options, modules)?;
    }
    let nvvm_us = t.elapsed().as_micros() as u64;
    // An `-Xptxas` value holds blank-separated options (nvcc passes
    // `-Xptxas "-O0 "` and joins several with blanks), as nvlink splits it
    // (corpus lto_xptxas_blanks_sm90).
    let mut ptxas_args: Vec<String> = req
        .xptxas
        .iter()
        .flat_map(|o| o.split_whitespace())
        .map(str::to_string)
        .collect();
    if let Some(n) = req.maxrregcount {
        ptxas_args.push(format!("-maxrregcount={n}"));
    }
    ptxas_args.extend([
        "-arch".to_string(),
        req.arch.clone(),
        "-m".to_string(),
        "64".to_string(),
    ]);
    // nvlink hands `-split-compile` to its ptxas too (its note records it);
    // not `-split-compile-extended` (`-split-compile=2` on lto_full_sm90).
    if let Some(n) = req.split_compile {
        ptxas_args.extend(["-split-compile".to_string(), n.to_string()]);
    }
    if !whole_program {
        ptxas_args.push("-c".to_string());
    }
    let ptxas = find_ptxas(&req.nvvmpath).ok_or_else(|| {
        Failure::fatal("elfLink fatbinary error [culdb: LTO needs ptxas: set CULDB_PTXAS or put ptxas on PATH]")
    })?;
    let t = Instant::now();
    let out = ptx::run(&ptxas, ptx.as_bytes(), &ptxas_args).map_err(|e| match e {
        // ptxas refusing its options is nvlink's `fatbinary error`; ptxas
        // failing to compile the code (`error` lines: too much shared
        // data) is `JIT compile failed` (err_lto_ptxas_error_sm90).
        PtxError::Rejected { messages } => Failure {
            fatal: if messages.iter().any(|m| m.starts_with("ptxas error")) {
                "elfLink JIT compile failed".into()
            } else {
                "elfLink fatbinary error".into()
            },
            infos: Vec::new(),
            printed: messages,
        },
        PtxError::Run(why) => Failure::fatal(format!("elfLink fatbinary error [culdb: {why}]")),
    })?;
    Ok(Compiled {
        ptx,
        cubin: out.cubin,
        whole_program,
        library,
        nvvm_options,
        nvvm_log,
        nvvm_us,
        ptxas_args,
        ptxas_lines: out.messages,
        ptxas_us: t.elapsed().as_micros() as u64,
    })
}

/// NVVM's option for separate compilation, which nvlink always gives it.
const DEVICE_C: &str = "--device-c";
/// NVVM's option that keeps every external function visible (partial LTO).
const FORCE_DEVICE_C: &str = "--force-device-c";

/// The functions PTX declares `.extern` (called, defined elsewhere).
pub fn extern_functions(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in ptx.lines() {
        let Some(rest) = line.trim_start().strip_prefix(".extern") else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix(".func") else {
            continue;
        };
        let mut rest = rest.trim_start();
        // An optional return parameter list comes first.
        if rest.starts_with('(') {
            match rest.find(')') {
                Some(n) => rest = rest[n + 1..].trim_start(),
                None => continue,
            }
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// The `-nvvmpath` folder the corpus's LTO cases name.
pub const CORPUS_NVVMPATH: &str = "/tmp/culdb-nvvm";

/// Makes `dir/lib64/libnvvm.so` a link to this machine's libNVVM (the
/// toolkit's `lib64/libnvvm.so`, or the PyPI wheel's `lib/libnvvm.so.4`
/// beside ptxas), as `scripts/regen-corpus` does for nvlink. Err says what
/// is missing for an LTO link here (libNVVM, nvJitLink or ptxas).
pub fn prepare_nvvmpath(dir: &Path) -> Result<(), String> {
    let bin = super::find_ptxas()
        .filter(|p| p.is_file())
        .ok_or("LTO needs ptxas, and this machine has none")?;
    let lib = bin.parent().map(|b| b.join("..")).unwrap_or_default();
    let libnvvm = [
        lib.join("lib/libnvvm.so.4"),
        lib.join("nvvm/lib64/libnvvm.so"),
        lib.join("lib64/libnvvm.so"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .ok_or("LTO needs libNVVM, and this machine has none")?;
    let link = dir.join("lib64").join("libnvvm.so");
    if !link.is_file() {
        std::fs::create_dir_all(dir.join("lib64")).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&libnvvm, &link).map_err(|e| e.to_string())?;
    }
    find_nvjitlink(dir).ok_or("LTO needs nvJitLink, and this machine has none")?;
    Ok(())
}

/// ptxas: the toolkit's (`<nvvmpath>/../bin/ptxas`), else culdb's usual one.
fn find_ptxas(nvvmpath: &Path) -> Option<PathBuf> {
    let beside = nvvmpath.join("..").join("bin").join("ptxas");
    if std::env::var_os("CULDB_PTXAS").is_none() && beside.is_file() {
        return Some(beside);
    }
    super::find_ptxas().filter(|p| p.is_file())
}

/// Where nvJitLink is for an LTO link: beside `-nvvmpath` first.
pub fn find_nvjitlink(nvvmpath: &Path) -> Option<PathBuf> {
    nvjitlink::find(&[
        nvvmpath.join("../lib64"),
        nvvmpath.join("../lib"),
        nvvmpath.join("lib64"),
    ])
}

/// Compiles the modules to PTX with nvJitLink: (PTX, info log).
fn nvjitlink_ptx(library: &Path, options: &[String], modules: &[LtoModule]) -> Result<(String, String), Failure> {
    let inputs: Vec<nvjitlink::Input<'_>> = modules
        .iter()
        .map(|m| nvjitlink::Input {
            kind: nvjitlink::INPUT_FATBIN,
            data: &m.fatbin,
            name: &m.name,
        })
        .collect();
    let run = nvjitlink::link_in_child(library, options, &inputs, true).map_err(|e| match e {
        RunError::Library(e) => Failure::fatal(format!("elfLink linker library load error [culdb: {e}]")),
        e => Failure::fatal(format!("elfLink nvvm error [culdb: {e}]")),
    })?;
    match run.output {
        Some(ptx) if run.code == 0 => Ok((String::from_utf8_lossy(&ptx).into_owned(), run.info_log)),
        None if run.code == 0 => Err(Failure::fatal("elfLink nvvm error [culdb: nvJitLink gave no PTX]")),
        // nvlink prints libNVVM's log as one message, its blank lines
        // kept (two IR modules defining one global: the link error, a
        // blank line, `NVVM_ERROR_COMPILATION`), then the fatal line.
        _ => Err(Failure {
            infos: Some(run.error_log.trim_end())
                .filter(|log| !log.trim().is_empty())
                .map(|log| log.lines().map(nvvm_log_line).collect::<Vec<_>>().join("\n"))
                .into_iter()
                .collect(),
            printed: Vec::new(),
            fatal: "elfLink JIT compile failed".into(),
        }),
    }
}

/// A line of nvJitLink's error log as nvlink prints libNVVM's:
/// `libnvvm : error: ...ERROR NVVM_ERROR_INVALID_OPTION (7) in
/// nvvmCompileProgram` becomes `libnvvm : error: ...NVVM_ERROR_INVALID_OPTION`.
fn nvvm_log_line(line: &str) -> String {
    let Some(at) = line.find("ERROR NVVM_ERROR_") else {
        return line.to_string();
    };
    let code = &line[at + "ERROR ".len()..];
    let code = code.split(' ').next().unwrap_or(code);
    format!("{}{code}", &line[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn externs_of_ptx() {
        let ptx = ".version 9.5\n.extern .func  (.param .b32 func_retval0) _Z6helperi\n(\n\t.param .b32 p\n)\n;\n\
                   .extern .func cudaLaunchDeviceV2(\n.extern .shared .align 4 .b8 s[];\n.visible .func f()\n";
        assert_eq!(extern_functions(ptx), ["_Z6helperi", "cudaLaunchDeviceV2"]);
    }

    #[test]
    fn nvvm_errors_as_nvlink_prints_them() {
        assert_eq!(
            nvvm_log_line(
                "libnvvm : error: -O2 is an unsupported optionERROR NVVM_ERROR_INVALID_OPTION (7) in nvvmCompileProgram"
            ),
            "libnvvm : error: -O2 is an unsupported optionNVVM_ERROR_INVALID_OPTION"
        );
        assert_eq!(nvvm_log_line("other"), "other");
    }

    #[test]
    fn missing_libnvvm_is_nvlinks_load_error() {
        let e = check_libnvvm(Path::new("/nonexistent/nvvm")).unwrap_err();
        assert_eq!(e.fatal, "elfLink linker library load error");
    }
}
