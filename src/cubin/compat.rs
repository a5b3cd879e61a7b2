//! Codec for `.nv.compat` (SHT_CUDA_COMPAT_INFO, 0x70000086): the module's
//! compatibility attributes (EICOMPAT_ATTR_*, named by
//! [`catalog::compat_attr_name`]).
//!
//! The records have the .nv.info layout (see [`super::nvinfo`]): format byte,
//! attribute code, then a value (NVAL: 2 unused bytes, BVAL: u8 + 1 unused byte,
//! HVAL: u16, SVAL: u16 size + payload). No attribute holds a symbol index.
//!
//! Values cuobjdump 13.5 decodes (checked by patching a cubin's .nv.compat):
//! CUDA_DRIVER_VERSION (0x0a, HVAL) prints `major.minor` = `v >> 8`, `v & 0xff`;
//! FINALIZER_VERSION (0x0e) and MIN_FINALIZER_VERSION_FOR_MVC (0x0f), HVAL,
//! print `v >> 10`, `(v >> 6) & 0xf`, `v & 0x3f` joined by dots (0xffff prints
//! `UNKNOWN`); INST_TCGEN05_MMA_DEPRECATED (0x04, BVAL) prints `N/A`.

use serde::Serialize;

use super::catalog;
use super::error::Result;
use super::nvinfo::{self, Block, Value};

/// EICOMPAT_ATTR_* codes (as cuobjdump 13.5 names them).
pub mod code {
    pub const ISA_CLASS: u8 = 0x02;
    pub const INST_TENSORMAP_V1: u8 = 0x03;
    pub const INST_TCGEN05_MMA_DEPRECATED: u8 = 0x04;
    pub const INST_TCGEN05_MMA: u8 = 0x05;
    pub const ENABLE_OPPORTUNISTIC_FINALIZATION: u8 = 0x06;
    /// Unnamed by cuobjdump 13.5; HVAL 0x101 from ptxas 13.5 for sm_100 and
    /// sm_120, from ptxas 13.0 for sm_90 too (NVSHMEM's libnvshmem_device.a).
    pub const UNNAMED_07: u8 = 0x07;
    /// Unnamed by cuobjdump 13.5; HVAL (nvlink merges it, no ptxas seen to write it).
    pub const UNNAMED_08: u8 = 0x08;
    pub const CUDA_ACCELERATOR_TARGET: u8 = 0x09;
    pub const CUDA_DRIVER_VERSION: u8 = 0x0a;
    pub const CAN_FASTPATH_FINALIZE: u8 = 0x0b;
    pub const CUDA_INTERNAL_TARGET: u8 = 0x0c;
    /// Unnamed by cuobjdump 13.5; HVAL 0x101 from ptxas 13.5 for sm_90 and
    /// up (0x103 for sm_107).
    pub const UNNAMED_0D: u8 = 0x0d;
    pub const FINALIZER_VERSION: u8 = 0x0e;
    pub const MIN_FINALIZER_VERSION_FOR_MVC: u8 = 0x0f;
}

/// A whole .nv.compat section.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Compat {
    pub entries: Vec<CompatEntry>,
    /// Bytes from the first record with an unknown format byte to the end
    /// (empty in real sections); kept for a lossless round trip.
    pub trailing: Vec<u8>,
}

/// One compatibility attribute. SVAL payloads are kept as words (or bytes when
/// their size is not a multiple of 4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompatEntry {
    /// EICOMPAT_ATTR_* code.
    pub attr: u8,
    pub value: Value,
}

/// Decodes a .nv.compat section.
pub fn decode(data: &[u8]) -> Result<Compat> {
    let (records, stop) = nvinfo::read_records(data)?;
    let entries = records
        .iter()
        .map(|r| CompatEntry {
            attr: r.attr,
            value: nvinfo::raw_value(r, nvinfo::plain_block),
        })
        .collect();
    Ok(Compat {
        entries,
        trailing: data[stop..].to_vec(),
    })
}

/// Encodes a section; `encode(&decode(x)?) == x`.
pub fn encode(c: &Compat) -> Vec<u8> {
    let mut out = Vec::new();
    for e in &c.entries {
        e.as_nvinfo().encode_into(&mut out);
    }
    out.extend_from_slice(&c.trailing);
    out
}

/// A finalizer version as FINALIZER_VERSION encodes it (major 6 bits, minor 4, patch 6).
pub fn finalizer_version(v: u16) -> Option<(u8, u8, u8)> {
    (v != 0xffff).then_some(((v >> 10) as u8, ((v >> 6) & 0xf) as u8, (v & 0x3f) as u8))
}

impl Compat {
    pub fn decode(data: &[u8]) -> Result<Compat> {
        decode(data)
    }

    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// The first entry with code `attr`.
    pub fn get(&self, attr: u8) -> Option<&CompatEntry> {
        self.entries.iter().find(|e| e.attr == attr)
    }

    /// The BVAL/HVAL value of the first entry with code `attr`.
    pub fn scalar(&self, attr: u8) -> Option<u32> {
        self.get(attr).and_then(CompatEntry::scalar)
    }

    /// EICOMPAT_ATTR_ISA_CLASS.
    pub fn isa_class(&self) -> Option<u32> {
        self.scalar(code::ISA_CLASS)
    }

    /// The section as `cuobjdump -elf` prints it under `.nv.compat`
    /// (`\t<0xN>` then the entry's lines, N in decimal after "0x").
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut at = 0usize;
        for (i, e) in self.entries.iter().enumerate() {
            out.push_str(&format!("\t<0x{}>\n", i + 1));
            out.push_str(&e.render());
            at += e.as_nvinfo().encoded_len();
        }
        if !self.trailing.is_empty() {
            out.push_str(&nvinfo::trailing_note(&self.trailing, at));
        }
        out
    }

    /// One stable line per entry.
    pub fn canonical(&self) -> String {
        let mut lines: Vec<String> = self.entries.iter().map(CompatEntry::canonical).collect();
        if !self.trailing.is_empty() {
            lines.push(format!("unparsed {}", nvinfo::hex_bytes(&self.trailing)));
        }
        lines.join("\n")
    }
}

impl CompatEntry {
    fn as_nvinfo(&self) -> nvinfo::Entry {
        nvinfo::Entry {
            attr: self.attr,
            value: self.value.clone(),
        }
    }

    /// The EIFMT_* byte.
    pub fn format(&self) -> u8 {
        self.as_nvinfo().format()
    }

    /// The BVAL or HVAL value, widened.
    pub fn scalar(&self) -> Option<u32> {
        self.as_nvinfo().scalar()
    }

    /// The catalog's name, or `EICOMPAT_ATTR_0x0d` style when unknown.
    pub fn attr_name(&self) -> String {
        catalog::compat_attr_name(self.attr)
            .map_or_else(|| format!("EICOMPAT_ATTR_0x{:02x}", self.attr), str::to_string)
    }

    /// The entry's lines as cuobjdump prints them; codes the catalog does not
    /// name print as `unknown Attribute (0x..)`.
    pub fn render(&self) -> String {
        let name = catalog::compat_attr_name(self.attr)
            .map_or_else(|| format!("unknown Attribute (0x{:02x})", self.attr), str::to_string);
        let mut out = format!(
            "\tAttribute:\t{name}\n\tFormat:\t{}\n",
            nvinfo::format_name(self.format()).unwrap_or("unknown Format")
        );
        if !matches!(self.value, Value::None { .. }) {
            out.push_str(&format!("\tValue:\t{}\n", self.value_text()));
        }
        out
    }

    /// The text cuobjdump prints after `Value:\t`.
    pub fn value_text(&self) -> String {
        match (&self.value, self.attr) {
            (Value::None { .. }, _) => String::new(),
            (Value::Byte { .. }, code::INST_TCGEN05_MMA_DEPRECATED) => "N/A".to_string(),
            (Value::Byte { value, .. }, _) => format!("0x{value:x}"),
            (Value::Half { value }, code::CUDA_DRIVER_VERSION) => format!("{}.{}", value >> 8, value & 0xff),
            (Value::Half { value }, code::FINALIZER_VERSION | code::MIN_FINALIZER_VERSION_FOR_MVC) => {
                match finalizer_version(*value) {
                    Some((a, b, c)) => format!("{a}.{b}.{c}"),
                    None => "UNKNOWN".to_string(),
                }
            }
            (Value::Half { value }, _) => format!("0x{value:x}"),
            (Value::Block(b), _) => b.words().iter().map(|w| format!("0x{w:x} ")).collect(),
        }
    }

    /// A stable one-line form: `NAME FMT: value` (raw numbers, no decoding).
    pub fn canonical(&self) -> String {
        let name = self.attr_name();
        let fmt = nvinfo::format_name(self.format()).map_or("?", |f| f.trim_start_matches("EIFMT_"));
        let val = match &self.value {
            Value::None { pad: 0 } => return format!("{name} {fmt}"),
            Value::None { pad } => format!("pad=0x{pad:x}"),
            Value::Byte { value, pad: 0 } => format!("0x{value:x}"),
            Value::Byte { value, pad } => format!("0x{value:x} pad=0x{pad:x}"),
            Value::Half { value } => format!("0x{value:x}"),
            Value::Block(Block::Bytes { bytes }) => format!("bytes={}", nvinfo::hex_bytes(bytes)),
            Value::Block(b) => b
                .words()
                .iter()
                .map(|w| format!("0x{w:x}"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        if val.is_empty() {
            format!("{name} {fmt}:")
        } else {
            format!("{name} {fmt}: {val}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::nvinfo::test_support as support;

    /// .nv.compat of a90 (sm_90, nvcc 13.5).
    const A90: &str = "02090000020c000002020200030d010102030000040b08000000000000000000030e4004";

    #[test]
    fn decodes_like_cuobjdump() {
        let data = support::unhex(A90);
        let c = decode(&data).unwrap();
        // cuobjdump: CUDA_ACCELERATOR_TARGET BVAL 0x0, CUDA_INTERNAL_TARGET BVAL 0x0,
        // ISA_CLASS BVAL 0x2, unknown Attribute HVAL 0x101, INST_TENSORMAP_V1 BVAL 0x0,
        // CAN_FASTPATH_FINALIZE SVAL "0x0 0x0 ", FINALIZER_VERSION HVAL 1.1.0.
        let got: Vec<(u8, u8)> = c.entries.iter().map(|e| (e.attr, e.format())).collect();
        assert_eq!(
            got,
            vec![
                (0x09, 2),
                (0x0c, 2),
                (0x02, 2),
                (0x0d, 3),
                (0x03, 2),
                (0x0b, 4),
                (0x0e, 3)
            ]
        );
        assert_eq!(c.isa_class(), Some(2));
        assert_eq!(c.scalar(0x0d), Some(0x101));
        assert_eq!(
            c.get(code::CAN_FASTPATH_FINALIZE).unwrap().value,
            Value::Block(Block::Words { words: vec![0, 0] })
        );
        assert_eq!(c.scalar(code::FINALIZER_VERSION), Some(0x440));
        assert_eq!(c.get(code::FINALIZER_VERSION).unwrap().value_text(), "1.1.0");
        assert_eq!(c.get(code::CAN_FASTPATH_FINALIZE).unwrap().value_text(), "0x0 0x0 ");
        assert_eq!(encode(&c), data);
        let canon = c.canonical();
        assert_eq!(canon.lines().count(), 7);
        assert!(canon.contains(" HVAL: 0x440"));
    }

    #[test]
    fn decoded_versions() {
        assert_eq!(finalizer_version(0x1234), Some((4, 8, 52)));
        assert_eq!(finalizer_version(0x8000), Some((32, 0, 0)));
        assert_eq!(finalizer_version(0xffff), None);
        let e = CompatEntry {
            attr: code::CUDA_DRIVER_VERSION,
            value: Value::Half { value: 0x1234 },
        };
        assert_eq!(e.value_text(), "18.52");
        let e = CompatEntry {
            attr: code::INST_TCGEN05_MMA_DEPRECATED,
            value: Value::Byte { value: 1, pad: 0 },
        };
        assert_eq!(e.value_text(), "N/A");
    }

    #[test]
    fn real_sections_match_cuobjdump() {
        let mut n = 0;
        support::for_each_section(|s| {
            if s.name != "nv.compat" {
                return;
            }
            n += 1;
            let c = decode(&s.data).unwrap_or_else(|e| panic!("{}: {e}", s.path));
            assert_eq!(encode(&c), s.data, "{}", s.path);
            let ours = c.render();
            support::assert_same_listing(&ours, &s.cuobjdump, &s.path, |line| {
                if line.starts_with("\tAttribute:\t") {
                    "\tAttribute:\t*".to_string()
                } else {
                    line.to_string()
                }
            });
            for e in &c.entries {
                if let Some(name) = catalog::compat_attr_name(e.attr) {
                    assert!(ours.contains(&format!("\tAttribute:\t{name}\n")), "{}", s.path);
                }
            }
        });
        assert!(n >= 5);
    }

    #[test]
    fn never_panics() {
        let data = support::unhex(A90);
        for n in 0..data.len() {
            match decode(&data[..n]) {
                Ok(c) => assert_eq!(encode(&c), &data[..n]),
                Err(e) => assert!(e.offset <= n as u64),
            }
        }
        support::random_inputs(|bytes| {
            if let Ok(c) = decode(bytes) {
                assert_eq!(encode(&c), bytes);
                let _ = c.render();
                let _ = c.canonical();
            }
        });
    }
}
