//! The output's own tables and notes: `.nv.callgraph` in nvlink's order,
//! `.nv.prototype`, `.nv.rel.action`, `.note.nv.cuinfo`, `.note.nv.tkinfo`,
//! and the ELF header's e_flags.

use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;

use crate::cubin::callgraph::{self, Record};
use crate::cubin::consts::{SHT_CUDA_PROTOTYPE, SHT_CUDA_RELOCINFO, SHT_NOTE};
use crate::cubin::prototype::{ProtoRecord, Prototypes};
use crate::cubin::read;
use crate::cubin::rel_action::{Action, RelAction};

use super::graph::{self, InputTables};
use crate::link::out::symbol_order;
use crate::link::state::{LinkState, OutCallEdge, OutNote, OutTable, SymIdx};

/// The prototype strings of the output, in nvlink's `.strtab` order: each
/// input's strings (those its call graph and prototypes use) by offset,
/// inputs in order, each string once. The empty prototype (a kernel
/// launched through dynamic parallelism) is a string too: nvlink's
/// `.strtab` then opens with two NULs (dynpar_cudadevrt_sm90).
pub fn prototype_strings(tables: &[InputTables]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = HashSet::default();
    for t in tables {
        for s in &t.order {
            if seen.insert(s.clone()) {
                out.push(s.clone());
            }
        }
    }
    out
}

/// Offsets of `strings` once they open a string table (after its NUL).
pub fn string_offsets(strings: &[String]) -> HashMap<String, u32> {
    let mut off = 1u32;
    let mut out = HashMap::default();
    for s in strings {
        out.insert(s.clone(), off);
        off = off.saturating_add(s.len() as u32 + 1);
    }
    out
}

/// Where each state symbol first appeared: (input, symbol index in it).
/// nvlink keeps its symbols in that order (locals and globals mixed).
pub fn first_seen(st: &LinkState) -> HashMap<SymIdx, (usize, usize)> {
    let mut out = HashMap::default();
    for (i, m) in st.maps.iter().enumerate() {
        for (j, &o) in m.map_symbol_index.iter().enumerate() {
            if o != 0 {
                out.entry(SymIdx(o)).or_insert((i, j));
            }
        }
    }
    out
}

/// Rebuilds `st.callgraph`: the four lists once each, a list's records
/// grouped by their first symbol in order of first appearance
/// (dynpar_cudadevrt_sm90: a global from the first input before the
/// archive's locals), each group last read
/// first (nvlink prepends), a function in the address-taken list once, prototype offsets into the output `.strtab`.
pub fn rewrite_callgraph(st: &mut LinkState, tables: &[InputTables], offsets: &HashMap<String, u32>) {
    let first = first_seen(st);
    let pos = |x: u32| {
        first
            .get(&SymIdx(x as i32))
            .copied()
            .unwrap_or((usize::MAX, usize::MAX))
    };
    let string_of = |input: usize, off: u32| -> u32 {
        tables
            .get(input)
            .and_then(|t| t.strings.get(&off))
            .and_then(|s| offsets.get(s))
            .copied()
            .unwrap_or(0)
    };
    let mut lists: [BTreeMap<(usize, usize), Vec<OutCallEdge>>; 4] = Default::default();
    // On sm_107 the calls of symbols only the classic side has
    // (`__cuda_syscall_bw_do_*`) open the list, all callers' in the order
    // read (sm107_texture_syscall).
    let mut classic_only = Vec::new();
    let is_classic_only = |callee: u32| crate::link::state::mercury::classic_only(st, SymIdx(callee as i32));
    let mut calls_seen = HashSet::default();
    let mut taken_seen = HashSet::default();
    for e in st.callgraph.iter().filter(|e| e.live) {
        let mut e = e.clone();
        if e.record
            .clone()
            .symbol_refs_mut()
            .iter()
            .any(|r| **r != 0 && !graph::present(st, SymIdx(**r as i32)))
        {
            continue;
        }
        let input = e.input;
        for o in e.record.string_refs_mut() {
            *o = string_of(input, *o);
        }
        let (list, key) = match e.record {
            Record::Call { caller, callee } => {
                if !calls_seen.insert((caller, callee)) {
                    continue;
                }
                if is_classic_only(callee) {
                    classic_only.push(e);
                    continue;
                }
                (0, caller)
            }
            Record::AddressTaken { func, .. } => {
                // One entry per function, the first read: the objects that
                // each take its address add nothing (address_taken_twice_sm90).
                if !taken_seen.insert(func) {
                    continue;
                }
                (1, func)
            }
            Record::IndirectCall { caller, .. } => (2, caller),
            Record::AddressRef { referrer, .. } => (3, referrer),
            _ => continue,
        };
        lists[list].entry(pos(key)).or_default().push(e);
    }
    let mut out = Vec::new();
    let markers = [
        callgraph::MARKER_CALLS,
        callgraph::MARKER_ADDRESS_TAKEN,
        callgraph::MARKER_INDIRECT_CALLS,
        callgraph::MARKER_ADDRESS_REFS,
    ];
    for (n, (list, marker)) in lists.into_iter().zip(markers).enumerate() {
        out.push(OutCallEdge {
            record: Record::Marker { marker },
            input: 0,
            live: true,
        });
        if n == 0 {
            out.append(&mut classic_only);
        }
        for (_, group) in list {
            out.extend(group.into_iter().rev());
        }
    }
    st.callgraph = out;
}

/// `.nv.prototype`: every function an input gave a prototype, once (the
/// first one read), in output symbol order.
pub fn prototype_table(st: &LinkState, tables: &[InputTables], offsets: &HashMap<String, u32>) -> Option<OutTable> {
    let order = symbol_order(st);
    // A function whose address is taken (the call graph's -2 list) has its
    // prototype there: nvlink drops its record here, and the table when
    // nothing is left (a function-pointer table or a virtual function
    // defined in another file than its caller: proto_address_taken_sm90).
    let address_taken: std::collections::BTreeSet<i32> = st
        .callgraph
        .iter()
        .filter(|e| e.live)
        .filter_map(|e| match e.record {
            crate::cubin::callgraph::Record::AddressTaken { func, .. } => Some(func as i32),
            _ => None,
        })
        .collect();
    let mut recs: BTreeMap<u32, ProtoRecord> = BTreeMap::new();
    for t in tables {
        for (sym, text) in &t.prototypes {
            if address_taken.contains(&sym.0) {
                continue;
            }
            let (Some(&at), Some(&off)) = (order.index.get(sym), offsets.get(text)) else {
                continue;
            };
            recs.entry(at).or_insert(ProtoRecord {
                sym: sym.0 as u32,
                prototype: off,
            });
        }
    }
    if recs.is_empty() {
        return None;
    }
    // Emit writes tables as they are: symbol indices must be output ones.
    let records = recs.into_iter().map(|(at, r)| ProtoRecord { sym: at, ..r }).collect();
    Some(OutTable {
        name: ".nv.prototype".into(),
        sh_type: SHT_CUDA_PROTOTYPE,
        flags: 0,
        align: 4,
        entsize: 8,
        data: Prototypes { records }.encode(),
        links_symtab: true,
    })
}

/// An empty table of the kind finalize builds, standing in for it while
/// the output symbol order is worked out.
pub fn placeholder(name: &str) -> OutTable {
    OutTable {
        name: name.into(),
        sh_type: SHT_CUDA_PROTOTYPE,
        flags: 0,
        align: 4,
        entsize: 8,
        data: Vec::new(),
        links_symtab: true,
    }
}

/// R_CUDA_CONST_FIELD22_37, the one relocation type nvlink 13.5 describes.
const REL_ACTION_BASE: u32 = 0x73;

/// `.nv.rel.action`: nvlink writes it into executables for sm_75..sm_90
/// (not for -r, not for the Mercury targets sm_100+).
pub fn rel_action_table(sm: u32, relocatable: bool) -> Option<OutTable> {
    if relocatable || sm >= 100 {
        return None;
    }
    let r = RelAction {
        base_type: REL_ACTION_BASE,
        reserved: 0,
        actions: vec![Action {
            sym_kind: 0,
            addend_shift: 0,
            src_pos1: 0,
            len1: 17,
            dst_pos1: 37,
            src_pos2: 0,
            len2: 5,
            dst_pos2: 54,
        }],
    };
    Some(OutTable {
        name: ".nv.rel.action".into(),
        sh_type: SHT_CUDA_RELOCINFO,
        flags: 0,
        align: 8,
        entsize: 8,
        data: r.encode(),
        links_symtab: false,
    })
}

/// The SM number of an `-arch` value (`sm_90a` → 90).
pub fn arch_number(arch: &str) -> Option<u32> {
    let rest = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))
        .or_else(|| arch.strip_prefix("lto_"))?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// e_flags: the first input's, with the SM field (bits 8..16) set to the target.
pub fn e_flags(st: &LinkState, sm: Option<u32>) -> Option<u32> {
    let first = st.inputs.first()?.e_flags;
    Some(match sm {
        Some(sm) if sm <= 0xff => (first & !0xff00) | (sm << 8),
        _ => first,
    })
}

const NV_OWNER: &[u8] = b"NVIDIA Corp\0";
const NT_TKINFO: u32 = 2000;
const NT_CUINFO: u32 = 1000;

fn note(ty: u32, desc: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&(NV_OWNER.len() as u32).to_le_bytes());
    b.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    b.extend_from_slice(&ty.to_le_bytes());
    b.extend_from_slice(NV_OWNER);
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    b.extend_from_slice(desc);
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    b
}

/// A note section of input `i`: (data, flags, link, info).
fn input_note(st: &LinkState, i: usize, name: &str) -> Option<(Vec<u8>, u64, u32, u32)> {
    let s = read::find_section(&st.inputs.get(i)?.data, name)?;
    (s.sh_type == SHT_NOTE).then(|| (s.data.to_vec(), s.flags, s.link, s.info))
}

/// SHF_INFO_LINK.
const SHF_INFO_LINK: u64 = 0x40;

/// `.note.nv.cuinfo`: the first input's note with the lowest virtual SM of
/// the inputs (host_obj_sm80_into_sm90_jit: sm_80 and sm_90 inputs give
/// sm_80). It links to `.note.nv.tkinfo`, and through sh_info (with
/// SHF_INFO_LINK) to `.nv.compat` when the output has one.
pub fn cuinfo(st: &LinkState, target_sm: Option<u32>) -> Option<OutNote> {
    let Some((mut data, flags, _, _)) = (0..st.inputs.len()).find_map(|i| input_note(st, i, ".note.nv.cuinfo")) else {
        return target_sm.map(|sm| empty_cuinfo(sm, !st.compat.is_empty()));
    };
    let lowest = st.inputs.iter().filter_map(|r| r.virtual_sm).min();
    // namesz 12: the descriptor (u16 version, u16 virtual SM, u32 toolkit) starts at 24.
    if let Some(vsm) = lowest
        && data.len() >= 28
        && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) == 12
        && vsm <= 0xffff
    {
        data[26..28].copy_from_slice(&(vsm as u16).to_le_bytes());
    }
    let compat = !st.compat.is_empty();
    Some(OutNote {
        name: ".note.nv.cuinfo".into(),
        flags: if compat {
            flags | SHF_INFO_LINK
        } else {
            flags & !SHF_INFO_LINK
        },
        link: 0,
        info: 0,
        link_section: Some(".note.nv.tkinfo".into()),
        info_section: compat.then(|| ".nv.compat".into()),
        data,
    })
}

/// The toolkit version a `.note.nv.cuinfo` states: 13.5.
const CUINFO_TOOLKIT: u32 = 135;

/// `.note.nv.cuinfo` of a link nothing was linked into (host objects with
/// no relocatable device code: what nvcc's device link of a whole-program
/// build, and CMake's compiler check, give nvlink): version 2, the target
/// as virtual SM (empty_link_sm75, empty_link_sm100).
fn empty_cuinfo(sm: u32, compat: bool) -> OutNote {
    let mut desc = Vec::new();
    desc.extend_from_slice(&2u16.to_le_bytes());
    desc.extend_from_slice(&(sm as u16).to_le_bytes());
    desc.extend_from_slice(&CUINFO_TOOLKIT.to_le_bytes());
    OutNote {
        name: ".note.nv.cuinfo".into(),
        flags: if compat { 0x100_0000 | SHF_INFO_LINK } else { 0x100_0000 },
        link: 0,
        info: 0,
        link_section: Some(".note.nv.tkinfo".into()),
        info_section: compat.then(|| ".nv.compat".into()),
        data: note(NT_CUINFO, &desc),
    }
}

/// nvlink 13.5's toolkit strings, for its own `.note.nv.tkinfo` entry.
const TOOL_VERSION: &str = "Cuda compilation tools, release 13.5, V13.5.37";
const TOOL_BRANCH: &str = "Build cuda_13.5.r13.5/compiler.39125733_0";

/// `.note.nv.tkinfo`: nvlink's own entry (object name, tool, version,
/// branch, its options as `link::tkinfo` writes them), then, except in a
/// `-r` link, every input's entries in input order. The object name is
/// empty unless `-g` made nvlink record the output file's name there (its
/// string then opens the blob, where the empty string's NUL is otherwise).
pub fn tkinfo(st: &LinkState, args: &str, object: &str) -> OutNote {
    let mut blob = Vec::new();
    let mut offs = [0u32; 4];
    blob.extend_from_slice(object.as_bytes());
    blob.push(0);
    for (k, s) in ["nvlink", TOOL_VERSION, TOOL_BRANCH, args].iter().enumerate() {
        offs[k] = blob.len() as u32;
        blob.extend_from_slice(s.as_bytes());
        blob.push(0);
    }
    let mut desc = Vec::new();
    desc.extend_from_slice(&2u16.to_le_bytes());
    desc.extend_from_slice(&0u16.to_le_bytes());
    desc.extend_from_slice(&0u32.to_le_bytes());
    for o in offs {
        desc.extend_from_slice(&o.to_le_bytes());
    }
    desc.extend_from_slice(&blob);
    while !desc.len().is_multiple_of(4) {
        desc.push(0);
    }
    let mut data = note(NT_TKINFO, &desc);
    let mut flags = 0x200_0000;
    let inputs = if st.relocatable { 0 } else { st.inputs.len() };
    for i in 0..inputs {
        if let Some((d, f, _, _)) = input_note(st, i, ".note.nv.tkinfo") {
            let jit = crate::link::inputs::is_jit_origin(&st.inputs[i].origin);
            data.extend_from_slice(&crate::link::ptx::as_nvlink_records(&d, jit));
            flags = f;
        }
    }
    OutNote {
        name: ".note.nv.tkinfo".into(),
        flags,
        link: 0,
        info: 0,
        link_section: None,
        info_section: None,
        data,
    }
}
