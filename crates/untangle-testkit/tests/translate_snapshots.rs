//! Insta snapshots of the SPIR-V disassembly of small shaders: the samples in `corpus/`, the
//! hand-written pipeline in `corpus/pipeline/` (hull, domain and geometry shaders with patch
//! constants, pow2 partitioning, streams, instancing and dual built-in/varying outputs), the
//! hand-written mesh pipeline in `corpus/mesh/` and a
//! few small shaders of every stage from the shared vkd3d-proton corpus. Every
//! module must also pass `spirv-val --target-env vulkan1.3`. A change to emission shows up
//! here as a reviewable diff.

use std::path::Path;
use untangle::{translate_module, Options};
use untangle_testkit::check::spirv_val::find_spirv_val;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

const CASES: &[(&str, &str)] = &[
    ("cs_nested_ifs_loop", "corpus/cs_nested_ifs_loop.ll"),
    ("cs_groupshared_reduce", "corpus/cs_groupshared_reduce.ll"),
    ("ps_textured", "corpus/ps_textured.ll"),
    ("cs_update_root_descriptors", "@descriptors.update_root_descriptors.cs_6_0.dxil"),
    ("cs_root_constant_indexing", "@shaders.cs_root_constant_indexing.cs_6_0.dxil"),
    ("cs_bindless_cbv", "@bindless.bindless_cbv.cs_6_0.dxil"),
    ("cs_oob_structure_element", "@descriptors.uav_robustness_oob_structure_element.cs_6_0.dxil"),
    ("ps_color", "@mesh_shader.ps_color.ps_6_0.dxil"),
    ("ps_render_a8", "@render_target.ps_render_a8.ps_6_0.dxil"),
    ("vs_topology", "@pso.vs_topology.vs_6_0.dxil"),
    ("vs_conservative_rasterization", "@command.conservative_rasterization_vs.vs_6_0.dxil"),
    ("pipeline_vs", "corpus/pipeline/vs.ll"),
    ("pipeline_hs", "corpus/pipeline/hs.ll"),
    ("pipeline_ds", "corpus/pipeline/ds.ll"),
    ("pipeline_gs", "corpus/pipeline/gs.ll"),
    ("hs_quad_cw", "@tessellation.quad_tess_hs_cw.hs_6_0.dxil"),
    ("hs_isoline", "@tessellation.line_tessellation_hs.hs_6_0.dxil"),
    ("ds_isoline", "@tessellation.line_tessellation_ds.ds_6_0.dxil"),
    ("gs_two_streams", "@pso.gs_mismatch_so_2.gs_6_0.dxil"),
    ("gs_triangle_adjacency", "@pso.gs_topology_triangle_adj.gs_6_0.dxil"),
    ("mesh_ms", "corpus/mesh/ms.ll"),
    ("mesh_as", "corpus/mesh/as.ll"),
    ("ms_cull_primitive", "@mesh_shader.ms_cull_primitive.ms_6_5.dxil"),
    ("as_simple", "@mesh_shader.as_simple.as_6_5.dxil"),
];

#[test]
fn disassembly_snapshots() {
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val and spirv-dis are required under CI");
        eprintln!("spirv-val not found: skipping");
        return;
    };
    if val.dis.is_none() {
        eprintln!("spirv-dis not found: skipping");
        return;
    }
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for (name, path) in CASES {
        let p = match path.strip_prefix('@') {
            Some(file) => root.join(SHARED).join(file),
            None => root.join(path),
        };
        if !p.exists() {
            eprintln!("{} not found: skipping {name}", p.display());
            continue;
        }
        let loaded = untangle::front::load_path(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = translate_module(&loaded.module, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
        // Same input, same words.
        let again = translate_module(&loaded.module, &Options::default()).unwrap();
        assert_eq!(t.words, again.words, "{name}: emission is not deterministic");
        let text = val.disassemble(&t.words).unwrap();
        let body: Vec<&str> = text.lines().filter(|l| !l.starts_with(';')).collect();
        insta::assert_snapshot!(format!("spirv_{name}"), body.join("\n"));
    }
}

/// The hand-written operation cases of the pixel-shader interpolation and the graphics
/// stages' system values (`untangle_testkit::dxil_ops::cases`), snapshotted per stage.
#[test]
fn operation_case_snapshots() {
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val and spirv-dis are required under CI");
        return;
    };
    if val.dis.is_none() {
        return;
    }
    let cases = untangle_testkit::dxil_ops::cases::hand_written();
    let wanted = |n: &str| n.starts_with("interpolation.") || n.starts_with("system_values.");
    let mut seen = 0;
    for case in cases.iter().filter(|c| wanted(&c.name)) {
        for &profile in &case.profiles {
            seen += 1;
            let name = format!("{}_{profile}", case.name.replace('.', "_"));
            let t = untangle::translate(case.module(profile).as_bytes(), &Options::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = val.disassemble(&t.words).unwrap();
            let body: Vec<&str> = text.lines().filter(|l| !l.starts_with(';')).collect();
            insta::assert_snapshot!(format!("case_{name}"), body.join("\n"));
        }
    }
    assert_eq!(seen, 7, "cases snapshotted");
}
