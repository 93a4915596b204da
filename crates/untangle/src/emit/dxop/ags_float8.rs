//! AGS's scalar float8 conversions (`AmdExtD3DShaderIntrinsicsOpcode_Float8Conversion`):
//! `FP8` is OCP E4M3 (bias 7, no infinity, NaN `0x7f`/`0xff`, largest 448), `BF8` is E5M2
//! (bias 15, IEEE-like: `0x7c` infinity, largest 57344). The call's src0 is the input (a
//! float's bits, or a float8 code in its low byte); the result is the output's bits (the
//! code zero-extended, or the float's bits).
//!
//! With `Options::vendor.float8` (`VK_EXT_shader_float8`) each conversion is one
//! `OpFConvert` to or from an `OpTypeFloat 8` of the encoding (`SPV_EXT_float8`),
//! `SaturatedToLargestFloat8NormalConversionEXT` when the immediate asks to saturate.
//! Without it the conversion is emulated exactly in 32-bit integer and float arithmetic,
//! with the results AMD's RDNA4 gives (vkd3d-proton's `test_ags_float8_conversion`
//! checks them; its reference functions are the specification used here):
//!
//! - to float8, round to nearest even; a NaN input gives `0x7f | sign`;
//!   E4M3: `|v| >= 465` gives NaN (`0x7f | sign`) unless saturating, and values are
//!   clamped to ±448 first (so 448 < |v| < 465, and saturated overflow, give ±448);
//!   E5M2: `|v| >= 61440` gives ±infinity (`0x7c`), saturated ±57344 (`0x7b`);
//!   results below half the smallest subnormal are signed zeros;
//! - from float8, exact (every float8 value is a float): E4M3 `0x7f`/`0xff` are NaN,
//!   E5M2 exponent 31 is infinity (mantissa 0) or NaN.
//!
//! The rounding: with `e` the float's exponent rebased to float8's bias, `mf` its
//! mantissa with the implicit bit, and `sh = 23 − M + max(1 − e, 0)` (clamped to 31),
//! the code is `max(e − 1, 0) << M` + `mf >> sh`, plus one when the dropped bits exceed
//! half a unit, or equal it and the code is odd; a carry moves into the exponent, and
//! subnormals fall out of the same formula. Cost: about 30 instructions a conversion.

use crate::dxil::ags::Float8Cvt;
use crate::emit::error::Result;
use crate::emit::glsl::{LDEXP, SMAX, UMIN};
use crate::emit::FnEmit;
use rspirv::spirv::{Capability, Decoration, Op, Word};

/// A float8 encoding's shape.
struct Format {
    mant: u32,
    bias: u32,
    e5m2: bool,
}

const E4M3: Format = Format { mant: 3, bias: 7, e5m2: false };
const E5M2: Format = Format { mant: 2, bias: 15, e5m2: true };

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Converts `x` (a `u32`) as `cvt` says; returns the result's bits as a `u32`.
    pub(super) fn ags_float8(&mut self, cvt: Float8Cvt, saturate: bool, x: Word) -> Result<Word> {
        let to_f8 = matches!(cvt, Float8Cvt::F32ToFp8 | Float8Cvt::F32ToBf8);
        let e5m2 = matches!(cvt, Float8Cvt::Bf8ToF32 | Float8Cvt::F32ToBf8);
        if to_f8 {
            self.float8_from_f32(e5m2, saturate, x)
        } else {
            self.float8_to_f32(e5m2, x)
        }
    }

    /// The float8 code (E5M2 when `e5m2`, else E4M3, zero-extended to a `u32`) of the `f32`
    /// whose bits are `x` (a `u32`), rounded to nearest even; `saturate` as described in
    /// the module documentation. Native under `vendor.float8`, emulated otherwise.
    pub(super) fn float8_from_f32(&mut self, e5m2: bool, saturate: bool, x: Word) -> Result<Word> {
        let fmt = if e5m2 { E5M2 } else { E4M3 };
        if self.iface.stage.vendor.float8 {
            return self.float8_native(&fmt, true, saturate, x);
        }
        self.float8_encode(&fmt, saturate, x)
    }

    /// The bits (a `u32`) of the `f32` equal to the float8 code in the low byte of `x`
    /// (exact). Native under `vendor.float8`, emulated otherwise.
    pub(super) fn float8_to_f32(&mut self, e5m2: bool, x: Word) -> Result<Word> {
        let fmt = if e5m2 { E5M2 } else { E4M3 };
        if self.iface.stage.vendor.float8 {
            return self.float8_native(&fmt, false, false, x);
        }
        self.float8_decode(&fmt, x)
    }

    fn float8_native(&mut self, fmt: &Format, to_f8: bool, saturate: bool, x: Word) -> Result<Word> {
        self.cx.capability(Capability::Float8EXT);
        self.cx.extension("SPV_EXT_float8");
        let (u, f) = (self.cx.u32_t(), self.cx.float(32));
        let (u8t, f8) = (self.cx.uint(8), self.cx.float8(fmt.e5m2));
        if to_f8 {
            let v = self.ids_op(Op::Bitcast, f, &[x])?;
            let c = self.ids_op(Op::FConvert, f8, &[v])?;
            if saturate {
                self.cx.decorate(c, Decoration::SaturatedToLargestFloat8NormalConversionEXT, &[]);
            }
            let b = self.ids_op(Op::Bitcast, u8t, &[c])?;
            self.ids_op(Op::UConvert, u, &[b])
        } else {
            let b = self.ids_op(Op::UConvert, u8t, &[x])?;
            let c = self.ids_op(Op::Bitcast, f8, &[b])?;
            let v = self.ids_op(Op::FConvert, f, &[c])?;
            self.ids_op(Op::Bitcast, u, &[v])
        }
    }

    fn float8_encode(&mut self, fmt: &Format, saturate: bool, x: Word) -> Result<Word> {
        let (u, i, b) = (self.cx.u32_t(), self.cx.sint(32), self.cx.bool_t());
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let (abs_mask, sign_shift, sign_mask) = (k(self, 0x7fff_ffff), k(self, 24), k(self, 0x80));
        let a = self.ids_op(Op::BitwiseAnd, u, &[x, abs_mask])?;
        let s = self.ids_op(Op::ShiftRightLogical, u, &[x, sign_shift])?;
        let s = self.ids_op(Op::BitwiseAnd, u, &[s, sign_mask])?;
        // Special inputs and overflow.
        let inf_bits = k(self, 0x7f80_0000);
        let is_nan = self.ids_op(Op::UGreaterThan, b, &[a, inf_bits])?;
        let (threshold, overflow_code) = if fmt.e5m2 {
            (61440.0f32, if saturate { 0x7b } else { 0x7c })
        } else {
            (465.0f32, if saturate { 0x7e } else { 0x7f })
        };
        let threshold = k(self, threshold.to_bits());
        let overflow = self.ids_op(Op::UGreaterThanEqual, b, &[a, threshold])?;
        let mut a = a;
        if !fmt.e5m2 {
            let max = k(self, 448.0f32.to_bits());
            a = self.glsl(u, UMIN, &[a, max])?;
        }
        // e = E − (127 − bias), signed.
        let (c23, c_rebase) = (k(self, 23), k(self, 127 - fmt.bias));
        let big_e = self.ids_op(Op::ShiftRightLogical, u, &[a, c23])?;
        let e = self.ids_op(Op::ISub, u, &[big_e, c_rebase])?;
        let e = self.ids_op(Op::Bitcast, i, &[e])?;
        let (zero_i, one_i) = (self.cx.const_bits(i, 32, 0), self.cx.const_bits(i, 32, 1));
        // sh = 23 − M + max(1 − e, 0), at most 31.
        let one_minus_e = self.ids_op(Op::ISub, i, &[one_i, e])?;
        let extra = self.glsl(i, SMAX, &[one_minus_e, zero_i])?;
        let extra = self.ids_op(Op::Bitcast, u, &[extra])?;
        let base_shift = k(self, 23 - fmt.mant);
        let sh = self.ids_op(Op::IAdd, u, &[extra, base_shift])?;
        let c31 = k(self, 31);
        let sh = self.glsl(u, UMIN, &[sh, c31])?;
        // mf = mantissa | implicit bit.
        let (mmask, implicit) = (k(self, 0x7f_ffff), k(self, 0x80_0000));
        let mf = self.ids_op(Op::BitwiseAnd, u, &[a, mmask])?;
        let mf = self.ids_op(Op::BitwiseOr, u, &[mf, implicit])?;
        // base = max(e − 1, 0) << M.
        let e1 = self.ids_op(Op::ISub, i, &[e, one_i])?;
        let e1 = self.glsl(i, SMAX, &[e1, zero_i])?;
        let e1 = self.ids_op(Op::Bitcast, u, &[e1])?;
        let mant = k(self, fmt.mant);
        let base = self.ids_op(Op::ShiftLeftLogical, u, &[e1, mant])?;
        let kept = self.ids_op(Op::ShiftRightLogical, u, &[mf, sh])?;
        let code = self.ids_op(Op::IAdd, u, &[base, kept])?;
        let code = self.float8_round(code, mf, sh)?;
        let over = k(self, overflow_code);
        let code = self.ids_op(Op::Select, u, &[overflow, over, code])?;
        let nan = k(self, 0x7f);
        let code = self.ids_op(Op::Select, u, &[is_nan, nan, code])?;
        self.ids_op(Op::BitwiseOr, u, &[code, s])
    }

    /// Rounds `code` (`mf >> sh` added to the exponent bits) to nearest even on the bits of
    /// `mf` the shift dropped: plus one when they exceed half a unit, or equal it and
    /// `code` is odd. `sh` is at least 1 (`23 − M`).
    fn float8_round(&mut self, code: Word, mf: Word, sh: Word) -> Result<Word> {
        let (u, b) = (self.cx.u32_t(), self.cx.bool_t());
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let one = k(self, 1);
        let rem = self.low_bits(mf, sh)?;
        let sh1 = self.ids_op(Op::ISub, u, &[sh, one])?;
        let half = self.ids_op(Op::ShiftLeftLogical, u, &[one, sh1])?;
        let above = self.ids_op(Op::UGreaterThan, b, &[rem, half])?;
        let tie = self.ids_op(Op::IEqual, b, &[rem, half])?;
        let odd = self.ids_op(Op::BitwiseAnd, u, &[code, one])?;
        let zero = k(self, 0);
        let odd = self.ids_op(Op::INotEqual, b, &[odd, zero])?;
        let tie_odd = self.ids_op(Op::LogicalAnd, b, &[tie, odd])?;
        let up = self.ids_op(Op::LogicalOr, b, &[above, tie_odd])?;
        let inc = self.ids_op(Op::Select, u, &[up, one, zero])?;
        let code = self.ids_op(Op::IAdd, u, &[code, inc])?;
        Ok(code)
    }

    fn float8_decode(&mut self, fmt: &Format, x: Word) -> Result<Word> {
        let (u, i, f, b) = (self.cx.u32_t(), self.cx.sint(32), self.cx.float(32), self.cx.bool_t());
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let emask = if fmt.e5m2 { 31 } else { 15 };
        let (ff, mant, emask, mmask, bit) =
            (k(self, 0xff), k(self, fmt.mant), k(self, emask), k(self, (1 << fmt.mant) - 1), k(self, 1 << fmt.mant));
        let (c7, c31, c7f, c7c, inf_bits) =
            (k(self, 7), k(self, 31), k(self, 0x7f), k(self, 0x7c), k(self, 0x7f80_0000));
        let byte = self.ids_op(Op::BitwiseAnd, u, &[x, ff])?;
        let big_e = self.ids_op(Op::ShiftRightLogical, u, &[byte, mant])?;
        let big_e = self.ids_op(Op::BitwiseAnd, u, &[big_e, emask])?;
        let m = self.ids_op(Op::BitwiseAnd, u, &[byte, mmask])?;
        let zero = k(self, 0);
        let subnormal = self.ids_op(Op::IEqual, b, &[big_e, zero])?;
        // Significand (with the implicit bit for normals) × 2^(max(E, 1) − bias − M).
        let with_bit = self.ids_op(Op::BitwiseOr, u, &[m, bit])?;
        let sig = self.ids_op(Op::Select, u, &[subnormal, m, with_bit])?;
        let one = k(self, 1);
        let e = self.ids_op(Op::Select, u, &[subnormal, one, big_e])?;
        let e = self.ids_op(Op::Bitcast, i, &[e])?;
        let rebase = self.cx.const_bits(i, 32, u64::from(fmt.bias + fmt.mant));
        let exp = self.ids_op(Op::ISub, i, &[e, rebase])?;
        let sigf = self.ids_op(Op::ConvertUToF, f, &[sig])?;
        let mag = self.glsl(f, LDEXP, &[sigf, exp])?;
        let neg = self.ids_op(Op::FNegate, f, &[mag])?;
        let sign = self.ids_op(Op::ShiftRightLogical, u, &[byte, c7])?;
        let negative = self.ids_op(Op::INotEqual, b, &[sign, zero])?;
        let v = self.ids_op(Op::Select, f, &[negative, neg, mag])?;
        let v = self.ids_op(Op::Bitcast, u, &[v])?;
        // NaN and infinity codes.
        let low7 = self.ids_op(Op::BitwiseAnd, u, &[byte, c7f])?;
        let nan_bits = k(self, 0x7fc0_0000);
        if fmt.e5m2 {
            let is_special = self.ids_op(Op::IEqual, b, &[big_e, c31])?;
            let is_nan = self.ids_op(Op::UGreaterThan, b, &[low7, c7c])?;
            let sign_bit = self.ids_op(Op::ShiftLeftLogical, u, &[sign, c31])?;
            let inf = self.ids_op(Op::BitwiseOr, u, &[sign_bit, inf_bits])?;
            let special = self.ids_op(Op::Select, u, &[is_nan, nan_bits, inf])?;
            self.ids_op(Op::Select, u, &[is_special, special, v])
        } else {
            let is_nan = self.ids_op(Op::IEqual, b, &[low7, c7f])?;
            self.ids_op(Op::Select, u, &[is_nan, nan_bits, v])
        }
    }
}
