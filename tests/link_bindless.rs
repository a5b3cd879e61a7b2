//! Bindless references (`link::bindless`), checked against nvlink's outputs
//! in the corpus: the per-kernel tables (bank growth, the header-index
//! records, the slot of every resource), the code patched through the
//! `$NVLINKBINDLESSOFF_` symbols, pruning, propagation through calls, and
//! the resource limits. Every expectation is read from the case's
//! `expected/` files, none is written here per case.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use culdb::cubin::model::Cubin;
use culdb::cubin::read;
use culdb::link::bindless::BindlessEvent;
use culdb::link::event::Event;
use culdb::link::layout::LayoutEvent;
use culdb::link::state::LinkState;
use culdb::link::state::bindless::{Kind, OFFSET_PREFIX};

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn args_of(case: &Path) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).expect("link.args");
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    v.extend(["-o".to_string(), "out.cubin".to_string()]);
    v
}

struct Linked {
    st: LinkState,
    events: Vec<Event>,
    out: Vec<u8>,
    status: i32,
}

fn link(name: &str) -> Linked {
    let dir = case(name);
    let mut linker = culdb::link::linker_for(&args_of(&dir), &dir).expect("options");
    let events = linker.run();
    Linked {
        out: linker.output().map(<[u8]>::to_vec).unwrap_or_default(),
        status: linker.exit_status(),
        st: linker.state().clone(),
        events,
    }
}

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(case(name).join("expected/out.cubin")).expect("expected/out.cubin")
}

/// Cases where nvlink builds bindless tables (the Mercury ones for the
/// classic sections only).
const CASES: &[&str] = &[
    "texref_helper_sm75",
    "texref_helper_sm86",
    "texref_helper_sm90",
    "texref_helper_sm100",
    "texref_helper_sm120",
    "bindless_prune_sm75",
    "bindless_samplers_sm75",
    "bindless_slot_order_sm90",
    "bindless_helper_base_sm100",
    "bindless_helper_base_sm90",
    "bindless_surface_helper_sm100",
];

/// Header-index records per relocation section whose name holds
/// `.nv.constant0.`: (offset, type, symbol name, addend), sorted.
fn header_records(c: &Cubin<'_>) -> BTreeMap<String, Vec<(u64, u32, String, i64)>> {
    let mut m = BTreeMap::new();
    for s in &c.sections {
        if !(s.name.starts_with(".rel.nv.constant0.") || s.name.starts_with(".rela.nv.constant0.")) {
            continue;
        }
        let mut v: Vec<_> = s
            .relocs
            .iter()
            .map(|r| {
                let n = c
                    .symbols
                    .get(r.sym as usize)
                    .map(|x| x.name.clone())
                    .unwrap_or_default();
                (r.offset, r.rtype, n, r.addend)
            })
            .collect();
        v.sort();
        m.insert(s.name.clone(), v);
    }
    m
}

fn section<'a>(c: &'a Cubin<'_>, name: &str) -> Option<&'a culdb::cubin::model::Section<'a>> {
    c.section_by_name(name).map(|(_, s)| s)
}

/// Constant banks, code and the header-index records are nvlink's, byte
/// for byte and record for record.
#[test]
fn tables_and_patched_code_match_nvlink() {
    let mut bad = Vec::new();
    for name in CASES {
        let l = link(name);
        assert_eq!(l.status, 0, "{name}: link failed");
        let ours = read::parse(&l.out).expect("culdb output parses");
        let gold = golden(name);
        let theirs = read::parse(&gold).expect("nvlink output parses");
        for s in &theirs.sections {
            let wanted = s.name.starts_with(".nv.constant0.") || s.name.starts_with(".text.");
            if !wanted {
                continue;
            }
            match section(&ours, &s.name) {
                None => bad.push(format!("{name}: {} missing", s.name)),
                Some(o) if o.data != s.data || o.size() != s.size() => bad.push(format!(
                    "{name}: {} differs ({:#x} vs {:#x} bytes)",
                    s.name,
                    o.size(),
                    s.size()
                )),
                Some(_) => {}
            }
        }
        let (a, b) = (header_records(&ours), header_records(&theirs));
        if a != b {
            bad.push(format!("{name}: header-index records\n  ours   {a:?}\n  nvlink {b:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every resource's slot in the state is where nvlink's records put it, and
/// the `$NVLINKBINDLESSOFF_` symbols never reach the output.
#[test]
fn slots_are_nvlinks_and_offset_symbols_stay_internal() {
    for name in CASES {
        let l = link(name);
        let table = l.st.bindless.clone().expect("a bindless table");
        let gold = golden(name);
        let theirs = read::parse(&gold).expect("nvlink output parses");
        let recs = header_records(&theirs);
        let (_, first) = recs.iter().next().expect("a table in nvlink's output");
        assert_eq!(first.len(), table.slots.len(), "{name}: slot count");
        for (off, rtype, sym, _) in first {
            let slot = table
                .slots
                .iter()
                .find(|s| l.st.symbol_name(s.symbol) == *sym)
                .unwrap_or_else(|| panic!("{name}: no slot for {sym}"));
            assert_eq!(slot.offset, *off, "{name}: slot of {sym}");
            assert_eq!(slot.kind.header_reloc(), *rtype, "{name}: record type of {sym}");
            let off_sym = l.st.symbol(slot.offset_symbol).expect("offset symbol");
            assert_eq!(*off_sym.name, *format!("{OFFSET_PREFIX}{sym}"));
            assert_eq!(off_sym.value, *off);
        }
        let ours = read::parse(&l.out).expect("culdb output parses");
        assert!(
            !ours.symbols.iter().any(|s| s.name.starts_with(OFFSET_PREFIX)),
            "{name}: an offset symbol was written"
        );
        assert!(
            !l.out
                .windows(OFFSET_PREFIX.len())
                .any(|w| w == OFFSET_PREFIX.as_bytes()),
            "{name}: an offset symbol's name was written"
        );
        // Every relocation against a resource was rewritten and then applied.
        for r in &l.st.relocs {
            let s = l.st.symbol(r.sym).expect("symbol");
            if s.name.starts_with(OFFSET_PREFIX) {
                assert!(!r.live, "{name}: {} left in the output", s.name);
            }
        }
    }
}

/// Kernels that reach no resource keep their bank; a kernel reaching one
/// only through a call gets the table; the table's base is the largest bank.
#[test]
fn pruning_and_propagation_through_calls() {
    let l = link("bindless_prune_sm75");
    let text: Vec<String> = l.events.iter().map(|e| e.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.starts_with("no bindless ref in section .nv.constant0.k_none")),
        "{text:#?}"
    );
    assert!(
        l.events.iter().any(|e| matches!(e,
            Event::Layout(LayoutEvent::Bindless(BindlessEvent::Propagated { from, to, .. }))
                if from == "helper" && to == "k_h")),
        "helper's texture reaches k_h"
    );
    let table = l.st.bindless.as_ref().expect("table");
    let kernels: Vec<String> = table.kernels.iter().map(|(k, _)| l.st.symbol_name(*k)).collect();
    assert!(!kernels.contains(&"k_none".to_string()));
    for k in ["k_h", "k_s", "k_t", "k_c"] {
        assert!(kernels.contains(&k.to_string()), "{k}: {kernels:?}");
    }
    // nvlink's own bank sizes.
    let gold = golden("bindless_prune_sm75");
    let theirs = read::parse(&gold).expect("parse");
    let none = section(&theirs, ".nv.constant0.k_none").expect("k_none bank");
    let k = l.st.section_named(".nv.constant0.k_none").expect("bank");
    assert_eq!(l.st.sections[k].size, none.size());

    // A pruned kernel with the largest bank still decides where the table starts.
    let l = link("bindless_samplers_sm75");
    let gold = golden("bindless_samplers_sm75");
    let theirs = read::parse(&gold).expect("parse");
    let big = section(&theirs, ".nv.constant0.k_big").expect("k_big bank").size();
    let table = l.st.bindless.as_ref().expect("table");
    assert_eq!(table.base, big);
    assert!(table.slots.iter().any(|s| s.kind == Kind::Sampler));
}

/// Each limit is nvlink's, with its message and status, and no output.
#[test]
fn resource_limits_are_fatal_with_nvlinks_message() {
    for name in [
        "err_bindless_textures_sm75",
        "err_bindless_surfaces_sm75",
        "err_bindless_samplers_sm75",
    ] {
        let l = link(name);
        let dir = case(name);
        let status: i32 = std::fs::read_to_string(dir.join("expected/status"))
            .expect("status")
            .trim()
            .parse()
            .expect("number");
        let stderr = std::fs::read_to_string(dir.join("expected/stderr")).expect("stderr");
        assert_eq!(l.status, status, "{name}");
        assert!(l.out.is_empty(), "{name}: an output was built");
        let ours: Vec<String> =
            l.st.diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.severity.padded(), d.text))
                .collect();
        let theirs: Vec<String> = stderr
            .lines()
            .filter_map(|x| x.strip_prefix("nvlink "))
            .map(str::to_string)
            .collect();
        assert_eq!(ours, theirs, "{name}");
    }
}

/// A relocatable link leaves references alone.
#[test]
fn relocatable_link_builds_no_table() {
    let dir = case("texref_helper_sm90");
    let mut args = args_of(&dir);
    args.insert(0, "-r".into());
    let mut linker = culdb::link::linker_for(&args, &dir).expect("options");
    linker.run();
    let st = linker.state();
    assert!(st.bindless.is_none());
    assert!(!st.all_symbols().any(|(_, s)| s.name.starts_with(OFFSET_PREFIX)));
}

/// sm_100+ `-r`: no slots and no bank growth, but every reference's field
/// gets the table's base (the largest bank, 0x3c4, aligned to 16) and its
/// relocation stays; nvlink's -r output holds the same bytes.
#[test]
fn relocatable_mercury_link_writes_the_table_base_and_keeps_relocations() {
    use culdb::link::reloc::RelocEvent;
    let dir = case("bindless_helper_base_sm100");
    let mut args = args_of(&dir);
    args.insert(0, "-r".into());
    let mut linker = culdb::link::linker_for(&args, &dir).expect("options");
    let events = linker.run();
    let st = linker.state();
    let table = st.bindless.as_ref().expect("the base is found");
    assert_eq!(table.base, 0x3d0);
    assert!(table.slots.is_empty() && table.kernels.is_empty());
    let applied =
        |e: &Event| matches!(e, Event::Reloc(RelocEvent::Applied { symbol, s: 0x3d0, .. }) if symbol == "tex_b");
    let kept = |e: &Event| matches!(e, Event::Reloc(RelocEvent::Kept { symbol, .. }) if symbol == "tex_b");
    assert!(events.iter().any(applied), "the field is written");
    assert!(events.iter().any(kept), "the relocation stays");
    let ours = read::parse(linker.output().expect("output")).expect("parses");
    let golden = std::fs::read(dir.join("expected/r/out.cubin")).expect("nvlink's -r output");
    let theirs = read::parse(&golden).expect("parses");
    let code = |c: &Cubin<'_>| section(c, ".text.sample_helper").expect("helper code").data.to_vec();
    assert_eq!(code(&ours), code(&theirs));
    let bank = |c: &Cubin<'_>| section(c, ".nv.constant0.k_big").expect("bank").size();
    assert_eq!(bank(&ours), bank(&theirs));
}
