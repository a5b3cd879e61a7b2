//! Functions the finalizer makes shorter: nvlink 13.5 deletes, for an
//! sm_100+ target, the never-executed `@!PT LDS RZ, [RZ]` instructions
//! ptxas `-c` puts before each `MEMBAR` (`__threadfence()`, a grid's
//! `sync()`; in ptxas 13.0's code a `DEPBAR` after one instead), then the
//! trailing `NOP`s of the function's padding that are no longer needed
//! (corpus README observations 141, 147). Everything that
//! holds an offset into the function moves with its instruction.
//!
//! `Moves` says where each offset of the old code went, for `edit`, which
//! changes the input's bytes accordingly. It also covers code the
//! finalizer wrote anew (`rewritten`).

use super::{BELOW_CONTROL, INSTRUCTION};

/// `@!PT LDS RZ, [RZ]`: the low half, and the upper half's bits below the
/// control field (sm_100 and sm_120 encodings).
const DUMMY_LOAD: (u64, u64) = (0x0000_0000_ffff_f984, 0x800);
/// `MEMBAR`: the opcode (bits 0..11) and, in the upper half, the scope
/// field's value for `.CTA` (`MEMBAR.ALL.CTA`).
const MEMBAR: u64 = 0x992;
const MEMBAR_CTA: u64 = 0x8000;
/// The scope field's value for `.SC.VC` (`MEMBAR.SC.VC`).
const MEMBAR_SC_VC: u64 = 0x5000;
/// `NOP`, likewise.
const NOP: (u64, u64) = (0x7918, 0);
/// `DEPBAR.LE SB0, 0x0`, likewise.
const DEPBAR_SB0: (u64, u64) = (0x0000_8000_0000_791a, 0);

/// Which instructions of a function stay: the old index of each
/// instruction of its code kept, in order, before the padding (the `NOP`s
/// after the code's last other instruction), which is laid out again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shrink {
    kept: Vec<usize>,
    /// Instructions before the old padding.
    old_code: usize,
    old_len: usize,
    new_len: usize,
}

impl Shrink {
    /// Where byte `off` of the old code is in the new: an offset moves up
    /// by the instructions deleted before its own; the end of the
    /// function is the new end.
    pub fn map(&self, off: u64) -> u64 {
        let idx = (off / INSTRUCTION as u64) as usize;
        if off >= (self.old_len * INSTRUCTION) as u64 {
            return off - (self.old_len * INSTRUCTION) as u64 + (self.new_len * INSTRUCTION) as u64;
        }
        let idx = idx.min(self.old_code);
        let before = self.kept.partition_point(|&k| k < idx);
        off - ((idx - before) * INSTRUCTION) as u64
    }

    /// Instructions deleted from the code (the padding aside).
    pub fn deleted(&self) -> usize {
        self.old_code - self.kept.len()
    }

    /// Instructions kept whose control field is not what `code` had.
    pub fn kept_changed(&self, code: &[u8], new: &[u8]) -> usize {
        self.kept
            .iter()
            .enumerate()
            .filter(|&(k, &i)| {
                word(code, i * INSTRUCTION + 8) & !BELOW_CONTROL != word(new, k * INSTRUCTION + 8) & !BELOW_CONTROL
            })
            .count()
    }
}

/// How a function's code offsets go from the input's code to the
/// finalizer's: shortened (`Shrink`, every offset moves), or written anew
/// (a `-g` link's libcudadevrt kernels, finalized again as debug code;
/// ptxas 13.0's sm_120 code, re-encoded: only the instructions relocations
/// patch are placed, by their bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moves {
    Shrunk(Shrink),
    /// `in_place`: as long as before, every relocated instruction where it
    /// was; every offset then keeps its place. `aligned`: where each old
    /// instruction went, when the finalizer's code is the old code with
    /// exit barriers put in (`align`).
    Rewritten {
        relocated: Vec<(u64, u64)>,
        in_place: bool,
        aligned: Option<Vec<Option<u64>>>,
    },
}

impl Moves {
    /// Where the instruction at old offset `off` is now.
    pub(super) fn instruction(&self, off: u64) -> Option<u64> {
        match self {
            Moves::Shrunk(s) => Some(s.map(off)),
            Moves::Rewritten { relocated, .. } => {
                let (start, within) = (off & !(INSTRUCTION as u64 - 1), off % INSTRUCTION as u64);
                relocated.iter().find(|p| p.0 == start).map(|p| p.1 + within)
            }
        }
    }

    /// Where byte `off` of the old code is now (an address, not only an
    /// instruction): the end of the function is the new end.
    pub(super) fn place(&self, off: u64, old_len: u64, new_len: u64) -> Option<u64> {
        match self {
            Moves::Shrunk(s) => Some(s.map(off)),
            Moves::Rewritten { in_place: true, .. } => Some(off),
            Moves::Rewritten { aligned, .. } => match off {
                0 => Some(0),
                x if x == old_len => Some(new_len),
                x if x.is_multiple_of(INSTRUCTION as u64) => aligned
                    .as_ref()
                    .and_then(|m| m.get(usize::try_from(x / INSTRUCTION as u64).ok()?).copied().flatten()),
                _ => None,
            },
        }
    }
}

/// Where the instructions that relocations patch (old offsets
/// `relocated`) of `code` are in `finalized`, code written anew. Where
/// the finalizer only put exit barriers in (`align`), every instruction
/// has its place; else each relocated one is where it was if `finalized`
/// has the same bits there outside its upper 32 (where a 32-bit immediate
/// lies) and the control field (ptxas 13.0's sm_120 code, whose `IADD3`s
/// nvlink 13.5 writes as `IADD`), or at the one instruction of
/// `finalized` with those bits; None when one has no such place or
/// several.
pub fn rewritten(code: &[u8], finalized: &[u8], relocated: &[u64]) -> Option<Moves> {
    let aligned = align(code, finalized, relocated);
    let key = |b: &[u8], at: usize| (word(b, at) & 0xffff_ffff, word(b, at + 8) & BELOW_CONTROL);
    let mut pairs = Vec::new();
    for &n in relocated {
        let at = usize::try_from(n).ok()? * INSTRUCTION;
        if let Some(m) = &aligned {
            pairs.push((at as u64, (*m.get(usize::try_from(n).ok()?)?)?));
            continue;
        }
        let want = key(code, code.get(at..at + INSTRUCTION).map(|_| at)?);
        // Where it was, if it is there; else the one place that has it.
        if finalized.get(at..at + INSTRUCTION).is_some() && key(finalized, at) == want {
            pairs.push((at as u64, at as u64));
            continue;
        }
        let mut found = (0..finalized.len() / INSTRUCTION).filter(|&k| key(finalized, k * INSTRUCTION) == want);
        let k = found.next()?;
        if found.next().is_some() {
            return None;
        }
        pairs.push((at as u64, (k * INSTRUCTION) as u64));
    }
    let in_place = code.len() == finalized.len() && pairs.iter().all(|p| p.0 == p.1);
    Some(Moves::Rewritten {
        relocated: pairs,
        in_place,
        aligned,
    })
}

/// The exit barriers nvlink's finalizer puts before a kernel's `EXIT`s
/// when one input is `-G` code (observation 169): `MEMBAR.SC.VC`,
/// `ERRBAR`, `CGAERRBAR` (opcodes, bits 0..11).
const EXIT_BARRIERS: [u64; 3] = [MEMBAR, 0x9ab, 0x5ab];

/// Whether instruction `i` of `code` is an exit barrier (`EXIT_BARRIERS`;
/// a `MEMBAR` of scope `.SC.VC` only).
fn exit_barrier(code: &[u8], i: usize) -> bool {
    let op = word(code, i * INSTRUCTION) & 0xfff;
    EXIT_BARRIERS.contains(&op) && (op != MEMBAR || word(code, i * INSTRUCTION + 8) & BELOW_CONTROL == MEMBAR_SC_VC)
}

/// Where each instruction of `code` is in `finalized` (a byte offset, None
/// for one the finalizer deleted), when `finalized` is `code` with exit
/// barriers put in, and ptxas's own barriers or the instructions it may
/// delete (`deletable`) taken out: every other instruction is the
/// finalizer's next (`same`), the padding aside. A kernel that calls keeps
/// its return addresses so (mixed_g_exit_barriers_calls_sm100).
fn align(code: &[u8], finalized: &[u8], relocated: &[u64]) -> Option<Vec<Option<u64>>> {
    if !code.len().is_multiple_of(INSTRUCTION) || !finalized.len().is_multiple_of(INSTRUCTION) {
        return None;
    }
    let (n, m) = (code.len() / INSTRUCTION, finalized.len() / INSTRUCTION);
    let old_code = (0..n).rposition(|i| !is(code, i, NOP))? + 1;
    let new_code = (0..m).rposition(|k| !is(finalized, k, NOP))? + 1;
    let mut map = vec![None; n];
    let mut k = 0;
    for (i, place) in map.iter_mut().enumerate().take(old_code) {
        while k < new_code && !same(code, i, finalized, k, relocated) && exit_barrier(finalized, k) {
            k += 1;
        }
        if k < new_code && same(code, i, finalized, k, relocated) {
            *place = Some((k * INSTRUCTION) as u64);
            k += 1;
        } else if !(exit_barrier(code, i) || deletable(code, i)) {
            return None;
        }
    }
    (k == new_code).then_some(map)
}

pub(super) fn word(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

fn is(code: &[u8], n: usize, (lo, below): (u64, u64)) -> bool {
    let at = n * INSTRUCTION;
    word(code, at) == lo && word(code, at + 8) & BELOW_CONTROL == below
}

/// Whether the finalizer may delete instruction `i` of `code`: a dummy
/// load; a `MEMBAR.ALL.CTA` (after dummy loads, where a `MEMBAR` of
/// another scope under the same predicate follows: reductionMultiBlockCG's
/// grid `sync()`, `@P2 MEMBAR.ALL.CTA; @P2 MEMBAR.ALL.GPU` becomes the
/// second alone; `__threadfence_block()`'s own stays, as the finalizer's
/// code says); the `DEPBAR.LE SB0, 0x0` ptxas 13.0 puts after a
/// `MEMBAR.SC.CTA` (NVSHMEM 3's put-with-signal: observation 147, where
/// the dummy loads stay).
fn deletable(code: &[u8], i: usize) -> bool {
    let scope = word(code, i * INSTRUCTION + 8) & BELOW_CONTROL;
    is(code, i, DUMMY_LOAD)
        || is(code, i, DEPBAR_SB0)
        || word(code, i * INSTRUCTION) & 0xfff == MEMBAR && scope == MEMBAR_CTA
}

/// Whether instruction `i` of `code` is instruction `k` of `finalized`:
/// the same bits below the control field; the same opcode where a
/// relocation patches it (`relocated`) or it holds an offset to another
/// instruction (a branch, `BSSY`, `CALL.REL`, `BRX`, sm_120's `BRXU`:
/// `switch_brxu_fence_sm120`), which deletions between the two change.
fn same(code: &[u8], i: usize, finalized: &[u8], k: usize, relocated: &[u64]) -> bool {
    let (at, to) = (i * INSTRUCTION, k * INSTRUCTION);
    let op = word(code, at) & 0xfff;
    if op != word(finalized, to) & 0xfff {
        return false;
    }
    let relative = matches!(op & 0xff, 0x44 | 0x45 | 0x47 | 0x49 | 0x58) && matches!(op >> 8, 0x9 | 0x5);
    relative
        || relocated.contains(&(i as u64))
        || word(code, at) == word(finalized, to)
            && word(code, at + 8) & BELOW_CONTROL == word(finalized, to + 8) & BELOW_CONTROL
}

/// Instructions a function of `code_len` instructions before its padding
/// takes with the padding: at least eight `NOP`s, up to a multiple of
/// eight (128 bytes). ptxas and nvlink both: 319 → 328, 297 → 312; after
/// the deletions 307 → 320, 285 → 296.
fn padded(code_len: usize) -> usize {
    (code_len + 8).div_ceil(8) * 8
}

/// How `code` becomes `finalized`: instructions the finalizer may delete
/// (`deletable`) go where its code does not have them, each other
/// instruction is the finalizer's next (`same`), and the padding is laid
/// out again; None when that is not how `finalized` came about.
pub fn plan(code: &[u8], finalized: &[u8], relocated: &[u64]) -> Option<Shrink> {
    if !code.len().is_multiple_of(INSTRUCTION) || !finalized.len().is_multiple_of(INSTRUCTION) {
        return None;
    }
    let (n, m) = (code.len() / INSTRUCTION, finalized.len() / INSTRUCTION);
    let old_code = (0..n).rposition(|i| !is(code, i, NOP))? + 1;
    let mut kept = Vec::with_capacity(old_code);
    for i in 0..old_code {
        if kept.len() < m && same(code, i, finalized, kept.len(), relocated) {
            kept.push(i);
        } else if !deletable(code, i) {
            return None;
        }
    }
    if kept.len() == old_code || padded(kept.len()) != m || padded(old_code) != n {
        return None;
    }
    let padding = (kept.len()..m).all(|k| is(finalized, k, NOP));
    padding.then_some(Shrink {
        kept,
        old_code,
        old_len: n,
        new_len: m,
    })
}

/// The new code: the finalizer's instructions, except that an instruction
/// a relocation patches keeps its own bits below the control field.
pub fn code(s: &Shrink, code: &[u8], finalized: &[u8], relocated: &[u64]) -> Vec<u8> {
    let mut out = finalized.to_vec();
    for (k, &i) in s.kept.iter().enumerate() {
        if relocated.contains(&(i as u64)) {
            let (at, to) = (i * INSTRUCTION, k * INSTRUCTION);
            let hi = (word(code, at + 8) & BELOW_CONTROL) | (word(finalized, to + 8) & !BELOW_CONTROL);
            out[to..to + 8].copy_from_slice(&code[at..at + 8]);
            out[to + 8..to + 16].copy_from_slice(&hi.to_le_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instruction((lo, hi): (u64, u64)) -> Vec<u8> {
        [lo.to_le_bytes(), hi.to_le_bytes()].concat()
    }

    #[test]
    fn dummy_loads_go_and_the_padding_is_laid_out_again() {
        // a, LDS, LDS, b, then eight NOPs (ten instructions of code and
        // padding: padded to 16) -> a, b and eight NOPs (padded to 16 too,
        // so the finalizer's length must be 16 for this to apply).
        let a = (0x1234_5810, 0x10);
        let b = (0x5678_5812, 0x20);
        let nops = |k: usize| std::iter::repeat_n(NOP, k);
        let code: Vec<u8> = [a, DUMMY_LOAD, DUMMY_LOAD, b]
            .into_iter()
            .chain(nops(12))
            .flat_map(instruction)
            .collect();
        let fin: Vec<u8> = [a, b].into_iter().chain(nops(14)).flat_map(instruction).collect();
        let s = plan(&code, &fin, &[]).unwrap();
        assert_eq!(s.deleted(), 2);
        assert_eq!(s.map(0x00), 0x00);
        assert_eq!(s.map(0x30), 0x10);
        assert_eq!(s.map(0x100), 0x100);
        // Seven dummy loads: 4 + 8 -> 16 instructions, then 2 + 8 -> 16.
        // Another opcode where the finalizer has b: not this deletion.
        let other: Vec<u8> = [a, (0x5678_5999, 0x20)]
            .into_iter()
            .chain(nops(14))
            .flat_map(instruction)
            .collect();
        assert_eq!(plan(&code, &other, &[]), None);
        // A finalizer length the padding rule does not give.
        let short: Vec<u8> = [a, b].into_iter().chain(nops(6)).flat_map(instruction).collect();
        assert_eq!(plan(&code, &short, &[]), None);
        // Nine dummy loads: 11 + 8 -> 24 instructions, 2 + 8 -> 16.
        let long: Vec<u8> = [a]
            .into_iter()
            .chain(std::iter::repeat_n(DUMMY_LOAD, 9))
            .chain([b])
            .chain(nops(13))
            .flat_map(instruction)
            .collect();
        let s = plan(&long, &fin, &[]).unwrap();
        assert_eq!(s.deleted(), 9);
        assert_eq!(s.map(0xa0), 0x10);
        assert_eq!(s.map(24 * 16), 16 * 16);
    }

    #[test]
    fn a_brxu_holds_an_offset_like_a_brx() {
        // sm_120's jump table branch `BRXU UR4 -0x60` after a dummy load:
        // the finalizer's is `BRXU UR4 -0x50` (switch_brxu_fence_sm120).
        let a = (0x1234_5810, 0x10);
        let brxu = |imm: u64| {
            (
                (imm.wrapping_neg() << 32) | 0x0494_7958,
                0x000f_ea00_0380_0000 & BELOW_CONTROL,
            )
        };
        let nops = |k: usize| std::iter::repeat_n(NOP, k);
        let code: Vec<u8> = [a, DUMMY_LOAD, a, a, a, brxu(0x60)]
            .into_iter()
            .chain(nops(10))
            .flat_map(instruction)
            .collect();
        let fin: Vec<u8> = [a, a, a, a, brxu(0x50)]
            .into_iter()
            .chain(nops(11))
            .flat_map(instruction)
            .collect();
        let s = plan(&code, &fin, &[]).unwrap();
        assert_eq!(s.map(0x50), 0x40);
        // Another opcode with the same bits changed: not this deletion.
        let brxx = |imm: u64| ((imm.wrapping_neg() << 32) | 0x0494_7959, 0);
        let code2: Vec<u8> = [a, DUMMY_LOAD, a, a, a, brxx(0x60)]
            .into_iter()
            .chain(nops(10))
            .flat_map(instruction)
            .collect();
        let fin2: Vec<u8> = [a, a, a, a, brxx(0x50)]
            .into_iter()
            .chain(nops(11))
            .flat_map(instruction)
            .collect();
        assert_eq!(plan(&code2, &fin2, &[]), None);
    }

    #[test]
    fn the_finalizers_code_says_which_go() {
        // ptxas 13.0 (NVSHMEM's put-with-signal): LDS x3, MEMBAR.SC.CTA,
        // DEPBAR.LE SB0, 0x0, BSYNC; the finalizer keeps the dummy loads
        // and the fence and deletes the DEPBAR (one NOP of padding more).
        let membar_sc_cta = (0x7992, 0);
        let bsync = (0x0000_0006_0000_7941, 0x3800000);
        let nops = |k: usize| std::iter::repeat_n(NOP, k);
        let body = [DUMMY_LOAD, DUMMY_LOAD, DUMMY_LOAD, membar_sc_cta];
        let code: Vec<u8> = body
            .into_iter()
            .chain([DEPBAR_SB0, bsync])
            .chain(nops(10))
            .flat_map(instruction)
            .collect();
        let fin: Vec<u8> = body
            .into_iter()
            .chain([bsync])
            .chain(nops(11))
            .flat_map(instruction)
            .collect();
        let s = plan(&code, &fin, &[]).unwrap();
        assert_eq!(s.deleted(), 1);
        assert_eq!(s.map(0x40), 0x40);
        assert_eq!(s.map(0x50), 0x40);
        // An instruction the finalizer does not have and may not delete.
        let other: Vec<u8> = [DUMMY_LOAD, membar_sc_cta, bsync]
            .into_iter()
            .chain(nops(13))
            .flat_map(instruction)
            .collect();
        let code2: Vec<u8> = [DUMMY_LOAD, (0x1234_5810, 0x10), membar_sc_cta, bsync]
            .into_iter()
            .chain(nops(12))
            .flat_map(instruction)
            .collect();
        assert_eq!(plan(&code2, &other, &[]), None);
    }

    #[test]
    fn exit_barriers_put_in_move_every_instruction_after_them() {
        // a, EXIT, b (a return address points here), EXIT, the closing
        // loop, padding -> the barriers before each EXIT.
        let a = (0x1234_5810, 0x10);
        let b = (0x5678_5812, 0x20);
        let exit = (0x794d, 0x380_0000);
        let bra = (0xffff_fffc_00fc_7947, 0x3ffff);
        let barriers = [(0x7992, MEMBAR_SC_VC), (0x79ab, 0), (0x75ab, 0)];
        let nops = |k: usize| std::iter::repeat_n(NOP, k);
        let code: Vec<u8> = [a, exit, b, exit, bra]
            .into_iter()
            .chain(nops(11))
            .flat_map(instruction)
            .collect();
        let fin: Vec<u8> = [a]
            .into_iter()
            .chain(barriers)
            .chain([exit, b])
            .chain(barriers)
            .chain([exit, bra])
            .chain(nops(13))
            .flat_map(instruction)
            .collect();
        let m = rewritten(&code, &fin, &[2]).unwrap();
        let (old_len, new_len) = (code.len() as u64, fin.len() as u64);
        assert_eq!(m.place(0x20, old_len, new_len), Some(0x50));
        assert_eq!(m.place(0x40, old_len, new_len), Some(0xa0));
        assert_eq!(m.instruction(0x20), Some(0x50));
        // Another instruction put in: no alignment, and b's bits are
        // found once, so only the relocated instruction has a place.
        let other: Vec<u8> = [a, (0x4444_5810, 0), exit, b, exit, bra]
            .into_iter()
            .chain(nops(10))
            .flat_map(instruction)
            .collect();
        let m = rewritten(&code, &other, &[2]).unwrap();
        assert_eq!(m.instruction(0x20), Some(0x30));
        assert_eq!(m.place(0x40, old_len, new_len), None);
    }
}
