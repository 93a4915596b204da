//! Properties of hull, domain and geometry shader translation on variants of the
//! hand-written pipeline in `corpus/pipeline/` (`docs/stage-interfaces.md`): the execution
//! modes follow the stage states (winding under both domain origins, every partitioning,
//! streams), D3D's tessellation-factor rules are applied, and what Vulkan cannot express or
//! a stage does not have is a typed error naming the operation or system value and the
//! stage. Every module that translates passes `spirv-val --target-env vulkan1.3`.

use std::path::Path;
use untangle::{Options, TessDomainOrigin, TranslateError};
use untangle_testkit::check::spirv_val::find_spirv_val;

fn source(stage: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/pipeline").join(format!("{stage}.ll"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `text` with `from` replaced by `to` (which must occur).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the source");
    text.replacen(from, to, 1)
}

fn translate(text: &str, options: &Options) -> Result<String, untangle::Error> {
    let t = untangle::translate(text.as_bytes(), options)?;
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return Ok(String::new());
    };
    val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    Ok(val.disassemble(&t.words).unwrap_or_default())
}

fn modes(asm: &str) -> Vec<String> {
    asm.lines().filter_map(|l| l.trim().strip_prefix("OpExecutionMode %main ")).map(str::to_string).collect()
}

const HS_STATE: &str = "i32 3, i32 3, i32 2, i32 2, i32 3, float 1.500000e+01";

#[test]
fn hull_winding_follows_the_domain_origin() {
    if find_spirv_val().is_none() {
        return;
    }
    let hs = source("hs");
    let ccw = edit(&hs, HS_STATE, "i32 3, i32 3, i32 2, i32 2, i32 4, float 1.500000e+01");
    let lower = Options { tess_domain_origin: TessDomainOrigin::LowerLeft, ..Default::default() };
    for (text, options, want) in [
        (&hs, Options::default(), "VertexOrderCw"),
        (&hs, lower.clone(), "VertexOrderCcw"),
        (&ccw, Options::default(), "VertexOrderCcw"),
        (&ccw, lower, "VertexOrderCw"),
    ] {
        let m = modes(&translate(text, &options).unwrap());
        assert!(m.contains(&want.to_string()), "{m:?}");
        assert!(m.contains(&"Triangles".to_string()) && m.contains(&"OutputVertices 3".to_string()), "{m:?}");
    }
}

#[test]
fn hull_partitioning_and_tess_factor_rules() {
    if find_spirv_val().is_none() {
        return;
    }
    let hs = source("hs");
    for (partitioning, mode, pow2) in [
        ("1", "SpacingEqual", false),
        ("2", "SpacingEqual", true),
        ("3", "SpacingFractionalOdd", false),
        ("4", "SpacingFractionalEven", false),
    ] {
        let state = format!("i32 3, i32 3, i32 2, i32 {partitioning}, i32 3, float 1.500000e+01");
        let asm = translate(&edit(&hs, HS_STATE, &state), &Options::default()).unwrap();
        assert!(modes(&asm).contains(&mode.to_string()), "partitioning {partitioning}: {:?}", modes(&asm));
        // pow2 rounds every stored factor up to a power of two: three outer, one inner.
        assert_eq!(asm.matches("Exp2").count(), if pow2 { 4 } else { 0 }, "partitioning {partitioning}");
        // [maxtessfactor(15)] clamps each of the four factors.
        assert_eq!(asm.matches("OpSelect %float").count() - if pow2 { 4 } else { 0 }, 4);
        assert!(asm.contains("OpConstant %float 15"));
    }
    // Without [maxtessfactor], D3D's limits: 64, and 63 for fractional-odd partitioning.
    for (partitioning, limit) in [("1", "64"), ("3", "63"), ("4", "64")] {
        let state = format!("i32 3, i32 3, i32 2, i32 {partitioning}, i32 3, float 6.400000e+01");
        let asm = translate(&edit(&hs, HS_STATE, &state), &Options::default()).unwrap();
        assert!(asm.contains(&format!("OpConstant %float {limit}\n")), "partitioning {partitioning}: {asm}");
    }
    // A layer's limit (`Options::max_tess_factor`) clamps below the shader's; above it, the
    // shader's stands.
    let state = "i32 3, i32 3, i32 2, i32 1, i32 3, float 1.500000e+01";
    for (limit, constant) in [(8.0, "8"), (32.0, "15")] {
        let options = Options { max_tess_factor: Some(limit), ..Default::default() };
        let asm = translate(&edit(&hs, HS_STATE, state), &options).unwrap();
        assert!(asm.contains(&format!("OpConstant %float {constant}\n")), "limit {limit}: {asm}");
    }
    // Point output, no winding; zero output control points still run one invocation.
    let points = edit(&hs, HS_STATE, "i32 3, i32 0, i32 2, i32 1, i32 1, float 6.400000e+01");
    let points = points.replace("call void @dx.op.storeOutput", "; no output control point: ");
    let points = points.replace("!4 = !{!5, !5, !10}", "!4 = !{!5, null, !10}");
    let points = points.replace(
        "%a = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 0)",
        "%a = fadd fast float %f, 0.0",
    );
    let points = points.replace(
        "%b = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 1)",
        "%b = fadd fast float %f, 0.0",
    );
    let points = points.replace(
        "%c = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 2)",
        "%c = fadd fast float %f, 0.0",
    );
    let points = points.replace(
        "%z = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 2, i32 %i)",
        "%z = fadd fast float %f, 0.0",
    );
    let m = modes(&translate(&points, &Options::default()).unwrap());
    assert!(m.contains(&"PointMode".to_string()) && m.contains(&"OutputVertices 1".to_string()), "{m:?}");
    assert!(!m.iter().any(|x| x.starts_with("VertexOrder")), "{m:?}");
}

#[test]
fn geometry_streams_and_instancing() {
    if find_spirv_val().is_none() {
        return;
    }
    let gs = source("gs");
    let asm = translate(&gs, &Options::default()).unwrap();
    let m = modes(&asm);
    for want in ["Triangles", "Invocations 2", "OutputPoints", "OutputVertices 4"] {
        assert!(m.contains(&want.to_string()), "{want}: {m:?}");
    }
    assert!(asm.contains("OpCapability GeometryStreams"));
    assert!(asm.contains("OpEmitStreamVertex") && asm.contains("OpEndStreamPrimitive"));
    assert!(asm.contains("BuiltIn InvocationId"));
    // One stream: the plain forms, no stream capability or decorations.
    let one = edit(&gs, "!21 = !{i32 3, i32 4, i32 3, i32 1, i32 2}", "!21 = !{i32 3, i32 4, i32 1, i32 1, i32 1}");
    let one = edit(&one, "!12 = !{i32 0, i32 1}", "!12 = !{i32 0, i32 0}");
    let one = edit(&one, "emitThenCutStream(i32 99, i8 1)", "emitThenCutStream(i32 99, i8 0)");
    let asm = translate(&one, &Options::default()).unwrap();
    assert!(!asm.contains("GeometryStreams") && !asm.contains("Stream "), "{asm}");
    assert!(asm.contains("OpEmitVertex") && asm.contains("OpEndPrimitive"));
    assert!(modes(&asm).contains(&"Invocations 1".to_string()));
}

fn typed_error(text: &str) -> TranslateError {
    match untangle::translate(text.as_bytes(), &Options::default()) {
        Err(untangle::Error::Translate(e)) => e,
        other => panic!("expected a typed translation error, got {:?}", other.map(|t| t.words.len())),
    }
}

#[test]
fn what_vulkan_lacks_or_a_stage_does_not_have_is_a_typed_error() {
    let gs = source("gs");
    // A geometry shader reading patches (InputPrimitive ControlPointPatch3 = 10).
    let patches = edit(&gs, "!21 = !{i32 3, i32 4,", "!21 = !{i32 10, i32 4,");
    match typed_error(&patches) {
        TranslateError::UnsupportedForm { message, .. } => {
            assert!(message.contains("patch of 3 control points"), "{message}")
        }
        e => panic!("{e:?}"),
    }
    // SV_IsFrontFace written by a geometry shader (system value 13 in the output signature).
    let facing = edit(&gs, "!10 = !{!6, !8, !9, !11}", "!10 = !{!6, !8, !30, !11}");
    let facing = format!(
        "{facing}\n!30 = !{{i32 2, !\"SV_IsFrontFace\", i8 5, i8 13, !7, i8 1, i32 1, i8 1, i32 1, i8 3, null}}\n"
    );
    match typed_error(&facing) {
        TranslateError::UnsupportedForm { message, .. } => {
            assert!(message.contains("FrontFacing") && message.contains("Geometry"), "{message}")
        }
        e => panic!("{e:?}"),
    }
    // SV_ShadingRate written by a domain shader (system value 29).
    let ds = source("ds");
    let rate = edit(&ds, "!15 = !{!6, !8, !16}", "!15 = !{!6, !8, !30}");
    let rate = format!(
        "{rate}\n!30 = !{{i32 2, !\"SV_ShadingRate\", i8 5, i8 29, !7, i8 1, i32 1, i8 1, i32 1, i8 3, null}}\n"
    );
    match typed_error(&rate) {
        TranslateError::UnsupportedForm { message, .. } => {
            assert!(message.contains("PrimitiveShadingRateKHR") && message.contains("domain"), "{message}")
        }
        e => panic!("{e:?}"),
    }
    // Operations of another stage name the operation and the stage.
    let in_gs = edit(
        &gs,
        "%inst = call i32 @dx.op.gsInstanceID.i32(i32 100)",
        "%inst = call i32 @dx.op.gsInstanceID.i32(i32 100)\n  %uv = call float @dx.op.domainLocation.f32(i32 105, i8 0)",
    );
    let in_gs = format!("{in_gs}\ndeclare float @dx.op.domainLocation.f32(i32, i8)\n");
    match typed_error(&in_gs) {
        TranslateError::UnsupportedOp { op, stage, .. } => {
            assert_eq!((op.name(), stage.as_str()), ("DomainLocation", "gs"))
        }
        e => panic!("{e:?}"),
    }
    let vs = source("vs");
    let emit_in_vs = edit(&vs, "  ret void", "  call void @dx.op.emitStream(i32 97, i8 0)\n  ret void");
    let emit_in_vs = format!("{emit_in_vs}\ndeclare void @dx.op.emitStream(i32, i8)\n");
    match typed_error(&emit_in_vs) {
        TranslateError::UnsupportedOp { op, stage, .. } => {
            assert_eq!((op.name(), stage.as_str()), ("EmitStream", "vs"))
        }
        e => panic!("{e:?}"),
    }
    // A hull shader whose state names no body for its patch-constant function.
    let hs = source("hs");
    let no_pc = edit(&hs, "!21 = !{void ()* @patch,", "!21 = !{void ()* @external,");
    let no_pc = format!("{no_pc}\ndeclare void @external()\n");
    assert!(matches!(typed_error(&no_pc), TranslateError::Malformed { message, .. } if message.contains("external")));
}

#[test]
fn a_tess_factor_element_of_its_own_addresses_its_factor() {
    if find_spirv_val().is_none() {
        return;
    }
    // DXBC conversions declare one element per factor: SV_TessFactor[1] alone, read at row 0,
    // is TessLevelOuter[1].
    let ds = source("ds");
    let own = edit(
        &ds,
        "!11 = !{i32 0, !\"SV_TessFactor\", i8 9, i8 25, !12, i8 0, i32 3, i8 1, i32 0, i8 3, null}",
        "!11 = !{i32 0, !\"SV_TessFactor\", i8 9, i8 25, !17, i8 0, i32 1, i8 1, i32 1, i8 3, null}\n!17 = !{i32 1}",
    );
    let own = edit(
        &own,
        "loadPatchConstant.f32(i32 104, i32 0, i32 1, i8 0)",
        "loadPatchConstant.f32(i32 104, i32 0, i32 0, i8 0)",
    );
    let asm = translate(&own, &Options::default()).unwrap();
    assert!(asm.contains("%TessLevelOuter %uint_1"), "{asm}");
    // A factor past Vulkan's four is a typed error.
    let past = edit(&own, "!17 = !{i32 1}", "!17 = !{i32 4}");
    assert!(
        matches!(typed_error(&past), TranslateError::UnsupportedForm { message, .. } if message.contains("factors 4..5"))
    );
}

/// Pixel-shader pull-model interpolation and `attributeAtVertex` (the `interpolation.pixel`
/// case): what DXC's validator forbids, and what Vulkan's interpolation functions do not
/// take, are typed errors; the sample count is a specialization constant a layer can set.
#[test]
fn pixel_interpolation_rules() {
    let cases = untangle_testkit::dxil_ops::cases::hand_written();
    let ps = cases.iter().find(|c| c.name == "interpolation.pixel").expect("the case").clone();
    let ok = untangle::translate(ps.module("ps").as_bytes(), &Options::default()).expect("the case translates");
    // `OpDecorate %x SpecId RENDER_TARGET_SAMPLE_COUNT_SPEC_ID` (word count 4, opcode 71,
    // decoration 1) on an `OpSpecConstant` (opcode 50) of default 1.
    let w = &ok.words;
    let target = (5..w.len() - 3)
        .find(|&k| w[k] == (4 << 16 | 71) && w[k + 2] == 1 && w[k + 3] == untangle::RENDER_TARGET_SAMPLE_COUNT_SPEC_ID)
        .map(|k| w[k + 1])
        .expect("SpecId decoration");
    assert!((5..w.len() - 3).any(|k| w[k] == (4 << 16 | 50) && w[k + 2] == target && w[k + 3] == 1));
    // A layer that names its own id (dxil-spirv's RASTERIZER_SAMPLE_COUNT as a specialization
    // constant) gets that id and no other.
    let named = Options { render_target_sample_count_spec_id: 77, ..Default::default() };
    let w = untangle::translate(ps.module("ps").as_bytes(), &named).expect("the case translates").words;
    let spec_ids: Vec<u32> =
        (5..w.len() - 3).filter(|&k| w[k] == (4 << 16 | 71) && w[k + 2] == 1).map(|k| w[k + 3]).collect();
    assert_eq!(spec_ids, [77]);
    let invalid = |c: &untangle_testkit::dxil_ops::Case, needle: &str| match untangle::translate(
        c.module("ps").as_bytes(),
        &Options::default(),
    ) {
        Err(untangle::Error::Translate(TranslateError::Invalid { message, .. })) if message.contains(needle) => {}
        other => panic!("expected an Invalid error containing `{needle}`, got {:?}", other.map(|_| "a module")),
    };
    // Evaluating a nointerpolation element (TEXCOORD, element 1).
    let mut c = ps.clone();
    c.shell.inputs[1].interpolation = 1;
    invalid(&c, "evaluation needs a linearly interpolated float");
    // attributeAtVertex of a linearly interpolated element (COLOR, element 4).
    let mut c = ps.clone();
    c.shell.inputs[4].interpolation = 2;
    invalid(&c, "needs nointerpolation");
    // Evaluating SV_Position (element 0): a built-in Vulkan's functions do not take.
    let mut c = ps.clone();
    c.body = edit(&c.body, "(i32 89, i32 2, i32 0, i8 2)", "(i32 89, i32 0, i32 0, i8 2)");
    match untangle::translate(c.module("ps").as_bytes(), &Options::default()) {
        Err(untangle::Error::Translate(TranslateError::UnsupportedForm { message, .. })) => {
            assert!(message.contains("FragCoord"), "{message}")
        }
        other => panic!("{:?}", other.map(|_| "a module")),
    }
    // A constant vertex past the triangle.
    let mut c = ps.clone();
    c.body = edit(&c.body, "i8 3, i8 1)", "i8 3, i8 3)");
    invalid(&c, "vertex 3 of a triangle");
}

/// `Options::maximal_reconvergence` declares `MaximallyReconvergesKHR` (and its extension)
/// on every stage, validated; without it, neither appears.
#[test]
fn maximal_reconvergence_is_declared_on_request() {
    if find_spirv_val().is_none() {
        return;
    }
    let on = Options { maximal_reconvergence: true, ..Default::default() };
    for stage in ["vs", "hs", "ds", "gs", "ps"] {
        let text = source(stage);
        let with = translate(&text, &on).unwrap_or_else(|e| panic!("{stage}: {e}"));
        assert!(modes(&with).contains(&"MaximallyReconvergesKHR".to_string()), "{stage}: {:?}", modes(&with));
        assert!(with.contains("OpExtension \"SPV_KHR_maximal_reconvergence\""), "{stage}");
        let without = translate(&text, &Options::default()).unwrap_or_else(|e| panic!("{stage}: {e}"));
        assert!(!without.contains("MaximallyReconverges"), "{stage}");
    }
    let cs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/cs_groupshared_reduce.ll"))
            .expect("corpus/cs_groupshared_reduce.ll");
    assert!(modes(&translate(&cs, &on).expect("cs")).contains(&"MaximallyReconvergesKHR".to_string()));
}

/// `Options::float_controls2` gives precise float operations (no fast-math flags, as the
/// shader generator writes them) `FPFastMathMode None` in place of `NoContraction` (the
/// two may not decorate one instruction), with the capability and extension; the module
/// validates. Without it, they carry `NoContraction` and no float-controls-2 word appears.
#[test]
fn float_controls2_marks_precise_operations() {
    let Some(val) = find_spirv_val() else { return };
    let m = untangle_testkit::fuzzing::shader_gen::generate(42);
    let on = Options { float_controls2: true, ..Default::default() };
    let with = untangle::translate_module(&m, &on).expect("translates");
    val.validate(&with.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    let asm = val.disassemble(&with.words).unwrap_or_default();
    let none = asm.lines().filter(|l| l.contains("FPFastMathMode None")).count();
    assert!(!asm.contains("NoContraction"));
    assert!(asm.contains("OpCapability FloatControls2") && asm.contains("SPV_KHR_float_controls2"));
    let without = untangle::translate_module(&m, &Options::default()).expect("translates");
    let plain = val.disassemble(&without.words).unwrap_or_default();
    let precise = plain.lines().filter(|l| l.contains("NoContraction")).count();
    assert!(precise > 0 && none == precise, "{precise} NoContraction, {none} FPFastMathMode None");
    assert!(!plain.contains("FPFastMathMode") && !plain.contains("FloatControls2"));
}

/// Under `Options::float_controls2` the entry point also declares `FPFastMathDefault None`
/// for each float width with a precise operation (NVIDIA reassociated precise operations
/// with only their decorations), and a fast operation of that width is decorated with the
/// relaxations it is allowed instead of inheriting the strict default.
#[test]
fn float_controls2_sets_the_default_and_relaxes_fast_operations() {
    if find_spirv_val().is_none() {
        return;
    }
    let m = untangle_testkit::fuzzing::shader_gen::generate(42);
    let text = edit(&untangle::ir::dump::Dumper::new(&m).module(), " = fsub float ", " = fsub fast float ");
    let on = Options { float_controls2: true, ..Default::default() };
    let asm = translate(&text, &on).expect("translates");
    let defaults: Vec<&str> = asm.lines().filter(|l| l.contains("FPFastMathDefault")).collect();
    assert_eq!(defaults.len(), 1, "{defaults:?}");
    assert!(defaults[0].contains("%float"), "{defaults:?}");
    let relaxed: Vec<&str> =
        asm.lines().filter(|l| l.contains("FPFastMathMode") && !l.contains("FPFastMathMode None")).collect();
    assert_eq!(relaxed.len(), 1, "{relaxed:?}");
    for flag in ["AllowContract", "AllowReassoc", "AllowTransform", "AllowRecip"] {
        assert!(relaxed[0].contains(flag), "{relaxed:?}");
    }
    assert!(!relaxed[0].contains("NotNaN") && !relaxed[0].contains("NSZ"), "{relaxed:?}");
    // With every float operation fast there is nothing to protect: no default, no
    // decorations.
    let mut all_fast = text;
    for op in ["fadd", "fsub", "fmul", "fdiv", "frem"] {
        all_fast = all_fast.replace(&format!(" = {op} float "), &format!(" = {op} fast float "));
    }
    let asm = translate(&all_fast, &on).expect("translates");
    assert!(!asm.contains("FPFastMathDefault") && !asm.contains("FPFastMathMode"), "{asm}");
}

/// `Options::wave_lane_count` makes `WaveGetLaneCount()` that constant (dxil-spirv's
/// `FORCE_SUBGROUP_SIZE`); without it, the subgroup size is read.
#[test]
fn wave_lane_count_is_forced_on_request() {
    let body = r#"  %n = call i32 @dx.op.waveGetLaneCount(i32 112)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %n, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    let decls = "declare i32 @dx.op.waveGetLaneCount(i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
    let text = untangle_testkit::dxil_ops::shell::Shell::new("cs").module(body, decls);
    let forced = translate(&text, &Options { wave_lane_count: Some(1), ..Default::default() }).unwrap();
    let read = translate(&text, &Options::default()).unwrap();
    if read.is_empty() {
        return;
    }
    assert!(!forced.contains("SubgroupSize") && forced.contains("OpStore %") && forced.contains("%uint_1"), "{forced}");
    assert!(read.contains("BuiltIn SubgroupSize"), "{read}");
}
