//! AMD AGS intrinsics the interpreter models exactly: the `atomicCompareExchange` calls on
//! AGS's magic UAV (`u0`, space [`MAGIC_SPACE`]) decoded with `untangle::dxil::ags`.
//! Semantics from AMD's AGS SDK (`ags_shader_intrinsics_dx12.hlsl`: the intrinsics' HLSL
//! meaning), not from untangle's emitter.
//!
//! Thread-local (run in [`super::exec::step`]): `LaneId`, `GetWaveSize`, `MBCnt`
//! (`bitCount(src0 & lt.x) + bitCount(src1 & lt.y)`), `Min3`/`Med3`/`Max3` `U`/`F`. Phase 0
//! of the latter returns `min(a, b)` (`max` for `Max3`); phase 1 passes `c` and phase 0's
//! result, whose own operands `a`, `b` it reads again (they are SSA values of the same
//! thread), so nothing is kept between phases. Floats use IEEE `minNum`/`maxNum` (a NaN
//! operand loses, as GLSL `NMin`/`NMax`); which zero a `±0` tie gives is not pinned down,
//! so such a result is inexact.
//!
//! Wave operations (run once for the instance's active lanes, [`super::wave::execute`]):
//! `Readfirstlane` (lowest active lane), `Readlane` (the immediate's lane), `ReadlaneAt`
//! (`src1`'s lane), `Swizzle` (`Swizzle::source`), `Ballot` phase 0 / 1 (active lanes
//! 0..31 / 32..63 whose `src0` is not 0), `WaveReduce` / `WaveScan` (the `WaveOp` on
//! active lanes; integer results exact, float sums and products [`Acc::ANY`] as for D3D's
//! own wave operations). Reading an inactive lane is undefined (inexact).
//!
//! `AtomicU64` (`U64`, per thread): phase 0 passes the byte address, phase 1 the value's
//! low word; a `bufferStore`/`rawBufferStore` of phase 1's result at phase 0's names the
//! target (a raw buffer UAV) and writes nothing; phase 2 passes the high word, performs
//! the 64-bit operation on the target's 8 bytes at the address, returns the old value's
//! high word and redefines phase 0's result as its low word (as the driver does: phase 0's
//! result is read after phase 2). The compare-exchange takes a phase 3: phase 2 passes the
//! value's high word and the comparator's low word, phase 3 its high word and performs it.
//!
//! `BufferStoreByte` / `BufferStoreShort` (`SubWord`, per thread): phase 0 passes the
//! address and the value; a buffer store of phase 0's result names the target and the
//! address and writes the value's low 1 / 2 bytes there (nothing out of bounds); phase 1
//! ends it. `ShaderMarker` (a profiler's trace marker) reads 0 and does nothing.
//!
//! `FloatOpWithRoundMode` and `FloatConversion` (thread-local): IEEE 754 `f32` add,
//! subtract, multiply and `f32` → `f16` in the decoded rounding direction, by the
//! reference `crate::ags::{rounded_op, f16_rounded}` (on `f64`, checked against LLVM's
//! APFloat; any NaN result is the canonical quiet NaN).
//!
//! Everything else on the magic UAV (WMMA, float8, clocks, draw
//! parameters) is an [`RunError::Internal`] gap naming the instruction; WMMA's element
//! layout is implementation-defined, so it is not modelled. Cost: constant per lane.

use super::exec::{exact, internal, operand, scalar, Ctx, RunError, Thread, R};
use super::value::{Acc, Handle, Scalar, Val};
use untangle::dxil::ags::{self, Kind, Opcode, Scan, WaveOp, MAGIC_SPACE};
use untangle::dxil::DxOp;
use untangle::ir::{InstId, Value};

/// How a call on the magic UAV runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    ThreadLocal,
    Wave,
}

/// The decoded instruction of call `inst` when it is an AGS call, and how it runs.
pub fn classify(ctx: &Ctx, t: &Thread, inst: InstId) -> R<Option<(ags::Instruction, Class)>> {
    let p = ctx.p;
    let Some(call) = &p.ops[inst] else { return Ok(None) };
    if call.op != DxOp::AtomicCompareExchange {
        return Ok(None);
    }
    let Ok(Val::Handle(Handle::Reg { space: MAGIC_SPACE, register: 0, .. })) = operand(p, t, call.args[0]) else {
        return Ok(None);
    };
    let word = exact(p, t, call.args[1], "AGS instruction word")? as u32;
    let d = ags::decode(word).map_err(|e| RunError::Indeterminate(format!("malformed AGS stream: {e}")))?;
    use Opcode::*;
    let class = match d.opcode {
        Readfirstlane | Readlane | ReadlaneAt | Swizzle | Ballot | WaveReduce | WaveScan => Class::Wave,
        AtomicU64 | BufferStoreByte | BufferStoreShort | ShaderMarker => Class::ThreadLocal,
        LaneId | GetWaveSize | MBCnt | Min3U | Min3F | Med3U | Med3F | Max3U | Max3F => Class::ThreadLocal,
        FloatOpWithRoundMode | FloatConversion => Class::ThreadLocal,
        op => return internal(format!("AGS {op} is not modelled by the interpreter")),
    };
    Ok(Some((d, class)))
}

fn u(s: Scalar) -> u32 {
    s.bits as u32
}

fn out(bits: u32, acc: Acc) -> Val {
    Val::S(Scalar { bits: u64::from(bits), acc })
}

/// A thread-local AGS call's result.
pub fn thread_local(ctx: &Ctx, t: &Thread, inst: InstId, d: ags::Instruction) -> R<Val> {
    let p = ctx.p;
    let call = p.ops[inst].as_ref().expect("classified");
    let src = |k: usize| scalar(p, t, call.args[4 + k]);
    use Opcode::*;
    Ok(match d.opcode {
        LaneId => Val::S(Scalar::exact(u64::from(t.lane))),
        // A profiler marker: nothing observable (the lowering's result reads 0).
        ShaderMarker => Val::S(Scalar::exact(0)),
        GetWaveSize => Val::S(Scalar::exact(u64::from(ctx.wave_size))),
        MBCnt => {
            let (lo, hi) = (src(0)?, src(1)?);
            let lt = if t.lane == 0 { 0u64 } else { u64::MAX >> (64 - t.lane) };
            let n = (u(lo) & lt as u32).count_ones() + (u(hi) & (lt >> 32) as u32).count_ones();
            out(n, lo.acc.join(hi.acc))
        }
        FloatOpWithRoundMode | FloatConversion => {
            let a = src(0)?;
            let x = f32::from_bits(u(a));
            match d.kind {
                Kind::RoundedOp { op, mode } => {
                    let b = src(1)?;
                    let r = crate::ags::rounded_op(op, mode, x, f32::from_bits(u(b)));
                    out(r, a.acc.join(b.acc))
                }
                Kind::F16Conversion(mode) => out(crate::ags::f16_rounded(mode, x), a.acc),
                _ => return internal(format!("AGS {} without its decoded kind", d.opcode)),
            }
        }
        op => {
            let float = matches!(op, Min3F | Med3F | Max3F);
            let (r, acc) = if d.phase == 0 {
                let (a, b) = (src(0)?, src(1)?);
                let r = if matches!(op, Max3U | Max3F) { max(a, b, float) } else { min(a, b, float) };
                (r, a.acc.join(b.acc))
            } else {
                let c = src(0)?;
                let Value::Inst(first) = call.args[5] else {
                    return Err(RunError::Indeterminate(format!("AGS {op} phase 1 without phase 0's result")));
                };
                let Some(c0) = p.ops[first].as_ref().filter(|c0| c0.op == DxOp::AtomicCompareExchange) else {
                    return Err(RunError::Indeterminate(format!("AGS {op} phase 1 without phase 0's result")));
                };
                let (a, b) = (scalar(p, t, c0.args[4])?, scalar(p, t, c0.args[5])?);
                let acc = a.acc.join(b.acc).join(c.acc);
                let r = match op {
                    Min3U | Min3F => min(min(a, b, float), c, float),
                    Max3U | Max3F => max(max(a, b, float), c, float),
                    _ => max(min(a, b, float), min(max(a, b, float), c, float), float),
                };
                (r, acc)
            };
            out(u(r), r.acc.join(acc))
        }
    })
}

/// `min` of two 32-bit values (unsigned, or `f32` `minNum`), inexact on a `±0` tie.
fn min(a: Scalar, b: Scalar, float: bool) -> Scalar {
    pick(a, b, float, true)
}

fn max(a: Scalar, b: Scalar, float: bool) -> Scalar {
    pick(a, b, float, false)
}

fn pick(a: Scalar, b: Scalar, float: bool, less: bool) -> Scalar {
    if !float {
        let r = if (u(a) < u(b)) == less { a } else { b };
        return Scalar { bits: r.bits, acc: a.acc.join(b.acc) };
    }
    let (x, y) = (f32::from_bits(u(a)), f32::from_bits(u(b)));
    let r = if less { x.min(y) } else { x.max(y) };
    let tie = x == 0.0 && y == 0.0 && u(a) != u(b);
    Scalar { bits: u64::from(r.to_bits()), acc: if tie { Acc::ANY } else { a.acc.join(b.acc) } }
}

/// A wave AGS call's result for each of `lanes` (thread indices, lowest lane first).
pub fn wave(ctx: &Ctx, threads: &[Thread], lanes: &[usize], inst: InstId, d: ags::Instruction) -> R<Vec<Val>> {
    let p = ctx.p;
    let call = p.ops[inst].as_ref().expect("classified");
    let src = |i: usize, k: usize| scalar(p, &threads[i], call.args[4 + k]);
    let lane_of = |i: usize| threads[i].lane;
    let x: Vec<Scalar> = lanes.iter().map(|&i| src(i, 0)).collect::<R<_>>()?;
    let read = |lane: u32| -> Scalar {
        match lanes.iter().position(|&i| lane_of(i) == lane) {
            Some(n) => x[n],
            None => Scalar { bits: 0, acc: Acc::ANY },
        }
    };
    use Opcode::*;
    Ok(match (d.opcode, d.kind) {
        (Readfirstlane, _) => vec![Val::S(x[0]); lanes.len()],
        (Readlane, Kind::Lane(l)) => vec![Val::S(read(l)); lanes.len()],
        (ReadlaneAt, _) => lanes
            .iter()
            .map(|&i| {
                let l = src(i, 1)?;
                let v = read(u(l));
                Ok(Val::S(Scalar { bits: v.bits, acc: v.acc.join(l.acc) }))
            })
            .collect::<R<_>>()?,
        (Swizzle, Kind::Swizzle(s)) => lanes.iter().map(|&i| Val::S(read(s.source(lane_of(i))))).collect(),
        (Ballot, _) => {
            let acc = x.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
            let mask = lanes.iter().zip(&x).filter(|(_, v)| u(**v) != 0).fold(0u64, |m, (&i, _)| m | 1 << lane_of(i));
            vec![out((mask >> (32 * d.phase.min(1))) as u32, acc); lanes.len()]
        }
        (WaveReduce | WaveScan, Kind::Wave { op, scan }) => {
            let mut results = Vec::with_capacity(lanes.len());
            for n in 0..lanes.len() {
                let sel: &[Scalar] = match scan {
                    None => &x,
                    Some(Scan::Inclusive) => &x[..=n],
                    Some(Scan::Exclusive) => &x[..n],
                };
                results.push(Val::S(fold(op, sel)));
            }
            results
        }
        (op, _) => return internal(format!("AGS {op} is not a wave operation")),
    })
}

/// `op` over `xs` (the identity when empty).
fn fold(op: WaveOp, xs: &[Scalar]) -> Scalar {
    use WaveOp::*;
    let acc = xs.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
    let fl = |v: &Scalar| f32::from_bits(u(*v));
    let bits: u32 = match op {
        AddU | AddI => xs.iter().fold(0u32, |a, v| a.wrapping_add(u(*v))),
        MulU | MulI => xs.iter().fold(1u32, |a, v| a.wrapping_mul(u(*v))),
        MinU => xs.iter().fold(u32::MAX, |a, v| a.min(u(*v))),
        MaxU => xs.iter().fold(0, |a, v| a.max(u(*v))),
        MinI => xs.iter().fold(i32::MAX, |a, v| a.min(u(*v) as i32)) as u32,
        MaxI => xs.iter().fold(i32::MIN, |a, v| a.max(u(*v) as i32)) as u32,
        And => xs.iter().fold(u32::MAX, |a, v| a & u(*v)),
        Or => xs.iter().fold(0, |a, v| a | u(*v)),
        Xor => xs.iter().fold(0, |a, v| a ^ u(*v)),
        MinF | MaxF => {
            let init = if op == MinF { f32::INFINITY } else { f32::NEG_INFINITY };
            let r = xs.iter().fold(init, |a, v| if op == MinF { a.min(fl(v)) } else { a.max(fl(v)) });
            let zeros = xs.iter().filter(|v| fl(v) == 0.0).map(|v| u(*v)).collect::<Vec<_>>();
            let tie = r == 0.0 && zeros.windows(2).any(|w| w[0] != w[1]);
            return Scalar { bits: u64::from(r.to_bits()), acc: if tie { Acc::ANY } else { acc } };
        }
        // The order of a float sum or product is the implementation's.
        AddF | MulF => {
            let r = if op == AddF { xs.iter().map(fl).sum::<f32>() } else { xs.iter().map(fl).product() };
            return Scalar { bits: u64::from(r.to_bits()), acc: Acc::ANY };
        }
    };
    Scalar { bits: u64::from(bits), acc }
}

/// An AGS 64-bit atomic between its phases (one thread's).
#[derive(Clone, Copy, Debug)]
pub struct U64 {
    phase0: InstId,
    phase1: Option<InstId>,
    address: Scalar,
    lo: Scalar,
    target: Option<usize>,
    /// The compare-exchange's phase 2 operands: the value's high word, the comparator's
    /// low word.
    cmpxchg: Option<(Scalar, Scalar)>,
}

/// A phase of `AtomicU64` (`d`).
pub fn atomic_u64(ctx: &mut Ctx, t: &mut Thread, inst: InstId, d: ags::Instruction) -> R<Val> {
    let p = ctx.p;
    let call = p.ops[inst].as_ref().expect("classified");
    let Kind::Atomic(op) = d.kind else { return internal("AGS atomic without its operation") };
    let malformed = |what: &str| Err(RunError::Indeterminate(format!("malformed AGS AtomicU64: {what}")));
    match d.phase {
        0 => {
            let address = scalar(p, t, call.args[4])?;
            t.ags_u64 =
                Some(U64 { phase0: inst, phase1: None, address, lo: Scalar::exact(0), target: None, cmpxchg: None });
            Ok(Val::S(Scalar { bits: 0, acc: Acc::ANY }))
        }
        1 => {
            let lo = scalar(p, t, call.args[5])?;
            let Some(a) = t.ags_u64.as_mut() else { return malformed("phase 1 without phase 0") };
            a.phase1 = Some(inst);
            a.lo = lo;
            Ok(Val::S(Scalar { bits: 0, acc: Acc::ANY }))
        }
        2 if op == ags::AtomicOp::CmpXchgU64 => {
            let (hi, cmp_lo) = (scalar(p, t, call.args[4])?, scalar(p, t, call.args[5])?);
            let Some(a) = t.ags_u64.as_mut() else { return malformed("phase 2 without phase 0") };
            a.cmpxchg = Some((hi, cmp_lo));
            Ok(Val::S(Scalar { bits: 0, acc: Acc::ANY }))
        }
        _ => {
            let Some(a) = t.ags_u64.take() else { return malformed("the last phase without phase 0") };
            let Some(r) = a.target else { return malformed("the last phase without the store naming the target") };
            // The value's high word, and for the compare-exchange its comparator.
            let (hi, cmp) = match a.cmpxchg {
                None => (scalar(p, t, call.args[4])?, None),
                Some((hi, cmp_lo)) => {
                    let cmp_hi = scalar(p, t, call.args[4])?;
                    let bits = (cmp_lo.bits & 0xffff_ffff) | (cmp_hi.bits & 0xffff_ffff) << 32;
                    (hi, Some(Scalar { bits, acc: cmp_lo.acc.join(cmp_hi.acc) }))
                }
            };
            let acc = a.address.acc.join(a.lo.acc).join(hi.acc).join(cmp.map_or(Acc::EXACT, |c| c.acc));
            if !a.address.acc.is_exact() {
                return Err(RunError::Indeterminate("an AGS 64-bit atomic at an undefined address".into()));
            }
            let v = (a.lo.bits & 0xffff_ffff) | (hi.bits & 0xffff_ffff) << 32;
            let res = &mut ctx.res.list[r];
            let Some(addr) = res.atomic_address([a.address.bits & 0xffff_ffff, 0, 0], 8) else {
                // Out of bounds: nothing written, 0 read (as D3D's own atomics).
                t.set(a.phase0, Val::S(Scalar::exact(0)));
                return Ok(Val::S(Scalar::exact(0)));
            };
            let old = res.mem.read(addr, 8).unwrap_or_else(Scalar::undefined);
            use ags::AtomicOp::*;
            let new = match op {
                MinU64 => old.bits.min(v),
                MaxU64 => old.bits.max(v),
                AndU64 => old.bits & v,
                OrU64 => old.bits | v,
                XorU64 => old.bits ^ v,
                AddU64 => old.bits.wrapping_add(v),
                XchgU64 => v,
                CmpXchgU64 => {
                    let cmp = cmp.map_or(0, |c| c.bits);
                    if old.bits == cmp {
                        v
                    } else {
                        old.bits
                    }
                }
            };
            res.mem.write(addr, 8, Scalar { bits: new, acc: acc.join(old.acc) }, None);
            t.set(a.phase0, Val::S(Scalar { bits: old.bits & 0xffff_ffff, acc: old.acc }));
            Ok(Val::S(Scalar { bits: old.bits >> 32, acc: old.acc }))
        }
    }
}

/// Whether call `inst` is the store that names the open `AtomicU64`'s target (recorded;
/// nothing written): a buffer store of phase 1's result at phase 0's.
pub fn u64_target(ctx: &Ctx, t: &mut Thread, inst: InstId) -> R<bool> {
    let Some(a) = t.ags_u64 else { return Ok(false) };
    let Some(phase1) = a.phase1 else { return Ok(false) };
    let Some(call) = &ctx.p.ops[inst] else { return Ok(false) };
    if !matches!(call.op, DxOp::BufferStore | DxOp::RawBufferStore) || call.args.get(3) != Some(&Value::Inst(phase1)) {
        return Ok(false);
    }
    if call.args.get(1) != Some(&Value::Inst(a.phase0)) {
        return Err(RunError::Indeterminate("AGS AtomicU64's target store is not at phase 0's result".into()));
    }
    let Ok(Val::Handle(h)) = operand(ctx.p, t, call.args[0]) else {
        return Err(RunError::Indeterminate("AGS AtomicU64's target through an undefined handle".into()));
    };
    let Some(r) = ctx.res.find(h) else {
        return Err(RunError::Indeterminate(format!("AGS AtomicU64's target {h:?} is unbound")));
    };
    if !matches!(ctx.res.list[r].kind, super::resources::ResKind::Raw) {
        return internal("AGS AtomicU64 on a buffer other than a raw one is not modelled by the interpreter");
    }
    t.ags_u64.as_mut().expect("checked").target = Some(r);
    Ok(true)
}

/// An AGS byte or short store between its phases (one thread's).
#[derive(Clone, Copy, Debug)]
pub struct SubWord {
    phase0: InstId,
    value: Scalar,
    stored: bool,
}

/// A phase of `BufferStoreByte` / `BufferStoreShort` (`d`).
pub fn sub_word_store(ctx: &Ctx, t: &mut Thread, inst: InstId, d: ags::Instruction) -> R<Val> {
    let call = ctx.p.ops[inst].as_ref().expect("classified");
    if d.phase == 0 {
        let value = scalar(ctx.p, t, call.args[5])?;
        t.ags_store = Some(SubWord { phase0: inst, value, stored: false });
    } else if !t.ags_store.take().is_some_and(|s| s.stored) {
        return Err(RunError::Indeterminate(format!("malformed AGS {}: no store names the target", d.opcode)));
    }
    Ok(Val::S(Scalar { bits: 0, acc: Acc::ANY }))
}

/// Whether call `inst` is the store that names an open byte or short store's target and
/// address (a buffer store of phase 0's result): the value's low bytes written there.
pub fn sub_word_target(ctx: &mut Ctx, t: &mut Thread, inst: InstId) -> R<bool> {
    let Some(s) = t.ags_store.filter(|s| !s.stored) else { return Ok(false) };
    let Some(call) = &ctx.p.ops[inst] else { return Ok(false) };
    if !matches!(call.op, DxOp::BufferStore | DxOp::RawBufferStore) || call.args.get(3) != Some(&Value::Inst(s.phase0))
    {
        return Ok(false);
    }
    let Some(c0) = ctx.p.ops[s.phase0].as_ref() else { return internal("AGS store phase 0 is not a call") };
    let word = exact(ctx.p, t, c0.args[1], "AGS instruction word")? as u32;
    let bytes = if ags::decode(word).map(|d| d.opcode) == Ok(Opcode::BufferStoreByte) { 1 } else { 2 };
    let Ok(Val::Handle(h)) = operand(ctx.p, t, call.args[0]) else {
        return Err(RunError::Indeterminate("AGS byte/short store through an undefined handle".into()));
    };
    let Some(r) = ctx.res.find(h) else {
        return Err(RunError::Indeterminate(format!("AGS byte/short store target {h:?} is unbound")));
    };
    let (index, offset) = (super::dxop::coord(ctx, t, call.args[1])?, super::dxop::coord(ctx, t, call.args[2])?);
    let res = &mut ctx.res.list[r];
    if let Some(addr) = res.atomic_address([index & 0xffff_ffff, offset & 0xffff_ffff, 0], bytes) {
        res.mem.write(addr, bytes, s.value, None);
    }
    t.ags_store = Some(SubWord { stored: true, ..s });
    Ok(true)
}
