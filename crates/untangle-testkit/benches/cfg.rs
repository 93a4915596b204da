//! Full CFG analysis (`Cfg::new`: order, dominator and post-dominator trees, reducibility
//! check, loops; plus both frontiers) on synthetic CFGs of 1k, 10k and 100k blocks (chains
//! of diamonds, deep loop nests, wide switches) and on every csmith function of the shared
//! corpus; and the cost of the O(1) dominance queries. Results and the fitted scaling
//! exponents are in `BENCHMARKS.md` (`## CFG analyses`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use untangle::cfg::Cfg;
use untangle::ir::{BlockId, Function, Types};
use untangle_testkit::fuzzing::synthetic::{diamond_chain, loop_nest, wide_switch};

fn full_analysis(f: &Function) -> usize {
    let cfg = Cfg::new(f).expect("reducible");
    let df = cfg.dominance_frontiers();
    let pdf = cfg.post_dominance_frontiers();
    cfg.rpo().len() + cfg.loops().len() + df.get(cfg.entry()).len() + pdf.get(cfg.entry()).len()
}

type Shape = fn(usize, &mut Types) -> Function;

fn synthetic(c: &mut Criterion) {
    let shapes: [(&str, Shape); 3] =
        [("diamonds", diamond_chain), ("loop_nest", loop_nest), ("wide_switch", wide_switch)];
    for (name, make) in shapes {
        let mut g = c.benchmark_group(format!("cfg_full/{name}"));
        g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        for n in [1_000usize, 10_000, 100_000] {
            let f = make(n, &mut Types::default());
            g.bench_with_input(BenchmarkId::from_parameter(n), &f, |b, f| b.iter(|| black_box(full_analysis(f))));
        }
        g.finish();
    }
}

fn csmith(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/cfg/csmith");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("shared corpus")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    paths.sort();
    let functions: Vec<Function> = paths
        .iter()
        .flat_map(|p| {
            let m = untangle::front::load_path(p).expect("loadable").module;
            m.functions.into_iter().map(|(_, f)| f).filter(|f| !f.is_declaration()).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(functions.len(), 257);
    let mut g = c.benchmark_group("cfg_full/csmith");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.bench_function("all_257", |b| b.iter(|| functions.iter().map(full_analysis).sum::<usize>()));
    g.finish();
}

fn random_pairs(cfg: &Cfg, salt: u64) -> Vec<(BlockId, BlockId)> {
    let blocks = cfg.rpo();
    (0..4096u64)
        .map(|i| {
            let x = (i + salt).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let pick = |shift: u32| blocks[(x >> shift) as usize % blocks.len()];
            (pick(20), pick(40))
        })
        .collect()
}

/// 4096 random queries per iteration.
fn queries(c: &mut Criterion) {
    let mut g = c.benchmark_group("cfg_query_4096");
    g.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    for n in [4_000usize, 100_000] {
        let f = diamond_chain(n, &mut Types::default());
        let cfg = Cfg::new(&f).expect("reducible");
        let pairs = random_pairs(&cfg, n as u64);
        g.bench_function(format!("dominates/diamonds_{n}"), |b| {
            b.iter(|| pairs.iter().filter(|&&(x, y)| cfg.dominates(x, y)).count())
        });
        g.bench_function(format!("post_dominates/diamonds_{n}"), |b| {
            b.iter(|| pairs.iter().filter(|&&(x, y)| cfg.post_dominates(x, y)).count())
        });
    }
    g.finish();
}

criterion_group!(benches, synthetic, csmith, queries);
criterion_main!(benches);
