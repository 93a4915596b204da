//! Floating-point arithmetic with D3D's rules, for half, float and double.
//!
//! Sources: D3D11.3 functional spec §3.1 "Floating point rules" (as summarised on
//! learn.microsoft.com "Floating-point rules (Direct3D 11)") and DXC `docs/DXIL.rst`
//! (`FMax`/`FMin`, `FMad`, `Saturate`, the `fp32-denorm-mode` attribute).
//!
//! * `+ - *` are correctly rounded (D3D allows 0.5 ULP, i.e. truncation too; Vulkan
//!   requires correct rounding for `OpFAdd`/`OpFSub`/`OpFMul`, so the translated shader
//!   must agree bit for bit on a conforming driver).
//! * Denormals: untangle's IR does not keep the `fp32-denorm-mode` attribute, so every
//!   function is treated as mode `any`: an input or result may or may not be flushed to a
//!   sign-preserved zero. Each operation is computed both ways; where the two disagree the
//!   result is [`Acc::ANY`]. Half and double are treated the same way (conservative).
//! * Results are computed in `f64` for half and float, then rounded once: for `+ - * /`
//!   and square root, double rounding through a format with at least `2p + 2` bits is
//!   innocuous, so this is the correctly rounded result.
//! * NaN payloads are not defined by D3D: comparisons of results treat all NaNs as equal.

use super::value::{Acc, Scalar};
use half::f16;

/// A float format.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Fk {
    H,
    F,
    D,
}

impl Fk {
    pub fn bits(self) -> u32 {
        match self {
            Fk::H => 16,
            Fk::F => 32,
            Fk::D => 64,
        }
    }
}

pub fn to_f64(bits: u64, fk: Fk) -> f64 {
    match fk {
        Fk::H => f16::from_bits(bits as u16).to_f64(),
        Fk::F => f32::from_bits(bits as u32) as f64,
        Fk::D => f64::from_bits(bits),
    }
}

/// Rounds `x` to the format (round to nearest even).
pub fn from_f64(x: f64, fk: Fk) -> u64 {
    match fk {
        Fk::H => f16::from_f64(x).to_bits() as u64,
        Fk::F => (x as f32).to_bits() as u64,
        Fk::D => x.to_bits(),
    }
}

fn exp_mant(bits: u64, fk: Fk) -> (u64, u64) {
    match fk {
        Fk::H => ((bits >> 10) & 0x1f, bits & 0x3ff),
        Fk::F => ((bits >> 23) & 0xff, bits & 0x7f_ffff),
        Fk::D => ((bits >> 52) & 0x7ff, bits & 0xf_ffff_ffff_ffff),
    }
}

pub fn is_denorm(bits: u64, fk: Fk) -> bool {
    let (e, m) = exp_mant(bits, fk);
    e == 0 && m != 0
}

pub fn is_nan(bits: u64, fk: Fk) -> bool {
    let (e, m) = exp_mant(bits, fk);
    let max = match fk {
        Fk::H => 0x1f,
        Fk::F => 0xff,
        Fk::D => 0x7ff,
    };
    e == max && m != 0
}

fn sign_bit(fk: Fk) -> u64 {
    1u64 << (fk.bits() - 1)
}

/// Flushes a denormal to a zero of the same sign.
pub fn ftz(bits: u64, fk: Fk) -> u64 {
    if is_denorm(bits, fk) {
        bits & sign_bit(fk)
    } else {
        bits
    }
}

/// Computes `f` over the operands with denormals preserved and with them flushed (inputs
/// and result); equal results are exact (accuracy of the inputs), different ones `ANY`.
pub fn both_modes(args: &[Scalar], fk: Fk, f: impl Fn(&[u64]) -> u64) -> Scalar {
    let raw: Vec<u64> = args.iter().map(|a| a.bits).collect();
    let keep = f(&raw);
    let acc = args.iter().fold(Acc::EXACT, |a, s| a.join(s.acc));
    let any_denorm = raw.iter().any(|&b| is_denorm(b, fk)) || is_denorm(keep, fk);
    if !any_denorm {
        return Scalar { bits: keep, acc };
    }
    let flushed: Vec<u64> = raw.iter().map(|&b| ftz(b, fk)).collect();
    let flush = ftz(f(&flushed), fk);
    if same_float(keep, flush, fk) {
        Scalar { bits: keep, acc }
    } else {
        Scalar { bits: keep, acc: Acc::ANY }
    }
}

/// Bitwise equal, or both NaN.
pub fn same_float(a: u64, b: u64, fk: Fk) -> bool {
    a == b || (is_nan(a, fk) && is_nan(b, fk))
}

/// Distance in units in the last place between two floats of one format (NaN to NaN is
/// 0; NaN to a number is `u64::MAX`; +0 and -0 are 0 apart).
pub fn ulp_distance(a: u64, b: u64, fk: Fk) -> u64 {
    if is_nan(a, fk) || is_nan(b, fk) {
        return if is_nan(a, fk) && is_nan(b, fk) { 0 } else { u64::MAX };
    }
    // Map sign-magnitude to a monotonic integer line.
    let s = sign_bit(fk);
    let line = |x: u64| -> i128 {
        if x & s != 0 {
            -((x & !s) as i128)
        } else {
            x as i128
        }
    };
    (line(a) - line(b)).unsigned_abs() as u64
}

/// Whether the real result of `x + y` (`mul`: `x * y`) is not a value of format `fk`, so
/// that the operation rounds (overflow to infinity included). Sums use Knuth's TwoSum and
/// products the FMA residual to see an inexact `f64` step.
pub fn rounds(x: f64, y: f64, mul: bool, fk: Fk) -> bool {
    let r = if mul { x * y } else { x + y };
    if r.is_nan() {
        return false;
    }
    if r.is_infinite() {
        return x.is_finite() && y.is_finite();
    }
    let err = if mul {
        x.mul_add(y, -r)
    } else {
        let b = r - x;
        (x - (r - b)) + (y - b)
    };
    err != 0.0 || to_f64(from_f64(r, fk), fk) != r
}

/// `fadd`/`fsub`/`fmul` (`op` `+`, `-`, `*`) with D3D's rules and fast-math: correctly
/// rounded (both denormal modes, [`both_modes`]); a result that rounds is
/// [`Acc::ROUNDED`]. A `fast` operation (DXC's default, anything not `precise`) may be
/// fused with or reassociated around the operations that produced its operands, so one
/// reading a rounded operand is undefined: a multiply-add fused or not, `(a + b) - b`
/// folded to `a` or not, give different bits only when some step rounds.
pub fn arith_fast(a: Scalar, b: Scalar, fk: Fk, op: char, fast: bool) -> Scalar {
    let f = move |x: f64, y: f64| match op {
        '+' => x + y,
        '-' => x - y,
        _ => x * y,
    };
    let r = arith2(a, b, fk, f);
    if !r.acc.is_exact() {
        return r;
    }
    if fast && (a.acc.is_rounded() || b.acc.is_rounded()) {
        return Scalar { acc: Acc::ANY, ..r };
    }
    let (x, y) = (to_f64(a.bits, fk), to_f64(b.bits, fk));
    let rounded = match op {
        '+' => rounds(x, y, false, fk),
        '-' => rounds(x, -y, false, fk),
        _ => rounds(x, y, true, fk),
    };
    Scalar { acc: if rounded || r.acc.is_rounded() { Acc::ROUNDED } else { Acc::EXACT }, ..r }
}

/// Binary operation `op` computed in f64 and rounded once (see module docs).
pub fn arith2(a: Scalar, b: Scalar, fk: Fk, op: impl Fn(f64, f64) -> f64) -> Scalar {
    both_modes(&[a, b], fk, |v| from_f64(op(to_f64(v[0], fk), to_f64(v[1], fk)), fk))
}

pub fn arith1(a: Scalar, fk: Fk, op: impl Fn(f64) -> f64) -> Scalar {
    both_modes(&[a], fk, |v| from_f64(op(to_f64(v[0], fk)), fk))
}

/// D3D `max`: a NaN operand yields the other operand; denormals flushed for the
/// comparison (the result may or may not be flushed).
pub fn fmax(a: Scalar, b: Scalar, fk: Fk) -> Scalar {
    minmax(a, b, fk, true)
}

pub fn fmin(a: Scalar, b: Scalar, fk: Fk) -> Scalar {
    minmax(a, b, fk, false)
}

fn minmax(a: Scalar, b: Scalar, fk: Fk, max: bool) -> Scalar {
    both_modes(&[a, b], fk, |v| {
        let (x, y) = (v[0], v[1]);
        if is_nan(x, fk) {
            return y;
        }
        if is_nan(y, fk) {
            return x;
        }
        let (fx, fy) = (to_f64(x, fk), to_f64(y, fk));
        // `>=` so that min(x, y) = x implies max(x, y) = y (DXIL.rst, FMax). For ±0 the
        // order of zeros is not defined: both are valid, see `zero_sign_any`.
        if max {
            if fx >= fy {
                x
            } else {
                y
            }
        } else if fx < fy {
            x
        } else {
            y
        }
    })
}

/// `min`/`max` of +0 and -0 may return either zero. The sign of a zero is never
/// significant in this model (float comparisons of results treat ±0 as equal, reading a
/// zero's bits as an integer is undefined, an infinity from dividing by a zero is
/// undefined), so either is kept as exact.
pub fn zero_sign_any(_a: Scalar, _b: Scalar, r: Scalar, _fk: Fk) -> Scalar {
    r
}

/// Ordered comparison result under both denormal modes; `None` when they disagree.
pub fn compare(a: u64, b: u64, fk: Fk, pred: impl Fn(f64, f64) -> bool) -> Option<bool> {
    let keep = pred(to_f64(a, fk), to_f64(b, fk));
    let flush = pred(to_f64(ftz(a, fk), fk), to_f64(ftz(b, fk), fk));
    (keep == flush).then_some(keep)
}

/// How a narrowing float conversion rounds a value that falls between two values of the
/// smaller format.
///
/// D3D does not fix it for `fptrunc` to half: vkd3d-proton's `test_shader_instructions_dxil`
/// (fptrunc tests) accepts round-to-nearest-even and round-toward-zero, because AMD and
/// NVIDIA differ; past the half range RNE gives ±infinity and RTZ the largest finite half.
/// For `f32tof16` (`LegacyF32ToF16`) the D3D11 functional spec prescribes RTZ (as
/// vkd3d-proton's `test_shader_instructions` cites it), a check vkd3d-proton marks as a
/// todo on Vulkan, where a conversion's rounding is not defined
/// (Vulkan "Floating-point conversion": either neighbour) and the translation emits a plain
/// `PackHalf2x16`. D3D's 0.5 ULP rule for float results (truncation allowed) covers
/// `fptrunc` from double to float. The interpreter therefore accepts either mode for every
/// narrowing conversion: [`super::sched::run`] runs a dispatch under one mode, and the
/// differential harness runs the RTZ variant too when the RNE run met a conversion where
/// the two differ (a device uses one mode throughout a dispatch: see `difftest`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Narrowing {
    /// Round to nearest, ties to even.
    #[default]
    NearestEven,
    /// Round toward zero (truncate); out of range gives the largest finite value.
    TowardZero,
}

/// Float to float conversion (`fptrunc`, `fpext`, `LegacyF32ToF16`, `LegacyDoubleToFloat`);
/// a narrowing one rounds as `mode` says ([`Narrowing`]). Returns the result and whether
/// the two modes give different results for this input (then the value depends on the
/// device's choice).
pub fn convert(a: Scalar, from: Fk, to: Fk, mode: Narrowing) -> (Scalar, bool) {
    let round = |bits: u64| {
        let x = to_f64(bits, from);
        let rne = from_f64(x, to);
        let rtz = toward_zero(x, rne, to);
        (if mode == Narrowing::TowardZero { rtz } else { rne }, rne != rtz)
    };
    let (keep, differs) = round(a.bits);
    let (flushed, differs_flushed) = round(ftz(a.bits, from));
    let flush = ftz(flushed, to);
    let acc = if same_float(keep, flush, to) { a.acc } else { Acc::ANY };
    (Scalar { bits: keep, acc }, differs || differs_flushed)
}

/// The round-toward-zero result of converting `x` to `to`, given its correctly rounded
/// result `rne`: RNE's result when that is not larger in magnitude than `x`, else its
/// neighbour toward zero (one less in sign-magnitude bits: an infinity becomes the largest
/// finite value). NaN and infinite inputs convert as they are.
fn toward_zero(x: f64, rne: u64, to: Fk) -> u64 {
    if !x.is_finite() || to_f64(rne, to).abs() <= x.abs() {
        rne
    } else {
        rne - 1
    }
}
