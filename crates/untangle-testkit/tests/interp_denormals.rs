//! Denormal flushing the differential interpreter must accept: D3D lets 32-bit float
//! arithmetic flush a denormal operand or result to a zero of the same sign, and the H200
//! does so after negation, after `FAbs`, in a compare-and-select (drivers make it a
//! min/max), and on an unfused `FMad`'s product (2,000 generated long-vector programs found
//! each). A device that keeps the denormals and one that flushes them both match; a value
//! that is neither is still a mismatch, and so is a wrong value from an operation without
//! denormals.
//!
//! The expected words are written by hand from the IEEE single format.
use untangle::dxil::ResourceClass;
use untangle_testkit::difftest::compare;
use untangle_testkit::difftest::inputs::{inputs, to_interp, Budget};
use untangle_testkit::difftest::reference;
use untangle_testkit::interp::{Program, Resources};

/// One thread reads `d` (word 0), `t` (word 1) and `z` (word 2) of u0 and writes words
/// 4..9: `-d`, `FAbs(-d)`, `select(1.0 < d, 1.0, d)`, `FMad(t, t, z)`, `-1.5`.
const SHADER: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { i8* }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%struct.Buf = type { i32 }
define void @main() {
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %l0 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 0, i32 undef, i8 1, i32 4)
  %d = extractvalue %dx.types.ResRet.f32 %l0, 0
  %l1 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 4, i32 undef, i8 1, i32 4)
  %t = extractvalue %dx.types.ResRet.f32 %l1, 0
  %l2 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 8, i32 undef, i8 1, i32 4)
  %z = extractvalue %dx.types.ResRet.f32 %l2, 0
  %neg = fneg float %d
  %abs = call float @dx.op.unary.f32(i32 6, float %neg)
  %lt = fcmp olt float 1.000000e+00, %d
  %sel = select i1 %lt, float 1.000000e+00, float %d
  %mad = call float @dx.op.tertiary.f32(i32 46, float %t, float %t, float %z)
  %ctl = fneg float 1.500000e+00
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 16, i32 undef, float %neg, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 20, i32 undef, float %abs, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 24, i32 undef, float %sel, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 28, i32 undef, float %mad, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 32, i32 undef, float %ctl, float undef, float undef, float undef, i8 1, i32 4)
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
declare float @dx.op.unary.f32(i32, float)
declare float @dx.op.tertiary.f32(i32, float, float, float)
!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!6}
!0 = !{i32 1, i32 2}
!2 = !{!"cs", i32 6, i32 2}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.Buf* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!6 = !{void ()* @main, !"main", null, !3, !7}
!7 = !{i32 0, i64 16, i32 4, !8}
!8 = !{i32 1, i32 1, i32 1}
"#;

/// `d`: the denormal 0x21 (33 × 2^-149).
const D: u32 = 0x21;
/// `t` = 2^-70, so `t·t` = 2^-140 is a denormal; `z` = 2^-120, a normal whose last place
/// is 2^-143, so `z + t·t` is exact in single precision and differs from `z`.
const T: u32 = (127 - 70) << 23;
const Z: u32 = (127 - 120) << 23;

/// The device's words 0..9: the inputs, then the five results, with the denormals kept
/// or flushed.
fn device_words(flush: bool) -> Vec<u32> {
    let kept_mad = ((2f64.powi(-120) + 2f64.powi(-140)) as f32).to_bits();
    let (neg, abs, sel, mad) = if flush { (0x8000_0000, 0, 0, Z) } else { (0x8000_0000 | D, D, D, kept_mad) };
    vec![D, T, Z, 0, neg, abs, sel, mad, (-1.5f32).to_bits(), 0]
}

fn bytes(words: &[u32]) -> Vec<Option<Vec<u8>>> {
    vec![Some(words.iter().flat_map(|w| w.to_le_bytes()).collect())]
}

fn run() -> Resources {
    let m = untangle::front::load_bytes(SHADER.as_bytes().to_vec(), "denormals.ll").expect("loads").module;
    let p = Program::new(Box::leak(Box::new(m))).unwrap_or_else(|e| panic!("{}", e.0));
    let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
    for i in &mut ins {
        assert_eq!(i.class, ResourceClass::Uav);
        i.bytes = device_words(false)[..4].iter().chain(&[0u32; 6]).flat_map(|w| w.to_le_bytes()).collect();
    }
    let res: Resources = to_interp(&ins);
    reference(&p, &res, 32, [1, 1, 1]).expect("runs")
}

#[test]
fn kept_and_flushed_denormals_both_match_and_other_values_do_not() {
    let expected = run();
    for flush in [false, true] {
        let (bad, _) = compare(&expected, &bytes(&device_words(flush)));
        assert!(bad.is_empty(), "flush {flush}: {}", bad.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"));
    }
    // The control word (no denormal involved) is exact: a wrong value there is caught.
    let mut wrong = device_words(true);
    wrong[8] = (-1.25f32).to_bits();
    let (bad, _) = compare(&expected, &bytes(&wrong));
    assert_eq!(bad.iter().map(|m| m.byte_offset).collect::<Vec<_>>(), [32], "{bad:?}");
}
