//! Every cubin of the corpus: read→write→read gives the same model (and the
//! same bytes), and every relocation gets the name cuobjdump gives it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use culdb::cubin::catalog::{RelocFamily, reloc_name};
use culdb::cubin::consts::{SHT_REL, SHT_RELA};
use culdb::cubin::{read, write};

#[test]
fn read_write_read_is_identical() {
    let files = corpus_cubins();
    assert!(files.len() >= 60, "corpus has only {} cubins", files.len());
    let mut byte_identical = 0;
    for f in &files {
        let d = std::fs::read(f).unwrap();
        let c = read::parse(&d).unwrap_or_else(|e| panic!("{}: {e}", rel(f)));
        let w = write::write(&c).unwrap_or_else(|e| panic!("{}: {e}", rel(f)));
        let c2 = read::parse(&w).unwrap_or_else(|e| panic!("{} rewritten: {e}", rel(f)));
        assert!(c == c2, "{}: model changed by write+read", rel(f));
        if w == d {
            byte_identical += 1;
        }
    }
    // The writer lays sections out in index order, as ptxas and nvlink do for
    // most files; Mercury cubins (out-of-order offsets) and some end paddings
    // differ (README, "The cubin writer").
    eprintln!(
        "{byte_identical} of {} corpus cubins rewritten byte for byte",
        files.len()
    );
    assert!(
        byte_identical * 3 >= files.len() * 2,
        "only {byte_identical} of {} byte-identical",
        files.len()
    );
}

/// The cuobjdump -elf listing stored for a corpus cubin, if any.
fn listing_for(cubin: &Path) -> Option<PathBuf> {
    let name = cubin.file_name()?.to_str()?;
    let case = if cubin.parent()?.ends_with("expected") {
        cubin.parent()?.parent()?
    } else {
        cubin.parent()?
    };
    let p = case.join("expected/elf").join(format!("{name}.txt"));
    p.exists().then_some(p)
}

/// (relocation section, offset) -> (type name, symbol) from a cuobjdump listing.
fn listed_relocs(text: &str) -> BTreeMap<(String, u64), (String, String)> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(".section ") {
            let name = rest.split_whitespace().next().unwrap_or("").to_string();
            let is_rel = rest
                .split_whitespace()
                .nth(1)
                .is_some_and(|t| t == "RELA" || t == "REL");
            current = is_rel.then_some(name);
            continue;
        }
        if line.starts_with('.') {
            current = None;
            continue;
        }
        let Some(sec) = &current else { continue };
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 3 && f[0].starts_with("0x") {
            let off = u64::from_str_radix(&f[0][2..], 16).unwrap();
            out.insert((sec.clone(), off), (f[2].to_string(), f[1].to_string()));
        }
    }
    out
}

#[test]
fn every_relocation_is_named_as_cuobjdump_names_it() {
    let mut checked = 0;
    let mut files = 0;
    for f in corpus_cubins() {
        let Some(listing) = listing_for(&f) else { continue };
        files += 1;
        let text = std::fs::read_to_string(&listing).unwrap();
        let want = listed_relocs(&text);
        let d = std::fs::read(&f).unwrap();
        let c = read::parse(&d).unwrap();
        let mut ours = BTreeMap::new();
        // cuobjdump lists SHT_REL/SHT_RELA sections only, not the Mercury ones.
        for s in c.sections.iter().filter(|s| matches!(s.sh_type, SHT_REL | SHT_RELA)) {
            for r in &s.relocs {
                let name = reloc_name(RelocFamily::Cuda, r.rtype).unwrap_or("?").to_string();
                ours.insert((s.name.clone(), r.offset), (name, c.symbol_name(r.sym as usize)));
            }
        }
        assert_eq!(
            ours.len(),
            want.len(),
            "{}: relocation count vs {}",
            rel(&f),
            rel(&listing)
        );
        for (k, (ty, sym)) in &want {
            let (our_ty, our_sym) = ours
                .get(k)
                .unwrap_or_else(|| panic!("{}: no relocation at {k:?}", rel(&f)));
            assert_eq!(our_ty, ty, "{}: relocation at {:?}", rel(&f), k);
            assert_eq!(our_sym, sym, "{}: symbol of relocation at {:?}", rel(&f), k);
            checked += 1;
        }
    }
    assert!(files >= 60, "only {files} corpus cubins have cuobjdump listings");
    assert!(checked >= 200, "only {checked} relocations checked");
}

#[test]
fn a_cubin_at_any_alignment_reads_the_same() {
    // Cubins inside archives start at arbitrary offsets; the reader must not care.
    let f = &corpus_cubins()[0];
    let d = std::fs::read(f).unwrap();
    let want = read::parse(&d).unwrap();
    for shift in 1..8 {
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&d);
        assert!(read::parse(&buf[shift..]).unwrap() == want, "shift {shift}");
    }
}
