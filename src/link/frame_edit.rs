//! What nvlink does to an sm_100+ input's classic `.debug_frame` around weak
//! functions, before the section is merged (nvlink 13.5, corpus
//! arch_sm100_smoke, arch_sm120_smoke, weak_func_vsm_low_first_sm100,
//! weak_func_regs_unequal_fewer_second_sm120):
//!
//! - the FDE of a weak definition that lost, and the CIE right before it,
//!   are left out ([`Fate::Lost`]);
//! - for a weak or global definition that won over an earlier input's weak
//!   one (weak_vs_global_func_sm100), the CIE right
//!   before its FDE becomes the CIE of its `.nv.merc.debug_frame` FDE (same
//!   rank), and the FDE keeps only its header: CIE pointer, initial location,
//!   the Mercury FDE's address range, then four zero bytes, length 0x1c
//!   ([`Fate::Won`]); the earlier input's FDE takes this classic FDE's body
//!   instead (`merge` does that part, in the output section).
//!
//! After dead-code elimination, an sm_100+ final link drops the FDEs (and
//! their CIEs) of the removed functions from the output section the same
//! way ([`drop_dead_frames`]).
//!
//! sm_90 and older inputs are merged as they are. Only 64-bit DWARF records
//! (what ptxas writes) are rewritten. The `.debug_frame` record reader
//! ([`frame_records`]) lives here too, for `merge` and for these edits.

use crate::cubin::consts::{STT_FUNC, STT_SECTION};

use super::state::{LinkState, Place};

/// Offset of an FDE's CIE pointer and initial location in a 64-bit record.
pub const WIDE_CIE_POINTER: u64 = 12;
pub const WIDE_INITIAL_LOCATION: u64 = 20;
/// Length field of the header-only FDE nvlink writes for a winner.
const HEADER_ONLY_LENGTH: u64 = 0x1c;

/// What happens to a weak function's FDE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Lost,
    Won,
}

/// The rewritten section and where each old offset went.
#[derive(Debug, Clone, Default)]
pub struct FrameEdit {
    pub data: Vec<u8>,
    /// (old start, old size, new start, new size) of each record kept.
    moves: Vec<(u64, u64, u64, u64)>,
}

impl FrameEdit {
    /// Where byte `off` of the old section is now; None when it was left out.
    pub fn map(&self, off: u64) -> Option<u64> {
        self.moves
            .iter()
            .find(|&&(start, size, ..)| off >= start && off < start + size)
            .and_then(|&(start, _, to, new_size)| (off - start < new_size).then_some(to + off - start))
    }

    /// Where an old record boundary (a CIE's offset, or the end) is now.
    pub fn map_boundary(&self, off: u64) -> u64 {
        self.map(off)
            .or_else(|| self.moves.iter().find(|m| m.0 >= off).map(|m| m.2))
            .unwrap_or(self.data.len() as u64)
    }
}

/// The FDE whose initial location is at byte `at` of the section.
/// The section of a `.debug_frame` relocation whose record the edit
/// removed: none, so that nothing patches or clears it; the output's
/// string tables still name `.rela.debug_frame` where nvlink met it
/// (`emit::NameIndex`).
pub const DROPPED_RECORD: usize = usize::MAX;

pub fn fde_at_initial_location(records: &[FrameRecord], at: u64) -> Option<usize> {
    records
        .iter()
        .position(|r| !r.cie && r.wide && r.offset + WIDE_INITIAL_LOCATION == at)
}

fn dword(d: &[u8], at: u64) -> u64 {
    d.get(at as usize..at as usize + 8)
        .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

/// Rewrites `classic` given the fate of some of its FDEs (by record index);
/// `merc` is the input's `.nv.merc.debug_frame`. None when nothing changes.
pub fn edit(classic: &[u8], merc: &[u8], fates: &[(usize, Fate)]) -> Option<FrameEdit> {
    if fates.is_empty() {
        return None;
    }
    let recs = frame_records(classic);
    let mrecs = frame_records(merc);
    let mfdes: Vec<&FrameRecord> = mrecs.iter().filter(|r| !r.cie).collect();
    // Only FDEs have fates.
    let fate = |k: usize| {
        fates
            .iter()
            .find(|f| f.0 == k && recs.get(k).is_some_and(|r| !r.cie))
            .map(|f| f.1)
    };
    // The rank of FDE `k` among the FDEs (its Mercury twin has the same).
    let rank = |k: usize| recs[..=k].iter().filter(|x| !x.cie).count().checked_sub(1);
    // The CIE right before an FDE with a fate, if the FDE is its only user.
    let own_cie = |k: usize| (k > 0 && recs[k - 1].cie && recs.get(k + 1).is_none_or(|n| n.cie)).then(|| k - 1);
    let mut out = FrameEdit::default();
    let mut k = 0;
    while k < recs.len() {
        let r = recs[k];
        let next_fate = recs.get(k + 1).and(fate(k + 1)).filter(|_| own_cie(k + 1) == Some(k));
        let bytes: Option<Vec<u8>> = match (fate(k), next_fate) {
            (_, Some(Fate::Lost)) | (Some(Fate::Lost), _) => None,
            (_, Some(Fate::Won)) => {
                // The CIE of the Mercury FDE of the same rank.
                let mcie = rank(k + 1).and_then(|n| mfdes.get(n)).and_then(|f| {
                    let ptr = dword(merc, f.offset + WIDE_CIE_POINTER);
                    mrecs.iter().find(|c| c.cie && c.offset == ptr)
                });
                Some(match mcie {
                    Some(c) if c.size == r.size => merc[c.offset as usize..(c.offset + c.size) as usize].to_vec(),
                    _ => classic[r.offset as usize..(r.offset + r.size) as usize].to_vec(),
                })
            }
            (Some(Fate::Won), _) if r.wide && r.size >= WIDE_INITIAL_LOCATION + 16 => {
                let range = rank(k)
                    .and_then(|n| mfdes.get(n))
                    .map_or(0, |f| dword(merc, f.offset + WIDE_INITIAL_LOCATION + 8));
                let mut b = Vec::with_capacity(12 + HEADER_ONLY_LENGTH as usize);
                b.extend_from_slice(&u32::MAX.to_le_bytes());
                b.extend_from_slice(&HEADER_ONLY_LENGTH.to_le_bytes());
                let head = (r.offset + WIDE_CIE_POINTER) as usize;
                b.extend_from_slice(&classic[head..head + 16]);
                b.extend_from_slice(&range.to_le_bytes());
                b.extend_from_slice(&[0; 4]);
                Some(b)
            }
            _ => Some(classic[r.offset as usize..(r.offset + r.size) as usize].to_vec()),
        };
        if let Some(b) = bytes {
            out.moves
                .push((r.offset, r.size, out.data.len() as u64, b.len() as u64));
            out.data.extend_from_slice(&b);
        }
        k += 1;
    }
    // Bytes after the last well-formed record stay.
    let end = recs.last().map_or(0, |r| r.offset + r.size) as usize;
    if end < classic.len() {
        out.moves.push((
            end as u64,
            (classic.len() - end) as u64,
            out.data.len() as u64,
            (classic.len() - end) as u64,
        ));
        out.data.extend_from_slice(&classic[end..]);
    }
    Some(out)
}

/// sm_100+ final links: the classic `.debug_frame` loses the FDE (and the
/// CIE right before it) of every function dead-code elimination removed,
/// as a lost weak definition's (kernels_used_sm100; sm_90 keeps them).
/// Moves the section's relocations, its inputs' contributions and the CIE
/// pointers with it; the removed FDEs' own relocations go. Returns the
/// number of FDEs left out.
pub fn drop_dead_frames(st: &mut LinkState) -> usize {
    if st.mercury.is_empty() {
        return 0;
    }
    let Some(df) = st.section_named(".debug_frame").filter(|&k| !st.sections[k].removed) else {
        return 0;
    };
    let data = st.sections[df].data.clone();
    let recs = frame_records(&data);
    let fates: Vec<(usize, Fate)> = st
        .relocs
        .iter()
        .filter(|r| r.section == df)
        .filter(|r| st.symbol(r.sym).is_some_and(|s| s.removed && s.sym_type == STT_FUNC))
        .filter_map(|r| fde_at_initial_location(&recs, r.offset))
        .map(|k| (k, Fate::Lost))
        .collect();
    let Some(edit) = edit(&data, &[], &fates) else {
        return 0;
    };
    // Where each input's part started, before and after.
    let bases: Vec<(usize, u64, u64)> = st.sections[df]
        .contributions
        .iter()
        .map(|c| (c.input, c.offset, edit.map_boundary(c.offset)))
        .collect();
    let base = |input: usize| bases.iter().find(|b| b.0 == input).map(|b| (b.1, b.2));
    for i in 0..st.relocs.len() {
        let r = st.relocs[i];
        if r.section != df {
            continue;
        }
        match edit.map(r.offset) {
            Some(o) => st.relocs[i].offset = o,
            None => {
                // Its record is gone: nothing to patch or clear any more.
                st.relocs[i].live = false;
                st.relocs[i].section = DROPPED_RECORD;
                continue;
            }
        }
        // A CIE pointer (against `.debug_frame` itself) follows its CIE.
        let own = st
            .symbol(r.sym)
            .is_some_and(|s| s.sym_type == STT_SECTION && s.place == Place::Section(df));
        if own && let Some((old, new)) = base(r.input) {
            let target = old.wrapping_add(r.addend as u64);
            st.relocs[i].addend = edit.map_boundary(target).wrapping_sub(new) as i64;
        }
    }
    for c in st.sections[df].contributions.iter_mut() {
        c.offset = edit.map_boundary(c.offset);
    }
    for m in st.maps.iter_mut() {
        for (k, &out) in m.map_section_index.iter().enumerate() {
            if out as usize == df
                && let Some(o) = m.map_section_offset.get_mut(k)
            {
                *o = edit.map_boundary(*o);
            }
        }
    }
    let sec = &mut st.sections[df];
    sec.size = edit.data.len() as u64;
    sec.data = edit.data;
    fates.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit CIE of `body_len` bytes after the id, its code alignment `ca`.
    fn cie(ca: u8) -> Vec<u8> {
        let mut b = u32::MAX.to_le_bytes().to_vec();
        b.extend_from_slice(&0x14u64.to_le_bytes());
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        b.extend_from_slice(&[3, 0, ca, 0x7c, 0, 0, 0, 0, 0, 0, 0, 0]);
        b
    }

    fn fde(cie_at: u64, range: u64, insns: &[u8]) -> Vec<u8> {
        let mut b = u32::MAX.to_le_bytes().to_vec();
        b.extend_from_slice(&(24 + insns.len() as u64).to_le_bytes());
        b.extend_from_slice(&cie_at.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&range.to_le_bytes());
        b.extend_from_slice(insns);
        b
    }

    fn two_functions(ca: u8, ranges: [u64; 2]) -> Vec<u8> {
        let mut d = cie(ca);
        d.extend(fde(0, ranges[0], &[1, 2, 3, 4, 5, 6, 7, 8]));
        let second = d.len() as u64;
        d.extend(cie(ca));
        d.extend(fde(second, ranges[1], &[9; 8]));
        d
    }

    #[test]
    fn a_lost_fde_goes_with_its_cie_and_later_offsets_move_up() {
        let d = two_functions(4, [0x100, 0x200]);
        let recs = frame_records(&d);
        assert_eq!(recs.len(), 4);
        let e = edit(&d, &two_functions(1, [0xf0, 0x1f0]), &[(1, Fate::Lost)]).unwrap();
        let pair = recs[2].offset;
        assert_eq!(e.data, d[pair as usize..]);
        assert_eq!(e.map(0), None);
        assert_eq!(e.map(pair + WIDE_INITIAL_LOCATION), Some(WIDE_INITIAL_LOCATION));
        assert_eq!(e.map_boundary(pair), 0);
    }

    #[test]
    fn a_won_fde_keeps_its_header_and_takes_the_mercury_cie_and_range() {
        let d = two_functions(4, [0x100, 0x200]);
        let merc = two_functions(1, [0xf0, 0x1f0]);
        let e = edit(&d, &merc, &[(3, Fate::Won)]).unwrap();
        let recs = frame_records(&e.data);
        assert_eq!(recs.len(), 4);
        let (c, f) = (recs[2], recs[3]);
        // The Mercury CIE (code alignment 1), same size.
        assert_eq!(e.data[c.offset as usize + 22], 1);
        assert_eq!(f.size, 12 + 0x1c);
        assert_eq!(dword(&e.data, f.offset + WIDE_INITIAL_LOCATION + 8), 0x1f0);
        assert_eq!(
            &e.data[(f.offset + f.size - 4) as usize..(f.offset + f.size) as usize],
            &[0; 4]
        );
        // 8 bytes of instructions gave way to 4 zero bytes.
        assert_eq!(e.data.len(), d.len() - 4);
        // The first pair is untouched.
        assert_eq!(e.data[..c.offset as usize], d[..c.offset as usize]);
        assert_eq!(
            e.map(f.offset + WIDE_INITIAL_LOCATION),
            Some(f.offset + WIDE_INITIAL_LOCATION)
        );
    }

    #[test]
    fn nothing_to_do_is_none_and_garbage_does_not_panic() {
        assert!(edit(&[1, 2, 3], &[], &[]).is_none());
        let e = edit(&[0xff; 7], &[0xff; 3], &[(0, Fate::Lost), (5, Fate::Won)]).unwrap();
        assert_eq!(e.data, vec![0xff; 7]);
    }

    /// Mutated frames (lengths, ids, truncations) with every fate: no panic,
    /// and every kept byte maps inside the result.
    #[test]
    fn fuzzed_frames_never_panic() {
        let base = two_functions(4, [0x100, 0x200]);
        let merc = two_functions(1, [0xf0, 0x1f0]);
        let seed = std::cell::Cell::new(0x2545_f491_4f6c_dd1du64);
        let next = || {
            let mut x = seed.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            seed.set(x);
            x
        };
        for _ in 0..5000 {
            let mut d = base.clone();
            let mut m = merc.clone();
            for _ in 0..(next() % 4) {
                let at = (next() as usize) % d.len();
                d[at] = next() as u8;
                let at = (next() as usize) % m.len();
                m[at] = next() as u8;
            }
            d.truncate(d.len() - (next() as usize % 16));
            let fates: Vec<(usize, Fate)> = (0..4)
                .filter(|_| next() % 2 == 0)
                .map(|k| (k, if next() % 2 == 0 { Fate::Lost } else { Fate::Won }))
                .collect();
            if let Some(e) = edit(&d, &m, &fates) {
                for off in 0..d.len() as u64 {
                    if let Some(o) = e.map(off) {
                        assert!(o < e.data.len() as u64);
                    }
                }
            }
        }
    }
}

/// One CIE or FDE of a `.debug_frame`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRecord {
    pub offset: u64,
    /// Whole record, length field included.
    pub size: u64,
    pub cie: bool,
    /// 64-bit DWARF.
    pub wide: bool,
}

/// The records of a `.debug_frame`, up to the first malformed one.
pub fn frame_records(d: &[u8]) -> Vec<FrameRecord> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let word = |o: usize| d.get(o..o + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let dword = |o: usize| {
        d.get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    while at < d.len() {
        let Some(len32) = word(at) else { break };
        let (wide, len, head) = if len32 == 0xffff_ffff {
            let Some(l) = dword(at + 4) else { break };
            (true, l, 12u64)
        } else {
            (false, len32 as u64, 4u64)
        };
        let Some(size) = len.checked_add(head) else { break };
        if len == 0 || size > (d.len() - at) as u64 {
            break;
        }
        let id_at = at + head as usize;
        let cie = if wide {
            dword(id_at) == Some(u64::MAX)
        } else {
            word(id_at) == Some(u32::MAX)
        };
        out.push(FrameRecord {
            offset: at as u64,
            size,
            cie,
            wide,
        });
        at += size as usize;
    }
    out
}
