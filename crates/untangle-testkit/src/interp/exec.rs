//! One thread's execution of LLVM instructions (DXIL is LLVM 3.7 IR): values, memory,
//! control flow. `dx.op` calls go to [`super::dxop`]; wave operations and barriers stop the
//! thread for the scheduler ([`super::sched`]), which runs them for a whole wave or group.
//!
//! Integer semantics: two's complement wrapping; `udiv`/`urem` by zero give all ones (the
//! D3D `UDiv` rule, DXIL.rst); `sdiv`/`srem` by zero, `INT_MIN / -1` and shifts by the
//! width or more are undefined in DXIL and give [`Acc::ANY`]. Float semantics are in
//! [`super::float`]; `fptosi`/`fptoui` of NaN or out-of-range values are undefined.
//!
//! A branch, switch, address, resource index or lane index computed from a value D3D does
//! not define makes the whole run indeterminate ([`RunError::Indeterminate`]): after that
//! no output can be checked, and the differential harness skips the input.

use super::float::{self, Fk};
use super::memory::Mem;
use super::program::{Program, Scal};
use super::resources::Resources;
use super::value::{mask, sext, Acc, Ptr, Scalar, Space, Val};
use cranelift_entity::EntityRef;
use std::collections::HashMap;
use untangle::cfg::loops::LoopId;
use untangle::dxil::DxOp;
use untangle::ir::{
    BinaryOp, BlockId, CastOp, FloatPredicate, InstId, InstKind, IntPredicate, Terminator, TypeId, Value,
};

/// Why a run stopped without a result to compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// D3D leaves the rest of the run undefined (a branch on an undefined value, an
    /// out-of-bounds pointer, an unbound resource ...).
    Indeterminate(String),
    /// The step limit was reached (a hang, or a loop longer than the budget).
    Limit(String),
    /// Something the interpreter cannot do after all (a bug or a gap).
    Internal(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Indeterminate(s) => write!(f, "indeterminate: {s}"),
            RunError::Limit(s) => write!(f, "step limit: {s}"),
            RunError::Internal(s) => write!(f, "interpreter: {s}"),
        }
    }
}

pub type R<T> = Result<T, RunError>;

pub fn indeterminate<T>(s: impl Into<String>) -> R<T> {
    Err(RunError::Indeterminate(s.into()))
}

pub fn internal<T>(s: impl Into<String>) -> R<T> {
    Err(RunError::Internal(s.into()))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Run,
    /// Stopped before a wave operation, waiting for the other lanes of its instance.
    Wave(InstId),
    /// Stopped before a group-synchronising barrier.
    Barrier(InstId),
    Done,
}

pub struct Thread {
    pub vals: Vec<Option<Val>>,
    pub block: BlockId,
    pub pos: usize,
    pub prev: Option<BlockId>,
    pub locals: HashMap<u32, Mem>,
    pub status: Status,
    /// Enclosing loops entered and their iteration (0 on entry): with the instruction, the
    /// key of a wave operation's dynamic instance.
    pub loops: Vec<(LoopId, u32)>,
    pub tid: [u32; 3],
    pub gtid: [u32; 3],
    pub gid: [u32; 3],
    pub flat: u32,
    pub lane: u32,
    pub steps: u64,
    /// The thread's `RayQuery` objects, by the handle `AllocateRayQuery` returned.
    pub ray_queries: Vec<super::ray_query::RayQuery>,
    /// An AMD AGS 64-bit atomic between its phases ([`super::ags`]).
    pub ags_u64: Option<super::ags::U64>,
    /// An AMD AGS byte or short store between its phases ([`super::ags`]).
    pub ags_store: Option<super::ags::SubWord>,
}

/// What the running threads share: the program, resources, group memory, wave size.
pub struct Ctx<'a, 'm> {
    pub p: &'a Program<'m>,
    pub res: &'a mut Resources,
    /// One memory per module global (groupshared fresh per group; constants copied).
    pub globals: &'a mut Vec<Mem>,
    pub wave_size: u32,
    pub groups: [u32; 3],
    pub step_limit: u64,
    /// How narrowing float conversions round in this run ([`float::Narrowing`]).
    pub narrowing: float::Narrowing,
    /// Set when a narrowing conversion met a value its two modes round differently.
    pub narrowing_differs: bool,
    /// The run's schedule (also the order ray query candidates come in).
    pub schedule: super::sched::Schedule,
}

impl Ctx<'_, '_> {
    /// A float conversion under this run's [`float::Narrowing`], noting whether the
    /// other mode would have given another result.
    pub fn convert(&mut self, a: Scalar, from: Fk, to: Fk) -> Scalar {
        let (r, differs) = float::convert(a, from, to, self.narrowing);
        self.narrowing_differs |= differs;
        r
    }
}

impl Thread {
    pub fn new(p: &Program, tid: [u32; 3], gid: [u32; 3], wave_size: u32) -> Thread {
        let nt = p.num_threads;
        let flat = tid[0] + nt[0] * (tid[1] + nt[1] * tid[2]);
        let entry = p.func.layout[0];
        let mut t = Thread {
            vals: vec![None; p.func.insts.len()],
            block: entry,
            pos: 0,
            prev: None,
            locals: HashMap::new(),
            status: Status::Run,
            loops: Vec::new(),
            tid,
            gtid: [gid[0] * nt[0] + tid[0], gid[1] * nt[1] + tid[1], gid[2] * nt[2] + tid[2]],
            gid,
            flat,
            lane: flat % wave_size,
            steps: 0,
            ray_queries: Vec::new(),
            ags_u64: None,
            ags_store: None,
        };
        t.track_loops(p, entry);
        t
    }

    fn track_loops(&mut self, p: &Program, b: BlockId) {
        while let Some(&(l, _)) = self.loops.last() {
            if p.loop_contains(l, b) {
                break;
            }
            self.loops.pop();
        }
        if let Some(l) = p.loop_of_header(b) {
            match self.loops.last_mut() {
                Some((top, it)) if *top == l => *it += 1,
                _ => self.loops.push((l, 0)),
            }
        }
    }

    /// The dynamic-instance key of the instruction the thread stands at.
    pub fn instance_key(&self, inst: InstId) -> (Vec<u32>, u32) {
        (self.loops.iter().map(|&(l, it)| (l.index() as u32) << 20 | it).collect(), inst.index() as u32)
    }

    pub fn set(&mut self, inst: InstId, v: Val) {
        self.vals[inst.index()] = Some(v);
    }
}

/// Operand access.
pub fn operand(p: &Program, t: &Thread, v: Value) -> R<Val> {
    match v {
        Value::Inst(i) => match &t.vals[i.index()] {
            Some(x) => Ok(x.clone()),
            None => internal(format!("use of {i:?} before its definition")),
        },
        Value::Const(c) => match p.consts.get(&c) {
            Some(x) => Ok(x.clone()),
            None => p.eval_const(c).map_err(RunError::Internal),
        },
        Value::Global(g) => Ok(Val::Ptr(Ptr { space: Space::Global(g.index() as u32), offset: 0 })),
        Value::Metadata => Ok(Val::undefined()),
        Value::Arg(_) | Value::Func(_) => internal("function argument or address as a value"),
    }
}

pub fn scalar(p: &Program, t: &Thread, v: Value) -> R<Scalar> {
    match operand(p, t, v)? {
        Val::S(s) => Ok(s),
        other => internal(format!("expected a scalar, got {other:?}")),
    }
}

/// An operand that decides control flow or an address: it must be exact.
pub fn exact(p: &Program, t: &Thread, v: Value, what: &str) -> R<u64> {
    let s = scalar(p, t, v)?;
    if !s.acc.is_exact() {
        return indeterminate(format!("{what} computed from a value D3D leaves undefined"));
    }
    Ok(s.bits)
}

pub fn value_type(p: &Program, v: Value) -> Option<TypeId> {
    match v {
        Value::Inst(i) => Some(p.func.insts[i].ty),
        Value::Const(c) => Some(p.module.constants.get(c).ty),
        _ => None,
    }
}

fn int_width(p: &Program, ty: TypeId) -> R<u32> {
    match p.scal(ty) {
        Some(Scal::Int(w)) => Ok(w),
        _ => internal(format!("expected an integer type, got {}", p.module.types.display(ty))),
    }
}

fn float_kind(p: &Program, ty: TypeId) -> R<Fk> {
    match p.scal(ty) {
        Some(Scal::Float(k)) => Ok(k),
        _ => internal(format!("expected a float type, got {}", p.module.types.display(ty))),
    }
}

/// Integer binary operation of width `w` (see the module docs for undefined cases).
pub fn int_binary(op: BinaryOp, a: Scalar, b: Scalar, w: u32) -> Scalar {
    let (x, y) = (mask(a.bits, w), mask(b.bits, w));
    let acc = a.acc.join(b.acc);
    let ones = mask(u64::MAX, w);
    let (sx, sy) = (sext(x, w), sext(y, w));
    let undefined = Scalar { bits: 0, acc: Acc::ANY };
    let bits = match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::UDiv => x.checked_div(y).unwrap_or(ones),
        BinaryOp::URem => {
            if y == 0 {
                ones
            } else {
                x % y
            }
        }
        BinaryOp::SDiv | BinaryOp::SRem => {
            let min = sext(1u64 << (w - 1), w);
            if y == 0 || (sx == min && sy == -1) {
                return undefined;
            }
            if op == BinaryOp::SDiv {
                (sx / sy) as u64
            } else {
                (sx % sy) as u64
            }
        }
        BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr if y >= w as u64 => return undefined,
        BinaryOp::Shl => x << y,
        BinaryOp::LShr => x >> y,
        BinaryOp::AShr => (sx >> y) as u64,
        BinaryOp::And => x & y,
        BinaryOp::Or => x | y,
        BinaryOp::Xor => x ^ y,
        _ => return undefined,
    };
    // `and`/`or` with a known absorbing operand are exact even if the other one is not.
    let acc = match op {
        BinaryOp::And if (a.acc.is_exact() && x == 0) || (b.acc.is_exact() && y == 0) => Acc::EXACT,
        BinaryOp::Or if (a.acc.is_exact() && x == ones) || (b.acc.is_exact() && y == ones) => Acc::EXACT,
        _ => acc,
    };
    Scalar { bits: mask(bits, w), acc }
}

/// D3D's bound for division (2.5 ULP for float; correctly rounded for double per the
/// double-precision extensions), as a comparison tolerance against the correctly rounded
/// result computed here: 3 ULP for half and float, 1 for double.
pub fn fdiv_acc(fk: Fk) -> Acc {
    match fk {
        Fk::D => Acc::ulp(1),
        _ => Acc::ulp(3),
    }
}

/// A float `fadd`/`fsub`/`fmul`/`fdiv`; `fast`: the operation carries fast-math flags
/// (see [`float::arith_fast`]).
pub fn float_binary(op: BinaryOp, a: Scalar, b: Scalar, fk: Fk, fast: bool) -> Scalar {
    match op {
        BinaryOp::FAdd => float::arith_fast(a, b, fk, '+', fast),
        BinaryOp::FSub => float::arith_fast(a, b, fk, '-', fast),
        // f32 × f32 is exact in f64, so one rounding; doubles multiply natively.
        BinaryOp::FMul => float::arith_fast(a, b, fk, '*', fast),
        BinaryOp::FDiv if fast && (a.acc.is_rounded() || b.acc.is_rounded()) => Scalar { bits: 0, acc: Acc::ANY },
        BinaryOp::FDiv => {
            let r = float::arith2(a, b, fk, |x, y| x / y);
            with_tolerance(r, fdiv_acc(fk), fk)
        }
        _ => Scalar { bits: 0, acc: Acc::ANY },
    }
}

/// An exact result widened to a ULP tolerance (NaN and infinity results stay exact: a
/// conforming implementation must produce them too).
pub fn with_tolerance(r: Scalar, acc: Acc, fk: Fk) -> Scalar {
    if !r.acc.is_exact() {
        return r;
    }
    let inf_or_nan = {
        let b = r.bits;
        match fk {
            Fk::H => (b >> 10) & 0x1f == 0x1f,
            Fk::F => (b >> 23) & 0xff == 0xff,
            Fk::D => (b >> 52) & 0x7ff == 0x7ff,
        }
    };
    if inf_or_nan {
        // Near the overflow threshold a result within tolerance may be infinite: undefined.
        return Scalar { acc: Acc::ANY, ..r };
    }
    Scalar { acc, ..r }
}

pub fn icmp(pred: IntPredicate, a: Scalar, b: Scalar, w: u32) -> Scalar {
    let (x, y) = (mask(a.bits, w), mask(b.bits, w));
    let (sx, sy) = (sext(x, w), sext(y, w));
    let r = match pred {
        IntPredicate::Eq => x == y,
        IntPredicate::Ne => x != y,
        IntPredicate::Ugt => x > y,
        IntPredicate::Uge => x >= y,
        IntPredicate::Ult => x < y,
        IntPredicate::Ule => x <= y,
        IntPredicate::Sgt => sx > sy,
        IntPredicate::Sge => sx >= sy,
        IntPredicate::Slt => sx < sy,
        IntPredicate::Sle => sx <= sy,
    };
    Scalar { bits: r as u64, acc: a.acc.join(b.acc) }
}

pub fn fcmp(pred: FloatPredicate, a: Scalar, b: Scalar, fk: Fk) -> Scalar {
    use FloatPredicate as P;
    let acc = a.acc.join(b.acc);
    let f = |x: f64, y: f64| -> bool {
        let uno = x.is_nan() || y.is_nan();
        match pred {
            P::False => false,
            P::True => true,
            P::Oeq => !uno && x == y,
            P::Ogt => !uno && x > y,
            P::Oge => !uno && x >= y,
            P::Olt => !uno && x < y,
            P::Ole => !uno && x <= y,
            P::One => !uno && x != y,
            P::Ord => !uno,
            P::Uno => uno,
            P::Ueq => uno || x == y,
            P::Ugt => uno || x > y,
            P::Uge => uno || x >= y,
            P::Ult => uno || x < y,
            P::Ule => uno || x <= y,
            P::Une => uno || x != y,
        }
    };
    match float::compare(a.bits, b.bits, fk, f) {
        Some(r) => Scalar { bits: r as u64, acc },
        None => Scalar { bits: 0, acc: Acc::ANY },
    }
}

pub fn cast(ctx: &mut Ctx, op: CastOp, a: Scalar, from: Option<Scal>, to: Option<Scal>) -> R<Scalar> {
    let und = Scalar { bits: 0, acc: Acc::ANY };
    Ok(match (op, from, to) {
        (CastOp::Trunc, Some(Scal::Int(_)), Some(Scal::Int(w))) => Scalar { bits: mask(a.bits, w), ..a },
        (CastOp::ZExt, Some(Scal::Int(fw)), Some(Scal::Int(_))) => Scalar { bits: mask(a.bits, fw), ..a },
        (CastOp::SExt, Some(Scal::Int(fw)), Some(Scal::Int(w))) => {
            Scalar { bits: mask(sext(a.bits, fw) as u64, w), ..a }
        }
        (CastOp::FPToSI | CastOp::FPToUI, Some(Scal::Float(fk)), Some(Scal::Int(w))) => {
            let conv = |bits: u64| -> Option<u64> {
                let x = float::to_f64(bits, fk).trunc();
                if x.is_nan() {
                    return None;
                }
                if op == CastOp::FPToSI {
                    let lo = -(2f64.powi(w as i32 - 1));
                    (x >= lo && x < -lo).then(|| mask(x as i64 as u64, w))
                } else {
                    (x >= 0.0 && x < 2f64.powi(w as i32)).then(|| mask(x as u64, w))
                }
            };
            let keep = conv(a.bits);
            let flush = conv(float::ftz(a.bits, fk));
            match (keep, flush) {
                (Some(k), Some(f)) if k == f => Scalar { bits: k, acc: a.acc },
                _ => und,
            }
        }
        (CastOp::SIToFP | CastOp::UIToFP, Some(Scal::Int(fw)), Some(Scal::Float(fk))) => {
            let bits = if op == CastOp::SIToFP {
                let v = sext(a.bits, fw);
                match fk {
                    Fk::F => (v as f32).to_bits() as u64,
                    Fk::D => (v as f64).to_bits(),
                    Fk::H => half::f16::from_f32(v as f32).to_bits() as u64,
                }
            } else {
                let v = mask(a.bits, fw);
                match fk {
                    Fk::F => (v as f32).to_bits() as u64,
                    Fk::D => (v as f64).to_bits(),
                    Fk::H => half::f16::from_f32(v as f32).to_bits() as u64,
                }
            };
            // Integer to half goes through float: double rounding is possible above 2^11,
            // where a half result is already inexact by D3D's 16-bit rules.
            let acc = if fk == Fk::H && mask(a.bits, fw) > 2048 { Acc::ANY } else { a.acc };
            // A conversion that rounds feeds fast-math consumers as any rounding does.
            let exact_int = if op == CastOp::SIToFP { sext(a.bits, fw) as f64 } else { mask(a.bits, fw) as f64 };
            let acc = if float::to_f64(bits, fk) != exact_int { acc.join(Acc::ROUNDED) } else { acc };
            Scalar { bits, acc }
        }
        (CastOp::FPTrunc | CastOp::FPExt, Some(Scal::Float(f)), Some(Scal::Float(t))) => ctx.convert(a, f, t),
        // The bits of a float D3D leaves partly open: the sign of a zero (fast-math
        // `nsz`, and Vulkan by default), a NaN's payload, a value within a ULP bound.
        (CastOp::BitCast, Some(Scal::Float(fk)), Some(Scal::Int(_))) => float_bits_as_int(a, fk),
        (CastOp::BitCast, _, _) => a,
        _ => return internal(format!("cast {op:?} from {from:?} to {to:?}")),
    })
}

/// A float's bits read as an integer (`bitcast`, `asuint`): undefined where D3D does not
/// define the bits (see [`cast`]).
pub fn float_bits_as_int(a: Scalar, fk: Fk) -> Scalar {
    let zero = float::ftz(a.bits, fk) & !(1u64 << (fk.bits() - 1)) == 0;
    if a.acc.is_exact() && !zero && !float::is_nan(a.bits, fk) {
        a
    } else {
        Scalar { acc: Acc::ANY, ..a }
    }
}

/// Memory behind a pointer of this thread.
fn mem_of<'x>(ctx: &'x mut Ctx, t: &'x mut Thread, p: Ptr) -> R<&'x mut Mem> {
    match p.space {
        Space::Global(g) => ctx.globals.get_mut(g as usize).ok_or(RunError::Internal("no such global".into())),
        Space::Local(i) => t.locals.get_mut(&i).ok_or(RunError::Internal("no such alloca".into())),
    }
}

fn pointer(p: &Program, t: &Thread, v: Value) -> R<Ptr> {
    match operand(p, t, v)? {
        Val::Ptr(x) => Ok(x),
        Val::S(s) if s.acc.is_any() => indeterminate("an undefined pointer"),
        other => internal(format!("expected a pointer, got {other:?}")),
    }
}

/// Runs the thread's next instruction or terminator. Wave operations and barriers set the
/// status and return without running.
pub fn step(ctx: &mut Ctx, t: &mut Thread) -> R<()> {
    let p = ctx.p;
    t.steps += 1;
    if t.steps > ctx.step_limit {
        return Err(RunError::Limit(format!("thread {:?} of group {:?} ran {} steps", t.tid, t.gid, t.steps)));
    }
    let block = &p.func.blocks[t.block];
    if t.pos >= block.insts.len() {
        return terminator(ctx, t);
    }
    let inst = block.insts[t.pos];
    let data = &p.func.insts[inst];
    if let Some(call) = &p.ops[inst] {
        let op = call.op;
        if op == DxOp::Barrier {
            let flags = exact(p, t, call.args[0], "barrier flags")?;
            // Bit 0: SyncThreadGroup. A fence alone changes nothing in this execution
            // model (every access is immediately visible).
            if flags & 1 != 0 {
                t.status = Status::Barrier(inst);
                return Ok(());
            }
            t.pos += 1;
            return Ok(());
        }
        if let Some((d, class)) = super::ags::classify(ctx, t, inst)? {
            if class == super::ags::Class::Wave {
                t.status = Status::Wave(inst);
                return Ok(());
            }
            use untangle::dxil::ags::Opcode;
            let v = match d.opcode {
                Opcode::AtomicU64 => super::ags::atomic_u64(ctx, t, inst, d)?,
                Opcode::BufferStoreByte | Opcode::BufferStoreShort => super::ags::sub_word_store(ctx, t, inst, d)?,
                _ => super::ags::thread_local(ctx, t, inst, d)?,
            };
            t.set(inst, v);
            t.pos += 1;
            return Ok(());
        }
        if super::ags::u64_target(ctx, t, inst)? || super::ags::sub_word_target(ctx, t, inst)? {
            t.pos += 1;
            return Ok(());
        }
        if super::wave::is_synchronising(op) {
            t.status = Status::Wave(inst);
            return Ok(());
        }
        if let Some(v) = super::dxop::call(ctx, t, inst, call)? {
            t.set(inst, v);
        }
        t.pos += 1;
        return Ok(());
    }
    let v = eval(ctx, t, inst, &data.kind, data.ty)?;
    if let Some(v) = v {
        t.set(inst, v);
    }
    t.pos += 1;
    Ok(())
}

fn eval(ctx: &mut Ctx, t: &mut Thread, inst: InstId, kind: &InstKind, ty: TypeId) -> R<Option<Val>> {
    let p = ctx.p;
    Ok(Some(match kind {
        InstKind::Phi { .. } => return internal("PHI after the block's head"),
        // Native vectors (DXIL 1.9: any length) compute lane by lane.
        InstKind::Binary { op, lhs, rhs, fast } => {
            let (a, b) = (operand(p, t, *lhs)?, operand(p, t, *rhs)?);
            match p.scal(p.lane_type(ty)) {
                Some(Scal::Int(w)) => lanes2(&a, &b, &mut |a, b| Ok(int_binary(*op, a, b, w)))?,
                Some(Scal::Float(fk)) => lanes2(&a, &b, &mut |a, b| Ok(float_binary(*op, a, b, fk, *fast)))?,
                None => return internal(format!("binary operation of type {}", p.module.types.display(ty))),
            }
        }
        InstKind::FNeg { value } => {
            let fk = float_kind(p, p.lane_type(ty))?;
            let sign = 1u64 << (fk.bits() - 1);
            // Negation is arithmetic to D3D: a denormal operand or result may be flushed
            // (the H200 flushes `-denormal` to -0).
            lanes1(&operand(p, t, *value)?, &mut |a| Ok(float::both_modes(&[a], fk, |x| x[0] ^ sign)))?
        }
        InstKind::Cast { op, value } => {
            let from = value_type(p, *value).and_then(|f| p.scal(p.lane_type(f)));
            let to = p.scal(p.lane_type(ty));
            match operand(p, t, *value)? {
                v @ Val::Ptr(_) if matches!(op, CastOp::BitCast | CastOp::AddrSpaceCast) => v,
                v @ (Val::S(_) | Val::Agg(_)) => lanes1(&v, &mut |a| cast(ctx, *op, a, from, to))?,
                other => return internal(format!("cast of {other:?}")),
            }
        }
        InstKind::ICmp { pred, lhs, rhs } => {
            let lt = value_type(p, *lhs).ok_or(RunError::Internal("icmp type".into()))?;
            let w = int_width(p, p.lane_type(lt))?;
            let (a, b) = (operand(p, t, *lhs)?, operand(p, t, *rhs)?);
            lanes2(&a, &b, &mut |a, b| Ok(icmp(*pred, a, b, w)))?
        }
        InstKind::FCmp { pred, lhs, rhs } => {
            let lt = value_type(p, *lhs).ok_or(RunError::Internal("fcmp type".into()))?;
            let fk = float_kind(p, p.lane_type(lt))?;
            let (a, b) = (operand(p, t, *lhs)?, operand(p, t, *rhs)?);
            lanes2(&a, &b, &mut |a, b| Ok(fcmp(*pred, a, b, fk)))?
        }
        InstKind::Select { cond, if_true, if_false } => {
            let (x, y) = (operand(p, t, *if_true)?, operand(p, t, *if_false)?);
            let chosen = match operand(p, t, *cond)? {
                Val::S(c) => select(c, x, y, || p.undef_of(ty)),
                // A vector condition selects lane by lane.
                Val::Agg(cs) => {
                    let (Val::Agg(xs), Val::Agg(ys)) = (&x, &y) else {
                        return internal("select with a vector condition of non-vectors");
                    };
                    if xs.len() != cs.len() || ys.len() != cs.len() {
                        return internal("select between vectors of different lengths");
                    }
                    let mut out = Vec::with_capacity(cs.len());
                    for ((c, a), b) in cs.iter().zip(xs.iter()).zip(ys.iter()) {
                        let c = c.scalar().ok_or(RunError::Internal("select lane condition".into()))?;
                        out.push(select(c, a.clone(), b.clone(), Val::undefined));
                    }
                    Val::agg(out)
                }
                other => return internal(format!("select on {other:?}")),
            };
            // A float select is a data move to D3D, but a compare-and-select of the same
            // values is a min/max to drivers, which may flush a denormal (the H200 does):
            // a denormal result may be flushed.
            match p.scal(p.lane_type(ty)) {
                Some(Scal::Float(fk)) => lanes1(&chosen, &mut |v| Ok(float::both_modes(&[v], fk, |x| x[0])))?,
                _ => chosen,
            }
        }
        InstKind::ExtractValue { aggregate, indices } => {
            let mut v = operand(p, t, *aggregate)?;
            for &i in indices {
                v = match v {
                    Val::Agg(es) => es.get(i as usize).cloned().ok_or(RunError::Internal("extractvalue".into()))?,
                    _ => return internal("extractvalue of a non-aggregate"),
                };
            }
            v
        }
        InstKind::InsertValue { aggregate, element, indices } => {
            let agg = operand(p, t, *aggregate)?;
            let el = operand(p, t, *element)?;
            insert_at(agg, &indices[..], el)?
        }
        InstKind::ExtractElement { vector, index } => {
            let i = exact(p, t, *index, "vector index")?;
            match operand(p, t, *vector)? {
                Val::Agg(es) => es.get(i as usize).cloned().unwrap_or_else(Val::undefined),
                _ => return internal("extractelement of a non-vector"),
            }
        }
        InstKind::InsertElement { vector, element, index } => {
            let i = exact(p, t, *index, "vector index")?;
            let v = operand(p, t, *vector)?;
            let el = operand(p, t, *element)?;
            insert_at(v, &[i as u32], el)?
        }
        InstKind::ShuffleVector { lhs, rhs, mask } => {
            let (Val::Agg(a), Val::Agg(b)) = (operand(p, t, *lhs)?, operand(p, t, *rhs)?) else {
                return internal("shufflevector of non-vectors");
            };
            let all: Vec<Val> = a.iter().chain(b.iter()).cloned().collect();
            Val::agg(
                mask.iter()
                    .map(|&m| {
                        if m < 0 {
                            Val::undefined()
                        } else {
                            all.get(m as usize).cloned().unwrap_or_else(Val::undefined)
                        }
                    })
                    .collect(),
            )
        }
        InstKind::Alloca { allocated, count, .. } => {
            let n = exact(p, t, *count, "alloca count")?;
            let size = p.size_of(*allocated) as usize * n as usize;
            t.locals.insert(inst.index() as u32, Mem::undefined(size));
            Val::Ptr(Ptr { space: Space::Local(inst.index() as u32), offset: 0 })
        }
        InstKind::GetElementPtr { source, base, indices, .. } => {
            let b = pointer(p, t, *base)?;
            let idx: Vec<i64> = indices
                .iter()
                .map(|&i| {
                    let w = value_type(p, i).and_then(|ty| p.scal(ty));
                    let bits = exact(p, t, i, "array index")?;
                    Ok(match w {
                        Some(Scal::Int(w)) => sext(bits, w),
                        _ => bits as i64,
                    })
                })
                .collect::<R<_>>()?;
            let off = p.gep_offset(*source, &idx).map_err(RunError::Internal)?;
            Val::Ptr(Ptr { space: b.space, offset: b.offset + off })
        }
        InstKind::Load { ptr, .. } => {
            let at = pointer(p, t, *ptr)?;
            let m = mem_of(ctx, t, at)?;
            match p.load_val(m, at.offset, ty) {
                Ok(v) => v,
                Err(e) => return indeterminate(e),
            }
        }
        InstKind::Store { ptr, value, .. } => {
            let at = pointer(p, t, *ptr)?;
            let v = operand(p, t, *value)?;
            let vt = value_type(p, *value).ok_or(RunError::Internal("store type".into()))?;
            let m = mem_of(ctx, t, at)?;
            if let Err(e) = p.store_val(m, at.offset, vt, &v) {
                return indeterminate(e);
            }
            return Ok(None);
        }
        InstKind::AtomicRmw { op, ptr, value, .. } => {
            let at = pointer(p, t, *ptr)?;
            let v = scalar(p, t, *value)?;
            let w = int_width(p, ty)?;
            let size = (w / 8) as usize;
            let m = mem_of(ctx, t, at)?;
            let Some(old) = m.read(at.offset, size) else { return indeterminate("atomic out of bounds") };
            let new = super::dxop::atomic_rmw(*op, old, v, w)?;
            m.write(at.offset, size, new, None);
            Val::S(old)
        }
        InstKind::CmpXchg { ptr, expected, replacement, .. } => {
            let at = pointer(p, t, *ptr)?;
            let (e, r) = (scalar(p, t, *expected)?, scalar(p, t, *replacement)?);
            let w = int_width(p, value_type(p, *expected).ok_or(RunError::Internal("cmpxchg type".into()))?)?;
            let size = (w / 8) as usize;
            let m = mem_of(ctx, t, at)?;
            let Some(old) = m.read(at.offset, size) else { return indeterminate("cmpxchg out of bounds") };
            let hit = mask(old.bits, w) == mask(e.bits, w);
            let acc = old.acc.join(e.acc);
            if !acc.is_exact() {
                m.write(at.offset, size, Scalar { bits: old.bits, acc: Acc::ANY }, None);
            } else if hit {
                m.write(at.offset, size, r, None);
            }
            Val::agg(vec![Val::S(old), Val::S(Scalar { bits: hit as u64, acc })])
        }
        InstKind::Fence { .. } => return Ok(None),
        InstKind::Freeze { value } => operand(p, t, *value)?,
        InstKind::Call { callee: Value::Func(f), .. } => {
            let name = &p.module.functions[*f].name;
            if name.starts_with("llvm.") {
                return Ok(None);
            }
            return internal(format!("call to `{name}`"));
        }
        other => return internal(format!("instruction {other:?}")),
    }))
}

/// `x` if `c` is true, `y` if false; where `c` is undefined, the common value of both or
/// `undefined()`.
fn select(c: Scalar, x: Val, y: Val, undefined: impl FnOnce() -> Val) -> Val {
    if c.acc.is_exact() {
        if c.bits & 1 == 1 {
            x
        } else {
            y
        }
    } else if x == y {
        x
    } else {
        undefined()
    }
}

/// `f` of a scalar, or of each lane of a native vector.
pub fn lanes1(a: &Val, f: &mut dyn FnMut(Scalar) -> R<Scalar>) -> R<Val> {
    match a {
        Val::S(x) => Ok(Val::S(f(*x)?)),
        Val::Agg(xs) => Ok(Val::agg(xs.iter().map(|x| lanes1(x, f)).collect::<R<_>>()?)),
        other => internal(format!("a lane-wise operation of {other:?}")),
    }
}

/// `f` of two scalars, or of each pair of lanes of two native vectors of one length.
pub fn lanes2(a: &Val, b: &Val, f: &mut dyn FnMut(Scalar, Scalar) -> R<Scalar>) -> R<Val> {
    match (a, b) {
        (Val::S(x), Val::S(y)) => Ok(Val::S(f(*x, *y)?)),
        (Val::Agg(xs), Val::Agg(ys)) if xs.len() == ys.len() => {
            Ok(Val::agg(xs.iter().zip(ys.iter()).map(|(x, y)| lanes2(x, y, f)).collect::<R<_>>()?))
        }
        _ => internal(format!("a lane-wise operation of {a:?} and {b:?}")),
    }
}

fn insert_at(agg: Val, path: &[u32], el: Val) -> R<Val> {
    let Some((&first, rest)) = path.split_first() else { return Ok(el) };
    let Val::Agg(es) = agg else { return internal("insert into a non-aggregate") };
    let mut v: Vec<Val> = es.to_vec();
    let slot = v.get_mut(first as usize).ok_or(RunError::Internal("insert index".into()))?;
    *slot = insert_at(slot.clone(), rest, el)?;
    Ok(Val::agg(v))
}

fn terminator(ctx: &mut Ctx, t: &mut Thread) -> R<()> {
    let p = ctx.p;
    let target = match &p.func.blocks[t.block].terminator {
        Terminator::Br { target } => *target,
        Terminator::CondBr { cond, if_true, if_false } => {
            if exact(p, t, *cond, "branch condition")? & 1 == 1 {
                *if_true
            } else {
                *if_false
            }
        }
        Terminator::Switch { value, default, cases } => {
            let w = value_type(p, *value).and_then(|ty| p.scal(ty));
            let v = exact(p, t, *value, "switch selector")?;
            let w = match w {
                Some(Scal::Int(w)) => w,
                _ => 64,
            };
            cases.iter().find(|(c, _)| mask(*c, w) == mask(v, w)).map(|(_, b)| *b).unwrap_or(*default)
        }
        Terminator::Ret { .. } => {
            t.status = Status::Done;
            return Ok(());
        }
        Terminator::Unreachable => return indeterminate("reached `unreachable`"),
    };
    enter(ctx, t, target)
}

/// Moves to `target`: PHIs read their incoming values from the block left, all at once.
pub fn enter(ctx: &mut Ctx, t: &mut Thread, target: BlockId) -> R<()> {
    let p = ctx.p;
    let from = t.block;
    let mut phis = Vec::new();
    for &i in &p.func.blocks[target].insts {
        let InstKind::Phi { incoming } = &p.func.insts[i].kind else { break };
        let Some(&(v, _)) = incoming.iter().find(|(_, b)| *b == from) else {
            return internal("PHI without an entry for its predecessor");
        };
        phis.push((i, operand(p, t, v)?));
    }
    let n = phis.len();
    for (i, v) in phis {
        t.set(i, v);
    }
    t.prev = Some(from);
    t.block = target;
    t.pos = n;
    t.track_loops(p, target);
    Ok(())
}
