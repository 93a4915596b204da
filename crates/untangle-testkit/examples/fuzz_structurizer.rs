//! The long structurizer run (`tools/README.md`): generate random reducible CFGs with
//! `fuzzing::structured_gen`, and put each through the whole shape check (structurize,
//! structured rules, graph-level and SPIR-V trace equivalence); every `BATCH` functions are
//! emitted as one module and validated with `spirv-val` when it is installed. Failing
//! functions are written to `target/fuzz-failures/SEED.ll`.
//!
//! usage: fuzz_structurizer [CASES] [FIRST_SEED] [STREAMS] [THREADS]

use std::sync::atomic::{AtomicUsize, Ordering};
use untangle::ir::Module;
use untangle_testkit::check::shape_check::{check_module, check_module_with};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::structured_gen::{generate, to_llvm_text, ShapeGenConfig};

const BATCH: u64 = 200;

/// The size class of case `seed`: mostly small functions, some large ones.
fn config_for(seed: u64) -> ShapeGenConfig {
    let mut c = ShapeGenConfig::default();
    match seed % 10 {
        0 => c.max_blocks = 600,
        1..=3 => c.max_blocks = 40,
        _ => {}
    }
    c
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("number")).collect();
    let cases = args.first().copied().unwrap_or(10_000);
    let first = args.get(1).copied().unwrap_or(0);
    let streams = args.get(2).copied().unwrap_or(50) as usize;
    let threads = args.get(3).copied().unwrap_or(2);
    // The passes' self-checks (`passes::Options::verify`), on request: they slow the run.
    let verify = std::env::var_os("UNTANGLE_VERIFY_INCREMENTAL").is_some();
    let validator = find_spirv_val();
    if validator.is_none() {
        eprintln!("spirv-val not found: modules are not validated");
    }
    let failures = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let blocks = AtomicUsize::new(0);
    let added = AtomicUsize::new(0);
    let start = std::time::Instant::now();
    let batches = cases.div_ceil(BATCH);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (failures, done, blocks, added, validator) = (&failures, &done, &blocks, &added, validator.as_ref());
            scope.spawn(move || {
                let mut batch = t;
                while batch < batches {
                    let lo = first + batch * BATCH;
                    let hi = (lo + BATCH).min(first + cases);
                    // One module per batch for spirv-val; each function checked on its own first.
                    let mut module = Module::default();
                    for seed in lo..hi {
                        let func = generate(seed, &config_for(seed), &mut module.types);
                        let mut single = Module { types: module.types.clone(), ..Module::default() };
                        single.functions.push(func.clone());
                        match check_module_with(&single, streams, seed, None, verify) {
                            Ok(s) => {
                                blocks.fetch_add(s.stats.original_blocks, Ordering::Relaxed);
                                added.fetch_add(s.stats.blocks_added, Ordering::Relaxed);
                                module.functions.push(func);
                            }
                            Err(e) => {
                                failures.fetch_add(1, Ordering::Relaxed);
                                let dir = std::path::Path::new("target/fuzz-failures");
                                let _ = std::fs::create_dir_all(dir);
                                let path = dir.join(format!("{seed}.ll"));
                                let _ = std::fs::write(&path, to_llvm_text(&func, &single.types));
                                eprintln!("seed {seed}: {e}\n  saved {}", path.display());
                            }
                        }
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    if validator.is_some() && !module.functions.is_empty() {
                        if let Err(e) = check_module(&module, 1, lo, validator) {
                            failures.fetch_add(1, Ordering::Relaxed);
                            eprintln!("batch {lo}..{hi}: {e}");
                        }
                    }
                    let n = done.load(Ordering::Relaxed);
                    if batch % 50 == 0 {
                        eprintln!("{n} cases, {} failures, {:.0?}", failures.load(Ordering::Relaxed), start.elapsed());
                    }
                    batch += threads;
                }
            });
        }
    });
    println!(
        "{} cases (seeds {first}..{}), {streams} streams each: {} failures; {} original blocks, {} added; {:.1?}",
        done.load(Ordering::Relaxed),
        first + cases,
        failures.load(Ordering::Relaxed),
        blocks.load(Ordering::Relaxed),
        added.load(Ordering::Relaxed),
        start.elapsed()
    );
    if failures.load(Ordering::Relaxed) > 0 {
        std::process::exit(1);
    }
}
