//! `--register-link-binaries FILE` writes what nvlink writes: for every
//! corpus case nvlink links, `culdb link` with the option gives the file
//! nvlink gave (tests/corpus/<case>/expected/register.c, recorded by
//! scripts/gen-register-goldens; `@CASEDIR@` stands for the case folder in
//! module names made from paths), and prints nvlink's messages
//! (`expected/register.stderr`). A failing link writes no file.

mod common;

use std::process::Command;

use common::*;

fn mangled(path: &std::path::Path) -> String {
    path.to_string_lossy()
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { b as char } else { '_' })
        .collect()
}

fn link_with_register(case: &std::path::Path, reg: &std::path::Path) -> std::process::Output {
    let args = std::fs::read_to_string(case.join("link.args")).unwrap();
    let out = scratch(&format!("reg-out-{}", case.file_name().unwrap().to_string_lossy()));
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .current_dir(case)
        .arg("link")
        .args(args.split_whitespace())
        .arg(format!("--register-link-binaries={}", reg.display()))
        .arg("-o")
        .arg(out.join("out.cubin"))
        .output()
        .unwrap()
}

#[test]
fn register_files_match_nvlink() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for case in corpus_cases() {
        let Ok(want) = std::fs::read_to_string(case.join("expected/register.c")) else {
            continue;
        };
        let dir = scratch(&format!("reg-{}", case.file_name().unwrap().to_string_lossy()));
        let reg = dir.join("register.c");
        let out = link_with_register(&case, &reg);
        // Cases with PTX (files, or inside host objects) need ptxas; skip
        // them where it is missing.
        if !culdb::link::find_ptxas().is_some_and(|p| p.is_file())
            && String::from_utf8_lossy(&out.stderr).contains("ptxas")
        {
            continue;
        }
        let got = std::fs::read_to_string(&reg).unwrap_or_default();
        let got = got.replace(&mangled(&case), "@CASEDIR@");
        let messages: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_string)
            .collect();
        let want_messages = culdb::conform::as_culdb(
            &std::fs::read_to_string(case.join("expected/register.stderr")).unwrap_or_default(),
        );
        if messages != want_messages {
            bad.push(format!(
                "{}: messages
--- nvlink
{want_messages:?}
--- culdb
{messages:?}",
                case.display()
            ));
        }
        if !out.status.success() || got != want {
            bad.push(format!(
                "{}: status {:?}\n--- nvlink\n{want}--- culdb\n{got}",
                case.display(),
                out.status.code()
            ));
        }
        checked += 1;
    }
    assert!(bad.is_empty(), "{} cases differ:\n{}", bad.len(), bad.join("\n"));
    assert!(checked > 100, "only {checked} cases have a register.c golden");
}

#[test]
fn a_failing_link_writes_no_register_file() {
    let case = root().join("tests/corpus/err_multidef_func_sm90");
    let dir = scratch("reg-fail");
    let reg = dir.join("register.c");
    let out = link_with_register(&case, &reg);
    assert!(!out.status.success());
    assert!(!reg.exists());
}

/// nvlink leaves an existing registration file as it is when it read
/// libcudadevrt and linked nothing of it (nvcc hands every arch's link of a
/// multi-`-gencode` build the same file), and rewrites it when a member was
/// linked or no system library was read (checked with nvlink 13.5 on the
/// cases below; README observation 119).
#[test]
fn an_unused_libcudadevrt_leaves_an_existing_file_alone() {
    let dir = scratch("reg-existing");
    let stale = "// left by an earlier link\n";
    for (case, kept) in [
        ("cudadevrt_fake_unused_sm90", true),
        ("cudadevrt_fake_func_ref_sm90", false),
    ] {
        let reg = dir.join(format!("{case}.c"));
        std::fs::write(&reg, stale).unwrap();
        let o = link_with_register(&root().join("tests/corpus").join(case), &reg);
        assert!(o.status.success(), "{case}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&reg).unwrap();
        assert_eq!(text == stale, kept, "{case}: {text}");
        // A fresh file is written either way.
        std::fs::remove_file(&reg).unwrap();
        assert!(
            link_with_register(&root().join("tests/corpus").join(case), &reg)
                .status
                .success()
        );
        assert!(
            std::fs::read_to_string(&reg)
                .unwrap()
                .starts_with("#define NUM_PRELINKED_OBJECTS")
        );
    }
}

/// A virtual target (`--arch=compute_80`, as nvcc runs nvlink for
/// `-gencode arch=compute_80,code=compute_80 -rdc=true`): nothing is
/// linked and no output written, `-o` or not; the registration file names
/// every input with device code, files first, then every member of each
/// library found (tests/data/virtual_target/register.c: what nvlink wrote
/// for this command line in tests/corpus/archive_nvcc_lib_sm80; the inputs
/// are sm_80 and sm_90 objects, libx.a's four members and a libcudadevrt
/// stand-in; `-lnosuch` is not found, which nvlink passes over silently).
#[test]
fn virtual_target_writes_the_registration_file_only() {
    let case = root().join("tests/corpus/archive_nvcc_lib_sm80");
    let dir = scratch("reg-virtual-target");
    let reg = dir.join("register.c");
    let out = dir.join("out.cubin");
    let run = |with_output: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_culdb"));
        c.current_dir(&case).args([
            "link",
            "--arch=compute_80",
            &format!("--register-link-binaries={}", reg.display()),
            "main.o",
            "../cudadevrt_keep_system_libs_sm90/app.o",
            "-L.",
            "-lx",
            "-lnosuch",
            "-L../cudadevrt_keep_system_libs_sm90",
            "-lcudadevrt",
        ]);
        if with_output {
            c.arg("-o").arg(&out);
        }
        c.output().unwrap()
    };
    let want = std::fs::read_to_string(root().join("tests/data/virtual_target/register.c")).unwrap();
    for with_output in [false, true] {
        let _ = std::fs::remove_file(&reg);
        let o = run(with_output);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty() && o.stdout.is_empty());
        assert_eq!(std::fs::read_to_string(&reg).unwrap(), want);
        assert!(!out.exists(), "no output file for a virtual target");
    }
    // A file that cannot be read is fatal, and no file is written.
    let _ = std::fs::remove_file(&reg);
    let o = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .current_dir(&case)
        .args([
            "link",
            "--arch=compute_80",
            "--register-link-binaries=/dev/null/x",
            "nosuch.o",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("culdb fatal   : Could not open input file 'nosuch.o'"));
}
