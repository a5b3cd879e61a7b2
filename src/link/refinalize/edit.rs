//! Editing an input cubin in place, before the merge, as nvlink's
//! finalizer leaves a function whose code it shortened or wrote anew
//! (`shrink::Moves`): the code and its size, the function's symbols, the
//! relocations that patch it or point into it, the instruction offsets of
//! its `.nv.info.<f>` and its `.debug_frame` entry, and its Mercury
//! capsule (the finalizer's). The Mercury side (relocations, `.nv.merc.*`)
//! counts in capsule offsets and does not move. Every step is checked
//! against the finalizer's own output; a function whose check fails keeps
//! ptxas's code (the caller drops the bytes).

use crate::cubin::consts::{SHT_CUDA_INFO, SHT_NOBITS, SHT_REL, SHT_RELA, SHT_SYMTAB};
use crate::cubin::model::Cubin;
use crate::cubin::nvinfo::{self, Block, IndirectBranch, MbarrierInstr, NvInfo};

use super::shrink::{Moves, Shrink, word};
use crate::link::frame_edit::{WIDE_CIE_POINTER, WIDE_INITIAL_LOCATION, fde_at_initial_location, frame_records};

/// The instruction-offset lists of `.nv.info.<f>` (one 32-bit code offset
/// per word): EXIT, S2RCTAID, LD_CACHEMOD, ATOM_SYS, COOP_GROUP,
/// ATOMF16_EMUL, INT_WARP_WIDE, IGNOREOOB_CP_ASYNC_BULK.
const OFFSET_LISTS: &[u8] = &[0x1c, 0x1d, 0x25, 0x27, 0x28, 0x2d, 0x31, 0x65];
/// The (code offset, value) pair lists of `.nv.info.<f>`:
/// ATOM16_EMUL_INSTR_REG_MAP (offset, register: a 16-bit `atomicCAS`)
/// and UNUSED_LOAD_BYTE_OFFSET (offset, mask of the bytes used: a vector
/// load partly used). nvlink moves the offsets with the code and keeps
/// the values (pair_offsets_fence_sm100, pair_offsets_fence_sm120).
const PAIR_LISTS: &[u8] = &[0x2e, 0x44];
/// EIATTR_INDIRECT_BRANCH_TARGETS: per `BRX`, its offset, a reserved
/// word, the number of targets and the targets' offsets.
const BRANCH_TARGETS: u8 = 0x34;
/// EIATTR_ANNOTATIONS: (kind, offset) pairs where no kind is 2 to 5 (those
/// have longer records).
const ANNOTATIONS: u8 = 0x55;
/// EIATTR_MBARRIER_INSTR_OFFSETS: 4-word records, the offset first.
const MBARRIER: u8 = 0x39;
/// Attributes whose code offsets move where the finalizer shortens the
/// code (`moved`).
const MOVED: &[u8] = &[BRANCH_TARGETS, ANNOTATIONS, MBARRIER];
/// Attributes that hold code offsets in another layout (BINDLESS_IMAGE,
/// COROUTINE_RESUME_ID, SYSCALL, STACK_CANARY_TRAP, LOCAL_CTA_ASYNC_STORE,
/// INSTR_OFFSETS; the `MOVED` ones where the code is written anew): a
/// function that has one keeps its code unless every offset keeps its
/// place.
const UNMOVED: &[u8] = &[0x14, 0x3a, 0x46, 0x57, 0x59, 0x6c];
/// What an edit says when the input's own headers do not hold.
const BAD: &str = "the input's headers do not hold";
/// Where a 64-bit FDE's program starts (after the length, CIE pointer,
/// initial location and address range).
const PROGRAM: usize = WIDE_INITIAL_LOCATION as usize + 16;
/// R_CUDA_64: an FDE's initial location.
const R_CUDA_64: u32 = 2;

/// Input bytes being edited: the parsed input and where its sections and
/// section headers are.
pub struct Editor<'a> {
    pub cubin: &'a Cubin<'a>,
    pub offsets: &'a [u64],
    pub data: &'a mut Vec<u8>,
}

impl Editor<'_> {
    /// Writes the offset field of the relocation at `entry` bytes into
    /// relocation section `r`.
    pub fn put_record_offset(&mut self, r: usize, entry: u64, offset: u64) -> Result<(), String> {
        let at = self.offsets.get(r).ok_or(BAD)? + entry;
        self.put(at, &offset.to_le_bytes()).ok_or_else(|| BAD.into())
    }

    /// Gives section `i` the bytes `new`: where it was when they fit,
    /// else at the end of the file.
    pub fn replace_section(&mut self, i: usize, new: &[u8]) -> Result<(), String> {
        let old = self.cubin.sections.get(i).ok_or(BAD)?.data.len();
        let header = self.header(i).ok_or(BAD)?;
        let at = if new.len() <= old {
            *self.offsets.get(i).ok_or(BAD)?
        } else {
            let at = self.data.len().next_multiple_of(8);
            self.data.resize(at + new.len(), 0);
            self.put(header + 0x18, &(at as u64).to_le_bytes()).ok_or(BAD)?;
            at as u64
        };
        self.put(at, new).ok_or(BAD)?;
        self.put(header + 0x20, &(new.len() as u64).to_le_bytes())
            .ok_or_else(|| BAD.into())
    }

    /// Writes `bytes` at file offset `at`; None when they do not fit.
    pub(super) fn put(&mut self, at: u64, bytes: &[u8]) -> Option<()> {
        let at = usize::try_from(at).ok()?;
        self.data
            .get_mut(at..at.checked_add(bytes.len())?)?
            .copy_from_slice(bytes);
        Some(())
    }

    /// Where section header `i` is.
    fn header(&self, i: usize) -> Option<u64> {
        let shoff = word(self.data, 0x28);
        let entsize = u16::from_le_bytes(self.data.get(0x3a..0x3c)?.try_into().ok()?);
        shoff.checked_add((i as u64).checked_mul(u64::from(entsize))?)
    }

    /// Applies `moves` to function section `text`, whose code becomes
    /// `new_code` (from section `.text.<f>` of the finalizer's output
    /// `fin`): every edit, or Err with nothing to trust (the caller drops
    /// the bytes) when a check fails.
    pub fn relayout(&mut self, text: usize, moves: &Moves, new_code: &[u8], fin: &Cubin<'_>) -> Result<(), String> {
        let c = self.cubin;
        let sec = c.sections.get(text).ok_or("no such section")?;
        let name = sec.name.strip_prefix(".text.").ok_or("not a function's code")?;
        let (old_len, new_len) = (sec.data.len() as u64, new_code.len() as u64);
        let place = |off: u64| moves.place(off, old_len, new_len);
        let unplaced = || "an offset into it has no place in the new code".to_string();
        // The code and its size.
        let at = *self.offsets.get(text).ok_or(BAD)?;
        if new_len > old_len {
            self.replace_section(text, new_code)?;
        } else {
            self.put(at, new_code).ok_or(BAD)?;
            let size_at = self.header(text).ok_or(BAD)? + 0x20;
            self.put(size_at, &new_len.to_le_bytes()).ok_or(BAD)?;
        }
        // Symbols in the function: value and size.
        let symtab = c.sections.iter().position(|x| x.sh_type == SHT_SYMTAB).ok_or(BAD)?;
        let symtab_at = *self.offsets.get(symtab).ok_or(BAD)?;
        for (k, y) in c.symbols.iter().enumerate() {
            if y.shndx as usize != text || k == 0 {
                continue;
            }
            let v = place(y.value).ok_or_else(unplaced)?;
            let e = place(y.value.saturating_add(y.size)).ok_or_else(unplaced)?;
            let at = symtab_at + k as u64 * 24;
            self.put(at + 8, &v.to_le_bytes()).ok_or(BAD)?;
            self.put(at + 16, &(e - v).to_le_bytes()).ok_or(BAD)?;
        }
        // The function symbol's size is the finalizer's.
        let (_, f) = fin
            .symbol_by_name(name)
            .ok_or("the finalizer's output has no such symbol")?;
        if new_len != f.size {
            return Err(format!(
                "its size would be {new_len:#x}, the finalizer's is {:#x}",
                f.size
            ));
        }
        // Relocations: those that patch the function move; those against
        // a place in it (section symbol + addend) follow it.
        for (r, rs) in c.sections.iter().enumerate() {
            if !matches!(rs.sh_type, SHT_REL | SHT_RELA) || rs.name.starts_with(".nv.merc.") {
                continue;
            }
            let entsize: u64 = if rs.sh_type == SHT_RELA { 24 } else { 16 };
            let base = *self.offsets.get(r).ok_or(BAD)?;
            let symbols = c.symbols_for(rs);
            for (k, x) in rs.relocs.iter().enumerate() {
                let at = base + k as u64 * entsize;
                if rs.info as usize == text {
                    let to = moves.instruction(x.offset).ok_or_else(unplaced)?;
                    self.put(at, &to.to_le_bytes()).ok_or(BAD)?;
                }
                let y = symbols.get(x.sym as usize).ok_or(BAD)?;
                if rs.sh_type == SHT_RELA && y.shndx as usize == text && x.addend != 0 {
                    let from = y.value.wrapping_add(x.addend as u64);
                    let (a, b) = (place(from).ok_or_else(unplaced)?, place(y.value).ok_or_else(unplaced)?);
                    self.put(at + 16, &(a.wrapping_sub(b) as i64).to_le_bytes())
                        .ok_or(BAD)?;
                }
            }
        }
        self.nv_info(text, moves, fin)?;
        if let Moves::Shrunk(s) = moves {
            self.jump_tables(text, name, s)?;
        }
        self.frame(text, moves, new_len, fin)
            .ok_or("its .debug_frame entry cannot be moved")?;
        self.capsule(name, fin)
    }

    /// `.nv.info.<f>`'s instruction-offset lists, which must then be the
    /// finalizer's.
    fn nv_info(&mut self, text: usize, moves: &Moves, fin: &Cubin<'_>) -> Result<(), String> {
        let c = self.cubin;
        let Some(i) = c
            .sections
            .iter()
            .position(|x| x.sh_type == SHT_CUDA_INFO && x.info as usize == text)
        else {
            return Ok(());
        };
        let sec = &c.sections[i];
        let mut info = NvInfo::decode(&sec.data).map_err(|e| e.to_string())?;
        let theirs = fin
            .section_by_name(&sec.name)
            .and_then(|(_, x)| NvInfo::decode(&x.data).ok());
        let their_words = |attr: u8| {
            theirs
                .as_ref()
                .and_then(|t| t.find(attr).next().and_then(|x| x.block().map(|b| b.words())))
        };
        for e in &mut info.entries {
            if MOVED.contains(&e.attr)
                && let Moves::Shrunk(s) = moves
            {
                let block = e
                    .block()
                    .and_then(|b| moved(e.attr, b, s))
                    .ok_or_else(|| format!("its {} does not decode", e.attr_name()))?;
                e.value = nvinfo::Value::Block(block);
                continue;
            }
            let Some(stride) = offset_stride(e.attr) else {
                continue;
            };
            let Some(old) = e.block().map(|b| b.words()) else {
                continue;
            };
            let is_offset = |k: usize| k.is_multiple_of(stride);
            let words: Vec<u32> = match moves {
                Moves::Shrunk(s) => old
                    .iter()
                    .enumerate()
                    .map(|(k, &w)| if is_offset(k) { s.map(u64::from(w)) as u32 } else { w })
                    .collect(),
                // Code written anew: the finalizer's list, of as many
                // offsets (and the same values beside them).
                Moves::Rewritten { .. } => their_words(e.attr)
                    .filter(|w| w.len() == old.len() && (0..w.len()).all(|k| is_offset(k) || w[k] == old[k]))
                    .ok_or_else(|| format!("its {} has no counterpart", e.attr_name()))?,
            };
            *e = nvinfo::Entry::sval_words(e.attr, &words);
        }
        for e in &info.entries {
            let in_place = matches!(moves, Moves::Rewritten { in_place: true, .. });
            let shrunk = matches!(moves, Moves::Shrunk(_));
            let moved_here = MOVED.contains(&e.attr);
            if (UNMOVED.contains(&e.attr) || moved_here && !shrunk) && !in_place {
                return Err(format!("its .nv.info has {}, not moved", e.attr_name()));
            }
            let found = theirs.as_ref().and_then(|t| t.find(e.attr).next());
            if (offset_stride(e.attr).is_some() || moved_here)
                && found.is_some_and(|t| t.block().map(|b| b.words()) != e.block().map(|b| b.words()))
            {
                return Err(format!("its {} would not be the finalizer's", e.attr_name()));
            }
        }
        let bytes = info.encode();
        let at = *self.offsets.get(i).ok_or(BAD)?;
        if bytes.len() != sec.data.len() {
            return Err("its .nv.info would change size".into());
        }
        self.put(at, &bytes).ok_or_else(|| BAD.into())
    }

    /// The jump tables of the function's `.nv.constant2.<f>`: objects
    /// whose every word is a target of its `BRX`s
    /// (EIATTR_INDIRECT_BRANCH_TARGETS) hold code offsets with no
    /// relocation, which move with the code (ptxas 13.0's `switch`es in
    /// NVSHMEM's put-with-signal: observation 147).
    fn jump_tables(&mut self, text: usize, name: &str, s: &Shrink) -> Result<(), String> {
        let c = self.cubin;
        let Some(info) = c
            .sections
            .iter()
            .find(|x| x.sh_type == SHT_CUDA_INFO && x.info as usize == text)
            .and_then(|x| NvInfo::decode(&x.data).ok())
        else {
            return Ok(());
        };
        let targets: std::collections::HashSet<u32> = info
            .find(BRANCH_TARGETS)
            .filter_map(|e| match e.block() {
                Some(Block::IndirectBranchTargets { branches }) => Some(branches),
                _ => None,
            })
            .flatten()
            .flat_map(|b| b.targets.iter().copied())
            .collect();
        let Some((bank, sec)) = c.section_by_name(&format!(".nv.constant2.{name}")) else {
            return Ok(());
        };
        if targets.is_empty() || sec.sh_type == SHT_NOBITS {
            return Ok(());
        }
        let at = *self.offsets.get(bank).ok_or(BAD)?;
        for y in c.symbols.iter().filter(|y| y.shndx as usize == bank && y.size > 0) {
            let (lo, hi) = (y.value as usize, y.value.saturating_add(y.size) as usize);
            let Some(object) = sec.data.get(lo..hi).filter(|o| o.len().is_multiple_of(4)) else {
                continue;
            };
            let words: Vec<u32> = object
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
            if !words.iter().all(|w| targets.contains(w)) {
                continue;
            }
            for (k, w) in words.iter().enumerate() {
                let moved = u32::try_from(s.map(u64::from(*w))).map_err(|_| BAD)?;
                self.put(at + (lo + 4 * k) as u64, &moved.to_le_bytes()).ok_or(BAD)?;
            }
        }
        Ok(())
    }

    /// The function's `.debug_frame` entry: its address range becomes the
    /// new size and each advance of its program moves with the code.
    fn frame(&mut self, text: usize, moves: &Moves, new_size: u64, fin: &Cubin<'_>) -> Option<()> {
        let c = self.cubin;
        let Some((fi, frame)) = c.section_by_name(".debug_frame") else {
            return Some(());
        };
        let frame_at = *self.offsets.get(fi)?;
        let starts = initial_locations(c, fi, &|y| y.shndx as usize == text);
        let d = &frame.data;
        let records = frame_records(d);
        for loc in starts {
            // A 64-bit FDE: length, CIE pointer, initial location (here),
            // address range, program.
            let rec = records[fde_at_initial_location(&records, loc)?];
            let (fde, end) = (rec.offset as usize, (rec.offset + rec.size) as usize);
            let cie = usize::try_from(word(d, fde + WIDE_CIE_POINTER as usize)).ok()?;
            let align = code_alignment(d, cie)?;
            self.put(frame_at + loc + 8, &new_size.to_le_bytes())?;
            match moves {
                Moves::Shrunk(s) => {
                    for (at, how, new) in advances(d.get(..end)?, fde + PROGRAM, align, s)? {
                        let at = frame_at + at as u64;
                        match how {
                            Delta::Packed => self.put(at, &[0x40 | new as u8])?,
                            Delta::Bytes(w) => self.put(at, &new.to_le_bytes()[..w])?,
                        }
                    }
                }
                // Code written anew: the finalizer's program, of as many bytes.
                Moves::Rewritten { .. } => {
                    let name = c.sections.get(text)?.name.strip_prefix(".text.")?;
                    let theirs = fde_program(fin, name)?;
                    if theirs.len() != end - (fde + PROGRAM) {
                        return None;
                    }
                    self.put(frame_at + (fde + PROGRAM) as u64, &theirs)?;
                }
            }
        }
        Some(())
    }

    /// The Mercury capsule: the finalizer's bytes.
    fn capsule(&mut self, name: &str, fin: &Cubin<'_>) -> Result<(), String> {
        let capsule = format!(".nv.capmerc.text.{name}");
        let Some((i, own)) = self.cubin.section_by_name(&capsule) else {
            return Ok(());
        };
        let (_, theirs) = fin
            .section_by_name(&capsule)
            .ok_or("the finalizer's output has no capsule")?;
        if theirs.data != own.data {
            self.replace_section(i, &theirs.data)?;
        }
        Ok(())
    }
}

/// Every how many words attribute `attr` holds a code offset, the first
/// word being one: 1 for `OFFSET_LISTS`, 2 for `PAIR_LISTS`.
fn offset_stride(attr: u8) -> Option<usize> {
    [(OFFSET_LISTS, 1), (PAIR_LISTS, 2)]
        .into_iter()
        .find_map(|(list, stride)| list.contains(&attr).then_some(stride))
}

/// The decoded block of attribute `attr` (one of `MOVED`) with its code
/// offsets moved as `s` moves the code; None when it did not decode (or,
/// for EIATTR_ANNOTATIONS, has a kind 2 to 5, whose records are longer).
fn moved(attr: u8, block: &Block, s: &Shrink) -> Option<Block> {
    let at = |o: u32| u32::try_from(s.map(u64::from(o))).ok();
    match (attr, block) {
        (BRANCH_TARGETS, Block::IndirectBranchTargets { branches }) => {
            let branches = branches
                .iter()
                .map(|b| {
                    Some(IndirectBranch {
                        offset: at(b.offset)?,
                        reserved: b.reserved,
                        targets: b.targets.iter().map(|&t| at(t)).collect::<Option<_>>()?,
                    })
                })
                .collect::<Option<_>>()?;
            Some(Block::IndirectBranchTargets { branches })
        }
        (MBARRIER, Block::MbarrierInstrs { instrs }) => {
            let instrs = instrs
                .iter()
                .map(|m| {
                    Some(MbarrierInstr {
                        offset: at(m.offset)?,
                        ..*m
                    })
                })
                .collect::<Option<_>>()?;
            Some(Block::MbarrierInstrs { instrs })
        }
        (ANNOTATIONS, b) => {
            let mut words = b.words();
            if !words.len().is_multiple_of(2) {
                return None;
            }
            for pair in words.chunks_exact_mut(2) {
                if (2..=5).contains(&pair[0]) {
                    return None;
                }
                pair[1] = at(pair[1])?;
            }
            Some(Block::Words { words })
        }
        _ => None,
    }
}

/// Where the FDEs of `.debug_frame` (section `fi` of `c`) hold the initial
/// location of a function `which` accepts: the offsets of their R_CUDA_64
/// records.
fn initial_locations(c: &Cubin<'_>, fi: usize, which: &dyn Fn(&crate::cubin::model::Symbol) -> bool) -> Vec<u64> {
    c.sections
        .iter()
        .filter(|r| matches!(r.sh_type, SHT_RELA | SHT_REL) && r.info as usize == fi)
        .flat_map(|r| {
            let symbols = c.symbols_for(r);
            r.relocs
                .iter()
                .filter(move |x| x.rtype == R_CUDA_64 && symbols.get(x.sym as usize).is_some_and(which))
                .map(|x| x.offset)
        })
        .collect()
}

/// The call-frame program of function `name`'s FDE in `c`'s `.debug_frame`
/// (after its address range), found by the R_CUDA_64 record against it.
fn fde_program(c: &Cubin<'_>, name: &str) -> Option<Vec<u8>> {
    let (fi, frame) = c.section_by_name(".debug_frame")?;
    let loc = *initial_locations(c, fi, &|y| y.name == name).first()?;
    let records = frame_records(&frame.data);
    let rec = records[fde_at_initial_location(&records, loc)?];
    frame
        .data
        .get(rec.offset as usize + PROGRAM..(rec.offset + rec.size) as usize)
        .map(<[u8]>::to_vec)
}

/// The code alignment factor of the 64-bit CIE at `cie`.
fn code_alignment(d: &[u8], cie: usize) -> Option<u64> {
    if d.get(cie..cie + 4)? != [0xff; 4] || word(d, cie + 12) != u64::MAX {
        return None;
    }
    // Version, a NUL-terminated augmentation, then the factor.
    let mut i = cie + 21;
    while *d.get(i)? != 0 {
        i += 1;
    }
    uleb(d, &mut i.checked_add(1)?)
}

fn uleb(d: &[u8], i: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *d.get(*i)?;
        *i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Where an advance's delta is written: in the low six bits of its
/// opcode (`DW_CFA_advance_loc`), or in the 1, 2 or 4 bytes after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delta {
    Packed,
    Bytes(usize),
}

/// The advances of a call-frame program from `i` to the end of `d`, each
/// as (where its delta is, how it is written, the new delta) once the
/// location it reaches has moved by `s`; None for an operation this reader
/// does not know or a delta that no longer fits.
fn advances(d: &[u8], mut i: usize, align: u64, s: &Shrink) -> Option<Vec<(usize, Delta, u64)>> {
    let align = align.max(1);
    let (mut old_loc, mut new_loc) = (0u64, 0u64);
    let mut out = Vec::new();
    while i < d.len() {
        let op = d[i];
        i += 1;
        let advance = match (op >> 6, op) {
            (1, _) => Some((i - 1, Delta::Packed, u64::from(op & 0x3f))),
            (2, _) => {
                uleb(d, &mut i)?;
                None
            }
            (3, _) | (_, 0x00 | 0x0a | 0x0b) => None,
            (_, 0x02..=0x04) => {
                let width = [1, 2, 4][usize::from(op - 2)];
                let delta = d
                    .get(i..i + width)?
                    .iter()
                    .rev()
                    .fold(0u64, |v, &b| v << 8 | u64::from(b));
                i += width;
                Some((i - width, Delta::Bytes(width), delta))
            }
            (_, 0x05 | 0x09 | 0x0c | 0x14 | 0x11 | 0x12 | 0x15) => {
                uleb(d, &mut i)?;
                uleb(d, &mut i)?;
                None
            }
            (_, 0x06..=0x08 | 0x0d | 0x0e | 0x13) => {
                uleb(d, &mut i)?;
                None
            }
            (_, 0x0f | 0x10 | 0x16) => {
                if op != 0x0f {
                    uleb(d, &mut i)?;
                }
                let n = uleb(d, &mut i)?;
                i = i.checked_add(usize::try_from(n).ok()?)?;
                None
            }
            _ => return None,
        };
        let Some((at, how, delta)) = advance else { continue };
        old_loc = old_loc.checked_add(delta.checked_mul(align)?)?;
        let moved = s.map(old_loc);
        let new = moved.checked_sub(new_loc)? / align;
        new_loc = moved;
        let limit = match how {
            Delta::Packed => 0x3f,
            Delta::Bytes(w) => (1u64 << (8 * w)) - 1,
        };
        if new > limit {
            return None;
        }
        out.push((at, how, new));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code of 0x60 bytes whose instruction at 0x20 goes (two NOPs of
    /// padding laid out again): offsets from 0x30 on move up by 0x10.
    fn shrink() -> Shrink {
        let nop = [0x18u8, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let op = |b: u8| {
            let mut i = [0u8; 16];
            i[0] = b;
            i[1] = 0x72;
            i
        };
        let lds = 0x0000_0000_ffff_f984u64.to_le_bytes();
        let mut dummy = [0u8; 16];
        dummy[..8].copy_from_slice(&lds);
        dummy[8..].copy_from_slice(&0x800u64.to_le_bytes());
        let code: Vec<u8> = [op(1), op(2), dummy, op(3)]
            .into_iter()
            .chain(std::iter::repeat_n(nop, 12))
            .flatten()
            .collect();
        let fin: Vec<u8> = [op(1), op(2), op(3)]
            .into_iter()
            .chain(std::iter::repeat_n(nop, 13))
            .flatten()
            .collect();
        super::super::shrink::plan(&code, &fin, &[]).unwrap()
    }

    #[test]
    fn branch_targets_annotations_and_mbarriers_move_with_the_code() {
        let s = shrink();
        let decoded = |attr: u8, words: &[u32]| nvinfo::Entry::sval_words(attr, words).block().cloned().unwrap();
        let words = |b: Option<Block>| b.map(|b| b.words());
        // A BRX at 0x10 with targets 0x0, 0x30, 0x40.
        let brx = decoded(BRANCH_TARGETS, &[0x10, 0, 3, 0x0, 0x30, 0x40]);
        assert_eq!(
            words(moved(BRANCH_TARGETS, &brx, &s)),
            Some(vec![0x10, 0, 3, 0x0, 0x20, 0x30])
        );
        let short = decoded(BRANCH_TARGETS, &[0x10, 0, 5, 0x0]);
        assert_eq!(moved(BRANCH_TARGETS, &short, &s), None);
        // SpillRefill annotations (kind 1) at 0x10 and 0x30.
        let spills = decoded(ANNOTATIONS, &[1, 0x10, 1, 0x30]);
        assert_eq!(words(moved(ANNOTATIONS, &spills, &s)), Some(vec![1, 0x10, 1, 0x20]));
        assert_eq!(moved(ANNOTATIONS, &decoded(ANNOTATIONS, &[2, 0x10]), &s), None);
        // An mbarrier instruction at 0x30 (register, immediate, kind word).
        let mbar = decoded(MBARRIER, &[0x30, 0xff, 0, 0x0006_0100]);
        assert_eq!(
            words(moved(MBARRIER, &mbar, &s)),
            Some(vec![0x20, 0xff, 0, 0x0006_0100])
        );
    }
}
