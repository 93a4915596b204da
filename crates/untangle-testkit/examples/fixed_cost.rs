//! The fixed cost of one translation from an already-parsed module, as vkd3d-proton's
//! shadow counters time it through `crates/untangle-dxil-spirv` (`untangle_path.rs`): the
//! container is parsed once ([`untangle::Shader::parse_for_translation`]), then
//! [`untangle::Shader::translate`] runs N times (structurizer + emission), with the options
//! that path always sets (entry point `main`, vkd3d-proton's sampler-feedback encoding).
//!
//!     cargo build --release -p untangle-testkit --example fixed_cost
//!     target/release/examples/fixed_cost FILE.dxil [N]
//!     valgrind --tool=callgrind target/release/examples/fixed_cost FILE.dxil 100
//!
//! Prints the best and mean time of one translation, and the heap allocations (`alloc` and
//! `realloc` calls, counted by a global allocator) and bytes asked for per translation.
//! Small shaders: their time is mostly per-module setup, which this isolates.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

struct Counting;

static CALLS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size(), Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size, Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: fixed_cost FILE.dxil [N]");
        std::process::exit(2);
    };
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000).max(1);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let shader = untangle::Shader::parse_for_translation(bytes, &path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let options = untangle::Options {
        entry_point_name: Some("main".into()),
        sampler_feedback: Some(untangle::SamplerFeedbackEncoding::Vkd3dProton),
        ..Default::default()
    };
    let (calls, asked) = (CALLS.load(Relaxed), BYTES.load(Relaxed));
    let mut best = f64::INFINITY;
    let started = Instant::now();
    let mut words = 0;
    for _ in 0..n {
        let t = Instant::now();
        match shader.translate(&options) {
            Ok(tr) => words = tr.words.len(),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mean = started.elapsed().as_secs_f64() / n as f64;
    println!(
        "{path}: {words} words; best {:.1} µs, mean {:.1} µs; per translation {} allocations, {} bytes asked",
        best * 1e6,
        mean * 1e6,
        (CALLS.load(Relaxed) - calls) / n,
        (BYTES.load(Relaxed) - asked) / n
    );
}
