//! nvlink's command line, parsed the way nvlink 13.5 parses it.
//!
//! It stays one file because it is one table of nvlink's options and the one
//! parser that walks it; the checks after the line is read depend on the
//! order nvlink applies them, listed below.
//!
//! Everything here was learned by probing the real nvlink (the probes and
//! their answers are committed in `tests/data/options/probes.tsv`, made by
//! `scripts/gen-option-probes`):
//!
//! * An argument that starts with `-` (and is not `-` itself) is an option.
//!   One dash is stripped and the rest, up to the first `=`, is looked up as a
//!   short name (`-arch`, `-o`, `-Werror`); failing that, a second leading dash
//!   makes it a long name (`--output-file`). `-output-file` and `--o` are
//!   unknown. Only `-l`, `-L` and `-m` also take a value glued to the name
//!   (`-lfoo`, `-L.`, `-m64`; the whole rest, `=` included, is the value), and
//!   an exact name wins over that (`-lto` is link-time-opt, `-ltox` is `-l tox`).
//! * A value comes after `=` or is the next argument, whatever it looks like
//!   (`-o -arch=sm_90` names the output `-arch=sm_90`); only `-ghls` and `-Ofc`
//!   may go without one (then they skip a following option and mean `lcs-abs`
//!   and `0`). An options file is its
//!   own argument list: a value-taking option at its end does not borrow the
//!   next command-line argument.
//! * Lists (`-l`, `-L`, `-kernels-used`, `-optf`, ...) split on commas, skip
//!   empty items, and accumulate. Other options given twice with a different
//!   value print a warning and keep the last value; same value, no warning.
//! * Numbers are read like C `strtoll(s, &end, 0)`: leading white space, sign,
//!   `0x` hex and `0` octal prefixes; out of 32-bit range is reported before
//!   trailing garbage, and the empty string is 0.
//! * Every problem is fatal, status 1, and stops at the first one. After the
//!   whole line is read: `--help` (wins over `--version`), `--version`,
//!   `-report-arch` without `-arch` (nvlink crashes), `-ghls` (no inputs
//!   allowed, nothing else required), then a missing `-arch`, a missing `-o`,
//!   no input files, `-suppress-debug-info` without `-g`, an `lto_` target,
//!   and `-fdcmpt` without `-uumn`. With `-report-arch` those late messages
//!   end in ` (target: <arch>)`.
//!
//! culdb links cubin-based inputs only: the LTO options are recognised, and then
//! refused with a culdb diagnostic after nvlink's own checks.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::diag::Diagnostic;

/// `-cpu-arch` values (case-sensitive).
pub const CPU_ARCH_VALUES: &[&str] = &["AARCH64", "ARMv7", "PPC64LE", "RISCV64", "X86", "X86_64", "unknown"];

/// `-ghls` values.
pub const HOST_LINKER_SCRIPT_VALUES: &[&str] = &["lcs-abs", "lcs-aug"];

/// `-m` values.
pub const MACHINE_VALUES: &[i32] = &[64];

/// culdb reads at most this much of an options file (nvlink has no limit).
pub const MAX_OPTIONS_FILE_BYTES: u64 = 64 << 20;

/// Options files nested deeper than this are refused.
pub const MAX_OPTIONS_FILE_DEPTH: usize = 15;

/// nvlink's exit status for every command-line error.
pub const OPTION_ERROR_STATUS: i32 = 1;

/// One input of the link, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputArg {
    /// A positional argument (object, cubin, archive, fatbin, PTX ...).
    File(String),
    /// One name given to `-l`, searched as `lib<name>.a` on the `-L` paths.
    Library(String),
}

/// `--gen-host-linker-script` kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostLinkerScript {
    /// `lcs-abs`: a complete host linker script.
    LcsAbs,
    /// `lcs-aug`: a script that augments the default one.
    LcsAug,
}

impl HostLinkerScript {
    pub fn name(self) -> &'static str {
        match self {
            HostLinkerScript::LcsAbs => "lcs-abs",
            HostLinkerScript::LcsAug => "lcs-aug",
        }
    }
}

/// Options that only matter to link-time optimisation (`super::lto`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LtoOptions {
    /// `-lto` / `--link-time-opt`.
    pub link_time_opt: bool,
    /// `-dlto` / `--dlto`.
    pub dlto: bool,
    /// `-emit-ptx`.
    pub emit_ptx: bool,
    /// `-nvvm-latest`.
    pub nvvm_latest: bool,
    /// `-nvvmpath <dir>`.
    pub nvvmpath: Option<String>,
    /// `-Xptxas a,b`, accumulated.
    pub xptxas: Vec<String>,
    /// `-Xnvvm a,b`, accumulated.
    pub xnvvm: Vec<String>,
    /// `-split-compile <n>` (nvlink's default is 1).
    pub split_compile: Option<i32>,
    /// `-split-compile-extended <n>` (nvlink's default is 1).
    pub split_compile_extended: Option<i32>,
    /// `-Ofc` / `--Ofast-compile <0|min|mid|max>`; nvlink checks the value only
    /// once LTO runs.
    pub ofast_compile: Option<String>,
    /// `-force-whole-lto` (not in `--help`).
    pub force_whole_lto: bool,
    /// `-force-partial-lto` (not in `--help`).
    pub force_partial_lto: bool,
    /// Each LTO option as spelled on the command line, in order.
    pub given: Vec<String>,
}

impl LtoOptions {
    /// Whether any LTO option (or an `lto_` target) was given.
    pub fn any(&self) -> bool {
        !self.given.is_empty()
    }
}

/// Options nvlink accepts but does not list in `--help`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndocumentedOptions {
    /// `-Xlinker` / `--host-linker-options`, accumulated.
    pub host_linker_options: Vec<String>,
    /// `-dot` / `--dot-file <file>`.
    pub dot_file: Option<String>,
    /// `-dont-reserve-null-pointer`.
    pub dont_reserve_null_pointer: bool,
    /// `-disable-smem-reservation <true|false>`.
    pub disable_smem_reservation: Option<bool>,
    /// `-allow-undefined-globals`.
    pub allow_undefined_globals: bool,
    /// `-shared` / `--shared`: nvcc passes it for a device link of a shared
    /// library (CMake's device link does); nvlink's output is the same.
    pub shared: bool,
    /// `-syscall-const-offset <n>`.
    pub syscall_const_offset: Option<i32>,
    /// `-force-rela`.
    pub force_rela: bool,
    /// `-verbose-tkinfo <true|false>`.
    pub verbose_tkinfo: Option<bool>,
    /// `-uumn`.
    pub uumn: bool,
    /// `-host-ccbin <path>`.
    pub host_ccbin: Option<String>,
    /// `-nv-host <file>`.
    pub nv_host: Option<String>,
    /// `-enable-extended-smem <true|false>`.
    pub enable_extended_smem: Option<bool>,
    /// `-no-cache`.
    pub no_cache: bool,
    /// `-war4860824`.
    pub war4860824: bool,
    /// `-tool-name <name>`.
    pub tool_name: Option<String>,
    /// `-fdcmpt`: without `-uumn`, nvlink refuses it (`Unknown option '-fdcmpt'`)
    /// once the command line has passed its checks.
    pub fdcmpt: bool,
}

/// A parsed `nvlink` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkOptions {
    /// `-arch` / `--arch`, as given (a name of [`crate::arch`]'s database).
    pub arch: Option<String>,
    /// `-o` / `--output-file`.
    pub output_file: Option<String>,
    /// `-L` / `--library-path`, in order.
    pub library_paths: Vec<String>,
    /// Positional inputs and `-l` libraries, interleaved in command-line order.
    pub inputs: Vec<InputArg>,
    /// `-r` / `--relocatable-link`.
    pub relocatable: bool,
    /// `-m` / `--machine` (only 64 exists).
    pub machine: i32,
    /// Whether `-m` was given (nvlink's tkinfo note records it then).
    pub machine_given: bool,
    /// `-v` / `--verbose`.
    pub verbose: bool,
    /// `-v2` / `--verbose2`.
    pub verbose2: bool,
    /// `-w` / `--disable-warnings`.
    pub disable_warnings: bool,
    /// `-disable-infos`: silences nvlink's warnings after the options are
    /// read (not its info lines), until the LTO step's code is linked.
    pub disable_infos: bool,
    /// `-Werror` / `--warning-as-error`.
    pub werror: bool,
    /// `-extrawarn` / `--extra-warnings`.
    pub extra_warnings: bool,
    /// `-g` / `--debug`.
    pub debug: bool,
    /// `-suppress-debug-info` (nvlink refuses it without `-g`).
    pub suppress_debug_info: bool,
    /// `-uidx` / `--uidx-file <file>`.
    pub uidx_file: Option<String>,
    /// `-kernels-used a,b`, accumulated.
    pub kernels_used: Vec<String>,
    /// `-variables-used a,b`, accumulated.
    pub variables_used: Vec<String>,
    /// Options files read (`-optf`), in the order they were opened.
    pub options_files: Vec<String>,
    /// `-maxrregcount <n>` (nvlink uses it only with LTO).
    pub maxrregcount: Option<i32>,
    /// `-dump-callgraph`.
    pub dump_callgraph: bool,
    /// `-dump-callgraph-no-demangle`.
    pub dump_callgraph_no_demangle: bool,
    /// `-suppress-stack-size-warning`.
    pub suppress_stack_size_warning: bool,
    /// `-suppress-arch-warning`.
    pub suppress_arch_warning: bool,
    /// `-preserve-relocs`.
    pub preserve_relocs: bool,
    /// `-report-arch`: every message after the options are read (not the
    /// option parser's own) ends in ` (target: <arch>)`.
    pub report_arch: bool,
    /// `-ignore-host-info`.
    pub ignore_host_info: bool,
    /// `-use-host-info`.
    pub use_host_info: bool,
    /// `-keep-system-libraries`.
    pub keep_system_libraries: bool,
    /// `-cpu-arch` (default `unknown`).
    pub cpu_arch: String,
    /// Whether `-cpu-arch` was given.
    pub cpu_arch_given: bool,
    /// `--register-link-binaries <file>` (this option has no short form).
    pub register_link_binaries: Option<String>,
    /// `-ghls` / `--gen-host-linker-script`.
    pub gen_host_linker_script: Option<HostLinkerScript>,
    /// `-device-stack-protector <true|false>` (`--help` shows no value, but
    /// nvlink wants one).
    pub device_stack_protector: Option<bool>,
    /// `-astoolspatch` / `--link-as-tools-patch`.
    pub link_as_tools_patch: bool,
    /// `-time <file>` (`-` is stdout).
    pub time: Option<String>,
    /// `-h` / `--help`.
    pub help: bool,
    /// `-V` / `--version`.
    pub version: bool,
    /// LTO options.
    pub lto: LtoOptions,
    /// Options missing from `--help`.
    pub undocumented: UndocumentedOptions,
    /// Warnings printed while reading the command line (redefinitions), in order.
    pub warnings: Vec<Diagnostic>,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            arch: None,
            output_file: None,
            library_paths: Vec::new(),
            inputs: Vec::new(),
            relocatable: false,
            machine: 64,
            machine_given: false,
            verbose: false,
            verbose2: false,
            disable_warnings: false,
            disable_infos: false,
            werror: false,
            extra_warnings: false,
            debug: false,
            suppress_debug_info: false,
            uidx_file: None,
            kernels_used: Vec::new(),
            variables_used: Vec::new(),
            options_files: Vec::new(),
            maxrregcount: None,
            dump_callgraph: false,
            dump_callgraph_no_demangle: false,
            suppress_stack_size_warning: false,
            suppress_arch_warning: false,
            preserve_relocs: false,
            report_arch: false,
            ignore_host_info: false,
            use_host_info: false,
            keep_system_libraries: false,
            cpu_arch: "unknown".to_string(),
            cpu_arch_given: false,
            register_link_binaries: None,
            gen_host_linker_script: None,
            device_stack_protector: None,
            link_as_tools_patch: false,
            time: None,
            help: false,
            version: false,
            lto: LtoOptions::default(),
            undocumented: UndocumentedOptions::default(),
            warnings: Vec::new(),
        }
    }
}

impl LinkOptions {
    /// The positional input files, in order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().filter_map(|i| match i {
            InputArg::File(f) => Some(f.as_str()),
            InputArg::Library(_) => None,
        })
    }

    /// The `-l` names, in order.
    pub fn libraries(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().filter_map(|i| match i {
            InputArg::Library(l) => Some(l.as_str()),
            InputArg::File(_) => None,
        })
    }

    /// What `-report-arch` appends to link errors: ` (target: sm_90)`, or nothing.
    pub fn report_suffix(&self) -> String {
        match (&self.arch, self.report_arch) {
            (Some(a), true) => format!(" (target: {a})"),
            _ => String::new(),
        }
    }
}

/// A command line nvlink (or culdb) refuses: the diagnostics to print, in
/// order (warnings first, the fatal one last), and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError {
    pub diagnostics: Vec<Diagnostic>,
    pub status: i32,
}

impl OptionsError {
    /// The diagnostic that stopped parsing.
    pub fn fatal(&self) -> Option<&Diagnostic> {
        self.diagnostics.last()
    }
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", d.line())?;
        }
        Ok(())
    }
}

impl std::error::Error for OptionsError {}

/// Parses `nvlink`'s arguments (without the program name); relative options
/// file names are opened from the current directory, as nvlink does.
pub fn parse(args: &[String]) -> Result<LinkOptions, OptionsError> {
    parse_in(args, Path::new("."))
}

/// [`parse`], with relative options-file names resolved against `dir`.
pub fn parse_in(args: &[String], dir: &Path) -> Result<LinkOptions, OptionsError> {
    let opts = parse_nvlink_in(args, dir)?;
    if opts.help || opts.version || opts.gen_host_linker_script.is_some() {
        return Ok(opts);
    }
    let lto = opts.lto.dlto || opts.lto.link_time_opt;
    if lto && opts.lto.nvvmpath.is_none() {
        let text = format!("-nvvmpath should be specified with -lto{}", opts.report_suffix());
        return Err(fail(opts.warnings, Diagnostic::fatal(text)));
    }
    // Options of the LTO step alone need it (probes.tsv).
    let lto_only = [
        (opts.lto.emit_ptx, "-emit-ptx"),
        (opts.lto.nvvm_latest, "-nvvm-latest"),
        (opts.lto.ofast_compile.is_some(), "--Ofast-compile"),
        (opts.lto.force_whole_lto, "-force-whole-lto"),
        (opts.lto.force_partial_lto, "-force-partial-lto"),
    ];
    if let Some((_, name)) = lto_only.iter().find(|(on, _)| *on && !lto) {
        let text = format!("Conflicting options '{name}' and 'no -dlto'{}", opts.report_suffix());
        return Err(fail(opts.warnings, Diagnostic::fatal(text)));
    }
    if opts.undocumented.fdcmpt && !opts.undocumented.uumn {
        let text = format!("Unknown option '-fdcmpt'{}", opts.report_suffix());
        return Err(fail(opts.warnings, Diagnostic::fatal(text)));
    }
    Ok(opts)
}

/// The command line exactly as nvlink reads it, up to where nvlink starts on
/// the inputs, LTO options included (nvlink's own later LTO checks are not
/// reproduced). Used by [`parse_in`], which then refuses what culdb cannot do.
pub fn parse_nvlink_in(args: &[String], dir: &Path) -> Result<LinkOptions, OptionsError> {
    let mut p = Parser {
        dir,
        opts: LinkOptions::default(),
        last: HashMap::new(),
        files_open: 0,
    };
    if let Err(d) = p.run(args) {
        return Err(fail(p.opts.warnings, d));
    }
    let mut opts = p.opts;
    if opts.help || opts.version {
        return Ok(opts);
    }
    let suffix = opts.report_suffix();
    let late = |opts: LinkOptions, text: &str| Err(fail(opts.warnings, Diagnostic::fatal(format!("{text}{suffix}"))));
    // nvlink's opaque text for a missing -arch, with culdb's hint after it.
    let no_arch = format!(
        "{} [culdb: no -arch given; nvlink needs -arch=sm_XX]",
        crate::arch::missing_arch_message()
    );
    if opts.report_arch && opts.arch.is_none() {
        // nvlink crashes here (it formats a null target name); culdb says what is missing.
        return late(opts, &no_arch);
    }
    if opts.gen_host_linker_script.is_some() {
        if opts.files().next().is_some() {
            return late(
                opts,
                "Input files are not allowed with -ghls option; use --help for more information",
            );
        }
        return Ok(opts);
    }
    let Some(arch) = opts.arch.clone() else {
        return late(opts, &no_arch);
    };
    // An `lto_NN` target: nvlink refuses it after the input and option
    // checks and before it asks for `-o` (`nvcc -gencode ...code=lto_90`
    // alone runs `nvlink --arch=lto_90` without `-o`).
    if let Some(Err(refused)) = crate::arch::lookup(&arch).map(crate::arch::check_target) {
        if opts.files().next().is_none() {
            return late(opts, "No input files specified; use option --help for more information");
        }
        if opts.suppress_debug_info && !opts.debug {
            return late(opts, "Conflicting options '-suppress-debug-info' and 'no -g'");
        }
        return late(opts, &refused.text);
    }
    // A virtual target links nothing (`super::virtual_target`).
    if opts.output_file.is_none() && !super::virtual_target::applies(&opts) {
        return late(opts, "Must specify output file with -o option");
    }
    if opts.files().next().is_none() {
        return late(opts, "No input files specified; use option --help for more information");
    }
    if opts.suppress_debug_info && !opts.debug {
        return late(opts, "Conflicting options '-suppress-debug-info' and 'no -g'");
    }
    // After the output, arch and input checks, the call-graph pair first.
    if opts.dump_callgraph && opts.dump_callgraph_no_demangle {
        return late(
            opts,
            "Conflicting options '-dump-callgraph' and '-dump-callgraph-no-demangle'",
        );
    }
    if opts.use_host_info && opts.ignore_host_info {
        return late(opts, "Conflicting options '-use-host-info' and '-ignore-host-info'");
    }
    // From sm_90 on nvlink warns, with its spelling (preserve_relocs_sm90;
    // sm_75 to sm_89 say nothing); sm_100+ then keeps no resolved
    // relocations at all (`LinkSetup::preserve_relocs`).
    // -disable-infos silences it (disable_infos_stack_sm90).
    if opts.preserve_relocs
        && !opts.disable_infos
        && let Some(p) = crate::arch::lookup(&arch).filter(|p| p.sm >= 90)
    {
        let text = format!(
            "Option '--preserve-relocs' is not fully implemented for gpu archtecture '{}' and may not work as expected{suffix}",
            p.name
        );
        if !opts.werror {
            opts.warnings.push(Diagnostic::warning(text));
        } else {
            // -Werror: the error, then nvlink stops once it has found its
            // input files (preserve_relocs_werror_sm90).
            opts.warnings.push(Diagnostic::error(text));
            if opts.files().all(|f| dir.join(f).exists()) {
                return late(opts, "elfLink internal error");
            }
        }
    }
    Ok(opts)
}

fn fail(mut warnings: Vec<Diagnostic>, fatal: Diagnostic) -> OptionsError {
    warnings.push(fatal);
    OptionsError {
        diagnostics: warnings,
        status: OPTION_ERROR_STATUS,
    }
}

// ---------------------------------------------------------------------------
// The option table.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Id {
    OfastCompile,
    Xnvvm,
    Xptxas,
    Arch,
    CpuArch,
    Debug,
    DeviceStackProtector,
    DisableInfos,
    DisableWarnings,
    Dlto,
    DumpCallgraph,
    DumpCallgraphNoDemangle,
    EmitPtx,
    ExtraWarnings,
    GenHostLinkerScript,
    Help,
    IgnoreHostInfo,
    KeepSystemLibraries,
    KernelsUsed,
    Library,
    LibraryPath,
    LinkAsToolsPatch,
    LinkTimeOpt,
    Machine,
    Maxrregcount,
    NvvmLatest,
    Nvvmpath,
    OptionsFile,
    OutputFile,
    PreserveRelocs,
    RegisterLinkBinaries,
    RelocatableLink,
    ReportArch,
    SplitCompile,
    SplitCompileExtended,
    SuppressArchWarning,
    SuppressDebugInfo,
    SuppressStackSizeWarning,
    Time,
    UidxFile,
    UseHostInfo,
    VariablesUsed,
    Verbose,
    Verbose2,
    Version,
    WarningAsError,
    // Not in --help.
    HostLinkerOptions,
    DotFile,
    DontReserveNullPointer,
    DisableSmemReservation,
    AllowUndefinedGlobals,
    Shared,
    SyscallConstOffset,
    ForceRela,
    VerboseTkinfo,
    Uumn,
    HostCcbin,
    NvHost,
    EnableExtendedSmem,
    NoCache,
    War4860824,
    ToolName,
    ForceWholeLto,
    ForcePartialLto,
    Fdcmpt,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// No value.
    Flag,
    /// One string value.
    Str,
    /// Comma-separated values, accumulated.
    List,
    /// One 32-bit integer.
    Int,
    /// `true` or `false`.
    Bool,
    /// One of the listed strings.
    Enum(&'static [&'static str]),
    /// An architecture name of [`crate::arch`] (the list `nvlink --help` gives).
    Arch,
    /// An integer out of [`MACHINE_VALUES`].
    Machine,
}

#[derive(Debug)]
struct Spec {
    long: &'static str,
    short: &'static str,
    kind: Kind,
    id: Id,
    /// Takes a value glued to the short name (`-lfoo`).
    joined: bool,
    /// Only used by link-time optimisation.
    lto: bool,
    /// The value used when none follows: such an option takes the next
    /// argument only when that is not an option.
    default: Option<&'static str>,
}

const fn spec(long: &'static str, short: &'static str, kind: Kind, id: Id) -> Spec {
    Spec {
        long,
        short,
        kind,
        id,
        joined: false,
        lto: false,
        default: None,
    }
}

const fn joined(long: &'static str, short: &'static str, kind: Kind, id: Id) -> Spec {
    Spec {
        long,
        short,
        kind,
        id,
        joined: true,
        lto: false,
        default: None,
    }
}

const fn lto(long: &'static str, short: &'static str, kind: Kind, id: Id) -> Spec {
    Spec {
        long,
        short,
        kind,
        id,
        joined: false,
        lto: true,
        default: None,
    }
}

use Kind::{Bool, Flag, Int, List, Str};

const SPECS: &[Spec] = &[
    Spec {
        default: Some("0"),
        ..lto("Ofast-compile", "Ofc", Str, Id::OfastCompile)
    },
    lto("Xnvvm", "Xnvvm", List, Id::Xnvvm),
    lto("Xptxas", "Xptxas", List, Id::Xptxas),
    spec("arch", "arch", Kind::Arch, Id::Arch),
    spec("cpu-arch", "cpu-arch", Kind::Enum(CPU_ARCH_VALUES), Id::CpuArch),
    spec("debug", "g", Flag, Id::Debug),
    spec(
        "device-stack-protector",
        "device-stack-protector",
        Bool,
        Id::DeviceStackProtector,
    ),
    spec("disable-infos", "disable-infos", Flag, Id::DisableInfos),
    spec("disable-warnings", "w", Flag, Id::DisableWarnings),
    lto("dlto", "dlto", Flag, Id::Dlto),
    spec("dump-callgraph", "dump-callgraph", Flag, Id::DumpCallgraph),
    spec(
        "dump-callgraph-no-demangle",
        "dump-callgraph-no-demangle",
        Flag,
        Id::DumpCallgraphNoDemangle,
    ),
    lto("emit-ptx", "emit-ptx", Flag, Id::EmitPtx),
    spec("extra-warnings", "extrawarn", Flag, Id::ExtraWarnings),
    Spec {
        default: Some("lcs-abs"),
        ..spec(
            "gen-host-linker-script",
            "ghls",
            Kind::Enum(HOST_LINKER_SCRIPT_VALUES),
            Id::GenHostLinkerScript,
        )
    },
    spec("help", "h", Flag, Id::Help),
    spec("ignore-host-info", "ignore-host-info", Flag, Id::IgnoreHostInfo),
    spec(
        "keep-system-libraries",
        "keep-system-libraries",
        Flag,
        Id::KeepSystemLibraries,
    ),
    spec("kernels-used", "kernels-used", List, Id::KernelsUsed),
    joined("library", "l", List, Id::Library),
    joined("library-path", "L", List, Id::LibraryPath),
    spec("link-as-tools-patch", "astoolspatch", Flag, Id::LinkAsToolsPatch),
    lto("link-time-opt", "lto", Flag, Id::LinkTimeOpt),
    joined("machine", "m", Kind::Machine, Id::Machine),
    spec("maxrregcount", "maxrregcount", Int, Id::Maxrregcount),
    lto("nvvm-latest", "nvvm-latest", Flag, Id::NvvmLatest),
    lto("nvvmpath", "nvvmpath", Str, Id::Nvvmpath),
    spec("options-file", "optf", List, Id::OptionsFile),
    spec("output-file", "o", Str, Id::OutputFile),
    spec("preserve-relocs", "preserve-relocs", Flag, Id::PreserveRelocs),
    // The short name is spelled with a dash, so both forms read `--register-link-binaries`.
    spec(
        "register-link-binaries",
        "-register-link-binaries",
        Str,
        Id::RegisterLinkBinaries,
    ),
    spec("relocatable-link", "r", Flag, Id::RelocatableLink),
    spec("report-arch", "report-arch", Flag, Id::ReportArch),
    lto("split-compile", "split-compile", Int, Id::SplitCompile),
    lto(
        "split-compile-extended",
        "split-compile-extended",
        Int,
        Id::SplitCompileExtended,
    ),
    spec(
        "suppress-arch-warning",
        "suppress-arch-warning",
        Flag,
        Id::SuppressArchWarning,
    ),
    spec(
        "suppress-debug-info",
        "suppress-debug-info",
        Flag,
        Id::SuppressDebugInfo,
    ),
    spec(
        "suppress-stack-size-warning",
        "suppress-stack-size-warning",
        Flag,
        Id::SuppressStackSizeWarning,
    ),
    spec("time", "time", Str, Id::Time),
    spec("uidx-file", "uidx", Str, Id::UidxFile),
    spec("use-host-info", "use-host-info", Flag, Id::UseHostInfo),
    spec("variables-used", "variables-used", List, Id::VariablesUsed),
    spec("verbose", "v", Flag, Id::Verbose),
    spec("verbose2", "v2", Flag, Id::Verbose2),
    spec("version", "V", Flag, Id::Version),
    spec("warning-as-error", "Werror", Flag, Id::WarningAsError),
    spec("host-linker-options", "Xlinker", List, Id::HostLinkerOptions),
    spec("dot-file", "dot", Str, Id::DotFile),
    spec(
        "dont-reserve-null-pointer",
        "dont-reserve-null-pointer",
        Flag,
        Id::DontReserveNullPointer,
    ),
    spec(
        "disable-smem-reservation",
        "disable-smem-reservation",
        Bool,
        Id::DisableSmemReservation,
    ),
    spec(
        "allow-undefined-globals",
        "allow-undefined-globals",
        Flag,
        Id::AllowUndefinedGlobals,
    ),
    spec("shared", "shared", Flag, Id::Shared),
    spec(
        "syscall-const-offset",
        "syscall-const-offset",
        Int,
        Id::SyscallConstOffset,
    ),
    spec("force-rela", "force-rela", Flag, Id::ForceRela),
    spec("verbose-tkinfo", "verbose-tkinfo", Bool, Id::VerboseTkinfo),
    spec("uumn", "uumn", Flag, Id::Uumn),
    spec("host-ccbin", "host-ccbin", Str, Id::HostCcbin),
    spec("nv-host", "nv-host", Str, Id::NvHost),
    spec(
        "enable-extended-smem",
        "enable-extended-smem",
        Bool,
        Id::EnableExtendedSmem,
    ),
    spec("no-cache", "no-cache", Flag, Id::NoCache),
    spec("war4860824", "war4860824", Flag, Id::War4860824),
    spec("tool-name", "tool-name", Str, Id::ToolName),
    lto("force-whole-lto", "force-whole-lto", Flag, Id::ForceWholeLto),
    lto("force-partial-lto", "force-partial-lto", Flag, Id::ForcePartialLto),
    spec("fdcmpt", "fdcmpt", Flag, Id::Fdcmpt),
];

/// Finds the option an argument names. `s` is the argument without its first
/// dash; returns the option and the value glued to it (after `=` or, for
/// `-l`/`-L`/`-m`, right after the name).
fn lookup(s: &str) -> Result<(&'static Spec, Option<&str>), String> {
    let (name, eq_value) = match s.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (s, None),
    };
    if let Some(sp) = SPECS.iter().find(|sp| sp.short == name) {
        return Ok((sp, eq_value));
    }
    if let Some(long) = name.strip_prefix('-')
        && let Some(sp) = SPECS.iter().find(|sp| sp.long == long)
    {
        return Ok((sp, eq_value));
    }
    if let Some(first) = s.chars().next()
        && let Some(sp) = SPECS
            .iter()
            .find(|sp| sp.joined && sp.short.len() == 1 && sp.short.starts_with(first))
    {
        return Ok((sp, Some(&s[first.len_utf8()..])));
    }
    Err(name.to_string())
}

// ---------------------------------------------------------------------------
// The parser.

/// The last value of a single-valued option, to spot redefinitions.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scalar {
    Str(String),
    Int(i32),
    Bool(bool),
}

struct Parser<'a> {
    dir: &'a Path,
    opts: LinkOptions,
    last: HashMap<Id, Scalar>,
    /// Options files currently open (nesting depth).
    files_open: usize,
}

impl Parser<'_> {
    fn run(&mut self, args: &[String]) -> Result<(), Diagnostic> {
        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            let Some(s) = arg.strip_prefix('-').filter(|s| !s.is_empty()) else {
                self.opts.inputs.push(InputArg::File(arg.clone()));
                continue;
            };
            let (sp, glued) = lookup(s).map_err(|name| Diagnostic::fatal(format!("Unknown option '{name}'")))?;
            // How nvlink names the argument in its messages: as typed, before any `=`.
            let typed = match arg.split_once('=') {
                Some((n, _)) => n,
                None => arg.as_str(),
            };
            if sp.lto {
                self.opts.lto.given.push(typed.to_string());
            }
            if let Kind::Flag = sp.kind {
                if glued.is_some() {
                    return Err(Diagnostic::fatal(format!("no argument expected after '{typed}'")));
                }
                self.flag(sp.id);
                continue;
            }
            let next = args
                .get(i)
                .filter(|v| sp.default.is_none() || !v.starts_with('-') || v.as_str() == "-");
            let value = match (glued, next, sp.default) {
                (Some(v), _, _) => v.to_string(),
                (None, Some(v), _) => {
                    i += 1;
                    v.clone()
                }
                (None, None, Some(d)) => d.to_string(),
                (None, None, None) => return Err(Diagnostic::fatal(format!("argument expected after '{typed}'"))),
            };
            self.value(sp, value)?;
        }
        Ok(())
    }

    fn flag(&mut self, id: Id) {
        let o = &mut self.opts;
        let u = &mut o.undocumented;
        match id {
            Id::Debug => o.debug = true,
            Id::DisableInfos => o.disable_infos = true,
            Id::DisableWarnings => o.disable_warnings = true,
            Id::Dlto => o.lto.dlto = true,
            Id::DumpCallgraph => o.dump_callgraph = true,
            Id::DumpCallgraphNoDemangle => o.dump_callgraph_no_demangle = true,
            Id::EmitPtx => o.lto.emit_ptx = true,
            Id::ExtraWarnings => o.extra_warnings = true,
            Id::Help => o.help = true,
            Id::IgnoreHostInfo => o.ignore_host_info = true,
            Id::KeepSystemLibraries => o.keep_system_libraries = true,
            Id::LinkAsToolsPatch => o.link_as_tools_patch = true,
            Id::LinkTimeOpt => o.lto.link_time_opt = true,
            Id::NvvmLatest => o.lto.nvvm_latest = true,
            Id::PreserveRelocs => o.preserve_relocs = true,
            Id::RelocatableLink => o.relocatable = true,
            Id::ReportArch => o.report_arch = true,
            Id::SuppressArchWarning => o.suppress_arch_warning = true,
            Id::SuppressDebugInfo => o.suppress_debug_info = true,
            Id::SuppressStackSizeWarning => o.suppress_stack_size_warning = true,
            Id::UseHostInfo => o.use_host_info = true,
            Id::Verbose => o.verbose = true,
            Id::Verbose2 => o.verbose2 = true,
            Id::Version => o.version = true,
            Id::WarningAsError => o.werror = true,
            Id::DontReserveNullPointer => u.dont_reserve_null_pointer = true,
            Id::AllowUndefinedGlobals => u.allow_undefined_globals = true,
            Id::Shared => u.shared = true,
            Id::ForceRela => u.force_rela = true,
            Id::Uumn => u.uumn = true,
            Id::NoCache => u.no_cache = true,
            Id::War4860824 => u.war4860824 = true,
            Id::ForceWholeLto => o.lto.force_whole_lto = true,
            Id::ForcePartialLto => o.lto.force_partial_lto = true,
            Id::Fdcmpt => u.fdcmpt = true,
            // Valued options never reach here (the table says which kind each is).
            _ => {}
        }
    }

    fn value(&mut self, sp: &Spec, value: String) -> Result<(), Diagnostic> {
        let not_defined = |v: &str| Diagnostic::fatal(format!("Value '{v}' is not defined for option '{}'", sp.long));
        let scalar = match sp.kind {
            Kind::Flag => return Ok(()),
            Kind::List => {
                let items: Vec<String> = value.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
                return self.list(sp.id, items);
            }
            Kind::Str => Scalar::Str(value),
            Kind::Enum(allowed) => {
                if !allowed.contains(&value.as_str()) {
                    return Err(not_defined(&value));
                }
                Scalar::Str(value)
            }
            Kind::Arch => {
                if crate::arch::lookup(&value).is_none() {
                    return Err(not_defined(&value));
                }
                Scalar::Str(value)
            }
            Kind::Int => Scalar::Int(parse_int(&value)?),
            Kind::Machine => {
                let n = parse_int(&value)?;
                if !MACHINE_VALUES.contains(&n) {
                    return Err(not_defined(&value));
                }
                Scalar::Int(n)
            }
            Kind::Bool => match value.as_str() {
                "true" => Scalar::Bool(true),
                "false" => Scalar::Bool(false),
                _ => return Err(Diagnostic::fatal(format!("'{value}': expected true or false"))),
            },
        };
        if let Some(old) = self.last.insert(sp.id, scalar.clone())
            && old != scalar
        {
            self.opts.warnings.push(Diagnostic::warning(format!(
                "incompatible redefinition for option '{}', the last value of this option was used",
                sp.long
            )));
        }
        self.set(sp.id, scalar);
        Ok(())
    }

    fn set(&mut self, id: Id, v: Scalar) {
        let o = &mut self.opts;
        let u = &mut o.undocumented;
        match v {
            Scalar::Str(s) => match id {
                Id::OfastCompile => o.lto.ofast_compile = Some(s),
                Id::Arch => o.arch = Some(s),
                Id::CpuArch => {
                    o.cpu_arch = s;
                    o.cpu_arch_given = true;
                }
                Id::GenHostLinkerScript => {
                    o.gen_host_linker_script = Some(if s == "lcs-abs" {
                        HostLinkerScript::LcsAbs
                    } else {
                        HostLinkerScript::LcsAug
                    })
                }
                Id::Nvvmpath => o.lto.nvvmpath = Some(s),
                Id::OutputFile => o.output_file = Some(s),
                Id::RegisterLinkBinaries => o.register_link_binaries = Some(s),
                Id::Time => o.time = Some(s),
                Id::UidxFile => o.uidx_file = Some(s),
                Id::DotFile => u.dot_file = Some(s),
                Id::HostCcbin => u.host_ccbin = Some(s),
                Id::NvHost => u.nv_host = Some(s),
                Id::ToolName => u.tool_name = Some(s),
                _ => {}
            },
            Scalar::Int(n) => match id {
                Id::Machine => {
                    o.machine = n;
                    o.machine_given = true;
                }
                Id::Maxrregcount => o.maxrregcount = Some(n),
                Id::SplitCompile => o.lto.split_compile = Some(n),
                Id::SplitCompileExtended => o.lto.split_compile_extended = Some(n),
                Id::SyscallConstOffset => u.syscall_const_offset = Some(n),
                _ => {}
            },
            Scalar::Bool(b) => match id {
                Id::DeviceStackProtector => o.device_stack_protector = Some(b),
                Id::DisableSmemReservation => u.disable_smem_reservation = Some(b),
                Id::VerboseTkinfo => u.verbose_tkinfo = Some(b),
                Id::EnableExtendedSmem => u.enable_extended_smem = Some(b),
                _ => {}
            },
        }
    }

    fn list(&mut self, id: Id, items: Vec<String>) -> Result<(), Diagnostic> {
        let o = &mut self.opts;
        match id {
            Id::Xnvvm => o.lto.xnvvm.extend(items),
            // nvcc passes `-Xptxas "-O0 "`: nvlink records the value
            // without the trailing blank, and ptxas gets its
            // blank-separated options one by one (lto_xptxas_blanks_sm90).
            Id::Xptxas => o.lto.xptxas.extend(items.iter().map(|s| s.trim().to_string())),
            Id::KernelsUsed => o.kernels_used.extend(items),
            Id::VariablesUsed => o.variables_used.extend(items),
            Id::Library => o.inputs.extend(items.into_iter().map(InputArg::Library)),
            Id::LibraryPath => o.library_paths.extend(items),
            Id::HostLinkerOptions => o.undocumented.host_linker_options.extend(items),
            Id::OptionsFile => {
                for name in items {
                    self.options_file(&name)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Reads an options file and parses its words in place, as their own list.
    fn options_file(&mut self, name: &str) -> Result<(), Diagnostic> {
        if self.files_open >= MAX_OPTIONS_FILE_DEPTH {
            return Err(Diagnostic::fatal(format!("Too many options file opened '{name}'")));
        }
        let path = resolve(self.dir, name);
        // nvlink reads a directory as an empty file.
        let content = if path.is_dir() {
            Vec::new()
        } else {
            read_options_file(&path, name)?
        };
        self.opts.options_files.push(name.to_string());
        let words = split_options_file(&content).map_err(Diagnostic::fatal)?;
        self.files_open += 1;
        let result = self.run(&words);
        self.files_open -= 1;
        result
    }
}

/// Reads an options file, up to [`MAX_OPTIONS_FILE_BYTES`] (nvlink reads on
/// until the end, so `/dev/zero` never finishes).
fn read_options_file(path: &Path, name: &str) -> Result<Vec<u8>, Diagnostic> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).map_err(|_| Diagnostic::fatal(format!("Could not open options file '{name}'")))?;
    let mut content = Vec::new();
    let read = file.take(MAX_OPTIONS_FILE_BYTES + 1).read_to_end(&mut content);
    if read.is_err() || content.len() as u64 > MAX_OPTIONS_FILE_BYTES {
        return Err(Diagnostic::fatal("Failed to read contents of options file"));
    }
    Ok(content)
}

fn resolve(dir: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() { p.to_path_buf() } else { dir.join(p) }
}

/// Reads a 32-bit integer option value the way nvlink does (C `strtoll` with
/// base 0, then a range check, then a check for trailing characters).
fn parse_int(s: &str) -> Result<i32, Diagnostic> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    let hex = b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit());
    let (radix, start) = if hex {
        (16, i + 2)
    } else if b.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut magnitude: u128 = 0;
    while let Some(d) = b.get(j).and_then(|&c| (c as char).to_digit(radix)) {
        magnitude = magnitude
            .saturating_mul(u128::from(radix))
            .saturating_add(u128::from(d));
        j += 1;
    }
    // No digits: strtoll converts nothing and points back at the start.
    let (value, end) = if j == start {
        (0i128, 0)
    } else {
        (magnitude.min(1 << 100) as i128, j)
    };
    let value = if negative { -value } else { value };
    if value < i128::from(i32::MIN) || value > i128::from(i32::MAX) {
        return Err(Diagnostic::fatal(format!("32-bit integer value ({s}) out of range")));
    }
    if end != b.len() {
        return Err(Diagnostic::fatal(format!("'{s}': expected a number")));
    }
    Ok(value as i32)
}

/// Splits an options file into arguments, with nvlink's rules:
///
/// * words are separated by space, tab, CR and LF (not by VT or FF);
/// * `"` quotes (white space inside stays), `'` is an ordinary character;
/// * `\` makes the next character ordinary, newline included; a `\"` adds
///   nothing, while the `"` of `\\"` both quotes and stays in the word;
/// * spaces and tabs that end up at either end of a word (escaped ones, since
///   quoted ones sit between quotes) are dropped, and a word left empty
///   vanishes, but `""` is an empty argument;
/// * the file ends at its first NUL byte; an unclosed quote, or a `\` at the
///   end, is an error (`Stray '"' character`, `Stray '' character`).
pub fn split_options_file(content: &[u8]) -> Result<Vec<String>, String> {
    let content = match content.iter().position(|&c| c == 0) {
        Some(n) => &content[..n],
        None => content,
    };
    let is_sep = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        while i < content.len() && is_sep(content[i]) {
            i += 1;
        }
        if i >= content.len() {
            break;
        }
        // The raw word: up to an unescaped separator outside quotes.
        let mut word = Vec::new();
        let mut quoted = false;
        while i < content.len() {
            let c = content[i];
            if c == b'\\' {
                let Some(&next) = content.get(i + 1) else {
                    return Err("Stray '' character".to_string());
                };
                word.push(next);
                i += 2;
                continue;
            }
            if c == b'"' {
                quoted = !quoted;
            } else if !quoted && is_sep(c) {
                break;
            }
            word.push(c);
            i += 1;
        }
        if quoted {
            return Err("Stray '\"' character".to_string());
        }
        // `word` now has escapes resolved but still holds the quote marks.
        let start = word.iter().position(|&c| c != b' ' && c != b'\t');
        let Some(start) = start else { continue };
        let end = word
            .iter()
            .rposition(|&c| c != b' ' && c != b'\t')
            .map_or(start, |e| e + 1);
        let trimmed = &word[start..end];
        let mut out = Vec::with_capacity(trimmed.len());
        for (k, &c) in trimmed.iter().enumerate() {
            if c == b'"' && !(k > 0 && trimmed[k - 1] == b'\\') {
                continue;
            }
            out.push(c);
        }
        words.push(String::from_utf8_lossy(&out).into_owned());
    }
    Ok(words)
}

/// The help text of `culdb link`.
pub fn usage() -> String {
    let rows: &[(&str, &str)] = &[
        (
            "-arch <sm_XX>",
            "target GPU; an sm_/compute_ name nvlink knows (required)",
        ),
        ("-o <file>", "where to write the linked cubin (required)"),
        (
            "<file>...",
            "inputs: cubins, relocatable objects, host objects with fatbins, archives",
        ),
        (
            "-l <name>,...",
            "link lib<name>.a, searched on the -L paths, at this point of the input order",
        ),
        ("-L <dir>,...", "add directories to search for -l libraries"),
        ("-r", "relocatable link: the output can be linked again"),
        ("-m 64", "64-bit addressing (the only choice)"),
        (
            "-optf <file>,...",
            "read more arguments from a file (quotes and backslashes as nvlink reads them)",
        ),
        (
            "-kernels-used <k>,...",
            "keep only kernels whose name contains one of these; the rest is dead code",
        ),
        (
            "-variables-used <v>,...",
            "keep only variables whose name contains one of these",
        ),
        ("-ignore-host-info", "keep device code the host might reference"),
        ("-use-host-info", "drop device code the host does not reference"),
        (
            "-keep-system-libraries",
            "keep code from system libraries such as cudadevrt",
        ),
        ("-g", "inputs were compiled for debugging"),
        (
            "-suppress-debug-info",
            "with -g: leave debug sections out of the output",
        ),
        ("-preserve-relocs", "keep resolved relocations in the output"),
        (
            "-uidx <file>",
            "read the unified function/data table order from this index file",
        ),
        ("-dump-callgraph", "print the call graph (demangled names)"),
        ("-dump-callgraph-no-demangle", "print the call graph with mangled names"),
        (
            "--register-link-binaries <file>",
            "write the cudaRegister routine names of the linked inputs",
        ),
        (
            "-ghls <lcs-abs|lcs-aug>",
            "write a host linker script instead of linking (no inputs)",
        ),
        ("-cpu-arch <name>", "host CPU the link is for (X86_64, AARCH64, ...)"),
        ("-v, -v2", "report resource usage; -v2 also reports progress"),
        ("-w", "do not print warnings"),
        ("-disable-infos", "do not print info messages"),
        ("-Werror", "treat warnings as errors"),
        ("-extrawarn", "warn about more possible problems"),
        (
            "-suppress-arch-warning",
            "no warning when an input lacks code for the target",
        ),
        (
            "-suppress-stack-size-warning",
            "no warning when a stack size cannot be worked out",
        ),
        ("-report-arch", "name the target architecture in error messages"),
        ("-time <file|->", "write phase timings as CSV (the LTO steps)"),
        (
            "-maxrregcount <n>",
            "accepted for nvlink compatibility (it only affects LTO)",
        ),
        (
            "-device-stack-protector <bool>",
            "enable stack protectors (true or false)",
        ),
        ("-astoolspatch", "inputs were compiled for tools patching"),
        ("-h, --help", "print this help"),
        ("-V, --version", "print the version"),
    ];
    let mut s = String::from(
        "Usage: culdb link [options] <inputs>\n\n\
         Links CUDA device code the way nvlink does, reading nvlink's command line.\n\
         Every option also has nvlink's other spellings (--arch=sm_90, -arch sm_90, ...).\n\n",
    );
    for (opt, what) in rows {
        s.push_str(&format!("  {opt:<32} {what}\n"));
    }
    s.push_str(
        "\nLink-time optimisation (-lto, -dlto, -Xptxas, -Xnvvm, -nvvmpath, -emit-ptx, -split-compile,\n\
         -Ofast-compile, -nvvm-latest, lto_ targets) is recognised but not supported: culdb links\n\
         cubin-based inputs only.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn integers_read_like_strtoll() {
        assert_eq!(parse_int("64").unwrap(), 64);
        assert_eq!(parse_int("0x40").unwrap(), 64);
        assert_eq!(parse_int("0100").unwrap(), 64);
        assert_eq!(parse_int(" +64").unwrap(), 64);
        assert_eq!(parse_int("").unwrap(), 0);
        assert_eq!(parse_int("-2147483648").unwrap(), i32::MIN);
        assert_eq!(parse_int("64x").unwrap_err().text, "'64x': expected a number");
        assert_eq!(parse_int("0x").unwrap_err().text, "'0x': expected a number");
        assert_eq!(parse_int("09").unwrap_err().text, "'09': expected a number");
        assert_eq!(parse_int(" ").unwrap_err().text, "' ': expected a number");
        assert_eq!(
            parse_int("4294967360x").unwrap_err().text,
            "32-bit integer value (4294967360x) out of range"
        );
        assert_eq!(
            parse_int("-99999999999999999999999999999999999999999")
                .unwrap_err()
                .text,
            "32-bit integer value (-99999999999999999999999999999999999999999) out of range"
        );
    }

    #[test]
    fn lookup_prefers_exact_names() {
        assert_eq!(lookup("lto").unwrap().0.long, "link-time-opt");
        let (sp, v) = lookup("ltox").unwrap();
        assert_eq!((sp.long, v), ("library", Some("tox")));
        let (sp, v) = lookup("maxrregcountx").unwrap();
        assert_eq!((sp.long, v), ("machine", Some("axrregcountx")));
        assert_eq!(lookup("-m64").unwrap_err(), "-m64");
    }

    #[test]
    fn parse_never_panics_on_odd_arguments() {
        for a in [
            "-", "--", "-=", "--=", "-é", "--é=x", "-lé", "-mé", "=", "-m\u{0}", "-\u{301}",
        ] {
            let _ = parse_in(&args(&[a, "-arch=sm_90", "-o", "x", "y"]), Path::new("/nonexistent"));
        }
    }
}
