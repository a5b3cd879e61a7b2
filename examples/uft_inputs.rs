//! Writes the synthetic link inputs of the unified-table corpus cases
//! (`tests/corpus/uft_*`, `udt_*`, `err_uft_*`, `err_udt_*`, `err_uidx_*`):
//! cubins carrying a `.nv.uft` jump table, its `__cuda_uf_stub_*` symbols
//! and `.nv.uft.entry`, or a `.nv.udt` of variables and `.nv.udt.entry`
//! (built with `culdb::cubin::build`; ptxas does not write these tables),
//! and UIDX files for `-uidx`.
//!
//!   cargo run --example uft_inputs -- CASE [OUTDIR]
//!
//! CASE is the corpus case's folder name; each case's build.sh calls this.

use std::path::Path;

use culdb::cubin::build::{CubinBuilder, Sym, UFT_SLOT, uidx_bytes};
use culdb::cubin::consts::{SHT_CUDA_UDT_ENTRY, SHT_CUDA_UFT_ENTRY};

/// UUIDs of the synthetic targets (lo, hi).
const UUID: [(u64, u64); 4] = [
    (0x1111_0000_0000_0001, 0xaaaa_0000_0000_0001),
    (0x2222_0000_0000_0002, 0xbbbb_0000_0000_0002),
    (0x3333_0000_0000_0003, 0xcccc_0000_0000_0003),
    (0x4444_0000_0000_0004, 0xdddd_0000_0000_0004),
];

/// An sm_90 cubin as ptxas would start it (notes, .nv.compat).
fn base() -> CubinBuilder {
    let mut b = CubinBuilder::new(90);
    b.ptxas_notes(90);
    b
}

/// A cubin with functions `names` (128 bytes of code each) and a UFT with
/// one slot per function, target k having UUID `uuids[k]`.
fn uft_cubin(names: &[&str], uuids: &[(u64, u64)]) -> CubinBuilder {
    let mut b = base();
    let mut targets = Vec::new();
    for (k, n) in names.iter().enumerate() {
        b.function(n, vec![0u8; 128], Sym::global());
        targets.push((*n, uuids[k].0, uuids[k].1));
    }
    b.uft_table(&targets);
    b
}

/// A cubin with function `f0` and a UDT of variables `u0` (8 bytes) and
/// `u1` (16 bytes), `u<k>` having UUID `UUID[k]`; `entries` = false leaves
/// `.nv.udt.entry` out.
fn udt_cubin(entries: bool) -> CubinBuilder {
    let mut b = base();
    b.function("f0", vec![0u8; 128], Sym::global());
    let vars = [
        ("u0", (0x10..0x18).collect::<Vec<u8>>(), UUID[0].0, UUID[0].1),
        ("u1", (0x20..0x30).collect::<Vec<u8>>(), UUID[1].0, UUID[1].1),
    ];
    let (_, _, e) = b.udt_slots(&vars);
    if entries {
        b.entry_table(".nv.udt.entry", SHT_CUDA_UDT_ENTRY, &e);
    }
    b
}

/// An index of version 1 with a UDT part only: `(k, offset)` places `u<k>` there.
fn udt_uidx(window: u64, at: &[(usize, u64)]) -> Vec<u8> {
    let r: Vec<(u64, u64, u64)> = at.iter().map(|&(k, off)| (UUID[k].0, UUID[k].1, off)).collect();
    uidx_bytes(1, 0, &[], window, &r, None)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    if let Err(e) = std::fs::write(dir.join(name), bytes) {
        eprintln!("uft_inputs: writing {name}: {e}");
        std::process::exit(1);
    }
}

fn cubin(dir: &Path, name: &str, b: &CubinBuilder) {
    match b.to_bytes() {
        Ok(bytes) => write(dir, name, &bytes),
        Err(e) => {
            eprintln!("uft_inputs: building {name}: {e}");
            std::process::exit(1);
        }
    }
}

/// UIDX records placing UUID[perm[i]] at slot i.
fn uft_index(perm: &[usize]) -> Vec<(u64, u64, u64)> {
    perm.iter()
        .enumerate()
        .map(|(slot, &k)| (UUID[k].0, UUID[k].1, slot as u64 * UFT_SLOT))
        .collect()
}

/// An index of version 1 with no UDT part.
fn uidx(window: u64, records: &[(u64, u64, u64)]) -> Vec<u8> {
    uidx_bytes(1, window, records, 0, &[], None)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("");
    let dir = Path::new(args.get(2).map(String::as_str).unwrap_or("."));
    let two = 2 * UFT_SLOT;
    let ab = || uft_cubin(&["f0", "f1"], &UUID[..2]);
    match case {
        "uft_basic_sm90" => {
            cubin(dir, "a.cubin", &ab());
            write(dir, "a.uidx", &uidx(two, &uft_index(&[0, 1])));
        }
        "uft_uidx_reorder_sm90" => {
            cubin(dir, "a.cubin", &ab());
            write(dir, "a.uidx", &uidx(two, &uft_index(&[1, 0])));
        }
        "uft_two_objects_sm90" => {
            cubin(dir, "a.cubin", &ab());
            cubin(dir, "b.cubin", &uft_cubin(&["g2", "g3"], &UUID[2..4]));
            write(dir, "ab.uidx", &uidx(4 * UFT_SLOT, &uft_index(&[3, 0, 2, 1])));
        }
        "udt_basic_sm90" => {
            cubin(dir, "a.cubin", &udt_cubin(true));
            write(dir, "a.uidx", &udt_uidx(24, &[(0, 0), (1, 8)]));
        }
        "udt_reorder_sm90" => {
            cubin(dir, "a.cubin", &udt_cubin(true));
            write(dir, "a.uidx", &udt_uidx(24, &[(1, 0), (0, 16)]));
        }
        "err_udt_missing_entry_sm90" => {
            cubin(dir, "a.cubin", &udt_cubin(false));
            write(dir, "a.uidx", &udt_uidx(24, &[(0, 0), (1, 8)]));
        }
        "err_udt_window_sm90" => {
            cubin(dir, "a.cubin", &udt_cubin(true));
            write(dir, "a.uidx", &udt_uidx(32, &[(0, 0), (1, 8)]));
        }
        "err_udt_no_uidx_sm90" => cubin(dir, "a.cubin", &udt_cubin(true)),
        // The index file alone (m.cubin comes from ptxas).
        "uft_uidx_no_table_sm90" => write(dir, "a.uidx", &uidx(two, &uft_index(&[0, 1]))),
        "err_uft_no_uidx_sm90" => cubin(dir, "a.cubin", &ab()),
        "err_uft_missing_entry_sm90" => {
            let mut b = base();
            b.function("f0", vec![0u8; 128], Sym::global());
            b.uft_slots(&[("f0", UUID[0].0, UUID[0].1)]);
            cubin(dir, "a.cubin", &b);
            write(dir, "a.uidx", &uidx(UFT_SLOT, &uft_index(&[0])));
        }
        "err_uft_slot_mismatch_sm90" => {
            let mut b = base();
            b.function("f0", vec![0u8; 128], Sym::global());
            b.function("f1", vec![0u8; 128], Sym::global());
            let (_, _, entries) = b.uft_slots(&[("f0", UUID[0].0, UUID[0].1), ("f1", UUID[1].0, UUID[1].1)]);
            b.entry_table(".nv.uft.entry", SHT_CUDA_UFT_ENTRY, &entries[..1]);
            cubin(dir, "a.cubin", &b);
            write(dir, "a.uidx", &uidx(two, &uft_index(&[0, 1])));
        }
        "err_uft_duplicate_uuid_sm90" => {
            cubin(dir, "a.cubin", &uft_cubin(&["f0"], &UUID[..1]));
            cubin(dir, "b.cubin", &uft_cubin(&["g0"], &UUID[..1]));
            write(dir, "ab.uidx", &uidx(two, &uft_index(&[0, 0])));
        }
        "err_uft_duplicate_uuid3_sm90" => {
            cubin(dir, "a.cubin", &uft_cubin(&["f0"], &UUID[..1]));
            cubin(dir, "b.cubin", &uft_cubin(&["g0"], &UUID[..1]));
            cubin(dir, "c.cubin", &uft_cubin(&["h0"], &UUID[..1]));
            write(dir, "abc.uidx", &uidx(3 * UFT_SLOT, &uft_index(&[0, 0, 0])));
        }
        "err_uidx_bad_magic_sm90" => {
            cubin(dir, "a.cubin", &ab());
            let mut u = uidx(two, &uft_index(&[0, 1]));
            u[1] = b'X';
            write(dir, "a.uidx", &u);
        }
        "err_uidx_malformed_sm90" => {
            cubin(dir, "a.cubin", &ab());
            let u = uidx(two, &uft_index(&[0, 1]));
            write(dir, "a.uidx", &u[..u.len() - 1]);
        }
        "err_uidx_window_sm90" => {
            cubin(dir, "a.cubin", &ab());
            write(dir, "a.uidx", &uidx(3 * UFT_SLOT, &uft_index(&[0, 1])));
        }
        "err_uidx_zero_window_sm90" => {
            cubin(dir, "a.cubin", &ab());
            write(dir, "a.uidx", &uidx(0, &uft_index(&[0, 1])));
        }
        "err_uidx_unknown_uuid_sm90" => {
            cubin(dir, "a.cubin", &ab());
            let mut r = uft_index(&[0, 1]);
            r[1].0 ^= 0xff;
            write(dir, "a.uidx", &uidx(two, &r));
        }
        "err_uidx_uuid_twice_sm90" => {
            cubin(dir, "a.cubin", &ab());
            write(dir, "a.uidx", &uidx(two, &uft_index(&[0, 0])));
        }
        _ => {
            eprintln!("uft_inputs: unknown case '{case}'");
            std::process::exit(2);
        }
    }
}
