//! AGS's float work with an explicit rounding direction: `FloatOpWithRoundMode` (`f32`
//! add, subtract, multiply, rounded to nearest even, toward +∞, toward −∞ or toward zero)
//! and `FloatConversion` (`f32` → `f16`, to nearest even, toward −∞ or toward +∞; the
//! result is the `f16`'s bits, zero-extended). Operands and results are the floats' bits
//! (`u32`), as the magic UAV passes them. Encodings: `crate::dxil::ags`.
//!
//! Vulkan has no per-instruction directed rounding (`FPRoundingMode` decorates only
//! conversions, and the `RoundingModeRTE`/`RTZ` execution modes are whole-entry-point and
//! round to nearest or zero only), and its `OpFAdd`/`OpFMul` may flush denormals and need
//! not be fused with anything. So the operations are emulated **exactly in 32-bit integer
//! arithmetic on the bits**, with no float instruction at all: the result is correct
//! whatever the device's default rounding, denormal and fusion behaviour. Subnormal
//! operands and results are honoured (IEEE 754 semantics, as `DenormPreserve` would give),
//! not flushed.
//!
//! The algorithm (the classic software-float "round and pack", IEEE 754-2008 §4.3 and
//! §7.4; written from the standard, not from another implementation):
//!
//! 1. Unpack: a finite operand is `m · 2^(max(E, 1) − 150)` with `m` the mantissa and the
//!    implicit bit when `E ≠ 0`.
//! 2. Exact-or-round-to-odd significand: a 31-bit `sig` and exponent `exp` with value
//!    `sig · 2^(exp + 1 − bias − 30)`, `sig`'s leading one at bit 30 whenever `exp > 0`,
//!    and bit 0 "sticky" (the OR of every bit shifted out). Sums align the smaller
//!    magnitude under the larger (`m << 7`) with a sticky right shift; since the larger
//!    is a multiple of 2^7 the difference of the two is then the exact one rounded to odd
//!    at bit 0, and a carry (bit 31) shifts right once more, sticky. Products multiply the
//!    normalised 24-bit significands (`OpUMulExtended`, 48 bits exact) and keep bits
//!    16..47, the low 16 sticky.
//! 3. Round and pack into the destination (`f32`: 23 mantissa bits, so 7 round bits;
//!    `f16`: 10 and 20): below the smallest normal exponent, shift right (sticky) to the
//!    subnormal position; add the mode's increment (half a unit for nearest, all-ones
//!    for rounding away from zero in the direction of the result's sign, 0 otherwise);
//!    shift out the round bits; on an exact tie in nearest mode clear the low bit (to
//!    even). The exponent is added, not ORed, so a carry out of the mantissa moves into
//!    it (and a subnormal rounds up to the smallest normal). A magnitude at or above
//!    infinity's bits overflowed: ±∞ when the mode rounds away from zero for that sign
//!    (nearest included), else the largest finite value.
//!
//! Round-to-odd at two or more bits below the final precision followed by any IEEE
//! rounding gives the correctly rounded result (Boldo & Melquiond, "Emulation of FMA and
//! correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008), which
//! is why one sticky bit suffices.
//!
//! Special values: a NaN operand, `∞ − ∞` and `0 · ∞` give the canonical quiet NaN
//! `0x7fc00000` (`f16`: the input's sign and payload's top bits, quiet bit set); an
//! infinite operand otherwise gives the infinity; an exact zero sum is `−0` when both
//! operands are `−0`, or under rounding toward −∞ when their signs differ, else `+0`.
//!
//! Cost (before value numbering): add/subtract and multiply about 90 integer
//! instructions each, the conversion about 45; no control flow. The tests' oracle (`untangle_testkit::ags::rounded_op`) is written
//! independently on `f64` and itself checked against LLVM's APFloat.

use crate::dxil::ags::{FloatOp, RoundMode};
use crate::emit::error::Result;
use crate::emit::glsl::{FIND_UMSB, SMAX, UMAX, UMIN};
use crate::emit::FnEmit;
use rspirv::spirv::{Op, Word};

const SIGN: u32 = 0x8000_0000;
const F32_INF: u32 = 0x7f80_0000;
const F32_QNAN: u32 = 0x7fc0_0000;

/// `u32`, `i32` and `bool` types, and the `f32` bit masks and small constants the rounded
/// operations use.
struct F32Bits {
    u: Word,
    i: Word,
    bt: Word,
    abs_mask: Word,
    sign: Word,
    zero: Word,
    one: Word,
}

/// A destination format: mantissa bits and infinity's bits.
struct Dest {
    mant: u32,
    inf: u32,
}

const F32: Dest = Dest { mant: 23, inf: F32_INF };
const F16: Dest = Dest { mant: 10, inf: 0x7c00 };

impl Dest {
    /// The round bits below the mantissa in a significand whose leading one is bit 30.
    fn round_bits(&self) -> u32 {
        30 - self.mant
    }

    /// `(increment, overflow magnitude)` for a positive and a negative result.
    fn mode_constants(&self, mode: RoundMode) -> ((u32, u32), (u32, u32)) {
        let rb = self.round_bits();
        let (half, all, inf, max) = (1 << (rb - 1), (1 << rb) - 1, self.inf, self.inf - 1);
        match mode {
            RoundMode::NearestEven => ((half, half), (inf, inf)),
            RoundMode::TowardZero => ((0, 0), (max, max)),
            RoundMode::TowardPositive => ((all, 0), (inf, max)),
            RoundMode::TowardNegative => ((0, all), (max, inf)),
        }
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// `FloatOpWithRoundMode`: `a op b` on `f32` bits (`u32`), rounded as `mode` says.
    pub(super) fn ags_rounded_op(&mut self, op: FloatOp, mode: RoundMode, a: Word, b: Word) -> Result<Word> {
        match op {
            FloatOp::Add => self.rounded_add(mode, a, b),
            FloatOp::Subtract => {
                let u = self.cx.u32_t();
                let sign = self.cx.const_u32(SIGN);
                let nb = self.ids_op(Op::BitwiseXor, u, &[b, sign])?;
                self.rounded_add(mode, a, nb)
            }
            FloatOp::Multiply => self.rounded_mul(mode, a, b),
        }
    }

    /// `FloatConversion`: the `f16` bits (zero-extended) of the `f32` whose bits are `x`,
    /// rounded as `mode` says.
    pub(super) fn ags_f16_conversion(&mut self, mode: RoundMode, x: Word) -> Result<Word> {
        let (u, i, b) = (self.cx.u32_t(), self.cx.sint(32), self.cx.bool_t());
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let (abs_mask, c31) = (k(self, !SIGN), k(self, 31));
        let a = self.ids_op(Op::BitwiseAnd, u, &[x, abs_mask])?;
        let s = self.ids_op(Op::ShiftRightLogical, u, &[x, c31])?;
        let zero = k(self, 0);
        let neg = self.ids_op(Op::INotEqual, b, &[s, zero])?;
        let (e, m) = self.unpack(a)?;
        // value = m · 2^(max(E, 1) − 150) = (m << 7) · 2^(exp + 1 − 15 − 30).
        let seven = k(self, 7);
        let sig = self.ids_op(Op::ShiftLeftLogical, u, &[m, seven])?;
        let e = self.ids_op(Op::Bitcast, i, &[e])?;
        let rebase = self.cx.const_bits(i, 32, 113);
        let exp = self.ids_op(Op::ISub, i, &[e, rebase])?;
        let mag = self.round_pack(&F16, mode, neg, exp, sig)?;
        // Infinity and NaN (quiet, the payload's top bits kept).
        let inf_bits = k(self, F32_INF);
        let is_inf = self.ids_op(Op::IEqual, b, &[a, inf_bits])?;
        let is_nan = self.ids_op(Op::UGreaterThan, b, &[a, inf_bits])?;
        let (c13, mmask, quiet, f16_inf) = (k(self, 13), k(self, 0x7f_ffff), k(self, 0x7e00), k(self, F16.inf));
        let payload = self.ids_op(Op::BitwiseAnd, u, &[a, mmask])?;
        let payload = self.ids_op(Op::ShiftRightLogical, u, &[payload, c13])?;
        let nan = self.ids_op(Op::BitwiseOr, u, &[payload, quiet])?;
        let mag = self.ids_op(Op::Select, u, &[is_inf, f16_inf, mag])?;
        let mag = self.ids_op(Op::Select, u, &[is_nan, nan, mag])?;
        let c15 = k(self, 15);
        let sign = self.ids_op(Op::ShiftLeftLogical, u, &[s, c15])?;
        self.ids_op(Op::BitwiseOr, u, &[mag, sign])
    }

    /// `(max(E, 1), m)` of the finite magnitude `a`: the biased exponent (at least 1) and
    /// the mantissa with the implicit bit of a normal number.
    fn unpack(&mut self, a: Word) -> Result<(Word, Word)> {
        let (u, b) = (self.cx.u32_t(), self.cx.bool_t());
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let (c23, mmask, implicit, zero, one) =
            (k(self, 23), k(self, 0x7f_ffff), k(self, 0x80_0000), k(self, 0), k(self, 1));
        let e = self.ids_op(Op::ShiftRightLogical, u, &[a, c23])?;
        let normal = self.ids_op(Op::INotEqual, b, &[e, zero])?;
        let m = self.ids_op(Op::BitwiseAnd, u, &[a, mmask])?;
        let bit = self.ids_op(Op::Select, u, &[normal, implicit, zero])?;
        let m = self.ids_op(Op::BitwiseOr, u, &[m, bit])?;
        let e = self.glsl(u, UMAX, &[e, one])?;
        Ok((e, m))
    }

    /// `x >> sh` with the bits shifted out ORed into bit 0 (`sh` at most 31).
    fn shift_right_sticky(&mut self, x: Word, sh: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let kept = self.ids_op(Op::ShiftRightLogical, u, &[x, sh])?;
        let lost = self.low_bits(x, sh)?;
        self.or_sticky(kept, lost)
    }

    /// `x & ((1 << sh) − 1)`: the bits of `x` below bit `sh` (`sh` at most 31), those a
    /// right shift by `sh` drops.
    pub(super) fn low_bits(&mut self, x: Word, sh: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let one = self.cx.const_u32(1);
        let unit = self.ids_op(Op::ShiftLeftLogical, u, &[one, sh])?;
        let mask = self.ids_op(Op::ISub, u, &[unit, one])?;
        self.ids_op(Op::BitwiseAnd, u, &[x, mask])
    }

    /// `x` with bit 0 set when any bit of `lost` is: the sticky bit of a significand whose
    /// low bits `lost` were cut off.
    fn or_sticky(&mut self, x: Word, lost: Word) -> Result<Word> {
        let (u, b) = (self.cx.u32_t(), self.cx.bool_t());
        let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
        let any = self.ids_op(Op::INotEqual, b, &[lost, zero])?;
        let sticky = self.ids_op(Op::Select, u, &[any, one, zero])?;
        self.ids_op(Op::BitwiseOr, u, &[x, sticky])
    }

    /// The sign bit of the `f32` bits `x` (a `u32`) and whether it is set.
    fn sign_of(&mut self, x: Word) -> Result<(Word, Word)> {
        let (u, bt) = (self.cx.u32_t(), self.cx.bool_t());
        let (sign, zero) = (self.cx.const_u32(SIGN), self.cx.const_u32(0));
        let s = self.ids_op(Op::BitwiseAnd, u, &[x, sign])?;
        let set = self.ids_op(Op::INotEqual, bt, &[s, zero])?;
        Ok((s, set))
    }

    /// [`Self::sign_of`] `x ^ y`: whether the floats whose bits are `x` and `y` differ in
    /// sign (the sign of their product).
    fn sign_of_xor(&mut self, x: Word, y: Word) -> Result<(Word, Word)> {
        let u = self.cx.u32_t();
        let s = self.ids_op(Op::BitwiseXor, u, &[x, y])?;
        self.sign_of(s)
    }

    /// A `u32` constant chosen by the result's sign (`neg`), folded when both agree.
    fn by_sign(&mut self, neg: Word, (pos, negative): (u32, u32)) -> Result<Word> {
        let u = self.cx.u32_t();
        let p = self.cx.const_u32(pos);
        if pos == negative {
            return Ok(p);
        }
        let n = self.cx.const_u32(negative);
        self.ids_op(Op::Select, u, &[neg, n, p])
    }

    /// Rounds `sig · 2^(exp + 1 − bias − 30)` (`exp` an `i32`; `sig` < 2^31 with its
    /// leading one at bit 30 when `exp > 0`, bit 0 sticky) into `dest` as `mode` says for
    /// a result of sign `neg`; returns the magnitude's bits (a `u32`).
    fn round_pack(&mut self, dest: &Dest, mode: RoundMode, neg: Word, exp: Word, sig: Word) -> Result<Word> {
        let (u, i, b) = (self.cx.u32_t(), self.cx.sint(32), self.cx.bool_t());
        let zero_i = self.cx.const_bits(i, 32, 0);
        // Below the normal range: to the subnormal position, exponent field 0.
        let minus = self.ids_op(Op::SNegate, i, &[exp])?;
        let sh = self.glsl(i, SMAX, &[minus, zero_i])?;
        let sh = self.ids_op(Op::Bitcast, u, &[sh])?;
        let c31 = self.cx.const_u32(31);
        let sh = self.glsl(u, UMIN, &[sh, c31])?;
        let sig = self.shift_right_sticky(sig, sh)?;
        let e = self.glsl(i, SMAX, &[exp, zero_i])?;
        let e = self.ids_op(Op::Bitcast, u, &[e])?;
        let (inc, overflow) = dest.mode_constants(mode);
        let inc = self.by_sign(neg, inc)?;
        let rb = self.cx.const_u32(dest.round_bits());
        let up = self.ids_op(Op::IAdd, u, &[sig, inc])?;
        let mut r = self.ids_op(Op::ShiftRightLogical, u, &[up, rb])?;
        if mode == RoundMode::NearestEven {
            let half_unit = 1 << (dest.round_bits() - 1);
            let (rmask, half, not1) =
                (self.cx.const_u32((1 << dest.round_bits()) - 1), self.cx.const_u32(half_unit), self.cx.const_u32(!1));
            let rbits = self.ids_op(Op::BitwiseAnd, u, &[sig, rmask])?;
            let tie = self.ids_op(Op::IEqual, b, &[rbits, half])?;
            let even = self.ids_op(Op::BitwiseAnd, u, &[r, not1])?;
            r = self.ids_op(Op::Select, u, &[tie, even, r])?;
        }
        let mant = self.cx.const_u32(dest.mant);
        let e = self.ids_op(Op::ShiftLeftLogical, u, &[e, mant])?;
        let mag = self.ids_op(Op::IAdd, u, &[e, r])?;
        let inf = self.cx.const_u32(dest.inf);
        let over = self.ids_op(Op::UGreaterThanEqual, b, &[mag, inf])?;
        let ovf = self.by_sign(neg, overflow)?;
        self.ids_op(Op::Select, u, &[over, ovf, mag])
    }

    /// The types and constants both rounded operations start from.
    fn f32_bits(&mut self) -> F32Bits {
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        F32Bits {
            u: self.cx.u32_t(),
            i: self.cx.sint(32),
            bt: self.cx.bool_t(),
            abs_mask: k(self, !SIGN),
            sign: k(self, SIGN),
            zero: k(self, 0),
            one: k(self, 1),
        }
    }

    /// `a + b` on `f32` bits, rounded as `mode` says.
    fn rounded_add(&mut self, mode: RoundMode, a: Word, b: Word) -> Result<Word> {
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let F32Bits { u, i, bt, abs_mask, zero, one, .. } = self.f32_bits();
        let aa = self.ids_op(Op::BitwiseAnd, u, &[a, abs_mask])?;
        let ab = self.ids_op(Op::BitwiseAnd, u, &[b, abs_mask])?;
        // The larger magnitude first; the result (unless zero) has its sign.
        let a_first = self.ids_op(Op::UGreaterThanEqual, bt, &[aa, ab])?;
        let big = self.ids_op(Op::Select, u, &[a_first, a, b])?;
        let small = self.ids_op(Op::Select, u, &[a_first, b, a])?;
        let abig = self.ids_op(Op::Select, u, &[a_first, aa, ab])?;
        let asmall = self.ids_op(Op::Select, u, &[a_first, ab, aa])?;
        let (eb, mb) = self.unpack(abig)?;
        let (es, ms) = self.unpack(asmall)?;
        let d = self.ids_op(Op::ISub, u, &[eb, es])?;
        let c31 = k(self, 31);
        let d = self.glsl(u, UMIN, &[d, c31])?;
        let seven = k(self, 7);
        let big_sig = self.ids_op(Op::ShiftLeftLogical, u, &[mb, seven])?;
        let small_sig = self.ids_op(Op::ShiftLeftLogical, u, &[ms, seven])?;
        let small_sig = self.shift_right_sticky(small_sig, d)?;
        let (_, differ) = self.sign_of_xor(big, small)?;
        let sum = self.ids_op(Op::IAdd, u, &[big_sig, small_sig])?;
        let diff = self.ids_op(Op::ISub, u, &[big_sig, small_sig])?;
        let sum = self.ids_op(Op::Select, u, &[differ, diff, sum])?;
        // Normalise: the leading one to bit 30 (left, exact; or right once, sticky).
        let msb = self.glsl(u, FIND_UMSB, &[sum])?;
        let carry = self.ids_op(Op::IEqual, bt, &[msb, c31])?;
        let c30 = k(self, 30);
        let l = self.ids_op(Op::ISub, u, &[c30, msb])?;
        let l = self.glsl(u, UMIN, &[l, c31])?;
        let left = self.ids_op(Op::ShiftLeftLogical, u, &[sum, l])?;
        let right = self.shift_right_sticky(sum, one)?;
        let sig = self.ids_op(Op::Select, u, &[carry, right, left])?;
        // exp = max(E_big, 1) − 1 + (carry ? 1 : −l).
        let eb_i = self.ids_op(Op::Bitcast, i, &[eb])?;
        let l_i = self.ids_op(Op::Bitcast, i, &[l])?;
        let one_i = self.cx.const_bits(i, 32, 1);
        let down = self.ids_op(Op::ISub, i, &[eb_i, one_i])?;
        let down = self.ids_op(Op::ISub, i, &[down, l_i])?;
        let exp = self.ids_op(Op::Select, i, &[carry, eb_i, down])?;
        let (big_sign, neg) = self.sign_of(big)?;
        let mag = self.round_pack(&F32, mode, neg, exp, sig)?;
        let r = self.ids_op(Op::BitwiseOr, u, &[mag, big_sign])?;
        // An exact zero: the operands' common sign, else −0 only rounding toward −∞.
        let cancel_sign = k(self, if mode == RoundMode::TowardNegative { SIGN } else { 0 });
        let zero_r = self.ids_op(Op::Select, u, &[differ, cancel_sign, big_sign])?;
        let is_zero = self.ids_op(Op::IEqual, bt, &[sum, zero])?;
        let r = self.ids_op(Op::Select, u, &[is_zero, zero_r, r])?;
        // Infinities (the larger magnitude is the infinity) and NaNs.
        let inf = k(self, F32_INF);
        let big_inf = self.ids_op(Op::IEqual, bt, &[abig, inf])?;
        let small_inf = self.ids_op(Op::IEqual, bt, &[asmall, inf])?;
        let nan_in = self.ids_op(Op::UGreaterThan, bt, &[abig, inf])?;
        let inf_minus_inf = self.ids_op(Op::LogicalAnd, bt, &[small_inf, differ])?;
        let nan = self.ids_op(Op::LogicalOr, bt, &[nan_in, inf_minus_inf])?;
        let r = self.ids_op(Op::Select, u, &[big_inf, big, r])?;
        let qnan = k(self, F32_QNAN);
        self.ids_op(Op::Select, u, &[nan, qnan, r])
    }

    /// `a · b` on `f32` bits, rounded as `mode` says.
    fn rounded_mul(&mut self, mode: RoundMode, a: Word, b: Word) -> Result<Word> {
        let k = |fe: &mut Self, n: u32| fe.cx.const_u32(n);
        let F32Bits { u, i, bt, abs_mask, sign, zero, one } = self.f32_bits();
        let (s, neg) = self.sign_of_xor(a, b)?;
        let aa = self.ids_op(Op::BitwiseAnd, u, &[a, abs_mask])?;
        let ab = self.ids_op(Op::BitwiseAnd, u, &[b, abs_mask])?;
        let (ma, ea) = self.normalized(aa)?;
        let (mb, eb) = self.normalized(ab)?;
        // The 48-bit product's bits 16..47, the low 16 sticky.
        let st = self.cx.b.type_struct([u, u]);
        let p = self.ids_op(Op::UMulExtended, st, &[ma, mb])?;
        let lo = self.extract(u, p, 0)?;
        let hi = self.extract(u, p, 1)?;
        let c16 = k(self, 16);
        let top = self.ids_op(Op::ShiftLeftLogical, u, &[hi, c16])?;
        let mid = self.ids_op(Op::ShiftRightLogical, u, &[lo, c16])?;
        let sig = self.ids_op(Op::BitwiseOr, u, &[top, mid])?;
        let low_mask = k(self, 0xffff);
        let low = self.ids_op(Op::BitwiseAnd, u, &[lo, low_mask])?;
        let sig = self.or_sticky(sig, low)?;
        // A product in [2, 4): one more sticky shift.
        let carry = self.ids_op(Op::UGreaterThanEqual, bt, &[sig, sign])?;
        let right = self.shift_right_sticky(sig, one)?;
        let sig = self.ids_op(Op::Select, u, &[carry, right, sig])?;
        // exp = ea + eb − 128 (+ 1 on a carry).
        let base = self.ids_op(Op::IAdd, i, &[ea, eb])?;
        let (c128, c127) = (self.cx.const_bits(i, 32, 128), self.cx.const_bits(i, 32, 127));
        let rebase = self.ids_op(Op::Select, i, &[carry, c127, c128])?;
        let exp = self.ids_op(Op::ISub, i, &[base, rebase])?;
        let mag = self.round_pack(&F32, mode, neg, exp, sig)?;
        let r = self.ids_op(Op::BitwiseOr, u, &[mag, s])?;
        // Zeros, infinities, NaNs (0 · ∞ included).
        let inf = k(self, F32_INF);
        let any_zero = self.either(Op::IEqual, [aa, ab], zero)?;
        let any_inf = self.either(Op::IEqual, [aa, ab], inf)?;
        let nan = self.either(Op::UGreaterThan, [aa, ab], inf)?;
        let zero_inf = self.ids_op(Op::LogicalAnd, bt, &[any_zero, any_inf])?;
        let nan = self.ids_op(Op::LogicalOr, bt, &[nan, zero_inf])?;
        let r = self.ids_op(Op::Select, u, &[any_zero, s, r])?;
        let signed_inf = self.ids_op(Op::BitwiseOr, u, &[s, inf])?;
        let r = self.ids_op(Op::Select, u, &[any_inf, signed_inf, r])?;
        let qnan = k(self, F32_QNAN);
        self.ids_op(Op::Select, u, &[nan, qnan, r])
    }

    /// Whether `x cmp c` holds for either `x` (`cmp` an integer comparison).
    fn either(&mut self, cmp: Op, [x, y]: [Word; 2], c: Word) -> Result<Word> {
        let bt = self.cx.bool_t();
        let px = self.ids_op(cmp, bt, &[x, c])?;
        let py = self.ids_op(cmp, bt, &[y, c])?;
        self.ids_op(Op::LogicalOr, bt, &[px, py])
    }

    /// `(m, e)` of the finite nonzero magnitude `a` with the significand's leading one at
    /// bit 23: `a = m · 2^(e − 150)`, `e` an `i32` (at most 0 for a subnormal).
    fn normalized(&mut self, a: Word) -> Result<(Word, Word)> {
        let (u, i) = (self.cx.u32_t(), self.cx.sint(32));
        let (e, m) = self.unpack(a)?;
        let msb = self.glsl(u, FIND_UMSB, &[m])?;
        let (c23, c31) = (self.cx.const_u32(23), self.cx.const_u32(31));
        // m = 0 (a zero, selected away later) gives msb −1: clamp the shift.
        let n = self.ids_op(Op::ISub, u, &[c23, msb])?;
        let n = self.glsl(u, UMIN, &[n, c31])?;
        let m = self.ids_op(Op::ShiftLeftLogical, u, &[m, n])?;
        let e = self.ids_op(Op::Bitcast, i, &[e])?;
        let n = self.ids_op(Op::Bitcast, i, &[n])?;
        let e = self.ids_op(Op::ISub, i, &[e, n])?;
        Ok((m, e))
    }
}
