//! The long structure-aware run (issue 33): cases `FIRST..FIRST + CASES` of run `SEED` of
//! `untangle_testkit::fuzzing::structure` (IR mutants through the LLVM text route, record
//! mutants through the bitcode and container route), one thread, each distinct module checked
//! by `spirv-val`. Reports panics, invalid modules, internal errors and hangs with their case
//! numbers, and the figures: cases, typed errors by kind, valid modules, distinct modules.
//!
//!     cargo run --release -p untangle-testkit --example structure_mutations -- --cases 1000000 --seed 0 [--first N]
//!
//! `--write N FILE` writes case `N`'s input (LLVM text or a container) to `FILE` and
//! names its route and seed, to reproduce a failure with the command line.
//!
//! Runs split by `--first` over several processes cover the same cases as one run. A case
//! running longer than `UNTANGLE_HANG_SECONDS` (default 60) is reported as a hang and the
//! process exits 3; invalid modules, internal errors or panics exit 1. Progress goes to
//! stderr every 10,000 cases.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::structure::{mutant, run_case, Route, Seeds, Validator};
use untangle_testkit::fuzzing::translate::{Outcome, Tally};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (cases, run, first) = (flag("--cases", 10_000), flag("--seed", 0), flag("--first", 0));
    let hang =
        Duration::from_secs(std::env::var("UNTANGLE_HANG_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60));
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let seeds = Seeds::load(&corpus.join("dxil/vkd3d-proton"), &corpus.join("ll/dxc-tests"));
    assert!(!seeds.is_empty(), "no seeds under {}", corpus.display());
    if let Some(k) = args.iter().position(|a| a == "--write") {
        let (n, file) = (args[k + 1].parse().expect("--write N FILE"), &args[k + 2]);
        let (route, seed, bytes) = mutant(&seeds, run, n);
        std::fs::write(file, bytes).expect("writes");
        println!("case {n} of run {run}: {route:?} route, seed {seed}");
        return;
    }
    let val = find_spirv_val().expect("spirv-val is required (tools/test.sh installs it)");
    eprintln!(
        "run {run}, cases {first}..{}: {} text seeds, {} bitcode seeds; {}",
        first + cases,
        seeds.text.len(),
        seeds.bitcode.len(),
        val.version()
    );
    std::panic::set_hook(Box::new(|_| {}));
    // The watchdog: the case in flight (u64::MAX: none) and when it started (ms since start).
    let start = Instant::now();
    let current = AtomicU64::new(u64::MAX);
    let since = AtomicU64::new(0);
    let mut val = Validator::new(Some(val));
    let mut tallies = [Tally::default(), Tally::default()];
    std::thread::scope(|s| {
        let (current, since) = (&current, &since);
        s.spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let i = current.load(Ordering::Relaxed);
            if i == u64::MAX - 1 {
                return;
            }
            let at = Duration::from_millis(since.load(Ordering::Relaxed));
            if i != u64::MAX && start.elapsed().saturating_sub(at) > hang {
                eprintln!("HANG case {i} (run {run}): over {hang:?}");
                std::process::exit(3);
            }
        });
        for i in first..first + cases {
            since.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
            current.store(i, Ordering::Relaxed);
            let (route, outcome, took) = run_case(&seeds, run, i, &mut val);
            match &outcome {
                Err(p) => eprintln!("PANIC case {i} ({route:?}): {p}"),
                Ok(Outcome::Invalid(e)) => eprintln!("INVALID case {i} ({route:?}): {e}"),
                Ok(Outcome::Internal(e)) => eprintln!("INTERNAL case {i} ({route:?}): {e}"),
                _ => {}
            }
            tallies[usize::from(route == Route::Bitcode)].add(i, outcome, took);
            if (i - first + 1) % 10_000 == 0 {
                eprintln!("{} cases, {:?}; next {}", i - first + 1, start.elapsed(), i + 1);
            }
        }
        current.store(u64::MAX - 1, Ordering::Relaxed);
    });
    let mut failed = false;
    for (route, t) in ["text", "bitcode"].iter().zip(&tallies) {
        println!(
            "{route} route: {} cases, {} rejected by the readers, {} typed translation errors {:?}, {} valid modules, {} invalid, {} internal errors, {} panics; slowest case {} ({:?})",
            t.cases,
            t.rejected,
            t.refused_total(),
            t.refused,
            t.valid,
            t.invalid.len(),
            t.internal.len(),
            t.panics.len(),
            t.slowest.0,
            t.slowest.1
        );
        failed |= !(t.invalid.is_empty() && t.internal.is_empty() && t.panics.is_empty());
    }
    println!("{} distinct modules validated; {:?}", val.distinct(), start.elapsed());
    if failed {
        std::process::exit(1);
    }
}
