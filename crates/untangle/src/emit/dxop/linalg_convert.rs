//! SM 6.10 `linAlgConvert(vector, from, to)` (hlsl-specs proposal 0035, "Data Conversion
//! Rules"): a vector of `from`-interpreted data becomes a vector of `to`-interpreted data,
//! element by element, in plain SPIR-V arithmetic (no extension; float8 through
//! `ags_float8.rs`, natively with `SPV_EXT_float8` under `vendor.float8`).
//!
//! Interpretations (DXIL `ComponentType`): the native ones (`I16`, `U16`, `I32`, `U32`,
//! `I64`, `U64`, `F16`, `F32`, `F64`) are one element per lane of that DXIL type; the 8-bit
//! ones (`I8`, `PackedS8x32`, `U8`, `PackedU8x32`, `F8_E4M3FN`, `F8_E5M2`) are four
//! elements per `i32` lane, element `j` of a lane in bits `8j..8j+8` (the byte order of
//! DXIL's packed 8-bit dot products and of `SPV_NV_cooperative_vector`'s packed
//! interpretations). The result has `ceil(n · per_lane(from) / per_lane(to))` lanes (the
//! proposal's `DstN`); the unused bytes of a last, partly filled packed lane are zero.
//!
//! Per element, after unpacking (`OpBitFieldSExtract`/`UExtract`; a float8 code decoded to
//! `f32`, exact):
//!
//! | from → to | rule (0035) | SPIR-V |
//! |---|---|---|
//! | integer → integer | value kept when representable, else saturated | `SMax`/`SMin`/`UMin` to the target's range in the source width, then `SConvert`/`UConvert` |
//! | float → integer | round to nearest even, saturating | `RoundEven`, `OpConvertFToS`/`FToU`, values above (below) the largest (smallest) float in range select the target's maximum (minimum), NaN selects 0 |
//! | integer → float | round to nearest even | `OpConvertSToF`/`UToF` (to float8: to `f32`, exact below 2^24, larger values saturate anyway) |
//! | float → float | exact when representable, else implementation-defined | `OpFConvert`; to float8 the `f32` value is encoded round-to-nearest-even, saturating to the largest normal (±448, ±57344; NaN stays NaN) |
//!
//! A float→integer NaN is 0 (0035 leaves it open; 0 is D3D's rule for its own float to
//! integer conversions). `f64` → float8 goes through `f32` (two roundings; 0035 leaves
//! inexact float conversions implementation-defined). `from == to` of one vector type is
//! the input itself.
//!
//! Refused with a typed error naming the pair: `BFloat16` on either side (untangle's LinAlg
//! lowering has no bfloat16 anywhere, and 0035 states neither the lane order of its two
//! elements per 32-bit lane nor its rounding). Invalid DXIL (DXC's validator rejects it): an
//! interpretation that is not a LinAlg component type, lanes whose type is not the
//! interpretation's (or `i32` for 8-bit ones), a result length other than `DstN`.
//!
//! Cost: per element about 2–8 instructions for integer and native float pairs, about 30
//! more per float8 encode or 15 per decode when emulated; no memory, no control flow.

use crate::dxil::ComponentType;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit};
use crate::ir::{FloatKind, Type};
use rspirv::spirv::{Op, Word};

/// GLSL.std.450 instruction numbers.
const ROUND_EVEN: u32 = 2;
const UMIN: u32 = 38;
const SMIN: u32 = 39;
const SMAX: u32 = 42;

/// What an interpretation's elements are.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    SInt,
    UInt,
    Float,
    Float8 { e5m2: bool },
}

/// An interpretation: its elements' kind and width (8 for the packed ones).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Interp {
    kind: Kind,
    bits: u32,
}

impl Interp {
    /// `None` for component types that are not LinAlg interpretations; `Err(())` for
    /// `BFloat16`.
    fn of(ct: ComponentType) -> Option<std::result::Result<Interp, ()>> {
        use ComponentType as D;
        let (kind, bits) = match ct {
            D::I8 | D::PackedS8x32 => (Kind::SInt, 8),
            D::U8 | D::PackedU8x32 => (Kind::UInt, 8),
            D::I16 => (Kind::SInt, 16),
            D::U16 => (Kind::UInt, 16),
            D::I32 => (Kind::SInt, 32),
            D::U32 => (Kind::UInt, 32),
            D::I64 => (Kind::SInt, 64),
            D::U64 => (Kind::UInt, 64),
            D::F16 => (Kind::Float, 16),
            D::F32 => (Kind::Float, 32),
            D::F64 => (Kind::Float, 64),
            D::F8_E4M3FN => (Kind::Float8 { e5m2: false }, 8),
            D::F8_E5M2 => (Kind::Float8 { e5m2: true }, 8),
            D::BFloat16 => return Some(Err(())),
            _ => return None,
        };
        Some(Ok(Interp { kind, bits }))
    }

    fn packed(self) -> bool {
        self.bits == 8
    }

    fn per_lane(self) -> u32 {
        if self.packed() {
            4
        } else {
            1
        }
    }

    /// The integer range `[lo, hi]` of an integer interpretation.
    fn range(self) -> (i128, i128) {
        match self.kind {
            Kind::SInt => (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1),
            _ => (0, (1i128 << self.bits) - 1),
        }
    }
}

/// One element in flight: an integer held in a `store`-bit register (its value in the
/// range of `from`), or a float of `bits` width.
#[derive(Copy, Clone)]
enum Elem {
    Int { v: Word, from: Interp, store: u32 },
    Float { v: Word, bits: u32 },
}

/// The largest value of a float format with `mant` stored mantissa bits and largest
/// finite value `max` that is at most integer `h` (`h` ≥ 1).
fn float_at_most(h: i128, mant: u32, max: f64) -> f64 {
    if h as f64 >= max {
        return max;
    }
    let e = 127 - h.leading_zeros(); // floor(log2 h)
    let ulp_shift = e.saturating_sub(mant);
    ((h >> ulp_shift) << ulp_shift) as f64
}

/// The bits of `v` (exactly representable, an integer or ±max) as a float of `bits` width.
fn float_bits(v: f64, bits: u32) -> u64 {
    match bits {
        64 => v.to_bits(),
        32 => u64::from((v as f32).to_bits()),
        _ => {
            // Binary16: `v` is 0 or a normal integer value.
            let (s, a) = (if v < 0.0 { 0x8000 } else { 0 }, v.abs());
            if a == 0.0 {
                return s;
            }
            let e = a.log2().floor() as i32;
            let frac = ((a / 2f64.powi(e) - 1.0) * 1024.0) as u64;
            s | (((e + 15) as u64) << 10) | frac
        }
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// `linAlgConvert(vector, from, to)`; see the module documentation.
    pub(super) fn linalg_convert(&mut self, c: &Call<'_>) -> Result<Word> {
        let in_ty = self.arg_ty(c, 0)?;
        let (from_ct, to_ct) = (
            ComponentType::from_raw(self.arg_const(c, 1)? as u32),
            ComponentType::from_raw(self.arg_const(c, 2)? as u32),
        );
        let name = |ct: ComponentType| ct.name().map(str::to_string).unwrap_or_else(|| ct.to_raw().to_string());
        let interp = |fe: &Self, ct: ComponentType, what: &str| match Interp::of(ct) {
            Some(Ok(i)) => Ok(i),
            Some(Err(())) => Err(fe.form(
                c.op,
                format!(
                    "{} → {}: BFloat16 has no lowering in untangle's LinAlg support, and proposal 0035 states \
                     neither the order of its two elements in a 32-bit lane nor its rounding",
                    name(from_ct),
                    name(to_ct)
                ),
            )),
            None => Err(fe.invalid(c, what, format!("component type {} is not a LinAlg interpretation", name(ct)))),
        };
        let from = interp(self, from_ct, "the input interpretation")?;
        let to = interp(self, to_ct, "the output interpretation")?;
        let (in_elem, in_n) = self.linalg_convert_lanes(c, in_ty, from, "operand 1")?;
        let (out_elem, out_n) = self.linalg_convert_lanes(c, c.ty, to, "the result")?;
        let count = in_n * from.per_lane();
        let want = count.div_ceil(to.per_lane());
        if out_n != want {
            return Err(self.invalid(
                c,
                "the result",
                format!("{out_n} lanes, but {in_n} lanes of {} make {want} of {}", name(from_ct), name(to_ct)),
            ));
        }
        let input = self.arg_val(c, 0)?;
        if from == to && in_ty == c.ty {
            return Ok(input);
        }
        let in_scalar = self.cx.ty(in_elem)?;
        let in_store = self.scalar_bits(in_elem).unwrap_or(32);
        let out_store = self.scalar_bits(out_elem).unwrap_or(32);
        let lanes: Vec<Word> = if in_elem == in_ty {
            vec![input]
        } else {
            (0..in_n).map(|j| self.ids_op(Op::CompositeExtract, in_scalar, &[input, j])).collect::<Result<_>>()?
        };
        // Unpack.
        let mut elems = Vec::with_capacity(count as usize);
        for &lane in &lanes {
            if !from.packed() {
                elems.push(match from.kind {
                    Kind::Float => Elem::Float { v: lane, bits: in_store },
                    _ => Elem::Int { v: lane, from, store: in_store },
                });
                continue;
            }
            let u = self.cx.u32_t();
            for j in 0..4 {
                let (offset, eight) = (self.cx.const_u32(8 * j), self.cx.const_u32(8));
                let op = if from.kind == Kind::SInt { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
                let b = self.ids_op(op, u, &[lane, offset, eight])?;
                elems.push(match from.kind {
                    Kind::Float8 { e5m2 } => {
                        let bits = self.float8_to_f32(e5m2, b)?;
                        let f = self.cx.float(32);
                        Elem::Float { v: self.ids_op(Op::Bitcast, f, &[bits])?, bits: 32 }
                    }
                    _ => Elem::Int { v: b, from, store: 32 },
                });
            }
        }
        // Convert each element to the target's register: `out_store` bits, or a `u32`
        // holding the code or the (in-range) value of an 8-bit target.
        let store = if to.packed() { 32 } else { out_store };
        let converted: Vec<Word> =
            elems.into_iter().map(|e| self.linalg_convert_elem(e, to, store)).collect::<Result<_>>()?;
        // Pack.
        let out: Vec<Word> = if to.packed() {
            let u = self.cx.u32_t();
            let zero = self.cx.const_u32(0);
            let mut words = Vec::with_capacity(out_n as usize);
            for chunk in converted.chunks(4) {
                let mut w = zero;
                for (j, &e) in chunk.iter().enumerate() {
                    let (offset, eight) = (self.cx.const_u32(8 * j as u32), self.cx.const_u32(8));
                    w = self.ids_op(Op::BitFieldInsert, u, &[w, e, offset, eight])?;
                }
                words.push(w);
            }
            words
        } else {
            converted
        };
        if out_elem == c.ty {
            return Ok(out[0]);
        }
        let t = self.cx.ty(c.ty)?;
        self.ids_op(Op::CompositeConstruct, t, &out)
    }

    /// (element type, lane count) of the vector (or scalar, one lane) type `t` holding
    /// `interp` data; its lanes are the interpretation's DXIL type, or `i32` for the 8-bit
    /// interpretations.
    fn linalg_convert_lanes(
        &self,
        c: &Call<'_>,
        t: crate::ir::TypeId,
        interp: Interp,
        what: &str,
    ) -> Result<(crate::ir::TypeId, u32)> {
        let (elem, len) = match *self.cx.m.types.get(t) {
            Type::Vector { elem, len } => (elem, len),
            // DXC writes a one-lane vector as its scalar.
            _ => (t, 1),
        };
        let lane = self.cx.m.types.get(elem);
        let ok = match (interp.kind, interp.bits) {
            (_, 8) => matches!(lane, Type::Int(32)),
            (Kind::Float, 16) => matches!(lane, Type::Float(FloatKind::Half)),
            (Kind::Float, 32) => matches!(lane, Type::Float(FloatKind::Float)),
            (Kind::Float, _) => matches!(lane, Type::Float(FloatKind::Double)),
            (_, bits) => *lane == Type::Int(bits),
        };
        if !ok {
            return Err(self.invalid(c, what, "its lanes are not of the interpretation's type (i32 for 8-bit ones)"));
        }
        Ok((elem, len))
    }

    /// One element converted to `to`, in a register of `store` bits (see
    /// [`Self::linalg_convert`]).
    fn linalg_convert_elem(&mut self, e: Elem, to: Interp, store: u32) -> Result<Word> {
        match (e, to.kind) {
            (Elem::Int { v, from, store: ws }, Kind::SInt | Kind::UInt) => {
                let t = self.cx.uint(ws);
                let (lo_s, hi_s) = from.range();
                let (lo_d, hi_d) = to.range();
                let k = |fe: &mut Self, x: i128| fe.cx.const_bits(t, ws, (x as u64) & (u64::MAX >> (64 - ws)));
                let mut v = v;
                if from.kind == Kind::SInt {
                    if lo_d > lo_s {
                        let lo = k(self, lo_d);
                        v = self.glsl(t, SMAX, &[v, lo])?;
                    }
                    if hi_d < hi_s {
                        let hi = k(self, hi_d);
                        v = self.glsl(t, SMIN, &[v, hi])?;
                    }
                } else if hi_d < hi_s {
                    let hi = k(self, hi_d);
                    v = self.glsl(t, UMIN, &[v, hi])?;
                }
                self.linalg_resize(v, from.kind == Kind::SInt, ws, store)
            }
            (Elem::Int { v, from, .. }, Kind::Float | Kind::Float8 { .. }) => {
                let fbits = if to.kind == Kind::Float { store } else { 32 };
                let f = self.cx.float(fbits);
                let op = if from.kind == Kind::SInt { Op::ConvertSToF } else { Op::ConvertUToF };
                let x = self.ids_op(op, f, &[v])?;
                self.linalg_float_out(x, to)
            }
            (Elem::Float { v, bits }, Kind::Float | Kind::Float8 { .. }) => {
                let target = if to.kind == Kind::Float { store } else { 32 };
                let x = if bits == target {
                    v
                } else {
                    let f = self.cx.float(target);
                    self.ids_op(Op::FConvert, f, &[v])?
                };
                self.linalg_float_out(x, to)
            }
            (Elem::Float { v, bits }, Kind::SInt | Kind::UInt) => self.linalg_float_to_int(v, bits, to, store),
        }
    }

    /// A float element `x` already in the target's float width, encoded when the target
    /// is a float8 (saturating).
    fn linalg_float_out(&mut self, x: Word, to: Interp) -> Result<Word> {
        let Kind::Float8 { e5m2 } = to.kind else { return Ok(x) };
        let u = self.cx.u32_t();
        let bits = self.ids_op(Op::Bitcast, u, &[x])?;
        self.float8_from_f32(e5m2, true, bits)
    }

    /// Integer `v` (signed when `signed`) moved from a `from`-bit to a `to`-bit register;
    /// its value fits the target.
    fn linalg_resize(&mut self, v: Word, signed: bool, from: u32, to: u32) -> Result<Word> {
        if from == to {
            return Ok(v);
        }
        let t = self.cx.uint(to);
        let op = if to > from && signed { Op::SConvert } else { Op::UConvert };
        self.ids_op(op, t, &[v])
    }

    /// Float `x` of `bits` width to integer interpretation `to` in a `store`-bit register:
    /// rounded to nearest even, saturated, NaN to 0.
    fn linalg_float_to_int(&mut self, x: Word, bits: u32, to: Interp, store: u32) -> Result<Word> {
        let (f, b, t) = (self.cx.float(bits), self.cx.bool_t(), self.cx.uint(store));
        let (mant, max) = match bits {
            16 => (10, 65504.0),
            32 => (23, f64::from(f32::MAX)),
            _ => (52, f64::MAX),
        };
        let (lo_d, hi_d) = to.range();
        let r = self.glsl(f, ROUND_EVEN, &[x])?;
        let op = if to.kind == Kind::SInt { Op::ConvertFToS } else { Op::ConvertFToU };
        let mut v = self.ids_op(op, t, &[r])?;
        let int_k = |fe: &mut Self, n: i128| fe.cx.const_bits(t, store, (n as u64) & (u64::MAX >> (64 - store)));
        // Above the largest float in range: the maximum.
        let hi_safe = self.cx.const_bits(f, bits, float_bits(float_at_most(hi_d, mant, max), bits));
        let above = self.ids_op(Op::FOrdGreaterThan, b, &[r, hi_safe])?;
        let hi = int_k(self, hi_d);
        v = self.ids_op(Op::Select, t, &[above, hi, v])?;
        // Below the smallest float in range (a power of two or 0): the minimum.
        let lo_safe = if lo_d == 0 { 0.0 } else { -float_at_most(-lo_d, mant, max) };
        let lo_safe = self.cx.const_bits(f, bits, float_bits(lo_safe, bits));
        let below = self.ids_op(Op::FOrdLessThan, b, &[r, lo_safe])?;
        let lo = int_k(self, lo_d);
        v = self.ids_op(Op::Select, t, &[below, lo, v])?;
        let nan = self.ids_op(Op::IsNan, b, &[x])?;
        let zero = int_k(self, 0);
        self.ids_op(Op::Select, t, &[nan, zero, v])
    }
}

#[cfg(test)]
mod tests {
    use super::{float_at_most, float_bits};

    #[test]
    fn float_bounds_are_the_largest_floats_in_range() {
        // i32::MAX in f32 is 2^31 − 128; in f16 the format's maximum.
        assert_eq!(float_at_most(i32::MAX as i128, 23, f64::from(f32::MAX)), 2147483520.0);
        assert_eq!(float_at_most(i32::MAX as i128, 10, 65504.0), 65504.0);
        assert_eq!(float_at_most(127, 10, 65504.0), 127.0);
        assert_eq!(float_at_most(u64::MAX as i128, 52, f64::MAX), 18446744073709549568.0);
        assert_eq!(float_bits(65504.0, 16), 0x7bff);
        assert_eq!(float_bits(-32768.0, 16), 0xf800);
        assert_eq!(float_bits(127.0, 16), 0x57f0);
        assert_eq!(float_bits(2147483520.0, 32), u64::from(2147483520f32.to_bits()));
    }
}
