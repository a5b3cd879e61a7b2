//! `culdb link -o` writes its output as careful linkers do: a symbolic link
//! is followed (the link stays), a FIFO is written in place (never replaced
//! by a regular file), and no temporary file is left beside the output.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const CASE: &str = "extern_call_sm90";

fn link_to(out: &Path) -> std::process::Output {
    let dir = root().join("tests/corpus").join(CASE);
    let args = std::fs::read_to_string(dir.join("link.args")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .current_dir(&dir)
        .arg("link")
        .args(args.split_whitespace())
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn expected() -> Vec<u8> {
    std::fs::read(root().join("tests/corpus").join(CASE).join("expected/out.cubin")).unwrap()
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".culdb-") || n.ends_with(".tmp"))
        .collect()
}

#[cfg(unix)]
#[test]
fn a_symlink_output_is_followed() {
    let dir = scratch("out-symlink");
    let target = dir.join("real.cubin");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.join("link.cubin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = link_to(&link);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let written = std::fs::read(&target).unwrap();
    assert_eq!(written.len(), expected().len());
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

#[cfg(unix)]
#[test]
fn a_fifo_output_is_written_in_place() {
    let dir = scratch("out-fifo");
    let fifo = dir.join("pipe.cubin");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = link_to(&fifo);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Checked before joining: a replaced FIFO would leave the reader waiting.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let got = reader.join().unwrap();
    assert_eq!(got.len(), expected().len());
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

#[test]
fn a_regular_output_leaves_no_temporary_file() {
    let dir = scratch("out-regular");
    let out_file = dir.join("out.cubin");
    let out = link_to(&out_file);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&out_file).unwrap().len(), expected().len());
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

/// `-time FILE` writes nvlink's CSV header, anew on each link, also when
/// the link fails (batch::timing; an LTO link adds its two rows, which
/// need the toolkit).
#[test]
fn time_writes_the_csv_header_anew() {
    let dir = scratch("out-time");
    let csv = dir.join("t.csv");
    std::fs::write(&csv, b"old contents\n").unwrap();
    let case = root().join("tests/corpus").join(CASE);
    let args = std::fs::read_to_string(case.join("link.args")).unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_culdb"))
            .current_dir(&case)
            .arg("link")
            .args(args.split_whitespace())
            .args(extra)
            .arg("-o")
            .arg(dir.join("out.cubin"))
            .arg("-time")
            .arg(&csv)
            .output()
            .unwrap()
    };
    assert!(run(&[]).status.success());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), culdb::batch::timing::HEADER);
    assert!(!run(&["missing.cubin"]).status.success());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), culdb::batch::timing::HEADER);
}
