//! Emit: the finished link state as a cubin model (then bytes, through
//! `cubin::write`). Everything the earlier phases decided is already in the
//! state; this module only chooses the file's shape: section order, the
//! symbol table's order (locals, then globals), the tables encoded from
//! their typed records, and the ELF header.

use std::collections::{BTreeMap, HashMap};

use crate::cubin::callgraph::CallGraph;
use crate::cubin::consts::*;
use crate::cubin::model::{Cubin, Header, Reloc, Section, Symbol};
use crate::cubin::nvinfo::NvInfo;
use crate::cubin::{compat::Compat, write};

use super::pipeline::LinkSetup;
use super::state::{LinkState, Place, SymIdx};

/// Why the output could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The output file's bytes.
pub fn bytes(st: &LinkState, setup: &LinkSetup) -> Result<Vec<u8>, EmitError> {
    let c = build(st, setup)?;
    write::write(&c).map_err(|e| EmitError(e.to_string()))
}

/// Where each state symbol lands in the output symbol table.
pub struct SymbolOrder {
    /// Output symbol table, index 0 the null symbol.
    pub order: Vec<SymIdx>,
    pub index: HashMap<SymIdx, u32>,
    /// Number of local symbols, the null symbol included (sh_info of .symtab).
    pub first_global: u32,
}

/// The output symbol table's order: the null symbol, the locals, then the
/// globals and weak symbols, each in state order. Symbols a later phase
/// removed (`removed`) are left out.
pub fn symbol_order(st: &LinkState) -> SymbolOrder {
    let mut order = vec![SymIdx::NULL];
    for (i, s) in st.all_symbols() {
        if i.0 > 0 && !s.removed {
            order.push(i);
        }
    }
    let first_global = order.len() as u32;
    for (i, s) in st.all_symbols() {
        if i.0 < 0 && !s.removed {
            order.push(i);
        }
    }
    let index = order.iter().enumerate().map(|(n, &i)| (i, n as u32)).collect();
    SymbolOrder {
        order,
        index,
        first_global,
    }
}

fn section(name: &str, sh_type: u32, flags: u64, align: u64, entsize: u64, data: Vec<u8>) -> Section<'static> {
    Section {
        name: name.to_string(),
        sh_type,
        flags,
        addr: 0,
        link: 0,
        info: 0,
        align,
        entsize,
        data: data.into(),
        nobits_size: 0,
        relocs: Vec::new(),
    }
}

/// The output cubin.
pub fn build(st: &LinkState, setup: &LinkSetup) -> Result<Cubin<'static>, EmitError> {
    let first = st
        .inputs
        .first()
        .ok_or_else(|| EmitError("no input was linked".into()))?;
    let first_cubin = crate::cubin::read::parse(&first.data).map_err(|e| EmitError(e.to_string()))?;
    let header = Header {
        os_abi: first_cubin.header.os_abi,
        abi_version: first_cubin.header.abi_version,
        e_type: if setup.relocatable { ET_REL } else { ET_EXEC },
        e_machine: EM_CUDA,
        e_version: first_cubin.header.e_version,
        e_entry: 0,
        e_flags: st.e_flags.unwrap_or(first.e_flags),
        e_phentsize: 56,
    };
    let syms = symbol_order(st);
    let sym_out = |i: SymIdx| -> u32 { syms.index.get(&i).copied().unwrap_or(0) };

    let mut sections: Vec<Section<'static>> = vec![section("", SHT_NULL, 0, 0, 0, Vec::new())];
    let add = |sections: &mut Vec<Section<'static>>, s: Section<'static>| -> usize {
        sections.push(s);
        sections.len() - 1
    };
    add(&mut sections, section(".shstrtab", SHT_STRTAB, 0, 1, 0, Vec::new()));
    let strtab = add(&mut sections, section(".strtab", SHT_STRTAB, 0, 1, 0, Vec::new()));
    let symtab = add(&mut sections, section(".symtab", SHT_SYMTAB, 0, 8, 24, Vec::new()));
    sections[symtab].link = strtab as u32;
    sections[symtab].info = syms.first_global;

    // Notes, then the tables, then code and data in state order.
    for note in &st.notes {
        let mut s = section(&note.name, SHT_NOTE, note.flags, 4, 0, note.data.clone());
        s.link = note.link;
        s.info = note.info;
        add(&mut sections, s);
    }
    // Output section index of each state section, for the ones emitted.
    let mut out_index: HashMap<usize, usize> = HashMap::new();
    let mut pending_info: Vec<(usize, SymIdx)> = Vec::new();
    let module_info: Vec<_> = st.nvinfo.iter().filter(|n| n.live && n.function.is_none()).collect();
    if !module_info.is_empty() {
        let info = NvInfo {
            entries: module_info.iter().map(|n| remap_info(&n.entry, &sym_out)).collect(),
            trailing: Vec::new(),
        };
        let i = add(
            &mut sections,
            section(".nv.info", SHT_CUDA_INFO, 0, 4, 0, info.encode()),
        );
        sections[i].link = symtab as u32;
    }
    if !st.compat.is_empty() {
        let c = Compat {
            entries: st.compat.clone(),
            trailing: Vec::new(),
        };
        add(
            &mut sections,
            section(".nv.compat", SHT_CUDA_COMPAT_INFO, 0, 4, 0, c.encode()),
        );
    }
    let mut per_fn: BTreeMap<SymIdx, Vec<_>> = BTreeMap::new();
    for n in st.nvinfo.iter().filter(|n| n.live) {
        if let Some(f) = n.function {
            per_fn.entry(f).or_default().push(remap_info(&n.entry, &sym_out));
        }
    }
    // Function tables in output symbol order.
    let mut fns: Vec<_> = per_fn.into_iter().collect();
    fns.sort_by_key(|(f, _)| sym_out(*f));
    for (f, entries) in fns {
        let name = format!(".nv.info.{}", st.symbol_name(f));
        let i = add(
            &mut sections,
            section(
                &name,
                SHT_CUDA_INFO,
                SHF_INFO_LINK,
                4,
                0,
                NvInfo {
                    entries,
                    trailing: Vec::new(),
                }
                .encode(),
            ),
        );
        sections[i].link = symtab as u32;
        pending_info.push((i, f));
    }
    let edges: Vec<_> = st.callgraph.iter().filter(|e| e.live).collect();
    if !edges.is_empty() {
        let mut cg = CallGraph {
            records: edges.iter().map(|e| e.record).collect(),
        };
        cg.map_symbols(&mut |x| sym_out(SymIdx(x as i32)));
        let i = add(
            &mut sections,
            section(".nv.callgraph", SHT_CUDA_CALLGRAPH, 0, 4, 8, cg.encode()),
        );
        sections[i].link = symtab as u32;
    }
    for t in &st.tables {
        let mut s = section(&t.name, t.sh_type, t.flags, t.align, t.entsize, t.data.clone());
        if t.links_symtab {
            s.link = symtab as u32;
        }
        add(&mut sections, s);
    }
    // Relocation sections, one per patched section, before the code and data.
    let mut by_section: BTreeMap<usize, Vec<Reloc>> = BTreeMap::new();
    let mut rela_of: BTreeMap<usize, bool> = BTreeMap::new();
    for r in st.relocs.iter().filter(|r| r.live) {
        by_section.entry(r.section).or_default().push(Reloc {
            offset: r.offset,
            sym: sym_out(r.sym),
            rtype: r.rtype,
            addend: r.addend,
        });
        *rela_of.entry(r.section).or_default() |= r.rela;
    }
    let mut pending_rel: Vec<(usize, usize)> = Vec::new();
    for (sec, relocs) in by_section {
        let rela = rela_of[&sec];
        let target = &st.sections[sec];
        let (prefix, ty, ent) = if rela {
            (".rela", SHT_RELA, 24)
        } else {
            (".rel", SHT_REL, 16)
        };
        let mut s = section(
            &format!("{prefix}{}", target.name),
            ty,
            SHF_INFO_LINK,
            8,
            ent,
            Vec::new(),
        );
        s.link = symtab as u32;
        s.relocs = relocs;
        let i = add(&mut sections, s);
        pending_rel.push((i, sec));
    }
    for (k, s) in st.sections.iter().enumerate().skip(1) {
        if s.removed {
            continue;
        }
        let mut o = section(&s.name, s.sh_type, s.flags, s.align, s.entsize, s.data.clone());
        if s.nobits {
            o.data = Vec::new().into();
            o.nobits_size = s.size;
        }
        if s.class == super::state::SectionClass::Text {
            o.link = symtab as u32;
            o.info = s.owner.map(sym_out).unwrap_or(0);
        }
        let i = add(&mut sections, o);
        out_index.insert(k, i);
    }
    for (i, sec) in pending_rel {
        sections[i].info = out_index.get(&sec).copied().unwrap_or(0) as u32;
    }
    for (i, f) in pending_info {
        let text = st.symbol(f).and_then(|s| match s.place {
            Place::Section(k) => out_index.get(&k).copied(),
            _ => None,
        });
        sections[i].info = text.unwrap_or(0) as u32;
    }

    let symbols = syms
        .order
        .iter()
        .map(|&i| match st.symbol(i) {
            None => Symbol {
                name: String::new(),
                value: 0,
                size: 0,
                binding: 0,
                sym_type: 0,
                other: 0,
                shndx: 0,
            },
            Some(s) => Symbol {
                name: if s.sym_type == STT_SECTION {
                    String::new()
                } else {
                    s.name.clone()
                },
                value: s.value,
                size: s.size,
                binding: s.binding,
                sym_type: s.sym_type,
                other: s.other,
                shndx: match s.place {
                    Place::Undefined => SHN_UNDEF,
                    Place::Absolute => SHN_ABS,
                    Place::Common { .. } => SHN_COMMON,
                    Place::Section(k) => out_index.get(&k).copied().unwrap_or(0) as u16,
                },
            },
        })
        .collect();

    Ok(Cubin {
        header,
        sections,
        symbols,
        merc_symbols: Vec::new(),
        segments: Vec::new(),
    })
}

fn remap_info(e: &crate::cubin::nvinfo::Entry, sym_out: &dyn Fn(SymIdx) -> u32) -> crate::cubin::nvinfo::Entry {
    let mut e = e.clone();
    for r in e.symbol_refs_mut() {
        *r = sym_out(SymIdx(*r as i32));
    }
    e
}
