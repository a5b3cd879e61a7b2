//! `culdb link`'s command line against nvlink 13.5: the committed probes in
//! tests/data/options/ (made by scripts/gen-option-probes with the real
//! nvlink) say what nvlink accepts and what it answers; `parse` must agree.

use std::path::{Path, PathBuf};

use culdb::link::diag::Severity;
use culdb::link::inputs::nvlink_text;
use culdb::link::options::{
    self, HostLinkerScript, InputArg, LinkOptions, OptionsError, parse_in, parse_nvlink_in, split_options_file,
};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/options")
}

fn files() -> PathBuf {
    data().join("files")
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn ok(a: &[&str]) -> LinkOptions {
    match parse_in(&strings(a), &files()) {
        Ok(o) => o,
        Err(e) => panic!("{a:?} refused: {e}"),
    }
}

fn err(a: &[&str]) -> OptionsError {
    match parse_in(&strings(a), &files()) {
        Ok(o) => panic!("{a:?} accepted: {o:?}"),
        Err(e) => e,
    }
}

/// The text of the diagnostic that stopped parsing.
fn fatal(a: &[&str]) -> String {
    let e = err(a);
    assert_eq!(e.status, 1);
    let d = e.fatal().expect("a diagnostic");
    assert_eq!(d.severity, Severity::Fatal);
    // nvlink's text: culdb's ` [culdb: ...]` hint left out.
    nvlink_text(&d.text).to_string()
}

// ---------------------------------------------------------------------------
// The nvlink goldens.

struct Probe {
    line: usize,
    args: Vec<String>,
    status: i32,
    stderr: String,
    stdout: String,
}

fn probes() -> Vec<Probe> {
    let text = std::fs::read_to_string(data().join("probes.tsv")).expect("probes.tsv");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "probes.tsv:{}", n + 1);
        out.push(Probe {
            line: n + 1,
            args: serde_json::from_str(cols[0]).expect("args"),
            status: cols[1].parse().expect("status"),
            stderr: serde_json::from_str(cols[2]).expect("stderr"),
            stdout: serde_json::from_str(cols[3]).expect("stdout"),
        });
    }
    out
}

/// nvlink's diagnostics, `(severity, text)`; a text may span lines (a file
/// name with a newline in it), other output is left out.
fn messages(stderr: &str) -> Vec<(Severity, String)> {
    let mut out: Vec<(Severity, String)> = Vec::new();
    let mut open = false;
    for line in stderr.split('\n') {
        let sev = [Severity::Info, Severity::Warning, Severity::Error, Severity::Fatal]
            .into_iter()
            .find(|s| line.starts_with(&format!("nvlink {}: ", s.padded())));
        match sev {
            Some(s) => {
                out.push((s, line[format!("nvlink {}: ", s.padded()).len()..].to_string()));
                open = true;
            }
            None if open && !line.is_empty() && !line.starts_with("callgraph for") => {
                let last = out.last_mut().expect("open message");
                last.1.push('\n');
                last.1.push_str(line);
            }
            None => open = false,
        }
    }
    out
}

/// Messages nvlink prints while it reads its command line (culdb's `parse`
/// must produce exactly these).
fn is_option_message(text: &str) -> bool {
    const STARTS: &[&str] = &[
        "Unknown option",
        "argument expected after",
        "no argument expected after",
        "Value '",
        "32-bit integer value",
        "Too many options file",
        "Could not open options file",
        "Stray ",
        "Unknown arch name",
        "Must specify output file",
        "No input files specified",
        "Input files are not allowed with -ghls",
        "Link target of",
        "incompatible redefinition",
    ];
    STARTS.iter().any(|s| text.starts_with(s))
        || text.ends_with("': expected a number")
        || text.ends_with("': expected true or false")
}

/// Failures nvlink reports once it works on the inputs (not culdb's `parse`).
fn is_link_message(text: &str) -> bool {
    const STARTS: &[&str] = &[
        "Could not open input file",
        "Could not open output file",
        "Could not read file",
        "Cannot open file",
        "Multiple definition",
        "merge_elf failed",
        "Input file '",
        "Function '",
        "Undefined reference",
        "Option '--preserve-relocs' is not fully implemented",
        // The LTO step loads libNVVM from -nvvmpath (tests/lto.rs links with it).
        "elfLink linker library load error",
    ];
    STARTS.iter().any(|s| text.starts_with(s))
}

fn strip_target(text: &str) -> &str {
    match text.rfind(" (target: ") {
        Some(i) if text.ends_with(')') => &text[..i],
        _ => text,
    }
}

/// The name nvlink quotes in "Could not open <what> file 'name'".
fn quoted_name<'a>(text: &'a str, what: &str) -> Option<&'a str> {
    let rest = strip_target(text).strip_prefix(&format!("Could not open {what} file '"))?;
    rest.strip_suffix('\'')
}

fn check_probe(p: &Probe) -> Result<(), String> {
    let nv = messages(&p.stderr);
    let result = parse_in(&p.args, &files());
    match result {
        Err(e) => {
            let last = e.fatal().ok_or("no diagnostic")?;
            if e.status != 1 || last.severity != Severity::Fatal {
                return Err(format!("culdb error not fatal/1: {e}"));
            }
            // nvlink's texts: culdb's ` [culdb: ...]` hints left out.
            let culdb: Vec<(Severity, String)> = e
                .diagnostics
                .iter()
                .map(|d| (d.severity, nvlink_text(&d.text).to_string()))
                .collect();
            if last.text.contains("not supported by culdb (LTO)") {
                // culdb refuses LTO after nvlink's own checks: nvlink got at least as far.
                let before = &culdb[..culdb.len() - 1];
                if nv.len() < before.len() || nv[..before.len()] != *before {
                    return Err(format!("warnings differ: culdb {before:?}, nvlink {nv:?}"));
                }
                if let Some((_, t)) = nv.get(before.len())
                    && is_option_message(t)
                {
                    return Err(format!("nvlink refused the line first: {t}"));
                }
                return Ok(());
            }
            if p.status >= 128 {
                // nvlink crashed (-report-arch without -arch); culdb reports instead.
                return Ok(());
            }
            if p.status != e.status || culdb != nv {
                return Err(format!(
                    "culdb {culdb:?} status {}\nnvlink {nv:?} status {}",
                    e.status, p.status
                ));
            }
            Ok(())
        }
        Ok(o) => {
            let warnings: Vec<(Severity, String)> = o.warnings.iter().map(|d| (d.severity, d.text.clone())).collect();
            if nv.len() < warnings.len() || nv[..warnings.len()] != *warnings {
                return Err(format!("warnings differ: culdb {warnings:?}, nvlink {nv:?}"));
            }
            if o.help || o.version {
                let want = if o.help { "Usage" } else { "nvlink: NVIDIA" };
                if p.status != 0 || !p.stdout.starts_with(want) {
                    return Err(format!(
                        "help/version: nvlink status {} stdout {:?}",
                        p.status, p.stdout
                    ));
                }
                return Ok(());
            }
            if let Some((_, t)) = nv[warnings.len()..].iter().find(|(_, t)| is_option_message(t)) {
                return Err(format!("culdb accepted what nvlink refused: {t}"));
            }
            if p.status == 0 {
                return Ok(());
            }
            let Some((_, first)) = nv[warnings.len()..].iter().find(|(s, _)| *s >= Severity::Error) else {
                return Err(format!("nvlink failed (status {}) without an error: {nv:?}", p.status));
            };
            if !is_link_message(first) {
                return Err(format!("unclassified nvlink failure: {first}"));
            }
            if let Some(name) = quoted_name(first, "input") {
                // The first input that is not one of the probe's two cubins.
                let culdb_first = o.files().find(|f| *f != "main.cubin" && *f != "lib.cubin");
                // nvlink opens the -nv-host file like an input, before the others.
                let nv_host = o.undocumented.nv_host.as_deref();
                if culdb_first != Some(name) && nv_host != Some(name) {
                    return Err(format!("first missing input: nvlink {name:?}, culdb {culdb_first:?}"));
                }
            }
            if let Some(name) = quoted_name(first, "output")
                && o.output_file.as_deref() != Some(name)
            {
                return Err(format!("output: nvlink {name:?}, culdb {:?}", o.output_file));
            }
            Ok(())
        }
    }
}

#[test]
fn parse_agrees_with_every_nvlink_probe() {
    let probes = probes();
    assert!(probes.len() > 300, "only {} probes", probes.len());
    let mut failures = Vec::new();
    for p in &probes {
        if let Err(why) = check_probe(p) {
            failures.push(format!(
                "probes.tsv:{} {:?}\n  {}",
                p.line,
                p.args,
                why.replace('\n', "\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} probes disagree:\n{}",
        failures.len(),
        probes.len(),
        failures.join("\n")
    );
}

#[test]
fn probes_cover_acceptance_and_every_kind_of_refusal() {
    let probes = probes();
    let accepted = probes.iter().filter(|p| p.status == 0).count();
    assert!(accepted > 100, "{accepted} accepted");
    for text in [
        "Unknown option '-no-such-option'",
        "argument expected after '-o'",
        "no argument expected after '-w'",
        "Value 'sm_91' is not defined for option 'arch'",
        "Value '32' is not defined for option 'machine'",
        "'abc': expected a number",
        "'TRUE': expected true or false",
        "32-bit integer value (2147483648) out of range",
        "incompatible redefinition for option 'output-file', the last value of this option was used",
        "Unknown arch name '(null)'",
        "Must specify output file with -o option",
        "No input files specified; use option --help for more information",
        "Input files are not allowed with -ghls option; use --help for more information",
        "Could not open options file 'missing.optf'",
        "Too many options file opened 'chain/c16'",
        "Stray '\"' character",
    ] {
        assert!(
            probes
                .iter()
                .any(|p| messages(&p.stderr).iter().any(|(_, t)| t == text)),
            "no probe shows {text:?}"
        );
    }
}

#[test]
fn allowed_values_are_nvlinks() {
    let text = std::fs::read_to_string(data().join("allowed.tsv")).expect("allowed.tsv");
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (opt, values) = line.split_once('\t').expect("two columns");
        let values: Vec<&str> = values.split(',').collect();
        match opt {
            "arch" => {
                let mut ours: Vec<&str> = culdb::arch::all().iter().map(|p| p.name).collect();
                ours.sort();
                assert_eq!(values, ours);
            }
            "cpu-arch" => assert_eq!(values, options::CPU_ARCH_VALUES),
            "gen-host-linker-script" => assert_eq!(values, options::HOST_LINKER_SCRIPT_VALUES),
            "machine" => {
                let m: Vec<String> = options::MACHINE_VALUES.iter().map(|v| v.to_string()).collect();
                assert_eq!(values, m);
            }
            other => panic!("option {other} has allowed values culdb does not check"),
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}

#[test]
fn options_files_split_into_nvlinks_words() {
    let text = std::fs::read_to_string(data().join("optf-tokens.tsv")).expect("optf-tokens.tsv");
    let mut n = 0;
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
        let (content, want) = line.split_once('\t').expect("two columns");
        let content: String = serde_json::from_str(content).expect("content");
        let want: serde_json::Value = serde_json::from_str(want).expect("result");
        // The generator writes the content as latin-1 bytes (all ASCII here).
        let bytes: Vec<u8> = content.chars().map(|c| c as u32 as u8).collect();
        let got = split_options_file(&bytes);
        let expected: Result<Vec<String>, String> = match want.get("words") {
            Some(w) => Ok(serde_json::from_value(w.clone()).expect("words")),
            None => Err(want["error"].as_str().expect("error").to_string()),
        };
        assert_eq!(got, expected, "optf-tokens.tsv:{} content {content:?}", i + 1);
        n += 1;
    }
    assert!(n > 400, "{n} cases");
}

// ---------------------------------------------------------------------------
// The parsed fields.

#[test]
fn inputs_and_libraries_keep_command_line_order() {
    let o = ok(&[
        "-arch=sm_90",
        "a.cubin",
        "-lfoo",
        "b.o",
        "-l",
        "bar,,baz",
        "-Lx",
        "--library-path=y,z",
        "c.a",
        "-l=q",
        "-o",
        "out.cubin",
        "--library",
        "last",
    ]);
    let want = vec![
        InputArg::File("a.cubin".into()),
        InputArg::Library("foo".into()),
        InputArg::File("b.o".into()),
        InputArg::Library("bar".into()),
        InputArg::Library("baz".into()),
        InputArg::File("c.a".into()),
        InputArg::Library("q".into()),
        InputArg::Library("last".into()),
    ];
    assert_eq!(o.inputs, want);
    assert_eq!(o.library_paths, ["x", "y", "z"]);
    assert_eq!(o.files().collect::<Vec<_>>(), ["a.cubin", "b.o", "c.a"]);
    assert_eq!(o.libraries().collect::<Vec<_>>(), ["foo", "bar", "baz", "q", "last"]);
    assert_eq!(o.output_file.as_deref(), Some("out.cubin"));
    assert_eq!(o.arch.as_deref(), Some("sm_90"));
}

#[test]
fn exact_names_win_over_glued_values() {
    let o = ok(&[
        "-arch=sm_90",
        "x.cubin",
        "-o",
        "o",
        "-ltox",
        "-maxrregcount",
        "7",
        "-m64",
    ]);
    assert_eq!(o.libraries().collect::<Vec<_>>(), ["tox"]);
    assert_eq!((o.maxrregcount, o.machine), (Some(7), 64));
    assert_eq!(
        fatal(&["-arch=sm_90", "x.cubin", "-o", "o", "-lto"]),
        "-nvvmpath should be specified with -lto"
    );
    assert_eq!(fatal(&["-maxrregcountx"]), "'axrregcountx': expected a number");
}

#[test]
fn comma_lists_accumulate_and_skip_empty_items() {
    let o = ok(&[
        "-arch=sm_90",
        "x.cubin",
        "-o",
        "o",
        "-kernels-used",
        "k1,,k2,",
        "--kernels-used=k3",
        "-variables-used",
        ",v1",
        "-variables-used=v2,v3",
        "-Xlinker",
        "a,b",
        "-Xlinker",
        "c",
    ]);
    assert_eq!(o.kernels_used, ["k1", "k2", "k3"]);
    assert_eq!(o.variables_used, ["v1", "v2", "v3"]);
    assert_eq!(o.undocumented.host_linker_options, ["a", "b", "c"]);
}

#[test]
fn every_option_lands_in_its_field() {
    let o = ok(&[
        "-arch",
        "sm_100a",
        "-o",
        "out",
        "x.cubin",
        "-r",
        "-m",
        "0x40",
        "-v",
        "-v2",
        "-w",
        "-disable-infos",
        "-Werror",
        "-extrawarn",
        "-g",
        "-suppress-debug-info",
        "-uidx",
        "u.idx",
        "-maxrregcount",
        "32",
        "-dump-callgraph",
        "-suppress-stack-size-warning",
        "-suppress-arch-warning",
        "-preserve-relocs",
        "-report-arch",
        "-ignore-host-info",
        "-keep-system-libraries",
        "-cpu-arch",
        "X86_64",
        "--register-link-binaries",
        "reg.h",
        "-device-stack-protector",
        "true",
        "-astoolspatch",
        "-time",
        "-",
        "-dot",
        "g.dot",
        "-dont-reserve-null-pointer",
        "-disable-smem-reservation",
        "false",
        "-allow-undefined-globals",
        "-syscall-const-offset",
        "0x10",
        "-force-rela",
        "-verbose-tkinfo",
        "true",
        "-uumn",
        "-host-ccbin",
        "gcc",
        "-nv-host",
        "h.o",
        "-enable-extended-smem",
        "true",
        "-no-cache",
        "-war4860824",
        "-tool-name",
        "t",
    ]);
    assert_eq!(o.arch.as_deref(), Some("sm_100a"));
    assert!(o.relocatable && o.verbose && o.verbose2 && o.disable_warnings && o.disable_infos && o.werror);
    assert!(o.extra_warnings && o.debug && o.suppress_debug_info && o.dump_callgraph);
    assert!(o.suppress_stack_size_warning && o.suppress_arch_warning && o.preserve_relocs && o.report_arch);
    assert!(o.ignore_host_info && o.keep_system_libraries && o.link_as_tools_patch);
    // The other halves of two pairs nvlink refuses together
    // (err_conflict_host_info_sm90).
    let other = ok(&[
        "-arch",
        "sm_90",
        "-o",
        "out",
        "x.cubin",
        "-dump-callgraph-no-demangle",
        "-use-host-info",
    ]);
    assert!(other.dump_callgraph_no_demangle && other.use_host_info);
    assert_eq!(o.machine, 64);
    assert_eq!(o.uidx_file.as_deref(), Some("u.idx"));
    assert_eq!(o.maxrregcount, Some(32));
    assert_eq!(o.cpu_arch, "X86_64");
    assert_eq!(o.register_link_binaries.as_deref(), Some("reg.h"));
    assert_eq!(o.device_stack_protector, Some(true));
    assert_eq!(o.time.as_deref(), Some("-"));
    let u = &o.undocumented;
    assert_eq!(u.dot_file.as_deref(), Some("g.dot"));
    assert!(u.dont_reserve_null_pointer && u.allow_undefined_globals && u.force_rela && u.uumn);
    assert!(u.no_cache && u.war4860824 && !u.fdcmpt);
    assert_eq!(u.disable_smem_reservation, Some(false));
    assert_eq!(u.syscall_const_offset, Some(16));
    assert_eq!(u.verbose_tkinfo, Some(true));
    assert_eq!(u.enable_extended_smem, Some(true));
    assert_eq!(u.host_ccbin.as_deref(), Some("gcc"));
    assert_eq!(u.nv_host.as_deref(), Some("h.o"));
    assert_eq!(u.tool_name.as_deref(), Some("t"));
    // nvlink 13.5 (checked by hand): `-arch=sm_100a -preserve-relocs` warns,
    // but -disable-infos silences it (disable_infos_stack_sm90).
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    let args = |extra: &[&str]| -> Vec<String> {
        [
            "-arch=sm_100a",
            "-preserve-relocs",
            "-report-arch",
            "x.o",
            "-o",
            "x.cubin",
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
    };
    let o = options::parse(&args(&[])).unwrap();
    let warned: Vec<String> = o.warnings.iter().map(|w| w.text.clone()).collect();
    assert_eq!(
        warned,
        [
            "Option '--preserve-relocs' is not fully implemented for gpu archtecture 'sm_100a' and may not work as expected (target: sm_100a)"
        ]
    );
    // -Werror: an error, then (the inputs found) `elfLink internal error`;
    // x.o does not exist, so the link goes on to report it
    // (err_preserve_relocs_werror_sm90).
    let o = options::parse(&args(&["-Werror"])).unwrap();
    assert_eq!(o.warnings[0].severity, Severity::Error);
    assert!(!o.lto.any());

    let d = LinkOptions::default();
    assert_eq!(
        (d.machine, d.cpu_arch.as_str(), d.arch.is_none()),
        (64, "unknown", true)
    );
}

#[test]
fn redefinitions_warn_and_keep_the_last_value() {
    let o = ok(&[
        "-arch=sm_80",
        "-arch",
        "sm_90",
        "x.cubin",
        "-o",
        "a",
        "-o",
        "a",
        "-o",
        "b",
        "-m",
        "64",
        "-m=0x40",
    ]);
    assert_eq!(o.arch.as_deref(), Some("sm_90"));
    assert_eq!(o.output_file.as_deref(), Some("b"));
    let texts: Vec<&str> = o.warnings.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "incompatible redefinition for option 'arch', the last value of this option was used",
            "incompatible redefinition for option 'output-file', the last value of this option was used",
        ]
    );
    assert!(o.warnings.iter().all(|d| d.severity == Severity::Warning));
    // Warnings printed before a fatal error come with it.
    let e = err(&["-o", "a", "-o", "b", "--bogus"]);
    assert_eq!(e.diagnostics.len(), 2);
    assert_eq!(e.diagnostics[0].severity, Severity::Warning);
    assert_eq!(
        e.to_string().lines().last(),
        Some("culdb fatal   : Unknown option '-bogus'")
    );
}

#[test]
fn options_files_expand_in_place() {
    let o = ok(&["-arch=sm_90", "main.cubin", "-optf", "with_lib.optf", "-o", "out"]);
    assert_eq!(
        o.inputs,
        [
            InputArg::File("main.cubin".into()),
            InputArg::Library("foo".into()),
            InputArg::File("lib.cubin".into())
        ]
    );
    assert_eq!(o.options_files, ["with_lib.optf"]);
    // A later -o wins over the file's, an earlier one loses.
    let o = ok(&["-arch=sm_90", "x.cubin", "-optf", "out_b.optf", "-o", "a"]);
    assert_eq!(o.output_file.as_deref(), Some("a"));
    let o = ok(&["-arch=sm_90", "x.cubin", "-o", "a", "--options-file=out_b.optf"]);
    assert_eq!(o.output_file.as_deref(), Some("b.cubin"));
    let o = ok(&["-arch=sm_90", "x.cubin", "-o", "a", "-optf", "lists.optf"]);
    assert_eq!(o.kernels_used, ["a", "b"]);
    assert_eq!(o.variables_used, ["v1"]);
    assert_eq!(o.libraries().collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(o.library_paths, ["."]);
    // Words of a file stay in that file: a dangling -o does not take the next argument.
    assert_eq!(
        fatal(&["-arch=sm_90", "-optf", "dangling_o.optf", "x.cubin"]),
        "argument expected after '-o'"
    );
    // Nesting: 15 files deep is fine, 16 is not; names are relative to the working folder.
    let o = ok(&["-optf", "chain/c2"]);
    assert_eq!(o.options_files.len(), 15);
    assert_eq!(
        fatal(&["-optf", "chain/c1"]),
        "Too many options file opened 'chain/c16'"
    );
    assert_eq!(
        fatal(&["-optf", "self.optf"]),
        "Too many options file opened 'self.optf'"
    );
    assert_eq!(
        fatal(&["-optf", "sub/outer.optf"]),
        "Could not open options file 'inner.optf'"
    );
    assert_eq!(
        fatal(&["-optf", "nope.optf"]),
        "Could not open options file 'nope.optf'"
    );
    // Directories read as empty files; empty list items are skipped.
    let o = ok(&[
        "-arch=sm_90",
        "x.cubin",
        "-o",
        "a",
        "-optf",
        ".",
        "-optf",
        ",",
        "-optf=",
    ]);
    assert_eq!(o.options_files, ["."]);
}

#[test]
fn endless_options_files_are_cut_off() {
    // nvlink never finishes reading /dev/zero; culdb stops at its size limit.
    if Path::new("/dev/zero").exists() {
        assert_eq!(
            fatal(&["-arch=sm_90", "x.cubin", "-o", "o", "-optf", "/dev/zero"]),
            "Failed to read contents of options file"
        );
    }
}

#[test]
fn options_file_quoting() {
    let words = |s: &str| split_options_file(s.as_bytes());
    assert_eq!(words("a \"b c\"\td\r\ne").unwrap(), ["a", "b c", "d", "e"]);
    assert_eq!(words("'a b'").unwrap(), ["'a", "b'"]);
    assert_eq!(words("a\\ b \\ c d\\ ").unwrap(), ["a b", "c", "d"]);
    assert_eq!(words("\"\" \\\"").unwrap(), ["", ""]);
    assert_eq!(words("a\\\"b \"x\\\\\"y").unwrap(), ["ab", "x\\\"y"]);
    assert_eq!(words("\" a \"").unwrap(), [" a "]);
    assert_eq!(words("a\u{b}b").unwrap(), ["a\u{b}b"]);
    assert_eq!(words("x\0 y").unwrap(), ["x"]);
    assert_eq!(words("\\ \\ ").unwrap(), Vec::<String>::new());
    assert_eq!(words("\"a").unwrap_err(), "Stray '\"' character");
    assert_eq!(words("a\\").unwrap_err(), "Stray '' character");
}

#[test]
fn checks_after_the_line_is_read_follow_nvlinks_order() {
    assert_eq!(fatal(&[]), "Unknown arch name '(null)'");
    assert_eq!(fatal(&["x.cubin", "-o", "o"]), "Unknown arch name '(null)'");
    assert_eq!(
        fatal(&["-arch=sm_90", "x.cubin"]),
        "Must specify output file with -o option"
    );
    assert_eq!(
        fatal(&["-arch=sm_90", "-o", "o", "-lfoo"]),
        "No input files specified; use option --help for more information"
    );
    assert_eq!(
        fatal(&["-report-arch", "-arch=sm_90", "-o", "o"]),
        "No input files specified; use option --help for more information (target: sm_90)"
    );
    assert_eq!(
        fatal(&["-arch=lto_90", "-o", "o", "x.cubin"]),
        "Link target of 'lto_90' is virtual target that is not JIT-able; use 'sm_' target instead"
    );
    // An lto_ target is refused before `-o` is asked for, after the input
    // and option checks (nvlink 13.5, `nvcc -gencode ...code=lto_90`).
    assert_eq!(
        fatal(&["-arch=lto_90", "x.cubin"]),
        "Link target of 'lto_90' is virtual target that is not JIT-able; use 'sm_' target instead"
    );
    assert_eq!(
        fatal(&["-arch=lto_90"]),
        "No input files specified; use option --help for more information"
    );
    assert_eq!(
        fatal(&["-arch=lto_90", "-suppress-debug-info", "x.cubin"]),
        "Conflicting options '-suppress-debug-info' and 'no -g'"
    );
    assert_eq!(
        fatal(&["-arch=sm_90", "-o", "o", "x.cubin", "-fdcmpt"]),
        "Unknown option '-fdcmpt'"
    );
    assert!(
        ok(&["-arch=sm_90", "-o", "o", "x.cubin", "-fdcmpt", "-uumn"])
            .undocumented
            .fdcmpt
    );
    assert_eq!(
        fatal(&["-ghls", "lcs-abs", "x.cubin"]),
        "Input files are not allowed with -ghls option; use --help for more information"
    );
    let o = ok(&["-ghls", "lcs-aug", "-lfoo"]);
    assert_eq!(o.gen_host_linker_script, Some(HostLinkerScript::LcsAug));
    assert_eq!(o.gen_host_linker_script.map(HostLinkerScript::name), Some("lcs-aug"));
    // Help and version skip every later check; a bad option still stops them.
    assert!(ok(&["-h", "-V"]).help);
    let v = ok(&["--version", "x.cubin"]);
    assert!(v.version && !v.help);
    assert_eq!(fatal(&["-h", "-o"]), "argument expected after '-o'");
}

#[test]
fn lto_options_are_accepted_and_lto_needs_nvvmpath() {
    let base = ["-arch=sm_90", "x.cubin", "-o", "o"];
    for extra in [&["-lto"][..], &["--link-time-opt"], &["-dlto"]] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        assert_eq!(fatal(&args), "-nvvmpath should be specified with -lto");
        let with_path: Vec<&str> = args.iter().copied().chain(["-nvvmpath", "/n"]).collect();
        assert!(ok(&with_path).lto.any());
    }
    for extra in [
        &["-Xptxas", "-v"][..],
        &["--Xnvvm=-O3"],
        &["-split-compile", "2"],
        &["-split-compile-extended", "2"],
    ] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        assert!(ok(&args).lto.any(), "{args:?}");
    }
    // Options of the LTO step alone need -dlto (nvlink's probes 133-141).
    for (extra, name) in [
        (&["-emit-ptx"][..], "-emit-ptx"),
        (&["-Ofc", "max"], "--Ofast-compile"),
        (&["--Ofast-compile=min"], "--Ofast-compile"),
        (&["-nvvm-latest"], "-nvvm-latest"),
        (&["-force-whole-lto"], "-force-whole-lto"),
        (&["-force-partial-lto"], "-force-partial-lto"),
    ] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        assert_eq!(fatal(&args), format!("Conflicting options '{name}' and 'no -dlto'"));
        let with: Vec<&str> = args.iter().copied().chain(["-dlto", "-nvvmpath", "/n"]).collect();
        assert!(ok(&with).lto.any(), "{with:?}");
    }
    let o = parse_nvlink_in(
        &strings(&[
            "-arch=sm_90",
            "x.cubin",
            "-o",
            "o",
            "-dlto",
            "-Xptxas",
            "-v,-O3",
            "-nvvmpath",
            "/n",
            "-Ofc",
            "mid",
        ]),
        &files(),
    )
    .expect("nvlink reads it");
    assert!(o.lto.dlto && o.lto.any());
    assert_eq!(o.lto.xptxas, ["-v", "-O3"]);
    assert_eq!(o.lto.nvvmpath.as_deref(), Some("/n"));
    assert_eq!(o.lto.ofast_compile.as_deref(), Some("mid"));
    assert_eq!(o.lto.given, ["-dlto", "-Xptxas", "-nvvmpath", "-Ofc"]);
}

#[test]
fn usage_lists_the_supported_options() {
    let u = options::usage();
    for opt in [
        "-arch",
        "-o <file>",
        "-l <name>",
        "-L <dir>",
        "-r",
        "-optf",
        "-kernels-used",
        "-Werror",
        "--help",
    ] {
        assert!(u.contains(opt), "usage lacks {opt}");
    }
    assert!(u.contains("LTO") || u.contains("Link-time optimisation"));
}
