//! Corpus compute shaders with known answers on a real Vulkan driver (lavapipe in CI,
//! any device with `UNTANGLE_VK_DEVICE`): every case of `untangle::vulkan::corpus`
//! translated, dispatched with its inputs and compared with its CPU-derived expectation.
//! Cases whose features the device lacks are skipped (and reported); every other case
//! must pass. A perturbed expectation must be caught.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::path::Path;
use std::time::{Duration, Instant};
use untangle::vulkan::corpus::{cases, compare, run_spec, DefaultPlacement, Outcome, Want};
use untangle::vulkan::{Gpu, VkError};

const CORPUS: &str = "../shared/corpus/dxil/vkd3d-proton";
const TIMEOUT: Duration = Duration::from_secs(120);
/// Cases in the library; the test fails if one is dropped by accident.
const CASES: usize = 40;

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    let required = std::env::var("UNTANGLE_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    match Gpu::open() {
        Ok(gpu) => {
            println!("{test}: Vulkan {}; {:?}", gpu.info(), gpu.info().features);
            Some(gpu)
        }
        Err(e @ (VkError::NoLoader(_) | VkError::NoDevice(_))) if !required => {
            println!("{test}: skipped: {e}");
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

#[test]
fn corpus_cases_pass() {
    let Some(mut gpu) = gpu_or_skip("corpus_cases_pass") else { return };
    let all = cases();
    assert_eq!(all.len(), CASES, "corpus case count");
    let start = Instant::now();
    let (mut passed, mut skipped, mut failed) = (0, Vec::new(), Vec::new());
    for case in &all {
        let r = untangle::vulkan::corpus::run_case(&mut gpu, case, Path::new(CORPUS), &DefaultPlacement, TIMEOUT);
        println!("{:40} {:>8.1?} {:?}", r.name, r.wall, r.outcome);
        match r.outcome {
            Outcome::Pass => passed += 1,
            Outcome::Skipped(why) => skipped.push(format!("{}: {why}", r.name)),
            Outcome::Fail(e) => failed.push(format!("{}: {e}", r.name)),
        }
    }
    println!(
        "{passed} passed, {} skipped, {} failed in {:.1?}",
        skipped.len(),
        failed.len(),
        start.elapsed()
    );
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
    assert_eq!(passed + skipped.len(), CASES);
}

/// A wrong expected word and a perturbed input are both detected.
#[test]
fn corpus_mismatch_is_caught() {
    let Some(mut gpu) = gpu_or_skip("corpus_mismatch_is_caught") else {
        return;
    };
    let case = cases().into_iter().find(|c| c.name == "msad").expect("msad case");
    let bytes = std::fs::read(Path::new(CORPUS).join(case.file)).expect("corpus file");
    let features = gpu.info().features.clone();
    let spec = (case.spec)(&features);
    run_spec(&mut gpu, &bytes, &spec, &DefaultPlacement, TIMEOUT).expect("the unperturbed case passes");
    // A wrong expectation.
    let mut wrong = spec.clone();
    if let Some(Want::Eq(v)) = wrong.expect[0].1.get_mut(5) {
        *v ^= 1;
    }
    let err = run_spec(&mut gpu, &bytes, &wrong, &DefaultPlacement, TIMEOUT).expect_err("a wrong expectation must fail");
    assert!(err.contains("[5]"), "{err}");
    // A perturbed input (one byte of the reference of element 1).
    let mut perturbed = spec.clone();
    if let untangle::vulkan::corpus::Kind::Buffer(b) = &mut perturbed.resources[0].kind {
        b[16] ^= 0x40;
    }
    assert!(
        run_spec(&mut gpu, &bytes, &perturbed, &DefaultPlacement, TIMEOUT).is_err(),
        "a perturbed input must fail"
    );
    // The comparison itself.
    assert!(compare(untangle::vulkan::corpus::u(0, 0), &[1, 0, 0, 0], &[Want::Eq(2)]).is_err());
}
