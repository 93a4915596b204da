//! The long robustness run of the whole translate path: cases `FIRST..FIRST + COUNT` of
//! `untangle_testkit::fuzzing::translate` (mutated vkd3d-proton shaders: container bytes,
//! instruction operands, metadata values) on every core, each module checked by `spirv-val`.
//! Reports panics, invalid modules and hangs with their case numbers (each case is
//! reproducible from its number alone), and the outcome figures for BENCHMARKS.md.
//!
//!     cargo run --release -p untangle-testkit --example translate_mutations -- COUNT [FIRST] [THREADS]
//!
//! A case that runs longer than `UNTANGLE_HANG_SECONDS` (default 60) is reported as a hang
//! and the run stops (exit 3); invalid modules, internal errors or panics exit 1. Progress goes to stderr
//! every 50,000 cases with the next unfinished case, so an interrupted run resumes with
//! `FIRST` set to it.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::translate::{run_case, Outcome, Seeds, Tally};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, default: u64| args.get(k).and_then(|s| s.parse().ok()).unwrap_or(default);
    let count = arg(0, 10_000);
    let first = arg(1, 0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let threads = arg(2, cores).max(1) as usize;
    let hang =
        Duration::from_secs(std::env::var("UNTANGLE_HANG_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let seeds = Seeds::load(&dir);
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    let val = find_spirv_val().expect("spirv-val is required (tools/test.sh installs it)");
    eprintln!("cases {first}..{} over {} seeds on {threads} threads; {}", first + count, seeds.len(), val.version());
    // Panics are counted and reported by case; keep the default hook's output short.
    std::panic::set_hook(Box::new(|_| {}));
    let next = AtomicU64::new(first);
    let done = AtomicU64::new(0);
    let running: Mutex<Vec<Option<(u64, Instant)>>> = Mutex::new(vec![None; threads]);
    let total = Mutex::new(Tally::default());
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (seeds, val, next, done, running, total) = (&seeds, &val, &next, &done, &running, &total);
            s.spawn(move || {
                let mut tally = Tally::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= first + count {
                        break;
                    }
                    running.lock().unwrap()[t] = Some((i, Instant::now()));
                    let (outcome, took) = run_case(seeds, i, Some(val));
                    running.lock().unwrap()[t] = None;
                    if let Err(p) = &outcome {
                        eprintln!("PANIC case {i}: {p}");
                    }
                    match &outcome {
                        Ok(Outcome::Invalid(e)) => eprintln!("INVALID case {i}: {e}"),
                        Ok(Outcome::Internal(e)) => eprintln!("INTERNAL case {i}: {e}"),
                        _ => {}
                    }
                    tally.add(i, outcome, took);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n % 50_000 == 0 {
                        let lowest = running.lock().unwrap().iter().flatten().map(|r| r.0).min().unwrap_or(i);
                        eprintln!(
                            "{n} cases in {:.0?} ({:.0}/s); resume from {lowest}",
                            start.elapsed(),
                            n as f64 / start.elapsed().as_secs_f64()
                        );
                    }
                }
                total.lock().unwrap().merge(tally);
            });
        }
        // The watchdog: a case past the limit is a hang; report it and stop the run.
        s.spawn(|| loop {
            std::thread::sleep(Duration::from_secs(1));
            if done.load(Ordering::Relaxed) >= count {
                return;
            }
            for (i, since) in running.lock().unwrap().iter().flatten() {
                if since.elapsed() > hang {
                    eprintln!("HANG case {i}: running for {:?}", since.elapsed());
                    std::process::exit(3);
                }
            }
        });
    });
    let t = total.into_inner().unwrap();
    let elapsed = start.elapsed();
    println!(
        "cases {first}..{}: {} in {elapsed:.0?} ({:.0} cases/s, {threads} threads)",
        first + count,
        t.cases,
        t.cases as f64 / elapsed.as_secs_f64()
    );
    println!("  rejected before translation (container, bitcode, DXIL metadata): {}", t.rejected);
    println!("  typed translation errors: {} {:?}", t.refused_total(), t.refused);
    println!("  translated, spirv-val clean: {}", t.valid);
    println!("  internal errors: {}", t.internal.len());
    println!("  invalid modules: {}", t.invalid.len());
    println!("  panics: {}", t.panics.len());
    println!("  hangs: 0 (limit {hang:?}); slowest case {} took {:?}", t.slowest.0, t.slowest.1);
    for (i, e) in t.invalid.iter().take(20) {
        println!("  invalid: case {i}: {e}");
    }
    for (i, m) in t.internal.iter().take(20) {
        println!("  internal: case {i}: {m}");
    }
    for (i, p) in t.panics.iter().take(20) {
        println!("  panic: case {i}: {p}");
    }
    if !t.invalid.is_empty() || !t.panics.is_empty() || !t.internal.is_empty() {
        std::process::exit(1);
    }
}
