//! Time one front end over the 267 vkd3d-proton files' bitcode, best of N rounds (a quick,
//! `perf stat`-friendly companion to `cargo bench -p untangle-testkit --bench parse`).
//!
//!     cargo run --release -p untangle-testkit --example native_parse_time -- [native|llvm] [rounds]
use std::path::Path;
use std::time::Instant;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "native".into());
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let files = untangle_testkit::fuzzing::bitcode::corpus_bitcode(&dir);
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for (name, bc) in &files {
            let m = match mode.as_str() {
                #[cfg(feature = "llvm")]
                "llvm" => untangle::front::parse_bitcode(bc, name, untangle::front::FrontEnd::LlvmInProcess),
                _ => untangle::front::parse_bitcode(bc, name, untangle::front::FrontEnd::Native),
            };
            std::hint::black_box(m.expect("corpus file"));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{mode}: {} files, {bytes} bytes of bitcode: best of {rounds} rounds {:.2} ms ({:.1} MB/s)",
        files.len(),
        best * 1e3,
        bytes as f64 / best / 1e6
    );
}
