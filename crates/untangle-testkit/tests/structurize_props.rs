//! Property tests of the structurizer on random reducible CFGs from
//! `fuzzing::structured_gen` (nested loops, multi-level breaks and continues, returns in
//! loops, infinite loops, switches with fall-through and shared targets, PHIs, unrolled
//! loops with interleaved breaks). 5,000 cases per run from a fixed seed; each goes through
//! the whole shape check: structured rules, graph-level and SPIR-V trace equivalence.
//! `spirv-val` checks the same functions in modules of 200 (one process per module).
//! The long run (10^6 cases) is `examples/fuzz_structurizer.rs`, see `tools/README.md`.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use untangle::ir::Module;
use untangle_testkit::check::shape_check::{check_module, check_module_with};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::structured_gen::{
    generate, to_llvm_text, unrolled_interleaved_breaks, unrolled_interleaved_breaks_in_loop, ShapeGenConfig,
};

const CASES: u32 = 5_000;
const STREAMS: usize = 20;

fn config(size: u8) -> ShapeGenConfig {
    let max_blocks = match size {
        0 => 12,
        1 => 40,
        2 => 120,
        _ => 400,
    };
    ShapeGenConfig { max_blocks, ..ShapeGenConfig::default() }
}

fn single(seed: u64, size: u8) -> Module {
    let mut m = Module::default();
    let f = generate(seed, &config(size), &mut m.types);
    m.functions.push(f);
    m
}

#[test]
fn random_cfgs_structurize_and_trace_like_the_input() {
    // Also check the passes' incremental bookkeeping (the loop forest against the body
    // walks, the selection pass's patched region trees) against recomputation.
    let mut runner = TestRunner::new_with_rng(
        Config { cases: CASES, failure_persistence: None, ..Config::default() },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let result = runner.run(&(any::<u64>(), 0u8..4), |(seed, size)| {
        let m = single(seed, size);
        if let Err(e) = check_module_with(&m, STREAMS, seed, None, true) {
            let f = m.functions.values().next().unwrap();
            let text = to_llvm_text(f, &m.types);
            return Err(TestCaseError::fail(format!("seed {seed} size {size}: {e}\n{text}")));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn random_cfg_modules_pass_spirv_val() {
    let Some(validator) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        eprintln!("spirv-val not found; skipped");
        return;
    };
    for batch in 0..5u64 {
        let mut m = Module::default();
        for i in 0..200u64 {
            let seed = 1_000_000 + batch * 200 + i;
            let f = generate(seed, &config((i % 4) as u8), &mut m.types);
            m.functions.push(f);
        }
        if let Err(e) = check_module(&m, 2, batch, Some(&validator)) {
            panic!("batch {batch}: {e}");
        }
    }
}

/// The pattern DXC emits for `[unroll]` loops with breaks: the structurizer must add O(N)
/// blocks and stay correct at every size the benchmark measures.
#[test]
fn unrolled_interleaved_breaks_add_linear_blocks() {
    let mut added = Vec::new();
    for n in [4usize, 16, 64, 128, 256] {
        for in_loop in [false, true] {
            let mut m = Module::default();
            let f = if in_loop {
                unrolled_interleaved_breaks_in_loop(n, &mut m.types)
            } else {
                unrolled_interleaved_breaks(n, &mut m.types)
            };
            m.functions.push(f);
            let s =
                check_module(&m, 50, n as u64, find_spirv_val().as_ref()).unwrap_or_else(|e| panic!("N = {n}: {e}"));
            if !in_loop {
                added.push((n, s.stats.blocks_added, s.stats.original_blocks));
            }
        }
    }
    eprintln!("unrolled: (N, added, original) {added:?}");
    for &(n, a, o) in &added {
        // Linear: a bounded number of added blocks per iteration (the pattern has 5
        // conditional exits per iteration).
        assert!(a <= 6 * n + 8, "N = {n}: {a} blocks added to {o}");
    }
}
