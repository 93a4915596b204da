//! Parse time of the 267 vkd3d-proton shaders: the LLVM 14 front end and the native reader.
//!
//! `native`: container + native bitcode reader (`untangle::front::parse_bitcode`) into our IR, the same
//! module `llvm_trusted` builds. `native_load`: `untangle::front` with the native reader (what
//! every load now pays; no trial child is needed). `native_info`: that plus the DXIL layer.
//!
//! `llvm_trusted`: container + LLVM parse + verify + conversion into our IR, in-process.
//! `llvm_isolated`: the same plus the forked trial parse every untrusted load pays
//! (`untangle::front`). `info`: isolated load plus the DXIL semantic layer.
//! Results go to `BENCHMARKS.md`.
//!
//! `parse_ll_*`: LLVM text of the DXC tests (285 files, 2.3 MB) and the csmith corpus (257
//! files, 47 MB) into our IR: `lltext_native` is the native text reader
//! (`untangle::front::parse_text`), `llvm_trusted` LLVM 14's text parser + verifier + conversion
//! in-process, `llvm_isolated` that plus the forked trial parse (`untangle::front` with
//! `UNTANGLE_FRONTEND=llvm`). Same inputs, same run, side by side.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
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
                let bc = untangle::front::bitcode_of(bytes).unwrap().unwrap();
                let m = untangle::front::parse_bitcode(bc, name, untangle::front::FrontEnd::LlvmInProcess).unwrap();
                std::hint::black_box(m);
            }
        })
    });
    g.bench_function("llvm_isolated", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let l = untangle::front::load_bytes_with(bytes.clone(), name, untangle::front::FrontEnd::Llvm);
                std::hint::black_box(l.unwrap());
            }
        })
    });
    g.bench_function("info", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let l = untangle::front::load_bytes_with(bytes.clone(), name, untangle::front::FrontEnd::Llvm).unwrap();
                std::hint::black_box(untangle::dxil::analyze(&l.module).unwrap());
            }
        })
    });
    g.bench_function("native", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let bc = untangle::front::bitcode_of(bytes).unwrap().unwrap();
                std::hint::black_box(
                    untangle::front::parse_bitcode(bc, name, untangle::front::FrontEnd::Native).unwrap(),
                );
            }
        })
    });
    g.bench_function("native_load", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let l = untangle::front::load_bytes_with(bytes.clone(), name, untangle::front::FrontEnd::Native);
                std::hint::black_box(l.unwrap());
            }
        })
    });
    g.bench_function("native_info", |b| {
        b.iter(|| {
            for (name, bytes) in &files {
                let l =
                    untangle::front::load_bytes_with(bytes.clone(), name, untangle::front::FrontEnd::Native).unwrap();
                std::hint::black_box(untangle::dxil::analyze(&l.module).unwrap());
            }
        })
    });
    g.finish();
}

fn ll_corpus(sub: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(sub);
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("shared corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    v.sort();
    v
}

fn bench_text(c: &mut Criterion) {
    for (group, sub, count) in
        [("parse_ll_dxc_tests_285", "ll/dxc-tests", 285), ("parse_ll_csmith_257", "cfg/csmith", 257)]
    {
        let files = ll_corpus(sub);
        assert_eq!(files.len(), count);
        let mut g = c.benchmark_group(group);
        g.sample_size(10);
        g.bench_function("lltext_native", |b| {
            b.iter(|| {
                for (name, text) in &files {
                    std::hint::black_box(
                        untangle::front::parse_text(text.as_bytes(), name, untangle::front::FrontEnd::Native).unwrap(),
                    );
                }
            })
        });
        g.bench_function("llvm_trusted", |b| {
            b.iter(|| {
                for (name, text) in &files {
                    let m =
                        untangle::front::parse_text(text.as_bytes(), name, untangle::front::FrontEnd::LlvmInProcess)
                            .unwrap();
                    std::hint::black_box(m);
                }
            })
        });
        g.bench_function("llvm_isolated", |b| {
            b.iter(|| {
                for (name, text) in &files {
                    let l = untangle::front::load_bytes_with(
                        text.clone().into_bytes(),
                        name,
                        untangle::front::FrontEnd::Llvm,
                    );
                    std::hint::black_box(l.unwrap());
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench, bench_text);
criterion_main!(benches);
