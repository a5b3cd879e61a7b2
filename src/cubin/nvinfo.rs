//! Codec for the attribute sections `.nv.info` (module-wide) and
//! `.nv.info.<function>` (one per function), both of type SHT_CUDA_INFO.
//!
//! It stays one file because it is one codec: the record formats, the
//! attributes' payloads and the symbol-index rewriting all follow from the
//! attribute table, so they stay beside it.
//!
//! # Layout
//!
//! A section is a packed sequence of records (no padding between them). Every
//! record starts with a format byte (EIFMT_*) and an attribute code byte
//! (EIATTR_*, named by [`catalog::nvinfo_attr_name`]):
//!
//! | format        | bytes                                   |
//! |---------------|-----------------------------------------|
//! | EIFMT_NVAL (1) | fmt, code, 2 unused bytes (zero)        |
//! | EIFMT_BVAL (2) | fmt, code, u8 value, 1 unused byte      |
//! | EIFMT_HVAL (3) | fmt, code, u16 value                    |
//! | EIFMT_SVAL (4) | fmt, code, u16 size, `size` payload bytes |
//!
//! All numbers are little-endian. cuobjdump 13.5 rejects a file whose .nv.info
//! holds any other format byte; this codec keeps the bytes from such a record
//! on as [`NvInfo::trailing`] so that nothing is lost.
//!
//! # Symbol indices
//!
//! Measured with nvlink 13.5 (`-r` and full links of an input whose .nv.info
//! carried each code 0x00..0x6d with a known symbol in every word): nvlink
//! rewrites through its symbol map
//!
//! * the first payload word of IMAGE_SLOT (0x02), IMAGE_OFFSET (0x06),
//!   IMAGE_SIZE (0x07), TEXTURE_NORMALIZED (0x08), SAMPLER_INIT (0x09),
//!   PARAM_CBANK (0x0a, the `.nv.constant0.<fn>` section symbol),
//!   FRAME_SIZE (0x11), MIN_STACK_SIZE (0x12), SAMPLER_FORCE_UNNORMALIZED (0x13),
//!   BINDLESS_IMAGE_OFFSETS (0x14), KPARAM_INFO (0x17, the `Index` field; 0 in
//!   practice), MAX_STACK_SIZE (0x23), LOAD_CACHE_REQUEST (0x26),
//!   REGCOUNT (0x2f), SAM_REGION_STACK_SIZE (0x3b), KPARAM_INFO_V2 (0x45);
//! * every payload word of EXTERNS (0x0f).
//!
//! No other code is rewritten. SYSCALLS_FALLBACK (0x5d) is printed by cuobjdump
//! as pairs of symbols but nvlink copies it unchanged, so it is not listed as a
//! symbol reference here.

use serde::Serialize;

use super::catalog;
use super::error::{FormatError, Result};

/// No value.
pub const EIFMT_NVAL: u8 = 1;
/// One byte value.
pub const EIFMT_BVAL: u8 = 2;
/// Two byte value.
pub const EIFMT_HVAL: u8 = 3;
/// Sized block of bytes.
pub const EIFMT_SVAL: u8 = 4;

/// cuobjdump's name for a format byte.
pub fn format_name(format: u8) -> Option<&'static str> {
    Some(match format {
        EIFMT_NVAL => "EIFMT_NVAL",
        EIFMT_BVAL => "EIFMT_BVAL",
        EIFMT_HVAL => "EIFMT_HVAL",
        EIFMT_SVAL => "EIFMT_SVAL",
        _ => return None,
    })
}

/// The EIATTR_* codes this codec types or renders specially (numbers as cuobjdump 13.5 names them).
pub mod code {
    pub const IMAGE_SLOT: u8 = 0x02;
    /// EIATTR_CTAIDZ_USED (4): the code reads blockIdx.z (no value).
    pub const CTAIDZ_USED: u8 = 0x04;
    pub const IMAGE_OFFSET: u8 = 0x06;
    pub const IMAGE_SIZE: u8 = 0x07;
    pub const TEXTURE_NORMALIZED: u8 = 0x08;
    pub const SAMPLER_INIT: u8 = 0x09;
    pub const PARAM_CBANK: u8 = 0x0a;
    pub const EXTERNS: u8 = 0x0f;
    pub const FRAME_SIZE: u8 = 0x11;
    pub const MIN_STACK_SIZE: u8 = 0x12;
    pub const SAMPLER_FORCE_UNNORMALIZED: u8 = 0x13;
    pub const BINDLESS_IMAGE_OFFSETS: u8 = 0x14;
    pub const KPARAM_INFO: u8 = 0x17;
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    pub const MAXREG_COUNT: u8 = 0x1b;
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    pub const MAX_STACK_SIZE: u8 = 0x23;
    pub const LOAD_CACHE_REQUEST: u8 = 0x26;
    pub const ATOM16_EMUL_INSTR_REG_MAP: u8 = 0x2e;
    pub const REGCOUNT: u8 = 0x2f;
    pub const QUERY_NUMATTRIB: u8 = 0x1a;
    pub const SHARED_SCRATCH: u8 = 0x32;
    pub const INDIRECT_BRANCH_TARGETS: u8 = 0x34;
    pub const CUDA_API_VERSION: u8 = 0x37;
    /// EIATTR_NUM_MBARRIERS (56): a function's mbarrier count (16-bit).
    pub const NUM_MBARRIERS: u8 = 0x38;
    pub const MBARRIER_INSTR_OFFSETS: u8 = 0x39;
    pub const COROUTINE_RESUME_ID_OFFSETS: u8 = 0x3a;
    pub const SAM_REGION_STACK_SIZE: u8 = 0x3b;
    pub const PER_REG_TARGET_PERF_STATS: u8 = 0x3c;
    /// EIATTR_RESERVED_SMEM_USED (65): the function uses reserved shared memory.
    pub const RESERVED_SMEM_USED: u8 = 0x41;
    pub const KPARAM_INFO_V2: u8 = 0x45;
    pub const SHADER_TYPE: u8 = 0x49;
    pub const NUM_BARRIERS: u8 = 0x4c;
    pub const TEXMODE_INDEPENDENT: u8 = 0x4d;
    pub const AT_ENTRY_FRAGMENTS: u8 = 0x4f;
    /// EIATTR_VRC_CTA_INIT_COUNT (74, a byte): 0x80 in functions that use
    /// `tcgen05` instructions.
    pub const VRC_CTA_INIT_COUNT: u8 = 0x4a;
    pub const SPARSE_MMA_MASK: u8 = 0x50;
    /// EIATTR_TCGEN05_1CTA_USED (81) and _2CTA_USED (82): the function uses
    /// `tcgen05` instructions of one CTA or of a CTA pair (no value).
    pub const TCGEN05_1CTA_USED: u8 = 0x51;
    pub const TCGEN05_2CTA_USED: u8 = 0x52;
    pub const ANNOTATIONS: u8 = 0x55;
    /// EIATTR_CLUSTER_LAUNCH_CONTROL_USED (98): the function uses
    /// `clusterlaunchcontrol` instructions (no value).
    pub const CLUSTER_LAUNCH_CONTROL_USED: u8 = 0x62;
    /// Module-level: the code was built to make errors visible at exit (`-G`).
    pub const GEN_ERRBAR_AT_EXIT: u8 = 0x53;
    pub const STUB_FUNCTION_KIND: u8 = 0x58;
    pub const SYSCALLS_FALLBACK: u8 = 0x5d;
    pub const LANGUAGE: u8 = 0x66;
    /// EIATTR_GRID_ATTRIBUTES (104): launch properties the code needs, a bit
    /// set (0x4 multimem.ld_reduce, 0xc multimem.st/red; 16-bit).
    pub const GRID_ATTRIBUTES: u8 = 0x68;
    pub const NVSAL_SW_WAR: u8 = 0x6b;
    pub const INSTR_OFFSETS: u8 = 0x6c;
    /// EIATTR_PREEXIT_USED (109, BVAL 0): in every sm_100+ function's
    /// table of a final link.
    pub const PREEXIT_USED: u8 = 0x6d;
}

/// Where an attribute's SVAL payload holds symbol indices (what nvlink remaps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SymbolLayout {
    /// No symbol index.
    None,
    /// The first u32 of the payload.
    FirstWord,
    /// Every u32 of the payload.
    AllWords,
}

/// Which payload words of attribute `attr` (in EIFMT_SVAL form) are symbol indices.
pub fn symbol_layout(attr: u8) -> SymbolLayout {
    use code::*;
    match attr {
        IMAGE_SLOT
        | IMAGE_OFFSET
        | IMAGE_SIZE
        | TEXTURE_NORMALIZED
        | SAMPLER_INIT
        | PARAM_CBANK
        | FRAME_SIZE
        | MIN_STACK_SIZE
        | SAMPLER_FORCE_UNNORMALIZED
        | BINDLESS_IMAGE_OFFSETS
        | KPARAM_INFO
        | MAX_STACK_SIZE
        | LOAD_CACHE_REQUEST
        | REGCOUNT
        | SAM_REGION_STACK_SIZE
        | KPARAM_INFO_V2 => SymbolLayout::FirstWord,
        EXTERNS => SymbolLayout::AllWords,
        _ => SymbolLayout::None,
    }
}

/// A whole .nv.info / .nv.info.<fn> section.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct NvInfo {
    pub entries: Vec<Entry>,
    /// Bytes from the first record whose format byte is not EIFMT_NVAL..EIFMT_SVAL
    /// to the end of the section (empty for every real section seen). Kept so
    /// that `encode(decode(x)) == x`.
    pub trailing: Vec<u8>,
}

/// One attribute record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// EIATTR_* code.
    pub attr: u8,
    pub value: Value,
}

/// A record's value; the variant is the record's format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "format")]
pub enum Value {
    /// EIFMT_NVAL: no value; `pad` is the two bytes after the code (zero in practice).
    #[serde(rename = "NVAL")]
    None { pad: u16 },
    /// EIFMT_BVAL: one byte; `pad` is the byte after it (zero in practice).
    #[serde(rename = "BVAL")]
    Byte { value: u8, pad: u8 },
    /// EIFMT_HVAL: a 16-bit value.
    #[serde(rename = "HVAL")]
    Half { value: u16 },
    /// EIFMT_SVAL: a sized payload, typed by the attribute code.
    #[serde(rename = "SVAL")]
    Block(Block),
}

/// An EIFMT_SVAL payload. Decoding picks a typed variant only when the payload
/// has exactly the size that variant encodes to, so every variant re-encodes to
/// the bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block {
    /// 8 bytes: a function symbol and a number (REGCOUNT, FRAME_SIZE,
    /// MIN_STACK_SIZE, MAX_STACK_SIZE, SAM_REGION_STACK_SIZE, LOAD_CACHE_REQUEST).
    SymValue { sym: u32, value: u32 },
    /// A symbol in the first word, then more words: the other FirstWord codes
    /// (SAMPLER_INIT, IMAGE_*, ...) and FirstWord codes of an unusual size.
    SymWords { sym: u32, words: Vec<u32> },
    /// PARAM_CBANK, 8 bytes: the `.nv.constant0.<fn>` section symbol, and where the
    /// parameters lie in that bank (word 2 = size << 16 | offset).
    ParamCbank { sym: u32, offset: u16, size: u16 },
    /// EXTERNS: symbols the function refers to but does not define.
    Symbols { syms: Vec<u32> },
    /// KPARAM_INFO, 12 bytes.
    KParamInfo(KParamInfo),
    /// KPARAM_INFO_V2, 12 bytes.
    KParamInfoV2(KParamInfoV2),
    /// INDIRECT_BRANCH_TARGETS: per indirect branch, its offset and targets.
    IndirectBranchTargets { branches: Vec<IndirectBranch> },
    /// MBARRIER_INSTR_OFFSETS: 16 bytes per mbarrier instruction.
    MbarrierInstrs { instrs: Vec<MbarrierInstr> },
    /// Any other payload whose size is a multiple of 4 (offset lists, counts, ...).
    Words { words: Vec<u32> },
    /// A payload whose size is not a multiple of 4.
    Bytes { bytes: Vec<u8> },
}

/// EIATTR_KPARAM_INFO: one kernel parameter.
///
/// Words: index, (offset << 16 | ordinal), and a packed word:
/// bits 0..8 log2 of the pointee's alignment, 8..12 space, 12..17 cbank,
/// 17 set when the parameter lives in shared memory (cuobjdump: "SMEM", else "CBANK"),
/// 18..32 size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KParamInfo {
    /// A symbol index (nvlink remaps it; 0 in ptxas output).
    pub index: u32,
    pub ordinal: u16,
    pub offset: u16,
    pub log_align: u8,
    /// 4 bits.
    pub space: u8,
    /// 5 bits.
    pub cbank: u8,
    pub is_smem: bool,
    /// 14 bits.
    pub size: u16,
}

impl KParamInfo {
    fn from_words(w: [u32; 3]) -> Self {
        KParamInfo {
            index: w[0],
            ordinal: w[1] as u16,
            offset: (w[1] >> 16) as u16,
            log_align: w[2] as u8,
            space: ((w[2] >> 8) & 0xf) as u8,
            cbank: ((w[2] >> 12) & 0x1f) as u8,
            is_smem: (w[2] >> 17) & 1 == 1,
            size: (w[2] >> 18) as u16,
        }
    }

    fn words(&self) -> [u32; 3] {
        [
            self.index,
            u32::from(self.ordinal) | u32::from(self.offset) << 16,
            u32::from(self.log_align)
                | u32::from(self.space & 0xf) << 8
                | u32::from(self.cbank & 0x1f) << 12
                | u32::from(self.is_smem) << 17
                | u32::from(self.size & 0x3fff) << 18,
        ]
    }
}

/// EIATTR_KPARAM_INFO_V2: one kernel parameter (newer layout).
///
/// Bytes: u32 index, u16 ordinal, u16 offset, u16 size, u8 log2 alignment,
/// u8 whose low 4 bits are the space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KParamInfoV2 {
    /// A symbol index (nvlink remaps it).
    pub index: u32,
    pub ordinal: u16,
    pub offset: u16,
    pub size: u16,
    pub log_align: u8,
    /// The whole last byte; the space is its low nibble (see [`KParamInfoV2::space`]).
    pub space_byte: u8,
}

impl KParamInfoV2 {
    pub fn space(&self) -> u8 {
        self.space_byte & 0xf
    }

    fn from_words(w: [u32; 3]) -> Self {
        KParamInfoV2 {
            index: w[0],
            ordinal: w[1] as u16,
            offset: (w[1] >> 16) as u16,
            size: w[2] as u16,
            log_align: (w[2] >> 16) as u8,
            space_byte: (w[2] >> 24) as u8,
        }
    }

    fn words(&self) -> [u32; 3] {
        [
            self.index,
            u32::from(self.ordinal) | u32::from(self.offset) << 16,
            u32::from(self.size) | u32::from(self.log_align) << 16 | u32::from(self.space_byte) << 24,
        ]
    }
}

/// One indirect branch of EIATTR_INDIRECT_BRANCH_TARGETS: words
/// offset, reserved (0), number of targets, then the targets (offsets in the function).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndirectBranch {
    pub offset: u32,
    pub reserved: u32,
    pub targets: Vec<u32>,
}

/// One instruction of EIATTR_MBARRIER_INSTR_OFFSETS: words offset, register,
/// immediate, and a packed word (bits 0..4 kind, 4..6 stride, bit 8 set when the
/// immediate is signed, bits 16..24 the uniform register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MbarrierInstr {
    pub offset: u32,
    pub reg: u32,
    pub imm: u32,
    pub info: u32,
}

impl MbarrierInstr {
    pub fn kind(&self) -> u8 {
        (self.info & 0xf) as u8
    }
    pub fn stride(&self) -> u8 {
        ((self.info >> 4) & 3) as u8
    }
    pub fn imm_signed(&self) -> bool {
        (self.info >> 8) & 1 == 1
    }
    pub fn ureg(&self) -> u8 {
        (self.info >> 16) as u8
    }
}

// ---------------------------------------------------------------------------
// Raw record reading, shared with the .nv.compat codec.

/// One record as found in the section: `body` is the SVAL payload, or the two
/// bytes after the code for the other formats.
pub(crate) struct RawRecord<'a> {
    pub format: u8,
    pub attr: u8,
    pub body: &'a [u8],
}

/// Splits a section into records. Returns them and the offset where decoding
/// stopped at an unknown format byte (`data.len()` when it did not).
pub(crate) fn read_records(data: &[u8]) -> Result<(Vec<RawRecord<'_>>, usize)> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let left = data.len() - pos;
        let format = data[pos];
        if !(EIFMT_NVAL..=EIFMT_SVAL).contains(&format) {
            return Ok((out, pos));
        }
        if left < 4 {
            return Err(FormatError::new(
                pos as u64,
                format!("truncated attribute record: {left} bytes left, a record takes at least 4"),
            ));
        }
        let attr = data[pos + 1];
        if format == EIFMT_SVAL {
            let size = usize::from(u16::from_le_bytes([data[pos + 2], data[pos + 3]]));
            if size > left - 4 {
                return Err(FormatError::new(
                    (pos + 2) as u64,
                    format!(
                        "attribute 0x{attr:02x}: EIFMT_SVAL size {size} runs past the end of the section ({} bytes left)",
                        left - 4
                    ),
                ));
            }
            out.push(RawRecord {
                format,
                attr,
                body: &data[pos + 4..pos + 4 + size],
            });
            pos += 4 + size;
        } else {
            out.push(RawRecord {
                format,
                attr,
                body: &data[pos + 2..pos + 4],
            });
            pos += 4;
        }
    }
    Ok((out, pos))
}

/// The little-endian u32 words of `b` (whose length must be a multiple of 4).
pub(crate) fn le_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn push_words(out: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// A payload without typing: words when the size allows, bytes otherwise.
pub(crate) fn plain_block(data: &[u8]) -> Block {
    if data.len().is_multiple_of(4) {
        Block::Words { words: le_words(data) }
    } else {
        Block::Bytes { bytes: data.to_vec() }
    }
}

/// The value of a raw record of a known format (never fails: `body` has the
/// right size by construction of `read_records`).
pub(crate) fn raw_value(r: &RawRecord<'_>, block: impl FnOnce(&[u8]) -> Block) -> Value {
    let b0 = r.body.first().copied().unwrap_or(0);
    let b1 = r.body.get(1).copied().unwrap_or(0);
    match r.format {
        EIFMT_NVAL => Value::None {
            pad: u16::from_le_bytes([b0, b1]),
        },
        EIFMT_BVAL => Value::Byte { value: b0, pad: b1 },
        EIFMT_HVAL => Value::Half {
            value: u16::from_le_bytes([b0, b1]),
        },
        _ => Value::Block(block(r.body)),
    }
}

fn decode_block(attr: u8, data: &[u8]) -> Block {
    use code::*;
    if !data.len().is_multiple_of(4) {
        return Block::Bytes { bytes: data.to_vec() };
    }
    let w = le_words(data);
    match (attr, w.len()) {
        (FRAME_SIZE | MIN_STACK_SIZE | MAX_STACK_SIZE | LOAD_CACHE_REQUEST | REGCOUNT | SAM_REGION_STACK_SIZE, 2) => {
            Block::SymValue { sym: w[0], value: w[1] }
        }
        (PARAM_CBANK, 2) => Block::ParamCbank {
            sym: w[0],
            offset: w[1] as u16,
            size: (w[1] >> 16) as u16,
        },
        (KPARAM_INFO, 3) => Block::KParamInfo(KParamInfo::from_words([w[0], w[1], w[2]])),
        (KPARAM_INFO_V2, 3) => Block::KParamInfoV2(KParamInfoV2::from_words([w[0], w[1], w[2]])),
        (EXTERNS, _) => Block::Symbols { syms: w },
        (INDIRECT_BRANCH_TARGETS, _) => match parse_branches(&w) {
            Some(branches) => Block::IndirectBranchTargets { branches },
            None => Block::Words { words: w },
        },
        (MBARRIER_INSTR_OFFSETS, n) if n.is_multiple_of(4) => Block::MbarrierInstrs {
            instrs: w
                .chunks_exact(4)
                .map(|c| MbarrierInstr {
                    offset: c[0],
                    reg: c[1],
                    imm: c[2],
                    info: c[3],
                })
                .collect(),
        },
        (a, n) if n >= 1 && symbol_layout(a) == SymbolLayout::FirstWord => Block::SymWords {
            sym: w[0],
            words: w[1..].to_vec(),
        },
        _ => Block::Words { words: w },
    }
}

fn parse_branches(w: &[u32]) -> Option<Vec<IndirectBranch>> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < w.len() {
        let head = w.get(i..i.checked_add(3)?)?;
        let n = usize::try_from(head[2]).ok()?;
        let start = i + 3;
        let end = start.checked_add(n)?;
        let targets = w.get(start..end)?.to_vec();
        out.push(IndirectBranch {
            offset: head[0],
            reserved: head[1],
            targets,
        });
        i = end;
    }
    Some(out)
}

impl Block {
    /// The payload bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Block::SymValue { sym, value } => push_words(&mut out, &[*sym, *value]),
            Block::SymWords { sym, words } => {
                push_words(&mut out, &[*sym]);
                push_words(&mut out, words);
            }
            Block::ParamCbank { sym, offset, size } => {
                push_words(&mut out, &[*sym, u32::from(*offset) | u32::from(*size) << 16])
            }
            Block::Symbols { syms } => push_words(&mut out, syms),
            Block::KParamInfo(k) => push_words(&mut out, &k.words()),
            Block::KParamInfoV2(k) => push_words(&mut out, &k.words()),
            Block::IndirectBranchTargets { branches } => {
                for b in branches {
                    push_words(&mut out, &[b.offset, b.reserved, b.targets.len() as u32]);
                    push_words(&mut out, &b.targets);
                }
            }
            Block::MbarrierInstrs { instrs } => {
                for m in instrs {
                    push_words(&mut out, &[m.offset, m.reg, m.imm, m.info]);
                }
            }
            Block::Words { words } => push_words(&mut out, words),
            Block::Bytes { bytes } => out.extend_from_slice(bytes),
        }
        out
    }

    /// The payload as u32 words (a trailing partial word is dropped), the way
    /// cuobjdump reads an SVAL it has no special form for.
    pub fn words(&self) -> Vec<u32> {
        let bytes = self.to_bytes();
        le_words(&bytes[..bytes.len() / 4 * 4])
    }

    fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        match self {
            Block::SymValue { sym, .. } | Block::SymWords { sym, .. } | Block::ParamCbank { sym, .. } => vec![sym],
            Block::Symbols { syms } => syms.iter_mut().collect(),
            Block::KParamInfo(k) => vec![&mut k.index],
            Block::KParamInfoV2(k) => vec![&mut k.index],
            _ => Vec::new(),
        }
    }

    /// Byte offsets of the symbol indices inside the payload.
    fn symbol_ref_offsets(&self) -> Vec<usize> {
        match self {
            Block::SymValue { .. }
            | Block::SymWords { .. }
            | Block::ParamCbank { .. }
            | Block::KParamInfo(_)
            | Block::KParamInfoV2(_) => vec![0],
            Block::Symbols { syms } => (0..syms.len()).map(|i| 4 * i).collect(),
            _ => Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------
// Decode / encode.

/// Decodes a .nv.info or .nv.info.<fn> section.
pub fn decode(data: &[u8]) -> Result<NvInfo> {
    let (records, stop) = read_records(data)?;
    let entries = records
        .iter()
        .map(|r| Entry {
            attr: r.attr,
            value: raw_value(r, |b| decode_block(r.attr, b)),
        })
        .collect();
    Ok(NvInfo {
        entries,
        trailing: data[stop..].to_vec(),
    })
}

/// Encodes a section; `encode(&decode(x)?) == x`.
pub fn encode(info: &NvInfo) -> Vec<u8> {
    let mut out = Vec::new();
    for e in &info.entries {
        e.encode_into(&mut out);
    }
    out.extend_from_slice(&info.trailing);
    out
}

impl NvInfo {
    pub fn decode(data: &[u8]) -> Result<NvInfo> {
        decode(data)
    }

    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// The entries with attribute code `attr`.
    pub fn find(&self, attr: u8) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.attr == attr)
    }

    /// Every symbol index the section holds, in order.
    pub fn symbol_refs(&self) -> Vec<u32> {
        self.entries.iter().flat_map(|e| e.symbol_refs()).collect()
    }

    /// Mutable access to every symbol index, in order (for a linker's remapping).
    pub fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        self.entries.iter_mut().flat_map(|e| e.symbol_refs_mut()).collect()
    }

    /// Replaces every symbol index `i` by `f(i)`.
    pub fn map_symbols(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        for s in self.symbol_refs_mut() {
            *s = f(*s);
        }
    }

    /// Byte offsets, inside the encoded section, of every symbol index (u32 LE).
    pub fn symbol_ref_offsets(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut pos = 0usize;
        for e in &self.entries {
            out.extend(e.symbol_ref_offsets().into_iter().map(|o| pos + o));
            pos += e.encoded_len();
        }
        out
    }

    /// The section the way `cuobjdump -elf` prints it under the section's name:
    /// for each entry `\t<0xN>` (N counted from 1, written in decimal after "0x",
    /// as cuobjdump does) and the entry's lines. `sym_name` names a symbol index.
    pub fn render(&self, sym_name: &dyn Fn(u32) -> String) -> String {
        let mut out = String::new();
        for (i, e) in self.entries.iter().enumerate() {
            out.push_str(&format!("\t<0x{}>\n", i + 1));
            out.push_str(&e.render(sym_name));
        }
        if !self.trailing.is_empty() {
            out.push_str(&trailing_note(&self.trailing, encode_len(&self.entries)));
        }
        out
    }

    /// One stable line per entry, symbol indices replaced by names (see [`Entry::canonical`]).
    pub fn canonical(&self, sym_name: &dyn Fn(u32) -> String) -> String {
        let mut lines: Vec<String> = self.entries.iter().map(|e| e.canonical(sym_name)).collect();
        if !self.trailing.is_empty() {
            lines.push(format!("unparsed {}", hex_bytes(&self.trailing)));
        }
        lines.join("\n")
    }
}

fn encode_len(entries: &[Entry]) -> usize {
    entries.iter().map(Entry::encoded_len).sum()
}

pub(crate) fn trailing_note(trailing: &[u8], at: usize) -> String {
    format!(
        "\t<unparsed: {} bytes at offset 0x{at:x}, format byte 0x{:02x} is not EIFMT_NVAL..EIFMT_SVAL>\n",
        trailing.len(),
        trailing.first().copied().unwrap_or(0)
    )
}

pub(crate) fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Entry {
    /// An EIFMT_NVAL entry.
    pub fn nval(attr: u8) -> Entry {
        Entry {
            attr,
            value: Value::None { pad: 0 },
        }
    }

    /// An EIFMT_BVAL entry.
    pub fn bval(attr: u8, value: u8) -> Entry {
        Entry {
            attr,
            value: Value::Byte { value, pad: 0 },
        }
    }

    /// An EIFMT_HVAL entry.
    pub fn hval(attr: u8, value: u16) -> Entry {
        Entry {
            attr,
            value: Value::Half { value },
        }
    }

    /// An EIFMT_SVAL entry with `payload`, typed as decoding would type it.
    pub fn sval(attr: u8, payload: &[u8]) -> Entry {
        Entry {
            attr,
            value: Value::Block(decode_block(attr, payload)),
        }
    }

    /// An EIFMT_SVAL entry of u32 words, typed as decoding would type it.
    pub fn sval_words(attr: u8, words: &[u32]) -> Entry {
        let mut b = Vec::new();
        push_words(&mut b, words);
        Entry::sval(attr, &b)
    }

    /// The EIFMT_* byte.
    pub fn format(&self) -> u8 {
        match self.value {
            Value::None { .. } => EIFMT_NVAL,
            Value::Byte { .. } => EIFMT_BVAL,
            Value::Half { .. } => EIFMT_HVAL,
            Value::Block(_) => EIFMT_SVAL,
        }
    }

    /// The catalog's EIATTR_* name, or `EIATTR_0x2f` style when unknown.
    pub fn attr_name(&self) -> String {
        catalog::nvinfo_attr_name(self.attr).map_or_else(|| format!("EIATTR_0x{:02x}", self.attr), str::to_string)
    }

    /// The SVAL payload, if this is an EIFMT_SVAL entry.
    pub fn block(&self) -> Option<&Block> {
        match &self.value {
            Value::Block(b) => Some(b),
            _ => None,
        }
    }

    /// The BVAL or HVAL value, widened.
    pub fn scalar(&self) -> Option<u32> {
        match self.value {
            Value::Byte { value, .. } => Some(u32::from(value)),
            Value::Half { value } => Some(u32::from(value)),
            _ => None,
        }
    }

    /// The symbol indices in this entry.
    pub fn symbol_refs(&self) -> Vec<u32> {
        self.clone().symbol_refs_mut().into_iter().map(|s| *s).collect()
    }

    /// Mutable access to the symbol indices in this entry.
    pub fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        match &mut self.value {
            Value::Block(b) => b.symbol_refs_mut(),
            _ => Vec::new(),
        }
    }

    /// Byte offsets of the symbol indices from the start of the encoded entry.
    pub fn symbol_ref_offsets(&self) -> Vec<usize> {
        match &self.value {
            Value::Block(b) => b.symbol_ref_offsets().into_iter().map(|o| o + 4).collect(),
            _ => Vec::new(),
        }
    }

    /// Size of the encoded record.
    pub fn encoded_len(&self) -> usize {
        match &self.value {
            Value::Block(b) => 4 + b.to_bytes().len().min(usize::from(u16::MAX)),
            _ => 4,
        }
    }

    /// Appends the record's bytes. A payload over 65535 bytes (which no u16
    /// size can state) is cut to 65535 bytes.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(self.format());
        out.push(self.attr);
        match &self.value {
            Value::None { pad } => out.extend_from_slice(&pad.to_le_bytes()),
            Value::Byte { value, pad } => out.extend_from_slice(&[*value, *pad]),
            Value::Half { value } => out.extend_from_slice(&value.to_le_bytes()),
            Value::Block(b) => {
                let bytes = b.to_bytes();
                let n = bytes.len().min(usize::from(u16::MAX));
                out.extend_from_slice(&(n as u16).to_le_bytes());
                out.extend_from_slice(&bytes[..n]);
            }
        }
    }

    /// The entry's lines as `cuobjdump -elf` prints them:
    /// `\tAttribute:\t…\n\tFormat:\t…\n` and, except for EIFMT_NVAL, `\tValue:\t…\n`.
    /// Attribute codes the catalog does not name print as `unknown Attribute (0x..)`.
    pub fn render(&self, sym_name: &dyn Fn(u32) -> String) -> String {
        let name = catalog::nvinfo_attr_name(self.attr)
            .map_or_else(|| format!("unknown Attribute (0x{:02x})", self.attr), str::to_string);
        let mut out = format!(
            "\tAttribute:\t{name}\n\tFormat:\t{}\n",
            format_name(self.format()).unwrap_or("unknown Format")
        );
        if !matches!(self.value, Value::None { .. }) {
            out.push_str(&format!("\tValue:\t{}\n", self.value_text(sym_name)));
        }
        out
    }

    /// The text cuobjdump prints after `Value:\t` (may span lines).
    pub fn value_text(&self, sym_name: &dyn Fn(u32) -> String) -> String {
        use code::*;
        match &self.value {
            Value::None { .. } => String::new(),
            Value::Byte { value, .. } => format!("0x{value:x}"),
            Value::Half { value } => {
                let v = *value;
                match self.attr {
                    NVSAL_SW_WAR => format!(" 0x{v:x}"),
                    SHADER_TYPE => format!("{}\n", shader_type_name(v).unwrap_or("UNKNOWN")),
                    STUB_FUNCTION_KIND => match v {
                        1 => "FUNC_UFT_STUB\n".to_string(),
                        2 => "FUNC_ATENTRY_STUB\n".to_string(),
                        3 => "FUNC_ATEXIT_STUB\n".to_string(),
                        _ => String::new(),
                    },
                    SPARSE_MMA_MASK if v != 0 => {
                        let mut s = "Used Sparse Variants :".to_string();
                        for bit in (0..16).filter(|b| v & (1 << b) != 0) {
                            if let Some(n) = sparse_variant_name(bit) {
                                s.push(' ');
                                s.push_str(n);
                            }
                        }
                        s
                    }
                    _ => format!("0x{v:x}"),
                }
            }
            Value::Block(b) => block_text(self.attr, b, sym_name),
        }
    }

    /// A stable one-line form: `NAME FMT: value`, with every symbol index
    /// replaced by the symbol's name (index 0 prints as `<null>`), so that two
    /// cubins whose symbols are numbered differently compare equal.
    pub fn canonical(&self, sym_name: &dyn Fn(u32) -> String) -> String {
        let name = self.attr_name();
        let fmt = format_name(self.format()).map_or("?", |f| f.trim_start_matches("EIFMT_"));
        let sym = |i: u32| if i == 0 { "<null>".to_string() } else { sym_name(i) };
        let val = match &self.value {
            Value::None { pad: 0 } => return format!("{name} {fmt}"),
            Value::None { pad } => format!("pad=0x{pad:x}"),
            Value::Byte { value, pad: 0 } => format!("0x{value:x}"),
            Value::Byte { value, pad } => format!("0x{value:x} pad=0x{pad:x}"),
            Value::Half { value } => format!("0x{value:x}"),
            Value::Block(b) => match b {
                Block::SymValue { sym: s, value } => format!("{} 0x{value:x}", sym(*s)),
                Block::SymWords { sym: s, words } => {
                    let mut t = sym(*s);
                    for w in words {
                        t.push_str(&format!(" 0x{w:x}"));
                    }
                    t
                }
                Block::ParamCbank { sym: s, offset, size } => {
                    format!("{} offset=0x{offset:x} size=0x{size:x}", sym(*s))
                }
                Block::Symbols { syms } => syms.iter().map(|s| sym(*s)).collect::<Vec<_>>().join(" "),
                Block::KParamInfo(k) => format!(
                    "index={} ordinal=0x{:x} offset=0x{:x} size=0x{:x} log_align=0x{:x} space=0x{:x} cbank=0x{:x} {}",
                    sym(k.index),
                    k.ordinal,
                    k.offset,
                    k.size,
                    k.log_align,
                    k.space,
                    k.cbank,
                    if k.is_smem { "SMEM" } else { "CBANK" }
                ),
                Block::KParamInfoV2(k) => format!(
                    "index={} ordinal=0x{:x} offset=0x{:x} size=0x{:x} log_align=0x{:x} space_byte=0x{:x}",
                    sym(k.index),
                    k.ordinal,
                    k.offset,
                    k.size,
                    k.log_align,
                    k.space_byte
                ),
                Block::IndirectBranchTargets { branches } => branches
                    .iter()
                    .map(|br| {
                        let t: Vec<String> = br.targets.iter().map(|t| format!("0x{t:x}")).collect();
                        let r = if br.reserved != 0 {
                            format!(" reserved=0x{:x}", br.reserved)
                        } else {
                            String::new()
                        };
                        format!("[0x{:x}{r} -> {}]", br.offset, t.join(","))
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                Block::MbarrierInstrs { instrs } => instrs
                    .iter()
                    .map(|m| format!("[0x{:x} R{} 0x{:x} 0x{:x}]", m.offset, m.reg, m.imm, m.info))
                    .collect::<Vec<_>>()
                    .join(" "),
                Block::Words { words } => words.iter().map(|w| format!("0x{w:x}")).collect::<Vec<_>>().join(" "),
                Block::Bytes { bytes } => format!("bytes={}", hex_bytes(bytes)),
            },
        };
        if val.is_empty() {
            format!("{name} {fmt}:")
        } else {
            format!("{name} {fmt}: {val}")
        }
    }
}

fn shader_type_name(v: u16) -> Option<&'static str> {
    const NAMES: [&str; 12] = [
        "EIVALUE_SHADER_TYPE_NONE",
        "EIVALUE_SHADER_TYPE_VERTEX",
        "EIVALUE_SHADER_TYPE_PIXEL",
        "EIVALUE_SHADER_TYPE_GEOMETRY",
        "EIVALUE_SHADER_TYPE_COMPUTE",
        "EIVALUE_SHADER_TYPE_TESSELLATION_INIT",
        "EIVALUE_SHADER_TYPE_TESSELLATION",
        "EIVALUE_SHADER_TYPE_VERTEX_A",
        "EIVALUE_SHADER_TYPE_VERTEX_B",
        "EIVALUE_SHADER_TYPE_VERTEX_AB",
        "EIVALUE_SHADER_TYPE_MESH",
        "EIVALUE_SHADER_TYPE_TASK",
    ];
    NAMES.get(usize::from(v)).copied()
}

fn sparse_variant_name(bit: u32) -> Option<&'static str> {
    Some(match bit {
        0 => "QGMMA.SP",
        1 => "HGMMA.SP",
        2 => "IGMMA.SP",
        3 => "QMMA.SP",
        4 => "HMMA.SP",
        5 => "IMMA.SP",
        6 => "UTC*MMASparse",
        7 => "OMMA.SP",
        15 => "UNKNOWN",
        _ => return None,
    })
}

fn language_name(v: u32) -> &'static str {
    match v {
        1 => "SASS",
        2 => "NVSAL",
        3 => "PTX",
        4 => "NVVM",
        5 => "CUDA_C++",
        6 => "CUDA_C++_Tile",
        7 => "TILEIR",
        _ => "UNKNOWN",
    }
}

fn mbarrier_kind_name(k: u8) -> &'static str {
    match k {
        0 => "MBARRIER_INIT",
        1 => "MBARRIER_ARRIVE",
        2 => "MBARRIER_ARRIVE_NOCOMPLETE",
        3 => "MBARRIER_ARRIVE_DROP",
        4 => "MBARRIER_ARRIVE_DROP_NOCOMPLETE",
        5 => "MBARRIER_TEST_WAIT",
        6 => "MBARRIER_TEST_WAIT_PARITY",
        7 => "MBARRIER_CP_ASYNC_ARRIVE",
        8 => "MBARRIER_INVAL",
        9 => "MBARRIER_TRY_WAIT",
        10 => "MBARRIER_TRY_WAIT_PARITY",
        _ => "Unknown Instruction",
    }
}

fn mbarrier_stride_name(s: u8) -> &'static str {
    match s {
        0 => "MBARRIER_STRIDE_X4",
        1 => "MBARRIER_STRIDE_X8",
        2 => "MBARRIER_STRIDE_X16",
        _ => "MBARRIER_STRIDE_X1",
    }
}

fn generic_words(words: &[u32]) -> String {
    words.iter().map(|w| format!("0x{w:x} ")).collect()
}

/// cuobjdump's text for an SVAL payload. Like cuobjdump it reads the payload
/// as words whatever its size, and uses the leading words a form needs.
fn block_text(attr: u8, b: &Block, sym_name: &dyn Fn(u32) -> String) -> String {
    use code::*;
    let named = |i: u32| format!("{}(0x{i:x})", sym_name(i));
    let w = b.words();
    match attr {
        EXTERNS => {
            let mut s = "externs:\t".to_string();
            for i in &w {
                s.push_str(&named(*i));
                s.push('\t');
            }
            s
        }
        FRAME_SIZE | MIN_STACK_SIZE | REGCOUNT | SAM_REGION_STACK_SIZE | LOAD_CACHE_REQUEST if w.len() >= 2 => {
            let what = match attr {
                FRAME_SIZE => format!("frame size: 0x{:x}", w[1]),
                MIN_STACK_SIZE => format!("min stack size: 0x{:x}", w[1]),
                REGCOUNT => format!("register count: {}", w[1]),
                SAM_REGION_STACK_SIZE => format!("Sam region stack size: 0x{:x}", w[1]),
                _ => format!("cache request : {}", if w[1] != 0 { "ON" } else { "OFF" }),
            };
            format!("function: {}\t{what}", named(w[0]))
        }
        KPARAM_INFO if w.len() >= 3 => {
            let k = KParamInfo::from_words([w[0], w[1], w[2]]);
            format!(
                "Index : 0x{:x}\tOrdinal : 0x{:x}\tOffset  : 0x{:x}\tSize    : 0x{:x}\n\t\tPointee's logAlignment : 0x{:x}\tSpace : 0x{:x}\tcbank : 0x{:x}\tParameter Space : {}\t",
                k.index,
                k.ordinal,
                k.offset,
                k.size,
                k.log_align,
                k.space,
                k.cbank,
                if k.is_smem { "SMEM" } else { "CBANK" }
            )
        }
        KPARAM_INFO_V2 if w.len() >= 3 => {
            let k = KParamInfoV2::from_words([w[0], w[1], w[2]]);
            format!(
                "Index : 0x{:x}\tOrdinal : 0x{:x}\tOffset  : 0x{:x}\tSize    : 0x{:x}\n\t\tPointee's logAlignment : 0x{:x}\tSpace : 0x{:x}\t",
                k.index,
                k.ordinal,
                k.offset,
                k.size,
                k.log_align,
                k.space()
            )
        }
        QUERY_NUMATTRIB if !w.is_empty() => {
            let b = w[0].to_le_bytes();
            format!(
                "NumAttrib for Texture query descriptor in Unified Mode: 0x{:x}\n\t\tNumAttrib for Texture query descriptor in Independent Mode: 0x{:x}\n\t\tNumAttrib for Sampler query descriptor in Independent Mode: 0x{:x}\n\t\tNumAttrib for Surface query descriptor : 0x{:x}",
                b[0], b[1], b[2], b[3]
            )
        }
        SHARED_SCRATCH if w.len() >= 2 => format!("start offset: 0x{:x}\tsize: {}", w[0], w[1]),
        ATOM16_EMUL_INSTR_REG_MAP => w
            .chunks_exact(2)
            .map(|p| format!("(0x{:x}, {})  ", p[0], p[1] & 0xffff))
            .collect(),
        COROUTINE_RESUME_ID_OFFSETS => w
            .chunks_exact(2)
            .map(|p| format!("({}, 0x{:x})  ", p[0], p[1]))
            .collect(),
        PER_REG_TARGET_PERF_STATS => w
            .chunks_exact(4)
            .map(|p| {
                format!(
                    "({}, {:.6})  ",
                    p[0],
                    f64::from_bits(u64::from(p[2]) | u64::from(p[3]) << 32)
                )
            })
            .collect(),
        INDIRECT_BRANCH_TARGETS => match b {
            Block::IndirectBranchTargets { branches } => {
                let mut s = String::new();
                for br in branches {
                    s.push_str(&format!(
                        "\n\t\tOffset of Indirect Branch: 0x{:x}\t Number of targets: {}\n\t\tTargets: {}\n",
                        br.offset,
                        br.targets.len(),
                        generic_words(&br.targets)
                    ));
                }
                s
            }
            _ => generic_words(&w),
        },
        MBARRIER_INSTR_OFFSETS => {
            let mut s = String::new();
            for c in w.chunks_exact(4) {
                let m = MbarrierInstr {
                    offset: c[0],
                    reg: c[1],
                    imm: c[2],
                    info: c[3],
                };
                let imm = if m.imm == 0 {
                    String::new()
                } else if m.imm_signed() {
                    format!(" + {}", m.imm as i32)
                } else {
                    format!(" + {}", m.imm)
                };
                s.push_str(&format!(
                    "\n\t0x{:x}\t:\tInstruction Kind : {}\t(R{} + UR{}{imm})\tStride : {}",
                    m.offset,
                    mbarrier_kind_name(m.kind()),
                    m.reg,
                    m.ureg(),
                    mbarrier_stride_name(m.stride())
                ));
            }
            s
        }
        // Kind 2 (InstructionInfo) has a longer, variable layout; cuobjdump prints
        // every other kind as SpillRefill.
        ANNOTATIONS if w.len().is_multiple_of(2) && w.chunks_exact(2).all(|p| !(2..=5).contains(&p[0])) => w
            .chunks_exact(2)
            .map(|p| format!("SpillRefill : \tOffset : 0x{:x}", p[1]))
            .collect::<Vec<_>>()
            .join("\n\t\t"),
        AT_ENTRY_FRAGMENTS => {
            let mut s = "At Entry Fragments :\t".to_string();
            for v in &w {
                s.push(' ');
                s.push_str(at_entry_fragment_name(*v));
            }
            s.push('\n');
            s
        }
        SYSCALLS_FALLBACK => w
            .chunks_exact(2)
            .map(|p| format!("{} -> {}\n", named(p[0]), named(p[1])))
            .collect(),
        LANGUAGE => {
            let mut s = "Language:\t".to_string();
            for v in &w {
                s.push(' ');
                s.push_str(language_name(*v));
            }
            s.push('\n');
            s
        }
        INSTR_OFFSETS if !w.is_empty() => {
            let mut s = format!("Instruction Kind : {}", instr_kind_name(w[0]));
            for o in &w[1..] {
                s.push_str(&format!("\n\t\t0x{o:x}"));
            }
            s
        }
        _ => generic_words(&w),
    }
}

fn at_entry_fragment_name(v: u32) -> &'static str {
    match v {
        1 => "AT_ENTRY_FRAGMENT_TEST1",
        2 => "AT_ENTRY_FRAGMENT_TEST2",
        3 => "AT_ENTRY_FRAGMENT_TEST3",
        4 => "AT_ENTRY_FRAGMENT_TMEM_CTA1",
        5 => "AT_ENTRY_FRAGMENT_TMEM_CTA2",
        6 => "AT_ENTRY_FRAGMENT_TMEM_CTA1_V2",
        7 => "AT_ENTRY_FRAGMENT_TMEM_CTA2_V2",
        8 => "AT_ENTRY_FRAGMENT_RESIZE_SMEM",
        9 => "AT_ENTRY_FRAGMENT_DEVICE_MEMCPY",
        _ => "unknown Attribute",
    }
}

fn instr_kind_name(v: u32) -> &'static str {
    match v {
        1 => "PREFETCH_L1_VALID_ADDR",
        2 => "FENCE_PROXY_ASYNC_GENERIC_SR_SMEM_READS_RELEASE_CLUSTER",
        3 => "FENCE_ALIAS_SR_READ_RELEASE_SYS",
        _ => "UNKNOWN",
    }
}

/// Helpers for the codec tests (real section dumps under tests/data/codecs).
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::{Path, PathBuf};
    use std::rc::Rc;

    pub fn unhex(s: &str) -> Vec<u8> {
        let s: Vec<u8> = s.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
        s.chunks(2)
            .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
            .collect()
    }

    /// One section dump: `<sample>/<name>.bin` with cuobjdump's listing of it in `<name>.txt`.
    pub struct SectionSample {
        pub path: String,
        /// Section name without the leading dot, e.g. `nv.info._Z2k4Pii`.
        pub name: String,
        pub data: Vec<u8>,
        /// What `cuobjdump -elf` printed under the section's name.
        pub cuobjdump: String,
        pub symbols: Rc<Vec<String>>,
        pub strtab: Rc<Vec<u8>>,
    }

    impl SectionSample {
        pub fn sym_name(&self, i: u32) -> String {
            self.symbols
                .get(i as usize)
                .cloned()
                .unwrap_or_else(|| format!("<symbol {i}>"))
        }

        pub fn string_at(&self, off: u32) -> String {
            let s = self.strtab.get(off as usize..).unwrap_or(&[]);
            let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            String::from_utf8_lossy(&s[..end]).into_owned()
        }
    }

    /// tests/data/codecs, or the folder named by `CULDB_CODEC_DATA` (same layout;
    /// to run the codec tests over a larger set of dumps).
    pub fn data_dir() -> PathBuf {
        match std::env::var_os("CULDB_CODEC_DATA") {
            Some(d) => PathBuf::from(d),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codecs"),
        }
    }

    /// Calls `f` for every section dump of every sample, in a stable order.
    pub fn for_each_section(mut f: impl FnMut(&SectionSample)) {
        let mut samples: Vec<PathBuf> = std::fs::read_dir(data_dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("meta.txt").is_file())
            .collect();
        samples.sort();
        assert!(!samples.is_empty());
        for dir in samples {
            let symbols = std::fs::read_to_string(dir.join("symbols.txt")).unwrap();
            let symbols = Rc::new(symbols.lines().map(str::to_string).collect::<Vec<_>>());
            let strtab = Rc::new(std::fs::read(dir.join("strtab.bin")).unwrap_or_default());
            let mut bins: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin") && !p.ends_with("strtab.bin"))
                .collect();
            bins.sort();
            for bin in bins {
                let name = bin.file_stem().unwrap().to_string_lossy().into_owned();
                let s = SectionSample {
                    path: bin.display().to_string(),
                    data: std::fs::read(&bin).unwrap(),
                    cuobjdump: std::fs::read_to_string(bin.with_extension("txt")).unwrap(),
                    name,
                    symbols: symbols.clone(),
                    strtab: strtab.clone(),
                };
                f(&s);
            }
        }
    }

    /// Compares two listings line by line after `normalize`.
    pub fn assert_same_listing(ours: &str, theirs: &str, what: &str, normalize: impl Fn(&str) -> String) {
        let a: Vec<String> = ours.lines().map(&normalize).collect();
        let b: Vec<String> = theirs.lines().map(&normalize).collect();
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(
                x,
                y,
                "{what}: line {} differs\nours:\n{ours}\ncuobjdump:\n{theirs}",
                i + 1
            );
        }
        assert_eq!(
            a.len(),
            b.len(),
            "{what}: line counts differ\nours:\n{ours}\ncuobjdump:\n{theirs}"
        );
    }

    /// Feeds `f` a few thousand pseudo-random inputs (a fixed LCG), biased
    /// towards small numbers so that record headers often look valid.
    pub fn random_inputs(mut f: impl FnMut(&[u8])) {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u32
        };
        for _ in 0..4000 {
            let len = (next() % 96) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => (next() % 6) as u8,
                    1 => 0xff,
                    2 => (next() % 16) as u8,
                    _ => next() as u8,
                })
                .collect();
            f(&bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support as support;
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        support::unhex(s)
    }

    /// `.nv.info._Z2k4Pii` of a90 (nvcc -arch=sm_90 -rdc=true): a kernel with an
    /// int param and a pointer, calling printf.
    const K4: &str = "0466040003000000043704008700000004170c00000000000100080000f0110004170c00000000000000000000f0210003500000031bff00040f040025000000035f0101041c0400f001000003190c00040a08002d00000010020c000436040008000000036b0100026d0000";

    #[test]
    fn decodes_kernel_info_like_cuobjdump() {
        let data = hex(K4);
        let info = decode(&data).unwrap();
        assert_eq!(info.entries.len(), 14);
        assert!(info.trailing.is_empty());
        // <0x1> EIATTR_LANGUAGE SVAL: PTX
        assert_eq!(info.entries[0].attr, code::LANGUAGE);
        assert_eq!(info.entries[0].block(), Some(&Block::Words { words: vec![3] }));
        // <0x2> CUDA_API_VERSION 0x87
        assert_eq!(info.entries[1].block(), Some(&Block::Words { words: vec![0x87] }));
        // <0x3> KPARAM_INFO Index 0 Ordinal 1 Offset 8 Size 4 logAlign 0 Space 0 cbank 0x1f CBANK
        assert_eq!(
            info.entries[2].block(),
            Some(&Block::KParamInfo(KParamInfo {
                index: 0,
                ordinal: 1,
                offset: 8,
                log_align: 0,
                space: 0,
                cbank: 0x1f,
                is_smem: false,
                size: 4
            }))
        );
        // <0x5> SPARSE_MMA_MASK HVAL 0x0, <0x6> MAXREG_COUNT HVAL 0xff
        assert_eq!(info.entries[4].value, Value::Half { value: 0 });
        assert_eq!(info.entries[5].attr, code::MAXREG_COUNT);
        assert_eq!(info.entries[5].scalar(), Some(0xff));
        // <0x7> EXTERNS vprintf(0x25)
        assert_eq!(info.entries[6].block(), Some(&Block::Symbols { syms: vec![0x25] }));
        // <0x8> unknown Attribute (0x5f) HVAL 0x101
        assert_eq!(info.entries[7].attr, 0x5f);
        assert_eq!(info.entries[7].value, Value::Half { value: 0x101 });
        // <0x9> EXIT_INSTR_OFFSETS 0x1f0
        assert_eq!(info.entries[8].block(), Some(&Block::Words { words: vec![0x1f0] }));
        // <0x11> PARAM_CBANK 0x2d 0xc0210
        assert_eq!(
            info.entries[10].block(),
            Some(&Block::ParamCbank {
                sym: 0x2d,
                offset: 0x210,
                size: 0xc
            })
        );
        // <0x14> PREEXIT_USED BVAL 0x0
        assert_eq!(info.entries[13].value, Value::Byte { value: 0, pad: 0 });
        assert_eq!(info.symbol_refs(), vec![0, 0, 0x25, 0x2d]);
        assert_eq!(encode(&info), data);
        let offs = info.symbol_ref_offsets();
        for (o, s) in offs.iter().zip(info.symbol_refs()) {
            assert_eq!(u32::from_le_bytes(data[*o..*o + 4].try_into().unwrap()), s);
        }
    }

    #[test]
    fn renders_and_canonicalizes() {
        let info = decode(&hex(K4)).unwrap();
        let names = |i: u32| match i {
            0x25 => "vprintf".to_string(),
            0x2d => ".nv.constant0._Z2k4Pii".to_string(),
            _ => format!("sym{i}"),
        };
        let r = info.render(&names);
        assert!(r.contains("\tValue:\tLanguage:\t PTX\n\n\t<0x2>\n"), "{r}");
        assert!(r.contains("\tValue:\texterns:\tvprintf(0x25)\t\n"), "{r}");
        assert!(r.contains(
            "\tValue:\tIndex : 0x0\tOrdinal : 0x1\tOffset  : 0x8\tSize    : 0x4\n\t\tPointee's logAlignment : 0x0\tSpace : 0x0\tcbank : 0x1f\tParameter Space : CBANK\t\n"
        ));
        assert!(r.contains("\tValue:\t0x2d 0xc0210 \n"));
        assert!(r.contains("\tValue:\t 0x1\n"));
        assert!(
            r.contains("\t<0x10>\n"),
            "cuobjdump numbers entries in decimal after 0x"
        );
        let c = info.canonical(&names);
        assert_eq!(c.lines().count(), 14);
        assert!(c.contains(": vprintf\n"), "{c}");
        assert!(c.contains(": .nv.constant0._Z2k4Pii offset=0x210 size=0xc"), "{c}");
        assert!(!c.contains("0x25"));
        // Canonical forms agree after renumbering.
        let mut moved = info.clone();
        moved.map_symbols(&mut |i| if i == 0 { 0 } else { i + 100 });
        let moved_names = |i: u32| names(if i > 100 { i - 100 } else { i });
        assert_eq!(moved.canonical(&moved_names), c);
        assert_ne!(encode(&moved), encode(&info));
        assert_eq!(moved.symbol_refs(), vec![0, 0, 0x25 + 100, 0x2d + 100]);
    }

    #[test]
    fn module_info_symbol_attributes() {
        // Module .nv.info of a90: REGCOUNT, MAX_STACK_SIZE, FRAME_SIZE of _Z3reci (0x2c).
        let data = hex("042f08002c00000018000000042308002c00000000000000041108002c00000000000000");
        let info = decode(&data).unwrap();
        assert_eq!(info.entries[0].block(), Some(&Block::SymValue { sym: 0x2c, value: 24 }));
        assert_eq!(info.symbol_refs(), vec![0x2c, 0x2c, 0x2c]);
        let names = |_: u32| "_Z3reci".to_string();
        let r = info.render(&names);
        assert!(r.contains("\tValue:\tfunction: _Z3reci(0x2c)\tregister count: 24\n"));
        assert!(r.contains("\tValue:\t0x2c 0x0 \n"));
        assert!(r.contains("\tValue:\tfunction: _Z3reci(0x2c)\tframe size: 0x0\n"));
        assert_eq!(encode(&info), data);
    }

    #[test]
    fn unknown_format_is_kept() {
        let data = hex("042f08002c00000018000000" /* then format 7 */);
        let mut with_tail = data.clone();
        with_tail.extend_from_slice(&[7, 1, 2, 3, 4, 5]);
        let info = decode(&with_tail).unwrap();
        assert_eq!(info.entries.len(), 1);
        assert_eq!(info.trailing, vec![7, 1, 2, 3, 4, 5]);
        assert_eq!(encode(&info), with_tail);
        assert!(
            info.render(&|_| String::new())
                .contains("unparsed: 6 bytes at offset 0xc")
        );
    }

    #[test]
    fn truncation_is_an_error_with_offset() {
        let data = hex("042f08002c00000018000000042308002c000000");
        let e = decode(&data).unwrap_err();
        assert_eq!(e.offset, 14);
        let e = decode(&data[..14]).unwrap_err();
        assert_eq!(e.offset, 12);
    }

    #[test]
    fn typed_values_round_trip() {
        let samples: Vec<Entry> = vec![
            Entry::sval_words(code::KPARAM_INFO, &[5, 0x0034_0012, 0xffff_ffff]),
            Entry::sval_words(code::KPARAM_INFO_V2, &[5, 0x0034_0012, 0x1111_1111]),
            Entry::sval_words(
                code::INDIRECT_BRANCH_TARGETS,
                &[0xb0, 0, 2, 0x100, 0x130, 0x1f0, 0, 1, 0x240],
            ),
            Entry::sval_words(code::INDIRECT_BRANCH_TARGETS, &[0xb0, 0, 5, 0x100]),
            Entry::sval_words(code::MBARRIER_INSTR_OFFSETS, &[0xe0, 0xff, 0, 0x0006_0100]),
            Entry::sval_words(code::SAMPLER_INIT, &[0xa, 0x1ffff03]),
            Entry::sval_words(code::REGCOUNT, &[1, 2, 3]),
            Entry::sval(code::REGCOUNT, &[1, 2]),
            Entry::sval(code::EXIT_INSTR_OFFSETS, &[]),
            Entry::nval(code::TEXMODE_INDEPENDENT),
            Entry::bval(code::NUM_BARRIERS, 1),
            Entry::hval(code::SHADER_TYPE, 4),
        ];
        let info = NvInfo {
            entries: samples,
            trailing: vec![],
        };
        let bytes = encode(&info);
        assert_eq!(decode(&bytes).unwrap(), info);
        assert!(matches!(
            info.entries[2].block(),
            Some(Block::IndirectBranchTargets { .. })
        ));
        assert!(matches!(info.entries[3].block(), Some(Block::Words { .. })));
        assert_eq!(info.entries[5].symbol_refs(), vec![0xa]);
        assert_eq!(info.entries[6].symbol_refs(), vec![1]);
        assert!(info.entries[7].symbol_refs().is_empty());
        let names = |i: u32| format!("s{i}");
        let r = info.render(&names);
        assert!(r.contains("Parameter Space : SMEM"));
        assert!(r.contains("\t\tOffset of Indirect Branch: 0xb0\t Number of targets: 2\n\t\tTargets: 0x100 0x130 \n"));
        assert!(
            r.contains("\n\t0xe0\t:\tInstruction Kind : MBARRIER_INIT\t(R255 + UR6)\tStride : MBARRIER_STRIDE_X4\n")
        );
        assert!(r.contains("EIVALUE_SHADER_TYPE_COMPUTE\n"));
        // JSON works for every variant.
        let json = serde_json::to_string(&info).unwrap();
        assert!(json.contains("\"format\":\"SVAL\",\"kind\":\"k_param_info\""), "{json}");
    }

    #[test]
    fn real_sections_match_cuobjdump() {
        support::for_each_section(|s| {
            if !s.name.starts_with("nv.info") {
                return;
            }
            let info = decode(&s.data).unwrap_or_else(|e| panic!("{}: {e}", s.path));
            assert_eq!(encode(&info), s.data, "{}", s.path);
            assert!(info.trailing.is_empty());
            let ours = info.render(&|i| s.sym_name(i));
            // Attribute names come from the catalog; they are checked below where it knows the code.
            support::assert_same_listing(&ours, &s.cuobjdump, &s.path, |line| {
                if line.starts_with("\tAttribute:\t") {
                    "\tAttribute:\t*".to_string()
                } else {
                    line.to_string()
                }
            });
            for e in &info.entries {
                if let Some(n) = catalog::nvinfo_attr_name(e.attr) {
                    assert!(ours.contains(&format!("\tAttribute:\t{n}\n")));
                }
            }
            // The canonical form names symbols and survives renumbering.
            let c = info.canonical(&|i| s.sym_name(i));
            let mut moved = info.clone();
            moved.map_symbols(&mut |i| if i == 0 { 0 } else { i + 7 });
            assert_eq!(moved.canonical(&|i| s.sym_name(i.saturating_sub(7))), c, "{}", s.path);
        });
    }

    #[test]
    fn never_panics() {
        support::for_each_section(|s| {
            if s.name.starts_with("nv.info") {
                for n in 0..s.data.len() {
                    if let Ok(v) = decode(&s.data[..n]) {
                        assert_eq!(encode(&v), &s.data[..n]);
                    }
                }
            }
        });
        support::random_inputs(|bytes| {
            if let Ok(v) = decode(bytes) {
                assert_eq!(encode(&v), bytes);
                let _ = v.render(&|i| format!("s{i}"));
                let _ = v.canonical(&|i| format!("s{i}"));
            }
        });
    }
}
