//! Link-time optimisation (`-dlto`, src/link/lto.rs): the corpus's LTO
//! cases link as nvlink linked them (output, messages, status, the
//! `--register-link-binaries` file), an `nvcc -dlto` program built through
//! `culdb toolkit` embeds nvlink's image byte for byte, and nvlink's
//! diagnostics come where libNVVM is missing. The cases that need libNVVM,
//! nvJitLink and ptxas (scripts/cuda-tools.sh installs them) skip without.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use culdb::conform::{self, Mode};
use culdb::link::lto;

/// Whether this machine can run LTO links (libNVVM, nvJitLink, ptxas).
fn lto_tools() -> bool {
    match lto::prepare_nvvmpath(Path::new(lto::CORPUS_NVVMPATH)) {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// The cases listed in tests/data/conformance.txt, and the failing ones.
fn expected_to_conform(case: &Path) -> bool {
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    let listed = std::fs::read_to_string(root().join("tests/data/conformance.txt")).unwrap();
    name.starts_with("err_") || listed.lines().any(|l| l.trim() == name)
}

#[test]
fn corpus_lto_cases_link_as_nvlink() {
    let cases = lto_cases();
    assert!(cases.len() >= 7, "{cases:?}");
    if !lto_tools() {
        return;
    }
    let mut bad = Vec::new();
    for case in &cases {
        let r = conform::check_case(case, Mode::Final);
        assert!(r.skipped.is_none(), "{}: {:?}", r.case, r.skipped);
        let want = expected_to_conform(case);
        if r.conforms != want || (want && r.expected_status == 0 && !r.identical) {
            bad.push(format!(
                "{}: conforms {} (listed {want}), identical {}: {:?} {:?}",
                r.case, r.conforms, r.identical, r.differences, r.strict_difference
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn lto_register_files_are_nvlinks() {
    if !lto_tools() {
        return;
    }
    for case in lto_cases() {
        let golden = case.join("expected/register.c");
        let Ok(want) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let casedir: String = case
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let want = want.replace("@CASEDIR@", &casedir);
        let dir = scratch(&format!("lto-reg-{}", case.file_name().unwrap().to_string_lossy()));
        let reg = dir.join("register.c");
        let mut args: Vec<String> = std::fs::read_to_string(case.join("link.args"))
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        args.insert(0, "link".into());
        args.extend(["-o".into(), dir.join("out.cubin").to_string_lossy().into_owned()]);
        args.push(format!("--register-link-binaries={}", reg.display()));
        let out = Command::new(env!("CARGO_BIN_EXE_culdb"))
            .current_dir(&case)
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            case.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&reg).unwrap(), want, "{}", case.display());
    }
}

/// nvlink's checks before any input is read, which need no toolkit.
#[test]
fn lto_diagnostics_without_libnvvm() {
    let case = root().join("tests/corpus/lto_full_sm90");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "link",
            "-arch=sm_90",
            "kern.o",
            "scale.o",
            "-o",
            "/nonexistent/out.cubin",
        ];
        args.extend(extra);
        Command::new(env!("CARGO_BIN_EXE_culdb"))
            .current_dir(&case)
            .args(&args)
            .output()
            .unwrap()
    };
    let o = run(&["-dlto"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-nvvmpath should be specified with -lto"));
    let o = run(&["-dlto", "-nvvmpath=/nonexistent/nvvm", "missing.o"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    // Before it opens any input: not "Could not open input file 'missing.o'".
    assert_eq!(err.trim(), "culdb fatal   : elfLink linker library load error", "{err}");
    let o = run(&["-emit-ptx"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("Conflicting options '-emit-ptx' and 'no -dlto'"));
}

/// `nvcc -dlto` through culdb's toolkit overlay embeds nvlink's image.
#[test]
fn nvcc_dlto_program_links_through_culdb() {
    let Some(tk) = toolkit().filter(|tk| tk.join("nvvm/lib64/libnvvm.so").exists()) else {
        eprintln!("skipped: no CUDA toolkit with libNVVM (scripts/cuda-tools.sh) or host compiler");
        return;
    };
    if !lto_tools() {
        return;
    }
    let dir = scratch("lto-nvcc");
    let ov = dir.join("overlay");
    let out = culdb(&["toolkit", ov.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let src = root().join("tests/data/toolkit");
    let mut embedded = Vec::new();
    for (nvcc, name) in [(ov.join("bin/nvcc"), "culdb"), (tk.join("bin/nvcc"), "nvlink")] {
        let exe = dir.join(format!("app_{name}"));
        let out = Command::new(&nvcc)
            .current_dir(&dir)
            .args(["-arch=sm_90", "-dlto", "-rdc=true"])
            .arg(src.join("main.cu"))
            .arg(src.join("scale.cu"))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let files = images(&tk, &exe, &dir.join(format!("img_{name}")));
        embedded.push(files.iter().map(|f| std::fs::read(f).unwrap()).collect::<Vec<_>>());
    }
    assert!(!embedded[0].is_empty());
    assert!(embedded[0] == embedded[1], "the embedded device images differ");
}

/// Keep chains of a whole-program (full LTO) link come from the output's
/// own call graph: nothing was merged.
#[test]
fn why_kept_reads_a_whole_program_output() {
    if !lto_tools() {
        return;
    }
    let case = root().join("tests/corpus/lto_full_sm90");
    let args = std::fs::read_to_string(case.join("link.args")).unwrap();
    let mut argv: Vec<&str> = vec!["why-kept", "--json"];
    argv.extend(args.split_whitespace());
    let out = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .current_dir(&case)
        .args(&argv)
        .args(["--", "kScale", "no_such_function"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let kern = &doc[0];
    assert_eq!(kern["status"], "kept", "{doc}");
    let via = kern["chain"][0]["via"].as_str().unwrap();
    assert!(via.contains("whole-program LTO output"), "{via}");
    assert_eq!(doc[1]["status"], "unknown");
}
