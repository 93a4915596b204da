//! Integer arithmetic: min/max, multiply-add, the two-result operations (`IMul`, `UMul`,
//! `UDiv`, `UAddc`, `USubb`), bit counts and scans, bit-field extraction and insertion,
//! `Msad` and the packed 8-bit dot products, in every overload DXIL 1.8 lists (16-, 32- and
//! 64-bit where it does).
//!
//! Semantics, from DXC `docs/DXIL.rst` unless noted:
//! - `IMul`/`UMul` return `{hi, lo}` of the full 64-bit product, `UDiv` `{quotient,
//!   remainder}` with both `0xffffffff` on division by zero, `UAddc`/`USubb` `{result,
//!   carry}` with an `i1` carry (borrow). The field order is the DXBC instructions'
//!   destination order, which DXC's DXBC converter keeps (`ConvertBinaryWithTwoOuts`).
//! - `FirstbitHi` counts from the most significant bit of its overload's width (DXC's HLSL
//!   lowering computes `firstbithigh` as `width - 1 - FirstbitHi`), `FirstbitSHi` likewise
//!   for the first bit that differs from the sign, `FirstbitLo` from the least significant
//!   bit; all return -1 when there is no such bit (`DxilConstantFolding.cpp`).
//! - `Ibfe`/`Ubfe` take width and offset modulo the overload's width; a zero width gives 0,
//!   and a field running past the top bit takes the bits up to the top (`shr(value,
//!   offset)`). For 32 bits that is `BitField[SU]Extract` with the count clamped to
//!   `32 - offset`; the 64-bit overload (DXIL 1.8 lists it; 1.9 dropped it) is built from
//!   shifts with the generalisation DXC's constant folder uses (`ComputeBFE`). `Bfi` clamps
//!   its count the same way (its mask is truncated to 32 bits).
//! - `Msad` skips the bytes whose reference byte is 0 and wraps on overflow (the saturation
//!   `DXIL.rst` recommends is optional). Its 64-bit overload (DXIL 1.8 only) has no defined
//!   meaning beyond the operation's four packed bytes: it reads the low 32 bits of `ref` and
//!   `src` and accumulates into the 64-bit `accum`.
//!
//! - `VectorReduceAnd`/`VectorReduceOr` (DXIL 1.9) fold a native vector's elements with `&`
//!   / `|` into one scalar of the element type: `OpAll`/`OpAny` for `i1` vectors, else the
//!   elements extracted and combined in order (N - 1 bitwise operations).
//!
//! Vulkan's bit instructions (`OpBitCount`, `OpBitReverse`, `OpBitField*`) take 32-bit
//! operands only (`VUID-RuntimeSpirv-None-10824` without `VK_KHR_maintenance9`), so 16- and
//! 64-bit overloads go through 32-bit halves or zero/sign extension.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::glsl;
use crate::emit::{Call, FnEmit};
use rspirv::spirv::{Op, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn integer_op(&mut self, c: &Call<'_>) -> Result<Word> {
        use DxOp::*;
        let t = self.cx.ty(c.ty)?;
        Ok(match c.op {
            Bfrev | Countbits | FirstbitLo | FirstbitHi | FirstbitSHi => self.bit_op_lanes(c)?,
            IMax | IMin | UMax | UMin => {
                let inst = match c.op {
                    IMax => glsl::SMAX,
                    IMin => glsl::SMIN,
                    UMax => glsl::UMAX,
                    _ => glsl::UMIN,
                };
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                self.glsl(t, inst, &[a, b])?
            }
            IMad | UMad => {
                let a = self.arg_val(c, 0)?;
                let b = self.arg_val(c, 1)?;
                let d = self.arg_val(c, 2)?;
                let p = self.ids_op(Op::IMul, t, &[a, b])?;
                self.ids_op(Op::IAdd, t, &[p, d])?
            }
            IMul | UMul => {
                // `OpSMulExtended`/`OpUMulExtended` give {lo, hi}; DXIL wants {hi, lo}.
                let (lo, hi) = self.extended(c, if c.op == IMul { Op::SMulExtended } else { Op::UMulExtended })?;
                self.make_ret(c.ty, &[hi, lo], None)?
            }
            UAddc | USubb => {
                let (r, carry) = self.extended(c, if c.op == UAddc { Op::IAddCarry } else { Op::ISubBorrow })?;
                let b = self.cx.bool_t();
                let zero = self.cx.const_u32(0);
                let carry = self.ids_op(Op::INotEqual, b, &[carry, zero])?;
                self.make_ret(c.ty, &[r, carry], None)?
            }
            UDiv => {
                // Division by zero gives all ones in both results; divide by 1 instead, so
                // no undefined division is executed.
                let u = self.cx.u32_t();
                let b = self.cx.bool_t();
                let (x, y) = (self.arg_val(c, 0)?, self.arg_val(c, 1)?);
                let (zero, one, ones) = (self.cx.const_u32(0), self.cx.const_u32(1), self.cx.const_u32(u32::MAX));
                let by_zero = self.ids_op(Op::IEqual, b, &[y, zero])?;
                let d = self.ids_op(Op::Select, u, &[by_zero, one, y])?;
                let q = self.ids_op(Op::UDiv, u, &[x, d])?;
                let r = self.ids_op(Op::UMod, u, &[x, d])?;
                let q = self.ids_op(Op::Select, u, &[by_zero, ones, q])?;
                let r = self.ids_op(Op::Select, u, &[by_zero, ones, r])?;
                self.make_ret(c.ty, &[q, r], None)?
            }
            Msad => self.msad(c)?,
            Ibfe | Ubfe => self.bit_field_extract(c)?,
            Bfi => {
                let (width, offset) = self.clamped_field(c)?;
                let value = self.arg_val(c, 2)?;
                let base = self.arg_val(c, 3)?;
                self.ids_op(Op::BitFieldInsert, t, &[base, value, offset, width])?
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
            VectorReduceAnd | VectorReduceOr => self.vector_reduce(c)?,
            other => return Err(self.not_in_family(other, "integer math")),
        })
    }

    /// `VectorReduceAnd`/`VectorReduceOr` of a `<N x iK>` (`i1` included).
    fn vector_reduce(&mut self, c: &Call<'_>) -> Result<Word> {
        let and = c.op == DxOp::VectorReduceAnd;
        let t = self.cx.ty(c.ty)?;
        let v = self.arg_val(c, 0)?;
        let vty = self.arg_ty(c, 0)?;
        // `check_signature` made the operand a vector of the result's type.
        let n = match self.cx.m.types.get(vty) {
            crate::ir::Type::Vector { len, .. } => *len,
            _ => 1,
        };
        let boolean = matches!(self.cx.m.types.get(c.ty), crate::ir::Type::Int(1));
        // `OpAll`/`OpAny` take vectors only: a long vector (an array) is folded.
        if boolean && self.cx.long_value(v).is_none() {
            return self.ids_op(if and { Op::All } else { Op::Any }, t, &[v]);
        }
        let op = match (boolean, and) {
            (true, true) => Op::LogicalAnd,
            (true, false) => Op::LogicalOr,
            (false, true) => Op::BitwiseAnd,
            (false, false) => Op::BitwiseOr,
        };
        let mut acc = self.ids_op(Op::CompositeExtract, t, &[v, 0])?;
        for k in 1..n {
            let e = self.ids_op(Op::CompositeExtract, t, &[v, k])?;
            acc = self.ids_op(op, t, &[acc, e])?;
        }
        Ok(acc)
    }

    /// An extended-result instruction (`{u32, u32}` struct) on the two operands: its members.
    fn extended(&mut self, c: &Call<'_>, op: Op) -> Result<(Word, Word)> {
        let u = self.cx.u32_t();
        let st = self.cx.b.type_struct([u, u]);
        let a = self.arg_val(c, 0)?;
        let b = self.arg_val(c, 1)?;
        let r = self.ids_op(op, st, &[a, b])?;
        Ok((self.extract(u, r, 0)?, self.extract(u, r, 1)?))
    }

    /// `Bfrev`, `Countbits` and the `Firstbit` operations, whose lowering works one 32-bit
    /// word at a time: a scalar directly, and DXIL 1.9's vector overloads (any length; a
    /// long vector is an array of lanes, `crate::emit::long_vector`) lane by lane.
    fn bit_op_lanes(&mut self, c: &Call<'_>) -> Result<Word> {
        let aty = self.arg_ty(c, 0)?;
        let x = self.arg_val(c, 0)?;
        let bits = self.scalar_bits(aty).unwrap_or(32);
        let (elem, lanes) = match self.cx.m.types.get(aty) {
            crate::ir::Type::Vector { elem, len } => (*elem, Some(*len)),
            _ => (aty, None),
        };
        let elem_t = self.cx.ty(elem)?;
        let Some(n) = lanes else { return self.bit_op(c.op, x, bits, elem_t) };
        let t = self.cx.ty(c.ty)?;
        let mut out = Vec::with_capacity(n as usize);
        for k in 0..n {
            let lane = self.ids_op(Op::CompositeExtract, elem_t, &[x, k])?;
            out.push(self.bit_op(c.op, lane, bits, elem_t)?);
        }
        self.ids_op(Op::CompositeConstruct, t, &out)
    }

    /// One lane of [`Self::bit_op_lanes`]: `x`, of `bits` bits and type `ty`.
    fn bit_op(&mut self, op: DxOp, x: Word, bits: u32, ty: Word) -> Result<Word> {
        match op {
            DxOp::Bfrev => self.bit_reverse(x, bits, ty),
            _ => self.bit_scan(op, x, bits),
        }
    }

    /// A 16- or 64-bit value `x` as one (16-bit: zero- or sign-extended) or two (64-bit:
    /// low, high) 32-bit words.
    fn words_of(&mut self, x: Word, bits: u32, signed: bool) -> Result<Vec<Word>> {
        let u = self.cx.u32_t();
        Ok(match bits {
            32 => vec![x],
            64 => {
                let u2 = self.cx.vec(u, 2);
                let v = self.ids_op(Op::Bitcast, u2, &[x])?;
                vec![self.extract(u, v, 0)?, self.extract(u, v, 1)?]
            }
            _ => vec![self.ids_op(if signed { Op::SConvert } else { Op::UConvert }, u, &[x])?],
        })
    }

    fn bit_reverse(&mut self, x: Word, bits: u32, t: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let words = self.words_of(x, bits, false)?;
        let rev: Vec<Word> = words.iter().map(|&w| self.ids_op(Op::BitReverse, u, &[w])).collect::<Result<_>>()?;
        match bits {
            32 => Ok(rev[0]),
            64 => {
                // The reversed high word becomes the low one.
                let u2 = self.cx.vec(u, 2);
                let v = self.ids_op(Op::CompositeConstruct, u2, &[rev[1], rev[0]])?;
                self.ids_op(Op::Bitcast, t, &[v])
            }
            _ => {
                let sh = self.cx.const_u32(32 - bits);
                let r = self.ids_op(Op::ShiftRightLogical, u, &[rev[0], sh])?;
                self.ids_op(Op::UConvert, t, &[r])
            }
        }
    }

    /// `Countbits`, `FirstbitLo`, `FirstbitHi`, `FirstbitSHi` (32-bit results).
    fn bit_scan(&mut self, op: DxOp, x: Word, bits: u32) -> Result<Word> {
        let u = self.cx.u32_t();
        let b = self.cx.bool_t();
        let none = self.cx.const_u32(u32::MAX);
        let signed = op == DxOp::FirstbitSHi;
        let mut words = self.words_of(x, bits, signed)?;
        if signed && bits == 64 {
            // The first bit that differs from the sign is the most significant set bit of
            // `x ^ (x >> 63)`, computed on the words: the sign word is the high one's.
            let k31 = self.cx.const_u32(31);
            let s = self.cx.sint(32);
            let hi = self.ids_op(Op::Bitcast, s, &[words[1]])?;
            let sign = self.ids_op(Op::ShiftRightArithmetic, s, &[hi, k31])?;
            let sign = self.ids_op(Op::Bitcast, u, &[sign])?;
            for w in &mut words {
                *w = self.ids_op(Op::BitwiseXor, u, &[*w, sign])?;
            }
        }
        let add = |me: &mut Self, x: Word, k: u32| -> Result<Word> {
            let kw = me.cx.const_u32(k);
            me.ids_op(Op::IAdd, u, &[x, kw])
        };
        match op {
            DxOp::Countbits => {
                let mut n = self.ids_op(Op::BitCount, u, &[words[0]])?;
                if let Some(&hi) = words.get(1) {
                    let m = self.ids_op(Op::BitCount, u, &[hi])?;
                    n = self.ids_op(Op::IAdd, u, &[n, m])?;
                }
                Ok(n)
            }
            DxOp::FirstbitLo => {
                let lo = self.glsl(u, glsl::FIND_ILSB, &[words[0]])?;
                let Some(&hi) = words.get(1) else { return Ok(lo) };
                let h = self.glsl(u, glsl::FIND_ILSB, &[hi])?;
                let h_none = self.ids_op(Op::IEqual, b, &[h, none])?;
                let h32 = add(self, h, 32)?;
                let from_hi = self.ids_op(Op::Select, u, &[h_none, none, h32])?;
                let lo_none = self.ids_op(Op::IEqual, b, &[lo, none])?;
                self.ids_op(Op::Select, u, &[lo_none, from_hi, lo])
            }
            _ => {
                // The most significant set bit's index (-1 if none), then counted from the top.
                let inst = if signed && bits != 64 { glsl::FIND_SMSB } else { glsl::FIND_UMSB };
                let mut msb = self.glsl(u, inst, &[words[0]])?;
                if let Some(&hi) = words.get(1) {
                    let h = self.glsl(u, glsl::FIND_UMSB, &[hi])?;
                    let h_none = self.ids_op(Op::IEqual, b, &[h, none])?;
                    let h32 = add(self, h, 32)?;
                    msb = self.ids_op(Op::Select, u, &[h_none, msb, h32])?;
                }
                let absent = self.ids_op(Op::IEqual, b, &[msb, none])?;
                let top = self.cx.const_u32(bits - 1);
                let from_top = self.ids_op(Op::ISub, u, &[top, msb])?;
                self.ids_op(Op::Select, u, &[absent, none, from_top])
            }
        }
    }

    /// 32-bit `(width, offset)` of a bit-field operation: both modulo 32, the width clamped
    /// so the field ends at bit 31 at the latest.
    fn clamped_field(&mut self, c: &Call<'_>) -> Result<(Word, Word)> {
        let u = self.cx.u32_t();
        let k31 = self.cx.const_u32(31);
        let k32 = self.cx.const_u32(32);
        let width = self.arg_val(c, 0)?;
        let offset = self.arg_val(c, 1)?;
        let width = self.ids_op(Op::BitwiseAnd, u, &[width, k31])?;
        let offset = self.ids_op(Op::BitwiseAnd, u, &[offset, k31])?;
        let room = self.ids_op(Op::ISub, u, &[k32, offset])?;
        let width = self.glsl(u, glsl::UMIN, &[width, room])?;
        Ok((width, offset))
    }

    fn bit_field_extract(&mut self, c: &Call<'_>) -> Result<Word> {
        let t = self.cx.ty(c.ty)?;
        let signed = c.op == DxOp::Ibfe;
        if self.scalar_bits(c.ty) != Some(64) {
            let (width, offset) = self.clamped_field(c)?;
            let value = self.arg_val(c, 2)?;
            let op = if signed { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
            return self.ids_op(op, t, &[value, offset, width]);
        }
        // 64 bits: w = width & 63, o = offset & 63; w == 0 gives 0; w + o < 64 gives
        // shr(value << (64 - w - o), 64 - w); otherwise shr(value, o).
        let b = self.cx.bool_t();
        let k = |me: &mut Self, v: u64| me.cx.const_bits(t, 64, v);
        let (k63, k64, k0) = (k(self, 63), k(self, 64), k(self, 0));
        let width = self.arg_val(c, 0)?;
        let offset = self.arg_val(c, 1)?;
        let value = self.arg_val(c, 2)?;
        let w = self.ids_op(Op::BitwiseAnd, t, &[width, k63])?;
        let o = self.ids_op(Op::BitwiseAnd, t, &[offset, k63])?;
        let end = self.ids_op(Op::IAdd, t, &[w, o])?;
        let fits = self.ids_op(Op::ULessThan, b, &[end, k64])?;
        let left_fit = self.ids_op(Op::ISub, t, &[k64, end])?;
        let left = self.ids_op(Op::Select, t, &[fits, left_fit, k0])?;
        let right_fit = self.ids_op(Op::ISub, t, &[k64, w])?;
        let right = self.ids_op(Op::Select, t, &[fits, right_fit, o])?;
        // w == 0 makes `right` 64; keep the shift in range (the result is replaced anyway).
        let right = self.ids_op(Op::BitwiseAnd, t, &[right, k63])?;
        let shifted = self.ids_op(Op::ShiftLeftLogical, t, &[value, left])?;
        let shr = if signed { Op::ShiftRightArithmetic } else { Op::ShiftRightLogical };
        let field = self.ids_op(shr, t, &[shifted, right])?;
        let empty = self.ids_op(Op::IEqual, b, &[w, k0])?;
        self.ids_op(Op::Select, t, &[empty, k0, field])
    }

    /// Masked sum of absolute differences: bytes of `ref` that are 0 are skipped.
    ///
    /// Each byte difference lies in `-255..=255`, so `|a - b|` is the 32-bit difference's
    /// signed absolute value (`SAbs`; no compare and second subtraction), and the first
    /// byte's term starts the sum (no add to 0): 4 instructions a byte after its extracts.
    fn msad(&mut self, c: &Call<'_>) -> Result<Word> {
        let t = self.cx.ty(c.ty)?;
        let u = self.cx.u32_t();
        let b = self.cx.bool_t();
        let wide = self.scalar_bits(c.ty) == Some(64);
        let (r, src) = (self.arg_val(c, 0)?, self.arg_val(c, 1)?);
        let (r_bits, src_bits) = (self.arg_ty(c, 0)?, self.arg_ty(c, 1)?);
        let r = self.words_of(r, self.scalar_bits(r_bits).unwrap_or(32), false)?[0];
        let src = self.words_of(src, self.scalar_bits(src_bits).unwrap_or(32), false)?[0];
        let eight = self.cx.const_u32(8);
        let zero = self.cx.const_u32(0);
        let mut sum = None;
        for k in 0..4u32 {
            let off = self.cx.const_u32(8 * k);
            let rb = self.ids_op(Op::BitFieldUExtract, u, &[r, off, eight])?;
            let sb = self.ids_op(Op::BitFieldUExtract, u, &[src, off, eight])?;
            let diff = self.ids_op(Op::ISub, u, &[rb, sb])?;
            let d = self.glsl(u, glsl::SABS, &[diff])?;
            let masked = self.ids_op(Op::IEqual, b, &[rb, zero])?;
            let d = self.ids_op(Op::Select, u, &[masked, zero, d])?;
            sum = Some(match sum {
                Some(s) => self.ids_op(Op::IAdd, u, &[s, d])?,
                None => d,
            });
        }
        let sum = sum.unwrap_or(zero);
        let acc = self.arg_val(c, 2)?;
        if wide {
            let s = self.ids_op(Op::UConvert, t, &[sum])?;
            return self.ids_op(Op::IAdd, t, &[acc, s]);
        }
        self.ids_op(Op::IAdd, u, &[acc, sum])
    }
}
