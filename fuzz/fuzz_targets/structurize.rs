//! Structurize random reducible CFGs and check the result: SPIR-V structured control-flow
//! rules and trace equivalence with the input (graph level and through the shape module).
//!
//! The input bytes are a seed (the first 8, little-endian) and a generator config (the rest,
//! through `ShapeGenConfig::from_bytes`: sizes, statement weights and feature chances), so
//! libFuzzer mutates *which kinds* of CFG get generated as well as the seed. The CFGs come
//! from `untangle_testkit::fuzzing::structured_gen::generate`: nested loops, if/else ladders,
//! switches with fall-through and shared targets, multi-level break/continue, returns and
//! infinite loops, unrolled loops with interleaved breaks, forward gotos, PHIs.
//!
//! A crash reproduces without the fuzzer: the seed and config are printed, and
//! `structured_gen::to_llvm_text` of the generated function is a `.ll` file the CLI reads.

#![no_main]

use libfuzzer_sys::fuzz_target;
use untangle::ir::Types;
use untangle_testkit::fuzzing::structured_gen::{generate, to_llvm_text, ShapeGenConfig};

fuzz_target!(|data: &[u8]| {
    let mut seed_bytes = [0u8; 8];
    let n = data.len().min(8);
    seed_bytes[..n].copy_from_slice(&data[..n]);
    let seed = u64::from_le_bytes(seed_bytes);
    let config = ShapeGenConfig::from_bytes(data.get(8..).unwrap_or(&[]));
    let mut types = Types::default();
    let func = generate(seed, &config, &mut types);

    let report = |what: &str| -> ! {
        panic!(
            "{what}\nseed {seed:#018x}, config {config:?}\n--- generated function ---\n{}",
            to_llvm_text(&func, &types)
        )
    };

    // The generator only produces reducible, well-formed functions: any failure of the
    // whole shape check (structurize, structured rules, graph-level and SPIR-V trace
    // equivalence on 16 decision streams) is a bug.
    let mut module = untangle::ir::Module { types: types.clone(), ..Default::default() };
    module.functions.push(func.clone());
    if let Err(e) = untangle_testkit::check::shape_check::check_module(&module, 16, seed, None) {
        report(&format!("{e}"));
    }
});
