//! The order nvlink lays shared variables out in: its own list merge sort,
//! which is not stable, so variables of equal alignment and size land in an
//! order that depends only on their positions in the list it is given.
//!
//! What nvlink 13.5 does (found by experiment on generated kernels of 2 to
//! 33 variables, mixed sizes and alignments, several kernels and objects, a
//! symbol table permuted by hand; sm_80, sm_90, sm_100; pinned by the corpus
//! cases `shared_order_sm90` and `shared_module_only_sm90`):
//!
//! * The sort deals the list's nodes out alternately into two halves,
//!   prepending, so each half comes out reversed; sorts each half; then
//!   merges them, taking from the second half only when its head sorts
//!   strictly before the first half's.
//! * A kernel's list: its own variables (`.nv.shared.<k>`) in input symbol
//!   order, then the module-level variables only it reaches, in the module
//!   order below; sorted by alignment (largest first), then size (smallest
//!   first).
//! * The module order: every variable of the module-level shared section
//!   (`.nv_debug.shared`) and every extern shared array (size 0), input by
//!   input, in symbol order, sorted by size (smallest first), then
//!   reversed. The variables several kernels reach and the ones none
//!   reaches (a dead function's) are placed in that order, without another
//!   sort, by `first_fit` (observation 204): variables no kernel reaches
//!   together share memory (real-world sweep sw17, cgSolver's two
//!   `block_sum<T>`; corpus `shared_overlap_sm90`, `shared_overlap_hole_sm75`).

use std::cmp::Ordering;

/// nvlink's merge sort of `list` by `cmp`.
pub fn msort<T: Copy>(list: &[T], cmp: &impl Fn(&T, &T) -> Ordering) -> Vec<T> {
    if list.len() <= 1 {
        return list.to_vec();
    }
    let first: Vec<T> = list.iter().step_by(2).rev().copied().collect();
    let second: Vec<T> = list.iter().skip(1).step_by(2).rev().copied().collect();
    let (a, b) = (msort(&first, cmp), msort(&second, cmp));
    let mut out = Vec::with_capacity(list.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if cmp(&b[j], &a[i]) == Ordering::Less {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A kernel's shared variables, `(alignment, size)` by `key`, in layout order.
pub fn kernel_order<T: Copy>(list: &[T], key: impl Fn(&T) -> (u64, u64)) -> Vec<T> {
    msort(list, &|x, y| {
        let ((ax, sx), (ay, sy)) = (key(x), key(y));
        ay.cmp(&ax).then(sx.cmp(&sy))
    })
}

/// The module-level shared variables, `size` by `size`, in nvlink's order.
pub fn module_order<T: Copy>(list: &[T], size: impl Fn(&T) -> u64) -> Vec<T> {
    let mut v = msort(list, &|x, y| size(x).cmp(&size(y)));
    v.reverse();
    v
}

/// nvlink's first fit of the variables several kernels reach: `vars` in the
/// module order, `key` their `(alignment, size)`, `meets` whether some kernel
/// reaches both. Each starts at offset 0; while a variable placed before it
/// that it meets overlaps it there, it moves past every variable overlapping
/// it there, met or not, to the next multiple of its alignment. So it may lie
/// over variables it does not meet, but only where it first tried or where
/// such a jump left it (a dead function's 0x280-byte array at 0 and a
/// function's 0x80- and 5-byte arrays two kernels reach: the 5-byte one
/// meets the 0x80-byte one at 0 and goes to 0x280, past both; sweep probe
/// /tmp/shx/p/a). Returns the offsets, in the order of `vars`.
pub fn first_fit<T>(vars: &[T], key: impl Fn(&T) -> (u64, u64), meets: impl Fn(&T, &T) -> bool) -> Vec<u64> {
    // Each placed variable holds from where its search stood before it was
    // aligned: the padding is its own, no later variable goes there (a
    // 16-aligned array after a 0x64-byte one holds 0x64..0xa4; a 4-byte
    // array all of them meet goes to 0xb4, not into 0x64..0x70; sm_75,
    // checked by hand).
    let mut placed: Vec<(u64, u64)> = Vec::with_capacity(vars.len());
    let mut offsets = Vec::with_capacity(vars.len());
    for (i, v) in vars.iter().enumerate() {
        let (align, size) = key(v);
        let align = align.max(1);
        let (mut from, mut at) = (0, 0);
        loop {
            let over = |j: &usize| placed[*j].0 < at + size && at < placed[*j].1;
            if !(0..i).filter(over).any(|j| meets(v, &vars[j])) {
                break;
            }
            from = (0..i).filter(over).map(|j| placed[j].1).max().unwrap_or(at);
            at = from.div_ceil(align) * align;
        }
        placed.push((from, at + size));
        offsets.push(at);
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variables of one size and alignment, numbered by symbol order: the
    /// offsets nvlink gave them (cuobjdump -sass of each link).
    #[test]
    fn equal_keys_land_as_nvlink_puts_them() {
        let order = |n: usize| kernel_order(&(0..n).collect::<Vec<_>>(), |_| (4, 0x40));
        assert_eq!(order(2), [0, 1]);
        assert_eq!(order(3), [2, 0, 1]);
        assert_eq!(order(4), [2, 0, 3, 1]);
        assert_eq!(order(5), [0, 4, 2, 3, 1]);
        assert_eq!(order(6), [0, 4, 2, 1, 5, 3]);
        assert_eq!(order(17), [0, 16, 8, 12, 4, 10, 2, 14, 6, 11, 3, 15, 7, 9, 1, 13, 5]);
    }

    #[test]
    fn alignment_then_size() {
        // (alignment, size)
        let v = [(4, 12), (16, 32), (8, 8), (4, 40)];
        assert_eq!(kernel_order(&v, |&x| x), [(16, 32), (8, 8), (4, 12), (4, 40)]);
    }

    /// The sweep's probe: B (0x100) with C (0x80) in one kernel, C with D
    /// (0x40) in another; D never meets B, so it goes under C, at 0.
    #[test]
    fn first_fit_fills_a_hole() {
        let v = [('B', 8, 0x100), ('C', 4, 0x80), ('D', 4, 0x40)];
        let meets = |x: &(char, u64, u64), y: &(char, u64, u64)| {
            matches!((x.0, y.0), ('B', 'C') | ('C', 'B') | ('C', 'D') | ('D', 'C'))
        };
        assert_eq!(first_fit(&v, |x| (x.1, x.2), meets), [0, 0x100, 0]);
        // A dead function's array (met by none), then s0 and s1 two kernels
        // reach: s1 meets s0 at 0 and jumps past both.
        let v = [('X', 16, 0x280), ('s', 4, 0x80), ('t', 1, 5)];
        let meets = |x: &(char, u64, u64), y: &(char, u64, u64)| x.0 != 'X' && y.0 != 'X';
        assert_eq!(first_fit(&v, |x| (x.1, x.2), meets), [0, 0, 0x280]);
        // Met by everything: one after the other, each aligned.
        let v = [(4, 0x64), (16, 0x34), (4, 0x10), (1, 4)];
        assert_eq!(first_fit(&v, |&x| x, |_, _| true), [0, 0x70, 0xa4, 0xb4]);
    }

    /// Eight equal file-scope variables two kernels reach: their offsets in
    /// nvlink's output, in symbol order g0..g7.
    #[test]
    fn module_order_of_equal_sizes() {
        let idx: Vec<usize> = (0..8).collect();
        assert_eq!(module_order(&idx, |_| 0x40), [5, 1, 7, 3, 4, 0, 6, 2]);
    }
}
