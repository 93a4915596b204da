//! Translation cost: every compute, pixel and vertex shader of the vkd3d-proton corpus that
//! translates today, from loaded IR to SPIR-V words (structurizer and emission; parsing is
//! `benches/parse.rs`), and the largest of them alone. Results are in `BENCHMARKS.md`
//! (`## Translation`).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use untangle::ir::Module;
use untangle::{translate_module, Options};

fn modules() -> Vec<(String, Module)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut paths: Vec<_> = std::fs::read_dir(dir).expect("shared corpus").flatten().map(|e| e.path()).collect();
    paths.sort();
    let options = Options::default();
    paths
        .into_iter()
        .filter(|p| {
            let n = p.to_string_lossy();
            n.contains(".cs_6_") || n.contains(".ps_6_") || n.contains(".vs_6_")
        })
        .filter_map(|p| {
            let m = untangle::front::load_path(&p).ok()?.module;
            translate_module(&m, &options).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), m))
        })
        .collect()
}

fn translate(c: &mut Criterion) {
    let mods = modules();
    let options = Options::default();
    let words = |m: &Module| translate_module(m, &options).map(|t| t.words.len()).unwrap_or(0);
    let mut g = c.benchmark_group("translate");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    g.bench_function(format!("vkd3d_cs_ps_vs_{}", mods.len()), |b| {
        b.iter(|| mods.iter().map(|(_, m)| black_box(words(m))).sum::<usize>())
    });
    if let Some((name, m)) = mods.iter().max_by_key(|(_, m)| words(m)) {
        g.bench_function(format!("largest_{name}"), |b| b.iter(|| black_box(words(m))));
    }
    g.finish();
}

criterion_group!(benches, translate);
criterion_main!(benches);
