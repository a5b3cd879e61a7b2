//! The UIDX file of `--uidx-file` / `-uidx` (seed 000): the slot order of the
//! unified function and data tables.
//!
//! Layout (little endian), as nvlink 13.5 reads it (corpus `err_uidx_*`):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `\x7fUFTINDX` |
//! | 8 | 4 | version |
//! | 12 | 4 | padding |
//! | 16 | 8 | UFT window size (must equal the size of `.nv.uft`) |
//! | 24 | 8 | number of UFT records |
//! | 32 | 8 | UDT window size |
//! | 40 | 8 | number of UDT records |
//! | 48 | 24 each | UFT records, then UDT records: uuid_lo, uuid_hi, offset |
//!
//! A version above 1 adds 16 bytes per UFT record, *after* the records
//! (nvlink 13.5 reads the records right after the header either way: with the
//! block put between header and records it reports `uuid not found`).
//! The file size must be exactly that; a file shorter than the magic
//! counts as not being an index file.

use serde::Serialize;

const MAGIC: &[u8; 8] = b"\x7fUFTINDX";
const HEADER: u64 = 48;
const RECORD: u64 = 24;

/// One record: the UUID of a table entry and the offset of its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UidxRecord {
    pub uuid_lo: u64,
    pub uuid_hi: u64,
    pub offset: u64,
}

impl UidxRecord {
    pub fn uuid(&self) -> (u64, u64) {
        (self.uuid_lo, self.uuid_hi)
    }
}

/// A parsed index file. `bytes` is the whole file: nvlink copies it into the
/// output as `.nv.uidx`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Uidx {
    pub version: u32,
    pub uft_window: u64,
    pub uft: Vec<UidxRecord>,
    pub udt_window: u64,
    pub udt: Vec<UidxRecord>,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// Why an index file was refused, with nvlink's text (printed as
/// `nvlink fatal   : Internal error: <text>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UidxError {
    /// The first 8 bytes are not the magic (or the file is shorter).
    NotUidx,
    /// The size does not match the counts in the header.
    Malformed,
}

impl UidxError {
    pub fn text(self) -> &'static str {
        match self {
            UidxError::NotUidx => "not uidx input",
            UidxError::Malformed => "malformed uidx input",
        }
    }
}

impl std::fmt::Display for UidxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
}

/// Parses an index file. Never allocates more than the file's own size.
pub fn parse(bytes: &[u8]) -> Result<Uidx, UidxError> {
    if bytes.len() < MAGIC.len() || &bytes[..8] != MAGIC {
        return Err(UidxError::NotUidx);
    }
    let header = |at| u64_at(bytes, at).ok_or(UidxError::Malformed);
    let version = bytes
        .get(8..12)
        .map(|s| u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
        .ok_or(UidxError::Malformed)?;
    let uft_window = header(16)?;
    let n_uft = header(24)?;
    let udt_window = header(32)?;
    let n_udt = header(40)?;
    // nvlink's size check in 64-bit arithmetic; an overflow cannot match a real file size.
    let block = if version > 1 { n_uft.checked_mul(16) } else { Some(0) };
    let expected = n_uft
        .checked_add(n_udt)
        .and_then(|n| n.checked_mul(RECORD))
        .and_then(|n| n.checked_add(HEADER))
        .and_then(|n| block.and_then(|b| n.checked_add(b)));
    if expected != Some(bytes.len() as u64) {
        return Err(UidxError::Malformed);
    }
    let record = |k: u64| -> UidxRecord {
        let at = (HEADER + k * RECORD) as usize;
        UidxRecord {
            uuid_lo: u64_at(bytes, at).unwrap_or(0),
            uuid_hi: u64_at(bytes, at + 8).unwrap_or(0),
            offset: u64_at(bytes, at + 16).unwrap_or(0),
        }
    };
    Ok(Uidx {
        version,
        uft_window,
        uft: (0..n_uft).map(record).collect(),
        udt_window,
        udt: (n_uft..n_uft + n_udt).map(record).collect(),
        bytes: bytes.to_vec(),
    })
}

/// Reads and parses the file named by `--uidx-file`, with nvlink's fatal
/// texts: `Could not open input file 'F'` (missing), `Could not read file 'F'`
/// (empty), `Memory allocation failure` (a folder), `Internal error: not uidx
/// input`, `Internal error: malformed uidx input`.
/// A relative `path` is read from `dir` when given (the name in messages
/// stays as given).
pub fn load(path: &str, dir: Option<&std::path::Path>) -> Result<Uidx, String> {
    let file = match dir {
        Some(d) if std::path::Path::new(path).is_relative() => d.join(path),
        _ => std::path::PathBuf::from(path),
    };
    if file.is_dir() {
        return Err("Memory allocation failure".into());
    }
    let bytes = super::inputs::read_regular(&file).map_err(|_| format!("Could not open input file '{path}'"))?;
    if bytes.is_empty() {
        return Err(format!("Could not read file '{path}'"));
    }
    parse(&bytes).map_err(|e| format!("Internal error: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::build::uidx_bytes;

    #[test]
    fn round_trip() {
        let b = uidx_bytes(1, 0x100, &[(1, 2, 0x80), (3, 4, 0)], 0x10, &[(5, 6, 8)], None);
        let u = parse(&b).unwrap();
        assert_eq!(u.uft_window, 0x100);
        assert_eq!(
            u.uft[1],
            UidxRecord {
                uuid_lo: 3,
                uuid_hi: 4,
                offset: 0
            }
        );
        assert_eq!(u.udt[0].offset, 8);
        assert_eq!(parse(&b[..b.len() - 1]), Err(UidxError::Malformed));
        assert_eq!(parse(&b[..4]), Err(UidxError::NotUidx));
    }

    #[test]
    fn version_2_block_follows_the_records() {
        let mut b = uidx_bytes(2, 0x80, &[(1, 2, 0)], 0, &[], None);
        assert_eq!(parse(&b), Err(UidxError::Malformed));
        b.extend_from_slice(&[0u8; 16]);
        assert_eq!(parse(&b).unwrap().uft[0].uuid(), (1, 2));
    }
}
