//! The file layout of an ELF64 cubin as its headers state it: where the ELF
//! header, program headers, section headers and each section's bytes are.
//! The map and the size report read offsets from here, so they agree with
//! the written file by construction. Every count and offset is checked
//! against the file before it is used.

use serde::Serialize;

use crate::cubin::consts::is_nobits;

/// One section header, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shdr {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
}

impl Shdr {
    /// Bytes the section occupies in the file (0 for NOBITS kinds).
    pub fn file_size(&self) -> u64 {
        if is_nobits(self.sh_type) || self.sh_type == 0 {
            0
        } else {
            self.size
        }
    }
}

/// Where everything is in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileLayout {
    pub file_size: u64,
    pub ehsize: u64,
    pub phoff: u64,
    pub phnum: u64,
    pub phentsize: u64,
    pub shoff: u64,
    pub shnum: u64,
    pub shentsize: u64,
    /// Index 0 (the null section) included.
    pub sections: Vec<Shdr>,
}

fn u16_at(d: &[u8], at: usize) -> Result<u64, String> {
    d.get(at..at + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64)
        .ok_or_else(|| format!("truncated at offset {at:#x}"))
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, String> {
    d.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| format!("truncated at offset {at:#x}"))
}

fn u64_at(d: &[u8], at: usize) -> Result<u64, String> {
    d.get(at..at + 8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .ok_or_else(|| format!("truncated at offset {at:#x}"))
}

/// Reads the layout of `data`, a little-endian ELF64 file.
pub fn layout(data: &[u8]) -> Result<FileLayout, String> {
    if data.len() < 64 || &data[..4] != b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    if data[4] != 2 || data[5] != 1 {
        return Err("not a little-endian ELF64 file (cubins are)".into());
    }
    let len = data.len() as u64;
    let ehsize = u16_at(data, 0x34)?;
    let phoff = u64_at(data, 0x20)?;
    let shoff = u64_at(data, 0x28)?;
    let phentsize = u16_at(data, 0x36)?;
    let phnum = u16_at(data, 0x38)?;
    let shentsize = u16_at(data, 0x3a)?;
    let shnum = u16_at(data, 0x3c)?;
    let shstrndx = u16_at(data, 0x3e)? as usize;
    let within = |off: u64, n: u64, what: &str| -> Result<(), String> {
        match off.checked_add(n) {
            Some(end) if end <= len => Ok(()),
            _ => Err(format!(
                "{what} at {off:#x} ({n} bytes) runs past the end of the file ({len} bytes)"
            )),
        }
    };
    within(0, ehsize.max(64), "the ELF header")?;
    within(phoff, phnum * phentsize, "the program headers")?;
    if shnum == 0 && shoff != 0 {
        return Err("extended section numbering (e_shnum 0) is not supported".into());
    }
    if shnum > 0 && shentsize != 64 {
        return Err(format!("section header size {shentsize}, expected 64"));
    }
    within(shoff, shnum * shentsize, "the section headers")?;
    let mut sections = Vec::with_capacity(shnum as usize);
    for i in 0..shnum as usize {
        let at = (shoff as usize) + i * 64;
        let s = Shdr {
            index: i,
            name: String::new(),
            sh_type: u32_at(data, at + 4)?,
            flags: u64_at(data, at + 8)?,
            addr: u64_at(data, at + 16)?,
            offset: u64_at(data, at + 24)?,
            size: u64_at(data, at + 32)?,
            link: u32_at(data, at + 40)?,
            info: u32_at(data, at + 44)?,
            align: u64_at(data, at + 48)?,
            entsize: u64_at(data, at + 56)?,
        };
        within(s.offset, s.file_size(), &format!("section {i}"))?;
        sections.push(s);
    }
    let strtab = sections
        .get(shstrndx)
        .map(|s| (s.offset as usize, s.file_size() as usize));
    for (i, sec) in sections.iter_mut().enumerate() {
        let at = (shoff as usize) + i * 64;
        let off = u32_at(data, at)? as usize;
        if let Some((start, size)) = strtab
            && off < size
        {
            let bytes = &data[start + off..start + size];
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            sec.name = String::from_utf8_lossy(&bytes[..end]).into_owned();
        }
    }
    Ok(FileLayout {
        file_size: len,
        ehsize,
        phoff,
        phnum,
        phentsize,
        shoff,
        shnum,
        shentsize,
        sections,
    })
}
