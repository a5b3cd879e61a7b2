//! Codec for `.nv.rel.action` (SHT_CUDA_RELOCINFO, 0x7000000b, entsize 8,
//! align 8): relocation types described by their bit fields, which nvlink
//! writes into its ET_EXEC output for sm_75..sm_90 (so the driver can apply
//! them later). No symbol indices.
//!
//! # Layout
//!
//! An 8-byte header, `u32 base type`, `u32 reserved` (0; cuobjdump ignores it),
//! then one 8-byte record per relocation type, the i-th describing type
//! `base + i`. A record is eight bytes: symbol kind (EIVALUE_SYM_KIND_*),
//! addend shift, then two fields of (source bit position, length, destination
//! bit position). nvlink 13.5 writes one record, for R_CUDA_CONST_FIELD22_37
//! (0x73): `ADDR,0,0,17,37,0,5,54`.
//!
//! cuobjdump prints (checked by patching the section with other values):
//!
//! ```text
//! Header : Base Relocation : R_CUDA_CONST_FIELD22_37
//! Reloc type : Symbol Kind,Addend Shift,Source Position1,length1,Destination Position1,Source Position2,length2,Destination Position2
//! R_CUDA_CONST_FIELD22_37 : EIVALUE_SYM_KIND_ADDR,0,0,17,37,0,5,54
//! ```
//!
//! and `UNKNOWN REL TYPE` for type numbers it has no name for.

use serde::Serialize;

use super::catalog::{self, RelocFamily};
use super::error::{FormatError, Result};

/// A whole .nv.rel.action section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RelAction {
    /// Relocation type described by the first record.
    pub base_type: u32,
    /// Second header word (0 in practice).
    pub reserved: u32,
    pub actions: Vec<Action>,
}

/// How one relocation type is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Action {
    /// EIVALUE_SYM_KIND_* (see [`sym_kind_name`]).
    pub sym_kind: u8,
    pub addend_shift: u8,
    pub src_pos1: u8,
    pub len1: u8,
    pub dst_pos1: u8,
    pub src_pos2: u8,
    pub len2: u8,
    pub dst_pos2: u8,
}

impl Action {
    fn bytes(&self) -> [u8; 8] {
        [
            self.sym_kind,
            self.addend_shift,
            self.src_pos1,
            self.len1,
            self.dst_pos1,
            self.src_pos2,
            self.len2,
            self.dst_pos2,
        ]
    }

    fn fields(&self) -> String {
        format!(
            "{},{},{},{},{},{},{}",
            self.addend_shift, self.src_pos1, self.len1, self.dst_pos1, self.src_pos2, self.len2, self.dst_pos2
        )
    }
}

/// cuobjdump's name for a symbol kind (it prints nothing for others).
pub fn sym_kind_name(kind: u8) -> Option<&'static str> {
    Some(match kind {
        0 => "EIVALUE_SYM_KIND_ADDR",
        1 => "EIVALUE_SYM_KIND_GADDR",
        2 => "EIVALUE_SYM_KIND_FDESC",
        3 => "EIVALUE_SYM_KIND_HEADER_INDEX",
        4 => "EIVALUE_SYM_KIND_BINDLESSOFF",
        5 => "EIVALUE_SYM_KIND_PCREL",
        6 => "EIVALUE_SYM_KIND_CBANK",
        7 => "EIVALUE_SYM_KIND_INSTR",
        8 => "EIVALUE_SYM_KIND_CLEAR",
        9 => "EIVALUE_SYM_KIND_UADDR",
        _ => return None,
    })
}

/// Decodes a .nv.rel.action section: an 8-byte header and whole 8-byte records.
pub fn decode(data: &[u8]) -> Result<RelAction> {
    if data.len() < 8 {
        return Err(FormatError::new(
            0,
            format!("rel.action section of {} bytes has no 8-byte header", data.len()),
        ));
    }
    if !data.len().is_multiple_of(8) {
        return Err(FormatError::new(
            (data.len() / 8 * 8) as u64,
            format!(
                "rel.action size {} is not a multiple of 8 (a partial record is left)",
                data.len()
            ),
        ));
    }
    let base_type = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let reserved = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
    let actions = data[8..]
        .chunks_exact(8)
        .map(|c| Action {
            sym_kind: c[0],
            addend_shift: c[1],
            src_pos1: c[2],
            len1: c[3],
            dst_pos1: c[4],
            src_pos2: c[5],
            len2: c[6],
            dst_pos2: c[7],
        })
        .collect();
    Ok(RelAction {
        base_type,
        reserved,
        actions,
    })
}

/// Encodes a section; `encode(&decode(x)?) == x`.
pub fn encode(r: &RelAction) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 8 * r.actions.len());
    out.extend_from_slice(&r.base_type.to_le_bytes());
    out.extend_from_slice(&r.reserved.to_le_bytes());
    for a in &r.actions {
        out.extend_from_slice(&a.bytes());
    }
    out
}

fn type_name(family: RelocFamily, ty: Option<u32>) -> String {
    match ty {
        Some(t) => catalog::reloc_name(family, t).map_or_else(|| format!("UNKNOWN REL TYPE (0x{t:x})"), str::to_string),
        None => "UNKNOWN REL TYPE".to_string(),
    }
}

impl RelAction {
    pub fn decode(data: &[u8]) -> Result<RelAction> {
        decode(data)
    }

    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// The relocation type record `i` describes (None past u32).
    pub fn type_of(&self, i: usize) -> Option<u32> {
        u32::try_from(i).ok().and_then(|i| self.base_type.checked_add(i))
    }

    /// The record for relocation type `ty`, if the section describes it.
    pub fn action_for(&self, ty: u32) -> Option<&Action> {
        let i = ty.checked_sub(self.base_type)?;
        self.actions.get(usize::try_from(i).ok()?)
    }

    /// The section as `cuobjdump -elf` prints it under `.nv.rel.action`;
    /// `family` picks the relocation names (see [`catalog::reloc_family_of_section`]).
    /// Types the catalog does not name print as `UNKNOWN REL TYPE (0x..)`.
    pub fn render(&self, family: RelocFamily) -> String {
        let mut out = format!(
            "Header : Base Relocation : {}\nReloc type : Symbol Kind,Addend Shift,Source Position1,length1,Destination Position1,Source Position2,length2,Destination Position2\n",
            type_name(family, Some(self.base_type))
        );
        for (i, a) in self.actions.iter().enumerate() {
            out.push_str(&format!(
                "{} : {},{}\n",
                type_name(family, self.type_of(i)),
                sym_kind_name(a.sym_kind).unwrap_or(""),
                a.fields()
            ));
        }
        out
    }

    /// Stable lines: `base NAME`, then per record
    /// `NAME kind=KIND shift=N field1=src+len@dst field2=src+len@dst`.
    pub fn canonical(&self, family: RelocFamily) -> String {
        let name = |t: Option<u32>| match t {
            Some(t) => catalog::reloc_name(family, t).map_or_else(|| format!("reloc#0x{t:x}"), str::to_string),
            None => "reloc#overflow".to_string(),
        };
        let mut lines = vec![format!("base {}", name(Some(self.base_type)))];
        if self.reserved != 0 {
            lines.push(format!("reserved 0x{:x}", self.reserved));
        }
        for (i, a) in self.actions.iter().enumerate() {
            let kind = sym_kind_name(a.sym_kind).map_or_else(
                || format!("0x{:x}", a.sym_kind),
                |k| k.trim_start_matches("EIVALUE_SYM_KIND_").to_string(),
            );
            lines.push(format!(
                "{} kind={kind} shift={} field1={}+{}@{} field2={}+{}@{}",
                name(self.type_of(i)),
                a.addend_shift,
                a.src_pos1,
                a.len1,
                a.dst_pos1,
                a.src_pos2,
                a.len2,
                a.dst_pos2
            ));
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::nvinfo::test_support as support;

    /// .nv.rel.action of every nvlink 13.5 sm_75/sm_90 ET_EXEC output seen.
    const LINKED: &str = "73000000000000000000001125000536";

    #[test]
    fn decodes_like_cuobjdump() {
        let data = support::unhex(LINKED);
        let r = decode(&data).unwrap();
        // cuobjdump: R_CUDA_CONST_FIELD22_37 : EIVALUE_SYM_KIND_ADDR,0,0,17,37,0,5,54
        assert_eq!(r.base_type, 0x73);
        assert_eq!(r.reserved, 0);
        assert_eq!(
            r.actions,
            vec![Action {
                sym_kind: 0,
                addend_shift: 0,
                src_pos1: 0,
                len1: 17,
                dst_pos1: 37,
                src_pos2: 0,
                len2: 5,
                dst_pos2: 54
            }]
        );
        assert_eq!(r.action_for(0x73), Some(&r.actions[0]));
        assert_eq!(r.action_for(0x72), None);
        assert_eq!(r.action_for(0x74), None);
        assert_eq!(encode(&r), data);
        let text = r.render(RelocFamily::Cuda);
        assert!(text.ends_with(" : EIVALUE_SYM_KIND_ADDR,0,0,17,37,0,5,54\n"), "{text}");
        let c = r.canonical(RelocFamily::Cuda);
        assert!(c.ends_with(" kind=ADDR shift=0 field1=0+17@37 field2=0+5@54"), "{c}");
        if catalog::reloc_name(RelocFamily::Cuda, 0x73).is_some() {
            assert!(text.starts_with("Header : Base Relocation : R_CUDA_CONST_FIELD22_37\n"));
            assert!(c.starts_with("base R_CUDA_CONST_FIELD22_37\nR_CUDA_CONST_FIELD22_37 kind=ADDR"));
        }
    }

    #[test]
    fn several_records() {
        let r = RelAction {
            base_type: 1,
            reserved: 5,
            actions: (0..10u8)
                .map(|k| Action {
                    sym_kind: k,
                    addend_shift: 1,
                    src_pos1: 2,
                    len1: 3,
                    dst_pos1: 4,
                    src_pos2: 5,
                    len2: 6,
                    dst_pos2: 7,
                })
                .chain(std::iter::once(Action {
                    sym_kind: 200,
                    addend_shift: 1,
                    src_pos1: 2,
                    len1: 3,
                    dst_pos1: 4,
                    src_pos2: 5,
                    len2: 6,
                    dst_pos2: 7,
                }))
                .collect(),
        };
        let bytes = encode(&r);
        assert_eq!(bytes.len(), 8 + 8 * 11);
        assert_eq!(decode(&bytes).unwrap(), r);
        let text = r.render(RelocFamily::Cuda);
        assert!(text.contains(" : EIVALUE_SYM_KIND_CLEAR,1,2,3,4,5,6,7\n"));
        assert!(text.contains(" : EIVALUE_SYM_KIND_UADDR,1,2,3,4,5,6,7\n"));
        assert!(
            text.ends_with(" : ,1,2,3,4,5,6,7\n"),
            "cuobjdump prints no name for unknown kinds"
        );
        assert_eq!(r.type_of(1), Some(2));
        assert!(r.canonical(RelocFamily::Cuda).contains("reserved 0x5"));
        let far = RelAction {
            base_type: u32::MAX,
            reserved: 0,
            actions: r.actions.clone(),
        };
        assert_eq!(far.type_of(1), None);
        assert!(far.render(RelocFamily::Cuda).contains("UNKNOWN REL TYPE :"));
        assert!(
            serde_json::to_string(&far)
                .unwrap()
                .contains("\"base_type\":4294967295")
        );
    }

    #[test]
    fn real_sections_match_cuobjdump() {
        let mut n = 0;
        support::for_each_section(|s| {
            if s.name != "nv.rel.action" {
                return;
            }
            n += 1;
            let r = decode(&s.data).unwrap_or_else(|e| panic!("{}: {e}", s.path));
            assert_eq!(encode(&r), s.data, "{}", s.path);
            let family = catalog::RelocFamily::Cuda; // .nv.rel.action names R_CUDA types
            let ours = r.render(family);
            let all_named = (0..r.actions.len())
                .map(|i| r.type_of(i))
                .chain(std::iter::once(Some(r.base_type)))
                .all(|t| t.is_some_and(|t| catalog::reloc_name(family, t).is_some()));
            // Relocation names come from the catalog: compare them only when it knows them all.
            let unnamed = |line: &str| {
                if all_named {
                    line.to_string()
                } else if line.starts_with("Header : ") {
                    "Header : *".to_string()
                } else {
                    line.split_once(" : ")
                        .map_or_else(|| line.to_string(), |(_, rest)| format!("* : {rest}"))
                }
            };
            support::assert_same_listing(&ours, &s.cuobjdump, &s.path, unnamed);
        });
        assert!(n >= 2);
    }

    #[test]
    fn never_panics() {
        let data = support::unhex(LINKED);
        for n in 0..data.len() {
            match decode(&data[..n]) {
                Ok(r) => assert!(n == 8 && r.actions.is_empty() && encode(&r) == data[..n]),
                Err(e) => assert!(e.offset <= n as u64),
            }
        }
        support::random_inputs(|bytes| {
            if let Ok(r) = decode(bytes) {
                assert_eq!(encode(&r), bytes);
                let _ = r.render(RelocFamily::Cuda);
                let _ = r.canonical(RelocFamily::Mercury);
            }
        });
    }
}
