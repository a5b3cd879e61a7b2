//! What a cubin says about its own architecture.
//!
//! * SM number: e_flags bits 8..24 ([`crate::cubin::consts::sm_from_flags`]).
//! * Encoding: e_flags bit 1 ([`EF_MERCURY`]) in Mercury cubins (ptxas sets it
//!   for sm_100 and later), bit 2 ([`super::profiles::EF_SASS`]) in SASS ones.
//! * `a` suffix: not in e_flags (sm_90 and sm_90a cubins have the same
//!   flags) but in `.nv.compat`: EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET = 1.
//!   nvlink treats exactly the value 1 as accelerated.
//! * `f` suffix: recorded nowhere; an sm_100f cubin differs from an sm_100
//!   one only in the ptxas command line kept in `.note.nv.tkinfo`.

use serde::Serialize;

use super::profiles::{EF_MERCURY, Suffix};
use crate::cubin::compat::{Compat, code};
use crate::cubin::consts::sm_from_flags;
use crate::cubin::model::Cubin;

/// The architecture of one input cubin, as nvlink reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct InputArch {
    pub sm: u32,
    /// Built for an `a` target (CUDA_ACCELERATOR_TARGET = 1).
    pub accelerated: bool,
    /// Mercury-encoded (e_flags bit 1).
    pub mercury: bool,
}

impl InputArch {
    /// The suffix the cubin shows: `A` when accelerated; `F` never shows.
    pub fn suffix(&self) -> Suffix {
        if self.accelerated { Suffix::A } else { Suffix::None }
    }

    /// `sm_90a` style, as cuobjdump names it (`sm=90a`).
    pub fn name(&self) -> String {
        format!("sm_{}{}", self.sm, self.suffix().letter())
    }

    /// The arch of a parsed cubin: its e_flags and its `.nv.compat` section.
    pub fn of_cubin(cubin: &Cubin<'_>) -> InputArch {
        let accel = cubin
            .section_by_name(".nv.compat")
            .and_then(|(_, s)| accelerator_target(&s.data));
        input_arch(cubin.header.e_flags, accel)
    }
}

/// The input arch from e_flags and the CUDA_ACCELERATOR_TARGET value of the
/// cubin's `.nv.compat` (`None` when the section or the attribute is absent).
pub fn input_arch(e_flags: u32, accelerator_target: Option<u32>) -> InputArch {
    InputArch {
        sm: sm_from_flags(e_flags),
        accelerated: accelerator_target == Some(1),
        mercury: e_flags & EF_MERCURY != 0,
    }
}

/// EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET from raw `.nv.compat` bytes; `None`
/// when absent or when the section does not decode.
pub fn accelerator_target(compat: &[u8]) -> Option<u32> {
    Compat::decode(compat).ok()?.scalar(code::CUDA_ACCELERATOR_TARGET)
}
