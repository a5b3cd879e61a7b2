//! The action engine (seed 002, sub_468760): runs a descriptor's actions on
//! the bytes of an output section.

use serde::Serialize;

use crate::link::event::reloc::FieldChange;

use super::bits;
use super::descriptors::{Desc, Kind};

/// The values a relocation is applied with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Inputs {
    /// The symbol's final value.
    pub s: u64,
    /// The addend.
    pub a: i64,
    /// The patched place (offset in the output section), for PC-relative types.
    pub p: u64,
    /// The CUDA section type code of the symbol's section
    /// (`sh_type - 0x6fffff84`, see [`section_type_code`]).
    pub sec_type: u32,
    /// nvlink's non-absolute mode, for SHT_REL records: each field's old
    /// contents (the implicit addend) are added to the value.
    pub additive: bool,
}

/// Why a relocation could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// The field lies (partly) past the end of the section.
    OutOfRange { bit: u16, width: u8 },
    /// The type has no known layout.
    NoLayout,
}

/// `sh_type - 0x6fffff84` as nvlink computes it for CONST_FIELD types.
pub fn section_type_code(sh_type: u32) -> u32 {
    sh_type.wrapping_sub(0x6fff_ff84)
}

/// Applies `desc` at byte `at` of `data`. On error nothing is written.
pub fn apply(desc: &Desc, data: &mut [u8], at: u64, x: Inputs) -> Result<Vec<FieldChange>, ApplyError> {
    if !desc.applicable() {
        return Err(ApplyError::NoLayout);
    }
    // Check every field first: a partial patch would be worse than none.
    for a in desc.actions {
        if bits::extract(data, at, a.bit.into(), a.width.into()).is_none() {
            return Err(ApplyError::OutOfRange {
                bit: a.bit,
                width: a.width,
            });
        }
    }
    let value = x.s.wrapping_add(x.a as u64);
    let mut changes = Vec::with_capacity(desc.actions.len());
    for a in desc.actions {
        let (bit, width) = (u32::from(a.bit), u32::from(a.width));
        let before = bits::extract(data, at, bit, width).unwrap_or(0);
        let old = if x.additive { before } else { 0 };
        let mask = |w: u32| if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        let field = match a.kind {
            Kind::Value(shift) => (value >> shift).wrapping_add(old),
            Kind::SecTypeLo => u64::from(x.sec_type & 0xff) & mask(width.min(8)),
            Kind::SecTypeHi => u64::from((x.sec_type >> 4) & 0xff) & mask(width.min(8)),
            Kind::Clear => 0,
            Kind::PcRel => value.wrapping_add(old).wrapping_sub(x.p),
        };
        bits::insert(data, at, bit, width, field);
        let after = bits::extract(data, at, bit, width).unwrap_or(0);
        changes.push(FieldChange {
            bit: a.bit,
            width: a.width,
            before,
            after,
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::super::descriptors::cuda;
    use super::*;

    fn x(s: u64, a: i64, sec_type: u32) -> Inputs {
        Inputs {
            s,
            a,
            p: 0,
            sec_type,
            additive: false,
        }
    }

    #[test]
    fn const_field_writes_offset_and_bank() {
        // Corpus arch_sm90_smoke: lib_const+4 in .nv.constant3 → field 4, bank 3.
        let d = cuda(66, 90).unwrap();
        let mut data = vec![0u8; 16];
        let code = section_type_code(0x7000_0064 + 3);
        apply(d, &mut data, 0, x(0, 4, code)).unwrap();
        assert_eq!(bits::extract(&data, 0, 38, 16), Some(4));
        assert_eq!(bits::extract(&data, 0, 54, 5), Some(3));
    }

    #[test]
    fn hi_and_lo_halves() {
        let mut data = vec![0u8; 32];
        apply(cuda(56, 90).unwrap(), &mut data, 0, x(0x1_2345_6789, 0x11, 0)).unwrap();
        apply(cuda(57, 90).unwrap(), &mut data, 16, x(0x1_2345_6789, 0x11, 0)).unwrap();
        assert_eq!(bits::extract(&data, 0, 32, 32), Some(0x2345_679a));
        assert_eq!(bits::extract(&data, 16, 32, 32), Some(1));
    }

    #[test]
    fn additive_adds_the_old_field() {
        let d = cuda(66, 90).unwrap();
        let mut data = vec![0u8; 16];
        bits::insert(&mut data, 0, 38, 16, 0x220);
        let mut i = x(8, 0, section_type_code(0x7000_0064));
        i.additive = true;
        let ch = apply(d, &mut data, 0, i).unwrap();
        assert_eq!(ch[0].before, 0x220);
        assert_eq!(ch[0].after, 0x228);
    }

    #[test]
    fn out_of_range_writes_nothing() {
        let mut data = vec![0xaau8; 12];
        let e = apply(cuda(2, 90).unwrap(), &mut data, 8, x(1, 0, 0));
        assert!(matches!(e, Err(ApplyError::OutOfRange { .. })));
        assert_eq!(data, vec![0xaau8; 12]);
        assert_eq!(
            apply(cuda(6, 90).unwrap(), &mut data, 0, x(1, 0, 0)),
            Err(ApplyError::NoLayout)
        );
    }
}
