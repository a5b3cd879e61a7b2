//! Hostile inputs never crash the linker: one regression test per crash the
//! fuzz smoke test (tests/fuzz_smoke.rs) and the issue found, each a corpus
//! cubin changed at a fixed field. A link input with an impossible number is
//! refused with one fatal diagnostic naming the file and the offset, exit
//! status 1 and no output file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::*;
use culdb::cubin::consts::*;
use culdb::cubin::read;

fn case(name: &str) -> PathBuf {
    root().join("tests/corpus").join(name)
}

fn rd64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

/// The file offset of section `i`'s header.
fn shdr(b: &[u8], i: usize) -> usize {
    rd64(b, 0x28) as usize + i * 64
}

fn section_index(b: &[u8], pred: impl Fn(&culdb::cubin::model::Section<'_>) -> bool) -> usize {
    let c = read::parse(b).unwrap();
    c.sections.iter().position(pred).expect("section")
}

/// The file offset of symbol `k` of `.symtab`.
fn sym(b: &[u8], k: usize) -> usize {
    let t = section_index(b, |s| s.sh_type == SHT_SYMTAB);
    rd64(b, shdr(b, t) + 24) as usize + k * 24
}

fn symbol_index(b: &[u8], name: &str) -> usize {
    read::parse(b).unwrap().symbol_by_name(name).expect("symbol").0
}

fn culdb_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run culdb")
}

/// Links corpus case `name` with `file` replaced by `bytes`; the link must
/// fail as nvlink fails on a broken input: status 1, one fatal line naming
/// the file, the offset and `expect`, and no output.
fn refused(label: &str, name: &str, file: &str, bytes: &[u8], expect: &str) {
    let dir = scratch(&format!("hostile-{label}"));
    for e in std::fs::read_dir(case(name)).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    std::fs::write(dir.join(file), bytes).unwrap();
    let args_line = std::fs::read_to_string(dir.join("link.args")).unwrap();
    let mut args: Vec<&str> = args_line.split_whitespace().collect();
    args.insert(0, "link");
    args.extend(["-o", "out.cubin"]);
    let out = culdb_in(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{label}: panicked: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{label}: status; stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{label}: one diagnostic expected: {stderr}");
    assert!(lines[0].contains("fatal"), "{label}: {stderr}");
    assert!(
        lines[0].contains(&format!("'{file}'")),
        "{label}: must name the file: {stderr}"
    );
    assert!(
        lines[0].contains("offset 0x"),
        "{label}: must name the offset: {stderr}"
    );
    assert!(lines[0].contains(expect), "{label}: expected '{expect}' in: {stderr}");
    assert!(!dir.join("out.cubin").exists(), "{label}: no output file");
    let _ = std::fs::remove_dir_all(&dir);
}

fn corpus_bytes(name: &str, file: &str) -> Vec<u8> {
    std::fs::read(case(name).join(file)).unwrap()
}

#[test]
fn huge_section_alignment() {
    for (label, align) in [("a41", 1u64 << 41), ("a63", 1 << 63), ("a3", 3), ("a2m", 1 << 21)] {
        let mut b = corpus_bytes("extern_call_sm90", "main.cubin");
        let t = section_index(&b, |s| s.name.starts_with(".text."));
        let at = shdr(&b, t) + 48;
        put(&mut b, at, &align.to_le_bytes());
        refused(
            label,
            "extern_call_sm90",
            "main.cubin",
            &b,
            &format!("offset {at:#x}: section [{t}]"),
        );
    }
}

#[test]
fn huge_nobits_size() {
    let mut b = corpus_bytes("shared_static_sm90", "kern.cubin");
    let t = section_index(&b, |s| is_nobits(s.sh_type));
    let at = shdr(&b, t) + 32;
    put(&mut b, at, &(1u64 << 63).to_le_bytes());
    refused(
        "nobits",
        "shared_static_sm90",
        "kern.cubin",
        &b,
        "has size 0x8000000000000000",
    );
}

#[test]
fn relocation_section_applies_to_no_section() {
    for (label, info) in [("info-big", 0xffffu32), ("info-zero", 0), ("info-far", 0x7fff_ffff)] {
        let mut b = corpus_bytes("extern_call_sm90", "main.cubin");
        let r = section_index(&b, |s| s.is_reloc());
        let at = shdr(&b, r) + 44;
        put(&mut b, at, &info.to_le_bytes());
        refused(label, "extern_call_sm90", "main.cubin", &b, "applies to section");
    }
}

#[test]
fn relocations_without_a_symbol_table() {
    // The relocation section's sh_link names the section-name table.
    let mut b = corpus_bytes("extern_call_sm90", "main.cubin");
    let r = section_index(&b, |s| s.is_reloc());
    let shstrndx = u16::from_le_bytes([b[0x3e], b[0x3f]]) as u32;
    let at = shdr(&b, r) + 40;
    put(&mut b, at, &shstrndx.to_le_bytes());
    refused(
        "no-symtab",
        "extern_call_sm90",
        "main.cubin",
        &b,
        "which is not a symbol table",
    );
}

#[test]
fn section_symbol_outside_the_sections() {
    // A section symbol made absolute (SHN_ABS), and one in a reserved index.
    for (label, shndx) in [("abs", SHN_ABS_RAW), ("reserved", 0xff05u16), ("xindex", SHN_XINDEX)] {
        let mut b = corpus_bytes("extern_call_sm90", "main.cubin");
        let at = sym(&b, 1) + 6;
        put(&mut b, at, &shndx.to_le_bytes());
        refused(label, "extern_call_sm90", "main.cubin", &b, &format!("offset {at:#x}"));
    }
}

#[test]
fn huge_symbol_size() {
    let mut b = corpus_bytes("udt_basic_sm90", "a.cubin");
    let at = sym(&b, symbol_index(&b, "u1")) + 16;
    put(&mut b, at, &u64::MAX.to_le_bytes());
    refused("udt-size", "udt_basic_sm90", "a.cubin", &b, &format!("offset {at:#x}"));
}

#[test]
fn udt_variable_size_bounded_by_its_table() {
    // 2^40 bytes passes the reader's bound; the UDT copy stops at the end of
    // `.nv.udt` instead of looping over the size (it took minutes).
    let mut b = corpus_bytes("udt_basic_sm90", "a.cubin");
    let at = sym(&b, symbol_index(&b, "u1")) + 16;
    put(&mut b, at, &(1u64 << 40).to_le_bytes());
    let dir = scratch("hostile-udt-window");
    for f in ["a.uidx", "link.args"] {
        std::fs::copy(case("udt_basic_sm90").join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("a.cubin"), &b).unwrap();
    let started = std::time::Instant::now();
    let out = culdb_in(
        &dir,
        &["link", "-arch=sm_90", "a.cubin", "-uidx", "a.uidx", "-o", "out.cubin"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.code().is_some(), "killed: {stderr}");
    assert!(started.elapsed().as_secs() < 30, "the UDT copy loops over st_size");
}

#[test]
fn special_files_are_not_inputs() {
    // /dev/zero never ends (it was read for 2 GB before failing).
    let dir = scratch("hostile-special");
    let main = case("extern_call_sm90").join("main.cubin");
    let main = main.to_str().unwrap();
    if Path::new("/dev/zero").exists() {
        let out = culdb_in(&dir, &["link", "-arch=sm_90", main, "/dev/zero", "-o", "out.cubin"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("Could not open input file '/dev/zero'"), "{stderr}");
        assert!(!dir.join("out.cubin").exists());
    }
    // A FIFO would block the link forever (no writer).
    let fifo = dir.join("pipe.cubin");
    let made = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if made {
        let mut child = Command::new(env!("CARGO_BIN_EXE_culdb"))
            .args(["link", "-arch=sm_90", main, "pipe.cubin", "-o", "out.cubin"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if started.elapsed().as_secs() > 20 {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let status = status.expect("the link blocked on a FIFO");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("Could not open input file 'pipe.cubin'"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn synthetic_sizes_are_bounded() {
    use culdb::scenario::{Data, Function, Object, synth};
    for size in [1u64 << 32, u64::MAX] {
        let f = Object {
            name: "f.cubin".into(),
            functions: vec![Function {
                name: "f".into(),
                size: Some(size),
                ..Function::default()
            }],
            ..Object::default()
        };
        let e = synth::object_bytes(&f, 90).expect_err("a function of 4 GiB is refused");
        assert!(e.contains("size"), "{e}");
        let d = Object {
            name: "d.cubin".into(),
            data: vec![Data {
                name: "v".into(),
                size,
                bytes: Some(vec![1]),
                ..Data::default()
            }],
            ..Object::default()
        };
        let e = synth::object_bytes(&d, 90).expect_err("initialized data of 4 GiB is refused");
        assert!(e.contains("size"), "{e}");
    }
    // Uninitialized: only a number, up to the reader's bound.
    let d = Object {
        name: "d.cubin".into(),
        data: vec![Data {
            name: "v".into(),
            size: u64::MAX,
            ..Data::default()
        }],
        ..Object::default()
    };
    assert!(synth::object_bytes(&d, 90).is_err());
}

#[test]
fn batch_table_with_a_long_job_name() {
    let dir = scratch("hostile-batch");
    let c = case("extern_call_sm90");
    let name = "j".repeat(70_000);
    let jobs = format!(
        "(jobs: [(name: \"{name}\", dir: {:?}, args: [\"-arch=sm_90\", \"main.cubin\", \"lib.cubin\", \"-o\", {:?}])])\n",
        c.display().to_string(),
        dir.join("out.cubin").display().to_string()
    );
    std::fs::write(dir.join("jobs.ron"), jobs).unwrap();
    let out = culdb(&["batch", dir.join("jobs.ron").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(&name));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closed_stdout_is_not_a_panic() {
    // `culdb replay ... | head -c1`: the reader goes away.
    let scenario = root().join("scenarios/weak-by-registers.ron");
    let mut child = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(["replay", scenario.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}
