//! The structurizer's cost: every csmith function of the shared corpus (257), every
//! DXIL shader (273), the unrolled-loop-with-interleaved-breaks pattern for N = 4 … 256,
//! random generated CFGs of about 100, 1,000 and 3,000 blocks, and synthetic shapes of
//! 10k blocks (diamond chains, loop nests, wide switches). Results, with the quality
//! figures (blocks added, ladders, PHIs), are in `BENCHMARKS.md` (`## Structurizer`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use untangle::ir::{Function, Types};
use untangle::passes::{structurize, Options};
use untangle_testkit::fuzzing::structured_gen::{generate, unrolled_interleaved_breaks, ShapeGenConfig};
use untangle_testkit::fuzzing::synthetic::{diamond_chain, loop_nest, wide_switch};

fn run(f: &Function) -> usize {
    structurize(f, Options::default()).expect("structurizes").stats.blocks_added
}

fn corpus_functions(dir: &str, ext: &str) -> Vec<Function> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(dir);
    let mut paths = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).expect("shared corpus").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .flat_map(|p| {
            let m = untangle::front::load_path(p).expect("loads").module;
            m.functions.into_iter().map(|(_, f)| f).filter(|f| !f.is_declaration()).collect::<Vec<_>>()
        })
        .collect()
}

fn corpora(c: &mut Criterion) {
    let mut g = c.benchmark_group("structurize_corpus");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for (name, dir, ext) in [("csmith", "cfg/csmith", "ll"), ("dxil", "dxil", "dxil")] {
        let funcs = corpus_functions(dir, ext);
        g.bench_function(name, |b| b.iter(|| funcs.iter().map(|f| black_box(run(f))).sum::<usize>()));
    }
    g.finish();
}

fn unrolled(c: &mut Criterion) {
    let mut g = c.benchmark_group("structurize_unrolled");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for n in [4usize, 16, 64, 128, 256, 1024, 4096] {
        let f = unrolled_interleaved_breaks(n, &mut Types::default());
        g.bench_with_input(BenchmarkId::from_parameter(n), &f, |b, f| b.iter(|| black_box(run(f))));
    }
    g.finish();
}

fn generated(c: &mut Criterion) {
    let mut g = c.benchmark_group("structurize_generated");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for max_blocks in [100usize, 1_000, 3_000] {
        let config = ShapeGenConfig { max_blocks, ..ShapeGenConfig::default() };
        let mut types = Types::default();
        let funcs: Vec<Function> = (0..10).map(|s| generate(s, &config, &mut types)).collect();
        g.bench_with_input(BenchmarkId::from_parameter(max_blocks), &funcs, |b, fs| {
            b.iter(|| fs.iter().map(|f| black_box(run(f))).sum::<usize>())
        });
    }
    g.finish();
}

#[allow(clippy::type_complexity)]
fn synthetic(c: &mut Criterion) {
    let shapes: [(&str, fn(usize, &mut Types) -> Function); 3] =
        [("diamonds", diamond_chain), ("loop_nest", loop_nest), ("wide_switch", wide_switch)];
    let mut g = c.benchmark_group("structurize_synthetic");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for (name, make) in shapes {
        for n in [1_000usize, 10_000] {
            let f = make(n, &mut Types::default());
            g.bench_with_input(BenchmarkId::new(name, n), &f, |b, f| b.iter(|| black_box(run(f))));
        }
    }
    g.finish();
}

criterion_group!(benches, corpora, unrolled, generated, synthetic);
criterion_main!(benches);
