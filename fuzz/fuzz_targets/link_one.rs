//! The fuzzer's bytes as `main.cubin` of corpus case extern_call_sm90,
//! linked beside its sound `lib.cubin` (the harness of tests/fuzz_smoke.rs).
//! Seed corpus: `cp ../tests/corpus/*/*.cubin corpus/link_one/`.
#![no_main]

use std::sync::OnceLock;

use culdb::fuzz::{LinkCase, Outcome};
use libfuzzer_sys::fuzz_target;

fn case() -> &'static LinkCase {
    static CASE: OnceLock<LinkCase> = OnceLock::new();
    CASE.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let scratch = std::env::temp_dir().join(format!("culdb-fuzz-one-{}", std::process::id()));
        LinkCase::from_corpus(&root.join("tests/corpus/extern_call_sm90"), "main.cubin", &scratch)
            .expect("copy the corpus case")
    })
}

fuzz_target!(|data: &[u8]| {
    if let Outcome::Panicked(msg) = case().link(data) {
        panic!("the linker panicked: {msg}");
    }
});
