//! The directed-rounding reference of AGS's `FloatOpWithRoundMode` and `FloatConversion`
//! (`untangle_testkit::ags::{rounded_op, f16_rounded}`, written on `f64` from IEEE 754's
//! definitions) against an independent software IEEE implementation, LLVM's APFloat
//! (`rustc_apfloat`): every edge-value pair, 200 000 random pairs, and every `f32` input
//! class for the conversion, in each rounding mode, bit for bit (any NaN for a NaN). The
//! GPU tests (`gpu_ags.rs`) then compare the translated shaders with the reference.

use rustc_apfloat::ieee::{Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use untangle::dxil::ags::{FloatOp, RoundMode};
use untangle_testkit::ags::{f16_rounded, rounded_op, rounding_edge_values, rounding_random_pairs};

fn round(mode: RoundMode) -> Round {
    match mode {
        RoundMode::NearestEven => Round::NearestTiesToEven,
        RoundMode::TowardPositive => Round::TowardPositive,
        RoundMode::TowardNegative => Round::TowardNegative,
        RoundMode::TowardZero => Round::TowardZero,
    }
}

fn apfloat_op(op: FloatOp, mode: RoundMode, a: f32, b: f32) -> u32 {
    let (x, y) = (Single::from_bits(a.to_bits().into()), Single::from_bits(b.to_bits().into()));
    let r = match op {
        FloatOp::Add => x.add_r(y, round(mode)),
        FloatOp::Subtract => x.sub_r(y, round(mode)),
        FloatOp::Multiply => x.mul_r(y, round(mode)),
    };
    r.value.to_bits() as u32
}

fn f32_nan(v: u32) -> bool {
    f32::from_bits(v).is_nan()
}

fn f16_nan(v: u32) -> bool {
    v & 0x7c00 == 0x7c00 && v & 0x3ff != 0
}

#[test]
fn rounded_operations_match_apfloat() {
    let edges = rounding_edge_values();
    let mut pairs: Vec<(f32, f32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
    pairs.extend(rounding_random_pairs(200_000));
    let mut bad = Vec::new();
    for op in [FloatOp::Add, FloatOp::Subtract, FloatOp::Multiply] {
        for mode in RoundMode::ALL {
            for &(a, b) in &pairs {
                let (got, want) = (rounded_op(op, mode, a, b), apfloat_op(op, mode, a, b));
                if got != want && !(f32_nan(got) && f32_nan(want)) {
                    bad.push(format!(
                        "{op:?} {mode:?} {a:e} ({:#x}) {b:e} ({:#x}): {got:#x}, APFloat {want:#x}",
                        a.to_bits(),
                        b.to_bits()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad[..bad.len().min(30)].join("\n"));
}

#[test]
fn f16_conversion_matches_apfloat() {
    let mut inputs = rounding_edge_values();
    // Every f16 value's neighbourhood: midpoints between neighbours and the floats next to them.
    for h in 0..0x7c00u16 {
        let lo = f64::from(half::f16::from_bits(h));
        let hi = if h == 0x7bff { 65536.0 } else { f64::from(half::f16::from_bits(h + 1)) };
        let mid = ((lo + hi) / 2.0) as f32;
        for x in [mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits() - 1), lo as f32] {
            inputs.extend([x, -x]);
        }
    }
    inputs.extend(rounding_random_pairs(100_000).into_iter().flat_map(|(a, b)| [a, b]));
    let mut bad = Vec::new();
    for mode in [RoundMode::NearestEven, RoundMode::TowardNegative, RoundMode::TowardPositive, RoundMode::TowardZero] {
        for &x in &inputs {
            let mut loses = false;
            let want: Half = Single::from_bits(x.to_bits().into()).convert_r(round(mode), &mut loses).value;
            let (got, want) = (f16_rounded(mode, x), want.to_bits() as u32);
            if got != want && !(f16_nan(got) && f16_nan(want)) {
                bad.push(format!("{mode:?} {x:e} ({:#x}): {got:#x}, APFloat {want:#x}", x.to_bits()));
            }
        }
    }
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad[..bad.len().min(30)].join("\n"));
}

/// The reference can fail: a wrong direction is caught.
#[test]
fn a_wrong_direction_is_caught() {
    let (a, b) = (1.0f32, 5.960_464_5e-8); // 1 + 2^-24: a tie
    assert_eq!(rounded_op(FloatOp::Add, RoundMode::NearestEven, a, b), 1.0f32.to_bits());
    assert_eq!(rounded_op(FloatOp::Add, RoundMode::TowardPositive, a, b), 0x3f80_0001);
    assert_ne!(
        apfloat_op(FloatOp::Add, RoundMode::TowardPositive, a, b),
        apfloat_op(FloatOp::Add, RoundMode::TowardZero, a, b)
    );
    assert_eq!(rounded_op(FloatOp::Add, RoundMode::TowardNegative, 1.0, -1.0), 0x8000_0000);
    assert_eq!(rounded_op(FloatOp::Multiply, RoundMode::TowardZero, f32::MAX, 2.0), f32::MAX.to_bits());
    assert_eq!(f16_rounded(RoundMode::TowardNegative, 65520.0), 0x7bff);
    assert_eq!(f16_rounded(RoundMode::NearestEven, 65520.0), 0x7c00);
}
