//! Name <-> number catalogs, taken from what cuobjdump prints.
//! (Owned by the catalog work: relocation types, nv.info and compat attribute names.)

/// Which relocation numbering a cubin uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RelocFamily {
    /// R_CUDA_* (sm_75 .. sm_90a).
    Cuda,
    /// R_MERCURY_* (Mercury, sm_100 and later).
    Mercury,
}

/// The family for a cubin's ELF header.
pub fn reloc_family(_e_flags: u32) -> RelocFamily {
    RelocFamily::Cuda
}

/// cuobjdump's name for relocation type `ty`.
pub fn reloc_name(_family: RelocFamily, _ty: u32) -> Option<&'static str> {
    None
}

/// The number for a relocation name (either family).
pub fn reloc_number(_name: &str) -> Option<(RelocFamily, u32)> {
    None
}

/// cuobjdump's name for .nv.info attribute code `code` (EIATTR_*).
pub fn nvinfo_attr_name(_code: u8) -> Option<&'static str> {
    None
}

/// The code of an EIATTR_* name.
pub fn nvinfo_attr_code(_name: &str) -> Option<u8> {
    None
}

/// cuobjdump's name for .nv.compat attribute code `code` (EICOMPAT_ATTR_*).
pub fn compat_attr_name(_code: u8) -> Option<&'static str> {
    None
}
