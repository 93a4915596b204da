//! Corpus graphics pipelines with expected pixels on a real Vulkan driver (lavapipe in CI,
//! any device with `UNTANGLE_VK_DEVICE`): every case of
//! `untangle_testkit::vulkan::graphics_cases`, each stage translated on its own, drawn
//! offscreen and compared with pixels derived from the shaders (docs/graphics-runner.md).
//! Skipped cases (device features) and known failures are printed; every other case must
//! pass. Two self-checks: a perturbed expected pixel and a swapped `Location` (the vertex
//! shader's outputs moved by the remapping hook, the pixel shader left alone) both fail.
//!
//! Mesh pipelines (amplification → mesh → pixel) need `VK_EXT_mesh_shader`: on a device
//! without it (lavapipe) each is skipped and says so; on one with it each must pass and
//! fail with a perturbed expectation. Without any device their stages are still translated,
//! validated (`spirv-val`, Vulkan 1.3) and link-checked, and a pixel shader translated
//! without its per-primitive inputs is caught before drawing.
//!
//! View instancing (a two-view multiview draw, each layer checked for its view instance's id
//! and viewport) and the A8 output swizzle must pass, and fail once the translation drops
//! the option (`view_instancing_and_swizzles_fail_without_their_options`).
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::path::Path;
use untangle::{IoLocation, IoRemap, Options};
use untangle_testkit::vulkan::graphics_cases::{
    cases, run_case, stage_of, translate_case, view_instancing_vs, Outcome, Tweak,
};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
/// Pipelines in the library; the test fails if one is dropped by accident.
const CASES: usize = 33;
/// Of which mesh pipelines (stages `as`/`ms`).
const MESH_CASES: usize = 8;
/// Pipelines that must run and pass (lavapipe: 24; `vs_ps_sample_coverage` is a known failure).
const MIN_PASSED: usize = 24;

use untangle_testkit::vulkan::open_or_skip as gpu_or_skip;

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
        let spec = (case.spec)();
        if spec.probes.is_empty() && spec.uav_words.iter().all(|w| w.is_empty()) {
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

fn is_mesh(case: &untangle_testkit::vulkan::graphics_cases::Case) -> bool {
    case.files.iter().any(|f| stage_of(f) == Some("ms"))
}

/// Every mesh pipeline runs and passes (and a perturbed expectation fails) on a device with
/// `VK_EXT_mesh_shader`; on one without, every mesh pipeline is skipped naming the
/// extension.
#[test]
fn mesh_pipelines_pass_or_are_skipped_saying_why() {
    let Some(mut gpu) = gpu_or_skip("mesh_pipelines_pass_or_are_skipped_saying_why") else { return };
    let mesh: Vec<_> = cases().into_iter().filter(is_mesh).collect();
    assert_eq!(mesh.len(), MESH_CASES);
    let with_as = mesh.iter().filter(|c| c.files.iter().any(|f| stage_of(f) == Some("as"))).count();
    assert!(mesh.len() >= 5 && with_as >= 2, "{} mesh pipelines, {with_as} with amplification", mesh.len());
    let has_mesh = gpu.info().features.mesh_shader;
    for case in &mesh {
        let r = run_case(&mut gpu, case, Path::new(CORPUS), &Tweak::default());
        println!("{:28} {:10} {:>8.1?} {:?}", r.name, r.stages, r.wall, r.outcome);
        if has_mesh {
            assert_eq!(r.outcome, Outcome::Pass, "{}", case.name);
            let tweak = Tweak { perturb_expectation: true, ..Default::default() };
            match run_case(&mut gpu, case, Path::new(CORPUS), &tweak).outcome {
                Outcome::Fail(e) => assert!(e.contains("mismatch"), "{}: {e}", case.name),
                other => panic!("{}: a perturbed expectation gave {other:?}", case.name),
            }
        } else {
            match &r.outcome {
                Outcome::Skipped(why) => assert!(why.contains("VK_EXT_mesh_shader"), "{}: {why}", case.name),
                other => panic!("{}: no mesh shaders on this device, yet {other:?}", case.name),
            }
        }
    }
    if !has_mesh {
        println!("{} mesh pipelines skipped: the device lacks VK_EXT_mesh_shader", mesh.len());
    }
}

/// Without a device: every mesh pipeline's stages translate with the case's options, pass
/// `spirv-val` for Vulkan 1.3 and link (mesh outputs to pixel inputs, per-primitive
/// decorations included); dropping the pixel shader's per-primitive inputs (and its
/// remapping) is caught by the link check that precedes every mesh draw.
#[test]
fn mesh_pipeline_stages_validate_and_link() {
    if !Path::new(CORPUS).is_dir() {
        println!("{CORPUS} not found: skipping");
        return;
    }
    let val = untangle_spirv_tools::find_spirv_val();
    let mut caught = 0;
    for case in cases().iter().filter(|c| is_mesh(c)) {
        let (stages, _) =
            translate_case(case, Path::new(CORPUS), &Tweak::default()).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(stages.len(), case.files.len());
        if let Some(val) = &val {
            for (m, file) in stages.iter().zip(case.files) {
                val.validate(&m.words, "vulkan1.3").unwrap_or_else(|e| panic!("{}: {file}: {e}", case.name));
            }
        }
        if case.stage_options.is_some() && case.files.iter().any(|f| stage_of(f) == Some("ps")) {
            let tweak = Tweak { stage_options: Some(("ps", Options::default())), ..Default::default() };
            match translate_case(case, Path::new(CORPUS), &tweak) {
                Err(e) => {
                    assert!(e.contains("do not link"), "{}: {e}", case.name);
                    caught += 1;
                }
                Ok(_) => panic!("{}: a pixel shader without per-primitive inputs linked", case.name),
            }
        }
    }
    assert!(caught >= 5, "only {caught} mesh pipelines checked their link");
    if val.is_none() {
        println!("spirv-val not found: mesh stages linked but not validated");
    }
}

/// The view-instancing and swizzle pipelines pass with the options a layer sets and fail
/// when their stage is translated without them: `SV_ViewID` read as `ViewIndex` (each layer
/// then holds the other instance's id and triangle), no viewport written (both instances
/// in viewport 0), the A8 target written unswizzled.
#[test]
fn view_instancing_and_swizzles_fail_without_their_options() {
    let Some(mut gpu) = gpu_or_skip("view_instancing_and_swizzles_fail_without_their_options") else { return };
    let all = cases();
    let broken = [
        ("multiview_view_id", "vs", Options::default()),
        ("multiview_viewports", "vs", view_instancing_vs(false)),
        ("ps_a8_swizzle", "ps", Options::default()),
    ];
    for (name, stage, options) in broken {
        let case = all.iter().find(|c| c.name == name).unwrap();
        let r = run_case(&mut gpu, case, Path::new(CORPUS), &Tweak::default());
        println!("{name}: {:?}", r.outcome);
        match r.outcome {
            Outcome::Pass => {}
            Outcome::Skipped(why) => {
                println!("{name}: skipped ({why})");
                continue;
            }
            other => panic!("{name}: {other:?}"),
        }
        let tweak = Tweak { stage_options: Some((stage, options)), ..Default::default() };
        match run_case(&mut gpu, case, Path::new(CORPUS), &tweak).outcome {
            Outcome::Fail(e) => {
                assert!(e.contains("mismatch"), "{name}: {e}");
                println!("{name}: without the option: {}", &e[..e.len().min(200)]);
            }
            other => panic!("{name}: without the option gave {other:?}"),
        }
    }
}
