//! The shape of the file emit writes, beyond the equivalence contract: what
//! NVIDIA's own readers need to accept it.
//!
//! The top byte of a cubin's e_flags is the section index of its
//! `.note.nv.cuinfo`; `cuobjdump -elf` (and the driver) read the note through
//! it, and for sm_90+ reject a file whose byte names another section ("Invalid
//! ELF"). nvlink writes the sections that are not loaded (`.debug_frame`)
//! first, before the notes, so the note lands where the inputs had it. The
//! first two tests need no CUDA tools; the last runs `cuobjdump -elf` on
//! every output when it is installed and skips otherwise.

mod common;

use std::path::{Path, PathBuf};

use culdb::cubin::Cubin;
use culdb::cubin::consts::*;
use culdb::cubin::read;

/// culdb's output for every corpus case nvlink linked, with nvlink's
/// (cases whose PTX input needs a ptxas this machine lacks are left out).
fn outputs() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for case in common::corpus_cases() {
        let status = std::fs::read_to_string(case.join("expected/status")).unwrap_or_default();
        if status.trim() != "0" {
            continue;
        }
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let ours = link(&case);
        let Some(ours) = ours else {
            if culdb::link::find_ptxas().is_some_and(|p| p.is_file()) {
                panic!("{name}: culdb did not link it");
            }
            eprintln!("note: {name} skipped (needs ptxas?)");
            continue;
        };
        let theirs = std::fs::read(case.join("expected/out.cubin")).expect("expected/out.cubin");
        out.push((name, ours, theirs));
    }
    assert!(out.len() >= 60, "too few corpus outputs: {}", out.len());
    out
}

fn link(case: &Path) -> Option<Vec<u8>> {
    let line = std::fs::read_to_string(case.join("link.args")).unwrap();
    let mut args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    args.extend(["-o".to_string(), "out.cubin".to_string()]);
    let mut linker = culdb::link::linker_for(&args, case).ok()?;
    linker.run();
    linker.output().map(<[u8]>::to_vec)
}

fn cuinfo_index(c: &Cubin<'_>) -> Option<usize> {
    c.sections
        .iter()
        .position(|s| s.sh_type == SHT_NOTE && s.name == ".note.nv.cuinfo")
}

#[test]
fn e_flags_top_byte_names_the_cuinfo_note() {
    let mut bad = Vec::new();
    for (name, ours, theirs) in outputs() {
        let a = read::parse(&ours).unwrap();
        let b = read::parse(&theirs).unwrap();
        // nvlink's own outputs obey the rule (so it is a rule, not a guess).
        assert_eq!(
            Some((b.header.e_flags >> 24) as usize),
            cuinfo_index(&b),
            "{name}: nvlink's output"
        );
        let top = (a.header.e_flags >> 24) as usize;
        if Some(top) != cuinfo_index(&a) {
            bad.push(format!(
                "{name}: e_flags {:#x} names section {top} ({}), .note.nv.cuinfo is {:?}",
                a.header.e_flags,
                a.section_name(top),
                cuinfo_index(&a)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn sections_before_the_notes_are_nvlinks() {
    // nvlink: .shstrtab, .strtab, .symtab, the sections not loaded
    // (.debug_frame), then .note.nv.tkinfo, .note.nv.cuinfo.
    let mut bad = Vec::new();
    for (name, ours, theirs) in outputs() {
        let head = |d: &[u8]| -> Vec<String> {
            let c = read::parse(d).unwrap();
            let n = cuinfo_index(&c).unwrap_or(0);
            c.sections[..=n].iter().map(|s| s.name.clone()).collect()
        };
        let (a, b) = (head(&ours), head(&theirs));
        if a != b {
            bad.push(format!("{name}: culdb {a:?}, nvlink {b:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn diff_compares_the_flags_note_by_name() {
    // nvlink's output with e_flags naming .note.nv.tkinfo instead: the same
    // raw byte a culdb output once had (its cuinfo one index lower) is a
    // difference, reported by the section it names.
    let path = common::root().join("tests/corpus/extern_call_sm90/expected/out.cubin");
    let good = std::fs::read(&path).unwrap();
    let b = read::parse(&good).unwrap();
    let n = cuinfo_index(&b).unwrap() as u32;
    let mut bad = good.clone();
    let flags = (b.header.e_flags & 0x00ff_ffff) | (n - 1) << 24;
    bad[48..52].copy_from_slice(&flags.to_le_bytes());
    let a = read::parse(&bad).unwrap();
    let d = culdb::diff::equivalence(&a, &b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].property, "e_flags top byte");
    assert_eq!(d[0].a, "section .note.nv.tkinfo");
    assert_eq!(d[0].b, "section .note.nv.cuinfo");
    assert!(culdb::diff::equivalence(&b, &b).is_empty());
}

#[test]
fn cuinfo_flags_sets_the_top_byte() {
    use culdb::link::emit::cuinfo_flags;
    use culdb::link::out::section;
    let mut secs = vec![
        section("", SHT_NULL, 0, 0, 0, Vec::new()),
        section(".shstrtab", SHT_STRTAB, 0, 1, 0, Vec::new()),
        section(".note.nv.tkinfo", SHT_NOTE, 0, 4, 0, Vec::new()),
        section(".note.nv.cuinfo", SHT_NOTE, 0, 4, 0, Vec::new()),
    ];
    assert_eq!(cuinfo_flags(0x0600_5a04, &secs), 0x0300_5a04);
    secs.remove(3);
    // No note: the flags stay as they are.
    assert_eq!(cuinfo_flags(0x0600_5a04, &secs), 0x0600_5a04);
}

/// The temporary folder for cuobjdump's inputs.
fn scratch() -> PathBuf {
    common::scratch("link-emit")
}

#[test]
fn cuobjdump_accepts_every_output() {
    let Some(tool) = culdb::link::find_tool("cuobjdump") else {
        eprintln!("note: no cuobjdump installed; skipping (scripts/cuda-tools.sh installs it)");
        return;
    };
    let dir = scratch();
    let mut bad = Vec::new();
    let mut n = 0;
    for (name, ours, _) in outputs() {
        let p = dir.join(format!("{name}.cubin"));
        std::fs::write(&p, &ours).unwrap();
        let r = std::process::Command::new(&tool).arg("-elf").arg(&p).output().unwrap();
        if !r.status.success() {
            bad.push(format!("{name}: {}", String::from_utf8_lossy(&r.stderr).trim()));
        }
        n += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("cuobjdump -elf accepted {}/{n} culdb outputs", n - bad.len());
    assert!(bad.is_empty(), "cuobjdump rejects:\n{}", bad.join("\n"));
}
