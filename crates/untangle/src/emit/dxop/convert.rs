//! Conversions: same-size bit casts, the legacy half conversions (`f32tof16`/`f16tof32`: the
//! half in the low 16 bits of a `uint`), the legacy double conversions of DXBC's `dtof`,
//! `dtoi` and `dtou`, double packing (`makeDouble`/`splitDouble`: low word first) and the
//! SM 6.6 byte packing (`pack4x8`/`unpack4x8`).
//!
//! `LegacyDoubleToSInt32`/`LegacyDoubleToUInt32` follow D3D's float-to-integer rules (the
//! `ftoi`/`ftou` reference pages and "Data Conversion Rules"): round toward zero, inputs
//! clamped to the integer range first, NaN gives 0. SPIR-V's `OpConvertFToS/U` leave
//! out-of-range inputs undefined, hence the explicit clamp (`NClamp`, which also maps NaN to
//! the lower bound: 0 for the unsigned case; the signed case selects 0 for NaN).
//!
//! `pack4x8(mode, x, y, z, w)`: mode 0 keeps each value's low byte, 1 clamps to [0, 255], 2 to
//! [-128, 127] first. `unpack4x8(mode, packed)`: mode 0 zero-extends each byte, 1
//! sign-extends it.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::glsl;
use crate::emit::{Call, FnEmit};
use rspirv::spirv::{Op, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn convert_op(&mut self, c: &Call<'_>) -> Result<Word> {
        use DxOp::*;
        let t = self.cx.ty(c.ty)?;
        Ok(match c.op {
            BitcastI16toF16 | BitcastF16toI16 | BitcastI32toF32 | BitcastF32toI32 | BitcastI64toF64
            | BitcastF64toI64 => {
                let x = self.arg_val(c, 0)?;
                self.ids_op(Op::Bitcast, t, &[x])?
            }
            LegacyF32ToF16 => {
                let f = self.cx.float(32);
                let f2 = self.cx.vec(f, 2);
                let x = self.arg_val(c, 0)?;
                let z = self.cx.null(f);
                let v = self.ids_op(Op::CompositeConstruct, f2, &[x, z])?;
                self.glsl(t, glsl::PACK_HALF_2X16, &[v])?
            }
            LegacyF16ToF32 => {
                let f = self.cx.float(32);
                let f2 = self.cx.vec(f, 2);
                let x = self.arg_val(c, 0)?;
                let v = self.glsl(f2, glsl::UNPACK_HALF_2X16, &[x])?;
                self.extract(f, v, 0)?
            }
            LegacyDoubleToFloat => {
                let x = self.arg_val(c, 0)?;
                self.ids_op(Op::FConvert, t, &[x])?
            }
            LegacyDoubleToSInt32 | LegacyDoubleToUInt32 => {
                let d = self.cx.float(64);
                let signed = c.op == LegacyDoubleToSInt32;
                let (lo, hi) = if signed { (-2147483648.0f64, 2147483647.0f64) } else { (0.0, 4294967295.0) };
                let lo_w = self.cx.const_bits(d, 64, lo.to_bits());
                let hi_w = self.cx.const_bits(d, 64, hi.to_bits());
                let x = self.arg_val(c, 0)?;
                let clamped = self.glsl(d, glsl::NCLAMP, &[x, lo_w, hi_w])?;
                if signed {
                    let i = self.ids_op(Op::ConvertFToS, t, &[clamped])?;
                    let b = self.cx.bool_t();
                    let nan = self.ids_op(Op::IsNan, b, &[x])?;
                    let zero = self.cx.const_u32(0);
                    self.ids_op(Op::Select, t, &[nan, zero, i])?
                } else {
                    self.ids_op(Op::ConvertFToU, t, &[clamped])?
                }
            }
            MakeDouble => {
                let u = self.cx.u32_t();
                let u2 = self.cx.vec(u, 2);
                let lo = self.arg_val(c, 0)?;
                let hi = self.arg_val(c, 1)?;
                let v = self.ids_op(Op::CompositeConstruct, u2, &[lo, hi])?;
                self.ids_op(Op::Bitcast, t, &[v])?
            }
            SplitDouble => {
                let u = self.cx.u32_t();
                let u2 = self.cx.vec(u, 2);
                let d = self.arg_val(c, 0)?;
                let v = self.ids_op(Op::Bitcast, u2, &[d])?;
                let lo = self.extract(u, v, 0)?;
                let hi = self.extract(u, v, 1)?;
                self.make_ret(c.ty, &[lo, hi], None)?
            }
            Pack4x8 => {
                let mode = self.arg_const(c, 0)?;
                let u = self.cx.u32_t();
                let mut acc = self.cx.const_u32(0);
                for k in 0..4 {
                    let ty = self.arg_ty(c, 1 + k)?;
                    let v = self.arg_val(c, 1 + k)?;
                    let mut x = if self.scalar_bits(ty) == Some(32) { v } else { self.ids_op(Op::SConvert, u, &[v])? };
                    let range = match mode {
                        1 => Some((0u32, 255u32)),
                        2 => Some(((-128i32) as u32, 127u32)),
                        _ => None,
                    };
                    if let Some((lo, hi)) = range {
                        let (l, h) = (self.cx.const_u32(lo), self.cx.const_u32(hi));
                        x = self.glsl(u, glsl::SCLAMP, &[x, l, h])?;
                    }
                    let ff = self.cx.const_u32(0xff);
                    let byte = self.ids_op(Op::BitwiseAnd, u, &[x, ff])?;
                    let sh = self.cx.const_u32(8 * k as u32);
                    let placed = self.ids_op(Op::ShiftLeftLogical, u, &[byte, sh])?;
                    acc = self.ids_op(Op::BitwiseOr, u, &[acc, placed])?;
                }
                acc
            }
            Unpack4x8 => {
                let signed = self.arg_const(c, 0)? == 1;
                let u = self.cx.u32_t();
                let packed = self.arg_val(c, 1)?;
                let scalar = self.overload_scalar(c.ty);
                let st = self.cx.ty(scalar)?;
                let eight = self.cx.const_u32(8);
                let mut comps = Vec::new();
                for k in 0..4u32 {
                    let off = self.cx.const_u32(8 * k);
                    let op = if signed { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
                    let x = self.ids_op(op, u, &[packed, off, eight])?;
                    comps.push(if self.scalar_bits(scalar) == Some(32) {
                        x
                    } else {
                        self.ids_op(if signed { Op::SConvert } else { Op::UConvert }, st, &[x])?
                    });
                }
                self.make_ret(c.ty, &comps, None)?
            }
            other => return Err(self.not_in_family(other, "conversions")),
        })
    }
}
