//! `culdb dump`: a readable (or JSON) listing of a cubin: header, sections,
//! symbols with demangled names, relocations by name, and the decoded .nv.*
//! tables.

use serde::Serialize;

use crate::cubin::catalog::{RelocFamily, reloc_family_of_section, reloc_name};
use crate::cubin::consts::*;
use crate::cubin::{Cubin, Section};
use crate::demangle::demangle;

#[derive(Debug, Serialize)]
pub struct CubinDump {
    pub header: HeaderDump,
    pub sections: Vec<SectionDump>,
    pub symbols: Vec<SymbolDump>,
    /// The .nv.merc.symtab of a Mercury (sm_100+) cubin.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merc_symbols: Vec<SymbolDump>,
    pub relocations: Vec<RelocSectionDump>,
    /// Decoded .nv.info*, .nv.compat, .nv.callgraph, .nv.prototype, .nv.rel.action.
    pub tables: Vec<TableDump>,
}

#[derive(Debug, Serialize)]
pub struct HeaderDump {
    pub e_type: &'static str,
    pub sm: u32,
    pub e_flags: String,
    pub os_abi: u8,
    pub abi_version: u8,
}

#[derive(Debug, Serialize)]
pub struct SectionDump {
    pub index: usize,
    pub name: String,
    pub sh_type: String,
    pub flags: String,
    pub size: u64,
    pub align: u64,
    pub entsize: u64,
    pub link: u32,
    pub info: u32,
}

#[derive(Debug, Serialize)]
pub struct SymbolDump {
    pub index: usize,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demangled: Option<String>,
    pub value: u64,
    pub size: u64,
    pub sym_type: &'static str,
    pub binding: &'static str,
    pub other: u8,
    pub section: String,
}

#[derive(Debug, Serialize)]
pub struct RelocSectionDump {
    pub section: String,
    pub applies_to: String,
    pub relocs: Vec<RelocDump>,
}

#[derive(Debug, Serialize)]
pub struct RelocDump {
    pub offset: u64,
    pub rtype: u32,
    pub type_name: String,
    pub symbol: String,
    pub addend: i64,
}

#[derive(Debug, Serialize)]
pub struct TableDump {
    pub section: String,
    pub entries: Vec<String>,
}

fn flags_text(f: u64) -> String {
    let mut s = String::new();
    for (bit, ch) in [
        (SHF_WRITE, 'W'),
        (SHF_ALLOC, 'A'),
        (SHF_EXECINSTR, 'X'),
        (SHF_INFO_LINK, 'I'),
    ] {
        if f & bit != 0 {
            s.push(ch);
        }
    }
    let rest = f & !(SHF_WRITE | SHF_ALLOC | SHF_EXECINSTR | SHF_INFO_LINK);
    if rest != 0 {
        s.push_str(&format!("+{rest:#x}"));
    }
    s
}

/// Builds the listing of one cubin.
pub fn cubin(c: &Cubin<'_>) -> CubinDump {
    let header = HeaderDump {
        e_type: match c.header.e_type {
            ET_REL => "ET_REL",
            ET_EXEC => "ET_EXEC",
            _ => "other",
        },
        sm: c.header.sm(),
        e_flags: format!("{:#x}", c.header.e_flags),
        os_abi: c.header.os_abi,
        abi_version: c.header.abi_version,
    };
    let sections = c
        .sections
        .iter()
        .enumerate()
        .skip(1)
        .map(|(index, s)| SectionDump {
            index,
            name: s.name.clone(),
            sh_type: section_type_name(s.sh_type)
                .map(str::to_string)
                .unwrap_or_else(|| format!("{:#x}", s.sh_type)),
            flags: flags_text(s.flags),
            size: s.size(),
            align: s.align,
            entsize: s.entsize,
            link: s.link,
            info: s.info,
        })
        .collect();
    let symbol_list = |table: &[crate::cubin::Symbol]| -> Vec<SymbolDump> {
        table
            .iter()
            .enumerate()
            .skip(1)
            .map(|(index, s)| SymbolDump {
                index,
                name: c.name_in(table, index),
                demangled: demangle(&s.name),
                value: s.value,
                size: s.size,
                sym_type: symbol_type_name(s.sym_type),
                binding: binding_name(s.binding),
                other: s.other,
                section: c.shndx_name(s.shndx),
            })
            .collect()
    };
    let symbols = symbol_list(&c.symbols);
    let merc_symbols = symbol_list(&c.merc_symbols);
    let relocations = c
        .sections
        .iter()
        .filter(|s| s.is_reloc())
        .map(|s| RelocSectionDump {
            section: s.name.clone(),
            applies_to: c.section_name(s.info as usize).to_string(),
            relocs: s
                .relocs
                .iter()
                .map(|r| RelocDump {
                    offset: r.offset,
                    rtype: r.rtype,
                    type_name: reloc_name(reloc_family_of_section(s.sh_type).unwrap_or(RelocFamily::Cuda), r.rtype)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("type {}", r.rtype)),
                    symbol: c.symbol_name_for(s, r.sym as usize),
                    addend: r.addend,
                })
                .collect(),
        })
        .collect();
    let tables = c.sections.iter().filter_map(|s| table(c, s)).collect();
    CubinDump {
        header,
        sections,
        symbols,
        merc_symbols,
        relocations,
        tables,
    }
}

fn table(c: &Cubin<'_>, s: &Section<'_>) -> Option<TableDump> {
    let entries = crate::cubin::tables::render(c, s)?.unwrap_or_else(|e| vec![format!("cannot decode: {e}")]);
    Some(TableDump {
        section: s.name.clone(),
        entries,
    })
}

/// The text form of a listing.
pub fn text(d: &CubinDump) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let h = &d.header;
    let _ = writeln!(
        o,
        "ELF: {} sm_{} flags={} OS/ABI={:#x} ABI version={}",
        h.e_type, h.sm, h.e_flags, h.os_abi, h.abi_version
    );
    let _ = writeln!(o, "\nSections:");
    let _ = writeln!(
        o,
        "  {:>3} {:<32} {:<18} {:<6} {:>8} {:>5} {:>3} {:>4} {:>4}",
        "idx", "name", "type", "flags", "size", "align", "es", "link", "info"
    );
    for s in &d.sections {
        let _ = writeln!(
            o,
            "  {:>3} {:<32} {:<18} {:<6} {:>#8x} {:>5} {:>3} {:>4} {:>4}",
            s.index, s.name, s.sh_type, s.flags, s.size, s.align, s.entsize, s.link, s.info
        );
    }
    let _ = writeln!(o, "\nSymbols:");
    let _ = writeln!(
        o,
        "  {:>3} {:>10} {:>8} {:<12} {:<6} {:>5} {:<24} name",
        "idx", "value", "size", "type", "bind", "other", "section"
    );
    for s in &d.symbols {
        let dem = s.demangled.as_deref().map(|x| format!("  [{x}]")).unwrap_or_default();
        let _ = writeln!(
            o,
            "  {:>3} {:>#10x} {:>#8x} {:<12} {:<6} {:>#5x} {:<24} {}{}",
            s.index, s.value, s.size, s.sym_type, s.binding, s.other, s.section, s.name, dem
        );
    }
    if !d.merc_symbols.is_empty() {
        let _ = writeln!(o, "\nMercury symbols (.nv.merc.symtab):");
        for s in &d.merc_symbols {
            let _ = writeln!(
                o,
                "  {:>3} {:>#10x} {:>#8x} {:<12} {:<6} {:>#5x} {:<24} {}",
                s.index, s.value, s.size, s.sym_type, s.binding, s.other, s.section, s.name
            );
        }
    }
    for r in &d.relocations {
        let _ = writeln!(o, "\nRelocations in {} (for {}):", r.section, r.applies_to);
        for x in &r.relocs {
            let _ = writeln!(
                o,
                "  {:>#8x}  {:<28} {} {:+#x}",
                x.offset, x.type_name, x.symbol, x.addend
            );
        }
    }
    for t in &d.tables {
        let _ = writeln!(o, "\n{}:", t.section);
        for e in &t.entries {
            let _ = writeln!(o, "  {e}");
        }
    }
    o
}

/// The listing of one file given on the command line: what it is, its members
/// when it is a container, and a dump of every cubin in it.
#[derive(Debug, Serialize)]
pub struct FileDump {
    pub file: String,
    pub kind: String,
    /// Everything inside a container (archive members, fatbin sections,
    /// containers and images); empty for a bare cubin.
    pub members: Vec<crate::cubin::input::Listing>,
    pub cubins: Vec<NamedCubinDump>,
}

#[derive(Debug, Serialize)]
pub struct NamedCubinDump {
    /// Where the cubin sits, e.g. "libx.a(m1.o)[sm_90]"; the file name for a bare cubin.
    pub path: String,
    pub dump: CubinDump,
}

/// Lists a file of any input kind; errors name the offset (and member) at fault.
pub fn file(name: &str, data: &[u8]) -> Result<FileDump, String> {
    use crate::cubin::input::{self, InputKind};
    let kind = input::classify(data);
    if matches!(kind, InputKind::Cubin | InputKind::Unknown) {
        // An unknown file is read as a cubin so the diagnostic says what is wrong with it.
        let c = crate::cubin::read::parse(data).map_err(|e| e.to_string())?;
        return Ok(FileDump {
            file: name.to_string(),
            kind: "cubin".into(),
            members: Vec::new(),
            cubins: vec![NamedCubinDump {
                path: name.to_string(),
                dump: cubin(&c),
            }],
        });
    }
    let members = input::list(name, data).map_err(|e| e.to_string())?;
    let mut cubins = Vec::new();
    for m in input::cubins(name, data, None).map_err(|e| e.to_string())? {
        let c = crate::cubin::read::parse(&m.data).map_err(|e| e.in_context(&m.path).to_string())?;
        cubins.push(NamedCubinDump {
            path: m.path.clone(),
            dump: cubin(&c),
        });
    }
    Ok(FileDump {
        file: name.to_string(),
        kind: format!("{kind:?}"),
        members,
        cubins,
    })
}

/// The text form of a file listing.
pub fn file_text(d: &FileDump) -> String {
    let mut o = format!("{}: {}\n", d.file, d.kind);
    for m in &d.members {
        let indent = "  ".repeat(m.depth + 1);
        o.push_str(&format!(
            "{indent}{} [{:?}] at {:#x}, {:#x} bytes",
            m.path, m.node, m.offset, m.size
        ));
        if let Some(e) = &m.entry {
            o.push_str(&format!(
                ": {} {} v{} compression={} size={:#x}",
                e.kind, e.arch, e.version, e.compression, e.size
            ));
        }
        if let Some(n) = &m.note {
            o.push_str(&format!(" ({n})"));
        }
        o.push('\n');
    }
    for c in &d.cubins {
        o.push_str(&format!("\n== {}\n", c.path));
        o.push_str(&text(&c.dump));
    }
    o
}
