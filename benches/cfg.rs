//! Full CFG analysis (`Cfg::new`: order, dominator and post-dominator trees, reducibility
//! check, loops, reachability; plus both frontiers) on synthetic CFGs of 1k, 10k and 100k
//! blocks (chains of diamonds, deep loop nests, wide switches) and on every csmith
//! function of the shared corpus, and the cost of the O(1) queries. Results and the fitted
//! scaling exponents are in `BENCHMARKS.md` (`## CFG analyses`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use untangle::cfg::Cfg;
use untangle::fuzzing::synthetic::{diamond_chain, loop_nest, wide_switch};
use untangle::ir::{Function, Types};

fn full_analysis(f: &Function) -> usize {
    let cfg = Cfg::new(f).expect("reducible");
    let df = cfg.dominance_frontiers();
    let pdf = cfg.post_dominance_frontiers();
    cfg.rpo().len() + cfg.loops().len() + df.get(cfg.entry()).len() + pdf.get(cfg.entry()).len()
}

type Shape = fn(usize, &mut Types) -> Function;

fn synthetic(c: &mut Criterion) {
    let shapes: [(&str, Shape); 3] = [
        ("diamonds", diamond_chain),
        ("loop_nest", loop_nest),
        ("wide_switch", wide_switch),
    ];
    for (name, make) in shapes {
        let mut g = c.benchmark_group(format!("cfg_full/{name}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        for n in [1_000usize, 10_000, 100_000] {
            let f = make(n, &mut Types::default());
            g.bench_with_input(BenchmarkId::from_parameter(n), &f, |b, f| {
                b.iter(|| black_box(full_analysis(f)))
            });
        }
        g.finish();
    }
}

fn csmith(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/cfg/csmith");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("shared corpus")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    paths.sort();
    let functions: Vec<Function> = paths
        .iter()
        .flat_map(|p| {
            let m = untangle::load::load_path(p).expect("loadable").module;
            m.functions
                .into_iter()
                .map(|(_, f)| f)
                .filter(|f| !f.is_declaration())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(functions.len(), 257);
    let mut g = c.benchmark_group("cfg_full/csmith");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("all_257", |b| {
        b.iter(|| functions.iter().map(full_analysis).sum::<usize>())
    });
    g.finish();
}

fn queries(c: &mut Criterion) {
    let f = diamond_chain(10_000, &mut Types::default());
    let cfg = Cfg::new(&f).expect("reducible");
    let blocks: Vec<_> = cfg.rpo().to_vec();
    let pairs: Vec<_> = (0..4096u64)
        .map(|i| {
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (
                blocks[(x >> 20) as usize % blocks.len()],
                blocks[(x >> 40) as usize % blocks.len()],
            )
        })
        .collect();
    let mut g = c.benchmark_group("cfg_query_4096/diamonds_10k");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("dominates", |b| {
        b.iter(|| pairs.iter().filter(|&&(a, b)| cfg.dominates(a, b)).count())
    });
    g.bench_function("post_dominates", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter(|&&(a, b)| cfg.post_dominates(a, b))
                .count()
        })
    });
    g.bench_function("reaches_dense", |b| {
        b.iter(|| pairs.iter().filter(|&&(a, b)| cfg.reaches(a, b)).count())
    });
    let big = diamond_chain(100_000, &mut Types::default());
    let big_cfg = Cfg::new(&big).expect("reducible");
    let bb: Vec<_> = big_cfg.rpo().to_vec();
    let big_pairs: Vec<_> = pairs
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let x = (i as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
            (
                bb[(x >> 20) as usize % bb.len()],
                bb[(x >> 40) as usize % bb.len()],
            )
        })
        .collect();
    g.bench_function("reaches_intervals_100k", |b| {
        b.iter(|| {
            big_pairs
                .iter()
                .filter(|&&(a, b)| big_cfg.reaches(a, b))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, synthetic, csmith, queries);
criterion_main!(benches);
