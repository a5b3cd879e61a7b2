//! Unified function and data tables (seed 000), a sub-phase of layout (`layout.uft`):
//! the UIDX file of `--uidx-file`, the checks of `.nv.uft`/`.nv.udt` against
//! their `.entry` tables and the index, the UUID map with its conflict list,
//! slot reordering, Mercury interleaving and the `__UFT*`/`__UDT*` placeholders.
//!
//! What nvlink 13.5 was seen to do (corpus `uft_*`, `err_uft_*`, `err_uidx_*`,
//! inputs written by `cubin::build`):
//!
//! - the index file is read whether or not an input has a table; its bytes
//!   become the output's `.nv.uidx` (type 0x70000010), and the weak
//!   undefined `__UFT*`/`__UDT*` placeholders of the inputs stay in the
//!   output as GLOBAL undefined symbols (they are dropped without `-uidx`);
//! - a `.nv.uft` without `-uidx` is fatal (`Unified symbols found but index
//!   file not specified.`); a missing `.nv.uft.entry` counts as zero entries
//!   (`Number of .nv.uft jump slots != ...`, never `missing nv.uft.entry`);
//! - entries are keyed by `uuid_lo ^ uuid_hi`; a second entry with a key
//!   already seen goes to the conflict list, and only a third one equal to a
//!   listed UUID is `duplicate ids in uft.entry`; two equal UUIDs make the
//!   second index lookup find the listed entry again: `entry was already found?`;
//! - each index record, in order, copies a 128-byte jump slot to its offset
//!   in a new table of the window's size, and rewrites the entry's offset;
//!   the source slot is at the value of the function the stub stands for
//!   (`__cuda_uf_stub_F` → `F`), which is 0 for a function alone in its
//!   `.text.F`: every slot of the corpus outputs is a copy of the first one;
//! - entries get attribute bits 6 (`attr=0x6`), their `symidx` the stub's
//!   output index; the stubs stay as LOCAL FUNC symbols with section index 0;
//!   `.nv.uft.entry` is 32-aligned in the output.
//!
//! - the `.nv.udt` path (corpus `udt_*`, `err_udt_*`): each record copies its
//!   variable's bytes (the symbol's size) to the record's offset and moves
//!   the symbol there; the variables stay in `.nv.udt`; the table ends where
//!   the last copied variable ends, and must then be the UDT window's size.
//!
//! Not shown with nvlink 13.5 (implemented from the seed): Mercury
//! interleaving (sm_100+: 2 instructions of zeros after each 128-byte slot)
//! and the remapping of unified relocation types, which the relocation
//! phase owns.

use foldhash::HashMap;

use crate::cubin::consts::{STB_GLOBAL, STB_LOCAL, STT_FUNC, STT_SECTION};

use super::diag::Diagnostic;
use super::event::Event;
use super::event::layout::LayoutEvent;
pub use super::event::layout::{Table, UftEvent};
use super::setup::LinkSetup;
use super::state::{LinkState, OutSymbol, OutTable, Place, SymFixup, SymIdx};
use super::uidx::{self, Uidx, UidxRecord};

/// Sections whose section symbols nvlink lists right after the notes'
/// (before every other local): the entry tables and the index.
pub const EARLY_SECTION_SYMBOLS: &[&str] = &[".nv.uft.entry", ".nv.uidx"];

/// `.nv.uidx` section type in nvlink's output (cuobjdump: CUDA_UIDX).
pub const SHT_CUDA_UIDX: u32 = 0x7000_0010;
/// The jump-slot size of `.nv.uft`.
pub const UFT_SLOT: u64 = 128;
/// Size of an entry record.
pub const ENTRY_SIZE: u64 = 32;
/// The prefix of the stub symbol that stands for a function in a slot.
pub const STUB_PREFIX: &str = "__cuda_uf_stub_";
/// Set on every merged entry's attribute word.
const MERGED_ATTR: u32 = 6;
/// Mercury instruction size: interleaving adds two per slot.
const MERCURY_INSN: u64 = 16;

/// One entry record of the merged entry table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct EntryRef {
    /// Byte offset in the entry section.
    at: u64,
    uuid: (u64, u64),
    stub: SymIdx,
    placed: bool,
}

/// Where the sub-phase stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Stage {
    #[default]
    Index,
    Check(Table),
    Map(Table, usize),
    Assign(Table, usize),
    Finish(Table),
    Done,
}

/// The work on one table.
#[derive(Debug, Clone, Default)]
struct Work {
    table: usize,
    entry: usize,
    entries: Vec<EntryRef>,
    /// key → entry.
    map: HashMap<u64, usize>,
    /// Entries whose key was taken, in arrival order.
    conflicts: Vec<usize>,
    out: Vec<u8>,
    written: u64,
}

/// The sub-phase's cursor.
#[derive(Debug, Clone, Default)]
pub struct Uft {
    stage: Stage,
    index: Option<Uidx>,
    work: Work,
}

fn fatal(text: impl Into<String>) -> Event {
    Event::Diagnostic(Diagnostic::fatal(text))
}

fn ev(e: UftEvent) -> Event {
    Event::Layout(LayoutEvent::Uft(e))
}

fn u32_at(b: &[u8], at: u64) -> u32 {
    b.get(at as usize..at as usize + 4)
        .map(|s| u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
        .unwrap_or(0)
}

fn u64_at(b: &[u8], at: u64) -> u64 {
    b.get(at as usize..at as usize + 8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
        .unwrap_or(0)
}

/// `-r`: nvlink treats each input's `.nv.uft` section symbol like the stubs
/// beside it: it becomes a LOCAL FUNC without name or section, where the
/// input had it (uft_basic_sm90 and uft_two_objects_sm90 linked with -r: one
/// per input), while the output keeps its own `.nv.uft` section symbol.
fn nameless_stubs(st: &mut LinkState, table: usize) {
    let parts: Vec<(usize, usize)> = st.sections[table]
        .contributions
        .iter()
        .map(|c| (c.input, c.in_section))
        .collect();
    for (input, in_section) in parts {
        let Some(c) = st
            .inputs
            .get(input)
            .and_then(|r| crate::cubin::read::parse(&r.data).ok())
        else {
            continue;
        };
        let Some(j) = c
            .symbols
            .iter()
            .position(|s| s.sym_type == STT_SECTION && s.shndx as usize == in_section)
        else {
            continue;
        };
        let idx = st.add_local(OutSymbol {
            name: String::new().into(),
            binding: STB_LOCAL,
            sym_type: STT_FUNC,
            other: 0,
            place: Place::Undefined,
            value: 0,
            size: 0,
            input,
            regcount: None,
            removed: false,
        });
        if let Some(m) = st.maps.get_mut(input).and_then(|m| m.map_symbol_index.get_mut(j)) {
            *m = idx.0;
        }
    }
}

fn live_section(st: &LinkState, name: &str) -> Option<usize> {
    st.section_named(name).filter(|&k| !st.sections[k].removed)
}

impl Uft {
    pub fn new(_st: &LinkState, _setup: &LinkSetup) -> Self {
        Uft::default()
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// One unit of work.
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        let stage = std::mem::replace(&mut self.stage, Stage::Done);
        let mut out = Vec::new();
        self.stage = match stage {
            Stage::Index => self.load_index(st, setup, &mut out),
            Stage::Check(t) => self.check(st, t, setup.relocatable, &mut out),
            Stage::Map(t, i) => self.map_entry(st, t, i, &mut out),
            // `-r` leaves the tables in input order (corpus `uft_*`, `udt_*`
            // linked with -r, expected/r/).
            Stage::Assign(t, _) if setup.relocatable => self.keep_order(st, t),
            Stage::Assign(t, i) => self.assign(st, t, i, &mut out),
            Stage::Finish(t) => self.finish(st, setup, t, &mut out),
            Stage::Done => Stage::Done,
        };
        if out.iter().any(|e| matches!(e, Event::Diagnostic(_))) {
            self.stage = Stage::Done;
        }
        out
    }

    fn load_index(&mut self, st: &mut LinkState, setup: &LinkSetup, out: &mut Vec<Event>) -> Stage {
        let Some(path) = setup.uidx_file.as_deref() else {
            return Stage::Check(Table::Uft);
        };
        let u = match uidx::load(path, setup.base_dir.as_deref()) {
            Ok(u) => u,
            Err(text) => {
                out.push(fatal(text));
                return Stage::Done;
            }
        };
        out.push(ev(UftEvent::IndexLoaded {
            path: path.to_string(),
            uft_window: u.uft_window,
            uft_records: u.uft.len(),
            udt_window: u.udt_window,
            udt_records: u.udt.len(),
        }));
        st.tables.push(OutTable {
            name: ".nv.uidx".into(),
            sh_type: SHT_CUDA_UIDX,
            flags: 0,
            align: 1,
            entsize: 0,
            data: u.bytes.clone(),
            links_symtab: false,
        });
        let placeholders: Vec<SymIdx> = st
            .all_symbols()
            .filter(|(_, s)| {
                s.place == Place::Undefined && (s.name.starts_with("__UFT") || s.name.starts_with("__UDT"))
            })
            .map(|(i, _)| i)
            .collect();
        for i in placeholders {
            if let Some(s) = st.symbol_mut(i) {
                s.removed = false;
                s.binding = STB_GLOBAL;
                out.push(ev(UftEvent::PlaceholderKept {
                    name: s.name.to_string(),
                }));
            }
        }
        self.index = Some(u);
        Stage::Check(Table::Uft)
    }

    fn next_table(t: Table) -> Stage {
        match t {
            Table::Uft => Stage::Check(Table::Udt),
            Table::Udt => Stage::Done,
        }
    }

    fn check(&mut self, st: &mut LinkState, t: Table, relocatable: bool, out: &mut Vec<Event>) -> Stage {
        let Some(table) = live_section(st, t.section()) else {
            return Self::next_table(t);
        };
        let Some(index) = self.index.as_ref() else {
            out.push(fatal("Unified symbols found but index file not specified."));
            return Stage::Done;
        };
        let entry = live_section(st, t.entry_section());
        let n_entries = entry.map_or(0, |e| st.sections[e].data.len() as u64 / ENTRY_SIZE);
        let window = match t {
            Table::Uft => index.uft_window,
            Table::Udt => index.udt_window,
        };
        let size = st.sections[table].data.len() as u64;
        match t {
            Table::Uft => {
                let entsize = match st.sections[table].entsize {
                    0 => UFT_SLOT,
                    e => e,
                };
                if size / entsize != n_entries {
                    out.push(fatal(
                        "Internal error: Number of .nv.uft jump slots != Number of entries in .nv.uft.entry",
                    ));
                    return Stage::Done;
                }
                if size != window {
                    out.push(fatal("Internal error: size of uidx window != nv.uft"));
                    return Stage::Done;
                }
            }
            Table::Udt => {
                if entry.is_none() {
                    out.push(fatal("Internal error: missing nv.udt.entry"));
                    return Stage::Done;
                }
            }
        }
        let Some(entry) = entry else {
            return Self::next_table(t);
        };
        self.work = Work {
            table,
            entry,
            // Never more than the table itself can fill (the window is user input).
            out: vec![0; usize::try_from(window.min(size.max(UFT_SLOT) * 2)).unwrap_or(0)],
            ..Work::default()
        };
        // nvlink aligns the UFT entry table of a final link to its record
        // size (not the UDT one: corpus udt_*).
        if t == Table::Uft && !relocatable {
            st.sections[entry].align = ENTRY_SIZE;
        }
        if t == Table::Uft && relocatable {
            nameless_stubs(st, table);
        }
        Stage::Map(t, 0)
    }

    fn map_entry(&mut self, st: &mut LinkState, t: Table, i: usize, out: &mut Vec<Event>) -> Stage {
        let w = &mut self.work;
        let at = i as u64 * ENTRY_SIZE;
        let sec = &st.sections[w.entry];
        if at + ENTRY_SIZE > sec.data.len() as u64 {
            return Stage::Assign(t, 0);
        }
        let raw_sym = u32_at(&sec.data, at);
        let attr = u32_at(&sec.data, at + 4);
        let uuid = (u64_at(&sec.data, at + 16), u64_at(&sec.data, at + 24));
        // The record names a symbol of the input it came from.
        let stub = sec
            .contributions
            .iter()
            .find(|c| at >= c.offset && at < c.offset + c.size)
            .and_then(|c| st.maps.get(c.input))
            .and_then(|m| m.map_symbol_index.get(raw_sym as usize))
            .map_or(SymIdx::NULL, |&o| SymIdx(o));
        let sec = &mut st.sections[w.entry];
        if let Some(b) = sec.data.get_mut(at as usize + 4..at as usize + 8) {
            b.copy_from_slice(&(attr | MERGED_ATTR).to_le_bytes());
        }
        st.sym_fixups.push(SymFixup {
            section: w.entry,
            offset: at,
            sym: stub,
        });
        // A UFT stub stays, outside any section (nvlink: st_shndx 0), with
        // the value it had in its input; a UDT variable stays in `.nv.udt`.
        let base = st.symbol(stub).and_then(|s| match s.place {
            Place::Section(k) => st.sections[k]
                .contributions
                .iter()
                .find(|c| c.input == s.input)
                .map(|c| c.offset),
            _ => None,
        });
        if let Some(s) = st.symbol_mut(stub)
            && t == Table::Uft
            && matches!(s.place, Place::Section(_))
        {
            s.removed = false;
            s.value -= base.unwrap_or(0).min(s.value);
            s.place = Place::Undefined;
        }
        let key = uuid.0 ^ uuid.1;
        let k = w.entries.len();
        let conflict = w.map.contains_key(&key);
        if conflict {
            if w.conflicts.iter().any(|&c| w.entries[c].uuid == uuid) {
                out.push(fatal(format!("Internal error: duplicate ids in {}.entry", t.short())));
                return Stage::Done;
            }
            w.conflicts.push(k);
        } else {
            w.map.insert(key, k);
        }
        w.entries.push(EntryRef {
            at,
            uuid,
            stub,
            placed: false,
        });
        out.push(ev(UftEvent::EntryMapped {
            table: t,
            index: k,
            uuid,
            key,
            stub: st.symbol_name(stub),
            conflict,
        }));
        Stage::Map(t, i + 1)
    }

    /// `-r`: the table stays as the inputs made it; a UFT entry's offset
    /// becomes the value of the function its stub stands for (0 for a
    /// function alone in its `.text`), a UDT entry keeps its own.
    fn keep_order(&mut self, st: &mut LinkState, t: Table) -> Stage {
        let w = std::mem::take(&mut self.work);
        if t == Table::Uft {
            for e in &w.entries {
                let func = st
                    .symbol_name(e.stub)
                    .strip_prefix(STUB_PREFIX)
                    .and_then(|f| st.lookup(f))
                    .and_then(|f| st.symbol(f))
                    .filter(|f| f.sym_type == STT_FUNC)
                    .map_or(0, |f| f.value);
                if let Some(b) = st.sections[w.entry].data.get_mut(e.at as usize + 8..e.at as usize + 16) {
                    b.copy_from_slice(&func.to_le_bytes());
                }
            }
        }
        Self::next_table(t)
    }

    fn record(&self, t: Table, i: usize) -> Option<UidxRecord> {
        let u = self.index.as_ref()?;
        match t {
            Table::Uft => u.uft.get(i).copied(),
            Table::Udt => u.udt.get(i).copied(),
        }
    }

    fn assign(&mut self, st: &mut LinkState, t: Table, i: usize, out: &mut Vec<Event>) -> Stage {
        let Some(r) = self.record(t, i) else {
            return Stage::Finish(t);
        };
        let w = &mut self.work;
        let uuid = r.uuid();
        let found = w
            .conflicts
            .iter()
            .copied()
            .find(|&c| w.entries[c].uuid == uuid)
            .or_else(|| {
                w.map
                    .get(&(uuid.0 ^ uuid.1))
                    .copied()
                    .filter(|&e| w.entries[e].uuid == uuid)
            });
        let Some(e) = found else {
            out.push(fatal("Internal error: uuid not found"));
            return Stage::Done;
        };
        if w.entries[e].placed {
            out.push(fatal("Internal error: entry was already found?"));
            return Stage::Done;
        }
        w.entries[e].placed = true;
        let stub = w.entries[e].stub;
        let stub_sym = st.symbol(stub).cloned();
        let stub_name = st.symbol_name(stub);
        let (from, size) = match t {
            // The slot of the function the stub stands for, at that function's value.
            Table::Uft => {
                let func = stub_name
                    .strip_prefix(STUB_PREFIX)
                    .and_then(|f| st.lookup(f))
                    .and_then(|f| st.symbol(f))
                    .filter(|f| f.sym_type == STT_FUNC);
                (func.map_or(0, |f| f.value), UFT_SLOT)
            }
            Table::Udt => (
                stub_sym.as_ref().map_or(0, |s| s.value),
                stub_sym.as_ref().map_or(0, |s| s.size),
            ),
        };
        let src = &st.sections[w.table].data;
        let to = r.offset;
        // The bytes the table holds from `from` on, at most `size` of them,
        // where the output has room: a stub's st_size is the input's word
        // and may be anything.
        let start = usize::try_from(from).map_or(src.len(), |f| f.min(src.len()));
        let n = usize::try_from(size).unwrap_or(usize::MAX).min(src.len() - start);
        if let Ok(t0) = usize::try_from(to)
            && t0 < w.out.len()
        {
            let n = n.min(w.out.len() - t0);
            w.out[t0..t0 + n].copy_from_slice(&src[start..start + n]);
        }
        w.written = w.written.max(to.saturating_add(size));
        if let Some(b) = st.sections[w.entry]
            .data
            .get_mut(w.entries[e].at as usize + 8..w.entries[e].at as usize + 16)
        {
            b.copy_from_slice(&to.to_le_bytes());
        }
        if t == Table::Udt
            && let Some(s) = st.symbol_mut(stub)
        {
            s.value = to;
        }
        out.push(ev(UftEvent::SlotAssigned {
            table: t,
            uuid,
            stub: stub_name,
            from,
            to,
            size,
        }));
        Stage::Assign(t, i + 1)
    }

    fn finish(&mut self, st: &mut LinkState, setup: &LinkSetup, t: Table, out: &mut Vec<Event>) -> Stage {
        let w = std::mem::take(&mut self.work);
        // The table ends where the last copied slot ends (nvlink: max_written).
        let mut data = w.out;
        data.truncate(usize::try_from(w.written).unwrap_or(usize::MAX));
        let sm: u32 = setup
            .arch
            .trim_start_matches("sm_")
            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .parse()
            .unwrap_or(0);
        let interleaved = t == Table::Uft && sm >= 100;
        if interleaved {
            let pad = 2 * MERCURY_INSN as usize;
            let mut x = Vec::with_capacity(data.len() / UFT_SLOT as usize * (UFT_SLOT as usize + pad));
            for slot in data.chunks(UFT_SLOT as usize) {
                x.extend_from_slice(slot);
                x.extend(std::iter::repeat_n(0u8, pad));
            }
            data = x;
        }
        let sec = &mut st.sections[w.table];
        sec.size = data.len() as u64;
        sec.data = data;
        out.push(ev(UftEvent::TableRebuilt {
            table: t,
            size: sec.size,
            interleaved,
        }));
        if t == Table::Udt
            && let Some(u) = self.index.as_ref()
            && sec.size != u.udt_window
        {
            out.push(fatal("Internal error: size of uidx window != nv.udt"));
            return Stage::Done;
        }
        Self::next_table(t)
    }
}
