//! Every reader of untrusted bytes (`culdb::fuzz::PARSERS`: containers, the
//! `.nv.*` codecs, capsules, uidx, scenario and job RON): the first byte
//! picks the reader, the rest is its input. A panic is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else { return };
    if let Err(msg) = culdb::fuzz::parse_one(which as usize, rest) {
        panic!("reader {} panicked: {msg}", culdb::fuzz::PARSERS[which as usize % culdb::fuzz::PARSERS.len()].0);
    }
});
