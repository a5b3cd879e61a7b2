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
//!   (`.nv_debug.shared`), input by input, in symbol order, sorted by size
//!   (smallest first), then reversed. The variables several kernels reach
//!   take that order, from offset 0, without another sort.

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

    /// Eight equal file-scope variables two kernels reach: their offsets in
    /// nvlink's output, in symbol order g0..g7.
    #[test]
    fn module_order_of_equal_sizes() {
        let idx: Vec<usize> = (0..8).collect();
        assert_eq!(module_order(&idx, |_| 0x40), [5, 1, 7, 3, 4, 0, 6, 2]);
    }
}
