//! A typed builder for relocatable cubins (ET_REL), for inputs that no NVIDIA
//! compiler writes on demand: unified function/data tables (`.nv.uft`,
//! `.nv.udt` and their `.entry` tables), odd section mixes, damaged tables.
//!
//! The builder hands out handles ([`SecId`], [`SymId`]) and resolves them to
//! ELF indices only in [`CubinBuilder::build`], so sections and symbols can be
//! added in any order: symbols are written locals first (section symbols
//! first of all, as ptxas does), then globals and weaks, and every place that
//! names a symbol (relocations, `sh_info` of `.nv.info.<fn>`, entry records,
//! nv.info attributes) is patched with the final index. The result is a
//! [`Cubin`] model, written by [`super::write`].
//!
//! ```
//! use culdb::cubin::build::{CubinBuilder, Sym};
//! let mut b = CubinBuilder::new(90);
//! b.ptxas_notes(90);
//! b.function("f", vec![0; 128], Sym::global());
//! b.uft_table(&[("f", 0x1111, 0x2222)]);
//! let bytes = b.to_bytes().unwrap();
//! assert!(culdb::cubin::read::parse(&bytes).is_ok());
//! ```

use std::borrow::Cow;

use super::consts::*;
use super::model::{Cubin, Header, Reloc, Section, Symbol};
use super::write::{WriteError, write};

/// A section of the builder (index into its own list, not an ELF index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecId(usize);

impl SecId {
    /// The handle of the builder's `i`-th section (in the order added).
    pub fn from_index(i: usize) -> SecId {
        SecId(i)
    }
}

/// A symbol of the builder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymId(usize);

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Def {
    Undefined,
    In(SecId),
    Absolute,
    Common,
}

/// A symbol's attributes (name, place and value are given separately).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sym {
    pub binding: u8,
    pub sym_type: u8,
    pub other: u8,
    pub size: u64,
}

impl Sym {
    pub fn global() -> Sym {
        Sym {
            binding: STB_GLOBAL,
            sym_type: STT_FUNC,
            other: 0,
            size: 0,
        }
    }
    pub fn local() -> Sym {
        Sym {
            binding: STB_LOCAL,
            ..Sym::global()
        }
    }
    pub fn weak() -> Sym {
        Sym {
            binding: STB_WEAK,
            ..Sym::global()
        }
    }
    pub fn object(self) -> Sym {
        Sym {
            sym_type: STT_OBJECT,
            ..self
        }
    }
    pub fn sized(self, size: u64) -> Sym {
        Sym { size, ..self }
    }
    pub fn other(self, other: u8) -> Sym {
        Sym { other, ..self }
    }
}

/// A section header as the builder keeps it. `link_symtab` sets sh_link to
/// `.symtab`; `info_sym`/`info_sec` set sh_info to a symbol's or section's index.
#[derive(Debug, Clone)]
pub struct SecSpec {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    pub data: Vec<u8>,
    /// sh_size of a NOBITS-like section.
    pub nobits_size: u64,
    pub link_symtab: bool,
    pub info_sym: Option<SymId>,
    pub info_sec: Option<SecId>,
    /// sh_link to another section of the builder.
    pub link_sec: Option<SecId>,
    /// Raw sh_link/sh_info when no handle applies (with `info_sym`, only
    /// the top byte of `info` is used: the register count of sm_75…sm_89 code).
    pub link: u32,
    pub info: u32,
    /// (byte offset, symbol): a little-endian u32 symbol index written there at build time.
    pub sym_fixups: Vec<(usize, SymId)>,
    /// A relocation section: the section it patches and its records.
    pub relocs_for: Option<SecId>,
    pub relocs: Vec<(u64, u32, SymId, i64)>,
    /// Whether the section gets a local STT_SECTION symbol.
    pub section_symbol: bool,
}

impl SecSpec {
    pub fn new(name: &str, sh_type: u32, flags: u64, align: u64) -> SecSpec {
        SecSpec {
            name: name.into(),
            sh_type,
            flags,
            align,
            entsize: 0,
            data: Vec::new(),
            nobits_size: 0,
            link_symtab: false,
            info_sym: None,
            info_sec: None,
            link_sec: None,
            link: 0,
            info: 0,
            sym_fixups: Vec::new(),
            relocs_for: None,
            relocs: Vec::new(),
            section_symbol: false,
        }
    }
    pub fn data(mut self, data: Vec<u8>) -> SecSpec {
        self.data = data;
        self
    }
    pub fn entsize(mut self, entsize: u64) -> SecSpec {
        self.entsize = entsize;
        self
    }
    pub fn with_section_symbol(mut self) -> SecSpec {
        self.section_symbol = true;
        self
    }
}

#[derive(Debug, Clone)]
struct SymSpec {
    name: String,
    attrs: Sym,
    def: Def,
    value: u64,
}

/// One record of `.nv.uft.entry` / `.nv.udt.entry` (32 bytes, seed 000):
/// symbol index, flags, slot offset in the table, 128-bit UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRecord {
    pub sym: SymId,
    pub flags: u32,
    pub offset: u64,
    pub uuid_lo: u64,
    pub uuid_hi: u64,
}

/// The `.nv.compat` bytes of `ptxas -arch=sm_90 -c` 13.5 (ACCELERATOR_TARGET 0,
/// INTERNAL_TARGET 0, ISA_CLASS 1, attribute 3 = 0x101, INST_TENSORMAP_V1 0,
/// CAN_FASTPATH_FINALIZE, FINALIZER_VERSION).
pub const PTXAS_SM90_COMPAT: [u8; 36] = [
    0x02, 0x09, 0x00, 0x00, 0x02, 0x0c, 0x00, 0x00, 0x02, 0x02, 0x01, 0x00, 0x03, 0x0d, 0x01, 0x01, 0x02, 0x03, 0x00,
    0x00, 0x04, 0x0b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0e, 0x40, 0x04,
];

/// The synthetic contents of jump slot `k` for `name`: the slot number + 1,
/// then the name's bytes, then the byte offsets 0x10.. (no real code; nvlink
/// copies slots without decoding them).
pub fn slot_bytes(k: usize, name: &str) -> Vec<u8> {
    let mut v: Vec<u8> = (0..UFT_SLOT as u8).collect();
    v[0] = k as u8 + 1;
    for (i, c) in name.bytes().take(14).enumerate() {
        v[1 + i] = c;
    }
    v
}

/// What [`CubinBuilder::uft_table`] made.
#[derive(Debug, Clone)]
pub struct UftTable {
    pub table: SecId,
    pub entries: SecId,
    /// The `__cuda_uf_stub_<name>` symbols, in slot order.
    pub stubs: Vec<SymId>,
}

/// UFT jump-slot size (the `.nv.uft` entry size).
pub const UFT_SLOT: u64 = 128;
/// Size of one `.nv.uft.entry` / `.nv.udt.entry` record.
pub const ENTRY_SIZE: u64 = 32;

/// The builder.
#[derive(Debug, Clone)]
pub struct CubinBuilder {
    pub header: Header,
    sections: Vec<SecSpec>,
    symbols: Vec<SymSpec>,
}

impl CubinBuilder {
    /// An empty relocatable cubin for `sm_<sm>`, with the e_flags ptxas 13.5
    /// writes (0x6000004 | sm << 8 before sm_100, 0x6000002 | sm << 8 from it).
    pub fn new(sm: u32) -> CubinBuilder {
        let low = if sm >= 100 { 0x2 } else { 0x4 };
        CubinBuilder {
            header: Header {
                os_abi: ELFOSABI_CUDA,
                abi_version: 8,
                e_type: ET_REL,
                e_machine: EM_CUDA,
                e_version: 1,
                e_entry: 0,
                e_flags: 0x600_0000 | (sm << 8) | low,
                e_phentsize: 0,
            },
            sections: Vec::new(),
            symbols: Vec::new(),
        }
    }

    /// The three sections every ptxas 13.5 cubin carries and that nvlink and
    /// cuobjdump require (without `.note.nv.cuinfo` and the `.nv.compat` it
    /// points at, nvlink says "must be recompiled with toolkit >= Cuda 12.0"
    /// and cuobjdump "Invalid ELF"): `.note.nv.tkinfo` naming ptxas,
    /// `.nv.compat` with the attributes ptxas writes for sm_90, and
    /// `.note.nv.cuinfo` (virtual SM `sm`) linked to both.
    pub fn ptxas_notes(&mut self, sm: u32) {
        self.ptxas_notes_from(sm, sm);
    }

    /// [`Self::ptxas_notes`] for code compiled from PTX of another virtual
    /// SM (`.target sm_<virtual_sm>`, which nvlink's weak resolution reads).
    pub fn ptxas_notes_from(&mut self, sm: u32, virtual_sm: u32) {
        let tk = self.toolkit_note("ptxas", &format!("-arch sm_{sm} -c "));
        // ptxas writes `.nv.compat` (and links the note to it) from sm_90 on
        // only (corpus arch_sm75_smoke … arch_sm89_smoke have none).
        let compat = (sm >= 90).then(|| {
            let c = SecSpec::new(".nv.compat", SHT_CUDA_COMPAT_INFO, 0, 4).data(PTXAS_SM90_COMPAT.to_vec());
            self.section(c)
        });
        let cu = self.cuda_note(virtual_sm as u16);
        let spec = self.section_mut(cu);
        spec.link_sec = Some(tk);
        if compat.is_some() {
            spec.flags |= SHF_INFO_LINK;
            spec.info_sec = compat;
        }
    }

    /// `.note.nv.cuinfo` as ptxas 13.5 writes it (note type 1000, owner
    /// "NVIDIA Corp", version 2, the virtual SM, toolkit 135 = 13.5).
    pub fn cuda_note(&mut self, virtual_sm: u16) -> SecId {
        let mut d = Vec::new();
        for v in [12u32, 8, 1000] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        d.extend_from_slice(b"NVIDIA Corp\0");
        d.extend_from_slice(&2u16.to_le_bytes());
        d.extend_from_slice(&virtual_sm.to_le_bytes());
        d.extend_from_slice(&135u32.to_le_bytes());
        self.section(SecSpec::new(".note.nv.cuinfo", SHT_NOTE, 0x100_0000, 4).data(d))
    }

    /// `.note.nv.tkinfo` (note type 2000, version 2) naming the tool that
    /// made the cubin: `tool`, the 13.5 toolkit version and branch strings, `args`.
    pub fn toolkit_note(&mut self, tool: &str, args: &str) -> SecId {
        let strings = [
            tool,
            "Cuda compilation tools, release 13.5, V13.5.37",
            "Build cuda_13.5.r13.5/compiler.39125733_0",
            args,
        ];
        // Descriptor: version, then 4 string offsets into the string pool
        // that follows (offsets count from the pool, which starts with a NUL).
        let mut pool = vec![0u8];
        let mut offs = Vec::new();
        for s in strings {
            offs.push(pool.len() as u32);
            pool.extend_from_slice(s.as_bytes());
            pool.push(0);
        }
        let mut desc = Vec::new();
        desc.extend_from_slice(&2u32.to_le_bytes());
        desc.extend_from_slice(&0u32.to_le_bytes());
        for o in offs {
            desc.extend_from_slice(&o.to_le_bytes());
        }
        desc.extend_from_slice(&pool);
        while desc.len() % 4 != 0 {
            desc.push(0);
        }
        let mut d = Vec::new();
        for v in [12u32, desc.len() as u32, 2000] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        d.extend_from_slice(b"NVIDIA Corp\0");
        d.extend_from_slice(&desc);
        self.section(SecSpec::new(".note.nv.tkinfo", SHT_NOTE, 0x200_0000, 4).data(d))
    }

    /// Adds a section.
    pub fn section(&mut self, spec: SecSpec) -> SecId {
        self.sections.push(spec);
        SecId(self.sections.len() - 1)
    }

    /// How many sections were added.
    pub fn len_sections(&self) -> usize {
        self.sections.len()
    }

    pub fn section_mut(&mut self, id: SecId) -> &mut SecSpec {
        &mut self.sections[id.0]
    }

    /// Adds a symbol.
    pub fn symbol(&mut self, name: &str, attrs: Sym, def: Def, value: u64) -> SymId {
        self.symbols.push(SymSpec {
            name: name.into(),
            attrs,
            def,
            value,
        });
        SymId(self.symbols.len() - 1)
    }

    /// A function: `.text.<name>` (PROGBITS, ALLOC|EXECINSTR, 128-aligned,
    /// sh_info = the symbol, as ptxas writes it) and its symbol sized to the code.
    pub fn function(&mut self, name: &str, code: Vec<u8>, attrs: Sym) -> (SecId, SymId) {
        let size = code.len() as u64;
        let mut spec = SecSpec::new(&format!(".text.{name}"), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 128)
            .data(code)
            .with_section_symbol();
        spec.link_symtab = true;
        let sec = self.section(spec);
        let sym = self.symbol(name, attrs.sized(size), Def::In(sec), 0);
        self.sections[sec.0].info_sym = Some(sym);
        (sec, sym)
    }

    /// A relocation against `target`, in `.rela<target name>` (created on first use).
    pub fn reloc(&mut self, target: SecId, offset: u64, rtype: u32, sym: SymId, addend: i64) {
        let name = format!(".rela{}", self.sections[target.0].name);
        let rel = match self.sections.iter().position(|s| s.relocs_for == Some(target)) {
            Some(i) => i,
            None => {
                let mut spec = SecSpec::new(&name, SHT_RELA, SHF_INFO_LINK, 8).entsize(24);
                spec.link_symtab = true;
                spec.info_sec = Some(target);
                spec.relocs_for = Some(target);
                self.section(spec).0
            }
        };
        self.sections[rel].relocs.push((offset, rtype, sym, addend));
    }

    /// A unified table section and its entry table: `.nv.uft` (or `.nv.udt`)
    /// with `slot` bytes per record (the bytes given, else zeros), and the
    /// `.entry` table describing them. Returns (table, entry table).
    pub fn unified_table(&mut self, data_table: bool, table: Vec<u8>, entries: &[EntryRecord]) -> (SecId, SecId) {
        let (name, ty, ety) = if data_table {
            (".nv.udt", SHT_CUDA_UDT, SHT_CUDA_UDT_ENTRY)
        } else {
            (".nv.uft", SHT_CUDA_UFT, SHT_CUDA_UFT_ENTRY)
        };
        let t = SecSpec::new(name, ty, SHF_ALLOC | SHF_WRITE, UFT_SLOT)
            .entsize(if data_table { 0 } else { UFT_SLOT })
            .data(table)
            .with_section_symbol();
        let t = self.section(t);
        let e = self.entry_table(&format!("{name}.entry"), ety, entries);
        (t, e)
    }

    /// An entry table alone (e.g. to pair with a table added by hand).
    pub fn entry_table(&mut self, name: &str, sh_type: u32, entries: &[EntryRecord]) -> SecId {
        let mut data = Vec::with_capacity(entries.len() * ENTRY_SIZE as usize);
        let mut fixups = Vec::new();
        for e in entries {
            fixups.push((data.len(), e.sym));
            data.extend_from_slice(&0u32.to_le_bytes());
            data.extend_from_slice(&e.flags.to_le_bytes());
            data.extend_from_slice(&e.offset.to_le_bytes());
            data.extend_from_slice(&e.uuid_lo.to_le_bytes());
            data.extend_from_slice(&e.uuid_hi.to_le_bytes());
        }
        let mut spec = SecSpec::new(name, sh_type, 0, 8).entsize(ENTRY_SIZE).data(data);
        spec.link_symtab = true;
        spec.sym_fixups = fixups;
        self.section(spec)
    }

    /// `.nv.uft` with one 128-byte jump slot per target, the local
    /// `__cuda_uf_stub_<name>` FUNC symbol of each slot (at its offset, 128
    /// bytes), and `.nv.uft.entry` naming each stub with its UUID (lo, hi).
    /// This is the form nvlink 13.5 accepts: an entry must name a stub that
    /// lives in `.nv.uft` (an entry naming the function itself fails with
    /// "UFT stub match not found", a GLOBAL stub is reported undefined).
    /// Each slot's bytes are [`slot_bytes`], so a reordering shows.
    pub fn uft_table(&mut self, targets: &[(&str, u64, u64)]) -> UftTable {
        let (table, stubs, entries) = self.uft_slots(targets);
        let e = self.entry_table(".nv.uft.entry", SHT_CUDA_UFT_ENTRY, &entries);
        UftTable {
            table,
            entries: e,
            stubs,
        }
    }

    /// The `.nv.uft` half of [`Self::uft_table`]: the table and its stubs,
    /// plus the entry records it would write (to alter before
    /// [`Self::entry_table`], or to leave out).
    pub fn uft_slots(&mut self, targets: &[(&str, u64, u64)]) -> (SecId, Vec<SymId>, Vec<EntryRecord>) {
        let mut table = Vec::new();
        for (k, (name, ..)) in targets.iter().enumerate() {
            table.extend(slot_bytes(k, name));
        }
        let t = SecSpec::new(".nv.uft", SHT_CUDA_UFT, SHF_ALLOC | SHF_WRITE, UFT_SLOT)
            .entsize(UFT_SLOT)
            .data(table)
            .with_section_symbol();
        let t = self.section(t);
        let mut stubs = Vec::new();
        let mut entries = Vec::new();
        for (k, &(name, lo, hi)) in targets.iter().enumerate() {
            let offset = k as u64 * UFT_SLOT;
            let stub = self.symbol(
                &format!("__cuda_uf_stub_{name}"),
                Sym::local().sized(UFT_SLOT),
                Def::In(t),
                offset,
            );
            stubs.push(stub);
            entries.push(EntryRecord {
                sym: stub,
                flags: 0,
                offset,
                uuid_lo: lo,
                uuid_hi: hi,
            });
        }
        (t, stubs, entries)
    }

    /// `.nv.udt` holding each variable's bytes one after the other (each at
    /// an 8-aligned offset), a LOCAL OBJECT symbol per variable (its value the
    /// offset, its size the bytes' length), and `.nv.udt.entry` naming each
    /// variable with its UUID (lo, hi). Returns (table, symbols, entries): the
    /// entry table is not written, so a caller can alter or leave it out.
    pub fn udt_slots(&mut self, vars: &[(&str, Vec<u8>, u64, u64)]) -> (SecId, Vec<SymId>, Vec<EntryRecord>) {
        let mut table = Vec::new();
        let mut at = Vec::new();
        for (_, bytes, ..) in vars {
            table.resize(table.len().next_multiple_of(8), 0);
            at.push(table.len() as u64);
            table.extend_from_slice(bytes);
        }
        let t = SecSpec::new(".nv.udt", SHT_CUDA_UDT, SHF_ALLOC | SHF_WRITE, 8)
            .data(table)
            .with_section_symbol();
        let t = self.section(t);
        let mut syms = Vec::new();
        let mut entries = Vec::new();
        for (k, (name, bytes, lo, hi)) in vars.iter().enumerate() {
            let sym = self.symbol(name, Sym::local().object().sized(bytes.len() as u64), Def::In(t), at[k]);
            syms.push(sym);
            entries.push(EntryRecord {
                sym,
                flags: 0,
                offset: at[k],
                uuid_lo: *lo,
                uuid_hi: *hi,
            });
        }
        (t, syms, entries)
    }

    /// ELF index of each section (the builder's sections follow the null
    /// section, `.shstrtab`, `.strtab` and `.symtab`).
    fn elf_section(&self, id: SecId) -> usize {
        id.0 + 4
    }

    /// The symbol order: null, section symbols, other locals, then the rest.
    fn symbol_order(&self) -> (Vec<Option<usize>>, Vec<usize>) {
        // Entries: None = a section symbol (index in `sec_syms`), Some(i) = symbols[i].
        let mut order: Vec<Option<usize>> = Vec::new();
        let sec_syms: Vec<usize> = (0..self.sections.len())
            .filter(|&i| self.sections[i].section_symbol)
            .collect();
        order.extend(sec_syms.iter().map(|_| None));
        order.extend(
            (0..self.symbols.len())
                .filter(|&i| self.symbols[i].attrs.binding == STB_LOCAL)
                .map(Some),
        );
        order.extend(
            (0..self.symbols.len())
                .filter(|&i| self.symbols[i].attrs.binding != STB_LOCAL)
                .map(Some),
        );
        (order, sec_syms)
    }

    /// The typed model.
    pub fn build(&self) -> Result<Cubin<'static>, WriteError> {
        let (order, sec_syms) = self.symbol_order();
        let mut sym_index = vec![0u32; self.symbols.len()];
        let mut symbols = vec![Symbol {
            name: String::new(),
            value: 0,
            size: 0,
            binding: STB_LOCAL,
            sym_type: STT_NOTYPE,
            other: 0,
            shndx: 0,
        }];
        let mut nsec_sym = 0;
        for o in &order {
            let idx = symbols.len() as u32;
            match o {
                None => {
                    let s = sec_syms[nsec_sym];
                    nsec_sym += 1;
                    symbols.push(Symbol {
                        name: String::new(),
                        value: 0,
                        size: 0,
                        binding: STB_LOCAL,
                        sym_type: STT_SECTION,
                        other: 0,
                        shndx: self.elf_section(SecId(s)) as u32,
                    });
                }
                Some(i) => {
                    let s = &self.symbols[*i];
                    sym_index[*i] = idx;
                    let shndx = match s.def {
                        Def::Undefined => SHN_UNDEF,
                        Def::Absolute => SHN_ABS,
                        Def::Common => SHN_COMMON,
                        Def::In(sec) => self.elf_section(sec) as u32,
                    };
                    symbols.push(Symbol {
                        name: s.name.clone(),
                        value: s.value,
                        size: s.attrs.size,
                        binding: s.attrs.binding,
                        sym_type: s.attrs.sym_type,
                        other: s.attrs.other,
                        shndx,
                    });
                }
            }
        }
        let first_global = symbols
            .iter()
            .position(|s| s.binding != STB_LOCAL)
            .unwrap_or(symbols.len());
        let sym = |id: SymId| -> Result<u32, WriteError> {
            sym_index
                .get(id.0)
                .copied()
                .ok_or_else(|| WriteError(format!("unknown symbol handle {}", id.0)))
        };

        let mut sections: Vec<Section<'static>> = Vec::new();
        let plain = |name: &str, sh_type: u32| Section {
            name: name.into(),
            sh_type,
            flags: 0,
            addr: 0,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            data: Cow::Owned(Vec::new()),
            nobits_size: 0,
            relocs: Vec::new(),
        };
        sections.push(plain("", SHT_NULL));
        sections.push(plain(".shstrtab", SHT_STRTAB));
        sections.push(plain(".strtab", SHT_STRTAB));
        let mut symtab = plain(".symtab", SHT_SYMTAB);
        symtab.link = 2;
        symtab.info = first_global as u32;
        symtab.align = 8;
        symtab.entsize = 24;
        sections.push(symtab);
        for s in &self.sections {
            let mut data = s.data.clone();
            for &(at, id) in &s.sym_fixups {
                let v = sym(id)?;
                let slot = data
                    .get_mut(at..at + 4)
                    .ok_or_else(|| WriteError(format!("symbol fixup at {at:#x} is past the end of {}", s.name)))?;
                slot.copy_from_slice(&v.to_le_bytes());
            }
            let mut relocs = Vec::new();
            for &(offset, rtype, id, addend) in &s.relocs {
                relocs.push(Reloc {
                    offset,
                    sym: sym(id)?,
                    rtype,
                    addend,
                });
            }
            let info = match (s.info_sym, s.info_sec) {
                // A code section of sm_75…sm_89 keeps its register count in
                // the top byte beside the symbol index (`SecSpec::info`).
                (Some(id), _) => sym(id)? | (s.info & 0xff00_0000),
                (None, Some(sec)) => self.elf_section(sec) as u32,
                (None, None) => s.info,
            };
            sections.push(Section {
                name: s.name.clone(),
                sh_type: s.sh_type,
                flags: s.flags,
                addr: 0,
                link: match (s.link_symtab, s.link_sec) {
                    (true, _) => 3,
                    (false, Some(sec)) => self.elf_section(sec) as u32,
                    (false, None) => s.link,
                },
                info,
                align: s.align,
                entsize: s.entsize,
                data: Cow::Owned(data),
                nobits_size: s.nobits_size,
                relocs,
            });
        }
        // ELF extended section numbering needs the symbols' section indices
        // in a table of their own (the writer fills it).
        if sections.len() + 1 >= usize::from(SHN_LORESERVE) {
            let mut x = plain(".symtab_shndx", SHT_SYMTAB_SHNDX);
            x.link = 3;
            x.align = 4;
            x.entsize = 4;
            sections.push(x);
        }
        Ok(Cubin {
            header: self.header.clone(),
            sections,
            symbols,
            merc_symbols: Vec::new(),
            segments: Vec::new(),
        })
    }

    /// The cubin's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        write(&self.build()?)
    }
}

/// The bytes of a UIDX file (`--uidx-file`, seed 000): the 48-byte header
/// (magic `\x7fUFTINDX`, version, UFT window size and count, UDT window
/// size and count), then the UFT records and the UDT records, each
/// (uuid_lo, uuid_hi, offset). `conflict` is the version>1 block (16 bytes
/// per UFT record), written after the records: nvlink 13.5 reads the records
/// right after the header whatever the version (see `link::uidx`).
pub fn uidx_bytes(
    version: u32,
    uft_window: u64,
    uft: &[(u64, u64, u64)],
    udt_window: u64,
    udt: &[(u64, u64, u64)],
    conflict: Option<&[(u64, u64)]>,
) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"\x7fUFTINDX");
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    for v in [uft_window, uft.len() as u64, udt_window, udt.len() as u64] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for &(lo, hi, off) in uft.iter().chain(udt) {
        for v in [lo, hi, off] {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    if let Some(c) = conflict {
        for &(lo, hi) in c {
            b.extend_from_slice(&lo.to_le_bytes());
            b.extend_from_slice(&hi.to_le_bytes());
        }
    }
    b
}
