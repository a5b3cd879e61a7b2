//! The profile table: every value nvlink 13.5 lists for `--arch`.
//!
//! One row per GPU architecture; each row gives three profiles (`sm_`,
//! `compute_`, `lto_`). The ISA class names and `__CUDA_ARCH__` values are the
//! strings nvlink 13.5 holds (`-D__CUDA_ARCH__=90a0`, "Hopper", ...); suffix
//! variants take their base architecture's class.

use serde::Serialize;

/// What an `--arch` name selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    /// `sm_NN`: machine code for one GPU.
    Real,
    /// `compute_NN`: a virtual architecture (PTX).
    Virtual,
    /// `lto_NN`: NVVM IR for link-time optimization.
    Lto,
}

/// The letter after the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Suffix {
    None,
    /// `a`: architecture-specific ("accelerated") features; runs only on that SM.
    A,
    /// `f`: family-specific features; runs on later SMs of the same family.
    F,
}

impl Suffix {
    pub fn letter(self) -> &'static str {
        match self {
            Suffix::None => "",
            Suffix::A => "a",
            Suffix::F => "f",
        }
    }
}

/// One architecture profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// The `--arch` value, e.g. `sm_100a`.
    pub name: &'static str,
    pub kind: Kind,
    /// The SM number, e.g. 100.
    pub sm: u32,
    pub suffix: Suffix,
    /// ISA class (family) name as nvlink holds it: Turing, Ampere, Ada,
    /// Hopper, Blackwell, Rubin.
    pub isa_class: &'static str,
    /// The `__CUDA_ARCH__` value nvlink passes to the compiler, e.g. `900`,
    /// `90a0`, `100f0`.
    pub cuda_arch: &'static str,
    /// The corresponding `compute_` profile's name (itself for `compute_`).
    pub compute: &'static str,
}

macro_rules! table {
    ($( $sm:literal $sfx:literal $suffix:ident $class:literal $define:literal; )*) => {
        /// Every profile: the `sm_` ones, then `compute_`, then `lto_`, each in
        /// SM order with the suffix variants after their base.
        pub static PROFILES: &[Profile] = &[
            $( Profile {
                name: concat!("sm_", $sm, $sfx), kind: Kind::Real, sm: $sm, suffix: Suffix::$suffix,
                isa_class: $class, cuda_arch: $define, compute: concat!("compute_", $sm, $sfx),
            }, )*
            $( Profile {
                name: concat!("compute_", $sm, $sfx), kind: Kind::Virtual, sm: $sm, suffix: Suffix::$suffix,
                isa_class: $class, cuda_arch: $define, compute: concat!("compute_", $sm, $sfx),
            }, )*
            $( Profile {
                name: concat!("lto_", $sm, $sfx), kind: Kind::Lto, sm: $sm, suffix: Suffix::$suffix,
                isa_class: $class, cuda_arch: $define, compute: concat!("compute_", $sm, $sfx),
            }, )*
        ];
    };
}

table! {
//  sm   sfx  suffix  ISA class     __CUDA_ARCH__
    75   ""   None    "Turing"      "750";
    80   ""   None    "Ampere"      "800";
    86   ""   None    "Ampere"      "860";
    87   ""   None    "Ampere"      "870";
    88   ""   None    "Ampere"      "880";
    89   ""   None    "Ada"         "890";
    90   ""   None    "Hopper"      "900";
    90   "a"  A       "Hopper"      "90a0";
    100  ""   None    "Blackwell"   "1000";
    100  "a"  A       "Blackwell"   "100a0";
    100  "f"  F       "Blackwell"   "100f0";
    103  ""   None    "Blackwell"   "1030";
    103  "a"  A       "Blackwell"   "103a0";
    103  "f"  F       "Blackwell"   "103f0";
    107  ""   None    "Rubin"       "1070";
    107  "a"  A       "Rubin"       "107a0";
    107  "f"  F       "Rubin"       "107f0";
    110  ""   None    "Blackwell"   "1100";
    110  "a"  A       "Blackwell"   "110a0";
    110  "f"  F       "Blackwell"   "110f0";
    120  ""   None    "Blackwell"   "1200";
    120  "a"  A       "Blackwell"   "120a0";
    120  "f"  F       "Blackwell"   "120f0";
    121  ""   None    "Blackwell"   "1210";
    121  "a"  A       "Blackwell"   "121a0";
    121  "f"  F       "Blackwell"   "121f0";
}

/// The SM numbers from which ptxas writes Mercury-encoded cubins.
pub const FIRST_MERCURY_SM: u32 = 100;

/// The high byte of e_flags as ptxas 13.5 writes it: it is the section index
/// of `.note.nv.cuinfo` (6 in ptxas's layout); emit sets it to the note's
/// index in the output (corpus README obs. 51).
pub const EF_FORMAT: u32 = 0x0600_0000;
/// e_flags bit set in Mercury-encoded cubins (sm_100+ as ptxas writes them).
pub const EF_MERCURY: u32 = 0x2;
/// e_flags bit set in cubins holding final SASS (sm_75..sm_90 from ptxas, and
/// nvlink's output when a non-Mercury input pins it to one SM).
pub const EF_SASS: u32 = 0x4;

/// The profile named `name` (exact, case-sensitive, as nvlink matches it).
pub fn lookup(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Every profile nvlink accepts for `--arch`.
pub fn all() -> &'static [Profile] {
    PROFILES
}

/// The profile of `kind` for `sm` with `suffix`, if nvlink has one.
pub fn find(kind: Kind, sm: u32, suffix: Suffix) -> Option<&'static Profile> {
    PROFILES
        .iter()
        .find(|p| p.kind == kind && p.sm == sm && p.suffix == suffix)
}

impl Profile {
    /// The major architecture (`sm / 10`): 7, 8, 9, 10, 11, 12. Cubins move
    /// between targets only within one major (see [`super::compat`]).
    pub fn major(&self) -> u32 {
        self.sm / 10
    }

    /// Whether code for this profile uses the Mercury encoding (sm_100+).
    pub fn is_mercury(&self) -> bool {
        self.sm >= FIRST_MERCURY_SM
    }

    pub fn is_accelerated(&self) -> bool {
        self.suffix == Suffix::A
    }

    pub fn is_family(&self) -> bool {
        self.suffix == Suffix::F
    }

    /// The corresponding `compute_` profile.
    pub fn compute_profile(&self) -> &'static Profile {
        self.with_kind(Kind::Virtual)
    }

    /// The corresponding `sm_` profile.
    pub fn real_profile(&self) -> &'static Profile {
        self.with_kind(Kind::Real)
    }

    /// The same kind and SM without the suffix, e.g. `sm_100` for `sm_100f`.
    pub fn base(&self) -> &'static Profile {
        find(self.kind, self.sm, Suffix::None).unwrap_or_else(|| self.with_kind(self.kind))
    }

    /// The compiler option nvlink builds for this profile.
    pub fn cuda_arch_define(&self) -> String {
        format!("-D__CUDA_ARCH__={}", self.cuda_arch)
    }

    /// e_flags of nvlink's output for this target: the SM number in bits
    /// 8..24, and [`EF_MERCURY`] when the output stays Mercury-encoded (every
    /// input was), else [`EF_SASS`]. Pre-Mercury targets always get
    /// [`EF_SASS`].
    pub fn output_e_flags(&self, inputs_mercury: bool) -> u32 {
        let enc = if self.is_mercury() && inputs_mercury {
            EF_MERCURY
        } else {
            EF_SASS
        };
        EF_FORMAT | (self.sm << 8) | enc
    }

    fn with_kind(&self, kind: Kind) -> &'static Profile {
        // Every row of the table gives all three kinds, so this always finds one;
        // the fallback keeps it total without a panic.
        find(kind, self.sm, self.suffix).unwrap_or(&PROFILES[0])
    }
}
