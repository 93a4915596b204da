//! The rounding of narrowing float conversions (issue 33, item 7): D3D does not fix it.
//! vkd3d-proton's `test_shader_instructions_dxil` accepts round-to-nearest-even and
//! round-toward-zero for `fptrunc` to half (AMD and NVIDIA differ; past the half range RNE
//! gives ±infinity and RTZ the largest finite half), and the D3D11 spec prescribes RTZ
//! for `f32tof16` (which Vulkan cannot pin). The differential harness must accept either
//! device's answer, through later arithmetic and bitcasts, and still reject any third
//! value.
//!
//! The expected words are written by hand from the IEEE half format (an oracle independent
//! of the interpreter's conversion code).

use untangle::dxil::ResourceClass;
use untangle::{translate, Options};
use untangle_testkit::difftest::inputs::{inputs, to_interp, Budget};
use untangle_testkit::difftest::{compare, compare_variants, reference, reference_variants};
use untangle_testkit::interp::{Program, Resources};

/// Four threads; thread `i` reads the float `x` at word `i` of u0 and writes words
/// `4 + 4i ..`: `zext(asuint16(half(x)))`, `float(half(x)) + 0.125` (precise), and
/// `f32tof16(x)` (`LegacyF32ToF16`).
const SHADER: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { i8* }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%struct.Buf = type { i32 }
define void @main() {
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %id, 2
  %ld = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 %a, i32 undef, i8 1, i32 4)
  %x = extractvalue %dx.types.ResRet.f32 %ld, 0
  %h = fptrunc float %x to half
  %hb = bitcast half %h to i16
  %w0 = zext i16 %hb to i32
  %y = fpext half %h to float
  %w1 = fadd float %y, 1.250000e-01
  %w2 = call i32 @dx.op.legacyF32ToF16(i32 130, float %x)
  %o = shl i32 %id, 4
  %o0 = add i32 %o, 16
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %buf, i32 %o0, i32 undef, i32 %w0, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  %o1 = add i32 %o, 20
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 %o1, i32 undef, float %w1, float undef, float undef, float undef, i8 1, i32 4)
  %o2 = add i32 %o, 24
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %buf, i32 %o2, i32 undef, i32 %w2, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare i32 @dx.op.legacyF32ToF16(i32, float)
!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!6}
!0 = !{i32 1, i32 2}
!1 = !{i32 1, i32 8}
!2 = !{!"cs", i32 6, i32 2}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.Buf* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!6 = !{void ()* @main, !"main", null, !3, !7}
!7 = !{i32 0, i64 8388656, i32 4, !8}
!8 = !{i32 4, i32 1, i32 1}
"#;

/// Half bits (hand-computed): 512 is 0x6000 and the step there is 0.5.
const H_513_5: u32 = 0x6003;
const H_514: u32 = 0x6004;
const H_INF: u32 = 0x7c00;
const H_MAX: u32 = 0x7bff;
const NEG: u32 = 0x8000;

/// The inputs: between two halves (RNE rounds away from zero), its negation, past the half
/// range, and a half exactly.
const INPUTS: [f32; 4] = [513.9, -513.9, 100000.0, 513.5];

/// The device words of a run whose narrowing conversions round to nearest even (`rtz`
/// false) or toward zero.
fn device_words(rtz: bool) -> Vec<u32> {
    let mut w: Vec<u32> = INPUTS.iter().map(|x| x.to_bits()).collect();
    let half = [
        if rtz { H_513_5 } else { H_514 },
        NEG | if rtz { H_513_5 } else { H_514 },
        if rtz { H_MAX } else { H_INF },
        H_513_5,
    ];
    let plus_eighth = [
        if rtz { 513.625f32 } else { 514.125 },
        if rtz { -513.375f32 } else { -513.875 },
        if rtz { 65504.125f32 } else { f32::INFINITY },
        513.625,
    ];
    for i in 0..4 {
        w.extend([half[i], plus_eighth[i].to_bits(), half[i], 0]);
    }
    w
}

fn program() -> Program<'static> {
    let m = untangle::front::load_bytes(SHADER.as_bytes().to_vec(), "rounding.ll").expect("loads").module;
    Program::new(Box::leak(Box::new(m))).unwrap_or_else(|e| panic!("{}", e.0))
}

fn interp_inputs(p: &Program, values: &[f32]) -> Resources {
    let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
    for i in &mut ins {
        assert_eq!(i.class, ResourceClass::Uav);
        let mut words: Vec<u32> = values.iter().map(|x| x.to_bits()).collect();
        words.resize(20, 0);
        i.bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    }
    to_interp(&ins)
}

fn bytes(words: &[u32]) -> Vec<Option<Vec<u8>>> {
    vec![Some(words.iter().flat_map(|w| w.to_le_bytes()).collect())]
}

/// Both devices' answers match the variants; the round-toward-zero answer does not match
/// the round-to-nearest reference alone (the interpreter's old rule, the issue's false
/// mismatch); a third value, one step further, matches neither.
#[test]
fn narrowing_conversions_accept_either_rounding_and_nothing_else() {
    let p = program();
    let res = interp_inputs(&p, &INPUTS);
    let variants = reference_variants(&p, &res, 32, [1, 1, 1]).expect("runs");
    assert_eq!(variants.len(), 2, "a conversion rounds differently toward zero: two variants");
    for rtz in [false, true] {
        let (bad, counts) = compare_variants(&variants, &bytes(&device_words(rtz)));
        assert!(bad.is_empty(), "rtz {rtz}: {}", bad.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"));
        assert_eq!(counts.skipped, 0, "every word is compared");
        assert_eq!(counts.compared, 20);
    }
    let (bad, _) = compare(&reference(&p, &res, 32, [1, 1, 1]).expect("runs"), &bytes(&device_words(true)));
    assert_eq!(bad.len(), 9, "nearest-even alone rejects the truncating device: {bad:?}");
    // Third values: one half step past either answer, and 513.5 + 0.125 for 514.0 + 0.125.
    let mut third = device_words(false);
    third[4] = H_514 + 1;
    third[9] = (-513.5f32 - 0.125 - 0.5).to_bits();
    third[10] = NEG | (H_513_5 - 1);
    third[14] = H_513_5 - 1;
    let (bad, _) = compare_variants(&variants, &bytes(&third));
    let offsets: Vec<usize> = bad.iter().map(|m| m.byte_offset).collect();
    assert_eq!(offsets, [16, 36, 40, 56], "{bad:?}");
}

/// Without a conversion that the two modes round differently there is one variant, and it
/// is exact: 513.5 converts to 0x6003 and nothing else.
#[test]
fn exact_conversions_have_one_variant() {
    let p = program();
    let res = interp_inputs(&p, &[513.5; 4]);
    let variants = reference_variants(&p, &res, 32, [1, 1, 1]).expect("runs");
    assert_eq!(variants.len(), 1);
    let mut w = vec![513.5f32.to_bits(); 4];
    for _ in 0..4 {
        w.extend([H_513_5, 513.625f32.to_bits(), H_513_5, 0]);
    }
    assert!(compare_variants(&variants, &bytes(&w)).0.is_empty());
    w[4] = H_513_5 - 1;
    assert_eq!(compare_variants(&variants, &bytes(&w)).0.len(), 1);
}

/// The shader translates to valid SPIR-V (the half conversions the runs compare).
#[test]
fn rounding_shader_translates_to_valid_spirv() {
    let t = translate(SHADER.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("translates: {e}"));
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "rounding shader");
}
