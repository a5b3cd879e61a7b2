//! Fuzz smoke test: thousands of deterministic mutations of corpus cubins
//! (random bytes, hostile values in section headers, symbols and
//! relocations), each linked beside its sound partners through the library;
//! the linker must never panic (one mutation in sixteen through sm_100+
//! re-finalization, whose nvJitLink runs are child processes).
//! `CULDB_FUZZ_ITERS` sets the mutations per
//! case, `CULDB_FUZZ_SEED` the seed.

mod common;

use common::*;
use culdb::fuzz::{LinkCase, Outcome, XorShift, mutate, quiet_panics};

/// (corpus case, the input mutated): relocations, Mercury, UDT, shared and
/// constant banks, bindless, common data, -r, initialised globals, sm_75,
/// sm_100+ re-finalization.
const CASES: &[(&str, &str)] = &[
    ("extern_call_sm90", "main.cubin"),
    ("extern_call_sm90", "lib.cubin"),
    ("arch_sm100_smoke", "main.cubin"),
    ("udt_basic_sm90", "a.cubin"),
    ("shared_static_sm90", "kern.cubin"),
    ("bindless_helper_base_sm90", "kern.cubin"),
    ("const_bank_sm90", "consts.cubin"),
    ("common_data_diff_size_sm90", "b.cubin"),
    ("func_desc_sm100", "d.cubin"),
    ("relocatable_link_sm90", "kern.cubin"),
    ("init_globals_sm90", "data.cubin"),
    ("arch_sm75_smoke", "main.cubin"),
    // sm_120 `-lineinfo` with a fence the finalizer shortens: the input
    // edits of re-finalization (code, relocations, frames, line tables).
    ("threadfence_lines_sm120", "lines.o"),
];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_inputs_never_panic() {
    // CI runs the debug build: fewer mutations there.
    let per_case = env_or("CULDB_FUZZ_ITERS", if cfg!(debug_assertions) { 1000 } else { 2500 });
    let seed = env_or("CULDB_FUZZ_SEED", 0x5eed_c01d_b000_0001);
    // Panics are caught and counted; keep their messages off stderr.
    quiet_panics();
    let scratch = scratch("fuzz-smoke");
    let mut rng = XorShift::new(seed);
    let mut runs = 0u64;
    let mut linked = 0u64;
    let mut failures = Vec::new();
    let started = std::time::Instant::now();
    for (i, (case, target)) in CASES.iter().enumerate() {
        let lc = LinkCase::from_corpus(
            &root().join("tests/corpus").join(case),
            target,
            &scratch.join(i.to_string()),
        )
        .expect("copy corpus case");
        let sound = lc.link(&lc.original.clone());
        if sound != Outcome::Exit(0) {
            failures.push(format!("{case}: the sound input does not link: {sound:?}"));
            continue;
        }
        for n in 0..per_case {
            let bytes = mutate(&lc.original, &mut rng);
            runs += 1;
            // sm_100+ re-finalization runs nvJitLink in a child process per
            // link: one mutation in sixteen goes through it.
            culdb::link::refinalize::turn_off_in_this_thread(n % 16 != 0);
            let outcome = lc.link(&bytes);
            linked += u64::from(outcome == Outcome::Exit(0));
            if let Outcome::Panicked(msg) = outcome {
                failures.push(format!("{case}/{target} mutation {n}: {msg}"));
                let keep = scratch.join(format!("crash-{}-{n}-{target}", case));
                let _ = std::fs::write(keep, &bytes);
            }
        }
    }
    culdb::link::refinalize::turn_off_in_this_thread(false);
    let _ = std::panic::take_hook();
    eprintln!(
        "fuzz smoke: {runs} links of mutated inputs ({linked} made an output) in {:.1} s, {} panics",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    // The failing inputs stay in the scratch folder (crash-CASE-N-FILE).
    assert!(failures.is_empty(), "the linker panicked:\n{}", failures.join("\n"));
}

/// Seeds for the readers: whole corpus files (cubins, host objects,
/// archives, fatbins, uidx files), every section of every corpus cubin (the
/// `.nv.*` tables, capsules), and the shipped scenarios.
fn parser_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for case in corpus_cases() {
        let Ok(rd) = std::fs::read_dir(&case) else { continue };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
        files.sort();
        for f in files {
            let Ok(data) = std::fs::read(&f) else { continue };
            if data.len() > 200_000 {
                continue;
            }
            if let Ok(c) = culdb::cubin::read::parse(&data) {
                seeds.extend(
                    c.sections
                        .iter()
                        .filter(|s| !s.data.is_empty())
                        .map(|s| s.data.to_vec()),
                );
            }
            seeds.push(data);
        }
    }
    if let Ok(rd) = std::fs::read_dir(root().join("scenarios")) {
        for e in rd.flatten() {
            if let Ok(d) = std::fs::read(e.path()) {
                seeds.push(d);
            }
        }
    }
    seeds
}

/// Every reader of untrusted bytes (`culdb::fuzz::PARSERS`) returns an error
/// on mutated input, never panics.
#[test]
fn mutated_bytes_never_panic_a_reader() {
    quiet_panics();
    let seeds = parser_seeds();
    assert!(seeds.len() > 500, "{} seeds", seeds.len());
    let per_parser = env_or("CULDB_FUZZ_ITERS", if cfg!(debug_assertions) { 5000 } else { 20000 }) as usize;
    let mut rng = XorShift::new(env_or("CULDB_FUZZ_SEED", 0x5eed_f00d));
    let mut failures = Vec::new();
    for (k, (name, _)) in culdb::fuzz::PARSERS.iter().enumerate() {
        for _ in 0..per_parser {
            let seed = &seeds[rng.below(seeds.len())];
            let bytes = mutate(seed, &mut rng);
            if let Err(msg) = culdb::fuzz::parse_one(k, &bytes) {
                failures.push(format!("{name}: {msg}"));
                break;
            }
        }
    }
    eprintln!(
        "{} readers x {per_parser} mutations of {} seeds",
        culdb::fuzz::PARSERS.len(),
        seeds.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
