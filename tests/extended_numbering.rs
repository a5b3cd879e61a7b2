//! ELF extended section numbering: objects with more than 65,279 sections
//! (about 65,000 functions in one object). The section count moves to
//! section 0's sh_size (e_shnum 0), and symbols of sections past 0xff00 name
//! them through `.symtab_shndx`.
//!
//! nvlink's layout of such an output, checked by hand on its `-r` link of
//! five ptxas objects of 20,000 functions each and on its final link of that
//! (`scripts/bench-functions`, docs/realworld.md):
//! - `.symtab_shndx` (type 18, link `.symtab`, align and entsize 4) comes
//!   after the debug sections, before `.note.nv.tkinfo`;
//! - it holds every symbol's section index, 0 for undefined and special
//!   places, also where st_shndx states the index itself;
//! - its bytes are written at its own place, but room of its size is left
//!   (zeros) right after `.symtab`;
//! - a final link that merged that many sections keeps the table after
//!   dead-code elimination leaves a hundred of them.
//!
//! Where nvlink is installed, the same links are compared with its output
//! byte for byte.

mod common;

use std::path::Path;
use std::process::Command;

use common::{culdb, scratch, toolkit};
use culdb::cubin::build::{CubinBuilder, Sym};
use culdb::cubin::consts::*;
use culdb::cubin::model::Cubin;
use culdb::cubin::read::parse;

/// Enough functions (one section each) to pass SHN_LORESERVE sections.
const FUNCTIONS: usize = 65_400;

fn many_functions() -> Vec<u8> {
    let mut b = CubinBuilder::new(90);
    b.ptxas_notes(90);
    for i in 0..FUNCTIONS {
        b.function(&format!("f{i}"), vec![0; 16], Sym::global());
    }
    b.to_bytes().expect("builder writes the object")
}

fn u16_at(d: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([d[at], d[at + 1]])
}

fn section_of<'c>(c: &'c Cubin<'_>, symbol: &str) -> &'c str {
    let s = c.symbols.iter().find(|s| s.name == symbol).expect("symbol");
    &c.sections[s.shndx as usize].name
}

/// The facts above, on culdb's output `bytes` with `sections` sections.
fn check_layout(bytes: &[u8], min_sections: usize) -> Cubin<'_> {
    let c = parse(bytes).expect("culdb's output reads back");
    assert!(c.sections.len() >= min_sections, "{} sections", c.sections.len());
    let many = c.sections.len() >= usize::from(SHN_LORESERVE);
    assert_eq!(
        u16_at(bytes, 0x3c),
        if many { 0 } else { c.sections.len() as u16 },
        "e_shnum"
    );
    let x = c
        .sections
        .iter()
        .position(|s| s.sh_type == SHT_SYMTAB_SHNDX)
        .expect(".symtab_shndx");
    let symtab = c.sections.iter().position(|s| s.sh_type == SHT_SYMTAB).unwrap();
    let tab = &c.sections[x];
    assert_eq!(
        (tab.name.as_str(), tab.link as usize, tab.align, tab.entsize),
        (".symtab_shndx", symtab, 4, 4)
    );
    assert_eq!(c.sections[x + 1].name, ".note.nv.tkinfo");
    assert!(c.sections[symtab + 1..x].iter().all(|s| s.name.starts_with(".debug")));
    assert_eq!(tab.data.len(), c.symbols.len() * 4);
    for (k, s) in c.symbols.iter().enumerate() {
        let want = if s.shndx == SHN_UNDEF || s.shndx >= 0xffff_0000 {
            0
        } else {
            s.shndx
        };
        let got = u32::from_le_bytes(tab.data[k * 4..k * 4 + 4].try_into().unwrap());
        assert_eq!(got, want, "symbol {k} ({})", s.name);
    }
    // The room after .symtab.
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
    let sh = |i: usize, field: usize| {
        u64::from_le_bytes(
            bytes[shoff + i * 64 + field..shoff + i * 64 + field + 8]
                .try_into()
                .unwrap(),
        ) as usize
    };
    let end = sh(symtab, 24) + sh(symtab, 32);
    assert!(bytes[end..end + tab.data.len()].iter().all(|&b| b == 0));
    assert_eq!(
        sh(symtab + 1, 24),
        end + tab.data.len(),
        "the section after .symtab starts after the room"
    );
    c
}

fn nvlink(args: &[&str], out: &Path) -> Option<Vec<u8>> {
    let tk = toolkit()?;
    let o = Command::new(tk.join("bin/nvlink"))
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .ok()?;
    assert!(o.status.success(), "nvlink: {}", String::from_utf8_lossy(&o.stderr));
    Some(std::fs::read(out).unwrap())
}

#[test]
fn objects_past_65279_sections_read_link_and_write_as_nvlink_does() {
    let dir = scratch("extended-numbering");
    let obj = dir.join("many.o");
    let bytes = many_functions();
    std::fs::write(&obj, &bytes).unwrap();

    // The builder's object reads back: count and symbols' sections.
    assert_eq!(u16_at(&bytes, 0x3c), 0, "e_shnum of the input");
    let c = parse(&bytes).expect("extended numbering reads");
    assert!(c.sections.len() > FUNCTIONS);
    for f in ["f0", "f65200", "f65399"] {
        assert_eq!(section_of(&c, f), format!(".text.{f}"));
    }

    // -r keeps every section.
    let rel = dir.join("r.cubin");
    let o = culdb(&[
        "link",
        "-arch=sm_90",
        "-r",
        obj.to_str().unwrap(),
        "-o",
        rel.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r_bytes = std::fs::read(&rel).unwrap();
    let r = check_layout(&r_bytes, FUNCTIONS);
    for f in ["f0", "f65200", "f65399"] {
        assert_eq!(section_of(&r, f), format!(".text.{f}"));
    }

    // A final link removes every function (no kernel calls them), but keeps
    // the table.
    let fin = dir.join("final.cubin");
    let o = culdb(&[
        "link",
        "-arch=sm_90",
        obj.to_str().unwrap(),
        "-o",
        fin.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f_bytes = std::fs::read(&fin).unwrap();
    let f = check_layout(&f_bytes, 1);
    assert!(f.sections.len() < 100, "{} sections", f.sections.len());

    let n_rel = dir.join("n-r.cubin");
    if let Some(n) = nvlink(&["-arch=sm_90", "-r", obj.to_str().unwrap()], &n_rel) {
        assert!(n == r_bytes, "-r: culdb's output differs from nvlink's");
        let n = nvlink(&["-arch=sm_90", obj.to_str().unwrap()], &dir.join("n.cubin")).unwrap();
        assert!(n == f_bytes, "final: culdb's output differs from nvlink's");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
