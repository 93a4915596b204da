//! Bad bitcode never panics the native reader (or anything downstream of an accepted
//! module): prefix truncations of every corpus DXIL file's bitcode and seeded mutations all
//! end in typed errors, and no input takes long.
//!
//! `UNTANGLE_TRUNCATION_STRIDE` (default 11) and `UNTANGLE_MUTATIONS` (default 4000) scale the
//! run; `cargo run --release -p untangle-testkit --example bitcode_mutations -- 100000` is the long run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};
use untangle_testkit::fuzzing::bitcode::{corpus_bitcode, exercise, Outcome};
use untangle_testkit::fuzzing::mutate::Mutator;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let files = corpus_bitcode(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil"));
    assert_eq!(files.len(), 273);
    files
}

fn run(bc: &[u8], what: &str, slowest: &mut Duration) -> Outcome {
    let t = Instant::now();
    let out = catch_unwind(AssertUnwindSafe(|| exercise(bc))).unwrap_or_else(|_| panic!("panic on {what}"));
    *slowest = (*slowest).max(t.elapsed());
    out
}

#[test]
fn every_truncation_at_a_stride_is_a_typed_error() {
    let stride = env("UNTANGLE_TRUNCATION_STRIDE", 11).max(1);
    let mut slowest = Duration::ZERO;
    let mut total = 0;
    for (name, bc) in corpus() {
        assert_eq!(run(&bc, &name, &mut slowest), Outcome::Read, "{name} must read whole");
        // A stride through the file, plus every one of the last 64 lengths.
        let tail = bc.len().saturating_sub(64);
        for len in (0..bc.len()).step_by(stride).chain(tail..bc.len()) {
            total += 1;
            let out = run(&bc[..len], &format!("{name}[..{len}]"), &mut slowest);
            assert_eq!(out, Outcome::Rejected, "{name} truncated to {len} bytes was accepted");
        }
    }
    eprintln!("{total} truncations rejected; slowest input {slowest:?}");
    assert!(total > 273 * 64);
    assert!(slowest < Duration::from_secs(2), "an input took {slowest:?}");
}

#[test]
fn seeded_mutations_are_typed_errors_or_clean_reads() {
    let count = env("UNTANGLE_MUTATIONS", 4000);
    let files = corpus();
    let donors: Vec<&[u8]> = files.iter().map(|(_, b)| b.as_slice()).collect();
    let mut mutator = Mutator::new(0xb17c_0de5);
    let (mut read, mut rejected) = (0usize, 0usize);
    let mut slowest = Duration::ZERO;
    for i in 0..count {
        let (name, bc) = &files[i % files.len()];
        let m = mutator.mutate(bc, &donors);
        match run(&m, &format!("mutation {i} of {name}"), &mut slowest) {
            Outcome::Read => read += 1,
            Outcome::Rejected => rejected += 1,
        }
    }
    eprintln!("{count} mutations: {read} read, {rejected} typed errors; slowest {slowest:?}");
    assert_eq!(read + rejected, count);
    assert!(rejected > count / 4, "only {rejected} of {count} mutations were rejected");
    assert!(slowest < Duration::from_secs(2), "an input took {slowest:?}");
}

/// The native reader's own error, out of the front end's.
fn native(bc: &[u8], name: &str) -> Result<untangle::ir::Module, untangle::front::BitcodeError> {
    match untangle::front::parse_bitcode(bc, name, untangle::front::FrontEnd::Native) {
        Ok(m) => Ok(m),
        Err(untangle::front::Error::Bitcode(e)) => Err(e),
        Err(e) => panic!("{name}: not a bitcode error: {e}"),
    }
}

#[test]
fn errors_carry_their_position() {
    let files = corpus();
    let (_, bc) = &files[0];
    // Cut short: the module block's declared length no longer fits (reported at its header).
    let e = native(&bc[..bc.len() / 2], "half").expect_err("half a file");
    assert!(e.bit >= 32 && e.bit <= (bc.len() as u64 / 2) * 8, "{e}");
    // Damage inside the module: the error names the block it happened in.
    let inside = (bc.len() / 2..bc.len()).find_map(|at| {
        let mut m = bc.clone();
        m[at] ^= 0xff;
        native(&m, "damaged").err().filter(|e| e.block.is_some())
    });
    let e = inside.expect("some damage is reported inside a block");
    assert!(e.to_string().contains("block"), "{e}");
    let e = native(b"BC\xc0\xdf", "magic").expect_err("bad magic");
    assert_eq!(e.kind, untangle::front::BitcodeErrorKind::BadMagic);
    // Through the crate's error type.
    let err: untangle::Error = e.into();
    assert!(err.to_string().contains("bitcode"));
}
