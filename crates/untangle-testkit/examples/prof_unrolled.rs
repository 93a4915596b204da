//! Structurizes the unrolled-loop-with-interleaved-breaks pattern
//! (`structured_gen::unrolled_interleaved_breaks`) and prints its quality figures and the
//! mean time per run: `cargo run --release -p untangle-testkit --example prof_unrolled -- N [RUNS]`.
//! For profiling (`valgrind --tool=callgrind`) and the table in `BENCHMARKS.md`.

use untangle::ir::Types;
use untangle::passes::{structurize, Options};
use untangle_testkit::fuzzing::structured_gen::unrolled_interleaved_breaks;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(128);
    let runs: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(10).max(1);
    let f = unrolled_interleaved_breaks(n, &mut Types::default());
    let start = std::time::Instant::now();
    let mut stats = None;
    for _ in 0..runs {
        match structurize(&f, Options::default()) {
            Ok(s) => stats = Some(s.stats),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / runs as f64;
    println!("N = {n}: {ms:.2} ms a run; {:?}", stats.expect("at least one run"));
}
