//! D3D12 view instancing (`Options::view_instancing`) and render-target swizzles
//! (`Options::output_swizzles`) on hand-written shaders (`docs/view-instancing.md`):
//! `SV_ViewID` through the `ViewIndex` map, the viewport the last pre-rasterization stage
//! writes (vertex shaders first, geometry shaders at each emit, mesh shaders for every
//! primitive) or adds, the offsets buffer where multiview cannot serve, the multiview
//! compatibility rule, and swizzled pixel-shader stores. Every module that translates passes
//! `spirv-val --target-env vulkan1.3`; without the options the modules are the ones before.
//! Drawn on a device: `tests/gpu_graphics.rs` (`multiview_*`, `ps_a8_swizzle`).

use untangle::{Options, TranslateError, ViewInstancing};
use untangle_testkit::check::spirv_val::find_spirv_val;

const HEAD: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
"#;

/// `float4 main(uint id : SV_VertexID, uint view : SV_ViewID, out uint o : UV_VIEWID) :
/// SV_Position` (vkd3d-proton's `vs_view_id_passthrough`), plus, where `EXTRA` is replaced,
/// `SV_RenderTargetArrayIndex` = 1 and `SV_ViewportArrayIndex` = 2 outputs.
const VS: &str = r#"
define void @main() {
entry:
  %id = call i32 @dx.op.loadInput.i32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %view = call i32 @dx.op.viewID.i32(i32 138)
  %a = and i32 %id, 2
  %s = shl i32 %id, 1
  %b = and i32 %s, 2
  %fa = uitofp i32 %a to float
  %fb = uitofp i32 %b to float
  %x = fmul fast float %fa, 2.000000e+00
  %y = fmul fast float %fb, 2.000000e+00
  %x1 = fadd fast float %x, -1.000000e+00
  %y1 = fadd fast float %y, -1.000000e+00
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %x1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %y1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 0, i8 0, i32 %view)
  ; EXTRA
  ret void
}

declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)
declare i32 @dx.op.viewID.i32(i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 1}
!1 = !{i32 1, i32 8}
!2 = !{!"vs", i32 6, i32 1}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{!5, !10, null}
!5 = !{!6}
!6 = !{i32 0, !"SV_VertexID", i8 5, i8 1, !7, i8 0, i32 1, i8 1, i32 0, i8 0, null}
!7 = !{i32 0}
!10 = !{!11, !12 ; OUTPUTS
}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"UV_VIEWID", i8 5, i8 0, !7, i8 1, i32 1, i8 1, i32 1, i8 0, null}
!13 = !{i32 2, !"SV_RenderTargetArrayIndex", i8 5, i8 4, !7, i8 1, i32 1, i8 1, i32 2, i8 0, null}
!14 = !{i32 3, !"SV_ViewportArrayIndex", i8 5, i8 5, !7, i8 1, i32 1, i8 1, i32 3, i8 0, null}
"#;

/// `[maxvertexcount(3)] void main(uint view : SV_ViewID, triangle V v[3], inout
/// TriangleStream<V> s)`: each input vertex re-emitted with `UV_VIEWID` = `SV_ViewID`.
const GS: &str = r#"
define void @main() {
entry:
  %view = call i32 @dx.op.viewID.i32(i32 138)
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %px = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 %i)
  %py = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 %i)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %px)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %py)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 0, i8 0, i32 %view)
  call void @dx.op.emitStream(i32 97, i8 0)
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 3
  br i1 %done, label %exit, label %loop

exit:
  call void @dx.op.cutStream(i32 98, i8 0)
  ret void
}

declare i32 @dx.op.viewID.i32(i32)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)
declare void @dx.op.emitStream(i32, i8)
declare void @dx.op.cutStream(i32, i8)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 1}
!1 = !{i32 1, i32 8}
!2 = !{!"gs", i32 6, i32 1}
!3 = !{void ()* @main, !"main", !4, null, !20}
!4 = !{!5, !10, null}
!5 = !{!11}
!7 = !{i32 0}
!10 = !{!11, !12}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"UV_VIEWID", i8 5, i8 0, !7, i8 1, i32 1, i8 1, i32 1, i8 0, null}
!20 = !{i32 1, !21}
!21 = !{i32 3, i32 3, i32 1, i32 5, i32 1}
"#;

/// `[numthreads(3, 1, 1)] [outputtopology("triangle")]`, 3 vertices and up to 4 primitives,
/// one drawn: vkd3d-proton's `ms_view_id_passthrough` with room for more primitives than
/// threads.
const MS: &str = r#"
define void @main() {
entry:
  %t = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %view = call i32 @dx.op.viewID.i32(i32 138)
  call void @dx.op.setMeshOutputCounts(i32 168, i32 3, i32 1)
  %ft = uitofp i32 %t to float
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 0, float %ft, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 1, float 0.0, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 2, float 0.0, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 3, float 1.0, i32 %t)
  call void @dx.op.storeVertexOutput.i32(i32 171, i32 1, i32 0, i8 0, i32 %view, i32 %t)
  %first = icmp eq i32 %t, 0
  br i1 %first, label %prim, label %done

prim:
  call void @dx.op.emitIndices(i32 169, i32 0, i32 0, i32 1, i32 2)
  br label %done

done:
  ret void
}

declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare i32 @dx.op.viewID.i32(i32)
declare void @dx.op.setMeshOutputCounts(i32, i32, i32)
declare void @dx.op.emitIndices(i32, i32, i32, i32, i32)
declare void @dx.op.storeVertexOutput.f32(i32, i32, i32, i8, float, i32)
declare void @dx.op.storeVertexOutput.i32(i32, i32, i32, i8, i32, i32)

!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"ms", i32 6, i32 5}
!4 = !{void ()* @main, !"main", !5, null, !6}
!5 = !{null, !10, null}
!6 = !{i32 9, !7}
!7 = !{!8, i32 3, i32 4, i32 2, i32 0}
!8 = !{i32 3, i32 1, i32 1}
!9 = !{i32 0}
!10 = !{!11, !12}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"UV_VIEWID", i8 5, i8 0, !9, i8 1, i32 1, i8 1, i32 1, i8 0, null}
"#;

/// `void main(uint view : SV_ViewID, out float4 a : SV_Target0, out float2 b : SV_Target1)`:
/// a = (1, 2, 3, view), b = (5, 6).
const PS: &str = r#"
define void @main() {
entry:
  %view = call i32 @dx.op.viewID.i32(i32 138)
  %fv = uitofp i32 %view to float
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float 2.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 3.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %fv)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float 5.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float 6.000000e+00)
  ret void
}

declare i32 @dx.op.viewID.i32(i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 1}
!1 = !{i32 1, i32 8}
!2 = !{!"ps", i32 6, i32 1}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{null, !10, null}
!7 = !{i32 0}
!8 = !{i32 1}
!10 = !{!11, !12}
!11 = !{i32 0, !"SV_Target", i8 9, i8 16, !7, i8 0, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"SV_Target", i8 9, i8 16, !8, i8 0, i32 1, i8 2, i32 1, i8 0, null}
"#;

fn module(body: &str) -> String {
    format!("{HEAD}{body}")
}

/// The vertex shader that also writes `SV_RenderTargetArrayIndex` and `SV_ViewportArrayIndex`
/// (vkd3d-proton's `vs_multiview_export_layer_viewport`, with constants).
fn vs_exporting() -> String {
    module(VS)
        .replace(
            "  ; EXTRA\n",
            "  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 1)\n  \
             call void @dx.op.storeOutput.i32(i32 5, i32 3, i32 0, i8 0, i32 2)\n",
        )
        .replace("!10 = !{!11, !12 ; OUTPUTS\n}", "!10 = !{!11, !12, !13, !14}")
}

fn vs() -> String {
    module(VS).replace("!10 = !{!11, !12 ; OUTPUTS\n}", "!10 = !{!11, !12}")
}

/// Translates and validates: the words and the disassembly (empty without SPIRV-Tools).
fn translate(text: &str, options: &Options) -> Result<(Vec<u32>, String), untangle::Error> {
    let t = untangle::translate(text.as_bytes(), options)?;
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return Ok((t.words, String::new()));
    };
    val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    let asm = val.disassemble(&t.words).unwrap_or_default();
    Ok((t.words, asm))
}

fn asm(text: &str, options: &Options) -> String {
    translate(text, options).unwrap_or_else(|e| panic!("{e}")).1
}

/// vkd3d-proton's setup: spec constants 1000 and 1001, the dummy offsets buffer at (0, 0).
fn vkd3d(last: bool, viewports: bool) -> Options {
    Options {
        view_instancing: Some(ViewInstancing {
            last_pre_rasterization: last,
            view_index_to_view_id_spec_id: Some(1000),
            view_id_to_viewport_spec_id: viewports.then_some(1001),
            offsets_buffer: Some((0, 0)),
        }),
        ..Default::default()
    }
}

/// The id of the `OpVariable` decorated `BuiltIn name`.
fn builtin_var(asm: &str, name: &str) -> Option<String> {
    asm.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("OpDecorate ")?;
        let (id, deco) = rest.split_once(' ')?;
        (deco == format!("BuiltIn {name}")).then(|| id.to_string())
    })
}

/// How many `OpStore`s write through `var`, directly or through an access chain of it.
fn stores_to(asm: &str, var: &str) -> usize {
    let chains: Vec<String> = asm
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = OpAccessChain ")?;
            rest.split_whitespace().nth(1).filter(|base| *base == var).map(|_| id.to_string())
        })
        .collect();
    asm.lines()
        .filter_map(|l| l.trim().strip_prefix("OpStore ")?.split_whitespace().next())
        .filter(|p| *p == var || chains.iter().any(|c| c == p))
        .count()
}

#[test]
fn view_id_is_the_instance_the_view_index_maps_to() {
    if find_spirv_val().is_none() {
        return;
    }
    let plain = asm(&vs(), &Options::default());
    assert!(plain.contains("BuiltIn ViewIndex") && !plain.contains("SpecId"), "{plain}");
    let a = asm(&vs(), &vkd3d(true, false));
    assert!(a.contains("OpCapability MultiView"), "{a}");
    assert!(a.contains("OpDecorate %ViewIndexToViewID SpecId 1000"), "{a}");
    assert!(a.contains("%ViewIndexToViewID = OpSpecConstant %uint 0"), "{a}");
    // bitfieldExtract(map, 2 * ViewIndex, 2); nothing read from the offsets buffer.
    assert!(a.contains("OpBitFieldUExtract %uint %ViewIndexToViewID"), "{a}");
    assert!(a.contains("OpIMul %uint"), "{a}");
    assert!(!a.contains("ViewInstancingOffsets") && !a.contains("ViewportIndex"), "{a}");
    // An earlier stage (not the last before the rasterizer) reads the instance the same way.
    let earlier = asm(&vs(), &vkd3d(false, true));
    assert!(earlier.contains("SpecId 1000") && !earlier.contains("ViewportIndex"), "{earlier}");
    // The pixel shader: ViewIndex is flat there.
    let ps = asm(&module(PS), &vkd3d(false, false));
    let view = builtin_var(&ps, "ViewIndex").expect("ViewIndex");
    assert!(ps.contains(&format!("OpDecorate {view} Flat")), "{ps}");
    assert!(ps.contains("SpecId 1000"), "{ps}");
}

#[test]
fn the_last_stage_writes_the_instance_viewport() {
    if find_spirv_val().is_none() {
        return;
    }
    let a = asm(&vs(), &vkd3d(true, true));
    let vp = builtin_var(&a, "ViewportIndex").expect("a ViewportIndex output");
    assert_eq!(stores_to(&a, &vp), 1, "{a}");
    assert!(a.contains("OpCapability ShaderViewportIndex"), "{a}");
    assert!(a.contains("OpDecorate %ViewIDToViewport SpecId 1001"), "{a}");
    // bitfieldExtract(viewports, 8 * ViewID, 8)
    assert!(a.contains("OpBitFieldUExtract %uint %ViewIDToViewport"), "{a}");
    // Written before the body: in the function's first block, ahead of its first branch.
    let body = &a[a.find("OpFunction ").unwrap()..];
    let first_branch = body.find("OpBranch ").unwrap();
    let store = body.find(&format!("OpStore {vp} ")).unwrap();
    assert!(store < first_branch, "{body}");

    // A geometry shader writes it before every emitted vertex.
    let gs = asm(&module(GS), &vkd3d(true, true));
    let vp = builtin_var(&gs, "ViewportIndex").expect("a ViewportIndex output");
    assert_eq!(stores_to(&gs, &vp), gs.matches("OpEmitVertex").count(), "{gs}");
    assert!(gs.contains("OpCapability MultiViewport"), "{gs}");

    // A mesh shader: for every primitive below the count, thread t writes t, t + 3, ...
    // (4 primitives, 3 threads: two guarded stores).
    let ms = asm(&module(MS), &vkd3d(true, true));
    let vp = builtin_var(&ms, "ViewportIndex").expect("a ViewportIndex output");
    assert!(ms.contains(&format!("OpDecorate {vp} PerPrimitiveEXT")), "{ms}");
    assert_eq!(stores_to(&ms, &vp), 2, "{ms}");
    assert_eq!(ms.matches("OpULessThan %bool").count(), 2, "{ms}");
    assert!(ms.contains("BuiltIn LocalInvocationIndex"), "{ms}");
    // Without a viewport map every instance keeps viewport 0: nothing is written.
    for text in [vs(), module(GS), module(MS)] {
        let a = asm(&text, &vkd3d(true, false));
        assert!(!a.contains("ViewportIndex"), "{a}");
    }
}

#[test]
fn a_shader_writing_the_slice_reads_the_offsets_buffer() {
    if find_spirv_val().is_none() {
        return;
    }
    let text = vs_exporting();
    let a = asm(&text, &vkd3d(true, true));
    // ViewID from bits 0..16 of the buffer's word, not from ViewIndex (multiview cannot
    // offset a slice the shader writes).
    assert!(!a.contains("ViewIndex") && !a.contains("SpecId 1000"), "{a}");
    assert!(a.contains("OpDecorate %ViewInstancingOffsets DescriptorSet 0"), "{a}");
    assert!(a.contains("OpDecorate %ViewInstancingOffsets Binding 0"), "{a}");
    // Both of the shader's own stores get the instance's offset added: the slice (bits
    // 16..32) and the viewport.
    assert!(a.contains("OpShiftRightLogical %uint"), "{a}");
    assert_eq!(a.matches("OpIAdd %int").count(), 2, "{a}");
    let layer = builtin_var(&a, "Layer").unwrap();
    let vp = builtin_var(&a, "ViewportIndex").unwrap();
    assert_eq!((stores_to(&a, &layer), stores_to(&a, &vp)), (1, 1), "{a}");
    // Not the last stage: the shader's values stand.
    let earlier = asm(&text, &vkd3d(false, true));
    assert_eq!(earlier.matches("OpIAdd %int").count(), 0, "{earlier}");

    let signatures = |text: &str| untangle::Shader::parse(text.as_bytes()).unwrap().signatures().unwrap().clone();
    let (exporting, plain) = (signatures(&text), signatures(&vs()));
    let o = vkd3d(true, true).view_instancing.unwrap();
    let vertex = untangle::ShaderKind::Vertex;
    assert!(!o.multiview_compatible(vertex, &exporting), "a shader writing SV_RenderTargetArrayIndex");
    assert!(o.multiview_compatible(vertex, &plain));
    let no_map = ViewInstancing { view_index_to_view_id_spec_id: None, ..o };
    assert!(!no_map.multiview_compatible(vertex, &plain));

    // Without a ViewIndex map the instance's slice is written to Layer, and ViewID is read
    // from the buffer.
    let dynamic = Options { view_instancing: Some(no_map), ..Default::default() };
    let a = asm(&vs(), &dynamic);
    let layer = builtin_var(&a, "Layer").expect("a Layer output");
    assert_eq!(stores_to(&a, &layer), 1, "{a}");
    assert!(a.contains("OpCapability ShaderLayer") && !a.contains("ViewIndex"), "{a}");

    // Without the buffer, a shader that needs it is refused, naming the option.
    let none = ViewInstancing { offsets_buffer: None, ..o };
    for (text, options) in [
        (text.clone(), ViewInstancing { ..none }),
        (vs(), ViewInstancing { view_index_to_view_id_spec_id: None, ..none }),
    ] {
        match untangle::translate(text.as_bytes(), &Options { view_instancing: Some(options), ..Default::default() }) {
            Err(untangle::Error::Translate(TranslateError::Options { option: "view_instancing", message })) => {
                assert!(message.contains("offsets buffer"), "{message}")
            }
            other => panic!("expected an option error, got {:?}", other.map(|t| t.words.len())),
        }
    }
    // The same id for both maps is refused.
    let same = ViewInstancing { view_id_to_viewport_spec_id: Some(1000), ..o };
    assert!(matches!(
        untangle::translate(vs().as_bytes(), &Options { view_instancing: Some(same), ..Default::default() }),
        Err(untangle::Error::Translate(TranslateError::Options { .. }))
    ));
}

#[test]
fn swizzled_targets_store_each_component_where_the_attachment_reads_it() {
    if find_spirv_val().is_none() {
        return;
    }
    let text = module(PS);
    let plain = translate(&text, &Options::default()).unwrap();
    // The identity (and targets past the list) change nothing.
    let identity = Options { output_swizzles: vec![[0, 1, 2, 3]], ..Default::default() };
    assert_eq!(translate(&text, &identity).unwrap().0, plain.0);
    // vkd3d-proton's A8_UNORM swizzle on target 0: the attachment's red reads alpha, so
    // alpha (the view id) is stored to component 0, x to 1, y to 2, z to 3.
    let a8 = Options { output_swizzles: vec![[3, 0, 1, 2], [1, 0, 2, 3]], ..Default::default() };
    let a = asm(&text, &a8);
    let chains: Vec<(String, String)> = a
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = OpAccessChain %_ptr_Output_float ")?;
            let mut parts = rest.split_whitespace();
            Some((id.to_string(), format!("{} {}", parts.next()?, parts.next()?)))
        })
        .collect();
    let stored: Vec<String> = a
        .lines()
        .filter_map(|l| {
            let mut parts = l.trim().strip_prefix("OpStore ")?.split_whitespace();
            let (p, v) = (parts.next()?, parts.next()?);
            let (_, at) = chains.iter().find(|(id, _)| id == p)?;
            Some(format!("{at} <- {v}"))
        })
        .collect();
    let want = [
        "%out_SV_Target0 %uint_1 <- %float_1",
        "%out_SV_Target0 %uint_2 <- %float_2",
        "%out_SV_Target0 %uint_3 <- %float_3",
        // target 1 (a float2) swaps x and y in a whole vec4 at component 0
        "%out_SV_Target1 %uint_1 <- %float_5",
        "%out_SV_Target1 %uint_0 <- %float_6",
    ];
    for w in want {
        assert!(stored.iter().any(|s| s == w), "{w}: {stored:?}\n{a}");
    }
    assert!(stored.iter().any(|s| s.starts_with("%out_SV_Target0 %uint_0 <- ")), "{stored:?}");
    assert!(a.contains("%out_SV_Target1 = OpVariable %_ptr_Output_v4float Output"), "{a}");
    assert!(!a.contains("Component"), "{a}");
    // Only pixel shaders are swizzled; other stages ignore the option.
    assert_eq!(translate(&vs(), &a8).unwrap().0, translate(&vs(), &Options::default()).unwrap().0);
    // A swizzle that is not a permutation is refused.
    let bad = Options { output_swizzles: vec![[0, 0, 1, 2]], ..Default::default() };
    match untangle::translate(text.as_bytes(), &bad) {
        Err(untangle::Error::Translate(TranslateError::Options { option: "output_swizzles", .. })) => {}
        other => panic!("expected an option error, got {:?}", other.map(|t| t.words.len())),
    }
}
