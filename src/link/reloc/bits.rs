//! Bit fields of instruction and data words (seed 002, sub_468670 and
//! sub_4685B0): a field of `width` bits starting `bit` bits into the
//! little-endian words at a byte offset, crossing 64-bit word boundaries
//! where it has to (R_CUDA_ABS47_34, the 128-bit SASS encodings).
//!
//! Unlike nvlink, which reads whole 64-bit words, these touch only the bytes
//! that hold the field, so a 32-bit data relocation in the last four bytes of
//! a section is not a read past its end. Everything is checked: a field that
//! does not fit in the buffer is `None`, never a panic.

/// The widest field one action writes.
pub const MAX_WIDTH: u32 = 64;

/// The byte range `[first, end)` of `data` holding bits `[bit, bit+width)`
/// of the words at byte `at`, if it is inside `data`.
fn span(len: usize, at: u64, bit: u32, width: u32) -> Option<(usize, usize)> {
    if width == 0 || width > MAX_WIDTH {
        return None;
    }
    let first = at.checked_add(u64::from(bit / 8))?;
    let end = at.checked_add((u64::from(bit) + u64::from(width)).div_ceil(8))?;
    if end > len as u64 {
        return None;
    }
    Some((first as usize, end as usize))
}

/// The field's value (zero-extended).
pub fn extract(data: &[u8], at: u64, bit: u32, width: u32) -> Option<u64> {
    let (first, end) = span(data.len(), at, bit, width)?;
    // At most 9 bytes: a 64-bit field that starts mid-byte.
    let mut window: u128 = 0;
    for (i, b) in data[first..end].iter().enumerate() {
        window |= u128::from(*b) << (8 * i);
    }
    let v = (window >> (bit % 8)) as u64;
    Some(if width == 64 { v } else { v & ((1u64 << width) - 1) })
}

/// Writes the low `width` bits of `value` into the field; the other bits of
/// the words stay as they were.
pub fn insert(data: &mut [u8], at: u64, bit: u32, width: u32, value: u64) -> Option<()> {
    let (first, end) = span(data.len(), at, bit, width)?;
    let mut window: u128 = 0;
    for (i, b) in data[first..end].iter().enumerate() {
        window |= u128::from(*b) << (8 * i);
    }
    let shift = bit % 8;
    let mask = (if width == 64 {
        u128::from(u64::MAX)
    } else {
        (1u128 << width) - 1
    }) << shift;
    window = (window & !mask) | ((u128::from(value) << shift) & mask);
    for (i, b) in data[first..end].iter_mut().enumerate() {
        *b = (window >> (8 * i)) as u8;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's reference algorithm over 64-bit words, for comparison.
    fn seed_extract(words: &[u64], bit: u32, width: u32) -> u64 {
        let mut v = 0u64;
        for i in 0..width {
            let b = bit + i;
            v |= ((words[(b / 64) as usize] >> (b % 64)) & 1) << i;
        }
        v
    }

    fn to_bytes(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn worked_example_abs32_26() {
        // Seed 002's worked example: 0xDEADBEEF at bits [26, 58).
        let mut d = vec![0u8; 8];
        insert(&mut d, 0, 26, 32, 0xDEAD_BEEF).unwrap();
        assert_eq!(u64::from_le_bytes(d.clone().try_into().unwrap()), 0x037A_B6FB_BC00_0000);
        assert_eq!(extract(&d, 0, 26, 32), Some(0xDEAD_BEEF));
    }

    #[test]
    fn crosses_word_boundary() {
        // R_CUDA_ABS47_34: 30 bits in word 0, 17 in word 1.
        let mut d = vec![0xffu8; 16];
        insert(&mut d, 0, 34, 47, 0).unwrap();
        let w0 = u64::from_le_bytes(d[..8].try_into().unwrap());
        let w1 = u64::from_le_bytes(d[8..].try_into().unwrap());
        assert_eq!(w0, (1u64 << 34) - 1);
        assert_eq!(w1, !((1u64 << 17) - 1));
        insert(&mut d, 0, 34, 47, 0x7fff_ffff_ffff).unwrap();
        assert_eq!(d, vec![0xffu8; 16]);
        insert(&mut d, 0, 34, 47, 0x1234_5678_9abc).unwrap();
        assert_eq!(extract(&d, 0, 34, 47), Some(0x1234_5678_9abc));
    }

    #[test]
    fn matches_the_seed_bit_by_bit() {
        let words = [0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210, 0x0f1e_2d3c_4b5a_6978];
        let bytes = to_bytes(&words);
        for bit in 0..128 {
            for width in 1..=64u32 {
                if bit + width > 192 {
                    continue;
                }
                assert_eq!(
                    extract(&bytes, 0, bit, width),
                    Some(seed_extract(&words, bit, width)),
                    "{bit} {width}"
                );
            }
        }
    }

    #[test]
    fn insert_leaves_other_bits() {
        let words = [0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210];
        for bit in (0..100).step_by(7) {
            for width in [1u32, 2, 5, 8, 13, 16, 24, 32, 47, 55, 64] {
                if bit + width > 128 {
                    continue;
                }
                let mut d = to_bytes(&words);
                let value = 0xa5a5_5a5a_c3c3_3c3cu64;
                insert(&mut d, 0, bit, width, value).unwrap();
                let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
                assert_eq!(extract(&d, 0, bit, width), Some(value & mask));
                let orig = to_bytes(&words);
                for b in 0..128u32 {
                    if b < bit || b >= bit + width {
                        assert_eq!(extract(&d, 0, b, 1), extract(&orig, 0, b, 1), "bit {b} ({bit},{width})");
                    }
                }
            }
        }
    }

    #[test]
    fn out_of_range_is_none() {
        let mut d = vec![0u8; 12];
        assert_eq!(extract(&d, 8, 0, 32), Some(0));
        assert_eq!(extract(&d, 8, 0, 64), None);
        assert_eq!(insert(&mut d, 10, 0, 32, 1), None);
        assert_eq!(insert(&mut d, u64::MAX, 0, 8, 1), None);
        assert_eq!(extract(&d, 0, 0, 0), None);
        assert_eq!(extract(&d, 0, 0, 65), None);
        assert_eq!(d, vec![0u8; 12]);
    }
}
