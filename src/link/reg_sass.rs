//! `.nv_debug_info_reg_sass`: where each function's PTX registers live in
//! its SASS code, written by ptxas under `-g`.
//!
//! Layout (read from ptxas 13.5's sm_100 objects and checked to parse to
//! the last byte on the real-world sweep's `-G` outputs): one block per
//! function, a NUL-terminated function name and an entry count (u32);
//! then each entry: a u32 flag, the register's PTX name (NUL-terminated),
//! a u32 describing its location, and the first and the last code offset
//! of the range (u32 each).

use foldhash::HashMap;

use crate::cubin::consts::STT_FUNC;

use super::state::LinkState;

/// The section's name.
pub const REG_SASS: &str = ".nv_debug_info_reg_sass";

/// Bytes of an entry after its name: location, start, end.
const FIELDS: usize = 12;

/// sm_100+: the byte ranges of the output's `.nv_debug_info_reg_sass` that
/// nvlink zeroes: the code offsets of each block whose function name
/// the output gives to another input, a weak definition this input lost
/// (debug_weak_lost_lines_sm120; real world histogram and sortingNetworks
/// for sm_100 `-G`) or a static function of the same name that an earlier
/// input defines too (mergeSort's `umin`, eigenvalues' `fmaxf`: both
/// copies' code stays, the later block is zeroed). sm_90 keeps them all
/// (the same samples for sm_90 `-G`).
pub fn cleared(st: &LinkState) -> Vec<(usize, usize)> {
    let Some(k) = st.section_named(REG_SASS) else {
        return Vec::new();
    };
    let sec = &st.sections[k];
    // The input that owns each function name: the first definition.
    let mut owner: HashMap<&[u8], usize> = HashMap::default();
    for (_, y) in st.all_symbols() {
        if y.sym_type == STT_FUNC && y.is_defined() {
            owner.entry(y.name.as_bytes()).or_insert(y.input);
        }
    }
    let mut out = Vec::new();
    for c in sec.contributions.iter().filter(|c| c.live) {
        let start = c.offset as usize;
        let Some(bytes) = sec.data.get(start..start + c.size as usize) else {
            continue;
        };
        let other = |name: &[u8]| owner.get(name).is_some_and(|&i| i != c.input);
        out.extend(
            block_ranges(bytes, other)
                .into_iter()
                .map(|(at, len)| (start + at, len)),
        );
    }
    out
}

/// The byte ranges (offset, length) holding the code offsets (start and
/// end) of every entry of the blocks whose function name `picked` accepts
/// (lost copies to zero, re-finalized functions to take from the
/// finalizer). A block that does not parse ends the walk: what follows is
/// left alone.
pub fn block_ranges(data: &[u8], picked: impl Fn(&[u8]) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let Some(name) = cstr(data, at) else { break };
        let header = at + name.len() + 1;
        let Some(count) = u32_at(data, header) else { break };
        let mut e = header + 4;
        let mut spots = Vec::new();
        let mut ok = true;
        for _ in 0..count {
            // The flag, then the name.
            let Some(reg) = cstr(data, e + 4) else {
                ok = false;
                break;
            };
            let fields = e + 4 + reg.len() + 1;
            if fields + FIELDS > data.len() {
                ok = false;
                break;
            }
            spots.push((fields + 4, 8));
            e = fields + FIELDS;
        }
        if !ok {
            break;
        }
        if picked(name) {
            out.extend(spots);
        }
        at = e;
    }
    out
}

fn cstr(data: &[u8], at: usize) -> Option<&[u8]> {
    let rest = data.get(at..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    Some(&rest[..end])
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str, regs: &[(&str, u32, u32)]) -> Vec<u8> {
        let mut b = name.as_bytes().to_vec();
        b.push(0);
        b.extend((regs.len() as u32).to_le_bytes());
        for (k, &(r, start, end)) in regs.iter().enumerate() {
            b.extend((k as u32 & 1).to_le_bytes());
            b.extend(r.as_bytes());
            b.push(0);
            b.extend(0x0500_0004u32.to_le_bytes());
            b.extend(start.to_le_bytes());
            b.extend(end.to_le_bytes());
        }
        b
    }

    #[test]
    fn finds_the_ranges_of_lost_functions_only() {
        let mut data = block("_Z1fv", &[("%rd1", 0x70, 0xb0), ("%rd2", 0xb0, 0xf0)]);
        let second = data.len();
        data.extend(block("_Z1gv", &[("%r1", 0x60, 0x220)]));
        let r = block_ranges(&data, |n| n == b"_Z1fv");
        let first_fields = "_Z1fv".len() + 1 + 4 + 4 + "%rd1".len() + 1;
        let second_fields = first_fields + FIELDS + 4 + "%rd2".len() + 1;
        assert_eq!(r, vec![(first_fields + 4, 8), (second_fields + 4, 8)]);
        assert!(r.iter().all(|&(at, _)| at < second));
        assert_eq!(block_ranges(&data, |n| n == b"_Z1gv").len(), 1);
    }

    #[test]
    fn truncated_blocks_stop_the_walk() {
        let data = block("_Z1fv", &[("%rd1", 0x70, 0xb0)]);
        for cut in 0..data.len() {
            let r = block_ranges(&data[..cut], |_| true);
            assert!(r.iter().all(|&(at, len)| at + len <= cut));
        }
        assert_eq!(block_ranges(&data, |_| true).len(), 1);
    }
}
