//! The line tables and register ranges of functions the finalizer
//! shortened (`shrink`) or wrote anew: each
//! one's sequence in `.debug_line` and `.nv_debug_line_sass` (a
//! `-lineinfo` or `-G` build) is the finalizer's, whose rows name the new
//! addresses. nvlink writes what nvJitLink writes for the input alone
//! (threadFenceReduction `-lineinfo` for sm_120: all 40 sequences of both
//! tables); the other sequences stay as ptxas wrote them.

use std::collections::BTreeMap;

use crate::cubin::consts::{SHT_REL, SHT_RELA};
use crate::cubin::model::Cubin;
use crate::link::line_order::{LINE_TABLES, sequence_at};

use super::edit::Editor;

/// Where each function's sequence starts in line table `table` of `c`:
/// the `DW_LNE_set_address` operand a relocation against the function
/// patches, by function name.
fn sequence_records(c: &Cubin<'_>, table: usize) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for rs in &c.sections {
        if !matches!(rs.sh_type, SHT_REL | SHT_RELA) || rs.info as usize != table {
            continue;
        }
        let symbols = c.symbols_for(rs);
        for x in &rs.relocs {
            if let Some(y) = symbols.get(x.sym as usize) {
                out.insert(y.name.clone(), x.offset);
            }
        }
    }
    out
}

/// Puts the finalizer's (`fin`'s) sequence of each function in `moved`
/// (code shortened or written anew) into the input's line tables, moving
/// what follows and the records that point there; Err when a table cannot
/// be read or a function has no sequence on one side.
pub fn replace(ed: &mut Editor<'_>, moved: &[String], fin: &Cubin<'_>) -> Result<(), String> {
    let c = ed.cubin;
    for &name in LINE_TABLES {
        let Some((t, table)) = c.section_by_name(name) else {
            continue;
        };
        let own = sequence_records(c, t);
        if !moved.iter().any(|f| own.contains_key(f)) {
            continue;
        }
        let (ft, theirs_table) = fin
            .section_by_name(name)
            .ok_or_else(|| format!("the finalizer wrote no {name}"))?;
        let theirs = sequence_records(fin, ft);
        let d = &table.data;
        // (old start, old end, new bytes) of each sequence replaced.
        let mut swaps: Vec<(usize, usize, &[u8])> = Vec::new();
        let mut units: Vec<usize> = Vec::new();
        for f in moved {
            let Some(&off) = own.get(f) else { continue };
            let bad = || format!("{name}: the sequence of {f} cannot be read");
            let (unit, a, b) = sequence_at(d, off as usize).ok_or_else(bad)?;
            let &their_off = theirs.get(f).ok_or_else(bad)?;
            let (_, fa, fb) = sequence_at(&theirs_table.data, their_off as usize).ok_or_else(bad)?;
            // The record must sit at the same place in both sequences.
            if off as usize - a != their_off as usize - fa {
                return Err(bad());
            }
            swaps.push((a, b, &theirs_table.data[fa..fb]));
            units.push(unit);
        }
        swaps.sort_by_key(|s| s.0);
        // A table of several units: a compile unit's `DW_AT_stmt_list`
        // would have to move too.
        if c.section_by_name(".debug_info").is_some() && crate::link::line_order::unit_starts(d).len() > 1 {
            return Err(format!("{name}: several units and .debug_info"));
        }
        let mut out = Vec::with_capacity(d.len());
        let mut at = 0usize;
        // (old offset from which, shift) in order.
        let mut shifts: Vec<(usize, i64)> = Vec::new();
        for &(a, b, new) in &swaps {
            out.extend_from_slice(&d[at..a]);
            out.extend_from_slice(new);
            at = b;
            let before = shifts.last().map_or(0, |s| s.1);
            shifts.push((b, before + new.len() as i64 - (b - a) as i64));
        }
        out.extend_from_slice(&d[at..]);
        let moved = |off: usize| -> usize {
            let k = shifts.partition_point(|&(from, _)| from <= off);
            let shift = if k == 0 { 0 } else { shifts[k - 1].1 };
            (off as i64 + shift) as usize
        };
        // Each unit's length.
        units.sort_unstable();
        units.dedup();
        for u in units {
            let end = u + 4 + u32::from_le_bytes(d[u..u + 4].try_into().map_err(|_| "bad unit")?) as usize;
            let (nu, nend) = (moved(u), moved(end));
            let length = (nend - nu - 4) as u32;
            out[nu..nu + 4].copy_from_slice(&length.to_le_bytes());
        }
        // The records in the table move with their bytes.
        for (r, rs) in c.sections.iter().enumerate() {
            if !matches!(rs.sh_type, SHT_REL | SHT_RELA) || rs.info as usize != t {
                continue;
            }
            let entsize: u64 = if rs.sh_type == SHT_RELA { 24 } else { 16 };
            for (k, x) in rs.relocs.iter().enumerate() {
                let to = moved(x.offset as usize) as u64;
                ed.put_record_offset(r, k as u64 * entsize, to)?;
            }
        }
        ed.replace_section(t, &out)?;
    }
    Ok(())
}

/// The register ranges (`.nv_debug_info_reg_sass`, `-G` code) of each
/// function in `moved` (code shortened or written anew): the finalizer's
/// code offsets, where its block for the function has as many entries as
/// the input's (a `-G` kernel's `MEMBAR.SC.VC` before its exit barriers,
/// which the finalizer deletes on sm_100: the ranges ending after it end
/// 0x10 earlier, mixed_g_exit_barriers_sm100). The rest stays as ptxas
/// wrote it.
pub fn register_ranges(ed: &mut Editor<'_>, moved: &[String], fin: &Cubin<'_>) {
    use crate::link::reg_sass::{REG_SASS, block_ranges};
    let (Some((i, own)), Some((_, theirs))) = (ed.cubin.section_by_name(REG_SASS), fin.section_by_name(REG_SASS))
    else {
        return;
    };
    let Some(&base) = ed.offsets.get(i) else { return };
    for f in moved {
        let spots = |data: &[u8]| block_ranges(data, |n| n == f.as_bytes());
        let (mine, new) = (spots(&own.data), spots(&theirs.data));
        if mine.len() != new.len() {
            continue;
        }
        for (&(at, len), &(from, _)) in mine.iter().zip(&new) {
            if let Some(bytes) = theirs.data.get(from..from + len) {
                ed.put(base + at as u64, bytes);
            }
        }
    }
}
