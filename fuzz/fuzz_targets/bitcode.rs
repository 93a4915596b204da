//! The native bitcode reader on arbitrary bytes: reading must end in a module or a typed
//! error, never a panic, abort, hang or runaway allocation; an accepted module is also
//! dumped and run through the DXIL layer (`untangle_testkit::fuzzing::bitcode::exercise`).
//!
//! Seed it with the corpus bitcode (raw `BC C0 DE` files), e.g. extracted with
//! `cargo run --release --example bitcode_mutations -- --export-seeds fuzz/corpus/bitcode`
//! or any DXIL container's `DXIL` chunk. Inputs without the magic are given it, so the
//! fuzzer spends its time inside the bitstream rather than on the first four bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = untangle_testkit::fuzzing::bitcode::exercise(data);
    if !data.starts_with(b"BC\xC0\xDE") {
        let mut with_magic = Vec::with_capacity(data.len() + 4);
        with_magic.extend_from_slice(b"BC\xC0\xDE");
        with_magic.extend_from_slice(data);
        let _ = untangle_testkit::fuzzing::bitcode::exercise(&with_magic);
    }
});
