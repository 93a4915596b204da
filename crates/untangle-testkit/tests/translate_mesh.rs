//! Mesh and amplification shaders (`docs/stage-interfaces.md`, "Mesh and amplification
//! shaders"): the hand-written mesh pipeline in `corpus/mesh/` and its variants translate to
//! modules that pass `spirv-val --target-env vulkan1.3`, with execution modes from the MS
//! and AS states, the output topology's index built-in, `OpEmitMeshTasksEXT` ending every
//! path of an amplification shader, D3D's limits as typed errors, and mesh shaders that link
//! with pixel shaders translated separately (per-primitive inputs decorated on both sides).

use std::path::Path;
use untangle::{IoLocation, IoRemap, Options, TranslateError};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::check::stage_link::{link, LinkError, StageIo};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn source(stage: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/mesh").join(format!("{stage}.ll"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the source");
    text.replacen(from, to, 1)
}

/// Translates and validates; the disassembly (empty without SPIRV-Tools).
fn translate(text: &[u8], options: &Options) -> Result<(Vec<u32>, String), untangle::Error> {
    let t = untangle::translate(text, options)?;
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return Ok((t.words, String::new()));
    };
    val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    Ok((t.words.clone(), val.disassemble(&t.words).unwrap_or_default()))
}

fn modes(asm: &str) -> Vec<String> {
    asm.lines().filter_map(|l| l.trim().strip_prefix("OpExecutionMode %main ")).map(str::to_string).collect()
}

fn typed_error(text: &str) -> TranslateError {
    match untangle::translate(text.as_bytes(), &Options::default()) {
        Err(untangle::Error::Translate(e)) => e,
        other => panic!("expected a translation error, got {:?}", other.map(|_| "a module")),
    }
}

#[test]
fn mesh_shader_modes_outputs_and_topologies() {
    if find_spirv_val().is_none() {
        return;
    }
    let ms = source("ms");
    let (_, asm) = translate(ms.as_bytes(), &Options::default()).unwrap();
    let m = modes(&asm);
    for want in ["LocalSize 4 1 1", "OutputVertices 4", "OutputPrimitivesEXT 2", "OutputTrianglesEXT"] {
        assert!(m.contains(&want.to_string()), "{want}: {m:?}");
    }
    assert!(asm.contains("OpEntryPoint MeshEXT"), "{asm}");
    // Both D3D calls of SetMeshOutputCounts stay where they are, one on each path.
    assert_eq!(asm.matches("OpSetMeshOutputsEXT").count(), 2);
    // Per-primitive outputs: arrays of [maxprimitives], decorated PerPrimitiveEXT; the
    // varying after the vertex signature's 3 rows (COLOR at primitive row 1 → 4).
    for b in ["PrimitiveId", "Layer", "ViewportIndex", "CullPrimitiveEXT", "PrimitiveShadingRateKHR"] {
        assert!(asm.contains(&format!("OpDecorate %{b} BuiltIn {b}")), "{b}");
        assert!(asm.contains(&format!("OpDecorate %{b} PerPrimitiveEXT")), "{b}");
    }
    assert!(
        asm.contains("OpDecorate %out_COLOR0 Location 4") && asm.contains("OpDecorate %out_COLOR0 PerPrimitiveEXT")
    );
    assert!(asm.contains("%CullPrimitiveEXT = OpVariable %_ptr_Output__arr_bool_uint_2 Output"), "{asm}");
    assert!(asm.contains("%Position = OpVariable %_ptr_Output__arr_v4float_uint_4 Output"), "{asm}");
    assert!(asm.contains("%payload = OpVariable %_ptr_TaskPayloadWorkgroupEXT_"), "{asm}");
    // Line topology: two indices per primitive (emitIndices's third is unused).
    let lines = edit(&ms, "!{!8, i32 4, i32 2, i32 2, i32 4}", "!{!8, i32 4, i32 2, i32 1, i32 4}");
    let (_, asm) = translate(lines.as_bytes(), &Options::default()).unwrap();
    assert!(modes(&asm).contains(&"OutputLinesEXT".to_string()));
    assert!(asm.contains("%PrimitiveLineIndicesEXT = OpVariable %_ptr_Output__arr_v2uint_uint_2 Output"), "{asm}");
}

#[test]
fn amplification_shader_emits_mesh_tasks_on_every_path() {
    if find_spirv_val().is_none() {
        return;
    }
    let (_, asm) = translate(source("as").as_bytes(), &Options::default()).unwrap();
    assert!(asm.contains("OpEntryPoint TaskEXT") && modes(&asm).contains(&"LocalSize 2 1 1".to_string()));
    // The early return of groups past 7 and the dispatch share the one exit; nothing
    // returns without OpEmitMeshTasksEXT, and the counts start at 0 (no dispatch: no groups).
    assert!(!asm.contains("OpReturn"), "{asm}");
    assert!(asm.contains("OpEmitMeshTasksEXT") && asm.contains("%payload\n"), "{asm}");
    assert!(asm.contains("OpVariable %_ptr_Private_uint Private %uint_0"), "{asm}");
    // A payload stored from groupshared memory to the task payload.
    assert!(asm.contains("OpStore %payload "), "{asm}");
    // An amplification shader that never dispatches still ends in OpEmitMeshTasksEXT.
    let none = edit(
        &source("as"),
        "  call void @dx.op.dispatchMesh.struct.P(i32 173, i32 %lanes, i32 1, i32 1, %struct.P addrspace(3)* @p)\n",
        "",
    );
    let (_, asm) = translate(none.as_bytes(), &Options::default()).unwrap();
    assert!(!asm.contains("OpReturn") && asm.contains("OpEmitMeshTasksEXT"), "{asm}");
}

#[test]
fn d3d_limits_and_what_a_mesh_shader_cannot_write_are_typed_errors() {
    // A payload over 16 KiB (D3D's limit, Vulkan's guaranteed maxTaskPayloadSize).
    let big = edit(&source("as"), "!6 = !{!7, i32 4}", "!6 = !{!7, i32 16400}");
    match typed_error(&big) {
        TranslateError::UnsupportedForm { subject, message } => {
            assert_eq!(subject, untangle::emit::Subject::Payload);
            assert!(message.contains("16400") && message.contains("maxTaskPayloadSize"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let big = edit(&source("ms"), "!{!8, i32 4, i32 2, i32 2, i32 4}", "!{!8, i32 4, i32 2, i32 2, i32 20000}");
    assert!(matches!(typed_error(&big), TranslateError::UnsupportedForm { .. }));
    // More vertices than D3D allows.
    let many = edit(&source("ms"), "!{!8, i32 4, i32 2, i32 2, i32 4}", "!{!8, i32 300, i32 2, i32 2, i32 4}");
    assert!(
        matches!(typed_error(&many), TranslateError::Malformed { message, .. } if message.contains("300 output vertices"))
    );
    // A topology D3D does not have.
    let topo = edit(&source("ms"), "!{!8, i32 4, i32 2, i32 2, i32 4}", "!{!8, i32 4, i32 2, i32 7, i32 4}");
    assert!(matches!(typed_error(&topo), TranslateError::Malformed { message, .. } if message.contains("topology 7")));
    // A system value that is no per-primitive built-in.
    let pos = edit(&source("ms"), "!{i32 5, !\"COLOR\", i8 9, i8 0,", "!{i32 5, !\"COLOR\", i8 9, i8 3,");
    match typed_error(&pos) {
        TranslateError::UnsupportedForm { message, .. } => assert!(message.contains("primitive output"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Mesh operations outside mesh shaders are refused by the support table.
    let wrong = edit(
        &source("as"),
        "  %t = call",
        "  call void @dx.op.setMeshOutputCounts(i32 168, i32 1, i32 1)\n  %t = call",
    );
    let wrong = format!("{wrong}\ndeclare void @dx.op.setMeshOutputCounts(i32, i32, i32)\n");
    assert!(matches!(
        typed_error(&wrong),
        TranslateError::UnsupportedOp { op: untangle::dxil::DxOp::SetMeshOutputCounts, .. }
    ));
}

/// Places every varying by semantic (what a layer does for D3D's by-name linking of mesh
/// and pixel shaders, whose signatures pack registers independently).
fn by_semantic(order: &'static [&'static str]) -> IoRemap {
    IoRemap::new(move |q| {
        let k = order.iter().position(|s| q.element.semantic.eq_ignore_ascii_case(s))?;
        Some(IoLocation { location: k as u32, component: 0 })
    })
}

#[test]
fn mesh_and_pixel_shaders_link_with_per_primitive_inputs() {
    let ms_path = Path::new(SHARED).join("mesh_shader.ms_interface_matching.ms_6_5.dxil");
    let ps_path = Path::new(SHARED).join("mesh_shader.ps_interface_matching.ps_6_0.dxil");
    let (Ok(ms), Ok(ps)) = (std::fs::read(&ms_path), std::fs::read(&ps_path)) else {
        eprintln!("{SHARED} not found: skipping");
        return;
    };
    let order: &'static [&'static str] = &["UV_COORD", "UV_COLOR", "UV_PRIMITIVE_DATA", "UV_VERTEX_ID"];
    let remap = Options { io_remap: Some(by_semantic(order)), ..Default::default() };
    let per_primitive = vec![("UV_COLOR".to_string(), 0), ("UV_PRIMITIVE_DATA".to_string(), 0)];
    let ps_options = Options { per_primitive_inputs: per_primitive, ..remap.clone() };
    let (ms_words, _) = translate(&ms, &remap).unwrap();
    let (ps_words, ps_asm) = translate(&ps, &ps_options).unwrap();
    let ms_io = StageIo::from_words(&ms_words).unwrap();
    let ps_io = StageIo::from_words(&ps_words).unwrap();
    assert_eq!(link(&ms_io, &ps_io), vec![], "{ms_io:#?}\n{ps_io:#?}");
    let color = ps_io.inputs.iter().find(|v| v.name.contains("UV_COLOR")).unwrap();
    assert!(color.per_primitive && color.location == Some(1));
    if !ps_asm.is_empty() {
        assert!(ps_asm.contains("OpCapability MeshShadingEXT") && ps_asm.contains("PerPrimitiveEXT"));
    }
    // Without the per-primitive list the pixel shader's inputs do not match.
    let (ps_plain, _) = translate(&ps, &remap).unwrap();
    let errors = link(&ms_io, &StageIo::from_words(&ps_plain).unwrap());
    assert_eq!(errors.iter().filter(|e| matches!(e, LinkError::PerPrimitive { .. })).count(), 2, "{errors:#?}");
    // Without the remap, D3D's independently packed registers do not line up.
    let (ms_default, _) = translate(&ms, &Options::default()).unwrap();
    let (ps_default, _) = translate(&ps, &Options::default()).unwrap();
    let errors = link(&StageIo::from_words(&ms_default).unwrap(), &StageIo::from_words(&ps_default).unwrap());
    assert!(!errors.is_empty());
}

#[test]
fn corpus_mesh_pipelines_of_vkd3d_proton_link_with_their_pixel_shaders() {
    // Pairs vkd3d-proton draws together whose registers agree (the location rule suffices).
    let pairs = [
        ("mesh_shader.ms_payload.ms_6_5.dxil", "mesh_shader.ps_color.ps_6_0.dxil", &["UV_COLOR"][..]),
        ("mesh_shader.ms_system_values.ms_6_5.dxil", "mesh_shader.ps_system_values.ps_6_0.dxil", &["UV_COLOR"]),
    ];
    for (ms, ps, per_primitive) in pairs {
        let (Ok(ms_bytes), Ok(ps_bytes)) =
            (std::fs::read(Path::new(SHARED).join(ms)), std::fs::read(Path::new(SHARED).join(ps)))
        else {
            eprintln!("{SHARED} not found: skipping");
            return;
        };
        let remap = Options { io_remap: Some(by_semantic(&["UV_COLOR"])), ..Default::default() };
        let ps_options = Options {
            per_primitive_inputs: per_primitive.iter().map(|s| (s.to_string(), 0)).collect(),
            ..remap.clone()
        };
        let (ms_words, _) = translate(&ms_bytes, &remap).unwrap();
        let (ps_words, _) = translate(&ps_bytes, &ps_options).unwrap();
        let errors = link(&StageIo::from_words(&ms_words).unwrap(), &StageIo::from_words(&ps_words).unwrap());
        assert!(errors.is_empty(), "{ms} -> {ps}: {errors:#?}");
    }
}
