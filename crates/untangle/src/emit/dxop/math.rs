//! Arithmetic operations: unary, binary and tertiary math (`GLSL.std.450` where it has the
//! operation), bit operations with DXIL's conventions (`FirstbitHi` counts from the most
//! significant bit, `-1` when no bit is set), dot products, double packing, half-float
//! conversions, bitcasts, and the few system values without a family (`viewID`,
//! `startVertexLocation`, `startInstanceLocation`).
//!
//! `FMax`/`FMin` are `NMax`/`NMin` (D3D returns the non-NaN operand) and `Saturate` is
//! `NClamp` (NaN saturates to 0); `FMad` is an unfused multiply and add; bit-field offsets
//! and widths are masked to 5 bits as in D3D, and a field reaching past bit 31 is cut at
//! bit 31 (D3D's `Ibfe`/`Ubfe`/`Bfi` define it, SPIR-V's bit-field instructions do not).

use super::Call;
use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::function::FnEmit;
use crate::emit::interface::Num;
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TAN: u32 = 15;
    pub const ASIN: u32 = 16;
    pub const ACOS: u32 = 17;
    pub const ATAN: u32 = 18;
    pub const SINH: u32 = 19;
    pub const COSH: u32 = 20;
    pub const TANH: u32 = 21;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FMA: u32 = 50;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const UNPACK_HALF_2X16: u32 = 62;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_SMSB: u32 = 74;
    pub const FIND_UMSB: u32 = 75;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
    pub const NCLAMP: u32 = 81;
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// `Ok(None)` when the operation is not arithmetic.
    pub(super) fn math_op(&mut self, c: &Call<'_>) -> Result<Option<Option<Word>>> {
        use DxOp::*;
        let t = match self.cx.m.types.get(c.ty) {
            crate::ir::Type::Void => 0,
            _ => match self.cx.ty(c.ty) {
                Ok(t) => t,
                // Handles and other non-values: not arithmetic.
                Err(_) => return Ok(None),
            },
        };
        let w = match c.op {
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
                // NClamp: D3D saturates NaN to 0; FClamp of NaN is undefined.
                self.glsl(t, glsl::NCLAMP, &[x, zero, one])?
            }
            IsNaN | IsInf | IsFinite => {
                let x = self.arg_val(c, 0)?;
                match c.op {
                    IsNaN => self.ids_op(Op::IsNan, t, &[x])?,
                    IsInf => self.ids_op(Op::IsInf, t, &[x])?,
                    _ => {
                        let n = self.ids_op(Op::IsNan, t, &[x])?;
                        let i = self.ids_op(Op::IsInf, t, &[x])?;
                        let o = self.ids_op(Op::LogicalOr, t, &[n, i])?;
                        self.ids_op(Op::LogicalNot, t, &[o])?
                    }
                }
            }
            Bfrev => {
                let x = self.arg_val(c, 0)?;
                self.ids_op(Op::BitReverse, t, &[x])?
            }
            Countbits | FirstbitLo | FirstbitHi | FirstbitSHi => {
                let ty = self.arg_ty(c, 0)?;
                if self.scalar_bits(ty) != Some(32) {
                    return Err(self.form(c.op, "non-32-bit operand"));
                }
                let x = self.arg_val(c, 0)?;
                match c.op {
                    Countbits => self.ids_op(Op::BitCount, t, &[x])?,
                    FirstbitLo => self.glsl(t, glsl::FIND_ILSB, &[x])?,
                    _ => {
                        let inst = if c.op == FirstbitHi { glsl::FIND_UMSB } else { glsl::FIND_SMSB };
                        let m = self.glsl(t, inst, &[x])?;
                        let none = self.cx.const_u32(u32::MAX);
                        let b = self.cx.bool_t();
                        let absent = self.ids_op(Op::IEqual, b, &[m, none])?;
                        let k31 = self.cx.const_u32(31);
                        let from_top = self.ids_op(Op::ISub, t, &[k31, m])?;
                        self.ids_op(Op::Select, t, &[absent, none, from_top])?
                    }
                }
            }
            FMax | FMin | IMax | IMin | UMax | UMin => {
                let inst = match c.op {
                    FMax => glsl::NMAX,
                    FMin => glsl::NMIN,
                    IMax => glsl::SMAX,
                    IMin => glsl::SMIN,
                    UMax => glsl::UMAX,
                    _ => glsl::UMIN,
                };
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                self.glsl(t, inst, &[a, b])?
            }
            FMad | IMad | UMad => {
                let (mul, add) = if c.op == FMad { (Op::FMul, Op::FAdd) } else { (Op::IMul, Op::IAdd) };
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                let d = self.arg_val(c, 2)?;
                let p = self.ids_op(mul, t, &[a, b])?;
                self.ids_op(add, t, &[p, d])?
            }
            Fma => {
                let ws = [self.arg_val(c, 0)?, self.arg_val(c, 1)?, self.arg_val(c, 2)?];
                self.glsl(t, glsl::FMA, &ws)?
            }
            Ibfe | Ubfe | Bfi => {
                let k31 = self.cx.const_u32(31);
                let u = self.cx.u32_t();
                let width = self.arg_val(c, 0)?;
                let offset = self.arg_val(c, 1)?;
                let width = self.ids_op(Op::BitwiseAnd, u, &[width, k31])?;
                let offset = self.ids_op(Op::BitwiseAnd, u, &[offset, k31])?;
                // D3D takes the bits from `offset` up to bit 31 when `offset + width`
                // passes 32; SPIR-V leaves a field past bit 31 undefined: clamp the width.
                let k32 = self.cx.const_u32(32);
                let room = self.ids_op(Op::ISub, u, &[k32, offset])?;
                let width = self.glsl(u, glsl::UMIN, &[width, room])?;
                let value = self.arg_val(c, 2)?;
                match c.op {
                    Ibfe => self.ids_op(Op::BitFieldSExtract, t, &[value, offset, width])?,
                    Ubfe => self.ids_op(Op::BitFieldUExtract, t, &[value, offset, width])?,
                    _ => {
                        let base = self.arg_val(c, 3)?;
                        self.ids_op(Op::BitFieldInsert, t, &[base, value, offset, width])?
                    }
                }
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
            BitcastI16toF16 | BitcastF16toI16 | BitcastI32toF32 | BitcastF32toI32 | BitcastI64toF64
            | BitcastF64toI64 => {
                let x = self.arg_val(c, 0)?;
                self.ids_op(Op::Bitcast, t, &[x])?
            }
            ViewID | StartVertexLocation | StartInstanceLocation => {
                let b = match c.op {
                    ViewID => {
                        self.cx.capability(Capability::MultiView);
                        BuiltIn::ViewIndex
                    }
                    StartVertexLocation => {
                        self.cx.capability(Capability::DrawParameters);
                        BuiltIn::BaseVertex
                    }
                    _ => {
                        self.cx.capability(Capability::DrawParameters);
                        BuiltIn::BaseInstance
                    }
                };
                let i = self.cx.sint(32);
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, i);
                if c.op == ViewID && self.sm.kind == crate::container::ShaderKind::Pixel {
                    self.cx.decorate(var, rspirv::spirv::Decoration::Flat, &[]);
                }
                let x = self.ids_op(Op::Load, i, &[var])?;
                self.num_to_ir(x, Num::SInt, c.ty)?
            }
            Msad => {
                // Masked sum of absolute differences: bytes of `ref` that are 0 are skipped.
                let u = self.cx.u32_t();
                let b = self.cx.bool_t();
                let r = self.arg_val(c, 0)?;
                let src = self.arg_val(c, 1)?;
                let mut acc = self.arg_val(c, 2)?;
                let eight = self.cx.const_u32(8);
                let zero = self.cx.const_u32(0);
                for k in 0..4u32 {
                    let off = self.cx.const_u32(8 * k);
                    let rb = self.ids_op(Op::BitFieldUExtract, u, &[r, off, eight])?;
                    let sb = self.ids_op(Op::BitFieldUExtract, u, &[src, off, eight])?;
                    let gt = self.ids_op(Op::UGreaterThan, b, &[rb, sb])?;
                    let d1 = self.ids_op(Op::ISub, u, &[rb, sb])?;
                    let d2 = self.ids_op(Op::ISub, u, &[sb, rb])?;
                    let d = self.ids_op(Op::Select, u, &[gt, d1, d2])?;
                    let masked = self.ids_op(Op::IEqual, b, &[rb, zero])?;
                    let d = self.ids_op(Op::Select, u, &[masked, zero, d])?;
                    acc = self.ids_op(Op::IAdd, u, &[acc, d])?;
                }
                acc
            }
            Dot4AddI8Packed | Dot4AddU8Packed => {
                let u = self.cx.u32_t();
                let mut acc = self.arg_val(c, 0)?;
                let a = self.arg_val(c, 1)?;
                let bb = self.arg_val(c, 2)?;
                let eight = self.cx.const_u32(8);
                let op = if c.op == Dot4AddI8Packed { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
                for k in 0..4u32 {
                    let off = self.cx.const_u32(8 * k);
                    let x = self.ids_op(op, u, &[a, off, eight])?;
                    let y = self.ids_op(op, u, &[bb, off, eight])?;
                    let p = self.ids_op(Op::IMul, u, &[x, y])?;
                    acc = self.ids_op(Op::IAdd, u, &[acc, p])?;
                }
                acc
            }
            Dot2AddHalf => {
                // acc + a.x * b.x + a.y * b.y, in 32-bit float.
                let f = self.cx.float(32);
                let mut acc = self.arg_val(c, 0)?;
                for k in 0..2 {
                    let ty = self.arg_ty(c, 1 + k)?;
                    let a = self.arg_val(c, 1 + k)?;
                    let a = self.ir_to_num(a, ty, Num::Float)?;
                    let bv = self.arg_val(c, 3 + k)?;
                    let bv = self.ir_to_num(bv, ty, Num::Float)?;
                    let p = self.ids_op(Op::FMul, f, &[a, bv])?;
                    acc = self.ids_op(Op::FAdd, f, &[acc, p])?;
                }
                acc
            }
            Pack4x8 => {
                // Mode 0 truncates, 1 clamps to [0, 255], 2 clamps to [-128, 127].
                let mode = self.arg_const(c, 0)?;
                let u = self.cx.u32_t();
                let mut acc = self.cx.const_u32(0);
                for k in 0..4 {
                    let ty = self.arg_ty(c, 1 + k)?;
                    let v = self.arg_val(c, 1 + k)?;
                    let mut x = if self.scalar_bits(ty) == Some(32) { v } else { self.ids_op(Op::SConvert, u, &[v])? };
                    let (lo, hi) = match mode {
                        1 => (0u32, 255u32),
                        2 => ((-128i32) as u32, 127u32),
                        _ => (1, 0),
                    };
                    if lo != 1 {
                        let (l, h) = (self.cx.const_u32(lo), self.cx.const_u32(hi));
                        x = self.glsl(u, 45, &[x, l, h])?; // SClamp
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
                // Mode 0 zero-extends each byte, 1 sign-extends it.
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
            _ => return Ok(None),
        };
        Ok(Some(Some(w)))
    }
}
