//! Bad input to `dump` and `diff`: one diagnostic naming the file and the
//! offset, exit status 2, never a panic.

mod common;

use common::*;

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

fn shoff(b: &[u8]) -> usize {
    u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize
}

/// Writes `bytes` to a temp file and checks both commands reject it properly.
fn check_rejected(label: &str, bytes: &[u8], expect_in_msg: &str) {
    let dir = std::env::temp_dir().join(format!("culdb-bad-{}-{label}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join(format!("{label}.cubin"));
    std::fs::write(&bad, bytes).unwrap();
    let good = dir.join("good.cubin");
    std::fs::write(&good, tiny_cubin_bytes()).unwrap();
    let bad_s = bad.to_str().unwrap();
    for args in [
        vec!["dump", bad_s],
        vec!["dump", "--json", bad_s],
        vec!["diff", good.to_str().unwrap(), bad_s],
    ] {
        let out = culdb(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{label} {args:?}: status; stderr: {stderr}");
        assert!(!stderr.contains("panicked"), "{label} {args:?} panicked: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "{label} {args:?}: one diagnostic expected, got {stderr}"
        );
        assert!(
            lines[0].contains(bad_s),
            "{label}: diagnostic must name the file: {stderr}"
        );
        assert!(
            lines[0].contains("offset 0x"),
            "{label}: diagnostic must name the offset: {stderr}"
        );
        assert!(
            lines[0].contains(expect_in_msg),
            "{label}: expected '{expect_in_msg}' in: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn empty_file() {
    check_rejected("empty", &[], "empty file");
}

#[test]
fn not_elf() {
    check_rejected("text", b"this is not an ELF file at all, just text\n", "not an ELF");
}

#[test]
fn truncated_everywhere() {
    let good = tiny_cubin_bytes();
    // Every prefix shorter than the whole file is rejected (the section
    // header table is at the end), with a diagnostic.
    for len in [1, 4, 16, 63, 64, 100, good.len() / 2, good.len() - 1] {
        check_rejected(&format!("trunc{len}"), &good[..len], "offset");
    }
}

#[test]
fn section_table_past_end() {
    let mut b = tiny_cubin_bytes();
    let len = b.len() as u64;
    put(&mut b, 40, &(len - 32).to_le_bytes());
    check_rejected("shoff", &b, "section header table");
}

#[test]
fn huge_section_count() {
    let mut b = tiny_cubin_bytes();
    put(&mut b, 60, &0xfff0u16.to_le_bytes());
    check_rejected("shnum", &b, "runs past the end");
}

#[test]
fn huge_section_size() {
    let mut b = tiny_cubin_bytes();
    let sh = shoff(&b) + 4 * 64; // .text.k
    put(&mut b, sh + 32, &u64::MAX.to_le_bytes());
    check_rejected("shsize", &b, "run past the end");
}

#[test]
fn section_name_out_of_range() {
    let mut b = tiny_cubin_bytes();
    let sh = shoff(&b) + 4 * 64;
    put(&mut b, sh, &0x7fff_0000u32.to_le_bytes());
    check_rejected("shname", &b, "outside .shstrtab");
}

#[test]
fn symbol_name_out_of_range() {
    let mut b = tiny_cubin_bytes();
    let c = culdb::cubin::read::parse(&b).unwrap();
    let _ = c;
    let sh = shoff(&b) + 3 * 64; // .symtab
    let symoff = u64::from_le_bytes(b[sh + 24..sh + 32].try_into().unwrap()) as usize;
    put(&mut b, symoff + 2 * 24, &0x00ff_ffffu32.to_le_bytes());
    check_rejected("symname", &b, "outside .strtab");
}

#[test]
fn section_linking_to_itself() {
    let mut b = tiny_cubin_bytes();
    let sh = shoff(&b) + 3 * 64; // .symtab links to itself
    put(&mut b, sh + 40, &3u32.to_le_bytes());
    check_rejected("selflink", &b, "links to itself");
}

#[test]
fn relocation_symbol_out_of_range() {
    let mut b = tiny_cubin_bytes();
    let sh = shoff(&b) + 5 * 64; // .rela.text.k
    let off = u64::from_le_bytes(b[sh + 24..sh + 32].try_into().unwrap()) as usize;
    put(&mut b, off + 8, &((9999u64 << 32) | 56).to_le_bytes());
    check_rejected("relsym", &b, "past the last symbol");
}

#[test]
fn garbage_never_panics_in_the_reader() {
    // Flip every byte of the header and section headers in turn: the reader
    // either parses or returns an error, never panics.
    let good = tiny_cubin_bytes();
    let start = shoff(&good);
    let positions: Vec<usize> = (0..64).chain(start..good.len()).collect();
    for &i in &positions {
        for v in [0x00u8, 0xff, 0x80, 0x7f] {
            let mut b = good.clone();
            b[i] = v;
            if let Ok(c) = culdb::cubin::read::parse(&b) {
                let _ = culdb::cubin::write::write(&c);
                let _ = culdb::dump::cubin(&c);
            }
        }
    }
}
