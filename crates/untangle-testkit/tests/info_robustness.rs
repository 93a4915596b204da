//! Bad input never panics, aborts, exits or hangs `info`: prefix truncations of corpus
//! containers (and of the bitcode inside them, which reaches the bitcode reader: native by
//! default, LLVM with `UNTANGLE_FRONTEND=llvm`) and seeded random
//! mutations of corpus files all give `Ok` or a typed error.
//!
//! `UNTANGLE_MUTATIONS` overrides the mutation count (the long run is documented in
//! `tools/README.md`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use untangle_testkit::fuzzing::mutate::Mutator;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// Load and describe; `Ok(true)` on success, `Ok(false)` on a typed error, `Err` on panic.
fn describe(bytes: Vec<u8>, name: &str) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let loaded = match untangle::front::load_bytes(bytes, name) {
            Ok(l) => l,
            Err(e) => {
                // Display must work for every error.
                assert!(!e.to_string().is_empty());
                return false;
            }
        };
        let container = loaded.container();
        match untangle::info::Info::new(&loaded, container.as_ref()) {
            Ok(info) => {
                let _ = info.render_text();
                let _ = info.to_json();
                true
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                false
            }
        }
    }))
    .map_err(|_| format!("panic on {name}"))
}

const TRUNCATED: [&str; 3] = [
    "dxil/vkd3d-proton/bindless.bindless_cbv.cs_6_0.dxil",
    "dxil/vkd3d-proton/command.conservative_rasterization_ps.ps_6_0.dxil",
    "dxil/vkd3d-proton/bindless.vs_divergent_buffer_index_varying.vs_6_0.dxil",
];

#[test]
fn every_prefix_of_three_containers_and_their_bitcode() {
    let mut errors = 0usize;
    let mut total = 0usize;
    for rel in TRUNCATED {
        let bytes = std::fs::read(corpus().join(rel)).expect("corpus file");
        assert!(describe(bytes.clone(), rel).unwrap(), "{rel} must load whole");
        for len in 0..bytes.len() {
            total += 1;
            if !describe(bytes[..len].to_vec(), rel).unwrap() {
                errors += 1;
            }
        }
        // The container rejects a short file before LLVM sees it; cut the bitcode itself
        // too, so LLVM's reader meets every truncation.
        let bitcode = untangle::front::bitcode_of(&bytes).unwrap().unwrap().to_vec();
        for len in 0..bitcode.len() {
            total += 1;
            if !describe(bitcode[..len].to_vec(), rel).unwrap() {
                errors += 1;
            }
        }
    }
    // Every strict prefix is invalid: no truncated container or bitcode may load.
    assert_eq!(errors, total, "a truncated input loaded successfully");
}

#[test]
fn seeded_mutations_of_corpus_files() {
    let count: usize = std::env::var("UNTANGLE_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in ["dxil/vkd3d-proton", "dxil/dxil-spirv-asm", "cfg/csmith"] {
        let mut files: Vec<_> = std::fs::read_dir(corpus().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        // A spread of small and large files keeps the run short but varied.
        files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        for p in files.iter().step_by(files.len().div_ceil(12).max(1)) {
            seeds.push((p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(p).unwrap()));
        }
    }
    // Raw bitcode from containers: mutations that hit LLVM's reader directly.
    let extra: Vec<(String, Vec<u8>)> = seeds
        .iter()
        .filter_map(|(n, b)| Some((format!("{n}.bc"), untangle::front::bitcode_of(b).ok()??.to_vec())))
        .take(8)
        .collect();
    seeds.extend(extra);
    let donors: Vec<&[u8]> = seeds.iter().map(|(_, b)| b.as_slice()).collect();
    let mut mutator = Mutator::new(0x5eed_1234);
    let (mut ok, mut err) = (0usize, 0usize);
    for i in 0..count {
        let (name, bytes) = &seeds[i % seeds.len()];
        let mutated = mutator.mutate(bytes, &donors);
        match describe(mutated, name) {
            Ok(true) => ok += 1,
            Ok(false) => err += 1,
            Err(p) => panic!("mutation {i}: {p}"),
        }
    }
    eprintln!("{count} mutations: {ok} loaded, {err} typed errors");
    assert_eq!(ok + err, count);
    // The mutator must actually break things, or this test proves nothing.
    assert!(err > count / 4, "only {err} of {count} mutations were rejected");
}
