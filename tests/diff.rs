//! `culdb diff` against nvlink's goldens: clean on itself, catches each kind
//! of perturbation, and tells every pair of different corpus outputs apart.

mod common;

use std::path::PathBuf;

use common::*;
use culdb::cubin::consts::*;
use culdb::cubin::{Cubin, read, write};

/// nvlink's successful outputs in the corpus.
fn goldens() -> Vec<PathBuf> {
    corpus_cases()
        .into_iter()
        .map(|c| c.join("expected/out.cubin"))
        .filter(|p| p.exists())
        .collect()
}

/// A golden with relocations kept in the output, .nv.info and a text section.
fn rich_golden() -> (PathBuf, Vec<u8>) {
    for g in goldens() {
        let d = std::fs::read(&g).unwrap();
        let c = read::parse(&d).unwrap();
        let has_rel = c
            .sections
            .iter()
            .any(|s| s.is_reloc() && !s.relocs.is_empty() && s.name.starts_with(".rela.text"));
        let has_info = c.sections.iter().any(|s| s.name.starts_with(".nv.info."));
        if has_rel && has_info {
            return (g, d);
        }
    }
    panic!("no corpus golden with text relocations and .nv.info");
}

fn diffs(a: &Cubin<'_>, b: &Cubin<'_>) -> Vec<String> {
    culdb::diff::equivalence(a, b).iter().map(|d| d.to_string()).collect()
}

#[test]
fn every_golden_is_equivalent_to_itself_and_differs_from_every_other() {
    let gs = goldens();
    assert!(gs.len() >= 30, "corpus has only {} successful cases", gs.len());
    let data: Vec<Vec<u8>> = gs.iter().map(|g| std::fs::read(g).unwrap()).collect();
    let cubins: Vec<Cubin<'_>> = data.iter().map(|d| read::parse(d).unwrap()).collect();
    for (i, a) in cubins.iter().enumerate() {
        assert!(diffs(a, a).is_empty(), "{} differs from itself", rel(&gs[i]));
        assert_eq!(culdb::diff::strict(&data[i], a, a).unwrap(), None);
        for (j, b) in cubins.iter().enumerate() {
            if i != j && data[i] != data[j] {
                assert!(
                    !diffs(a, b).is_empty(),
                    "{} vs {}: no difference reported",
                    rel(&gs[i]),
                    rel(&gs[j])
                );
            }
        }
    }
}

#[test]
fn cli_exit_status_and_strict() {
    let (g, _) = rich_golden();
    let g = g.to_str().unwrap();
    let out = culdb(&["diff", "--strict", g, g]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let other = goldens().into_iter().find(|p| p.to_str() != Some(g)).unwrap();
    let out = culdb(&["diff", g, other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let out = culdb(&["diff", "--json", g, other.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["equivalent"], false);
    assert!(!v["differences"].as_array().unwrap().is_empty());
}

#[test]
fn flipped_text_byte_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b.sections.iter().position(|s| s.name.starts_with(".text.")).unwrap();
    let name = b.sections[i].name.clone();
    b.sections[i].data.to_mut()[0x21] ^= 0x40;
    let ds = diffs(&a, &b);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert!(
        ds[0].starts_with(&format!("section {name}: contents at 0x21")),
        "{ds:?}"
    );
    // The strict comparison finds the same byte.
    let s = culdb::diff::strict(&d, &a, &b).unwrap().expect("strict difference");
    assert!(s.property.contains(&format!("section {name} + 0x21")), "{s}");
}

#[test]
fn changed_binding_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .symbols
        .iter()
        .position(|s| s.binding == STB_GLOBAL && s.sym_type == STT_FUNC)
        .unwrap();
    b.symbols[i].binding = STB_WEAK;
    let name = b.symbols[i].name.clone();
    assert_eq!(diffs(&a, &b), vec![format!("symbol {name}: binding: GLOBAL vs WEAK")]);
}

#[test]
fn dropped_relocation_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .sections
        .iter()
        .position(|s| s.name.starts_with(".rela.text") && !s.relocs.is_empty())
        .unwrap();
    b.sections[i].relocs.pop();
    // Write and read back, as a real file would be.
    let bytes = write::write(&b).unwrap();
    let b = read::parse(&bytes).unwrap();
    let ds = diffs(&a, &b);
    assert!(ds.iter().any(|d| d.contains("relocation only in A")), "{ds:?}");
    assert!(
        ds.iter().any(|d| d.contains(": size: ")),
        "the section size changes too: {ds:?}"
    );
}

#[test]
fn changed_nvinfo_value_is_reported() {
    let (_, d) = rich_golden();
    let a = read::parse(&d).unwrap();
    let mut b = a.clone();
    let i = b
        .sections
        .iter()
        .position(|s| s.sh_type == SHT_CUDA_INFO && s.name.starts_with(".nv.info."))
        .unwrap();
    // Change the value byte of the last 4-byte field of the first SVAL entry.
    let data = b.sections[i].data.to_mut();
    let mut at = 0;
    while at + 4 <= data.len() {
        let (fmt, size) = (data[at], u16::from_le_bytes([data[at + 2], data[at + 3]]) as usize);
        if fmt == 4 {
            data[at + 4 + size - 1] ^= 0x01;
            break;
        }
        at += 4;
    }
    let ds = diffs(&a, &b);
    assert!(!ds.is_empty());
    assert!(
        ds.iter()
            .all(|d| d.starts_with(&format!("section {}", a.sections[i].name))),
        "{ds:?}"
    );
}
