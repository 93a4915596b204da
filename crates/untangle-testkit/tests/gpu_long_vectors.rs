//! Differential execution of generated long-vector programs (issue 34, item 6): Shader
//! Model 6.9 native vectors of 2 to 64 lanes and the DXIL 1.9 vector operations
//! ([`shader_gen::generate_with`] under [`Config::long_vectors`]), each run by the DXIL
//! interpreter and as translated SPIR-V on the Vulkan device, every UAV word compared; and
//! deliberately broken lowerings that the runs must catch.
//!
//! The number of programs is [`CI_PROGRAMS`] unless `UNTANGLE_LONG_VECTOR_PROGRAMS` says
//! more (the H200 run uses 2,000 or more). Skips without a device unless
//! `UNTANGLE_REQUIRE_VULKAN=1`.

use std::time::Duration;
use untangle_testkit::difftest::gpu::run_generated_with;
use untangle_testkit::difftest::sabotage::Sabotage;
use untangle_testkit::fuzzing::shader_gen::{self, Config};
use untangle_testkit::vulkan::open_or_skip;

const TIMEOUT: Duration = Duration::from_secs(60);
/// Programs of the CI run (lavapipe).
const CI_PROGRAMS: u64 = 200;
const LONG: Config = Config { long_vectors: true };

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

/// The seeds of the run: `UNTANGLE_LONG_VECTOR_PROGRAMS` programs (default
/// [`CI_PROGRAMS`]) from `UNTANGLE_LONG_VECTOR_FIRST` (default 0).
fn programs() -> std::ops::Range<u64> {
    let first = env_u64("UNTANGLE_LONG_VECTOR_FIRST", 0);
    first..first + env_u64("UNTANGLE_LONG_VECTOR_PROGRAMS", CI_PROGRAMS)
}

/// [`programs`] generated long-vector programs, 2 inputs each: every one translates, the
/// interpreter runs every one, none differs, and at least 85% compare something (the rest
/// steer control flow by a value D3D leaves undefined: indeterminate).
#[test]
fn generated_long_vector_differential() {
    let Some(mut gpu) = open_or_skip("gpu_long_vectors") else { return };
    let seeds = programs();
    let n = seeds.end - seeds.start;
    let started = std::time::Instant::now();
    let s = run_generated_with(&mut gpu, LONG, seeds, 2, TIMEOUT, None, |_, line| {
        if !line.starts_with("pass") {
            println!("{line}");
        }
    });
    println!(
        "{} long-vector programs on {}: {} passed, {} indeterminate, {} untranslated, {} left out, {} failed, {} words \
         compared, {:.1?}",
        s.programs,
        gpu.info(),
        s.passed,
        s.indeterminate,
        s.untranslated.len(),
        s.left_out.len(),
        s.failed.len(),
        s.words_compared,
        started.elapsed()
    );
    assert!(s.untranslated.is_empty(), "untranslated: {:?}", &s.untranslated[..s.untranslated.len().min(5)]);
    assert!(s.left_out.is_empty(), "left out: {:?}", &s.left_out[..s.left_out.len().min(5)]);
    assert!(s.failed.is_empty(), "mismatches: {:?}", &s.failed[..s.failed.len().min(5)]);
    assert!(s.passed * 100 >= n * 85, "only {} of {n} programs compared anything", s.passed);
}

/// Broken lowerings fail the long-vector programs: the lanes of built vectors and arrays
/// in the wrong order, and swapped subtraction operands (per lane).
#[test]
fn broken_long_vector_lowerings_are_caught() {
    let Some(mut gpu) = open_or_skip("gpu_long_vectors") else { return };
    for sabotage in [Sabotage::SwapLanes, Sabotage::SwapSub] {
        let s = run_generated_with(&mut gpu, LONG, 0..20, 2, TIMEOUT, Some(sabotage), |_, _| {});
        println!("{}: {} of 20 long-vector programs fail", sabotage.name(), s.failed.len());
        assert!(s.failed.len() >= 5, "{}: the long-vector programs miss it", sabotage.name());
    }
}

/// The generator is deterministic, and the modes differ.
#[test]
fn long_vector_generation_is_deterministic() {
    for seed in [0, 7, 1234] {
        let a = shader_gen::dump(&shader_gen::generate_with(seed, LONG));
        assert_eq!(a, shader_gen::dump(&shader_gen::generate_with(seed, LONG)));
        assert_ne!(a, shader_gen::dump(&shader_gen::generate(seed)));
    }
}
