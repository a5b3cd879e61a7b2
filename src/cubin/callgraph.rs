//! Codec for `.nv.callgraph` (SHT_CUDA_CALLGRAPH, 0x70000001, entsize 8,
//! sh_link = .symtab).
//!
//! # Layout
//!
//! An array of `(u32, u32)` pairs; cuobjdump prints each as ` <a,b>` with both
//! numbers signed. Four marker pairs `<0,-1>`, `<0,-2>`, `<0,-3>`, `<0,-4>`
//! (always present, in that order, even when a list is empty) open four lists,
//! which tell what the pairs after them mean. Worked out from ptxas 13.5
//! output with direct calls, function pointers, virtual-style tables and CUDA
//! dynamic parallelism, and from nvlink outputs:
//!
//! | marker | list | pair |
//! |---|---|---|
//! | -1 | direct calls | (caller symbol, callee symbol); a self call is `<f,f>` |
//! | -2 | address-taken functions, i.e. possible targets of indirect calls | (function symbol, prototype) |
//! | -3 | functions that make indirect calls | (caller symbol, prototype of the call) |
//! | -4 | address references: the first function (or data it uses, like an initialised function table) takes the second's address | (referrer symbol, function symbol) |
//!
//! A prototype is a byte offset into the string table of the symbol table
//! (`.strtab`), at a string like `#ii` (see [`super::prototype`]); offset 0
//! (the empty string) means none was recorded (seen for a kernel launched
//! through dynamic parallelism).
//!
//! Symbol indices are remapped by a linker ([`CallGraph::symbol_refs_mut`]) and
//! so are string offsets ([`CallGraph::string_refs_mut`]).

use serde::Serialize;

use super::error::{FormatError, Result};

/// Opens the list of direct calls.
pub const MARKER_CALLS: i32 = -1;
/// Opens the list of address-taken functions.
pub const MARKER_ADDRESS_TAKEN: i32 = -2;
/// Opens the list of indirect call sites.
pub const MARKER_INDIRECT_CALLS: i32 = -3;
/// Opens the list of address references.
pub const MARKER_ADDRESS_REFS: i32 = -4;

/// A whole .nv.callgraph section.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct CallGraph {
    pub records: Vec<Record>,
}

/// One 8-byte record, typed by the list it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// `<0,marker>` with a negative marker; -1..-4 open the lists above.
    Marker { marker: i32 },
    /// In the -1 list.
    Call { caller: u32, callee: u32 },
    /// In the -2 list: `prototype` is a .strtab offset.
    AddressTaken { func: u32, prototype: u32 },
    /// In the -3 list: `prototype` is a .strtab offset.
    IndirectCall { caller: u32, prototype: u32 },
    /// In the -4 list.
    AddressRef { referrer: u32, func: u32 },
    /// Before any marker, or after a marker other than -1..-4.
    Other { a: u32, b: u32 },
}

impl Record {
    /// The two words as stored.
    pub fn words(&self) -> (u32, u32) {
        match *self {
            Record::Marker { marker } => (0, marker as u32),
            Record::Call { caller, callee } => (caller, callee),
            Record::AddressTaken { func, prototype } => (func, prototype),
            Record::IndirectCall { caller, prototype } => (caller, prototype),
            Record::AddressRef { referrer, func } => (referrer, func),
            Record::Other { a, b } => (a, b),
        }
    }

    /// Mutable access to the symbol indices of this record.
    pub fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        match self {
            Record::Call { caller, callee } => vec![caller, callee],
            Record::AddressTaken { func, .. } => vec![func],
            Record::IndirectCall { caller, .. } => vec![caller],
            Record::AddressRef { referrer, func } => vec![referrer, func],
            Record::Marker { .. } | Record::Other { .. } => Vec::new(),
        }
    }

    /// Mutable access to the string-table offsets of this record.
    pub fn string_refs_mut(&mut self) -> Vec<&mut u32> {
        match self {
            Record::AddressTaken { prototype, .. } | Record::IndirectCall { prototype, .. } => vec![prototype],
            _ => Vec::new(),
        }
    }

    /// The record in a person's terms; symbols as `name(0xidx)`.
    pub fn describe(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        let s = |i: u32| format!("{}(0x{i:x})", sym_name(i));
        let p = |o: u32| format!("prototype \"{}\"", string_at(o));
        match *self {
            Record::Marker { marker } => match marker {
                MARKER_CALLS => "calls:".to_string(),
                MARKER_ADDRESS_TAKEN => "address-taken functions (possible indirect call targets):".to_string(),
                MARKER_INDIRECT_CALLS => "indirect calls:".to_string(),
                MARKER_ADDRESS_REFS => "address references:".to_string(),
                m => format!("unknown list {m}:"),
            },
            Record::Call { caller, callee } => format!("{} calls {}", s(caller), s(callee)),
            Record::AddressTaken { func, prototype } => format!("{} is address-taken, {}", s(func), p(prototype)),
            Record::IndirectCall { caller, prototype } => {
                format!("{} calls through a pointer, {}", s(caller), p(prototype))
            }
            Record::AddressRef { referrer, func } => format!("{} takes the address of {}", s(referrer), s(func)),
            Record::Other { a, b } => format!("record {a:#x} {b:#x}"),
        }
    }

    /// A stable line: names instead of indices, strings instead of offsets.
    pub fn canonical(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        match *self {
            Record::Marker { marker } => format!("marker {marker}"),
            Record::Call { caller, callee } => format!("call {} -> {}", sym_name(caller), sym_name(callee)),
            Record::AddressTaken { func, prototype } => {
                format!("address_taken {} \"{}\"", sym_name(func), string_at(prototype))
            }
            Record::IndirectCall { caller, prototype } => {
                format!("indirect_call {} \"{}\"", sym_name(caller), string_at(prototype))
            }
            Record::AddressRef { referrer, func } => {
                format!("address_ref {} -> {}", sym_name(referrer), sym_name(func))
            }
            Record::Other { a, b } => format!("other 0x{a:x} 0x{b:x}"),
        }
    }
}

/// Decodes a .nv.callgraph section; its size must be a multiple of 8.
pub fn decode(data: &[u8]) -> Result<CallGraph> {
    if !data.len().is_multiple_of(8) {
        return Err(FormatError::new(
            (data.len() / 8 * 8) as u64,
            format!(
                "callgraph size {} is not a multiple of 8 (a partial record is left)",
                data.len()
            ),
        ));
    }
    let mut list = 0i32;
    let mut records = Vec::with_capacity(data.len() / 8);
    for c in data.chunks_exact(8) {
        let a = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let b = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        let r = if a == 0 && (b as i32) < 0 {
            list = b as i32;
            Record::Marker { marker: list }
        } else {
            match list {
                MARKER_CALLS => Record::Call { caller: a, callee: b },
                MARKER_ADDRESS_TAKEN => Record::AddressTaken { func: a, prototype: b },
                MARKER_INDIRECT_CALLS => Record::IndirectCall {
                    caller: a,
                    prototype: b,
                },
                MARKER_ADDRESS_REFS => Record::AddressRef { referrer: a, func: b },
                _ => Record::Other { a, b },
            }
        };
        records.push(r);
    }
    Ok(CallGraph { records })
}

/// Encodes a section; `encode(&decode(x)?) == x`.
pub fn encode(cg: &CallGraph) -> Vec<u8> {
    let mut out = Vec::with_capacity(cg.records.len() * 8);
    for r in &cg.records {
        let (a, b) = r.words();
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

impl CallGraph {
    pub fn decode(data: &[u8]) -> Result<CallGraph> {
        decode(data)
    }

    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// The four lists in nvlink's order, each opened by its marker, all empty.
    pub fn empty_lists() -> CallGraph {
        CallGraph {
            records: [
                MARKER_CALLS,
                MARKER_ADDRESS_TAKEN,
                MARKER_INDIRECT_CALLS,
                MARKER_ADDRESS_REFS,
            ]
            .into_iter()
            .map(|marker| Record::Marker { marker })
            .collect(),
        }
    }

    /// The direct call edges (caller, callee).
    pub fn calls(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.records.iter().filter_map(|r| match *r {
            Record::Call { caller, callee } => Some((caller, callee)),
            _ => None,
        })
    }

    /// Every symbol index, in order.
    pub fn symbol_refs(&self) -> Vec<u32> {
        self.clone().symbol_refs_mut().into_iter().map(|s| *s).collect()
    }

    /// Mutable access to every symbol index (for a linker's remapping).
    pub fn symbol_refs_mut(&mut self) -> Vec<&mut u32> {
        self.records.iter_mut().flat_map(Record::symbol_refs_mut).collect()
    }

    /// Mutable access to every .strtab offset (prototype strings).
    pub fn string_refs_mut(&mut self) -> Vec<&mut u32> {
        self.records.iter_mut().flat_map(Record::string_refs_mut).collect()
    }

    /// Replaces every symbol index `i` by `f(i)`.
    pub fn map_symbols(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        for s in self.symbol_refs_mut() {
            *s = f(*s);
        }
    }

    /// Replaces every string offset `o` by `f(o)`.
    pub fn map_strings(&mut self, f: &mut dyn FnMut(u32) -> u32) {
        for s in self.string_refs_mut() {
            *s = f(*s);
        }
    }

    /// Exactly what `cuobjdump -elf` prints under `.nv.callgraph`: ` <a,b>` per record.
    pub fn render_cuobjdump(&self) -> String {
        self.records
            .iter()
            .map(|r| {
                let (a, b) = r.words();
                format!(" <{},{}>\n", a as i32, b as i32)
            })
            .collect()
    }

    /// cuobjdump's pairs, each followed by what it means with names, e.g.
    /// ` <36,37>\t_Z2k4Pii(0x24) calls vprintf(0x25)`. `string_at` reads .strtab.
    pub fn render(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        self.records
            .iter()
            .map(|r| {
                let (a, b) = r.words();
                format!(" <{},{}>\t{}\n", a as i32, b as i32, r.describe(sym_name, string_at))
            })
            .collect()
    }

    /// One stable line per record (file order), names instead of indices.
    pub fn canonical(&self, sym_name: &dyn Fn(u32) -> String, string_at: &dyn Fn(u32) -> String) -> String {
        self.records
            .iter()
            .map(|r| r.canonical(sym_name, string_at))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cubin::nvinfo::test_support as support;

    /// .nv.callgraph of a90; cuobjdump prints
    /// <0,-1> <36,37> <41,42> <43,41> <0,-2> <21,755> <35,755> <0,-3> <36,755> <0,-4> <36,35> <36,21>.
    const A90: &str = "00000000ffffffff2400000025000000290000002a0000002b0000002900000000000000feffffff15000000f302000023000000f302000000000000fdffffff24000000f302000000000000fcffffff24000000230000002400000015000000";

    #[test]
    fn decodes_lists() {
        let data = support::unhex(A90);
        let cg = decode(&data).unwrap();
        use Record::*;
        assert_eq!(
            cg.records,
            vec![
                Marker { marker: -1 },
                Call { caller: 36, callee: 37 },
                Call { caller: 41, callee: 42 },
                Call { caller: 43, callee: 41 },
                Marker { marker: -2 },
                AddressTaken {
                    func: 21,
                    prototype: 755
                },
                AddressTaken {
                    func: 35,
                    prototype: 755
                },
                Marker { marker: -3 },
                IndirectCall {
                    caller: 36,
                    prototype: 755
                },
                Marker { marker: -4 },
                AddressRef { referrer: 36, func: 35 },
                AddressRef { referrer: 36, func: 21 },
            ]
        );
        assert_eq!(encode(&cg), data);
        assert_eq!(cg.calls().collect::<Vec<_>>(), vec![(36, 37), (41, 42), (43, 41)]);
        assert_eq!(
            cg.symbol_refs(),
            vec![36, 37, 41, 42, 43, 41, 21, 35, 36, 36, 35, 36, 21]
        );
        assert_eq!(
            cg.render_cuobjdump(),
            " <0,-1>\n <36,37>\n <41,42>\n <43,41>\n <0,-2>\n <21,755>\n <35,755>\n <0,-3>\n <36,755>\n <0,-4>\n <36,35>\n <36,21>\n"
        );
        let names = |i: u32| format!("f{i}");
        let strs = |o: u32| if o == 755 { "#ii".to_string() } else { format!("?{o}") };
        let r = cg.render(&names, &strs);
        assert!(r.contains(" <36,37>\tf36(0x24) calls f37(0x25)\n"), "{r}");
        assert!(
            r.contains(" <21,755>\tf21(0x15) is address-taken, prototype \"#ii\"\n"),
            "{r}"
        );
        let c = cg.canonical(&names, &strs);
        assert!(
            c.contains("indirect_call f36 \"#ii\"\nmarker -4\naddress_ref f36 -> f35"),
            "{c}"
        );
        // Renumbering symbols and moving strings leaves the canonical form alone.
        let mut moved = cg.clone();
        moved.map_symbols(&mut |i| i * 2);
        moved.map_strings(&mut |o| o + 1);
        let c2 = moved.canonical(&|i| names(i / 2), &|o| strs(o - 1));
        assert_eq!(c2, c);
        // A module without calls (t75, lt75) has just the four markers.
        assert_eq!(
            encode(&CallGraph::empty_lists()),
            support::unhex("00000000ffffffff00000000feffffff00000000fdffffff00000000fcffffff")
        );
    }

    #[test]
    fn real_sections_match_cuobjdump() {
        let mut n = 0;
        support::for_each_section(|s| {
            if s.name != "nv.callgraph" {
                return;
            }
            n += 1;
            let cg = decode(&s.data).unwrap_or_else(|e| panic!("{}: {e}", s.path));
            assert_eq!(encode(&cg), s.data, "{}", s.path);
            assert_eq!(cg.render_cuobjdump(), s.cuobjdump, "{}", s.path);
            let markers: Vec<i32> = cg
                .records
                .iter()
                .filter_map(|r| match r {
                    Record::Marker { marker } => Some(*marker),
                    _ => None,
                })
                .collect();
            assert_eq!(markers, vec![-1, -2, -3, -4], "{}", s.path);
            assert!(!cg.records.iter().any(|r| matches!(r, Record::Other { .. })));
            // Prototypes point at strings starting with '#' (or at the empty string).
            for r in &cg.records {
                if let Record::AddressTaken { prototype, .. } | Record::IndirectCall { prototype, .. } = r {
                    let p = s.string_at(*prototype);
                    assert!(p.is_empty() || p.starts_with('#'), "{}: {p}", s.path);
                }
            }
            let _ = cg.render(&|i| s.sym_name(i), &|o| s.string_at(o));
        });
        assert!(n >= 8);
    }

    #[test]
    fn never_panics() {
        let data = support::unhex(A90);
        for n in 0..data.len() {
            match decode(&data[..n]) {
                Ok(c) => assert_eq!(encode(&c), &data[..n]),
                Err(e) => assert!(e.offset <= n as u64 && !n.is_multiple_of(8)),
            }
        }
        support::random_inputs(|bytes| {
            if let Ok(c) = decode(bytes) {
                assert_eq!(encode(&c), bytes);
                let _ = c.render(&|i| format!("s{i}"), &|o| format!("p{o}"));
            }
        });
    }
}
