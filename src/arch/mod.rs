//! The architecture profile database (seed 004), checked against nvlink 13.5.
//!
//! [`all`] holds the 78 values nvlink 13.5 lists for `--arch`: `sm_`,
//! `compute_` and `lto_` for 75, 80, 86, 87, 88, 89, 90, 90a and for 100,
//! 103, 107, 110, 120, 121 each plain, `a` and `f` ([`profiles`]).
//!
//! # How a cubin records its arch ([`input`])
//!
//! e_flags = `cuinfo << 24 | sm << 8 | enc` (cuinfo: the section index of
//! `.note.nv.cuinfo`, 6 in ptxas output), enc = 0x04 (SASS, sm_75..sm_90) or
//! 0x02 (Mercury, sm_100+). The `a` suffix lives in `.nv.compat`
//! (CUDA_ACCELERATOR_TARGET = 1), not in e_flags; `f` is not recorded at all,
//! so nvlink cannot tell an sm_100f cubin from an sm_100 one.
//!
//! # What nvlink accepts ([`compat`]; golden: tests/data/arch/matrix.tsv)
//!
//! For one cubin `I` (file `F`) in a link with `-arch=T`, in this order; every
//! refusal is `fatal` with exit status 1:
//!
//! 1. `T` is `lto_*`: `Link target of 'T' is virtual target that is not
//!    JIT-able; use 'sm_' target instead`, whatever the input.
//! 2. `T` is sm ≥ 100 (Mercury) and `I` is not Mercury: warning `Output is
//!    limited to run on SM Arch 'N' only due to limitations in input file F`
//!    (N = T's SM number, F unquoted).
//! 3. `I` is accelerated and `T` has no `a`: `cannot link accelerated arch to
//!    non-accelerated` (before any SM comparison).
//! 4. Otherwise `Input file 'F' arch does not match target 'T'` unless:
//!
//! | input `I`            | target `T`   | accepted when                                   |
//! |----------------------|--------------|-------------------------------------------------|
//! | accelerated (`a`)    | `sm_`/`compute_` with `a` | same SM                            |
//! | plain                | `sm_` (any suffix)        | same major (sm/10), I.sm ≤ T.sm; into a Mercury T a non-Mercury I only for the same SM |
//! | plain                | `compute_` (none/`a`)     | I.sm ≤ T.sm (any major)            |
//! | plain                | `compute_…f`              | same major, I.sm ≤ T.sm            |
//!
//! So sm_80 → sm_86/87/88/89 and sm_100 → sm_103/107, sm_120 → sm_121 link
//! (output e_flags carry T's SM); sm_75, sm_90 and sm_110 accept only
//! themselves; `a` and `f` targets accept what their base accepts, `a`
//! targets also their own `a` cubins. A `compute_` target that accepts its
//! cubin links with status 0 and writes no output file.
//!
//! Options: an unknown `--arch` value (also `sm_90f`, `SM_90`, `sass_90`) is
//! `fatal : Value 'X' is not defined for option 'arch'`; inputs without
//! `--arch` give `fatal : Unknown arch name '(null)'` (tests/data/arch/options.tsv).

pub mod compat;
pub mod input;
pub mod profiles;

pub use compat::{ArchMismatch, MismatchKind, check_input, check_target, missing_arch_message, sm_compatible};
pub use input::{InputArch, accelerator_target, input_arch};
pub use profiles::{Kind, Profile, Suffix, all, find, lookup};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_every_profile_by_its_name() {
        assert_eq!(all().len(), 78);
        for p in all() {
            assert_eq!(lookup(p.name).map(|q| q.name), Some(p.name));
        }
        assert!(lookup("sm_91").is_none());
        assert!(lookup("SM_90").is_none());
        assert!(lookup("").is_none());
    }

    #[test]
    fn profile_fields() {
        let p = lookup("sm_100f").unwrap();
        assert_eq!(
            (p.kind, p.sm, p.suffix, p.isa_class),
            (Kind::Real, 100, Suffix::F, "Blackwell")
        );
        assert_eq!(p.cuda_arch_define(), "-D__CUDA_ARCH__=100f0");
        assert_eq!(p.compute_profile().name, "compute_100f");
        assert_eq!(p.base().name, "sm_100");
        assert!(p.is_mercury() && p.is_family() && !p.is_accelerated());
        let l = lookup("lto_90a").unwrap();
        assert_eq!(
            (l.kind, l.compute, l.real_profile().name),
            (Kind::Lto, "compute_90a", "sm_90a")
        );
        assert!(!lookup("compute_90").unwrap().is_mercury());
        assert_eq!(lookup("sm_107").unwrap().isa_class, "Rubin");
    }

    #[test]
    fn input_arch_from_ptxas_flags() {
        let i = input_arch(0x0600_6402, Some(1));
        assert_eq!(
            (i.sm, i.accelerated, i.mercury, i.name()),
            (100, true, true, "sm_100a".to_string())
        );
        let j = input_arch(0x0600_5a04, None);
        assert_eq!((j.sm, j.accelerated, j.mercury), (90, false, false));
        assert!(!input_arch(0x0600_5a04, Some(2)).accelerated);
        assert_eq!(accelerator_target(&[2, 9, 1, 0]), Some(1));
        assert_eq!(accelerator_target(&[0xff]), None);
        assert_eq!(lookup("sm_103").unwrap().output_e_flags(true), 0x0600_6702);
        assert_eq!(lookup("sm_100").unwrap().output_e_flags(false), 0x0600_6404);
    }
}
