//! Wave and quad operations, run once for all lanes of one dynamic instance.
//!
//! The active lanes of an instance are the lanes of the wave that reached the same
//! instruction with the same iteration of every enclosing loop ([`super::exec::Thread::
//! instance_key`]); the scheduler gathers them (see [`super::sched`]). This is D3D's
//! "lanes of a wave in lockstep" wherever the result is defined: uniform control flow, and
//! divergent structured control flow, where the active lanes are those that took the path.
//!
//! Semantics from DXC `docs/DXIL.rst` and the HLSL wave intrinsics (SM 6.0, 6.5):
//! `WaveActiveOp` kinds (0 sum, 1 product, 2 min, 3 max; signed 0 / unsigned 1),
//! `WaveActiveBit` (0 and, 1 or, 2 xor), prefix operations exclusive, `QuadOp` (0 across
//! X = lane ^ 1, 1 across Y = lane ^ 2, 2 diagonal = lane ^ 3), quads are four consecutive
//! lanes before SM 6.6; from SM 6.6 quad operations use the quads of compute derivatives
//! (below) when the group's size is a multiple of 4. Float sums and products depend on the order of reduction: [`Acc::ANY`]; reading
//! an inactive lane is undefined.
//!
//! Compute-shader derivatives (SM 6.6 `DerivFine*`/`DerivCoarse*`) run here too: their quads
//! are made of threads, not lanes (2×2 in X and Y, or four consecutive threads; see
//! `compute_quad`), and the four threads of a quad must reach the instruction together.
//!
//! `QuadVote` (SM 6.7 `QuadAny`/`QuadAll`, DXIL.rst `QuadVoteOpKind` 0 any, 1 all) ORs or
//! ANDs the condition over the active lanes of each lane's quad (the quads `QuadOp` uses);
//! lanes that do not run take no part.

use super::exec::{indeterminate, internal, operand, scalar, Ctx, Thread, R};
use super::float::{self, Fk};
use super::value::{mask, sext, Acc, Scalar, Val};
use untangle::dxil::DxOp;
use untangle::ir::InstId;

/// Operations the scheduler must run for a whole instance at once: every wave and quad
/// operation (`DxOp::is_wave_op`) but the two lane queries, which each thread answers
/// alone, and the derivatives, which read the quad.
pub fn is_synchronising(op: DxOp) -> bool {
    use DxOp::*;
    (op.is_wave_op() && !matches!(op, WaveGetLaneIndex | WaveGetLaneCount))
        || matches!(op, DerivCoarseX | DerivCoarseY | DerivFineX | DerivFineY)
}

/// A compute thread's quad for derivatives (SM 6.6): 2×2 in X and Y when both group
/// dimensions are even, else four consecutive flattened threads when the group's size is
/// a multiple of 4 (the layout the translator declares: `DerivativeGroupQuadsKHR` or
/// `...LinearKHR`). Returns the quad's key and the thread's place in it (bit 0: right
/// column, bit 1: lower row); `None` when the group forms no quads.
fn compute_quad(t: &Thread, nt: [u32; 3]) -> Option<(u64, u32)> {
    let [x, y, z] = t.tid;
    if nt[0].is_multiple_of(2) && nt[1].is_multiple_of(2) {
        let key = (u64::from(z) << 42) | (u64::from(y >> 1) << 21) | u64::from(x >> 1);
        Some((key, (x & 1) | ((y & 1) << 1)))
    } else if (nt[0] * nt[1] * nt[2]).is_multiple_of(4) {
        Some((u64::from(t.flat >> 2), t.flat & 3))
    } else {
        None
    }
}

/// Whether quad operations use the quads of compute derivatives ([`compute_quad`]) rather
/// than four consecutive lanes: from SM 6.6, in a group whose size is a multiple of 4 (as
/// vkd3d-proton's `test_shader_sm66_quad_op_semantics` checks; smaller groups keep lanes).
fn thread_quads(p: &super::Program<'_>) -> bool {
    let sm = p.info.shader_model.as_ref().map_or((0, 0), |sm| (sm.major, sm.minor));
    let [x, y, z] = p.num_threads;
    sm >= (6, 6) && (x * y * z).is_multiple_of(4)
}

fn fk_of(overload: Option<&str>) -> Option<Fk> {
    match overload {
        Some("f16") => Some(Fk::H),
        Some("f32") => Some(Fk::F),
        Some("f64") => Some(Fk::D),
        _ => None,
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

/// A 128-bit lane mask as DXIL's `%dx.types.fouri32`.
fn fouri32(bits: u128, acc: Acc) -> Val {
    Val::agg((0..4).map(|k| Val::S(Scalar { bits: (bits >> (32 * k)) as u64 & 0xffff_ffff, acc })).collect())
}

/// Reduces `vals` with operation `kind` (WaveOpKind) on type `ov`.
fn reduce(vals: &[Scalar], kind: u64, signed: bool, ov: Option<&str>) -> Scalar {
    let acc = vals.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
    if let Some(fk) = fk_of(ov) {
        let xs: Vec<f64> = vals.iter().map(|v| float::to_f64(float::ftz(v.bits, fk), fk)).collect();
        return match kind {
            0 | 1 => {
                // Sum or product in some order: not defined bit for bit.
                let r = if kind == 0 { xs.iter().sum::<f64>() } else { xs.iter().product::<f64>() };
                if vals.is_empty() {
                    Scalar { bits: float::from_f64(if kind == 0 { 0.0 } else { 1.0 }, fk), acc }
                } else {
                    Scalar { bits: float::from_f64(r, fk), acc: Acc::ANY }
                }
            }
            _ => {
                let mut r: Option<Scalar> = None;
                for v in vals {
                    r = Some(match r {
                        None => *v,
                        Some(a) if kind == 2 => float::zero_sign_any(a, *v, float::fmin(a, *v, fk), fk),
                        Some(a) => float::zero_sign_any(a, *v, float::fmax(a, *v, fk), fk),
                    });
                }
                r.unwrap_or_else(|| {
                    let inf = float::from_f64(if kind == 2 { f64::INFINITY } else { f64::NEG_INFINITY }, fk);
                    Scalar { bits: inf, acc }
                })
            }
        };
    }
    let w = width_of(ov);
    let mut r: u64 = match kind {
        0 => 0,
        1 => 1,
        2 => {
            if signed {
                mask((sext(u64::MAX >> (65 - w), 64)) as u64, w)
            } else {
                mask(u64::MAX, w)
            }
        }
        _ => {
            if signed {
                mask(1u64 << (w - 1), w)
            } else {
                0
            }
        }
    };
    for v in vals {
        let x = mask(v.bits, w);
        r = match kind {
            0 => r.wrapping_add(x),
            1 => r.wrapping_mul(x),
            2 if signed => {
                if sext(x, w) < sext(r, w) {
                    x
                } else {
                    r
                }
            }
            2 => r.min(x),
            _ if signed => {
                if sext(x, w) > sext(r, w) {
                    x
                } else {
                    r
                }
            }
            _ => r.max(x),
        };
        r = mask(r, w);
    }
    Scalar { bits: r, acc }
}

fn bit_reduce(vals: &[Scalar], kind: u64, w: u32) -> Scalar {
    let acc = vals.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
    let mut r = if kind == 0 { mask(u64::MAX, w) } else { 0 };
    for v in vals {
        let x = mask(v.bits, w);
        r = match kind {
            0 => r & x,
            1 => r | x,
            _ => r ^ x,
        };
    }
    Scalar { bits: r, acc }
}

/// Runs wave operation `inst` for the instance formed by `lanes` (indices into
/// `threads`, in lane order); each lane gets its result and moves past the instruction.
pub fn execute(ctx: &mut Ctx, threads: &mut [Thread], lanes: &[usize], inst: InstId) -> R<()> {
    let p = ctx.p;
    let Some(call) = &p.ops[inst] else { return internal("wave instance of a non-dx.op") };
    let ov = call.overload.as_deref();
    let a = &call.args;
    let lane_of = |i: usize| threads[i].lane;
    let arg = |i: usize, k: usize| -> R<Scalar> { scalar(p, &threads[i], a[k]) };
    let all = |k: usize| -> R<Vec<Scalar>> { lanes.iter().map(|&i| arg(i, k)).collect() };
    let active_mask: u128 = lanes.iter().fold(0, |m, &i| m | 1u128 << lane_of(i));
    let const_arg = |k: usize| -> R<u64> { super::exec::exact(p, &threads[lanes[0]], a[k], "wave operation kind") };
    let mut results: Vec<Val> = Vec::with_capacity(lanes.len());
    use DxOp::*;
    let ags = super::ags::classify(ctx, &threads[lanes[0]], inst)?;
    match call.op {
        _ if ags.is_some() => {
            let (d, _) = ags.expect("matched");
            results = super::ags::wave(ctx, threads, lanes, inst, d)?;
        }
        WaveIsFirstLane => {
            for (n, _) in lanes.iter().enumerate() {
                results.push(Val::bool(n == 0));
            }
        }
        WaveAnyTrue | WaveAllTrue => {
            let xs = all(0)?;
            let acc = xs.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
            let r = if call.op == WaveAnyTrue {
                xs.iter().any(|v| v.bits & 1 == 1)
            } else {
                xs.iter().all(|v| v.bits & 1 == 1)
            };
            results = vec![Val::S(Scalar { bits: r as u64, acc }); lanes.len()];
        }
        WaveActiveAllEqual => {
            let xs = all(0)?;
            let acc = xs.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
            let w = width_of(ov);
            let eq = match fk_of(ov) {
                // Floating-point equality: +0 == -0, NaN != NaN.
                Some(fk) => xs.iter().all(|v| {
                    let (x, y) =
                        (float::to_f64(float::ftz(v.bits, fk), fk), float::to_f64(float::ftz(xs[0].bits, fk), fk));
                    x == y
                }),
                None => xs.iter().all(|v| mask(v.bits, w) == mask(xs[0].bits, w)),
            };
            results = vec![Val::S(Scalar { bits: eq as u64, acc }); lanes.len()];
        }
        WaveActiveBallot | WaveAllBitCount | WavePrefixBitCount => {
            let xs = all(0)?;
            let acc = xs.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
            let bits: u128 =
                lanes.iter().zip(&xs).filter(|(_, v)| v.bits & 1 == 1).fold(0, |m, (&i, _)| m | 1u128 << lane_of(i));
            for &i in lanes {
                results.push(match call.op {
                    WaveActiveBallot => fouri32(bits, acc),
                    WaveAllBitCount => Val::S(Scalar { bits: bits.count_ones() as u64, acc }),
                    _ => {
                        let below = bits & ((1u128 << lane_of(i)) - 1);
                        Val::S(Scalar { bits: below.count_ones() as u64, acc })
                    }
                });
            }
        }
        QuadReadLaneAt | QuadOp if thread_quads(p) => {
            // SM 6.6+: the quads of compute derivatives (module documentation).
            let nt = p.num_threads;
            let quads: Vec<Option<(u64, u32)>> = lanes.iter().map(|&i| compute_quad(&threads[i], nt)).collect();
            for (n, &i) in lanes.iter().enumerate() {
                let Some((key, pos)) = quads[n] else { return internal("thread quads in a group without them") };
                let want = if call.op == QuadReadLaneAt {
                    let l = arg(i, 1)?;
                    if !l.acc.is_exact() {
                        return indeterminate("a quad lane index D3D leaves undefined");
                    }
                    l.bits as u32 & 3
                } else {
                    let k = super::exec::exact(p, &threads[i], a[1], "quad op")?;
                    pos ^ (k as u32 + 1)
                };
                results.push(match lanes.iter().zip(&quads).find(|(_, q)| **q == Some((key, want))) {
                    Some((&j, _)) => operand(p, &threads[j], a[0])?,
                    // A quad member that is not running (or in another wave): undefined.
                    None => Val::undefined(),
                });
            }
        }
        QuadVote => {
            // SM 6.7 `QuadAny`/`QuadAll` (`QuadVoteOpKind`: 0 any, 1 all): the condition
            // over the active lanes of the lane's quad (the quads `QuadOp` uses). A quad
            // whose threads span two waves (2×2 quads in a wave size that splits them)
            // has members this instance cannot see: open unless the visible lanes decide.
            let any = match const_arg(1)? {
                0 => true,
                1 => false,
                k => return internal(format!("quad vote kind {k}")),
            };
            let quad_of = |i: usize| -> R<(u64, u32)> {
                if thread_quads(p) {
                    compute_quad(&threads[i], p.num_threads)
                        .map(|(key, _)| (key, threads[i].flat / ctx.wave_size))
                        .ok_or_else(|| super::exec::RunError::Internal("thread quads in a group without them".into()))
                } else {
                    Ok((u64::from(lane_of(i) >> 2), 0))
                }
            };
            let split = |key: u64, wave: u32| {
                thread_quads(p)
                    && threads.iter().any(|t| {
                        compute_quad(t, p.num_threads).is_some_and(|(k, _)| k == key) && t.flat / ctx.wave_size != wave
                    })
            };
            let quads: Vec<(u64, u32)> = lanes.iter().map(|&i| quad_of(i)).collect::<R<_>>()?;
            let xs = all(0)?;
            for &(key, wave) in &quads {
                let members: Vec<Scalar> = quads.iter().zip(&xs).filter(|(q, _)| q.0 == key).map(|(_, v)| *v).collect();
                let acc = members.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
                let r =
                    if any { members.iter().any(|v| v.bits & 1 == 1) } else { members.iter().all(|v| v.bits & 1 == 1) };
                // Hidden members change the answer only when the visible ones leave it open.
                let acc = if split(key, wave) && r != any { Acc::ANY } else { acc };
                results.push(Val::S(Scalar { bits: r as u64, acc }));
            }
        }
        WaveReadLaneAt | WaveReadLaneFirst | QuadReadLaneAt | QuadOp => {
            for &i in lanes {
                let src_lane = match call.op {
                    WaveReadLaneFirst => lane_of(lanes[0]),
                    WaveReadLaneAt => {
                        let l = arg(i, 1)?;
                        if !l.acc.is_exact() {
                            return indeterminate("a lane index D3D leaves undefined");
                        }
                        mask(l.bits, 32) as u32
                    }
                    QuadReadLaneAt => {
                        let l = arg(i, 1)?;
                        (lane_of(i) & !3) | (l.bits as u32 & 3)
                    }
                    _ => {
                        let k = super::exec::exact(p, &threads[i], a[1], "quad op")?;
                        lane_of(i) ^ (k as u32 + 1)
                    }
                };
                let src = lanes.iter().find(|&&j| lane_of(j) == src_lane);
                results.push(match src {
                    Some(&j) => operand(p, &threads[j], a[0])?,
                    // Reading an inactive lane: undefined.
                    None => Val::undefined(),
                });
            }
        }
        DerivCoarseX | DerivCoarseY | DerivFineX | DerivFineY => {
            // Fine: the difference across the thread's own row (X) or column (Y) of its
            // quad. Coarse: one difference for the whole quad, from a row or column the
            // implementation picks: defined only where the two agree.
            let Some(fk) = fk_of(ov) else { return internal("a derivative of a non-float") };
            let nt = p.num_threads;
            let mut quads: Vec<Option<(u64, u32)>> = Vec::with_capacity(lanes.len());
            for &i in lanes {
                quads.push(compute_quad(&threads[i], nt));
            }
            let value_at = |key: u64, pos: u32| -> R<Option<Scalar>> {
                match lanes.iter().zip(&quads).find(|(_, q)| **q == Some((key, pos))) {
                    Some((&j, _)) => Ok(Some(arg(j, 0)?)),
                    None => Ok(None),
                }
            };
            let diff = |key: u64, from: u32, to: u32| -> R<Option<Scalar>> {
                Ok(match (value_at(key, from)?, value_at(key, to)?) {
                    (Some(a), Some(b)) => Some(float::arith_fast(b, a, fk, '-', true)),
                    _ => None,
                })
            };
            for (n, _) in lanes.iter().enumerate() {
                let Some((key, pos)) = quads[n] else {
                    return indeterminate("derivatives in a group that forms no quads");
                };
                let r = match call.op {
                    DerivFineX => diff(key, pos & !1, pos | 1)?,
                    DerivFineY => diff(key, pos & !2, pos | 2)?,
                    DerivCoarseX | DerivCoarseY => {
                        let (a, b) = if call.op == DerivCoarseX {
                            (diff(key, 0, 1)?, diff(key, 2, 3)?)
                        } else {
                            (diff(key, 0, 2)?, diff(key, 1, 3)?)
                        };
                        match (a, b) {
                            (Some(a), Some(b)) if a.bits == b.bits && a.acc.is_exact() && b.acc.is_exact() => Some(a),
                            (Some(a), _) | (_, Some(a)) => Some(Scalar { acc: Acc::ANY, ..a }),
                            _ => None,
                        }
                    }
                    _ => unreachable!("matched above"),
                };
                // A neighbour that is not running: undefined.
                results.push(r.map_or_else(Val::undefined, Val::S));
            }
        }
        WaveActiveOp | WavePrefixOp => {
            let xs = all(0)?;
            let (kind, signed) = (const_arg(1)?, const_arg(2)? == 0);
            for n in 0..lanes.len() {
                let over = if call.op == WaveActiveOp { &xs[..] } else { &xs[..n] };
                results.push(Val::S(reduce(over, kind, signed, ov)));
            }
        }
        WaveActiveBit => {
            let xs = all(0)?;
            let r = bit_reduce(&xs, const_arg(1)?, width_of(ov));
            results = vec![Val::S(r); lanes.len()];
        }
        WaveMatch => {
            let xs = all(0)?;
            let w = width_of(ov);
            for (n, _) in lanes.iter().enumerate() {
                let mut bits = 0u128;
                let mut acc = xs[n].acc;
                for (m, &j) in lanes.iter().enumerate() {
                    acc = acc.join(xs[m].acc);
                    let same = match fk_of(ov) {
                        Some(_) => xs[m].bits == xs[n].bits,
                        None => mask(xs[m].bits, w) == mask(xs[n].bits, w),
                    };
                    if same {
                        bits |= 1u128 << lane_of(j);
                    }
                }
                results.push(fouri32(bits, acc));
            }
        }
        WaveMultiPrefixOp | WaveMultiPrefixBitCount => {
            // (value, mask0..3[, op, sop]): exclusive prefix over lower active lanes in the
            // lane's partition mask.
            let xs = all(0)?;
            // Each lane's partition mask; HLSL requires the masks to form a partition of
            // the active lanes (a lane's mask holds it, and every lane in it has the same
            // mask): otherwise the result is undefined.
            let mut parts: Vec<Option<u128>> = Vec::with_capacity(lanes.len());
            for &i in lanes {
                let mut part: u128 = 0;
                let mut exact = true;
                for k in 0..4 {
                    let m = arg(i, 1 + k)?;
                    exact &= m.acc.is_exact();
                    part |= (mask(m.bits, 32) as u128) << (32 * k);
                }
                parts.push(exact.then_some(part & active_mask));
            }
            let consistent = |n: usize| -> bool {
                let Some(pm) = parts[n] else { return false };
                pm & (1u128 << lane_of(lanes[n])) != 0
                    && lanes.iter().zip(&parts).all(|(&j, q)| pm & (1u128 << lane_of(j)) == 0 || *q == Some(pm))
            };
            for (n, &i) in lanes.iter().enumerate() {
                if !consistent(n) {
                    results.push(Val::undefined());
                    continue;
                }
                let mut part: u128 = 0;
                let mut macc = Acc::EXACT;
                for k in 0..4 {
                    let m = arg(i, 1 + k)?;
                    macc = macc.join(m.acc);
                    part |= (mask(m.bits, 32) as u128) << (32 * k);
                }
                if !macc.is_exact() {
                    return indeterminate("a partition mask D3D leaves undefined");
                }
                let below = part & active_mask & ((1u128 << lane_of(i)) - 1);
                let sel: Vec<Scalar> = lanes
                    .iter()
                    .zip(&xs)
                    .filter(|(&j, _)| below & (1u128 << lane_of(j)) != 0)
                    .map(|(_, v)| *v)
                    .collect();
                let _ = n;
                results.push(if call.op == WaveMultiPrefixBitCount {
                    let acc = sel.iter().fold(Acc::EXACT, |a, v| a.join(v.acc));
                    Val::S(Scalar { bits: sel.iter().filter(|v| v.bits & 1 == 1).count() as u64, acc })
                } else {
                    let (kind, signed) = (const_arg(5)?, const_arg(6)? == 0);
                    // WaveMultiPrefixOpKind: 0 sum, 1 and, 2 or, 3 xor, 4 product.
                    let kind = match kind {
                        1..=3 => {
                            results.push(Val::S(bit_reduce(&sel, kind - 1, width_of(ov))));
                            continue;
                        }
                        0 => 0,
                        _ => 1,
                    };
                    Val::S(reduce(&sel, kind, signed, ov))
                });
            }
        }
        other => return internal(format!("{} is not a wave operation", other.name())),
    }
    for (&i, v) in lanes.iter().zip(results) {
        let th = &mut threads[i];
        th.set(inst, v);
        th.pos += 1;
        th.status = super::exec::Status::Run;
    }
    let _ = ctx;
    Ok(())
}
