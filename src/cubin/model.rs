//! The typed model of a cubin. Section contents borrow from the input bytes
//! (zero-copy) until something changes them.
//!
//! The model keeps everything needed to write the file back: section order and
//! headers, the symbol table as typed symbols (the writer rebuilds .strtab and
//! .symtab from them), relocations as typed records (the writer rebuilds the
//! .rel/.rela sections), and program headers as references to sections.

use std::borrow::Cow;

use serde::Serialize;

use super::consts::*;

/// ELF header fields that matter for equivalence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Header {
    /// e_ident[EI_OSABI] (0x41 for CUDA).
    pub os_abi: u8,
    /// e_ident[EI_ABIVERSION].
    pub abi_version: u8,
    pub e_type: u16,
    pub e_machine: u16,
    pub e_version: u32,
    pub e_entry: u64,
    pub e_flags: u32,
    /// e_phentsize as written: 56, or 0 in some relocatable cubins without
    /// program headers (nvcc --cubin writes 0, ptxas -c writes 56).
    pub e_phentsize: u16,
}

impl Header {
    /// The SM number in the flags (e.g. 90).
    pub fn sm(&self) -> u32 {
        sm_from_flags(self.e_flags)
    }
}

/// One section. Index 0 (the null section) is part of `Cubin::sections`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section<'a> {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
    /// Contents. Empty for SHT_NOBITS (see `nobits_size`). For .symtab, .strtab,
    /// .shstrtab and relocation sections the writer regenerates the bytes from
    /// the typed model; the bytes read are kept here for strict comparison.
    #[serde(skip)]
    pub data: Cow<'a, [u8]>,
    /// sh_size of an SHT_NOBITS section.
    pub nobits_size: u64,
    /// Typed relocations, for SHT_REL and SHT_RELA sections.
    pub relocs: Vec<Reloc>,
}

impl Section<'_> {
    /// sh_size as the file would state it.
    pub fn size(&self) -> u64 {
        if is_nobits(self.sh_type) {
            self.nobits_size
        } else {
            self.data.len() as u64
        }
    }

    /// Relocation sections: SHT_REL, SHT_RELA and the Mercury RELA type.
    pub fn is_reloc(&self) -> bool {
        matches!(
            self.sh_type,
            SHT_REL | SHT_RELA | SHT_CUDA_MERC_RELA | SHT_CUDA_RESOLVED_RELA
        )
    }

    /// Whether records carry an addend (RELA layout).
    pub fn has_addends(&self) -> bool {
        self.sh_type != SHT_REL
    }

    pub fn into_owned(self) -> Section<'static> {
        Section {
            data: Cow::Owned(self.data.into_owned()),
            ..self
        }
    }
}

/// One symbol. Index 0 (the null symbol) is part of `Cubin::symbols`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub name: String,
    pub value: u64,
    pub size: u64,
    /// STB_* (high nibble of st_info).
    pub binding: u8,
    /// STT_* (low nibble of st_info).
    pub sym_type: u8,
    /// st_other: visibility in the low 2 bits, CUDA flags above (e.g. 0x10 for an entry).
    pub other: u8,
    /// st_shndx (SHN_UNDEF, SHN_ABS, SHN_COMMON or a section index).
    pub shndx: u32,
}

impl Symbol {
    pub fn is_defined(&self) -> bool {
        self.shndx != SHN_UNDEF
    }
}

/// One relocation record of an SHT_REL or SHT_RELA section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Reloc {
    pub offset: u64,
    /// Index into `Cubin::symbols`.
    pub sym: u32,
    /// The R_CUDA_* / R_MERCURY_* number (see `catalog`).
    pub rtype: u32,
    /// The addend (0 for SHT_REL).
    pub addend: i64,
}

/// A program header. Its file range is recomputed by the writer from what it covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub p_type: u32,
    pub p_flags: u32,
    pub p_align: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub covers: SegmentCovers,
}

/// What a program header spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum SegmentCovers {
    /// The program header table itself (PT_PHDR, and the LOAD that maps it).
    ProgramHeaders,
    /// A run of consecutive sections, first..=last by index; memsz includes NOBITS.
    Sections { first: usize, last: usize },
    /// A segment with no sections in it.
    Empty,
}

pub const PT_LOAD: u32 = 1;
pub const PT_PHDR: u32 = 6;

/// A whole cubin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cubin<'a> {
    pub header: Header,
    pub sections: Vec<Section<'a>>,
    /// The .symtab symbols.
    pub symbols: Vec<Symbol>,
    /// The .nv.merc.symtab symbols of a Mercury (sm_100+) cubin; empty otherwise.
    pub merc_symbols: Vec<Symbol>,
    pub segments: Vec<Segment>,
}

impl<'a> Cubin<'a> {
    pub fn section_by_name(&self, name: &str) -> Option<(usize, &Section<'a>)> {
        self.sections.iter().enumerate().find(|(_, s)| s.name == name)
    }

    pub fn symbol_by_name(&self, name: &str) -> Option<(usize, &Symbol)> {
        self.symbols.iter().enumerate().find(|(_, s)| s.name == name)
    }

    /// Name of the section at `idx`, or a placeholder for an index out of range.
    pub fn section_name(&self, idx: usize) -> &str {
        self.sections
            .get(idx)
            .map(|s| s.name.as_str())
            .unwrap_or("<bad section>")
    }

    /// Where a symbol's st_shndx points, in words: UNDEF, ABS, COMMON or the section's name.
    pub fn shndx_name(&self, shndx: u32) -> String {
        match shndx {
            SHN_UNDEF => "UNDEF".into(),
            SHN_ABS => "ABS".into(),
            SHN_COMMON => "COMMON".into(),
            i => self.section_name(i as usize).to_string(),
        }
    }

    /// Name of .symtab symbol `idx`; a section symbol is named after its section.
    pub fn symbol_name(&self, idx: usize) -> String {
        self.name_in(&self.symbols, idx)
    }

    /// The symbol table a section's symbol indices refer to (through sh_link):
    /// .nv.merc.symtab for the Mercury sections, .symtab otherwise.
    pub fn symbols_for(&self, s: &Section<'_>) -> &[Symbol] {
        match self.sections.get(s.link as usize) {
            Some(t) if t.sh_type == SHT_CUDA_MERC_SYMTAB => &self.merc_symbols,
            _ => &self.symbols,
        }
    }

    /// Name of symbol `idx` of the table section `s` refers to.
    pub fn symbol_name_for(&self, s: &Section<'_>, idx: usize) -> String {
        self.name_in(self.symbols_for(s), idx)
    }

    /// Name of symbol `idx` of `table` (one of this cubin's two tables).
    pub fn name_in(&self, table: &[Symbol], idx: usize) -> String {
        match table.get(idx) {
            None => format!("<bad symbol {idx}>"),
            Some(s) if s.sym_type == STT_SECTION && s.name.is_empty() => {
                self.section_name(s.shndx as usize).to_string()
            }
            Some(s) => s.name.clone(),
        }
    }

    /// The string table the symbol table names (empty when none).
    pub fn symbol_strings(&self) -> &[u8] {
        self.sections
            .iter()
            .find(|s| s.sh_type == SHT_SYMTAB)
            .and_then(|s| self.sections.get(s.link as usize))
            .map_or(&[], |s| &s.data[..])
    }

    pub fn into_owned(self) -> Cubin<'static> {
        Cubin {
            header: self.header,
            sections: self.sections.into_iter().map(Section::into_owned).collect(),
            symbols: self.symbols,
            merc_symbols: self.merc_symbols,
            segments: self.segments,
        }
    }
}
