//! In-process translation time per shader, measured the way `../shared/tools/reference`'s
//! `reference-time` measures the reference translator: bytes in memory → container → native
//! bitcode reader → DXIL layer → structurizer → SPIR-V words, default options, each file's
//! best of ROUNDS. One [`untangle::ParseContext`] serves the whole run, as a batch keeps
//! one (the `BLOCKINFO` block every DXC module carries is decoded once per distinct block).
//!
//!     cargo run --release -p untangle-testkit --example translate_times -- [--fresh] [--no-cleanups] ROUNDS [FILE...]
//!
//! `--fresh`: every translation gets a new context (`untangle::translate`), as a one-shot
//! caller does; the difference is what the shared `BLOCKINFO` block costs.
//! `--no-cleanups`: [`untangle::Options::cleanups`] off (what the emitter's clean-ups cost).
//!
//! Prints `name<TAB>ok|fail<TAB>best_µs` per file, then `total<TAB>N ok<TAB>sum_µs` (the
//! reference harness's format, so `tools/bench-reference.sh` can join the two). Without
//! files: every compute, pixel and vertex shader of the vkd3d-proton corpus, and a summary
//! line with the median.

use std::time::Instant;
use untangle::{translate, translate_in, Options, ParseContext};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let fresh = args.next_if(|a| a == "--fresh").is_some();
    let cleanups = args.next_if(|a| a == "--no-cleanups").is_none();
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20).max(1);
    let mut paths: Vec<std::path::PathBuf> = args.map(Into::into).collect();
    let corpus = paths.is_empty();
    if corpus {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
        paths = match std::fs::read_dir(&dir) {
            Ok(d) => d.flatten().map(|e| e.path()).collect(),
            Err(e) => {
                eprintln!("{}: {e}", dir.display());
                std::process::exit(1);
            }
        };
        paths.retain(|p| {
            let n = p.to_string_lossy();
            n.contains(".cs_6_") || n.contains(".ps_6_") || n.contains(".vs_6_")
        });
        paths.sort();
    }
    let options = Options { cleanups, ..Options::default() };
    let mut cx = ParseContext::new();
    let mut best_ok: Vec<f64> = Vec::new();
    for p in &paths {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let Ok(bytes) = std::fs::read(p) else {
            println!("{name}\tfail\t0");
            continue;
        };
        let mut best = f64::INFINITY;
        let mut ok = true;
        for _ in 0..rounds {
            let t = Instant::now();
            ok = if fresh { translate(&bytes, &options) } else { translate_in(&mut cx, &bytes, &options) }.is_ok();
            best = best.min(t.elapsed().as_secs_f64());
            if !ok {
                break;
            }
        }
        println!("{name}\t{}\t{:.1}", if ok { "ok" } else { "fail" }, best * 1e6);
        if ok {
            best_ok.push(best);
        }
    }
    let total: f64 = best_ok.iter().sum();
    println!("total\t{} ok\t{:.1}", best_ok.len(), total * 1e6);
    if corpus && !best_ok.is_empty() {
        best_ok.sort_by(|a, b| a.total_cmp(b));
        eprintln!(
            "{} shaders: total {:.1} ms, median {:.0} µs, max {:.2} ms (best of {rounds} each)",
            best_ok.len(),
            total * 1e3,
            best_ok[best_ok.len() / 2] * 1e6,
            best_ok.last().copied().unwrap_or(0.0) * 1e3
        );
    }
}
