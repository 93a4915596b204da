//! Heap allocations per stage of `untangle cfg`, counted by a global allocator: the text
//! reader (`load::load_bytes`) and `Cfg::new` of each defined function. Deterministic (no
//! timing), for the working-set figures in BENCHMARKS.md ("Memory, not operations"):
//!
//!     cargo run --release -p untangle-testkit --example gen_shape -- diamonds 25000 > d.ll
//!     cargo run --release -p untangle-testkit --example stage_allocs -- d.ll
//!
//! Prints, per stage, the allocations (`alloc` and `realloc` calls) and the bytes they asked
//! for, and the most bytes live at once during the stage above what was live before it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static CALLS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size(), Relaxed);
        grew(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        grew(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f`, printing its allocations, bytes asked for and peak extra live bytes.
fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let (calls, bytes, live) = (CALLS.load(Relaxed), BYTES.load(Relaxed), LIVE.load(Relaxed));
    PEAK.store(live, Relaxed);
    let out = f();
    let extra_peak = PEAK.load(Relaxed) - live;
    println!(
        "{name:10} allocations {:>10}  bytes asked {:>12}  peak live above start {:>12}",
        CALLS.load(Relaxed) - calls,
        BYTES.load(Relaxed) - bytes,
        extra_peak
    );
    out
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stage_allocs FILE.ll");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let loaded = stage("parse", || untangle::front::load_bytes(bytes, &path)).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let functions: Vec<_> = loaded.module.functions.values().filter(|f| f.entry().is_some()).collect();
    let cfgs = stage("Cfg::new", || functions.iter().map(|f| untangle::cfg::Cfg::new(f)).collect::<Vec<_>>());
    if let Some(Err(e)) = cfgs.iter().find(|c| c.is_err()) {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    }
}
