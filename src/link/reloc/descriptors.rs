//! Relocation type descriptors (seed 002): for each R_CUDA type, up to
//! three actions, each writing one bit field of the patched words; for each
//! Mercury type (0x10000 + n, seed 002's 65-entry "attribute" table), what
//! it makes of S + A. Which table drives which architecture: [`Table`].
//!
//! Seed 002's type numbering is wrong; the numbers here are cuobjdump's
//! (src/cubin/catalog). The layouts were measured with nvlink 13.5 on
//! sm_75, sm_80 and sm_90, identical on all three
//! (scripts/gen-reloc-goldens: a relocation of each type against a shared
//! variable, known addends and surrounding bits, which bits changed; the
//! goldens are tests/data/reloc/). Types nvlink never applies against such
//! a symbol (it keeps them for the driver, or refuses them: "reference to
//! deleted symbol") have layouts read from their names ([`Source::Name`]) or
//! none at all ([`Source::Unknown`]): those are never patched by culdb.

/// What an action writes into its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    /// `(S + A) >> shift` (shift 32: the high half; 2: a word offset;
    /// 8·n: one byte of the value).
    Value(u8),
    /// The low bits of the target section's CUDA type code
    /// (`sh_type - 0x6fffff84`): the constant bank number for
    /// `.nv.constantN` (6 for shared memory).
    SecTypeLo,
    /// The same code shifted right by four.
    SecTypeHi,
    /// Zeroes.
    Clear,
    /// `S + A - P`, P the patched place (layout from the name only).
    PcRel,
}

/// One action: `width` bits at bit `bit` of the words at the offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Action {
    pub kind: Kind,
    pub bit: u16,
    pub width: u8,
}

/// How a layout is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Source {
    /// Measured against nvlink (goldens in tests/data/reloc).
    Probed,
    /// Read from the type's name; nvlink was not seen to apply it.
    Name,
    /// Not known: culdb never patches it.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Desc {
    pub rtype: u32,
    pub name: &'static str,
    pub source: Source,
    pub actions: &'static [Action],
}

impl Desc {
    /// Whether culdb can patch this type.
    pub fn applicable(&self) -> bool {
        self.source != Source::Unknown && !self.actions.is_empty()
    }
}

const fn v(bit: u16, width: u8, shift: u8) -> Action {
    Action {
        kind: Kind::Value(shift),
        bit,
        width,
    }
}
const fn sec_lo(bit: u16, width: u8) -> Action {
    Action {
        kind: Kind::SecTypeLo,
        bit,
        width,
    }
}
const fn sec_hi(bit: u16, width: u8) -> Action {
    Action {
        kind: Kind::SecTypeHi,
        bit,
        width,
    }
}
const fn clear(bit: u16, width: u8) -> Action {
    Action {
        kind: Kind::Clear,
        bit,
        width,
    }
}
const fn pc_rel(bit: u16, width: u8) -> Action {
    Action {
        kind: Kind::PcRel,
        bit,
        width,
    }
}
const fn desc(rtype: u32, name: &'static str, source: Source, actions: &'static [Action]) -> Desc {
    Desc {
        rtype,
        name,
        source,
        actions,
    }
}

/// The R_CUDA descriptors by type number (index = number - 1).
pub static CUDA: &[Desc] = &[
    desc(1, "R_CUDA_32", Source::Probed, &[v(0, 32, 0)]),
    desc(2, "R_CUDA_64", Source::Probed, &[v(0, 64, 0)]),
    desc(3, "R_CUDA_G32", Source::Name, &[v(0, 32, 0)]),
    desc(4, "R_CUDA_G64", Source::Name, &[v(0, 64, 0)]),
    desc(5, "R_CUDA_ABS32_26", Source::Probed, &[v(26, 32, 0)]),
    desc(6, "R_CUDA_TEX_HEADER_INDEX", Source::Unknown, &[]),
    desc(7, "R_CUDA_SAMP_HEADER_INDEX", Source::Unknown, &[]),
    desc(8, "R_CUDA_SURF_HW_DESC", Source::Unknown, &[]),
    desc(9, "R_CUDA_SURF_HW_SW_DESC", Source::Unknown, &[]),
    desc(10, "R_CUDA_ABS32_LO_26", Source::Probed, &[v(26, 32, 0)]),
    desc(11, "R_CUDA_ABS32_HI_26", Source::Probed, &[v(26, 32, 32)]),
    desc(12, "R_CUDA_ABS32_23", Source::Probed, &[v(23, 32, 0)]),
    desc(13, "R_CUDA_ABS32_LO_23", Source::Probed, &[v(23, 32, 0)]),
    desc(14, "R_CUDA_ABS32_HI_23", Source::Probed, &[v(23, 32, 32)]),
    desc(15, "R_CUDA_ABS24_26", Source::Probed, &[v(26, 24, 0)]),
    desc(16, "R_CUDA_ABS24_23", Source::Probed, &[v(23, 24, 0)]),
    desc(17, "R_CUDA_ABS16_26", Source::Probed, &[v(26, 16, 0)]),
    desc(18, "R_CUDA_ABS16_23", Source::Probed, &[v(23, 16, 0)]),
    desc(19, "R_CUDA_TEX_SLOT", Source::Probed, &[v(32, 8, 0)]),
    desc(20, "R_CUDA_SAMP_SLOT", Source::Probed, &[v(40, 5, 0)]),
    desc(21, "R_CUDA_SURF_SLOT", Source::Probed, &[v(26, 6, 0)]),
    desc(22, "R_CUDA_TEX_BINDLESSOFF13_32", Source::Probed, &[v(32, 13, 2)]),
    desc(23, "R_CUDA_TEX_BINDLESSOFF13_47", Source::Probed, &[v(47, 13, 2)]),
    desc(
        24,
        "R_CUDA_CONST_FIELD19_28",
        Source::Probed,
        &[sec_hi(26, 1), v(28, 14, 2), sec_lo(42, 4)],
    ),
    desc(
        25,
        "R_CUDA_CONST_FIELD19_23",
        Source::Probed,
        &[v(23, 14, 2), sec_lo(37, 5)],
    ),
    desc(26, "R_CUDA_TEX_SLOT9_49", Source::Probed, &[v(49, 9, 0)]),
    desc(27, "R_CUDA_6_31", Source::Probed, &[v(31, 6, 0)]),
    desc(28, "R_CUDA_2_47", Source::Probed, &[v(47, 2, 0)]),
    desc(29, "R_CUDA_TEX_BINDLESSOFF13_41", Source::Probed, &[v(41, 13, 2)]),
    desc(30, "R_CUDA_TEX_BINDLESSOFF13_45", Source::Probed, &[v(45, 13, 2)]),
    desc(31, "R_CUDA_FUNC_DESC32_23", Source::Name, &[v(23, 32, 0)]),
    desc(32, "R_CUDA_FUNC_DESC32_LO_23", Source::Name, &[v(23, 32, 0)]),
    desc(33, "R_CUDA_FUNC_DESC32_HI_23", Source::Name, &[v(23, 32, 32)]),
    desc(34, "R_CUDA_FUNC_DESC_32", Source::Name, &[v(0, 32, 0)]),
    desc(35, "R_CUDA_FUNC_DESC_64", Source::Name, &[v(0, 64, 0)]),
    desc(
        36,
        "R_CUDA_CONST_FIELD21_26",
        Source::Probed,
        &[v(26, 16, 0), sec_lo(42, 5)],
    ),
    desc(
        37,
        "R_CUDA_QUERY_DESC21_37",
        Source::Probed,
        &[v(37, 16, 0), sec_lo(53, 5)],
    ),
    desc(
        38,
        "R_CUDA_CONST_FIELD19_26",
        Source::Probed,
        &[v(26, 14, 2), sec_lo(40, 5)],
    ),
    desc(
        39,
        "R_CUDA_CONST_FIELD21_23",
        Source::Probed,
        &[v(23, 16, 0), sec_lo(39, 5)],
    ),
    desc(40, "R_CUDA_PCREL_IMM24_26", Source::Name, &[pc_rel(26, 24)]),
    desc(41, "R_CUDA_PCREL_IMM24_23", Source::Name, &[pc_rel(23, 24)]),
    desc(42, "R_CUDA_ABS32_20", Source::Probed, &[v(20, 32, 0)]),
    desc(43, "R_CUDA_ABS32_LO_20", Source::Probed, &[v(20, 32, 0)]),
    desc(44, "R_CUDA_ABS32_HI_20", Source::Probed, &[v(20, 32, 32)]),
    desc(45, "R_CUDA_ABS24_20", Source::Probed, &[v(20, 24, 0)]),
    desc(46, "R_CUDA_ABS16_20", Source::Probed, &[v(20, 16, 0)]),
    desc(47, "R_CUDA_FUNC_DESC32_20", Source::Name, &[v(20, 32, 0)]),
    desc(48, "R_CUDA_FUNC_DESC32_LO_20", Source::Name, &[v(20, 32, 0)]),
    desc(49, "R_CUDA_FUNC_DESC32_HI_20", Source::Name, &[v(20, 32, 32)]),
    desc(
        50,
        "R_CUDA_CONST_FIELD19_20",
        Source::Probed,
        &[v(20, 14, 2), sec_lo(34, 5)],
    ),
    desc(51, "R_CUDA_BINDLESSOFF13_36", Source::Probed, &[v(36, 13, 2)]),
    desc(52, "R_CUDA_SURF_HEADER_INDEX", Source::Unknown, &[]),
    desc(53, "R_CUDA_INSTRUCTION64", Source::Unknown, &[]),
    desc(
        54,
        "R_CUDA_CONST_FIELD21_20",
        Source::Probed,
        &[v(20, 16, 0), sec_lo(36, 5)],
    ),
    desc(55, "R_CUDA_ABS32_32", Source::Probed, &[v(32, 32, 0)]),
    desc(56, "R_CUDA_ABS32_LO_32", Source::Probed, &[v(32, 32, 0)]),
    desc(57, "R_CUDA_ABS32_HI_32", Source::Probed, &[v(32, 32, 32)]),
    desc(58, "R_CUDA_ABS47_34", Source::Name, &[v(34, 47, 0)]),
    desc(59, "R_CUDA_ABS16_32", Source::Probed, &[v(32, 16, 0)]),
    desc(60, "R_CUDA_ABS24_32", Source::Probed, &[v(32, 24, 0)]),
    desc(61, "R_CUDA_FUNC_DESC32_32", Source::Name, &[v(32, 32, 0)]),
    desc(62, "R_CUDA_FUNC_DESC32_LO_32", Source::Name, &[v(32, 32, 0)]),
    desc(63, "R_CUDA_FUNC_DESC32_HI_32", Source::Name, &[v(32, 32, 32)]),
    desc(
        64,
        "R_CUDA_CONST_FIELD19_40",
        Source::Probed,
        &[v(40, 14, 2), sec_lo(54, 5)],
    ),
    desc(65, "R_CUDA_BINDLESSOFF14_40", Source::Probed, &[v(40, 14, 2)]),
    desc(
        66,
        "R_CUDA_CONST_FIELD21_38",
        Source::Probed,
        &[v(38, 16, 0), sec_lo(54, 5)],
    ),
    desc(67, "R_CUDA_INSTRUCTION128", Source::Unknown, &[]),
    desc(68, "R_CUDA_YIELD_OPCODE9_0", Source::Unknown, &[]),
    desc(69, "R_CUDA_YIELD_CLEAR_PRED4_87", Source::Unknown, &[]),
    desc(70, "R_CUDA_32_LO", Source::Probed, &[v(0, 32, 0)]),
    desc(71, "R_CUDA_32_HI", Source::Probed, &[v(0, 32, 32)]),
    desc(72, "R_CUDA_UNUSED_CLEAR32", Source::Probed, &[clear(0, 32)]),
    desc(73, "R_CUDA_UNUSED_CLEAR64", Source::Probed, &[clear(0, 64)]),
    desc(74, "R_CUDA_ABS24_40", Source::Probed, &[v(40, 24, 0)]),
    desc(75, "R_CUDA_ABS55_16_34", Source::Unknown, &[]),
    desc(76, "R_CUDA_8_0", Source::Probed, &[v(0, 8, 0)]),
    desc(77, "R_CUDA_8_8", Source::Probed, &[v(0, 8, 8)]),
    desc(78, "R_CUDA_8_16", Source::Probed, &[v(0, 8, 16)]),
    desc(79, "R_CUDA_8_24", Source::Probed, &[v(0, 8, 24)]),
    desc(80, "R_CUDA_8_32", Source::Probed, &[v(0, 8, 32)]),
    desc(81, "R_CUDA_8_40", Source::Probed, &[v(0, 8, 40)]),
    desc(82, "R_CUDA_8_48", Source::Probed, &[v(0, 8, 48)]),
    desc(83, "R_CUDA_8_56", Source::Probed, &[v(0, 8, 56)]),
    desc(84, "R_CUDA_G8_0", Source::Name, &[v(0, 8, 0)]),
    desc(85, "R_CUDA_G8_8", Source::Name, &[v(0, 8, 8)]),
    desc(86, "R_CUDA_G8_16", Source::Name, &[v(0, 8, 16)]),
    desc(87, "R_CUDA_G8_24", Source::Name, &[v(0, 8, 24)]),
    desc(88, "R_CUDA_G8_32", Source::Name, &[v(0, 8, 32)]),
    desc(89, "R_CUDA_G8_40", Source::Name, &[v(0, 8, 40)]),
    desc(90, "R_CUDA_G8_48", Source::Name, &[v(0, 8, 48)]),
    desc(91, "R_CUDA_G8_56", Source::Name, &[v(0, 8, 56)]),
    desc(92, "R_CUDA_FUNC_DESC_8_0", Source::Name, &[v(0, 8, 0)]),
    desc(93, "R_CUDA_FUNC_DESC_8_8", Source::Name, &[v(0, 8, 8)]),
    desc(94, "R_CUDA_FUNC_DESC_8_16", Source::Name, &[v(0, 8, 16)]),
    desc(95, "R_CUDA_FUNC_DESC_8_24", Source::Name, &[v(0, 8, 24)]),
    desc(96, "R_CUDA_FUNC_DESC_8_32", Source::Name, &[v(0, 8, 32)]),
    desc(97, "R_CUDA_FUNC_DESC_8_40", Source::Name, &[v(0, 8, 40)]),
    desc(98, "R_CUDA_FUNC_DESC_8_48", Source::Name, &[v(0, 8, 48)]),
    desc(99, "R_CUDA_FUNC_DESC_8_56", Source::Name, &[v(0, 8, 56)]),
    desc(100, "R_CUDA_ABS20_44", Source::Probed, &[v(44, 20, 0)]),
    desc(101, "R_CUDA_SAMP_HEADER_INDEX_0", Source::Unknown, &[]),
    desc(102, "R_CUDA_UNIFIED", Source::Probed, &[v(0, 64, 0)]),
    desc(103, "R_CUDA_UNIFIED_32", Source::Probed, &[v(0, 32, 0)]),
    desc(104, "R_CUDA_UNIFIED_8_0", Source::Probed, &[v(0, 8, 0)]),
    desc(105, "R_CUDA_UNIFIED_8_8", Source::Probed, &[v(0, 8, 8)]),
    desc(106, "R_CUDA_UNIFIED_8_16", Source::Probed, &[v(0, 8, 16)]),
    desc(107, "R_CUDA_UNIFIED_8_24", Source::Probed, &[v(0, 8, 24)]),
    desc(108, "R_CUDA_UNIFIED_8_32", Source::Probed, &[v(0, 8, 32)]),
    desc(109, "R_CUDA_UNIFIED_8_40", Source::Probed, &[v(0, 8, 40)]),
    desc(110, "R_CUDA_UNIFIED_8_48", Source::Probed, &[v(0, 8, 48)]),
    desc(111, "R_CUDA_UNIFIED_8_56", Source::Probed, &[v(0, 8, 56)]),
    desc(112, "R_CUDA_UNIFIED32_LO_32", Source::Probed, &[v(32, 32, 0)]),
    desc(113, "R_CUDA_UNIFIED32_HI_32", Source::Probed, &[v(32, 32, 32)]),
    desc(114, "R_CUDA_ABS56_16_34", Source::Unknown, &[]),
    desc(
        115,
        "R_CUDA_CONST_FIELD22_37",
        Source::Probed,
        &[v(37, 17, 0), sec_lo(54, 5)],
    ),
];

/// The relocation architecture class of an SM (seed 002, sub_42F8C0):
/// 1 up to sm_70, 2 for sm_72, 3 for sm_73..75, 5 from sm_76 on.
pub fn arch_class(sm: u32) -> u32 {
    match sm {
        0 => 0,
        1..=70 => 1,
        71..=72 => 2,
        73..=75 => 3,
        _ => 5,
    }
}

/// Which descriptor table drives the code relocations of an architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Table {
    /// sm_75 to sm_90 (classes 3 and 5): the R_CUDA table, one for both
    /// classes (scripts/gen-reloc-goldens gives the same bits for every type
    /// on sm_75, sm_80 and sm_90).
    Classic,
    /// sm_100 and later: nvlink finalizes each function's Mercury code
    /// (`.nv.capmerc.text.<fn>`) again and writes the classic `.text.<fn>`
    /// from it, so a relocated field holds what the *Mercury* relocation
    /// of the instruction gives ([`mercury`]); the classic R_CUDA type only
    /// says where the field lies. Measured on sm_100 and sm_120: changing
    /// the classic record's type or addend changes nothing, changing the
    /// Mercury one's does.
    Mercury,
}

pub fn table(sm: u32) -> Table {
    if sm >= 100 { Table::Mercury } else { Table::Classic }
}

/// The descriptor of an R_CUDA type. One table serves every SM culdb
/// links: sm_75 to sm_90 apply it, sm_100+ use it to find the field the
/// Mercury value goes to ([`Table`]).
pub fn cuda(rtype: u32, _sm: u32) -> Option<&'static Desc> {
    let d = CUDA.get((rtype as usize).checked_sub(1)?)?;
    (d.rtype == rtype).then_some(d)
}

/// What a Mercury relocation type (0x10000 + n, n < 65: nvlink 13.5
/// fails with "Internal error: internal error" past that) makes of S + A
/// when nvlink finalizes an instruction, measured with
/// scripts/gen-reloc-goldens on a MOV's 32-bit immediate, against a shared
/// variable, with three addends (tests/data/reloc/sm100_mercury.txt,
/// sm120_mercury.txt; the two agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum MercKind {
    /// `((S + A) >> shift) & (2^width - 1)`.
    Value { shift: u8, width: u8 },
    /// The field is left 0 (0x10000, 0x10040).
    Nothing,
    /// nvlink keeps it for the driver: against a shared variable it fails
    /// with "reference to deleted symbol", as the classic driver types do.
    Driver,
    /// The finalizer refuses it on a 32-bit immediate ("Finalization
    /// failed: 'unsupported instruction'"): 0x1000e (UNUSED_CLEAR64's
    /// counterpart) always; the 64-bit types 0x10002 and 0x10032 when S + A
    /// is below 2^32 or is 2^63, while 0x1_0000_0040, 2^64 - 0x40 and
    /// 0x1234567890abcd00 gave their low halves (and a changed capsule).
    /// culdb gives them no value.
    Refused,
    /// nvlink crashes on it (0x1000f).
    Unknown,
}

/// The Mercury kind of a type (0x10000-based), None past the table.
pub fn mercury(rtype: u32) -> Option<MercKind> {
    let n = rtype.checked_sub(crate::cubin::catalog::MERCURY_RELOC_BASE)?;
    let byte = |k: u32| MercKind::Value {
        shift: (8 * k) as u8,
        width: 8,
    };
    Some(match n {
        0 | 0x40 => MercKind::Nothing,
        3 | 0x33 => MercKind::Value { shift: 0, width: 32 },
        4 => MercKind::Value { shift: 0, width: 16 },
        0x10..=0x17 => byte(n - 0x10),
        0x34..=0x3b => byte(n - 0x34),
        2 | 0xe | 0x32 => MercKind::Refused,
        0xf => MercKind::Unknown,
        1 | 5..=0xd | 0x18..=0x31 | 0x3c..=0x3f => MercKind::Driver,
        _ => return None,
    })
}

/// How many bytes a Mercury relocation patches in data (a debug section,
/// not code): 0x10002 the 64-bit address its classic twin R_CUDA_64 does,
/// 0x10003 (the 32-bit value type) and 0x10008 (kept for the driver) the
/// 32-bit offsets their classic twin R_CUDA_32 does (`.debug_frame`,
/// `.debug_abbrev` and `.debug_line` offsets in every -G input).
pub fn mercury_data_width(rtype: u32) -> Option<usize> {
    match rtype.checked_sub(crate::cubin::catalog::MERCURY_RELOC_BASE)? {
        2 => Some(8),
        3 | 8 => Some(4),
        _ => None,
    }
}

/// The value a Mercury relocation gives an instruction field, when nvlink
/// computes one.
pub fn mercury_value(rtype: u32, s: u64, a: i64) -> Option<u64> {
    let v = s.wrapping_add(a as u64);
    match mercury(rtype)? {
        MercKind::Value { shift, width } => Some((v >> shift) & ((1u64 << width) - 1)),
        MercKind::Nothing => Some(0),
        _ => None,
    }
}

/// nvlink rewrites the unified-table types to their plain equivalents when
/// it keeps them for the driver (corpus func_ptr_sm90, virtual_funcs_*:
/// R_CUDA_UNIFIED → R_CUDA_64; the others measured with nvlink 13.5).
pub fn unified_base(rtype: u32) -> Option<u32> {
    match rtype {
        102 => Some(2),
        103 => Some(1),
        104..=111 => Some(rtype - 104 + 76),
        112 => Some(56),
        113 => Some(57),
        _ => None,
    }
}

/// Types nvlink keeps for the driver whatever memory their symbol is in:
/// generic addresses (G*), function descriptors, texture/sampler/surface
/// headers, the CALL targets (ABS47_34, ABS55_16_34, ABS56_16_34) and
/// whole instructions. Measured with nvlink 13.5: against a shared variable
/// (which it applies every other type against) it fails with "Internal
/// error: reference to deleted symbol" for exactly these (it tried to keep
/// them); corpus const_bank_sm90 keeps an R_CUDA_G64 against a constant.
pub fn kept_for_driver(rtype: u32) -> bool {
    matches!(
        rtype,
        3 | 4 | 6..=9 | 31..=35 | 47..=49 | 52 | 53 | 58 | 61..=63 | 67 | 75 | 84..=99 | 101 | 114
    )
}

pub const R_CUDA_64: u32 = 2;

/// The slot types (a texture, sampler or surface slot number in an
/// instruction field): nvlink patches them with S = the symbol's st_value as
/// its input states it, not where layout moved it (scripts/gen-reloc-goldens
/// against `$__fixed__12`, st_value 4, placed at 0: the fields get A + 4;
/// experiments: st_value 8 or 0x20 gives 8 or 0x20, `dyn_smem`'s 0x10 gives
/// 0x10).
pub fn is_slot(rtype: u32) -> bool {
    matches!(rtype, 19..=21 | 26)
}
pub const R_CUDA_UNUSED_CLEAR32: u32 = 72;
pub const R_CUDA_UNUSED_CLEAR64: u32 = 73;
pub const R_CUDA_YIELD_OPCODE9_0: u32 = 68;
pub const R_CUDA_YIELD_CLEAR_PRED4_87: u32 = 69;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::catalog::{RelocFamily, reloc_name};

    #[test]
    fn numbered_as_the_catalog() {
        assert_eq!(CUDA.len(), 115);
        for (i, d) in CUDA.iter().enumerate() {
            assert_eq!(d.rtype as usize, i + 1);
            assert_eq!(reloc_name(RelocFamily::Cuda, d.rtype), Some(d.name));
            for a in d.actions {
                assert!(
                    a.width >= 1 && a.width <= 64 && a.bit as u32 + a.width as u32 <= 128,
                    "{}",
                    d.name
                );
            }
        }
        assert_eq!(cuda(0, 90), None);
        assert_eq!(cuda(116, 90), None);
        assert_eq!(cuda(66, 90).map(|d| d.name), Some("R_CUDA_CONST_FIELD21_38"));
    }

    #[test]
    fn unified_rewrites_name_the_plain_types() {
        for (u, b) in [
            (102, "R_CUDA_64"),
            (103, "R_CUDA_32"),
            (104, "R_CUDA_8_0"),
            (111, "R_CUDA_8_56"),
        ] {
            assert_eq!(reloc_name(RelocFamily::Cuda, unified_base(u).unwrap()), Some(b));
        }
        assert_eq!(
            reloc_name(RelocFamily::Cuda, unified_base(112).unwrap()),
            Some("R_CUDA_ABS32_LO_32")
        );
        assert_eq!(
            reloc_name(RelocFamily::Cuda, unified_base(113).unwrap()),
            Some("R_CUDA_ABS32_HI_32")
        );
        assert_eq!(unified_base(2), None);
    }

    #[test]
    fn driver_types_have_no_measured_layout() {
        for d in CUDA {
            if kept_for_driver(d.rtype) {
                assert_ne!(d.source, Source::Probed, "{}", d.name);
            }
        }
        assert!(kept_for_driver(4));
        assert!(!kept_for_driver(2));
    }

    #[test]
    fn mercury_values() {
        let v = 0x1234_5678_90ab_cd00u64;
        assert_eq!(mercury_value(0x1_0003, v, 0), Some(0x90ab_cd00));
        assert_eq!(mercury_value(0x1_0004, v, 0), Some(0xcd00));
        assert_eq!(mercury_value(0x1_0011, v, 0), Some(0xcd));
        assert_eq!(mercury_value(0x1_003b, v, 0), Some(0x12));
        assert_eq!(mercury_value(0x1_0040, v, 0), Some(0));
        assert_eq!(mercury_value(0x1_0005, v, 0), None);
        assert_eq!(mercury(0x1_0041), None);
        assert_eq!(mercury(5), None);
        assert_eq!(table(90), Table::Classic);
        assert_eq!(table(100), Table::Mercury);
    }

    #[test]
    fn classes() {
        assert_eq!(arch_class(70), 1);
        assert_eq!(arch_class(72), 2);
        assert_eq!(arch_class(75), 3);
        assert_eq!(arch_class(90), 5);
        assert_eq!(arch_class(120), 5);
    }
}
