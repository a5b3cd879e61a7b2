//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use culdb::cubin::consts::*;
use culdb::cubin::model::*;

/// A fresh, empty folder for one test (`name` tells tests apart).
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("culdb-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the culdb binary.
pub fn culdb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(args)
        .output()
        .expect("run culdb")
}

pub fn section(name: &str, sh_type: u32, flags: u64, align: u64, data: Vec<u8>) -> Section<'static> {
    Section {
        name: name.into(),
        sh_type,
        flags,
        addr: 0,
        link: 0,
        info: 0,
        align,
        entsize: 0,
        data: Cow::Owned(data),
        nobits_size: 0,
        relocs: Vec::new(),
    }
}

/// A small, valid relocatable cubin made by culdb's own writer: a kernel
/// with one relocation against a global symbol.
pub fn tiny_cubin() -> Cubin<'static> {
    let mut symtab = section(".symtab", SHT_SYMTAB, 0, 8, Vec::new());
    symtab.link = 2;
    symtab.info = 2;
    symtab.entsize = 24;
    let mut text = section(".text.k", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 128, vec![0x11; 64]);
    text.link = 3;
    text.info = 2;
    let mut rela = section(".rela.text.k", SHT_RELA, SHF_INFO_LINK, 8, Vec::new());
    rela.link = 3;
    rela.info = 4;
    rela.entsize = 24;
    rela.relocs = vec![Reloc {
        offset: 0x10,
        sym: 3,
        rtype: 56,
        addend: 0,
    }];
    let sym = |name: &str, binding, sym_type, shndx, size| Symbol {
        name: String::from(name),
        value: 0,
        size,
        binding,
        sym_type,
        other: 0,
        shndx,
    };
    Cubin {
        header: Header {
            os_abi: ELFOSABI_CUDA,
            abi_version: 8,
            e_type: ET_REL,
            e_machine: EM_CUDA,
            e_version: 1,
            e_entry: 0,
            e_flags: 0x0600_5a04,
            e_phentsize: 0,
        },
        sections: vec![
            section("", SHT_NULL, 0, 0, Vec::new()),
            section(".shstrtab", SHT_STRTAB, 0, 1, Vec::new()),
            section(".strtab", SHT_STRTAB, 0, 1, Vec::new()),
            symtab,
            text,
            rela,
        ],
        symbols: vec![
            sym("", STB_LOCAL, STT_NOTYPE, 0, 0),
            sym("", STB_LOCAL, STT_SECTION, 4, 0),
            sym("k", STB_GLOBAL, STT_FUNC, 4, 64),
            sym("g", STB_GLOBAL, STT_OBJECT, SHN_UNDEF, 4),
        ],
        merc_symbols: Vec::new(),
        segments: Vec::new(),
    }
}

pub fn tiny_cubin_bytes() -> Vec<u8> {
    culdb::cubin::write::write(&tiny_cubin()).expect("write tiny cubin")
}

/// Every corpus case folder.
pub fn corpus_cases() -> Vec<PathBuf> {
    all_corpus_cases().into_iter().filter(|p| !is_lto_case(p)).collect()
}

/// Whether `case`'s code is finalized again by nvlink (`needs-finalizer`)
/// and this machine has no nvJitLink to do the same: such a case's
/// expected output cannot be matched here.
#[allow(dead_code)]
pub fn finalizer_missing(case: &std::path::Path) -> bool {
    case.join("needs-finalizer").is_file() && culdb::link::refinalize::available().is_err()
}

/// The LTO cases (`-dlto`): they need libNVVM, nvJitLink and ptxas, and
/// have tests of their own (tests/lto.rs, and `culdb conform`, which skips
/// them where those are missing).
#[allow(dead_code)]
pub fn lto_cases() -> Vec<PathBuf> {
    all_corpus_cases().into_iter().filter(|p| is_lto_case(p)).collect()
}

fn is_lto_case(case: &Path) -> bool {
    std::fs::read_to_string(case.join("link.args")).is_ok_and(|a| a.split_whitespace().any(|w| w == "-dlto"))
}

fn all_corpus_cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.join("link.args").exists())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every bare cubin of the corpus: inputs (including -r outputs used as
/// inputs) and nvlink's outputs.
pub fn corpus_cubins() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for case in corpus_cases() {
        for dir in [case.clone(), case.join("expected")] {
            if let Ok(rd) = std::fs::read_dir(&dir) {
                for e in rd.flatten() {
                    let p = e.path();
                    if p.is_file()
                        && std::fs::read(&p)
                            .map(|d| culdb::cubin::read::is_cubin(&d))
                            .unwrap_or(false)
                    {
                        out.push(p);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

pub fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The installed CUDA toolkit (scripts/cuda-tools.sh), when it has cuobjdump
/// and a host compiler is there too: what the nvcc build tests need.
#[allow(dead_code)]
pub fn toolkit() -> Option<PathBuf> {
    let tk = culdb::toolkit::default_cuda()?;
    let has_gcc = Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (tk.join("bin/cuobjdump").is_file() && has_gcc).then_some(tk)
}

/// The device images of executable `exe`, extracted by cuobjdump into `into`.
#[allow(dead_code)]
pub fn images(tk: &Path, exe: &Path, into: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(into).unwrap();
    let out = Command::new(tk.join("bin/cuobjdump"))
        .current_dir(into)
        .args(["-xelf", "all"])
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cuobjdump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Vec<PathBuf> = std::fs::read_dir(into).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}
