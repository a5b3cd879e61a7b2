//! The .nv.* tables of a cubin decoded through their codecs, in two forms:
//! rendered for people (`culdb dump`), and canonical, with every symbol index
//! and string-table offset replaced by the name it stands for (`culdb diff`).

use super::catalog::RelocFamily;
use super::consts::*;
use super::error::FormatError;
use super::read::string_at;
use super::{Cubin, Section, callgraph, compat, nvinfo, prototype, rel_action};

type Lines = Result<Vec<String>, FormatError>;

/// Lines for a person, or None when the section is not a decoded table.
pub fn render(c: &Cubin<'_>, s: &Section<'_>) -> Option<Lines> {
    let sym = |i: u32| c.symbol_name_for(s, i as usize);
    let text = match s.sh_type {
        SHT_CUDA_INFO | SHT_CUDA_MERC_INFO => nvinfo::decode(&s.data).map(|t| t.render(&sym)),
        SHT_CUDA_COMPAT_INFO => compat::decode(&s.data).map(|t| t.render()),
        SHT_CUDA_CALLGRAPH | SHT_CUDA_MERC_CALLGRAPH => {
            callgraph::decode(&s.data).map(|t| t.render(&sym, &|o| linked_string(c, s, o)))
        }
        SHT_CUDA_PROTOTYPE | SHT_CUDA_MERC_PROTOTYPE => {
            prototype::decode(&s.data).map(|t| t.render(&sym, &|o| linked_string(c, s, o)))
        }
        SHT_CUDA_RELOCINFO => rel_action::decode(&s.data).map(|t| t.render(RelocFamily::Cuda)),
        _ => return None,
    };
    Some(text.map(|t| {
        t.lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    }))
}

/// Canonical lines for comparison, or None when the section is compared as
/// bytes (tables without symbol indices: .nv.compat, .nv.rel.action).
pub fn canonical(c: &Cubin<'_>, s: &Section<'_>) -> Option<Lines> {
    let sym = |i: u32| c.symbol_name_for(s, i as usize);
    let text = match s.sh_type {
        SHT_CUDA_INFO | SHT_CUDA_MERC_INFO => nvinfo::decode(&s.data).map(|t| t.canonical(&sym)),
        SHT_CUDA_CALLGRAPH | SHT_CUDA_MERC_CALLGRAPH => {
            callgraph::decode(&s.data).map(|t| t.canonical(&sym, &|o| linked_string(c, s, o)))
        }
        SHT_CUDA_PROTOTYPE | SHT_CUDA_MERC_PROTOTYPE => {
            prototype::decode(&s.data).map(|t| t.canonical(&sym, &|o| linked_string(c, s, o)))
        }
        _ => return None,
    };
    Some(text.map(|t| t.lines().map(str::to_string).collect()))
}

/// A string of the string table behind the symbol table `s` links to (the
/// callgraph and prototype tables hold .strtab offsets).
fn linked_string(c: &Cubin<'_>, s: &Section<'_>, off: u32) -> String {
    let strtab = c
        .sections
        .get(s.link as usize)
        .filter(|t| is_symtab(t.sh_type))
        .and_then(|t| c.sections.get(t.link as usize));
    strtab
        .and_then(|t| string_at(&t.data, off as usize))
        .map(str::to_string)
        .unwrap_or_else(|| format!("<string {off:#x}?>"))
}
