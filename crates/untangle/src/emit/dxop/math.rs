//! Floating-point arithmetic: unary functions (`GLSL.std.450` where it has them), rounding,
//! classification, min/max, multiply-add, and dot products.
//!
//! D3D semantics kept here (DXC `docs/DXIL.rst`):
//! - `FMax`/`FMin` return the non-NaN operand (`NMax`/`NMin`), and `Saturate(NaN)` is 0
//!   ("by the rules for min and max"): `NClamp(x, 0, 1)`.
//! - `FMad` is an unfused multiply and add; `Fma` (doubles only) is fused.
//! - `IsNaN`/`IsInf`/`IsFinite`/`IsNormal` test the encoding's exponent and mantissa bits, as
//!   DXC's own emulation does (`DxilPreparePasses.cpp`, `emulateIsNormal`: "exponent bits are
//!   neither all 0s nor all 1s"), so they do not depend on how a driver treats NaNs or
//!   denormals in floating-point arithmetic.
//! - `Dot2AddHalf` is `acc + (float(a.x * b.x) + float(a.y * b.y))`: the products in half
//!   precision (an overflowing product is an infinity), their sum and the accumulation in
//!   32 bits, the dot product completed before the accumulator is added (vkd3d-proton's
//!   `test_shader_sm64_packed` checks both on hardware; dxil-spirv emits the same).
//! - `FDot` (DXIL 1.9) is the dot product of two native float vectors, `OpDot` (its
//!   operands are `<N x half|float>`; vectors longer than 4 are refused where their type is
//!   made, [`crate::emit::module`]).

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::glsl;
use crate::emit::{Call, FnEmit, Num};
use rspirv::spirv::{Op, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn float_op(&mut self, c: &Call<'_>) -> Result<Word> {
        use DxOp::*;
        let t = self.cx.ty(c.ty)?;
        Ok(match c.op {
            FAbs | Cos | Sin | Tan | Acos | Asin | Atan | Hcos | Hsin | Htan | Exp | Frc | Log | Sqrt | Rsqrt
            | Round_ne | Round_ni | Round_pi | Round_z => {
                let inst = match c.op {
                    FAbs => glsl::FABS,
                    Cos => glsl::COS,
                    Sin => glsl::SIN,
                    Tan => glsl::TAN,
                    Acos => glsl::ACOS,
                    Asin => glsl::ASIN,
                    Atan => glsl::ATAN,
                    Hcos => glsl::COSH,
                    Hsin => glsl::SINH,
                    Htan => glsl::TANH,
                    Exp => glsl::EXP2,
                    Frc => glsl::FRACT,
                    Log => glsl::LOG2,
                    Sqrt => glsl::SQRT,
                    Rsqrt => glsl::INVERSE_SQRT,
                    Round_ne => glsl::ROUND_EVEN,
                    Round_ni => glsl::FLOOR,
                    Round_pi => glsl::CEIL,
                    _ => glsl::TRUNC,
                };
                let x = self.arg_val(c, 0)?;
                self.glsl(t, inst, &[x])?
            }
            Saturate => {
                let x = self.arg_val(c, 0)?;
                let zero = self.scalar_const(c.ty, 0, 0.0)?;
                let one = self.scalar_const(c.ty, 1, 1.0)?;
                self.glsl(t, glsl::NCLAMP, &[x, zero, one])?
            }
            IsNaN | IsInf | IsFinite | IsNormal => self.classify(c)?,
            FMax | FMin => {
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                self.glsl(t, if c.op == FMax { glsl::NMAX } else { glsl::NMIN }, &[a, b])?
            }
            FMad => {
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                let d = self.arg_val(c, 2)?;
                let p = self.ids_op(Op::FMul, t, &[a, b])?;
                self.ids_op(Op::FAdd, t, &[p, d])?
            }
            Fma => {
                let ws = [self.arg_val(c, 0)?, self.arg_val(c, 1)?, self.arg_val(c, 2)?];
                self.glsl(t, glsl::FMA, &ws)?
            }
            Dot2 | Dot3 | Dot4 => {
                let n = match c.op {
                    Dot2 => 2,
                    Dot3 => 3,
                    _ => 4,
                };
                let vt = self.cx.vec(t, n as u32);
                let mut a = Vec::new();
                let mut b = Vec::new();
                for k in 0..n {
                    a.push(self.arg_val(c, k)?);
                    b.push(self.arg_val(c, n + k)?);
                }
                let va = self.ids_op(Op::CompositeConstruct, vt, &a)?;
                let vb = self.ids_op(Op::CompositeConstruct, vt, &b)?;
                self.ids_op(Op::Dot, t, &[va, vb])?
            }
            FDot => {
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                match self.cx.long_value(a) {
                    // A long vector (an array of lanes) has no `OpDot`: the lanes' products
                    // summed in lane order (DXIL leaves the order of the sum open, as
                    // `OpDot` does).
                    Some((elem, n)) => {
                        let mut sum = None;
                        for k in 0..n {
                            let x = self.ids_op(Op::CompositeExtract, elem, &[a, k])?;
                            let y = self.ids_op(Op::CompositeExtract, elem, &[b, k])?;
                            let p = self.ids_op(Op::FMul, elem, &[x, y])?;
                            sum = Some(match sum {
                                Some(s) => self.ids_op(Op::FAdd, elem, &[s, p])?,
                                None => p,
                            });
                        }
                        sum.ok_or_else(|| self.err("FDot of an empty vector".to_string()))?
                    }
                    None => self.ids_op(Op::Dot, t, &[a, b])?,
                }
            }
            Dot2AddHalf => {
                // acc + (float(a.x * b.x) + float(a.y * b.y)): each product in the operands'
                // precision, the dot product completed in 32 bits before the accumulator
                // is added.
                let f = self.cx.float(32);
                let acc = self.arg_val(c, 0)?;
                let mut products = [0; 2];
                for (k, p) in products.iter_mut().enumerate() {
                    let ty = self.arg_ty(c, 1 + k)?;
                    let ht = self.cx.ty(ty)?;
                    let a = self.arg_val(c, 1 + k)?;
                    let bv = self.arg_val(c, 3 + k)?;
                    let m = self.ids_op(Op::FMul, ht, &[a, bv])?;
                    *p = self.ir_to_num(m, ty, Num::Float)?;
                }
                let dot = self.ids_op(Op::FAdd, f, &products)?;
                self.ids_op(Op::FAdd, f, &[acc, dot])?
            }
            other => return Err(self.not_in_family(other, "float math")),
        })
    }

    /// `IsNaN`, `IsInf`, `IsFinite`, `IsNormal` of a half or float, or (DXIL 1.9) of a
    /// native vector of them, lane by lane, from its bits.
    fn classify(&mut self, c: &Call<'_>) -> Result<Word> {
        let ty = self.arg_ty(c, 0)?;
        let bits = self.scalar_bits(ty).unwrap_or(32);
        let lanes = match self.cx.m.types.get(ty) {
            crate::ir::Type::Vector { len, .. } => Some(*len),
            _ => None,
        };
        let x = self.arg_val(c, 0)?;
        // A long vector (an array of lanes, `crate::emit::long_vector`): lane by lane, the
        // `i1` lanes built into the result's array.
        if let Some((elem, n)) = self.cx.long_value(x) {
            let mut out = Vec::with_capacity(n as usize);
            for k in 0..n {
                let lane = self.cx.b.block_value(Op::CompositeExtract, elem, &[x, k])?;
                out.push(self.classify_bits(c.op, lane, bits, None)?);
            }
            let rt = self.cx.ty(c.ty)?;
            return self.ids_op(Op::CompositeConstruct, rt, &out);
        }
        self.classify_bits(c.op, x, bits, lanes)
    }

    /// [`Self::classify`] of `x`, a float of `bits` or a vector of `lanes` of them.
    fn classify_bits(&mut self, op: DxOp, x: Word, bits: u32, lanes: Option<u32>) -> Result<Word> {
        let (exp_mask, mant_mask) = if bits == 16 { (0x7c00u64, 0x03ffu64) } else { (0x7f80_0000, 0x007f_ffff) };
        let (su, sb) = (self.cx.uint(bits), self.cx.bool_t());
        let (ut, b) = match lanes {
            Some(n) => (self.cx.vec(su, n), self.cx.vec(sb, n)),
            None => (su, sb),
        };
        let v = self.ids_op(Op::Bitcast, ut, &[x])?;
        let mut splat = |value: u64| {
            let k = self.cx.const_bits(su, bits, value);
            match lanes {
                Some(n) => self.cx.b.constant_composite(ut, vec![k; n as usize]),
                None => k,
            }
        };
        let (em, mm, zero) = (splat(exp_mask), splat(mant_mask), splat(0));
        let e = self.ids_op(Op::BitwiseAnd, ut, &[v, em])?;
        let all_ones = self.ids_op(Op::IEqual, b, &[e, em])?;
        let r = match op {
            DxOp::IsNaN | DxOp::IsInf => {
                let m = self.ids_op(Op::BitwiseAnd, ut, &[v, mm])?;
                let op = if op == DxOp::IsNaN { Op::INotEqual } else { Op::IEqual };
                let mant = self.ids_op(op, b, &[m, zero])?;
                self.ids_op(Op::LogicalAnd, b, &[all_ones, mant])?
            }
            DxOp::IsFinite => self.ids_op(Op::LogicalNot, b, &[all_ones])?,
            _ => {
                let not_zero = self.ids_op(Op::INotEqual, b, &[e, zero])?;
                let not_ones = self.ids_op(Op::LogicalNot, b, &[all_ones])?;
                self.ids_op(Op::LogicalAnd, b, &[not_zero, not_ones])?
            }
        };
        Ok(r)
    }
}
