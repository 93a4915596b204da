//! What DXIL operations compute, on the CPU, written from DXC's `docs/DXIL.rst` (and, where
//! it is silent, DXC's constant folder and DXBC converter) without looking at how the
//! translator lowers them: the expectations of the GPU execution tests (`tests/gpu_ops.rs`).
//!
//! Operands and results are [`Value`]s of the synthesizer's scalar types
//! ([`super::synth::Scalar`]), decoded from and encoded to words by the same rules the
//! synthesized shaders use. `None`: no reference for this operation (only validated).

use super::synth::Scalar;
use untangle::dxil::DxOp;

/// A scalar as its raw bits, zero-extended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Value {
    pub ty: Scalar,
    pub bits: u64,
}

impl Value {
    pub fn new(ty: Scalar, bits: u64) -> Value {
        let mask = if ty.bits() >= 64 { u64::MAX } else { (1u64 << ty.bits()) - 1 };
        Value { ty, bits: bits & mask }
    }
    fn signed(self) -> i64 {
        let b = self.ty.bits();
        if b >= 64 {
            self.bits as i64
        } else {
            ((self.bits << (64 - b)) as i64) >> (64 - b)
        }
    }
    fn f32(self) -> f32 {
        f32::from_bits(self.bits as u32)
    }
    fn f64(self) -> f64 {
        f64::from_bits(self.bits)
    }
}

/// The operand values a synthesized call reads from `words` (see [`super::synth`]).
pub fn operands(types: &[Scalar], words: &[u32]) -> Vec<Value> {
    let mut cursor = 0;
    let mut next = || {
        let w = words[cursor % words.len()];
        cursor += 1;
        w
    };
    types
        .iter()
        .map(|&t| {
            let lo = next() as u64;
            let bits = if t.words() == 2 { lo | (next() as u64) << 32 } else { lo };
            Value::new(t, bits)
        })
        .collect()
}

/// The words a synthesized shader stores for `results`.
pub fn words(results: &[Value]) -> Vec<u32> {
    let mut out = Vec::new();
    for v in results {
        out.push(v.bits as u32);
        if v.ty.words() == 2 {
            out.push((v.bits >> 32) as u32);
        }
    }
    out
}

fn int(ty: Scalar, bits: u64) -> Value {
    Value::new(ty, bits)
}

fn b(x: bool) -> Value {
    Value::new(Scalar::I1, x as u64)
}

fn i32v(x: u32) -> Value {
    Value::new(Scalar::I32, x as u64)
}

/// Bits of an IEEE type: (exponent mask, mantissa mask).
fn float_masks(t: Scalar) -> (u64, u64) {
    match t {
        Scalar::F16 => (0x7c00, 0x3ff),
        Scalar::F32 => (0x7f80_0000, 0x7f_ffff),
        _ => (0x7ff0_0000_0000_0000, 0xf_ffff_ffff_ffff),
    }
}

/// DXIL `Ibfe`/`Ubfe` of width `w` (DXIL.rst for 32 bits; DXC's constant folder
/// `ComputeBFE` for 64).
fn bfe(t: Scalar, width: u64, offset: u64, v: Value, signed: bool) -> Value {
    let n = t.bits() as u64;
    let (w, o) = (width & (n - 1), offset & (n - 1));
    if w == 0 {
        return int(t, 0);
    }
    let shr = |x: u64, s: u64| -> u64 {
        if signed {
            (Value::new(t, x).signed() >> s) as u64
        } else {
            Value::new(t, x).bits >> s
        }
    };
    if w + o < n {
        let shifted = Value::new(t, v.bits << (n - (w + o))).bits;
        int(t, shr(shifted, n - w))
    } else {
        int(t, shr(v.bits, o))
    }
}

/// The result values of `op` on `args` (immediates `imm`), or `None` without a reference.
pub fn compute(op: DxOp, o: Scalar, imm: &[u64], args: &[Value]) -> Option<Vec<Value>> {
    use DxOp::*;
    let a = |k: usize| args[k];
    let n = o.bits();
    Some(match op {
        IMul | UMul => {
            let p = if op == IMul { (a(0).signed() * a(1).signed()) as u64 } else { a(0).bits.wrapping_mul(a(1).bits) };
            vec![i32v((p >> 32) as u32), i32v(p as u32)]
        }
        UDiv => {
            let (x, y) = (a(0).bits as u32, a(1).bits as u32);
            // Division by zero gives all ones in both results (DXIL.rst).
            match (x.checked_div(y), x.checked_rem(y)) {
                (Some(q), Some(r)) => vec![i32v(q), i32v(r)],
                _ => vec![i32v(u32::MAX), i32v(u32::MAX)],
            }
        }
        UAddc => {
            let (r, c) = (a(0).bits as u32).overflowing_add(a(1).bits as u32);
            vec![i32v(r), b(c)]
        }
        USubb => {
            let (r, c) = (a(0).bits as u32).overflowing_sub(a(1).bits as u32);
            vec![i32v(r), b(c)]
        }
        IMad | UMad => vec![int(o, a(0).bits.wrapping_mul(a(1).bits).wrapping_add(a(2).bits))],
        IMax => vec![if a(0).signed() >= a(1).signed() { a(0) } else { a(1) }],
        IMin => vec![if a(0).signed() <= a(1).signed() { a(0) } else { a(1) }],
        UMax => vec![int(o, a(0).bits.max(a(1).bits))],
        UMin => vec![int(o, a(0).bits.min(a(1).bits))],
        Ibfe | Ubfe => vec![bfe(o, a(0).bits, a(1).bits, a(2), op == Ibfe)],
        Bfi => {
            let (w, off) = (a(0).bits & 31, a(1).bits & 31);
            let mask = (((1u64 << w) - 1) << off) & 0xffff_ffff;
            vec![int(o, ((a(2).bits << off) & mask) | (a(3).bits & !mask))]
        }
        Msad => {
            // The four bytes of the low 32 bits; the accumulation wraps in the overload.
            let (r, s) = (a(0).bits as u32, a(1).bits as u32);
            let mut sum = 0u64;
            for k in 0..4 {
                let rb = (r >> (8 * k)) & 0xff;
                let sb = (s >> (8 * k)) & 0xff;
                if rb != 0 {
                    sum += rb.abs_diff(sb) as u64;
                }
            }
            vec![int(o, a(2).bits.wrapping_add(sum))]
        }
        Countbits => vec![i32v(a(0).bits.count_ones())],
        FirstbitLo => vec![i32v(if a(0).bits == 0 { u32::MAX } else { a(0).bits.trailing_zeros() })],
        FirstbitHi => {
            let lz = a(0).bits.leading_zeros() - (64 - n);
            vec![i32v(if a(0).bits == 0 { u32::MAX } else { lz })]
        }
        FirstbitSHi => {
            let v = a(0);
            let x = if v.signed() < 0 { !v.bits & Value::new(o, u64::MAX).bits } else { v.bits };
            let lz = x.leading_zeros() - (64 - n);
            vec![i32v(if x == 0 { u32::MAX } else { lz })]
        }
        Bfrev => vec![int(o, a(0).bits.reverse_bits() >> (64 - n))],
        Dot4AddI8Packed | Dot4AddU8Packed => {
            let mut acc = a(0).bits as u32;
            for k in 0..4 {
                let (x, y) = ((a(1).bits as u32 >> (8 * k)) & 0xff, (a(2).bits as u32 >> (8 * k)) & 0xff);
                let p = if op == Dot4AddI8Packed {
                    ((x as u8 as i8 as i32) * (y as u8 as i8 as i32)) as u32
                } else {
                    x * y
                };
                acc = acc.wrapping_add(p);
            }
            vec![i32v(acc)]
        }
        IsNaN | IsInf | IsFinite | IsNormal => {
            let (em, mm) = float_masks(o);
            let (e, m) = (a(0).bits & em, a(0).bits & mm);
            vec![b(match op {
                IsNaN => e == em && m != 0,
                IsInf => e == em && m == 0,
                IsFinite => e != em,
                _ => e != 0 && e != em,
            })]
        }
        Saturate if o == Scalar::F32 => {
            let x = a(0).f32();
            let r = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            vec![Value::new(o, r.to_bits() as u64)]
        }
        LegacyDoubleToSInt32 => {
            let x = a(0).f64();
            vec![i32v(if x.is_nan() { 0 } else { x.clamp(-2147483648.0, 2147483647.0) as i32 as u32 })]
        }
        LegacyDoubleToUInt32 => {
            let x = a(0).f64();
            vec![i32v(if x.is_nan() { 0 } else { x.clamp(0.0, 4294967295.0) as u32 })]
        }
        LegacyDoubleToFloat => {
            // Round to nearest even, as the conversion does by default.
            let x = a(0).f64();
            if x.is_nan() {
                return None;
            }
            vec![Value::new(Scalar::F32, (x as f32).to_bits() as u64)]
        }
        MakeDouble => vec![Value::new(Scalar::F64, a(0).bits | a(1).bits << 32)],
        SplitDouble => vec![i32v(a(0).bits as u32), i32v((a(0).bits >> 32) as u32)],
        BitcastI16toF16 | BitcastF16toI16 | BitcastI32toF32 | BitcastF32toI32 | BitcastI64toF64 | BitcastF64toI64 => {
            let to = match op {
                BitcastI16toF16 => Scalar::F16,
                BitcastF16toI16 => Scalar::I16,
                BitcastI32toF32 => Scalar::F32,
                BitcastF32toI32 => Scalar::I32,
                BitcastI64toF64 => Scalar::F64,
                _ => Scalar::I64,
            };
            vec![Value::new(to, a(0).bits)]
        }
        Pack4x8 => {
            let mut r = 0u32;
            for k in 0..4 {
                let x = a(k).signed();
                let x = match imm.first() {
                    Some(1) => x.clamp(0, 255),
                    Some(2) => x.clamp(-128, 127),
                    _ => x,
                };
                r |= ((x as u32) & 0xff) << (8 * k);
            }
            vec![i32v(r)]
        }
        Unpack4x8 => {
            let p = a(0).bits as u32;
            (0..4)
                .map(|k| {
                    let byte = (p >> (8 * k)) & 0xff;
                    let v = if imm.first() == Some(&1) { byte as u8 as i8 as i64 as u64 } else { byte as u64 };
                    Value::new(o, v)
                })
                .collect()
        }
        _ => return None,
    })
}
