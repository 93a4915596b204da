//! Sampler feedback (`emit/dxop/feedback.rs`, `docs/sampler-feedback.md`): the four
//! `writeSamplerFeedback*` operations under `Options::sampler_feedback` (vkd3d-proton's
//! encoding), in pixel and compute shaders, on `FeedbackTexture2D` and
//! `FeedbackTexture2DArray`.
//!
//! Without a device: every module passes `spirv-val` (Vulkan 1.3); the feedback map is an
//! `R64ui` storage image; each operation emits its level-of-detail computation and the
//! footprint of its fine and coarse levels in the order the encoding prescribes (checked as
//! a subsequence of the function's instructions, `GLSL.std.450` instructions by number);
//! without an encoding, and where DXIL forbids the operation, translation is refused.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Dim, ImageFormat, Op};
use untangle::{translate, Options, SamplerFeedbackEncoding};

/// Which operation a shader calls.
#[derive(Copy, Clone, PartialEq, Debug)]
enum Kind {
    Implicit,
    Bias,
    Level,
    Grad,
}

const ALL: [Kind; 4] = [Kind::Implicit, Kind::Bias, Kind::Level, Kind::Grad];

/// A `stage` (`ps`/`cs`) shader calling `kind` once on `FB` (u0) with `T` (t0) and `S`
/// (s0); `array`: `FeedbackTexture2DArray` + `Texture2DArray`, else the 2D pair (`paired`
/// overrides the texture's resource kind); `clamp`: the clamp operand is defined (1.0).
fn shader(stage: &str, kind: Kind, array: bool, clamp: bool, paired: Option<u32>) -> String {
    let c = if clamp { "float 1.000000e+00" } else { "float undef" };
    let coords = "float 2.500000e-01, float 7.500000e-01, float 1.000000e+00, float undef";
    let (name, opcode, extra, params) = match kind {
        Kind::Implicit => ("writeSamplerFeedback", 174, c.to_string(), "float"),
        Kind::Bias => ("writeSamplerFeedbackBias", 175, format!("float 5.000000e-01, {c}"), "float, float"),
        Kind::Level => ("writeSamplerFeedbackLevel", 176, "float 1.500000e+00".to_string(), "float"),
        Kind::Grad => (
            "writeSamplerFeedbackGrad",
            177,
            format!(
                "float 1.250000e-01, float 0.000000e+00, float undef, float 0.000000e+00, float 6.250000e-02, float undef, {c}"
            ),
            "float, float, float, float, float, float, float",
        ),
    };
    let (fb_kind, tex_kind) = if array { (18, 7) } else { (17, 2) };
    let tex_kind = paired.unwrap_or(tex_kind);
    let props = if stage == "cs" { "!{i32 4, !9}" } else { "null" };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%T = type {{ <4 x float> }}
%FB = type {{ i32 }}
%S = type {{ i32 }}
define void @main() {{
entry:
  %t = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %fb = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %s = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 3, i32 0, i32 0, i1 false)
  call void @dx.op.{name}(i32 {opcode}, %dx.types.Handle %fb, %dx.types.Handle %t, %dx.types.Handle %s, {coords}, {extra})
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare void @dx.op.{name}(i32, %dx.types.Handle, %dx.types.Handle, %dx.types.Handle, float, float, float, float, {params})
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!8}}
!0 = !{{i32 1, i32 5}}
!1 = !{{!"{stage}", i32 6, i32 5}}
!2 = !{{!3, !4, null, !6}}
!3 = !{{!10}}
!10 = !{{i32 0, %T* undef, !"T", i32 0, i32 0, i32 1, i32 {tex_kind}, i32 0, !11}}
!11 = !{{i32 0, i32 9}}
!4 = !{{!5}}
!5 = !{{i32 0, %FB* undef, !"FB", i32 0, i32 0, i32 1, i32 {fb_kind}, i1 false, i1 false, i1 false, !12}}
!12 = !{{i32 2, i32 0}}
!6 = !{{!7}}
!7 = !{{i32 0, %S* undef, !"S", i32 0, i32 0, i32 1, i32 0, null}}
!8 = !{{void ()* @main, !"main", null, !2, {props}}}
!9 = !{{i32 1, i32 1, i32 1}}
"#
    )
}

fn feedback() -> Options {
    Options { sampler_feedback: Some(SamplerFeedbackEncoding::Vkd3dProton), ..Default::default() }
}

fn validate(words: &[u32], what: &str) {
    untangle_spirv_tools::assert_valid(words, "vulkan1.3", what);
}

/// One step of the expected sequence: an opcode, or a `GLSL.std.450` instruction.
#[derive(Copy, Clone, PartialEq, Debug)]
enum Step {
    Op(Op),
    Glsl(u32),
}

use Step::{Glsl, Op as O};

const ROUND_EVEN: u32 = 2;
const FRACT: u32 = 10;
const EXP2: u32 = 29;
const LOG2: u32 = 30;
const FMIN: u32 = 37;
const FMAX: u32 = 40;
const SCLAMP: u32 = 45;
const FREXP_STRUCT: u32 = 52;
const LDEXP: u32 = 53;
const NCLAMP: u32 = 81;

fn step(i: &Instruction) -> Step {
    match (i.class.opcode, i.operands.get(1)) {
        (Op::ExtInst, Some(Operand::LiteralExtInstInteger(n))) => Glsl(*n),
        (op, _) => O(op),
    }
}

/// The steps of the module's functions, in order.
fn steps(words: &[u32]) -> Vec<Step> {
    let m = rspirv::dr::load_words(words).expect("the module parses");
    m.functions.iter().flat_map(|f| f.all_inst_iter().map(step).collect::<Vec<_>>()).collect()
}

fn count(all: &[Step], s: Step) -> usize {
    all.iter().filter(|&&x| x == s).count()
}

/// Asserts that `want` is a subsequence of `all`.
fn in_order(all: &[Step], want: &[Step], what: &str) {
    let mut it = all.iter();
    for w in want {
        assert!(it.any(|x| x == w), "{what}: {w:?} missing or out of order in {want:?}\n{all:?}");
    }
}

/// The steps of one level's footprint and write (`implicit`: the anisotropic extent).
fn level_steps(implicit: bool, array: bool) -> Vec<Step> {
    let mut v = vec![O(Op::ImageQuerySizeLod)];
    if array {
        v.push(O(Op::VectorShuffle));
    }
    v.extend([O(Op::ConvertSToF), Glsl(LDEXP), O(Op::FMul)]);
    if implicit {
        v.extend([O(Op::FMul), O(Op::FSub), Glsl(FREXP_STRUCT), Glsl(SCLAMP), O(Op::IAdd), Glsl(LDEXP), Glsl(FMIN)]);
    } else {
        v.push(Glsl(LDEXP));
    }
    v.extend([
        O(Op::FSub),
        Glsl(FMAX),
        O(Op::FAdd),
        O(Op::ConvertFToS),
        O(Op::ConvertFToS),
        O(Op::INotEqual),
        O(Op::LogicalAnd),
        O(Op::Select),
        O(Op::BitwiseOr),
        O(Op::Select),
        O(Op::BitwiseOr),
        O(Op::Select),
        O(Op::BitwiseOr),
        O(Op::SConvert),
        O(Op::IMul),
        O(Op::SConvert),
        O(Op::ShiftLeftLogical),
    ]);
    if array {
        v.push(O(Op::CompositeConstruct));
    }
    v.extend([O(Op::ImageTexelPointer), O(Op::AtomicOr)]);
    v
}

/// The whole expected sequence of `kind` (`clamp`: a defined clamp operand).
fn expected(kind: Kind, array: bool, clamp: bool) -> Vec<Step> {
    let mut v = Vec::new();
    if array {
        v.extend([Glsl(ROUND_EVEN), O(Op::ConvertFToS)]);
    }
    v.push(O(Op::ImageQuerySize));
    if array {
        v.push(O(Op::VectorShuffle));
    }
    v.extend([O(Op::BitwiseAnd), O(Op::SNegate), O(Op::ImageQueryLevels)]);
    // The top level (levels - 1) clamps an explicit or gradient LOD; the implicit forms
    // leave it unused, and the emitter drops it.
    if matches!(kind, Kind::Level | Kind::Grad) {
        v.push(O(Op::ISub));
    }
    match kind {
        Kind::Implicit => v.extend([O(Op::SampledImage), O(Op::ImageQueryLod), O(Op::CompositeExtract)]),
        Kind::Bias => v.extend([
            Glsl(EXP2),
            O(Op::GroupNonUniformQuadBroadcast),
            O(Op::VectorTimesScalar),
            O(Op::SampledImage),
            O(Op::ImageQueryLod),
        ]),
        Kind::Level => {}
        Kind::Grad => v.extend([
            O(Op::ImageQuerySizeLod),
            O(Op::ConvertSToF),
            O(Op::FMul),
            O(Op::FMul),
            O(Op::Dot),
            O(Op::Dot),
            Glsl(FMAX),
            Glsl(LOG2),
            O(Op::FMul),
        ]),
    }
    if matches!(kind, Kind::Level | Kind::Grad) {
        v.extend([O(Op::ConvertSToF), Glsl(NCLAMP)]);
    }
    if clamp && kind != Kind::Level {
        v.extend([Glsl(FMAX), Glsl(FMIN)]);
    }
    v.extend([O(Op::ConvertFToS), O(Op::FAdd), O(Op::ConvertFToS), O(Op::INotEqual)]);
    let implicit = matches!(kind, Kind::Implicit | Kind::Bias);
    if implicit {
        v.extend([O(Op::DPdx), O(Op::DPdy)]);
    }
    v.push(Glsl(FRACT));
    v.extend(level_steps(implicit, array));
    v.extend(level_steps(implicit, array));
    v
}

#[test]
fn each_operation_writes_its_footprints_in_pixel_shaders() {
    for kind in ALL {
        for array in [false, true] {
            for clamp in [false, true] {
                let what = format!("ps {kind:?} array={array} clamp={clamp}");
                let t = translate(shader("ps", kind, array, clamp, None).as_bytes(), &feedback())
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                validate(&t.words, &what);
                let all = steps(&t.words);
                in_order(&all, &expected(kind, array, clamp), &what);
                assert_eq!(count(&all, O(Op::AtomicOr)), 2, "{what}: fine and coarse level");
                // Helper invocations write nothing: both writes are guarded.
                assert_eq!(count(&all, O(Op::IsHelperInvocationEXT)), 2, "{what}");
                assert_eq!(count(&all, O(Op::SelectionMerge)), 2, "{what}");
                let quad = usize::from(kind == Kind::Bias);
                assert_eq!(count(&all, O(Op::GroupNonUniformQuadBroadcast)), quad, "{what}");
                let clamps = if clamp && kind != Kind::Level { 1 } else { 0 };
                assert_eq!(
                    count(&all, Glsl(FMIN)),
                    clamps + 2 * usize::from(kind != Kind::Level && kind != Kind::Grad),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn explicit_operations_write_their_footprints_in_compute_shaders() {
    for kind in [Kind::Level, Kind::Grad] {
        for array in [false, true] {
            let what = format!("cs {kind:?} array={array}");
            let t = translate(shader("cs", kind, array, true, None).as_bytes(), &feedback())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&t.words, &what);
            let all = steps(&t.words);
            in_order(&all, &expected(kind, array, true), &what);
            assert_eq!(count(&all, O(Op::AtomicOr)), 2, "{what}");
            // No helpers: the fine level is written unguarded, the coarse one when
            // trilinear.
            assert_eq!(count(&all, O(Op::IsHelperInvocationEXT)), 0, "{what}");
            assert_eq!(count(&all, O(Op::SelectionMerge)), 1, "{what}");
            assert_eq!(count(&all, O(Op::DPdx)), 0, "{what}");
        }
    }
}

#[test]
fn the_feedback_map_is_an_r64ui_storage_image() {
    for array in [false, true] {
        let t = translate(shader("ps", Kind::Level, array, false, None).as_bytes(), &feedback()).expect("translates");
        let m = rspirv::dr::load_words(&t.words).expect("parses");
        let images: Vec<&Instruction> =
            m.types_global_values.iter().filter(|i| i.class.opcode == Op::TypeImage).collect();
        let r64: Vec<&&Instruction> =
            images.iter().filter(|i| i.operands.get(6) == Some(&Operand::ImageFormat(ImageFormat::R64ui))).collect();
        assert_eq!(r64.len(), 1, "{images:?}");
        let img = r64[0];
        assert_eq!(img.operands[1], Operand::Dim(Dim::Dim2D));
        assert_eq!(img.operands[3], Operand::LiteralBit32(u32::from(array)));
        assert_eq!(img.operands[5], Operand::LiteralBit32(2), "a storage image");
        let caps: Vec<Capability> = m
            .capabilities
            .iter()
            .filter_map(|i| match i.operands[0] {
                Operand::Capability(c) => Some(c),
                _ => None,
            })
            .collect();
        assert!(caps.contains(&Capability::Int64ImageEXT) && caps.contains(&Capability::Int64Atomics), "{caps:?}");
        assert!(m
            .extensions
            .iter()
            .any(|i| i.operands[0] == Operand::LiteralString("SPV_EXT_shader_image_int64".into())));
    }
}

#[test]
fn without_an_encoding_the_operations_are_refused() {
    for kind in ALL {
        let e = translate(shader("ps", kind, false, false, None).as_bytes(), &Options::default())
            .expect_err("no encoding selected");
        let text = e.to_string();
        assert!(
            text.contains("Vulkan has no sampler feedback") && text.contains("Options::sampler_feedback"),
            "{text}"
        );
    }
}

#[test]
fn implicit_operations_are_refused_in_compute_shaders() {
    // DXIL allows implicit-LOD feedback in pixel shaders only.
    for kind in [Kind::Implicit, Kind::Bias] {
        let e = translate(shader("cs", kind, false, false, None).as_bytes(), &feedback())
            .expect_err("not valid in compute shaders");
        assert!(e.to_string().contains("not allow it in this stage"), "{e}");
    }
}

#[test]
fn the_paired_texture_must_match_the_map() {
    // A FeedbackTexture2D paired with a Texture2DArray (7), and the reverse.
    for (array, paired) in [(false, 7), (true, 2)] {
        let e = translate(shader("ps", Kind::Level, array, false, Some(paired)).as_bytes(), &feedback())
            .expect_err("mismatched pair");
        assert!(e.to_string().contains("pairs with"), "{e}");
    }
}
