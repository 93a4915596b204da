//! Whole-job time per shader, as the reference translator's figures are given: bytes in
//! memory → container → native bitcode reader → DXIL layer → structurizer → SPIR-V words,
//! for every compute, pixel and vertex shader of the vkd3d-proton corpus.
//! `cargo run --release -p untangle-testkit --example translate_times -- [ROUNDS]` prints the per-shader median
//! (each shader's best of ROUNDS) and the total of those bests. Results in `BENCHMARKS.md`.

use std::time::Instant;
use untangle::emit::{translate, Options};

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20).max(1);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut paths: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(d) => d.flatten().map(|e| e.path()).collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            std::process::exit(1);
        }
    };
    paths.sort();
    let options = Options::default();
    let mut best: Vec<f64> = Vec::new();
    let mut failed = 0;
    for p in paths {
        let n = p.to_string_lossy();
        if !(n.contains(".cs_6_") || n.contains(".ps_6_") || n.contains(".vs_6_")) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&p) else { continue };
        let mut b = f64::INFINITY;
        for _ in 0..rounds {
            let t = Instant::now();
            let ok = translate(&bytes, &options).is_ok();
            b = b.min(t.elapsed().as_secs_f64());
            if !ok {
                failed += 1;
                break;
            }
        }
        best.push(b);
    }
    best.sort_by(|a, b| a.total_cmp(b));
    let total: f64 = best.iter().sum();
    let median = best[best.len() / 2];
    println!(
        "{} shaders ({failed} failed): total {:.1} ms, median {:.0} µs, max {:.2} ms (best of {rounds} each)",
        best.len(),
        total * 1e3,
        median * 1e6,
        best.last().copied().unwrap_or(0.0) * 1e3
    );
}
