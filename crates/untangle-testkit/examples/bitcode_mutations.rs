//! Long robustness run of the native bitcode reader: N seeded mutations (default 100,000)
//! of the bitcode of every corpus DXIL file, plus every prefix truncation with
//! `--truncations`. Each input is read, and if accepted dumped and analysed
//! (`untangle_testkit::fuzzing::bitcode::exercise`). Reports typed errors vs. clean reads, the
//! slowest input, and the peak heap use of any single input (a counting global allocator),
//! so an unbounded allocation would show up as a number, not just as a crash.
//!
//!     cargo run --release -p untangle-testkit --example bitcode_mutations -- 100000 [seed] [--truncations]
//!     cargo run --release -p untangle-testkit --example bitcode_mutations -- --export-seeds fuzz/corpus/bitcode

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use untangle_testkit::fuzzing::bitcode::{corpus_bitcode, exercise, Outcome};
use untangle_testkit::fuzzing::mutate::Mutator;

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

struct Stats {
    read: usize,
    rejected: usize,
    slowest: Duration,
    peak: usize,
    peak_ratio: f64,
}

impl Stats {
    fn run(&mut self, bc: &[u8], what: &dyn Fn() -> String) {
        let base = CURRENT.load(Relaxed);
        PEAK.store(base, Relaxed);
        let t = Instant::now();
        match catch_unwind(AssertUnwindSafe(|| exercise(bc))) {
            Ok(Outcome::Read) => self.read += 1,
            Ok(Outcome::Rejected) => self.rejected += 1,
            Err(_) => {
                eprintln!("PANIC on {}", what());
                std::process::exit(1);
            }
        }
        self.slowest = self.slowest.max(t.elapsed());
        let used = PEAK.load(Relaxed).saturating_sub(base);
        self.peak = self.peak.max(used);
        self.peak_ratio = self.peak_ratio.max(used as f64 / bc.len().max(1) as f64);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--export-seeds") {
        // Raw bitcode of every corpus file, as seeds for `cargo fuzz run bitcode`.
        let dir = Path::new(args.get(1).map(String::as_str).unwrap_or("fuzz/corpus/bitcode")).to_path_buf();
        let files = corpus_bitcode(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil"));
        std::fs::create_dir_all(&dir).expect("seed directory");
        for (name, bc) in &files {
            std::fs::write(dir.join(format!("{name}.bc")), bc).expect("write seed");
        }
        println!("{} seeds in {}", files.len(), dir.display());
        return;
    }
    let count: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0xb17c_0de5);
    let truncations = args.iter().any(|a| a == "--truncations");
    let files = corpus_bitcode(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil"));
    let donors: Vec<&[u8]> = files.iter().map(|(_, b)| b.as_slice()).collect();
    let start = Instant::now();
    if truncations {
        let mut s = Stats { read: 0, rejected: 0, slowest: Duration::ZERO, peak: 0, peak_ratio: 0.0 };
        for (name, bc) in &files {
            for len in 0..bc.len() {
                s.run(&bc[..len], &|| format!("{name} truncated to {len}"));
            }
        }
        println!(
            "{} files, {} truncations: {} read, {} typed errors; slowest {:?}; peak heap {} bytes ({:.0}x input)",
            files.len(),
            s.read + s.rejected,
            s.read,
            s.rejected,
            s.slowest,
            s.peak,
            s.peak_ratio
        );
    }
    let mut mutator = Mutator::new(seed);
    let mut s = Stats { read: 0, rejected: 0, slowest: Duration::ZERO, peak: 0, peak_ratio: 0.0 };
    for i in 0..count {
        let (name, bc) = &files[i % files.len()];
        let m = mutator.mutate(bc, &donors);
        s.run(&m, &|| format!("mutation {i} (seed {seed}) of {name}"));
    }
    println!(
        "{count} mutations (seed {seed}): {} read, {} typed errors, 0 panics; slowest {:?}; peak heap of one input {} bytes ({:.0}x its size); {:.1} s",
        s.read,
        s.rejected,
        s.slowest,
        s.peak,
        s.peak_ratio,
        start.elapsed().as_secs_f64()
    );
}
