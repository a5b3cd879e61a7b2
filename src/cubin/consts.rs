//! CUDA ELF constants: machine, OS/ABI, section types and flags, symbol types.
//! Values are the ones real cubins carry (checked with cuobjdump -elf).

/// e_machine of every cubin.
pub const EM_CUDA: u16 = 190;
/// e_ident[EI_OSABI] of cubins written by ptxas/nvlink (0x41, "CUDA").
pub const ELFOSABI_CUDA: u8 = 0x41;

pub const ET_REL: u16 = 1;
pub const ET_EXEC: u16 = 2;

// Generic ELF section types.
pub const SHT_NULL: u32 = 0;
pub const SHT_PROGBITS: u32 = 1;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const SHT_RELA: u32 = 4;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;

// CUDA section types (SHT_LOPROC + n). INFO, CALLGRAPH, PROTOTYPE, RELOCINFO and
// COMPAT_INFO are seen in real cubins; the rest are the seeds' values, to be
// confirmed by corpus files that carry them.
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
pub const SHT_CUDA_PROTOTYPE: u32 = 0x7000_0002;
pub const SHT_CUDA_RESOLVED_RELA: u32 = 0x7000_0003;
pub const SHT_CUDA_METADATA: u32 = 0x7000_0004;
pub const SHT_CUDA_GLOBAL: u32 = 0x7000_0007;
pub const SHT_CUDA_GLOBAL_INIT: u32 = 0x7000_0008;
pub const SHT_CUDA_LOCAL: u32 = 0x7000_0009;
pub const SHT_CUDA_SHARED: u32 = 0x7000_000a;
/// `.nv.shared.reserved.*` (seed 001), classic and Mercury.
pub const SHT_CUDA_SHARED_RESERVED: u32 = 0x7000_0015;
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// .nv.constantN in relocatable cubins is SHT_CUDA_CONSTANT0 + N (ET_EXEC output uses PROGBITS).
pub const SHT_CUDA_CONSTANT0: u32 = 0x7000_0064;
pub const SHT_CUDA_UFT: u32 = 0x7000_000e;
pub const SHT_CUDA_UFT_ENTRY: u32 = 0x7000_0011;
pub const SHT_CUDA_UDT: u32 = 0x7000_0012;
pub const SHT_CUDA_UDT_ENTRY: u32 = 0x7000_0014;
pub const SHT_CUDA_COMPAT_INFO: u32 = 0x7000_0086;

// Mercury (sm_100+) companion sections that ptxas adds beside the classic
// ones: their own symbol table (linked to .strtab), relocations (RELA layout,
// type numbers 0x10000 | n, symbol indices into .nv.merc.symtab), nv.info,
// callgraph and prototype. Seen in every sm_100/sm_120 corpus cubin.
pub const SHT_CUDA_MERC_RELA: u32 = 0x7000_0082;
pub const SHT_CUDA_MERC_INFO: u32 = 0x7000_0083;
pub const SHT_CUDA_MERC_SYMTAB: u32 = 0x7000_0085;
pub const SHT_CUDA_MERC_CALLGRAPH: u32 = 0x7000_008a;
pub const SHT_CUDA_MERC_PROTOTYPE: u32 = 0x7000_008b;

/// The name cuobjdump prints for a section type; None for ones it prints as a number.
pub fn section_type_name(t: u32) -> Option<&'static str> {
    Some(match t {
        SHT_NULL => "NULL",
        SHT_PROGBITS => "PROGBITS",
        SHT_SYMTAB => "SYMTAB",
        SHT_STRTAB => "STRTAB",
        SHT_RELA => "RELA",
        SHT_NOTE => "NOTE",
        SHT_NOBITS => "NOBITS",
        SHT_REL => "REL",
        SHT_SYMTAB_SHNDX => "SYMTAB_SHNDX",
        SHT_CUDA_INFO => "CUDA_INFO",
        SHT_CUDA_CALLGRAPH => "CUDA_CALLGRAPH",
        SHT_CUDA_PROTOTYPE => "CUDA_PROTOTYPE",
        SHT_CUDA_RESOLVED_RELA => "CUDA_RESOLVED_RELA",
        SHT_CUDA_METADATA => "CUDA_METADATA",
        SHT_CUDA_RELOCINFO => "CUDA_RELOCINFO",
        SHT_CUDA_COMPAT_INFO => "CUDA_COMPAT_INFO",
        SHT_CUDA_MERC_RELA => "CUDA_MERC_RELA",
        SHT_CUDA_MERC_INFO => "CUDA_MERC_INFO",
        SHT_CUDA_MERC_SYMTAB => "CUDA_MERC_SYMTAB",
        SHT_CUDA_MERC_CALLGRAPH => "CUDA_MERC_CALLGRAPH",
        SHT_CUDA_MERC_PROTOTYPE => "CUDA_MERC_PROTOTYPE",
        SHT_CUDA_GLOBAL => "CUDA_GLOBAL",
        SHT_CUDA_GLOBAL_INIT => "CUDA_GLOBAL_INIT",
        SHT_CUDA_LOCAL => "CUDA_LOCAL",
        SHT_CUDA_SHARED => "CUDA_SHARED",
        t if (SHT_CUDA_CONSTANT0..SHT_CUDA_CONSTANT0 + 0x20).contains(&t) => "CUDA_CONSTANT",
        _ => return None,
    })
}

// Section flags.
pub const SHF_WRITE: u64 = 0x1;
pub const SHF_ALLOC: u64 = 0x2;
pub const SHF_EXECINSTR: u64 = 0x4;
pub const SHF_INFO_LINK: u64 = 0x40;

// Symbol bindings and types.
pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const STB_WEAK: u8 = 2;

pub const STT_NOTYPE: u8 = 0;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;
pub const STT_SECTION: u8 = 3;
pub const STT_FILE: u8 = 4;
pub const STT_COMMON: u8 = 5;
/// CUDA symbol types for bindless resources (STT_LOPROC range).
pub const STT_CUDA_TEXTURE: u8 = 10;
pub const STT_CUDA_SURFACE: u8 = 12;
pub const STT_CUDA_SAMPLER: u8 = 11;
/// A CUDA data object (cuobjdump: CUDA_OBJECT): the type ptxas gives
/// variables. A final link writes them as OBJECT, except the symbols of
/// `.nv.udt` (corpus udt_*) and nvlink's own `$NVLINKBINDLESSOFF_` symbols.
pub const STT_CUDA_OBJECT: u8 = 13;

// A symbol's section in the model (`Symbol::shndx`): 0 for undefined, a
// section index (up to u32, extended numbering resolved), or one of the
// special places below, kept apart from every section index.
pub const SHN_UNDEF: u32 = 0;
pub const SHN_ABS: u32 = 0xffff_fff1;
pub const SHN_COMMON: u32 = 0xffff_fff2;
// The raw st_shndx / e_shstrndx values in a file.
pub const SHN_LORESERVE: u16 = 0xff00;
pub const SHN_ABS_RAW: u16 = 0xfff1;
pub const SHN_COMMON_RAW: u16 = 0xfff2;
/// The real index is elsewhere: in `.symtab_shndx` for a symbol, in section
/// 0's sh_link for e_shstrndx (ELF extended section numbering).
pub const SHN_XINDEX: u16 = 0xffff;
/// ELF extended section numbering: the table of symbols' section indices.
pub const SHT_SYMTAB_SHNDX: u32 = 18;

/// The model's place for a raw st_shndx, `extended` being the symbol's
/// `.symtab_shndx` entry. Reserved values other than ABS and COMMON, and
/// SHN_XINDEX without a table, are kept as 0xffff_0000 | raw: an unknown
/// place, past every section.
pub fn shndx_from_raw(raw: u16, extended: Option<u32>) -> u32 {
    match raw {
        SHN_XINDEX => extended.unwrap_or(0xffff_0000 | u32::from(raw)),
        SHN_ABS_RAW => SHN_ABS,
        SHN_COMMON_RAW => SHN_COMMON,
        r if r >= SHN_LORESERVE => 0xffff_0000 | u32::from(r),
        r => u32::from(r),
    }
}

/// The raw st_shndx for a model place, and its `.symtab_shndx` entry (the
/// section index, 0 for undefined and special places: nvlink's tables).
pub fn shndx_to_raw(v: u32) -> (u16, u32) {
    match v {
        SHN_ABS => (SHN_ABS_RAW, 0),
        SHN_COMMON => (SHN_COMMON_RAW, 0),
        v if v >= 0xffff_0000 => (v as u16, 0),
        v if v >= u32::from(SHN_LORESERVE) => (SHN_XINDEX, v),
        v => (v as u16, v),
    }
}

pub fn binding_name(b: u8) -> &'static str {
    match b {
        STB_LOCAL => "LOCAL",
        STB_GLOBAL => "GLOBAL",
        STB_WEAK => "WEAK",
        _ => "UNKNOWN",
    }
}

pub fn symbol_type_name(t: u8) -> &'static str {
    match t {
        STT_NOTYPE => "NOTYPE",
        STT_OBJECT => "OBJECT",
        STT_FUNC => "FUNC",
        STT_SECTION => "SECTION",
        STT_FILE => "FILE",
        STT_COMMON => "COMMON",
        STT_CUDA_TEXTURE => "CUDA_TEXTURE",
        STT_CUDA_SURFACE => "CUDA_SURFACE",
        STT_CUDA_SAMPLER => "CUDA_SAMPLER",
        STT_CUDA_OBJECT => "CUDA_OBJECT",
        _ => "UNKNOWN",
    }
}

/// The SM number from e_flags, e.g. 90 for sm_90: bits 8..24, as cuobjdump
/// reads its "sm=" field (docs/catalog.md).
pub fn sm_from_flags(flags: u32) -> u32 {
    (flags >> 8) & 0xffff
}

/// Symbol tables: the classic one and the Mercury one.
pub fn is_symtab(sh_type: u32) -> bool {
    sh_type == SHT_SYMTAB || sh_type == SHT_CUDA_MERC_SYMTAB
}

/// True for section types whose contents take no room in the file: SHT_NOBITS
/// and, in relocatable cubins, the CUDA global, local and shared memory types
/// (ptxas gives them a size but no bytes; checked on ptxas output), reserved
/// shared memory included (arch_sm110_smoke: its sh_offset is where the next
/// section starts, in the inputs and in nvlink's output).
pub fn is_nobits(sh_type: u32) -> bool {
    matches!(
        sh_type,
        SHT_NOBITS | SHT_CUDA_GLOBAL | SHT_CUDA_LOCAL | SHT_CUDA_SHARED | SHT_CUDA_SHARED_RESERVED
    )
}
