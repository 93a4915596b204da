//! `dx.op` operations that a thread runs alone: arithmetic, conversions, bit operations,
//! handles and resource access, system values. Semantics from DXC `docs/DXIL.rst` (one
//! section per operation: `Bfi`, `Ibfe`, `Ubfe`, `Msad`, `FMax`/`FMin` NaN rules,
//! `Saturate`, `FirstbitHi` counting from the MSB, `UDiv` by zero, the resource
//! operations' coordinates) and the D3D11.3 functional spec for formats and bounds.
//!
//! Precision: the tolerance each operation gets is in `docs/dxil-semantics.md` (the ULP
//! table); transcendental functions (`Sin` ... `Exp`, `Log`) are computed but tagged
//! [`Acc::ANY`]: D3D bounds them by absolute error over ranges, not by ULP, and the
//! harness does not check them.

use super::exec::{exact, fdiv_acc, indeterminate, internal, operand, scalar, with_tolerance, Ctx, Thread, R};
use super::float::{self, Fk};
use super::program::OpCall;
use super::value::{mask, sext, Acc, Handle, Scalar, Val};
use untangle::dxil::{DxOp, ResourceClass};
use untangle::ir::{AtomicRmwOp, InstId, Value};

fn fk_of(overload: Option<&str>) -> Fk {
    match overload {
        Some("f16") => Fk::H,
        Some("f64") => Fk::D,
        _ => Fk::F,
    }
}

fn width_of(overload: Option<&str>) -> u32 {
    match overload {
        Some("i1") => 1,
        Some("i8") => 8,
        Some("i16") | Some("f16") => 16,
        Some("i64") | Some("f64") => 64,
        _ => 32,
    }
}

fn s(v: Scalar) -> Val {
    Val::S(v)
}

fn e(bits: u64) -> Val {
    Val::exact(bits)
}

/// An integer result computed exactly from `args` (exact if they all are).
fn int_from(args: &[Scalar], bits: u64) -> Val {
    let acc = args.iter().fold(Acc::EXACT, |a, x| a.join(x.acc));
    Val::S(Scalar { bits, acc })
}

pub fn atomic_rmw(op: AtomicRmwOp, old: Scalar, v: Scalar, w: u32) -> R<Scalar> {
    let (x, y) = (mask(old.bits, w), mask(v.bits, w));
    let bits = match op {
        AtomicRmwOp::Xchg => y,
        AtomicRmwOp::Add => x.wrapping_add(y),
        AtomicRmwOp::Sub => x.wrapping_sub(y),
        AtomicRmwOp::And => x & y,
        AtomicRmwOp::Or => x | y,
        AtomicRmwOp::Xor => x ^ y,
        AtomicRmwOp::Nand => !(x & y),
        AtomicRmwOp::Max => {
            if sext(x, w) >= sext(y, w) {
                x
            } else {
                y
            }
        }
        AtomicRmwOp::Min => {
            if sext(x, w) <= sext(y, w) {
                x
            } else {
                y
            }
        }
        AtomicRmwOp::UMax => x.max(y),
        AtomicRmwOp::UMin => x.min(y),
        _ => return internal(format!("atomicrmw {op:?}")),
    };
    let acc = if op == AtomicRmwOp::Xchg { v.acc } else { old.acc.join(v.acc) };
    Ok(Scalar { bits: mask(bits, w), acc })
}

/// `AtomicBinOp`'s operation operand (DXIL `AtomicBinOpCode`).
fn atomic_code(code: u64) -> R<AtomicRmwOp> {
    Ok(match code {
        0 => AtomicRmwOp::Add,
        1 => AtomicRmwOp::And,
        2 => AtomicRmwOp::Or,
        3 => AtomicRmwOp::Xor,
        4 => AtomicRmwOp::Min,
        5 => AtomicRmwOp::Max,
        6 => AtomicRmwOp::UMin,
        7 => AtomicRmwOp::UMax,
        8 => AtomicRmwOp::Xchg,
        _ => return internal(format!("atomic op code {code}")),
    })
}

fn handle(ctx: &Ctx, t: &Thread, v: Value) -> R<usize> {
    match operand(ctx.p, t, v)? {
        Val::Handle(h) => match ctx.res.find(h) {
            Some(i) => Ok(i),
            None => indeterminate(format!("access through a handle to an unbound resource {h:?}")),
        },
        _ => indeterminate("a resource access through an undefined handle"),
    }
}

/// A coordinate operand: `undef` ones (unused coordinates) read as 0.
pub(super) fn coord(ctx: &Ctx, t: &Thread, v: Value) -> R<u64> {
    let x = scalar(ctx.p, t, v)?;
    if let Value::Const(c) = v {
        if matches!(ctx.p.module.constants.get(c).kind, untangle::ir::ConstKind::Undef) {
            return Ok(0);
        }
    }
    if !x.acc.is_exact() {
        return indeterminate("a resource coordinate D3D leaves undefined");
    }
    Ok(mask(x.bits, 32))
}

/// The `%dx.types.ResRet` of a load: four components and the status.
fn res_ret(comps: Vec<Scalar>, in_bounds: bool) -> Val {
    let mut v: Vec<Val> = comps.into_iter().map(Val::S).collect();
    while v.len() < 4 {
        v.push(Val::undefined());
    }
    // Status: what CheckAccessFullyMapped reads. In bounds: fully mapped (1). Out of
    // bounds: D3D does not say for non-tiled resources.
    v.push(if in_bounds { e(1) } else { Val::undefined() });
    Val::agg(v)
}

fn unary_float(op: DxOp, a: Scalar, fk: Fk) -> R<Val> {
    let sign = 1u64 << (fk.bits() - 1);
    Ok(match op {
        // Arithmetic to D3D, as negation is: a denormal may be flushed.
        DxOp::FAbs => s(float::both_modes(&[a], fk, |x| x[0] & !sign)),
        DxOp::Saturate => s(float::arith1(a, fk, |x| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) })),
        DxOp::IsNaN | DxOp::IsInf | DxOp::IsFinite | DxOp::IsNormal => {
            let x = float::to_f64(a.bits, fk);
            let keep = match op {
                DxOp::IsNaN => x.is_nan(),
                DxOp::IsInf => x.is_infinite(),
                DxOp::IsFinite => x.is_finite(),
                _ => x.is_finite() && x != 0.0 && !float::is_denorm(a.bits, fk),
            };
            s(Scalar { bits: keep as u64, acc: a.acc })
        }
        DxOp::Round_ne => s(float::arith1(a, fk, |x| x.round_ties_even())),
        DxOp::Round_ni => s(float::arith1(a, fk, f64::floor)),
        DxOp::Round_pi => s(float::arith1(a, fk, f64::ceil)),
        DxOp::Round_z => s(float::arith1(a, fk, f64::trunc)),
        DxOp::Frc => {
            // x - floor(x) may round up to 1.0 for tiny negative x: 1 ULP.
            let r = float::arith1(a, fk, |x| x - x.floor());
            s(with_tolerance(r, Acc::ulp(1), fk))
        }
        DxOp::Sqrt => s(with_tolerance(float::arith1(a, fk, f64::sqrt), fdiv_acc(fk), fk)),
        DxOp::Rsqrt => s(with_tolerance(float::arith1(a, fk, |x| 1.0 / x.sqrt()), Acc::ulp(2), fk)),
        _ => {
            let f: fn(f64) -> f64 = match op {
                DxOp::Cos => f64::cos,
                DxOp::Sin => f64::sin,
                DxOp::Tan => f64::tan,
                DxOp::Acos => f64::acos,
                DxOp::Asin => f64::asin,
                DxOp::Atan => f64::atan,
                DxOp::Hcos => f64::cosh,
                DxOp::Hsin => f64::sinh,
                DxOp::Htan => f64::tanh,
                DxOp::Exp => f64::exp2,
                DxOp::Log => f64::log2,
                _ => return internal(format!("unary {op:?}")),
            };
            let r = float::arith1(a, fk, f);
            s(Scalar { acc: Acc::ANY, ..r })
        }
    })
}

fn firstbit_hi(x: u64, w: u32) -> u64 {
    if x == 0 {
        mask(u64::MAX, 32)
    } else {
        // Counted from the MSB (DXIL.rst, FirstbitHi).
        (x.leading_zeros() - (64 - w)) as u64
    }
}

/// Runs one non-synchronising `dx.op` call; `None` for operations without a result.
/// DXIL 1.9's vector operations and vector overloads go to [`super::vector`].
pub fn call(ctx: &mut Ctx, t: &mut Thread, inst: InstId, c: &OpCall) -> R<Option<Val>> {
    if let Some(v) = super::vector::call(ctx, t, inst, c)? {
        return Ok(v);
    }
    call_lane(ctx, t, c, None)
}

/// [`call`] of a scalar operation; `lane`: instead of the call's operands, one lane's
/// scalar arguments and scalar overload (an element-wise operation on native vectors, see
/// [`super::vector`]).
pub fn call_lane(ctx: &mut Ctx, t: &mut Thread, c: &OpCall, lane: Option<(&[Scalar], &str)>) -> R<Option<Val>> {
    let p = ctx.p;
    let ov = match lane {
        Some((_, ov)) => Some(ov),
        None => c.overload.as_deref(),
    };
    let a = &c.args;
    let arg = |i: usize| -> R<Scalar> {
        match lane {
            Some((xs, _)) => xs.get(i).copied().ok_or(super::exec::RunError::Internal(format!("lane operand {i}"))),
            None => scalar(p, t, a[i]),
        }
    };
    use DxOp::*;
    Ok(Some(match c.op {
        ThreadId => e(t.gtid[exact(p, t, a[0], "component")? as usize % 3] as u64),
        GroupId => e(t.gid[exact(p, t, a[0], "component")? as usize % 3] as u64),
        ThreadIdInGroup => e(t.tid[exact(p, t, a[0], "component")? as usize % 3] as u64),
        FlattenedThreadIdInGroup => e(t.flat as u64),
        WaveGetLaneIndex => e(t.lane as u64),
        WaveGetLaneCount => e(ctx.wave_size as u64),
        FAbs | Saturate | IsNaN | IsInf | IsFinite | IsNormal | Cos | Sin | Tan | Acos | Asin | Atan | Hcos | Hsin
        | Htan | Exp | Frc | Log | Sqrt | Rsqrt | Round_ne | Round_ni | Round_pi | Round_z => {
            unary_float(c.op, arg(0)?, fk_of(ov))?
        }
        Bfrev | Countbits | FirstbitLo | FirstbitHi | FirstbitSHi => {
            let x = arg(0)?;
            let w = width_of(ov);
            let v = mask(x.bits, w);
            let bits = match c.op {
                Bfrev => v.reverse_bits() >> (64 - w),
                Countbits => v.count_ones() as u64,
                FirstbitLo => {
                    if v == 0 {
                        0xffff_ffff
                    } else {
                        v.trailing_zeros() as u64
                    }
                }
                FirstbitHi => firstbit_hi(v, w),
                _ => {
                    let neg = (v >> (w - 1)) & 1 == 1;
                    firstbit_hi(if neg { mask(!v, w) } else { v }, w)
                }
            };
            int_from(&[x], bits)
        }
        FMax | FMin => {
            let (x, y) = (arg(0)?, arg(1)?);
            let fk = fk_of(ov);
            let r = if c.op == FMax { float::fmax(x, y, fk) } else { float::fmin(x, y, fk) };
            s(float::zero_sign_any(x, y, r, fk))
        }
        IMax | IMin | UMax | UMin => {
            let (x, y) = (arg(0)?, arg(1)?);
            let w = width_of(ov);
            let (ux, uy) = (mask(x.bits, w), mask(y.bits, w));
            let (sx, sy) = (sext(ux, w), sext(uy, w));
            let bits = match c.op {
                IMax => {
                    if sx >= sy {
                        ux
                    } else {
                        uy
                    }
                }
                IMin => {
                    if sx <= sy {
                        ux
                    } else {
                        uy
                    }
                }
                UMax => ux.max(uy),
                _ => ux.min(uy),
            };
            int_from(&[x, y], bits)
        }
        IMul | UMul => {
            let (x, y) = (arg(0)?, arg(1)?);
            let full = if c.op == IMul {
                (sext(x.bits, 32) * sext(y.bits, 32)) as u64
            } else {
                mask(x.bits, 32) * mask(y.bits, 32)
            };
            let acc = x.acc.join(y.acc);
            Val::agg(vec![
                s(Scalar { bits: full >> 32 & 0xffff_ffff, acc }),
                s(Scalar { bits: full & 0xffff_ffff, acc }),
            ])
        }
        UDiv => {
            let (x, y) = (arg(0)?, arg(1)?);
            let acc = x.acc.join(y.acc);
            let (n, d) = (mask(x.bits, 32), mask(y.bits, 32));
            let (q, r) = n.checked_div(d).zip(n.checked_rem(d)).unwrap_or((0xffff_ffff, 0xffff_ffff));
            Val::agg(vec![s(Scalar { bits: q, acc }), s(Scalar { bits: r, acc })])
        }
        UAddc | USubb => {
            let (x, y) = (arg(0)?, arg(1)?);
            let acc = x.acc.join(y.acc);
            let (n, d) = (mask(x.bits, 32), mask(y.bits, 32));
            let (v, carry) = if c.op == UAddc {
                (n.wrapping_add(d) & 0xffff_ffff, n + d > 0xffff_ffff)
            } else {
                (n.wrapping_sub(d) & 0xffff_ffff, n < d)
            };
            Val::agg(vec![s(Scalar { bits: v, acc }), s(Scalar { bits: carry as u64, acc })])
        }
        FMad | Fma => {
            let (x, y, z) = (arg(0)?, arg(1)?, arg(2)?);
            let fk = fk_of(ov);
            let unfused_with = |flush_product: bool| {
                float::both_modes(&[x, y, z], fk, |v| {
                    let m = float::from_f64(float::to_f64(v[0], fk) * float::to_f64(v[1], fk), fk);
                    let m = if fk == Fk::D { (f64::from_bits(v[0]) * f64::from_bits(v[1])).to_bits() } else { m };
                    let m = if flush_product { float::ftz(m, fk) } else { m };
                    float::from_f64(float::to_f64(m, fk) + float::to_f64(v[2], fk), fk)
                })
            };
            // Unfused, the product is a result of its own: a denormal product may be
            // flushed before the add (the H200 does) even when no operand is a denormal.
            let unfused = unfused_with(false);
            let unfused = if float::same_float(unfused.bits, unfused_with(true).bits, fk) {
                unfused
            } else {
                Scalar { acc: Acc::ANY, ..unfused }
            };
            let fused = float::both_modes(&[x, y, z], fk, |v| match fk {
                Fk::D => f64::from_bits(v[0]).mul_add(f64::from_bits(v[1]), f64::from_bits(v[2])).to_bits(),
                Fk::F => f32::from_bits(v[0] as u32)
                    .mul_add(f32::from_bits(v[1] as u32), f32::from_bits(v[2] as u32))
                    .to_bits() as u64,
                Fk::H => float::from_f64(
                    float::to_f64(v[0], fk).mul_add(float::to_f64(v[1], fk), float::to_f64(v[2], fk)),
                    fk,
                ),
            });
            // Rounded results feed fast-math consumers as any rounding does; FMad reading a
            // rounded operand is itself such a consumer.
            let (fx, fy, fz) = (float::to_f64(x.bits, fk), float::to_f64(y.bits, fk), float::to_f64(z.bits, fk));
            let rounded = float::rounds(fx, fy, true, fk) || float::to_f64(fused.bits, fk) != fx * fy + fz;
            let tag = |r: Scalar| if rounded && r.acc.is_exact() { Scalar { acc: Acc::ROUNDED, ..r } } else { r };
            if c.op == Fma {
                s(tag(fused))
            } else if [x, y, z].iter().any(|v| v.acc.is_rounded()) {
                s(Scalar { acc: Acc::ANY, ..unfused })
            } else if float::same_float(fused.bits, unfused.bits, fk) {
                // FMad may or may not be fused (DXIL.rst: fused only when not precise).
                s(tag(unfused))
            } else {
                s(Scalar { acc: Acc::ANY, ..unfused })
            }
        }
        IMad | UMad => {
            let (x, y, z) = (arg(0)?, arg(1)?, arg(2)?);
            let w = width_of(ov);
            let bits = mask(x.bits.wrapping_mul(y.bits).wrapping_add(z.bits), w);
            int_from(&[x, y, z], bits)
        }
        Msad => {
            let (r, src, acc0) = (arg(0)?, arg(1)?, arg(2)?);
            let mut accum = mask(acc0.bits, 32);
            let mut undefined = false;
            for i in 0..4 {
                let rb = (r.bits >> (8 * i)) & 0xff;
                if rb == 0 {
                    continue;
                }
                let sb = (src.bits >> (8 * i)) & 0xff;
                let d = rb.abs_diff(sb);
                if accum + d > 0xffff_ffff {
                    // Saturate or wrap: both allowed (DXIL.rst, Msad).
                    undefined = true;
                }
                accum = (accum + d) & 0xffff_ffff;
            }
            let v = int_from(&[r, src, acc0], accum);
            if undefined {
                Val::undefined()
            } else {
                v
            }
        }
        Ibfe | Ubfe => {
            let (wd, off, x) = (arg(0)?, arg(1)?, arg(2)?);
            let (width, offset) = ((wd.bits & 31) as u32, (off.bits & 31) as u32);
            let v = mask(x.bits, 32) as u32;
            let bits = if width == 0 {
                0
            } else if width + offset < 32 {
                let sh = v << (32 - (width + offset));
                if c.op == Ibfe {
                    ((sh as i32) >> (32 - width)) as u32
                } else {
                    sh >> (32 - width)
                }
            } else if c.op == Ibfe {
                ((v as i32) >> offset) as u32
            } else {
                v >> offset
            };
            int_from(&[wd, off, x], bits as u64)
        }
        Bfi => {
            let (wd, off, src, base) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?);
            let (width, offset) = (wd.bits & 31, off.bits & 31);
            let bitmask = (((1u64 << width) - 1) << offset) & 0xffff_ffff;
            let bits = ((src.bits << offset) & bitmask) | (mask(base.bits, 32) & !bitmask);
            int_from(&[wd, off, src, base], bits & 0xffff_ffff)
        }
        Dot2 | Dot3 | Dot4 => {
            let n = match c.op {
                Dot2 => 2,
                Dot3 => 3,
                _ => 4,
            };
            let fk = fk_of(ov);
            let xs: Vec<Scalar> = (0..2 * n).map(arg).collect::<R<_>>()?;
            // A sum of products: the order and fusing are the implementation's.
            let r = float::both_modes(&xs, fk, |v| {
                let mut acc = 0.0f64;
                for k in 0..n {
                    acc += float::to_f64(v[k], fk) * float::to_f64(v[n + k], fk);
                }
                float::from_f64(acc, fk)
            });
            s(Scalar { acc: Acc::ANY, ..r })
        }
        MakeDouble => {
            let (lo, hi) = (arg(0)?, arg(1)?);
            int_from(&[lo, hi], mask(lo.bits, 32) | mask(hi.bits, 32) << 32)
        }
        SplitDouble => {
            let x = arg(0)?;
            Val::agg(vec![
                s(Scalar { bits: x.bits & 0xffff_ffff, acc: x.acc }),
                s(Scalar { bits: x.bits >> 32, acc: x.acc }),
            ])
        }
        BitcastF16toI16 => s(super::exec::float_bits_as_int(arg(0)?, Fk::H)),
        BitcastF32toI32 => s(super::exec::float_bits_as_int(arg(0)?, Fk::F)),
        BitcastF64toI64 => s(super::exec::float_bits_as_int(arg(0)?, Fk::D)),
        BitcastI16toF16 | BitcastI32toF32 | BitcastI64toF64 => s(arg(0)?),
        LegacyF32ToF16 => {
            let x = arg(0)?;
            let h = ctx.convert(x, Fk::F, Fk::H);
            s(Scalar { bits: h.bits & 0xffff, acc: h.acc })
        }
        LegacyF16ToF32 => {
            let x = arg(0)?;
            s(ctx.convert(Scalar { bits: x.bits & 0xffff, acc: x.acc }, Fk::H, Fk::F))
        }
        Dot2AddHalf => {
            // acc + (float(a.x * b.x) + float(a.y * b.y)) (DXIL.rst: "2D half dot product with
            // accumulate to float"): the dot product is completed before the accumulator is
            // added, so `2^24 + (1·1 + 1·1)` is `2^24 + 2`, where adding the products one by
            // one would round each back to `2^24`. Half denormals are kept (D3D's native
            // 16-bit arithmetic); the fp32 mode applies to the accumulator and the result.
            // Exact when each product is exact in half and their sum exact in float; where
            // a product rounds in half (or overflows), implementations differ (products in
            // half or wider), and so where the sum of the products rounds in float.
            let acc0 = arg(0)?;
            let xs: Vec<Scalar> = (1..5).map(arg).collect::<R<_>>()?;
            let h = |b: u64| float::to_f64(b & 0xffff, Fk::H);
            let mut exact_parts = true;
            let mut overflow = false;
            let mut dot = 0.0f64;
            for k in 0..2 {
                let e = h(xs[k].bits) * h(xs[k + 2].bits);
                let in_half = float::to_f64(float::from_f64(e, Fk::H), Fk::H);
                exact_parts &= in_half == e || e.is_nan();
                overflow |= in_half.is_infinite() && e.is_finite();
                dot += in_half;
            }
            let dot_f = float::to_f64(float::from_f64(dot, Fk::F), Fk::F);
            exact_parts &= dot_f == dot || dot.is_nan();
            let r = float::both_modes(&[acc0], Fk::F, |v| float::from_f64(float::to_f64(v[0], Fk::F) + dot_f, Fk::F));
            let mut r = Scalar { acc: xs.iter().fold(r.acc, |a, x| a.join(x.acc)), ..r };
            let sum = float::to_f64(acc0.bits, Fk::F) + dot_f;
            if float::to_f64(r.bits, Fk::F) != sum && !sum.is_nan() {
                r.acc = r.acc.join(Acc::ROUNDED);
            }
            s(if overflow {
                Scalar { acc: Acc::ANY, ..r }
            } else if exact_parts {
                r
            } else {
                with_tolerance(r, Acc::ulp(1), Fk::F)
            })
        }
        Dot4AddI8Packed | Dot4AddU8Packed => {
            let (acc0, x, y) = (arg(0)?, arg(1)?, arg(2)?);
            let mut sum = mask(acc0.bits, 32) as u32;
            for k in 0..4 {
                let (bx, by) = ((x.bits >> (8 * k)) as u8, (y.bits >> (8 * k)) as u8);
                let prod = if c.op == Dot4AddI8Packed {
                    (bx as i8 as i32 * by as i8 as i32) as u32
                } else {
                    bx as u32 * by as u32
                };
                sum = sum.wrapping_add(prod);
            }
            int_from(&[acc0, x, y], sum as u64)
        }
        Unpack4x8 => {
            // (unpackMode: 0 zero-extend, 1 sign-extend; packed i32) → 4 × overload.
            let (mode, x) = (arg(0)?, arg(1)?);
            let w = width_of(ov);
            let comps = (0..4)
                .map(|k| {
                    let b = (x.bits >> (8 * k)) & 0xff;
                    let v = if mode.bits & 1 == 1 { mask(sext(b, 8) as u64, w) } else { b };
                    s(Scalar { bits: v, acc: x.acc.join(mode.acc) })
                })
                .collect();
            Val::agg(comps)
        }
        Pack4x8 => {
            // (packMode: 0 trunc, 1 unsigned clamp [0, 255], 2 signed clamp [-128, 127]; x, y, z, w).
            let mode = arg(0)?;
            let w = width_of(ov);
            let xs: Vec<Scalar> = (1..5).map(arg).collect::<R<_>>()?;
            let mut bits = 0u64;
            for (k, x) in xs.iter().enumerate() {
                let v = sext(mask(x.bits, w), w);
                let b = match mode.bits {
                    1 => v.clamp(0, 255) as u64,
                    2 => (v.clamp(-128, 127) as u64) & 0xff,
                    _ => (v as u64) & 0xff,
                };
                bits |= b << (8 * k);
            }
            let mut all = xs.clone();
            all.push(mode);
            int_from(&all, bits)
        }
        CreateHandle => {
            let class = exact(p, t, a[0], "resource class")?;
            let range = exact(p, t, a[1], "range id")?;
            let index = exact(p, t, a[2], "resource index")?;
            let class = ResourceClass::from_index(class).ok_or(super::exec::RunError::Internal("class".into()))?;
            let Some(r) = p.info.resources.by_id(class, range as u32) else {
                return internal(format!("no resource range {range}"));
            };
            check_range(r.lower_bound, r.range_size, index as u32)?;
            Val::Handle(Handle::Reg { class, space: r.space, register: index as u32 })
        }
        CreateHandleFromBinding => {
            // (%dx.types.ResBind { lower, upper, space, class }, index, nonUniform)
            let Val::Agg(bind) = operand(p, t, a[0])? else { return internal("ResBind") };
            let field = |k: usize| bind.get(k).and_then(Val::scalar).map(|x| x.bits).unwrap_or(0);
            let (lower, upper, space, class) = (field(0) as u32, field(1) as u32, field(2) as u32, field(3));
            let index = exact(p, t, a[1], "resource index")? as u32;
            let class = ResourceClass::from_index(class).ok_or(super::exec::RunError::Internal("class".into()))?;
            if index < lower || (upper != u32::MAX && index > upper) {
                return indeterminate(format!("resource index {index} outside [{lower}, {upper}]"));
            }
            Val::Handle(Handle::Reg { class, space, register: index })
        }
        CreateHandleFromHeap => {
            let index = exact(p, t, a[0], "heap index")? as u32;
            let sampler = exact(p, t, a[1], "sampler flag")? & 1 == 1;
            Val::Handle(Handle::Heap { sampler, index })
        }
        AnnotateHandle => match operand(p, t, a[0])? {
            Val::Handle(Handle::Heap { sampler, index }) => {
                let Val::Agg(w) = operand(p, t, a[1])? else { return internal("ResourceProperties") };
                let word = |k: usize| w.get(k).and_then(Val::scalar).map(|x| x.bits as u32).unwrap_or(0);
                let view = super::heap::view([word(0), word(1)], sampler).map_err(super::exec::RunError::Internal)?;
                let h = Handle::Reg { class: view.class, space: view.space(), register: index };
                if let Some(r) = ctx.res.find(h) {
                    if !view.reads(&ctx.res.list[r].kind) {
                        return indeterminate(format!(
                            "heap descriptor {index} read as another type ({:?})",
                            view.kind
                        ));
                    }
                }
                Val::Handle(h)
            }
            other => other,
        },
        CBufferLoadLegacy => {
            let r = handle(ctx, t, a[0])?;
            let row = coord(ctx, t, a[1])? as i64;
            let w = width_of(ov);
            let n = 128 / w as usize;
            let size = (w / 8) as usize;
            let res = &ctx.res.list[r];
            let fk = ov.filter(|o| o.starts_with('f')).map(|_| fk_of(ov));
            let _ = fk;
            Val::agg((0..n).map(|k| s(res.cbuffer_read(row * 16 + (k * size) as i64, size))).collect())
        }
        CBufferLoad => {
            let r = handle(ctx, t, a[0])?;
            let off = coord(ctx, t, a[1])? as i64;
            let size = (width_of(ov) / 8).max(1) as usize;
            s(ctx.res.list[r].cbuffer_read(off, size))
        }
        RawBufferLoad => {
            let r = handle(ctx, t, a[0])?;
            let (c0, c1) = (coord(ctx, t, a[1])?, coord(ctx, t, a[2])?);
            let m = exact(p, t, a[3], "mask")?;
            let size = (width_of(ov) / 8) as usize;
            let count = 4 - (m as u8 & 0xf).leading_zeros().saturating_sub(4) as usize;
            let l = ctx.res.list[r].load_raw(c0, c1, size, count.max(1));
            res_ret(l.comps, l.in_bounds)
        }
        BufferLoad => {
            let r = handle(ctx, t, a[0])?;
            let (c0, c1) = (coord(ctx, t, a[1])?, coord(ctx, t, a[2])?);
            let res = &ctx.res.list[r];
            let size = (width_of(ov) / 8) as usize;
            let l = match res.kind {
                super::resources::ResKind::Typed { .. } => res.load_typed([c0, 0, 0]),
                _ => res.load_raw(c0, c1, size, 4),
            };
            res_ret(l.comps, l.in_bounds)
        }
        TextureLoad => {
            // (handle, mip, c0, c1, c2, o0, o1, o2): mip 0 only; offsets must be 0.
            let r = handle(ctx, t, a[0])?;
            let res = &ctx.res.list[r];
            let uav = matches!(res.class, ResourceClass::Uav);
            let mip = if uav { 0 } else { coord(ctx, t, a[1])? };
            let mut cs = [coord(ctx, t, a[2])?, coord(ctx, t, a[3])?, coord(ctx, t, a[4])?];
            // Texel offsets add to the coordinates: their 4 least significant bits, signed
            // (SM 6.7 "Programmable Offsets"; immediate ones are in [-8, 7] anyway).
            for (k, &o) in a[5..8].iter().enumerate() {
                let off = sext(coord(ctx, t, o)? & 0xf, 4);
                cs[k] = (cs[k] as i64 + off) as u64 & 0xffff_ffff;
            }
            let l = if mip != 0 {
                super::resources::Loaded { comps: vec![Scalar::exact(0); 4], in_bounds: false }
            } else {
                res.load_typed(cs)
            };
            res_ret(l.comps, l.in_bounds)
        }
        TextureStore | BufferStore => {
            // TextureStore(handle, c0, c1, c2, v0..v3, mask); BufferStore(handle, c0, c1, v0..v3, mask).
            let r = handle(ctx, t, a[0])?;
            let ncoord = if c.op == TextureStore { 3 } else { 2 };
            let cs: Vec<u64> = (1..=ncoord).map(|k| coord(ctx, t, a[k])).collect::<R<_>>()?;
            let vals: Vec<Scalar> = (0..4).map(|k| scalar(p, t, a[1 + ncoord + k])).collect::<R<_>>()?;
            let m = exact(p, t, a[5 + ncoord], "mask")? as u8;
            let res = &mut ctx.res.list[r];
            match res.kind {
                super::resources::ResKind::Typed { .. } | super::resources::ResKind::Texture { .. } => {
                    let c3 = [cs[0], cs.get(1).copied().unwrap_or(0), cs.get(2).copied().unwrap_or(0)];
                    res.store_typed(
                        if c.op == BufferStore { [cs[0], 0, 0] } else { c3 },
                        &[vals[0], vals[1], vals[2], vals[3]],
                        m,
                    )
                }
                _ => {
                    let size = (width_of(ov) / 8) as usize;
                    let fk = ov.filter(|o| o.starts_with('f')).map(|_| fk_of(ov));
                    let vs: Vec<(Scalar, Option<Fk>)> = vals.iter().map(|&v| (v, fk)).collect();
                    res.store_raw(cs[0], cs[1], size, &vs, |k| m & (1 << k) != 0);
                }
            }
            return Ok(None);
        }
        RawBufferStore => {
            // (handle, c0, c1, v0..v3, mask, alignment)
            let r = handle(ctx, t, a[0])?;
            let (c0, c1) = (coord(ctx, t, a[1])?, coord(ctx, t, a[2])?);
            let m = exact(p, t, a[7], "mask")? as u8;
            let fk = ov.filter(|o| o.starts_with('f')).map(|_| fk_of(ov));
            let mut vs = Vec::new();
            for k in 0..4 {
                let v = if m & (1 << k) != 0 { scalar(p, t, a[3 + k])? } else { Scalar::undefined() };
                vs.push((v, fk));
            }
            let size = (width_of(ov) / 8) as usize;
            ctx.res.list[r].store_raw(c0, c1, size, &vs, |k| m & (1 << k) != 0);
            return Ok(None);
        }
        CheckAccessFullyMapped => {
            let x = arg(0)?;
            s(Scalar { bits: (mask(x.bits, 32) == 1) as u64, acc: x.acc })
        }
        GetDimensions => {
            let r = handle(ctx, t, a[0])?;
            let res = &ctx.res.list[r];
            use super::resources::{ResKind, TexDim};
            let (w, h, d, mips) = match &res.kind {
                ResKind::Raw => (res.mem.len() as u64, 0, 0, 0),
                ResKind::Structured { .. } | ResKind::Typed { .. } => (res.elements(), 0, 0, 0),
                ResKind::Texture { dim, extent, .. } => {
                    let [x, y, z] = extent.map(|v| v as u64);
                    match dim {
                        TexDim::D1 => (x, 0, 0, 1),
                        TexDim::D1Array => (x, y.max(z), 0, 1),
                        TexDim::D2 => (x, y, 0, 1),
                        TexDim::D2Array | TexDim::D3 => (x, y, z, 1),
                    }
                }
                _ => return internal("GetDimensions of a constant buffer or sampler"),
            };
            // Unused components are undefined.
            let uav = res.class == ResourceClass::Uav;
            let mips = if uav || matches!(res.kind, ResKind::Raw | ResKind::Structured { .. } | ResKind::Typed { .. }) {
                Val::undefined()
            } else {
                e(mips)
            };
            let dim = |v: u64, used: bool| if used { e(v) } else { Val::undefined() };
            let is_buf = matches!(res.kind, ResKind::Raw | ResKind::Structured { .. } | ResKind::Typed { .. });
            // A mip level past the last (the harness binds one): width, height and depth 0
            // (D3D `resinfo`); an array's size then is not documented.
            let mip = if uav || is_buf { 0 } else { coord(ctx, t, a[1])? };
            if mip >= 1 {
                return Ok(Some(match res.kind {
                    ResKind::Texture { dim: TexDim::D1Array, .. } => {
                        Val::agg(vec![e(0), Val::undefined(), Val::undefined(), mips])
                    }
                    ResKind::Texture { dim: TexDim::D2Array, .. } => Val::agg(vec![e(0), e(0), Val::undefined(), mips]),
                    _ => Val::agg(vec![e(0), dim(0, h > 0), dim(0, d > 0), mips]),
                }));
            }
            Val::agg(vec![e(w), dim(h, !is_buf && h > 0), dim(d, !is_buf && d > 0), mips])
        }
        BufferUpdateCounter => {
            let r = handle(ctx, t, a[0])?;
            let inc = sext(exact(p, t, a[1], "counter direction")?, 8);
            let res = &mut ctx.res.list[r];
            let Some(cnt) = res.counter.as_mut() else { return indeterminate("UAV without a counter") };
            // Increment returns the value before, decrement the value after.
            if inc >= 0 {
                let old = *cnt;
                *cnt = cnt.wrapping_add(1);
                e(old as u64)
            } else {
                *cnt = cnt.wrapping_sub(1);
                e(*cnt as u64)
            }
        }
        AtomicBinOp | AtomicCompareExchange => {
            let r = handle(ctx, t, a[0])?;
            let w = width_of(ov);
            let size = (w / 8) as usize;
            let (off, cs) = if c.op == AtomicBinOp { (2, 3) } else { (1, 3) };
            let code = if c.op == AtomicBinOp { Some(atomic_code(exact(p, t, a[1], "atomic op")?)?) } else { None };
            let coords = [coord(ctx, t, a[off])?, coord(ctx, t, a[off + 1])?, coord(ctx, t, a[off + 2])?];
            let res = &mut ctx.res.list[r];
            let addr = res.atomic_address(coords, size);
            let (v0, v1) = (
                scalar(p, t, a[off + cs])?,
                if code.is_none() { scalar(p, t, a[off + cs + 1])? } else { Scalar::exact(0) },
            );
            let Some(addr) = addr else {
                // Out of bounds: nothing is written; the read half returns 0 as any
                // out-of-bounds load does (DXIL.rst, "Out-of-bounds behavior").
                return Ok(Some(e(0)));
            };
            let old = res.mem.read(addr, size).unwrap_or_else(Scalar::undefined);
            match code {
                Some(op) => {
                    let new = atomic_rmw(op, old, v0, w)?;
                    res.mem.write(addr, size, new, None);
                }
                None => {
                    // (cmp = v0, new = v1)
                    let acc = old.acc.join(v0.acc);
                    if !acc.is_exact() {
                        res.mem.mark_any(addr, size);
                    } else if mask(old.bits, w) == mask(v0.bits, w) {
                        res.mem.write(addr, size, v1, None);
                    }
                }
            }
            s(old)
        }
        SampleLevel => super::sample::sample_level(ctx, t, a)?,
        Sample => super::sample::sample_implicit(ctx, t, a)?,
        CalculateLOD => super::sample::calculate_lod(ctx, t, a)?,
        TextureGather => super::sample::gather(ctx, t, a, false)?,
        SampleCmpLevel | SampleCmpLevelZero => super::sample::sample_cmp(ctx, t, a)?,
        TextureGatherRaw => super::sample::gather(ctx, t, a, true)?,
        op if super::ray_query::is_ray_query(op) => return super::ray_query::call(ctx, t, c),
        other => return internal(format!("dx.op {} is not a thread-local operation", other.name())),
    }))
}

fn check_range(lower: u32, size: Option<u32>, index: u32) -> R<()> {
    let upper = size.map(|n| lower as u64 + n as u64);
    if index < lower || upper.is_some_and(|u| index as u64 >= u) {
        return indeterminate(format!("resource index {index} outside its range"));
    }
    Ok(())
}
