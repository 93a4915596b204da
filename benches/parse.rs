//! Parse time of the 267 vkd3d-proton shaders through the LLVM 14 front end.
//!
//! `llvm_trusted`: container + LLVM parse + verify + conversion into our IR, in-process.
//! `llvm_isolated`: the same plus the forked trial parse every untrusted load pays
//! (`untangle::load`). `info`: isolated load plus the DXIL semantic layer.
//! Results go to `BENCHMARKS.md`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dxil/vkd3d-proton");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("shared corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dxil"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    assert_eq!(files.len(), 267);
    let mut g = c.benchmark_group("parse_vkd3d_proton_267");
    g.sample_size(10);
    g.bench_function("llvm_trusted", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let bc = untangle::load::bitcode_of(bytes).unwrap().unwrap();
                let m = untangle::llvm::parse_trusted(bc, untangle::llvm::Syntax::Bitcode, name).unwrap();
                std::hint::black_box(m);
            }
        })
    });
    g.bench_function("llvm_isolated", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                std::hint::black_box(untangle::load::load_bytes(bytes.clone(), name).unwrap());
            }
        })
    });
    g.bench_function("info", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let l = untangle::load::load_bytes(bytes.clone(), name).unwrap();
                std::hint::black_box(untangle::dxil::analyze(&l.module).unwrap());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
