//! The bindless table as the `link::bindless` sub-phase of layout lays it
//! out, kept in `LinkState::bindless` for the later phases and the debugger,
//! and the resource kinds it is made of.

use serde::Serialize;

use super::SymIdx;
use crate::cubin::consts::{
    STT_CUDA_SAMPLER as STT_SAMPLER, STT_CUDA_SURFACE as STT_SURFACE, STT_CUDA_TEXTURE as STT_TEXTURE,
};

/// Prefix of the symbol holding a resource's slot offset.
pub const OFFSET_PREFIX: &str = "$NVLINKBINDLESSOFF_";

/// The kind of a bindless resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Texture,
    Sampler,
    Surface,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Texture, Kind::Sampler, Kind::Surface];

    pub fn of(sym_type: u8) -> Option<Kind> {
        match sym_type {
            STT_TEXTURE => Some(Kind::Texture),
            STT_SAMPLER => Some(Kind::Sampler),
            STT_SURFACE => Some(Kind::Surface),
            _ => None,
        }
    }

    /// The kind's bit in a function's bitmask.
    pub fn bit(self) -> u8 {
        match self {
            Kind::Texture => 1,
            Kind::Sampler => 2,
            Kind::Surface => 4,
        }
    }

    /// The relocation each slot of a kernel's table gets, for the driver.
    pub fn header_reloc(self) -> u32 {
        match self {
            Kind::Texture => 6,  // R_CUDA_TEX_HEADER_INDEX
            Kind::Sampler => 7,  // R_CUDA_SAMP_HEADER_INDEX
            Kind::Surface => 52, // R_CUDA_SURF_HEADER_INDEX
        }
    }

    /// How many an entry function may use (nvlink 13.5, sm_75 … sm_120).
    pub fn limit(self) -> usize {
        match self {
            Kind::Texture => 256,
            Kind::Sampler | Kind::Surface => 32,
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Kind::Texture => "textures",
            Kind::Sampler => "samplers",
            Kind::Surface => "surfaces",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Texture => "texture",
            Kind::Sampler => "sampler",
            Kind::Surface => "surface",
        }
    }
}

/// One slot of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// The resource symbol.
    pub symbol: SymIdx,
    pub kind: Kind,
    /// Its `$NVLINKBINDLESSOFF_` symbol (created in `layout`).
    pub offset_symbol: SymIdx,
    /// Offset in the constant bank.
    pub offset: u64,
}

/// The table as the sub-phase laid it out (kept in `LinkState::bindless`
/// for the later phases and the debugger).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Table {
    /// Where the table starts in every kernel's constant bank 0.
    pub base: u64,
    /// The slots, in offset order.
    pub slots: Vec<Slot>,
    /// Per function: the kinds it uses, itself or through its callees
    /// (bits: 1 texture, 2 sampler, 4 surface).
    pub bits: Vec<(SymIdx, u8)>,
    /// The kernels whose bank got the table, with that bank.
    pub kernels: Vec<(SymIdx, usize)>,
}

impl Table {
    /// The slot of resource symbol `sym`.
    pub fn slot_of(&self, sym: SymIdx) -> Option<&Slot> {
        self.slots.iter().find(|s| s.symbol == sym)
    }
}
