//! The Mercury capsule: the contents of `.nv.capmerc.text.<fn>` (sm_100+).
//!
//! Layout, read from every capsule ptxas 13.5 wrote for the corpus (and
//! checked on all of them: each parses to its last byte, docs/catalog.md):
//!
//! - a 12-byte header: the function's symbol index (u32; nvlink rewrites
//!   it to the output's index of `.text.<fn>`), flags (u32, `0xc0000001`),
//!   the item count N (u32);
//! - a bitmask of N bits in `ceil(N / 32)` little-endian u32 words;
//! - one record per clear bit, in item order. A set bit is an item with no
//!   record.
//!
//! The items are the instructions of the classic `.text.<fn>` up to and
//! with the closing `BRA` self-loop, less the `NOP`s among them
//! (`Capsule::items_of`; `-G` code on sm_100 and ptxas 13.0's code leave
//! other instructions without an item, see `link::mercury_merge`): the
//! records describe the instructions the driver needs more than their
//! SASS for. Record sizes by first byte: `0x01` 16 bytes, `0x02` 32 bytes,
//! `0x41`/`0x42` 4 bytes, `0x50`/`0xd0` 2 bytes (the closing `BRA`).
//! `0x51` and `0xd1` wrap one record: a byte more (1 or 2, `0xd1` also 4),
//! then a `0x01` or `0x02` record, 18 or 34 bytes in all. ptxas writes
//! `0xd1` for the `CALL.ABS.NOINC` of a call whose return address is taken
//! (`MOV R20, 32@lo(f + .L@srel)`: NVSHMEM's device functions) and around
//! `0x02` records of instructions near such calls; checked on every capsule
//! of the corpus and of NVSHMEM 3's libnvshmem_device for sm_100 and sm_120
//! (206 capsules, 12,866 `0xd1` records: each parses to its last byte).
//!
//! A `0x02` record of an instruction with a constant-bank operand keeps the
//! operand's offset, relative to its region of the bank, as a u32 at
//! +0x1c (+0x1e in a wrapped one): a kernel parameter at `c[0x0][0x388]`
//! has 8 there. nvlink writes
//! the Mercury value of a relocation it resolves into that field (corpus
//! arch_sm100_smoke: `lib_const+4` in `.nv.merc.nv.constant.user` gives 4;
//! texref_helper_sm100: a bindless slot gives its offset in the header table).

use std::fmt;

/// Where a record's operand field is (a `0x02` record's u32 at +0x1c).
pub const OPERAND_FIELD: usize = 0x1c;

/// One record of a capsule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The item (classic instruction index) it describes.
    pub item: u32,
    /// Byte offset in the section.
    pub offset: usize,
    /// The first byte.
    pub kind: u8,
    pub len: usize,
    /// The kind of the record a `0x51`/`0xd1` wraps (2 bytes in); `kind`
    /// for the others.
    pub inner: u8,
}

/// The wrapping kinds: a 2-byte prefix, then one record.
const WRAPPERS: [u8; 2] = [0x51, 0xd1];

impl Record {
    /// Where the record keeps a constant-bank operand's offset, if it has one.
    pub fn operand_field(&self) -> Option<usize> {
        let prefix = if WRAPPERS.contains(&self.kind) { 2 } else { 0 };
        (self.inner == 0x02).then_some(self.offset + prefix + OPERAND_FIELD)
    }
}

/// A decoded capsule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capsule {
    /// The symbol index the header holds.
    pub symbol: u32,
    pub flags: u32,
    /// Item count (classic instructions).
    pub items: u32,
    /// Records, in item order.
    pub records: Vec<Record>,
}

/// Why a capsule did not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapsuleError {
    /// The data ends at `at` where `need` more bytes were expected.
    Truncated { at: usize, need: usize },
    /// A record starts with a byte no known record kind has.
    UnknownKind { at: usize, kind: u8 },
    /// Bytes are left after the last record.
    Trailing { at: usize },
}

impl fmt::Display for CapsuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapsuleError::Truncated { at, need } => {
                write!(f, "capsule truncated at {at:#x} ({need} more bytes expected)")
            }
            CapsuleError::UnknownKind { at, kind } => write!(f, "unknown capsule record kind {kind:#04x} at {at:#x}"),
            CapsuleError::Trailing { at } => write!(f, "bytes after the last capsule record, from {at:#x}"),
        }
    }
}

impl std::error::Error for CapsuleError {}

/// The size of a record by its first byte.
fn record_len(kind: u8) -> Option<usize> {
    match kind {
        0x01 => Some(16),
        0x02 => Some(32),
        0x41 | 0x42 => Some(4),
        0x50 | 0xd0 => Some(2),
        _ => None,
    }
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, CapsuleError> {
    d.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or(CapsuleError::Truncated {
            at: d.len(),
            need: at + 4 - d.len().min(at + 4),
        })
}

impl Capsule {
    /// Decodes a `.nv.capmerc.text.<fn>` section's contents.
    pub fn parse(d: &[u8]) -> Result<Capsule, CapsuleError> {
        let symbol = u32_at(d, 0)?;
        let flags = u32_at(d, 4)?;
        let items = u32_at(d, 8)?;
        let words = items.div_ceil(32) as usize;
        let mask_end = 12usize.saturating_add(words.saturating_mul(4));
        if mask_end > d.len() {
            return Err(CapsuleError::Truncated {
                at: d.len(),
                need: mask_end - d.len(),
            });
        }
        let bit = |i: u32| {
            let w = 12 + (i as usize / 32) * 4;
            let word = u32::from_le_bytes([d[w], d[w + 1], d[w + 2], d[w + 3]]);
            word >> (i % 32) & 1 == 1
        };
        let mut at = mask_end;
        let mut records = Vec::new();
        for item in 0..items {
            if bit(item) {
                continue;
            }
            let &kind = d.get(at).ok_or(CapsuleError::Truncated { at, need: 1 })?;
            let (inner, len) = if WRAPPERS.contains(&kind) {
                let &inner = d.get(at + 2).ok_or_else(|| CapsuleError::Truncated {
                    at: d.len(),
                    need: (at + 3).saturating_sub(d.len()),
                })?;
                let len =
                    record_len(inner)
                        .filter(|_| matches!(inner, 0x01 | 0x02))
                        .ok_or(CapsuleError::UnknownKind {
                            at: at + 2,
                            kind: inner,
                        })?;
                (inner, 2 + len)
            } else {
                (kind, record_len(kind).ok_or(CapsuleError::UnknownKind { at, kind })?)
            };
            if at + len > d.len() {
                return Err(CapsuleError::Truncated {
                    at: d.len(),
                    need: at + len - d.len(),
                });
            }
            records.push(Record {
                item,
                offset: at,
                kind,
                len,
                inner,
            });
            at += len;
        }
        if at != d.len() {
            return Err(CapsuleError::Trailing { at });
        }
        Ok(Capsule {
            symbol,
            flags,
            items,
            records,
        })
    }

    /// The record of item `item`, if the item has one.
    pub fn record(&self, item: u32) -> Option<&Record> {
        self.records
            .binary_search_by_key(&item, |r| r.item)
            .ok()
            .map(|i| &self.records[i])
    }

    /// Which item each instruction of `code` (the function's classic
    /// `.text.<fn>`) is, when the items follow the code: every instruction
    /// up to and with its closing `BRA` self-loop is one item, in order,
    /// except the `NOP`s before the loop, which have none (so item k is the
    /// k-th instruction that is not such a `NOP`). Checked on every sm_100
    /// and sm_120 capsule of the corpus inputs, kernels and device
    /// functions alike (184 of 193; a device function of jumptable_func_sm100
    /// with one `NOP`: 56 items, its loop at 56); an indirect-call kernel
    /// has a `NOP` after a call to a libdevice slow path, and the records
    /// after it belong one instruction further on (observation 170). None
    /// where the counts differ: ptxas 13.0's code (NVSHMEM's calls taking
    /// a return address, fences) and `-G` code on sm_100 (eigenvalues,
    /// mergeSort: 1,754 items for 1,816 instructions) have items that are
    /// not the classic instructions.
    pub fn items_of(&self, code: &[u8]) -> Option<ItemMap> {
        let at = closing_branch(code)?;
        let mut items = Vec::with_capacity(at + 1);
        let mut next = 0u32;
        for (i, w) in code.chunks_exact(16).take(at + 1).enumerate() {
            let lo = u64::from_le_bytes(w[..8].try_into().unwrap_or_default());
            if i < at && lo & 0xfff == NOP {
                items.push(None);
            } else {
                items.push(Some(next));
                next += 1;
            }
        }
        (next == self.items).then_some(ItemMap { items })
    }
}

/// The opcode of `NOP` (low 12 bits of an sm_100/sm_120 instruction).
const NOP: u64 = 0x918;

/// The capsule item of each instruction of a function (`Capsule::items_of`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemMap {
    items: Vec<Option<u32>>,
}

impl ItemMap {
    /// The item of the instruction at byte `offset` of the code, if it has one.
    pub fn item_at(&self, offset: u64) -> Option<u32> {
        usize::try_from(offset / 16)
            .ok()
            .and_then(|i| self.items.get(i).copied().flatten())
    }
}

/// The index of a function's closing `BRA` self-loop (opcode 0x947 under
/// `PT`, offset -4 words) in its code. A loop's `@P0 BRA` back to the
/// instruction before it is not one (a `#pragma unroll 32` loop whose
/// body is one `FFMA`: observation 148).
fn closing_branch(code: &[u8]) -> Option<usize> {
    code.chunks_exact(16).position(|w| {
        let lo = u64::from_le_bytes(w[..8].try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(w[8..].try_into().unwrap_or_default());
        lo & 0xffff == 0x7947 && lo >> 32 == 0xffff_fffc && hi & 0x3ffff == 0x3ffff
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// texref_helper_sm100's kern.cubin `.nv.capmerc.text.k_tex2`, as ptxas wrote it.
    const K_TEX2: &str = "\
        10000000010000c00c00000038040000010b040af80004000000410000040000\
        02220e06f8004200000001014000020000000000000000000000000008000000\
        02220806fa004200000001014900020000000000000000000000000000000000\
        023e0014f8000b00000001f8c1ff410100020100000201000200000000000000\
        02220e06f8005200000083004000020000000000000000000000000000000000\
        010b0e0afa000500000003013904000002380e32f80040110000000082000a00\
        00020140010000000000000000000000d006";

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn parses_a_ptxas_capsule() {
        let d = hex(K_TEX2);
        assert_eq!(d.len(), 0xd2);
        let c = Capsule::parse(&d).unwrap();
        assert_eq!((c.symbol, c.flags, c.items), (0x10, 0xc000_0001, 12));
        // Mask 0x438: items 3, 4, 5 and 10 have no record.
        let items: Vec<u32> = c.records.iter().map(|r| r.item).collect();
        assert_eq!(items, [0, 1, 2, 6, 7, 8, 9, 11]);
        let kinds: Vec<u8> = c.records.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [0x01, 0x02, 0x02, 0x02, 0x02, 0x01, 0x02, 0xd0]);
        // Item 2 is `LDCU UR4, c[0x0][0x390]`, the texture header slot nvlink fills.
        let r = c.record(2).unwrap();
        assert_eq!((r.offset, r.operand_field()), (0x40, Some(0x5c)));
        // Item 1 (`LDC R4, c[0x0][0x388]`) keeps its parameter offset, 8.
        assert_eq!(d[c.record(1).unwrap().operand_field().unwrap()], 8);
        assert!(c.record(3).is_none());
        assert_eq!(c.record(0).unwrap().operand_field(), None);
    }

    /// Records wrapped in `0xd1`/`0x51` (a 2-byte prefix, then a `0x01` or
    /// `0x02` record), as ptxas writes them around `CALL.ABS.NOINC`
    /// (NVSHMEM's `nvshmemi_fence`: `d1 04` then a `0x01` record).
    #[test]
    fn parses_wrapped_records() {
        let mut d = hex("01000000 010000c0 03000000 00000000");
        d.extend(hex("d104 0149100af8001000000000000000 0000"));
        let mut ldc = hex("02220806fa0042000000010142000200000000000000000000000000");
        ldc.extend(0x338u32.to_le_bytes());
        d.extend(hex("5102"));
        d.extend(&ldc);
        d.extend(hex("d005"));
        let c = Capsule::parse(&d).unwrap();
        let kinds: Vec<(u8, u8, usize)> = c.records.iter().map(|r| (r.kind, r.inner, r.len)).collect();
        assert_eq!(kinds, [(0xd1, 0x01, 18), (0x51, 0x02, 34), (0xd0, 0xd0, 2)]);
        assert_eq!(c.record(0).unwrap().operand_field(), None);
        let f = c.record(1).unwrap().operand_field().unwrap();
        assert_eq!(f, 0x10 + 18 + 2 + OPERAND_FIELD);
        assert_eq!(d[f..f + 4], 0x338u32.to_le_bytes());
        // A wrapper around anything else is refused.
        let mut bad = d.clone();
        bad[0x10 + 2] = 0x42;
        assert_eq!(
            Capsule::parse(&bad),
            Err(CapsuleError::UnknownKind { at: 0x12, kind: 0x42 })
        );
    }

    #[test]
    fn rejects_bad_capsules() {
        let d = hex(K_TEX2);
        assert!(matches!(
            Capsule::parse(&d[..d.len() - 1]),
            Err(CapsuleError::Truncated { .. })
        ));
        let mut extra = d.clone();
        extra.push(0);
        assert_eq!(Capsule::parse(&extra), Err(CapsuleError::Trailing { at: 0xd2 }));
        let mut bad = d.clone();
        bad[0x10] = 0x07;
        assert_eq!(
            Capsule::parse(&bad),
            Err(CapsuleError::UnknownKind { at: 0x10, kind: 0x07 })
        );
        assert!(Capsule::parse(&[]).is_err());
        // A huge item count asks for more mask than there is.
        let mut huge = d.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Capsule::parse(&huge), Err(CapsuleError::Truncated { .. })));
    }

    /// Mutated capsules never panic, and what parses stays inside the data.
    #[test]
    fn fuzzed_capsules_never_panic() {
        let base = hex(K_TEX2);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut d = base.clone();
            for _ in 0..(next() % 5) {
                let at = (next() as usize) % d.len();
                d[at] = next() as u8;
            }
            d.truncate(d.len() - (next() as usize % 24));
            if let Ok(c) = Capsule::parse(&d) {
                for r in &c.records {
                    assert!(r.offset + r.len <= d.len());
                    if let Some(f) = r.operand_field() {
                        assert!(f + 4 <= d.len());
                    }
                }
            }
        }
    }

    /// One instruction: its low and high words.
    fn instruction(lo: u64, hi: u64) -> Vec<u8> {
        [lo.to_le_bytes(), hi.to_le_bytes()].concat()
    }

    #[test]
    fn nops_have_no_item() {
        // IMAD, NOP, EXIT, the closing `BRA` self-loop, an alignment NOP.
        let nop = instruction(0x7918, 0);
        let code = [
            instruction(0x7224, 0),
            nop.clone(),
            instruction(0x794d, 0),
            instruction(0xffff_fffc_0000_7947, 0x3ffff),
            nop,
        ]
        .concat();
        // Three items, none with a record.
        let capsule = |items: u32| {
            let mut d = [0u32, 0xc000_0001, items, (1 << items) - 1]
                .map(u32::to_le_bytes)
                .concat();
            d.truncate(16);
            Capsule::parse(&d).unwrap()
        };
        let map = capsule(3).items_of(&code).unwrap();
        let items: Vec<Option<u32>> = (0..5).map(|i| map.item_at(i * 16)).collect();
        assert_eq!(items, [Some(0), None, Some(1), Some(2), None]);
        // Counts that differ: the items are not the instructions.
        assert!(capsule(4).items_of(&code).is_none());
        assert!(capsule(2).items_of(&code).is_none());
    }
}
