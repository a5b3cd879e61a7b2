//! The classic line tables of an sm_100+ output (`.debug_line`,
//! `.nv_debug_line_sass`), which nvlink writes again, apparently when it
//! finalizes the Mercury code: a `-r` link, which finalizes nothing, keeps
//! what points into them (`DW_AT_stmt_list`, `reloc::decide`).
//!
//! What nvlink 13.5 does (debug_line_order_sm120; seen with -G and
//! -lineinfo objects, sm_100 and sm_120, with and without `-r`):
//! - each compile unit's line program keeps its header, but its sequences
//!   (each one function's rows, from `DW_LNE_set_address` to
//!   `DW_LNE_end_sequence`) come in the output symbol order of their
//!   functions, not in ptxas's: `combine`, which the first input's kernel
//!   names, gets a lower symbol index than the second input's other
//!   functions and its sequence moves from last to first of that unit.
//!   Local functions come first, as in `.symtab`. The sequences' bytes
//!   move unchanged; units stay where they are;
//! - the relocation tables of these sections list their records in offset
//!   order, where every other classic table has the last merged record
//!   first (one input of five functions in ptxas's order: the input's
//!   table as it is).
//!
//! The Mercury twins (`.nv.merc.debug_line`, …) keep ptxas's order.

use foldhash::HashMap;

use super::state::{LinkState, SymIdx};

/// The line tables nvlink writes again.
pub const LINE_TABLES: &[&str] = &[".debug_line", ".nv_debug_line_sass"];

/// `DW_LNE_end_sequence`: an extended opcode of one byte.
const END_SEQUENCE: [u8; 3] = [0, 1, 1];

/// Whether output section `name` is one of them.
pub fn is_line_table(name: &str) -> bool {
    LINE_TABLES.contains(&name)
}

/// The reordered line tables: per state section, its new bytes and where
/// each moved byte range went.
#[derive(Debug, Default)]
pub struct LineOrder {
    sections: HashMap<usize, Reordered>,
}

#[derive(Debug)]
struct Reordered {
    data: Vec<u8>,
    /// (old start, length, new start) of each sequence that moved.
    moves: Vec<(u64, u64, u64)>,
}

impl LineOrder {
    /// Plans the line tables of `st`, `rank` giving a symbol's output
    /// index (0 when it is left out).
    pub fn plan(st: &LinkState, rank: &dyn Fn(SymIdx) -> u32) -> Self {
        let mut sections = HashMap::default();
        for (k, s) in st.sections.iter().enumerate() {
            if s.removed || s.nobits || !is_line_table(&s.name) {
                continue;
            }
            // The function of each record's offset, the first record at an
            // offset winning.
            // A function dead-code elimination removed loses its sequence
            // too: debug_line_dead_sm120.
            let removed = |i: SymIdx| st.symbol(i).is_some_and(|s| s.removed);
            let mut at: Vec<(u64, u32)> = st
                .relocs
                .iter()
                .filter(|r| r.section == k && r.live && !removed(r.sym))
                .map(|r| (r.offset, rank(r.sym)))
                .collect();
            at.sort_by_key(|&(o, _)| o);
            let mut lost: Vec<u64> = st
                .lost_line_records
                .iter()
                .filter(|&&(sec, _)| sec == k)
                .map(|&(_, o)| o)
                .chain(
                    st.relocs
                        .iter()
                        .filter(|r| r.section == k && removed(r.sym))
                        .map(|r| r.offset),
                )
                .collect();
            lost.sort_unstable();
            if let Some(r) = reorder(&s.data, &at, &lost) {
                sections.insert(k, r);
            }
        }
        LineOrder { sections }
    }

    /// The new bytes of state section `k`, when they changed.
    /// Whether any line table was written again.
    pub fn any(&self) -> bool {
        !self.sections.is_empty()
    }

    pub fn data(&self, k: usize) -> Option<&[u8]> {
        self.sections.get(&k).map(|r| r.data.as_slice())
    }

    /// Where offset `off` of state section `k` went.
    pub fn offset(&self, k: usize, off: u64) -> u64 {
        let Some(r) = self.sections.get(&k) else { return off };
        r.moves
            .iter()
            .find(|&&(from, len, _)| (from..from + len).contains(&off))
            .map_or(off, |&(from, _, to)| to + (off - from))
    }
}

/// The bytes of a line table with each unit's sequences sorted by the
/// rank of the function each one's first relocation names, less the
/// sequences of weak functions their input lost (a `lost` record and no
/// live one: the unit's length shrinks and what follows moves up); None
/// when nothing moves. A unit that cannot be read, or has a sequence
/// without a ranked relocation that is not lost, keeps its sequences
/// where they are, and so does everything after a unit that cannot be
/// read.
fn reorder(data: &[u8], at: &[(u64, u32)], lost: &[u64]) -> Option<Reordered> {
    let mut out = Vec::with_capacity(data.len());
    let mut moves = Vec::new();
    // Copies data[a..b] to the end of `out`, noting the move.
    let copy = |out: &mut Vec<u8>, moves: &mut Vec<(u64, u64, u64)>, a: usize, b: usize| {
        if out.len() != a && b > a {
            moves.push((a as u64, (b - a) as u64, out.len() as u64));
        }
        out.extend_from_slice(&data[a..b]);
    };
    let within = |list: &[u64], a: usize, b: usize| {
        let i = list.partition_point(|&o| o < a as u64);
        list.get(i).is_some_and(|&o| o < b as u64)
    };
    let mut unit = 0usize;
    while let Some(u) = unit_at(data, unit) {
        let start = out.len();
        let plan = sequences(data, &u).and_then(|seqs| {
            // Per sequence: Some(rank) to keep, None to drop.
            let keys: Option<Vec<Option<u32>>> = seqs
                .iter()
                .map(|&(a, b)| {
                    let i = at.partition_point(|&(o, _)| o < a as u64);
                    match at.get(i).filter(|&&(o, _)| o < b as u64) {
                        Some(&(_, r)) => (r != 0).then_some(Some(r)),
                        None => within(lost, a, b).then_some(None),
                    }
                })
                .collect();
            Some((seqs, keys?))
        });
        match plan {
            Some((seqs, keys)) => {
                copy(&mut out, &mut moves, unit, u.body);
                let mut order: Vec<usize> = (0..seqs.len()).filter(|&i| keys[i].is_some()).collect();
                order.sort_by_key(|&i| keys[i]);
                // A unit that loses every sequence keeps a lone
                // DW_LNE_end_sequence (a file whose kernels dead-code
                // elimination removed: debug_line_dead_unit_sm120).
                let emptied = order.is_empty() && !seqs.is_empty();
                for i in order {
                    let (a, b) = seqs[i];
                    copy(&mut out, &mut moves, a, b);
                }
                if emptied {
                    out.extend_from_slice(&END_SEQUENCE);
                }
                if out.len() - start != u.end - unit {
                    let length = (out.len() - start - 4) as u32;
                    out[start..start + 4].copy_from_slice(&length.to_le_bytes());
                }
            }
            None => copy(&mut out, &mut moves, unit, u.end),
        }
        unit = u.end;
    }
    copy(&mut out, &mut moves, unit, data.len());
    // Sequences dropped at the end of the table move nothing but shrink it.
    (!moves.is_empty() || out.len() != data.len()).then_some(Reordered { data: out, moves })
}

/// Where each line program unit of a line table starts, as far as the
/// units can be read.
pub fn unit_starts(data: &[u8]) -> Vec<u64> {
    let mut starts = Vec::new();
    let mut unit = 0usize;
    while let Some(u) = unit_at(data, unit) {
        starts.push(unit as u64);
        unit = u.end;
    }
    starts
}

/// Where, in the line table `classic`, lies the header byte of its twin
/// `merc`'s byte `off`: the same place in the same unit's header (the
/// headers of the two tables are alike; their programs are not). None when
/// `off` is not in a header or the tables' units do not pair.
pub fn header_twin(merc: &[u8], classic: &[u8], off: u64) -> Option<u64> {
    let (mut m, mut c) = (0usize, 0usize);
    loop {
        let (mu, cu) = (unit_at(merc, m)?, unit_at(classic, c)?);
        if (m as u64..mu.end as u64).contains(&off) {
            let at = c as u64 + (off - m as u64);
            return (off < mu.body as u64 && at < cu.body as u64).then_some(at);
        }
        (m, c) = (mu.end, cu.end);
    }
}

/// The sequence of a line table that holds byte `off`: (where its unit
/// starts, where the sequence starts, where it ends).
pub fn sequence_at(data: &[u8], off: usize) -> Option<(usize, usize, usize)> {
    let mut unit = 0usize;
    while let Some(u) = unit_at(data, unit) {
        if (unit..u.end).contains(&off) {
            let (a, b) = sequences(data, &u)?.into_iter().find(|&(a, b)| (a..b).contains(&off))?;
            return Some((unit, a, b));
        }
        unit = u.end;
    }
    None
}

/// A line program unit: where its program starts and ends, and where its
/// header holds `opcode_base`.
struct Unit {
    body: usize,
    end: usize,
    opcode_base_at: usize,
}

/// The 32-bit DWARF 2–4 line program unit at `unit`.
fn unit_at(data: &[u8], unit: usize) -> Option<Unit> {
    let u32_at = |i: usize| Some(u32::from_le_bytes(data.get(i..i + 4)?.try_into().ok()?));
    let length = u32_at(unit)?;
    if length >= 0xffff_fff0 {
        return None;
    }
    let end = unit.checked_add(4 + length as usize).filter(|&e| e <= data.len())?;
    let version = u16::from_le_bytes(data.get(unit + 4..unit + 6)?.try_into().ok()?);
    if !(2..=4).contains(&version) {
        return None;
    }
    let body = (unit + 10)
        .checked_add(u32_at(unit + 6)? as usize)
        .filter(|&b| b <= end)?;
    // minimum_instruction_length, (v4) maximum_operations_per_instruction,
    // default_is_stmt, line_base, line_range, then opcode_base.
    let opcode_base_at = unit + 10 + if version >= 4 { 5 } else { 4 };
    (opcode_base_at < body).then_some(Unit {
        body,
        end,
        opcode_base_at,
    })
}

/// The sequences of `u`'s line program: byte ranges each ending after a
/// `DW_LNE_end_sequence`. None when the program cannot be read or has
/// bytes after its last sequence.
fn sequences(data: &[u8], u: &Unit) -> Option<Vec<(usize, usize)>> {
    let end = u.end;
    let opcode_base = *data.get(u.opcode_base_at)? as usize;
    let lengths = data.get(u.opcode_base_at + 1..u.opcode_base_at + opcode_base.max(1))?;
    let uleb = |i: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *data.get(*i).filter(|_| *i < end)?;
            *i += 1;
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
    };
    let mut seqs = Vec::new();
    let (mut i, mut start) = (u.body, u.body);
    while i < end {
        let op = data[i] as usize;
        i += 1;
        if op == 0 {
            let len = usize::try_from(uleb(&mut i)?).ok()?;
            let sub = *data.get(i).filter(|_| len > 0)?;
            i = i.checked_add(len).filter(|&x| x <= end)?;
            if sub == 1 {
                seqs.push((start, i));
                start = i;
            }
        } else if op == 9 && op < opcode_base {
            // DW_LNS_fixed_advance_pc: a uhalf, not a LEB128.
            i = i.checked_add(2).filter(|&x| x <= end)?;
        } else if op < opcode_base {
            for _ in 0..*lengths.get(op - 1)? {
                uleb(&mut i)?;
            }
        }
    }
    (start == end).then_some(seqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DWARF 3 unit (opcode_base 13) holding `seqs`.
    fn unit(seqs: &[&[u8]]) -> Vec<u8> {
        let header: Vec<u8> = [
            &[1u8, 1, 0xfb, 14, 13][..],
            &[0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1],
            &[0, 0],
        ]
        .concat();
        let body: Vec<u8> = seqs.concat();
        let mut u = Vec::new();
        u.extend_from_slice(&((2 + 4 + header.len() + body.len()) as u32).to_le_bytes());
        u.extend_from_slice(&3u16.to_le_bytes());
        u.extend_from_slice(&(header.len() as u32).to_le_bytes());
        u.extend_from_slice(&header);
        u.extend_from_slice(&body);
        u
    }

    /// set_address, a fixed_advance_pc whose uhalf looks like an extended
    /// opcode, a special opcode, end_sequence.
    fn seq(tag: u8) -> Vec<u8> {
        vec![0, 9, 2, tag, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0x20, 0, 1, 1]
    }

    #[test]
    fn sequences_move_into_symbol_order_and_units_stay() {
        let (a, b) = (seq(0xa), seq(0xb));
        let first = unit(&[&a]);
        let second = unit(&[&a, &b]);
        let data = [first.clone(), second.clone()].concat();
        let body = first.len() + second.len() - a.len() - b.len();
        // One record per set_address: the second unit's sequences rank 7, 5.
        let at = [(3, 1), (body as u64 + 3, 7), ((body + a.len()) as u64 + 3, 5)];
        assert_eq!(unit_starts(&data), vec![0, first.len() as u64]);
        let r = reorder(&data, &at, &[]).expect("the second unit's sequences swap");
        assert_eq!(&r.data[..body], &data[..body]);
        assert_eq!(&r.data[body..], [b.clone(), a.clone()].concat().as_slice());
        let order = LineOrder {
            sections: [(4, r)].into_iter().collect(),
        };
        assert_eq!(order.offset(4, body as u64 + 3), (body + b.len()) as u64 + 3);
        assert_eq!(order.offset(4, 3), 3);
        // A sequence without a ranked record leaves its unit alone.
        assert!(reorder(&data, &at[..2], &[]).is_none());
    }
}
