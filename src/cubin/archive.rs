//! `ar` archives of host objects or cubins, read with `object`'s archive
//! reader (GNU `/` symbol table and `//` long-name table, BSD `#1/` names,
//! 64-bit tables).
//!
//! What the tools do (CUDA 13.5, tested):
//!
//! * `nvcc -lib` writes an ordinary GNU archive of host objects with a `/`
//!   symbol table of their *host* symbols (kernel stubs, `__fatbinwrap_*`,
//!   shadow variables). There is no device symbol index; `ar rcs` of cubins
//!   gets a `/` table of the cubins' ELF symbols like any ELF.
//! * nvlink ignores the symbol table: it links the device code of **every**
//!   host-object member (whole-archive), needed or not, reading each member's
//!   `__nv_relfatbin` like a host object on the command line. A member without
//!   code for the target arch is skipped silently.
//! * nvlink ignores cubin and fatbin members of an archive (whatever their
//!   names): an archive of cubins contributes nothing.
//! * An archive is recognised by its magic whatever the file is called
//!   (`libx.lib`, `libx.o` work); one without an extension is ignored.

use object::read::archive::{ArchiveFile, ArchiveKind};

use super::error::{FormatError, Result};

/// `!<arch>\n`
pub const MAGIC: &[u8; 8] = b"!<arch>\n";
/// `!<thin>\n`: members are not stored in the archive.
pub const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
const HEADER_SIZE: u64 = 60;

/// True for an `ar` archive (regular or thin).
pub fn is_archive(data: &[u8]) -> bool {
    data.starts_with(MAGIC) || data.starts_with(THIN_MAGIC)
}

/// One member of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveMember<'a> {
    /// Position among the members (symbol and name tables not counted).
    pub index: usize,
    /// Member name, long names resolved, the GNU trailing `/` removed.
    pub name: String,
    /// Offset of the member header.
    pub header_offset: u64,
    /// Offset of the member data.
    pub offset: u64,
    pub data: &'a [u8],
}

/// One entry of the archive symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveSymbol {
    pub name: String,
    /// Header offset of the member that defines it.
    pub member_offset: u64,
    /// Index of that member in [`Archive::members`], if one starts there.
    pub member: Option<usize>,
}

/// A parsed archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive<'a> {
    /// "gnu", "gnu64", "bsd", "bsd64", "coff", "aix", "zos" or "unknown"
    /// (no symbol or name table to tell).
    pub format: &'static str,
    pub members: Vec<ArchiveMember<'a>>,
    /// The symbol table; empty when the archive has none.
    pub symbols: Vec<ArchiveSymbol>,
}

/// The members of an archive, in order.
pub fn members(data: &[u8]) -> Result<Vec<ArchiveMember<'_>>> {
    Ok(parse(data)?.members)
}

/// Parses an archive: members and symbol table.
pub fn parse(data: &[u8]) -> Result<Archive<'_>> {
    let file = ArchiveFile::parse(data).map_err(|e| FormatError::new(0, format!("not a readable ar archive: {e}")))?;
    if file.is_thin() {
        return Err(FormatError::new(
            0,
            "thin archive: the members are separate files, not stored in the archive",
        ));
    }
    let format = match file.kind() {
        ArchiveKind::Gnu => "gnu",
        ArchiveKind::Gnu64 => "gnu64",
        ArchiveKind::Bsd => "bsd",
        ArchiveKind::Bsd64 => "bsd64",
        ArchiveKind::Coff => "coff",
        ArchiveKind::AixBig => "aix",
        ArchiveKind::Zos => "zos",
        _ => "unknown",
    };
    let base = data.as_ptr() as usize;
    let mut members = Vec::new();
    // Where the next member header should be, for errors.
    let mut next_header = MAGIC.len() as u64;
    for m in file.members() {
        let m = m.map_err(|e| FormatError::new(next_header, format!("bad archive member header: {e}")))?;
        let (offset, size) = m.file_range();
        let header_offset = m
            .header()
            .map(|h| (h as *const _ as usize).wrapping_sub(base) as u64)
            .unwrap_or(offset.saturating_sub(HEADER_SIZE));
        let name = String::from_utf8_lossy(m.name()).into_owned();
        let bytes = m.data(data).map_err(|_| {
            FormatError::new(
                header_offset,
                format!(
                    "member {name}: {size:#x} bytes at {offset:#x} run past the end of the {:#x}-byte archive",
                    data.len()
                ),
            )
        })?;
        let end = offset.saturating_add(size);
        next_header = end + (end & 1);
        members.push(ArchiveMember {
            index: members.len(),
            name,
            header_offset,
            offset,
            data: bytes,
        });
    }
    let mut symbols = Vec::new();
    let table = file
        .symbols()
        .map_err(|e| FormatError::new(MAGIC.len() as u64, format!("bad archive symbol table: {e}")))?;
    if let Some(iter) = table {
        for s in iter {
            let s = s.map_err(|e| FormatError::new(MAGIC.len() as u64, format!("bad archive symbol table: {e}")))?;
            let member_offset = s.offset().0;
            symbols.push(ArchiveSymbol {
                name: String::from_utf8_lossy(s.name()).into_owned(),
                member_offset,
                member: members.iter().position(|m| m.header_offset == member_offset),
            });
        }
    }
    Ok(Archive {
        format,
        members,
        symbols,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/containers");

    fn sample(name: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}/{name}")).unwrap()
    }

    #[test]
    fn nvcc_lib_archive() {
        let d = sample("libab.a");
        assert!(is_archive(&d));
        let a = parse(&d).unwrap();
        assert_eq!(a.format, "gnu");
        let names: Vec<_> = a.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a_sm90.o", "b.o"]);
        for m in &a.members {
            assert_eq!(m.offset, m.header_offset + 60);
            assert_eq!(&d[m.offset as usize..][..4], b"\x7fELF");
        }
        // Host symbols only: the kernel stub, not a device symbol index.
        let ka = a.symbols.iter().find(|s| s.name == "_Z2kaPi").unwrap();
        assert_eq!(ka.member, Some(0));
        let g = a.symbols.iter().find(|s| s.name == "_Z1gi").unwrap();
        assert_eq!(g.member, Some(1));
        assert!(a.symbols.iter().any(|s| s.name.starts_with("__fatbinwrap_")));
    }

    #[test]
    fn long_names() {
        let d = sample("libcubins.a");
        let m = members(&d).unwrap();
        assert_eq!(m[0].name, "kernel_a_with_a_long_name.cubin");
        assert_eq!(m[1].name, "b.cubin");
        let a = parse(&d).unwrap();
        assert!(a.symbols.iter().any(|s| s.name == "_Z2kbPf" && s.member == Some(1)));
    }

    #[test]
    fn damaged() {
        let d = sample("libab.a");
        for n in 0..d.len().min(400) {
            let _ = parse(&d[..n]);
        }
        // Cut inside the second member: its header offset is reported.
        let m = members(&d).unwrap();
        let err = parse(&d[..m[1].offset as usize + 100]).unwrap_err();
        assert_eq!(err.offset, m[1].header_offset, "{err}");
        assert!(parse(b"!<thin>\n").is_err());
        assert!(parse(b"!<arch>\nxx").is_err());
        assert_eq!(members(b"!<arch>\n").unwrap(), vec![]);
    }
}
