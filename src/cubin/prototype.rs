//! Codec for `.nv.prototype` (SHT_CUDA_PROTOTYPE, 0x70000002, entsize 8,
//! sh_link = .symtab).
//!
//! # Layout
//!
//! An array of `(u32 symbol, u32 prototype)` pairs. The second word is a byte
//! offset into the symbol table's string table (`.strtab`) at the function's
//! call prototype; cuobjdump prints ` <sym,offset(string)>`, e.g.
//! ` <37,759(#ill|12p4r20sRx…fff9)>`. Equal prototypes share one string (a
//! module's `#ii` functions all point at the same offset, which the callgraph's
//! -2/-3 lists use too). ptxas lists here the module's device functions that are
//! called or defined but not address-taken (those are in the callgraph's -2 list).
//!
//! # Prototype strings
//!
//! `#` then the return type then one letter group per parameter, by size class
//! (measured with functions of many signatures): `v` void, `i` up to 32 bits
//! (char, short, int, float, bool, half), `l` 64 bits (pointers, long, double),
//! `bN` an N-byte aggregate passed by value (struct, float4 = `b16`).
//! Functions outside the module (extern, e.g. vprintf) add `|` and an ABI
//! descriptor (`12p4r20sRx<hex mask>`), kept as text by [`Signature`].

use serde::Serialize;

use super::error::{FormatError, Result};

/// A whole .nv.prototype section.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Prototypes {
    pub records: Vec<ProtoRecord>,
}

/// One 8-byte record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProtoRecord {
    /// The function's symbol index.
    pub sym: u32,
    /// Offset of the prototype string in .strtab.
    pub prototype: u32,
}

/// One parameter or return type class of a prototype string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProtoType {
    /// `v`
    Void,
    /// `i`: 32 bits or less.
    B32,
    /// `l`: 64 bits.
    B64,
    /// `bN`: an N-byte aggregate.
    Bytes(u32),
}

impl ProtoType {
    /// PTX-like spelling: `void`, `.b32`, `.b64`, `.b8[N]`.
    pub fn ptx(&self) -> String {
        match self {
            ProtoType::Void => "void".to_string(),
            ProtoType::B32 => ".b32".to_string(),
            ProtoType::B64 => ".b64".to_string(),
            ProtoType::Bytes(n) => format!(".b8[{n}]"),
        }
    }
}

/// A parsed prototype string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signature {
    pub ret: ProtoType,
    pub params: Vec<ProtoType>,
    /// What follows `|` (an ABI descriptor for functions defined elsewhere).
    pub abi: Option<String>,
}

/// Parses a prototype string like `#llb12b12i`; None when it does not follow the grammar.
pub fn parse_signature(s: &str) -> Option<Signature> {
    let (sig, abi) = match s.split_once('|') {
        Some((a, b)) => (a, Some(b.to_string())),
        None => (s, None),
    };
    let mut chars = sig.strip_prefix('#')?.chars().peekable();
    let mut types = Vec::new();
    while let Some(c) = chars.next() {
        types.push(match c {
            'v' => ProtoType::Void,
            'i' => ProtoType::B32,
            'l' => ProtoType::B64,
            'b' => {
                let mut n: u32 = 0;
                let mut digits = 0;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                    n = n.checked_mul(10)?.checked_add(d)?;
                    digits += 1;
                    chars.next();
                }
                if digits == 0 {
                    return None;
                }
                ProtoType::Bytes(n)
            }
            _ => return None,
        });
    }
    let mut it = types.into_iter();
    let ret = it.next()?;
    let params: Vec<ProtoType> = it.collect();
    if params.contains(&ProtoType::Void) {
        return None;
    }
    Some(Signature { ret, params, abi })
}

impl Signature {
    /// e.g. `.b32 (.b64, .b8[12])`, with ` [abi …]` when present.
    pub fn describe(&self) -> String {
        let p: Vec<String> = self.params.iter().map(ProtoType::ptx).collect();
        let mut s = format!("{} ({})", self.ret.ptx(), p.join(", "));
        if let Some(a) = &self.abi {
            s.push_str(&format!(" [abi {a}]"));
        }
        s
    }
}

/// Decodes a .nv.prototype section; its size must be a multiple of 8.
pub fn decode(data: &[u8]) -> Result<Prototypes> {
    if !data.len().is_multiple_of(8) {
        return Err(FormatError::new(
            (data.len() / 8 * 8) as u64,
            format!(
                "prototype section size {} is not a multiple of 8 (a partial record is left)",
                data.len()
            ),
        ));
    }
    let records = data
        .chunks_exact(8)
        .map(|c| ProtoRecord {
            sym: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            prototype: u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
        })
        .collect();
    Ok(Prototypes { records })
}

/// Encodes a section; `encode(&decode(x)?) == x`.
pub fn encode(p: &Prototypes) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.records.len() * 8);
    for r in &p.records {
        out.extend_from_slice(&r.sym.to_le_bytes());
        out.extend_from_slice(&r.prototype.to_le_bytes());
    }
    out
}

impl Prototypes {
    pub fn decode(data: &[u8]) -> Result<Prototypes> {
        decode(data)
    }

    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// The prototype offset recorded for symbol `sym`.
    pub fn prototype_of(&self, sym: u32) -> Option<u32> {
        self.records.iter().find(|r| r.sym == sym).map(|r| r.prototype)
    }

    pub fn symbol_refs(&self) -> Vec<u32> {
        self.records.iter().map(|r| r.sym).collect()
    }

    /// Mutable access to every symbol index.
    pub fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        self.records.iter_mut().map(|r| &mut r.sym).collect()
    }

    /// Mutable access to every .strtab offset.
    pub fn string_refs_mut(&mut self) -> Vec<&mut u32> {
        self.records.iter_mut().map(|r| &mut r.prototype).collect()
    }

    pub fn map_symbols(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        for s in self.symbol_refs_mut() {
            *s = f(*s);
        }
    }

    pub fn map_strings(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        for s in self.string_refs_mut() {
            *s = f(*s);
        }
    }

    /// Exactly what `cuobjdump -elf` prints under `.nv.prototype`:
    /// ` <sym,offset(string)>` per record. `string_at` reads .strtab.
    pub fn render_cuobjdump(&self, string_at: &dyn Fn(u32) -> String) -> String {
        self.records
            .iter()
            .map(|r| {
                format!(
                    " <{},{}({})>\n",
                    r.sym as i32,
                    r.prototype as i32,
                    string_at(r.prototype)
                )
            })
            .collect()
    }

    /// cuobjdump's line for each record followed by the symbol's name and the
    /// decoded signature, e.g. ` <41,755(#ii)>\t_Z6helperi(0x29): .b32 (.b32)`.
    pub fn render(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        self.records
            .iter()
            .map(|r| {
                let s = string_at(r.prototype);
                let sig = parse_signature(&s).map_or_else(|| "(unparsed prototype)".to_string(), |g| g.describe());
                format!(
                    " <{},{}({s})>\t{}(0x{:x}): {sig}\n",
                    r.sym as i32,
                    r.prototype as i32,
                    sym_name(r.sym),
                    r.sym
                )
            })
            .collect()
    }

    /// One stable line per record: `name "prototype"`.
    pub fn canonical(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        self.records
            .iter()
            .map(|r| format!("{} \"{}\"", sym_name(r.sym), string_at(r.prototype)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::nvinfo::test_support as support;

    /// .nv.prototype of a90; cuobjdump prints
    /// <37,759(#ill|12p4r20sRx…fff9)> <41,755(#ii)> <42,755(#ii)> <44,755(#ii)>.
    const A90: &str = "25000000f702000029000000f30200002a000000f30200002c000000f3020000";

    #[test]
    fn decodes_records() {
        let data = support::unhex(A90);
        let p = decode(&data).unwrap();
        assert_eq!(
            p.records,
            vec![
                ProtoRecord {
                    sym: 37,
                    prototype: 759
                },
                ProtoRecord {
                    sym: 41,
                    prototype: 755
                },
                ProtoRecord {
                    sym: 42,
                    prototype: 755
                },
                ProtoRecord {
                    sym: 44,
                    prototype: 755
                },
            ]
        );
        assert_eq!(encode(&p), data);
        assert_eq!(p.prototype_of(42), Some(755));
        let strs = |o: u32| match o {
            755 => "#ii".to_string(),
            759 => "#ill|12p4r20sRxfff9".to_string(),
            _ => String::new(),
        };
        let names = |i: u32| format!("f{i}");
        assert_eq!(
            p.render_cuobjdump(&strs),
            " <37,759(#ill|12p4r20sRxfff9)>\n <41,755(#ii)>\n <42,755(#ii)>\n <44,755(#ii)>\n"
        );
        let r = p.render(&names, &strs);
        assert!(
            r.contains(" <37,759(#ill|12p4r20sRxfff9)>\tf37(0x25): .b32 (.b64, .b64) [abi 12p4r20sRxfff9]\n"),
            "{r}"
        );
        let c = p.canonical(&names, &strs);
        assert_eq!(c, "f37 \"#ill|12p4r20sRxfff9\"\nf41 \"#ii\"\nf42 \"#ii\"\nf44 \"#ii\"");
        let mut moved = p.clone();
        moved.map_symbols(&mut |i| i + 1);
        moved.map_strings(&mut |o| o + 3);
        assert_eq!(moved.canonical(&|i| names(i - 1), &|o| strs(o - 3)), c);
    }

    #[test]
    fn signatures() {
        // Seen in real cubins (p90: char(char,short) = #iii, S16(S16,S8a) = #b16b16b8,
        // void(int*,bool,u64) = #vlil; cudaGetParameterBufferV2 = #llb12b12i).
        let g = parse_signature("#llb12b12i").unwrap();
        assert_eq!(g.ret, ProtoType::B64);
        assert_eq!(
            g.params,
            vec![
                ProtoType::B64,
                ProtoType::Bytes(12),
                ProtoType::Bytes(12),
                ProtoType::B32
            ]
        );
        assert_eq!(g.describe(), ".b64 (.b64, .b8[12], .b8[12], .b32)");
        assert_eq!(parse_signature("#vlil").unwrap().describe(), "void (.b64, .b32, .b64)");
        assert_eq!(
            parse_signature("#b16b16b8").unwrap().params,
            vec![ProtoType::Bytes(16), ProtoType::Bytes(8)]
        );
        assert_eq!(parse_signature("#i").unwrap().params, vec![]);
        assert_eq!(parse_signature("").map(|_| ()), None);
        assert_eq!(parse_signature("#").map(|_| ()), None);
        assert_eq!(parse_signature("#ib").map(|_| ()), None);
        assert_eq!(parse_signature("#iv").map(|_| ()), None);
        assert_eq!(parse_signature("#b99999999999").map(|_| ()), None);
    }

    #[test]
    fn real_sections_match_cuobjdump() {
        let mut n = 0;
        support::for_each_section(|s| {
            if s.name != "nv.prototype" {
                return;
            }
            n += 1;
            let p = decode(&s.data).unwrap_or_else(|e| panic!("{}: {e}", s.path));
            assert_eq!(encode(&p), s.data, "{}", s.path);
            assert_eq!(p.render_cuobjdump(&|o| s.string_at(o)), s.cuobjdump, "{}", s.path);
            for r in &p.records {
                let text = s.string_at(r.prototype);
                assert!(parse_signature(&text).is_some(), "{}: {text}", s.path);
            }
            let _ = p.render(&|i| s.sym_name(i), &|o| s.string_at(o));
        });
        assert!(n >= 6);
    }

    #[test]
    fn never_panics() {
        let data = support::unhex(A90);
        for n in 0..data.len() {
            match decode(&data[..n]) {
                Ok(p) => assert_eq!(encode(&p), &data[..n]),
                Err(e) => assert!(e.offset <= n as u64 && !n.is_multiple_of(8)),
            }
        }
        support::random_inputs(|bytes| {
            if let Ok(p) = decode(bytes) {
                assert_eq!(encode(&p), bytes);
                let _ = p.render(&|i| format!("s{i}"), &|o| format!("#i{o}"));
            }
            let _ = parse_signature(&String::from_utf8_lossy(bytes));
        });
    }
}
