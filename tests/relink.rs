//! `culdb link -r` output links again with nvlink to the same result as
//! nvlink's own `-r` output: for every case listed in
//! `tests/data/conformance-r.txt`, culdb's `-r` output and nvlink's
//! (`expected/r/out.cubin`) are each final-linked by the real nvlink alone,
//! and the two results must agree (status, diagnostics, equivalent output).
//! relocatable_then_final_sm90 is checked the same way with its second
//! input. Skipped where nvlink is not installed (CI has no CUDA toolkit).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use culdb::{cubin::read, diff};

struct Final {
    status: i32,
    stderr: String,
    out: Option<Vec<u8>>,
}

/// `nvlink -arch=ARCH <each file> -o f.cubin` in a fresh folder holding
/// `files` under the names given.
fn final_link(nvlink: &Path, arch: &str, files: &[(&str, Vec<u8>)], work: &Path) -> Final {
    std::fs::create_dir_all(work).unwrap();
    let mut cmd = Command::new(nvlink);
    cmd.current_dir(work).arg(format!("-arch={arch}"));
    for (name, bytes) in files {
        std::fs::write(work.join(name), bytes).unwrap();
        cmd.arg(name);
    }
    let o = cmd.args(["-o", "f.cubin"]).output().unwrap();
    Final {
        status: o.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        out: std::fs::read(work.join("f.cubin")).ok(),
    }
}

fn agree(case: &str, a: &Final, b: &Final) -> Result<(), String> {
    if a.status != b.status || a.stderr != b.stderr {
        return Err(format!(
            "{case}: nvlink on culdb's -r output: status {} {:?}; on nvlink's: status {} {:?}",
            a.status, a.stderr, b.status, b.stderr
        ));
    }
    match (&a.out, &b.out) {
        (Some(x), Some(y)) => {
            let (x, y) = (read::parse(x).unwrap(), read::parse(y).unwrap());
            let d = diff::equivalence(&x, &y);
            if d.is_empty() {
                Ok(())
            } else {
                Err(format!("{case}: the final links differ: {}", d[0]))
            }
        }
        (None, None) => Ok(()),
        _ => Err(format!("{case}: only one final link wrote an output")),
    }
}

fn arch(args: &str) -> String {
    args.split_whitespace()
        .find_map(|a| a.strip_prefix("-arch="))
        .unwrap_or("sm_90")
        .to_string()
}

/// culdb's `-r` output for the case's inputs.
fn culdb_r(dir: &Path, work: &Path) -> Vec<u8> {
    let args = std::fs::read_to_string(dir.join("link.args")).unwrap();
    let out = work.join("culdb-r.cubin");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_culdb"));
    cmd.current_dir(dir).arg("link").args(args.split_whitespace());
    if !args.split_whitespace().any(|a| a == "-r") {
        cmd.arg("-r");
    }
    let o = cmd.arg("-o").arg(&out).output().unwrap();
    assert!(
        o.status.success(),
        "culdb link -r in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read(&out).unwrap()
}

fn workdir(name: &str) -> PathBuf {
    common::scratch(&format!("relink-{name}"))
}

#[test]
fn culdb_r_output_relinks_like_nvlinks() {
    let Some(nvlink) = culdb::link::find_tool("nvlink") else {
        eprintln!("skipped: no nvlink (scripts/cuda-tools.sh installs it)");
        return;
    };
    let listed = std::fs::read_to_string(common::root().join("tests/data/conformance-r.txt")).unwrap();
    let mut bad = Vec::new();
    let mut n = 0;
    for case in listed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let dir = common::root().join("tests/corpus").join(case);
        let w = workdir(case);
        let ours = culdb_r(&dir, &w);
        let theirs = std::fs::read(dir.join("expected/r/out.cubin")).unwrap();
        let arch = arch(&std::fs::read_to_string(dir.join("link.args")).unwrap());
        // Both files get the same name: the name is part of nvlink's output.
        let a = final_link(&nvlink, &arch, &[("p.cubin", ours)], &w.join("culdb"));
        let b = final_link(&nvlink, &arch, &[("p.cubin", theirs)], &w.join("nvlink"));
        if let Err(e) = agree(case, &a, &b) {
            bad.push(e);
        }
        n += 1;
        let _ = std::fs::remove_dir_all(&w);
    }
    // relocatable_link_sm90's -r output is the first input of a second link.
    let corpus = common::root().join("tests/corpus");
    let w = workdir("then-final");
    let ours = culdb_r(&corpus.join("relocatable_link_sm90"), &w);
    let c = std::fs::read(corpus.join("relocatable_then_final_sm90/c.cubin")).unwrap();
    let a = final_link(
        &nvlink,
        "sm_90",
        &[("partial.cubin", ours), ("c.cubin", c)],
        &w.join("culdb"),
    );
    let want = Final {
        status: 0,
        stderr: String::new(),
        out: std::fs::read(corpus.join("relocatable_then_final_sm90/expected/out.cubin")).ok(),
    };
    if let Err(e) = agree("relocatable_then_final_sm90", &a, &want) {
        bad.push(e);
    }
    let _ = std::fs::remove_dir_all(&w);
    eprintln!("{} -r outputs relinked; {} disagree", n + 1, bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
