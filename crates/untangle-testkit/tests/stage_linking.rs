//! Stages translated one at a time link into pipelines (`docs/stage-interfaces.md`): the
//! outputs of each stage match the next stage's inputs under Vulkan's interface-matching
//! rules (`untangle_testkit::check::stage_link`; `spirv-val` sees one module and cannot
//! check this).
//!
//! - The hand-written pipeline in `corpus/pipeline/` (vs, hs, ds, gs, ps over one
//!   signature, with system values that are built-ins in one stage and varyings in the
//!   next) links in every stage combination D3D allows.
//! - vkd3d-proton's `test_pso_mismatch` combinations whose shaders are in the shared corpus,
//!   with D3D's own verdicts: every combination D3D accepts links (the one documented gap,
//!   a scalar reading a wider vector, is reported as such); the rejected ones this checker
//!   can see are caught.
//! - A swapped location, a missing patch constant and an I/O remapping on one side only are
//!   caught; the same remapping on both sides links.

use std::path::Path;
use untangle::{IoLocation, IoRemap, Options, ShaderKind};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::check::stage_link::{link, LinkError, StageIo};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn translate(path: &Path, options: &Options) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = untangle::translate(&bytes, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if let Some(val) = find_spirv_val() {
        val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    t.words
}

fn pipeline_stage(name: &str, options: &Options) -> StageIo {
    let words = translate(&Path::new(ROOT).join("corpus/pipeline").join(format!("{name}.ll")), options);
    StageIo::from_words(&words).unwrap()
}

fn chain_errors(stages: &[(&str, &StageIo)]) -> Vec<String> {
    stages
        .windows(2)
        .flat_map(|w| link(w[0].1, w[1].1).into_iter().map(move |e| format!("{} -> {}: {e:?}", w[0].0, w[1].0)))
        .collect()
}

#[test]
fn hand_written_pipeline_links_in_every_stage_combination() {
    let o = Options::default();
    let [vs, hs, ds, gs, ps] = ["vs", "hs", "ds", "gs", "ps"].map(|s| pipeline_stage(s, &o));
    let chains: [&[(&str, &StageIo)]; 4] = [
        &[("vs", &vs), ("ps", &ps)],
        &[("vs", &vs), ("gs", &gs), ("ps", &ps)],
        &[("vs", &vs), ("hs", &hs), ("ds", &ds), ("ps", &ps)],
        &[("vs", &vs), ("hs", &hs), ("ds", &ds), ("gs", &gs), ("ps", &ps)],
    ];
    for chain in chains {
        let errors = chain_errors(chain);
        assert!(errors.is_empty(), "{:?}: {errors:#?}", chain.iter().map(|s| s.0).collect::<Vec<_>>());
    }
    // The checker sees per-vertex arrays, patch constants and the dual built-in/varying
    // writes: the hull shader's patch constant sits after its control points (P = 2 rows).
    let center = hs.outputs.iter().find(|v| v.name.contains("CENTER")).unwrap();
    assert_eq!((center.location, center.patch), (Some(2), true));
    assert!(gs.inputs.iter().any(|v| v.name.contains("SV_RenderTargetArrayIndex") && v.location == Some(1)));
    assert!(ps.inputs.iter().any(|v| v.builtin == Some(rspirv::spirv::BuiltIn::Layer)));
    // Leaving out a stage that produces what the next one reads is caught: the domain
    // shader reads patch constants and control points no vertex shader writes.
    assert!(!link(&vs, &ds).is_empty());
}

#[test]
fn a_swapped_location_or_a_one_sided_remap_is_caught() {
    let o = Options::default();
    let vs = pipeline_stage("vs", &o);
    let ps = pipeline_stage("ps", &o);
    // NORMAL moves to location 4 in the pixel shader only.
    let moved = IoRemap::new(|q| (q.element.semantic == "NORMAL").then_some(IoLocation { location: 4, component: 0 }));
    let ps_moved = pipeline_stage("ps", &Options { io_remap: Some(moved.clone()), ..Default::default() });
    let errors = link(&vs, &ps_moved);
    assert!(
        errors.iter().any(|e| matches!(e, LinkError::Missing { location: 4, .. })),
        "a moved input must be reported: {errors:?}"
    );
    // The same remapping on both sides links again.
    let vs_moved = pipeline_stage("vs", &Options { io_remap: Some(moved), ..Default::default() });
    assert_eq!(link(&vs_moved, &ps_moved), vec![]);
    assert!(!link(&vs, &ps).iter().any(|e| matches!(e, LinkError::Missing { .. })));

    // Patch constants: the callback is told which elements are patch constants and where
    // the location rule puts them; moving them in the hull shader alone breaks the link,
    // moving them in both tessellation stages keeps it.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let patch_at_9 = IoRemap::new(move |q| {
        log.lock().unwrap().push((q.stage, q.output, q.patch, q.element.semantic.clone(), q.default));
        q.patch.then_some(IoLocation { location: 9, component: 0 })
    });
    let with = Options { io_remap: Some(patch_at_9), ..Default::default() };
    let hs = pipeline_stage("hs", &o);
    let ds = pipeline_stage("ds", &o);
    let hs9 = pipeline_stage("hs", &with);
    let ds9 = pipeline_stage("ds", &with);
    assert_eq!(link(&hs, &ds), vec![]);
    assert!(link(&hs9, &ds).iter().any(|e| matches!(e, LinkError::Missing { patch: true, .. })));
    assert_eq!(link(&hs9, &ds9), vec![]);
    let seen = seen.lock().unwrap();
    assert!(seen.contains(&(ShaderKind::Hull, true, true, "CENTER".into(), IoLocation { location: 2, component: 0 })));
    assert!(seen.contains(&(
        ShaderKind::Domain,
        false,
        true,
        "CENTER".into(),
        IoLocation { location: 2, component: 0 }
    )));
    assert!(seen.iter().any(|q| q.0 == ShaderKind::Hull && !q.2 && q.3 == "NORMAL"), "control points are asked too");
}

/// One row of vkd3d-proton's `test_pso_mismatch` (tests/d3d12_pso.c): shader files and
/// whether D3D creates the pipeline.
struct PsoCase {
    stages: &'static [&'static str],
    d3d_accepts: bool,
}

const PSO_CASES: &[PsoCase] = &[
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_1.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_3.ps"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_4.ps"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_7.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_8.ps"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_9.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_10.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_2.hs", "ds_mismatch_ref.ds"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_3.hs", "ds_mismatch_ref.ds"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_4.hs", "ds_mismatch_ref.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_1.hs", "ds_mismatch_1.ds"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_1.hs", "ds_mismatch_ref.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_1.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_2.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_1.hs", "ds_mismatch_3.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_4.ds"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "hs_mismatch_1.hs", "ds_mismatch_5.ds"], d3d_accepts: false },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "ps_mismatch_1.ps"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "ps_mismatch_7.ps"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "ps_mismatch_9.ps"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "ps_mismatch_10.ps"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "ps_mismatch_8.ps"],
        d3d_accepts: false,
    },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_ref.gs", "ps_mismatch_1.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_ref.gs", "ps_mismatch_7.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_ref.gs", "ps_mismatch_9.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_ref.gs", "ps_mismatch_10.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_ref.gs", "ps_mismatch_3.ps"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_2.gs"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_4.gs"], d3d_accepts: false },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_5.gs"], d3d_accepts: true },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "gs_mismatch_ref.gs"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "gs_mismatch_5.gs"],
        d3d_accepts: true,
    },
    PsoCase {
        stages: &["vs_mismatch.vs", "hs_mismatch_ref.hs", "ds_mismatch_ref.ds", "gs_mismatch_2.gs"],
        d3d_accepts: false,
    },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_sv_3.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_sv_4.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "ps_mismatch_sv_6.ps"], d3d_accepts: true },
    PsoCase { stages: &["vs_mismatch.vs", "gs_mismatch_primid.gs", "ps_mismatch_sv_3.ps"], d3d_accepts: true },
];

/// D3D-rejected combinations that Vulkan's rules also reject (the others differ only in
/// ways Vulkan tolerates, such as a consumer reading fewer components of a vector).
const CAUGHT: &[&str] = &[
    "ps_mismatch_3.ps",
    "ps_mismatch_4.ps",
    "ps_mismatch_8.ps",
    "hs_mismatch_4.hs",
    "hs_mismatch_1.hs + ds_mismatch_ref.ds",
    "hs_mismatch_ref.hs + ds_mismatch_1.ds",
    "hs_mismatch_1.hs + ds_mismatch_3.ds",
    "gs_mismatch_2.gs",
    "gs_mismatch_4.gs",
];

fn shared_stage(name: &str) -> Option<StageIo> {
    let file = format!("pso.{name}_6_0.dxil");
    let path = Path::new(SHARED).join(&file);
    if !path.exists() {
        return None;
    }
    Some(StageIo::from_words(&translate(&path, &Options::default())).unwrap())
}

#[test]
fn vkd3d_proton_pso_mismatch_verdicts() {
    if !Path::new(SHARED).exists() {
        eprintln!("{SHARED} not found: skipping");
        return;
    }
    let mut report = Vec::new();
    for case in PSO_CASES {
        let stages: Vec<StageIo> =
            case.stages.iter().map(|s| shared_stage(s).unwrap_or_else(|| panic!("{s} missing"))).collect();
        let named: Vec<(&str, &StageIo)> = case.stages.iter().copied().zip(stages.iter()).collect();
        let errors: Vec<LinkError> = named.windows(2).flat_map(|w| link(w[0].1, w[1].1)).collect();
        let label = case.stages.join(" -> ");
        let caught = CAUGHT.iter().any(|c| c.split(" + ").all(|part| case.stages.contains(&part)));
        if case.d3d_accepts {
            // The only gap: a one-column input of a wider output (ps_mismatch_1 and _9 read
            // one component of a vector, gs_mismatch_5 one of ARG[2]'s four).
            let real: Vec<&LinkError> =
                errors.iter().filter(|e| !matches!(e, LinkError::NarrowedToScalar { .. })).collect();
            assert!(real.is_empty(), "{label}: D3D accepts it, but {real:#?}");
            let narrowed = errors.len() - real.len();
            let expect_narrowed =
                case.stages.iter().any(|s| ["ps_mismatch_1.ps", "ps_mismatch_9.ps", "gs_mismatch_5.gs"].contains(s));
            assert_eq!(narrowed > 0, expect_narrowed, "{label}: {errors:?}");
        } else if caught {
            assert!(
                errors.iter().any(|e| !matches!(e, LinkError::NarrowedToScalar { .. })),
                "{label}: D3D rejects it and Vulkan's rules do too, but nothing was caught"
            );
        } else {
            assert!(errors.is_empty(), "{label}: expected Vulkan to tolerate this D3D-rejected link: {errors:?}");
        }
        report.push(format!(
            "{label}: D3D {}, {} finding(s)",
            if case.d3d_accepts { "ok" } else { "rejects" },
            errors.len()
        ));
    }
    eprintln!("{}", report.join("\n"));
}
