//! Structure-aware: the fuzzer's first 8 bytes seed culdb's mutator
//! (hostile values in section headers, symbols, relocations) applied to a
//! corpus cubin, chosen by the 9th byte; linked beside its sound partner.
#![no_main]

use std::sync::OnceLock;

use culdb::fuzz::{LinkCase, Outcome, XorShift, mutate};
use libfuzzer_sys::fuzz_target;

const CASES: &[(&str, &str)] = &[
    ("extern_call_sm90", "main.cubin"),
    ("arch_sm100_smoke", "main.cubin"),
    ("udt_basic_sm90", "a.cubin"),
    ("shared_static_sm90", "kern.cubin"),
    ("relocatable_link_sm90", "kern.cubin"),
];

fn cases() -> &'static [LinkCase] {
    static CASES_READY: OnceLock<Vec<LinkCase>> = OnceLock::new();
    CASES_READY.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let scratch = std::env::temp_dir().join(format!("culdb-fuzz-mut-{}", std::process::id()));
        CASES
            .iter()
            .enumerate()
            .map(|(i, (case, target))| {
                LinkCase::from_corpus(
                    &root.join("tests/corpus").join(case),
                    target,
                    &scratch.join(i.to_string()),
                )
                .expect("copy the corpus case")
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let seed = u64::from_le_bytes(data[..8].try_into().unwrap());
    let lc = &cases()[data[8] as usize % CASES.len()];
    let bytes = mutate(&lc.original, &mut XorShift::new(seed));
    if let Outcome::Panicked(msg) = lc.link(&bytes) {
        panic!("the linker panicked: {msg}");
    }
});
