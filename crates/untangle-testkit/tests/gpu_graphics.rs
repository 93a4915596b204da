//! Corpus graphics pipelines with expected pixels on a real Vulkan driver (lavapipe in CI,
//! any device with `UNTANGLE_VK_DEVICE`): every case of
//! `untangle_testkit::vulkan::graphics_cases`, each stage translated on its own, drawn
//! offscreen and compared with pixels derived from the shaders (docs/graphics-runner.md).
//! Skipped cases (device features) and known failures are printed; every other case must
//! pass. Two self-checks: a perturbed expected pixel and a swapped `Location` (the vertex
//! shader's outputs moved by the remapping hook, the pixel shader left alone) both fail.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::path::Path;
use untangle::{IoLocation, IoRemap, Options};
use untangle_testkit::vulkan::graphics_cases::{cases, run_case, stage_of, Outcome, Tweak};
use untangle_testkit::vulkan::{Gpu, VkError};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
/// Pipelines in the library; the test fails if one is dropped by accident.
const CASES: usize = 22;
/// Pipelines that must run and pass (lavapipe: 21; `vs_ps_sample_coverage` is a known failure).
const MIN_PASSED: usize = 21;

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    let required = std::env::var("UNTANGLE_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    match Gpu::open() {
        Ok(gpu) => {
            println!("{test}: Vulkan {}", gpu.info());
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
fn corpus_pipelines_render_the_expected_pixels() {
    let Some(mut gpu) = gpu_or_skip("corpus_pipelines_render_the_expected_pixels") else { return };
    let all = cases();
    assert_eq!(all.len(), CASES, "graphics case count");
    // The acceptance's shape: at least 3 tessellation and 3 geometry pipelines, the rest
    // vertex + pixel.
    let with = |s: &str| all.iter().filter(|c| c.files.iter().any(|f| stage_of(f) == Some(s))).count();
    assert!(with("hs") >= 3 && with("ds") >= 3 && with("gs") >= 3, "hs {} gs {}", with("hs"), with("gs"));
    let (mut passed, mut skipped, mut known, mut failed) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for case in &all {
        let r = run_case(&mut gpu, case, Path::new(CORPUS), &Tweak::default());
        println!("{:28} {:16} {:>8.1?} {:?}", r.name, r.stages, r.wall, r.outcome);
        match r.outcome {
            Outcome::Pass => passed.push(case.files),
            Outcome::Skipped(why) => skipped.push(format!("{}: {why}", r.name)),
            Outcome::KnownFailure(why) => known.push(format!("{}: {why}", r.name)),
            Outcome::Fail(e) => failed.push(format!("{}: {e}", r.name)),
        }
    }
    println!(
        "{} passed, {} skipped, {} known failures, {} failed",
        passed.len(),
        skipped.len(),
        known.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "failed pipelines:\n{}", failed.join("\n"));
    assert!(passed.len() >= MIN_PASSED, "only {} pipelines passed; skipped:\n{}", passed.len(), skipped.join("\n"));
    let passing = |s: &str| passed.iter().filter(|f| f.iter().any(|f| stage_of(f) == Some(s))).count();
    assert!(passing("hs") >= 3 && passing("gs") >= 3, "passing: hs {} gs {}", passing("hs"), passing("gs"));
}

/// Every passing case fails once one word of its first expected pixel is changed: the
/// comparison looks at what the probes name.
#[test]
fn a_wrong_expected_pixel_is_caught() {
    let Some(mut gpu) = gpu_or_skip("a_wrong_expected_pixel_is_caught") else { return };
    let mut checked = 0;
    for case in cases().iter().filter(|c| c.known_failure.is_none()) {
        let clean = run_case(&mut gpu, case, Path::new(CORPUS), &Tweak::default());
        if clean.outcome != Outcome::Pass {
            continue;
        }
        if (case.spec)().probes.is_empty() {
            continue;
        }
        let tweak = Tweak { perturb_expectation: true, ..Default::default() };
        let r = run_case(&mut gpu, case, Path::new(CORPUS), &tweak);
        match r.outcome {
            Outcome::Fail(e) => assert!(e.contains("mismatch"), "{}: {e}", case.name),
            other => panic!("{}: a perturbed expectation gave {other:?}", case.name),
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} cases could be perturbed");
}

/// The vertex shader's ARG1 and ARG2 trade places (locations 2 and 3) through the
/// remapping hook while the pixel shader keeps the location rule: the pixel shader then
/// reads each from the other's location and the pipeline renders wrong pixels.
#[test]
fn a_swapped_location_is_caught() {
    let Some(mut gpu) = gpu_or_skip("a_swapped_location_is_caught") else { return };
    let swap = IoRemap::new(|q| {
        let moved =
            IoLocation { location: if q.default.location == 2 { 3 } else { 2 }, component: q.default.component };
        (q.output && q.element.semantic == "ARG" && matches!(q.element.semantic_indices.first(), Some(1 | 2)))
            .then_some(moved)
    });
    let all = cases();
    for name in ["vs_ps_uint_scalar", "gs_points", "all_stages"] {
        let case = all.iter().find(|c| c.name == name).unwrap();
        assert_eq!(run_case(&mut gpu, case, Path::new(CORPUS), &Tweak::default()).outcome, Outcome::Pass, "{name}");
        let options = Options { io_remap: Some(swap.clone()), ..Default::default() };
        let tweak = Tweak { stage_options: Some(("vs", options)), ..Default::default() };
        match run_case(&mut gpu, case, Path::new(CORPUS), &tweak).outcome {
            Outcome::Fail(e) => println!("{name}: swapped ARG1/ARG2 caught: {}", &e[..e.len().min(200)]),
            other => panic!("{name}: swapped locations gave {other:?}"),
        }
    }
}
