//! DXIL 1.9 native vectors (`<N x T>` of any length, Shader Model 6.9): the vector
//! operations and the vector overloads of element-wise operations.
//!
//! A native vector is a [`Val::Agg`] of its lanes; LLVM instructions on vectors run lane
//! by lane in [`super::exec`]. Here (semantics from DXC `utils/hct/hctdb.py` and
//! `docs/DXIL.rst`):
//!
//! - `RawBufferVectorLoad` (303: handle, index, elementOffset, alignment) returns
//!   `{ <N x T>, i32 status }`, lane `k` read from the byte address plus `k * sizeof(T)`
//!   exactly as `RawBufferLoad`'s components are ([`super::resources`]): out of bounds 0,
//!   partly out of bounds or misaligned undefined, past a structure's stride undefined.
//!   `RawBufferVectorStore` (304: handle, index, elementOffset, value, alignment) writes
//!   every lane by `RawBufferStore`'s rules (out of bounds dropped). The alignment operand
//!   is a compiler promise; an address not aligned to the element reads and writes
//!   undefined, as for `RawBufferLoad`.
//! - `VectorReduceAnd`/`VectorReduceOr` (309/310) fold the lanes of an integer (or `i1`)
//!   vector with `&`/`|`: exact when every lane is, or when an exact lane absorbs the rest.
//! - `FDot` (311) is the sum of the lanes' products in an order (and with fusing) the
//!   implementation chooses. The result is exact only when no order or fusing can change
//!   it: exact normal inputs whose products are exact in the format and whose partial
//!   sums are all representable — every product a multiple of `2^e` and the sum of their
//!   magnitudes below `2^(e + significand bits)` (and, when not zero, not below the
//!   smallest normal). Otherwise [`Acc::ANY`], as `Dot2`–`Dot4` are.
//! - The element-wise operations with vector overloads (`FAbs`, `IsNaN` ... `IsNormal`,
//!   rounding, `FMin`/`FMax`, integer min/max, bit counts, `FMad`, `IMad`, bit-field
//!   operations ...) apply their scalar semantics ([`super::dxop`]) to each lane; the
//!   overload of a lane is the vector's element type.
//!
//! Wave and quad operations gained vector overloads too; the interpreter does not model
//! them ([`vector_form_supported`] makes [`super::Program::new`] refuse them by name).
//! Cost: linear in the lanes.

use super::exec::{indeterminate, int_binary, internal, operand, scalar, Ctx, RunError, Thread, R};
use super::float::{self, Fk};
use super::program::{OpCall, Program, Scal};
use super::value::{Acc, Scalar, Val};
use untangle::dxil::DxOp;
use untangle::ir::{BinaryOp, Function, InstId, Module, Type, TypeId, Value};

/// Operations that compute each result lane from the same lanes of their operands (the
/// scalar implementations [`super::dxop::call_lane`] runs per lane).
pub fn elementwise(op: DxOp) -> bool {
    use DxOp::*;
    matches!(
        op,
        FAbs | Saturate
            | IsNaN
            | IsInf
            | IsFinite
            | IsNormal
            | Cos
            | Sin
            | Tan
            | Acos
            | Asin
            | Atan
            | Hcos
            | Hsin
            | Htan
            | Exp
            | Frc
            | Log
            | Sqrt
            | Rsqrt
            | Round_ne
            | Round_ni
            | Round_pi
            | Round_z
            | Bfrev
            | Countbits
            | FirstbitLo
            | FirstbitHi
            | FirstbitSHi
            | FMax
            | FMin
            | IMax
            | IMin
            | UMax
            | UMin
            | FMad
            | Fma
            | IMad
            | UMad
            | Ibfe
            | Ubfe
            | Bfi
    )
}

fn vector_ty(m: &Module, t: TypeId) -> Option<(TypeId, u32)> {
    match m.types.get(t) {
        Type::Vector { elem, len } => Some((*elem, *len)),
        _ => None,
    }
}

fn value_ty(m: &Module, f: &Function, v: Value) -> Option<TypeId> {
    match v {
        Value::Inst(i) => Some(f.insts[i].ty),
        Value::Const(c) => Some(m.constants.get(c).ty),
        _ => None,
    }
}

/// Whether the interpreter models `op` with these operands: any operation whose vector
/// form is one of this module's, or that takes no native vector.
pub fn vector_form_supported(m: &Module, f: &Function, op: DxOp, args: &[Value]) -> bool {
    use DxOp::*;
    if elementwise(op)
        || matches!(op, RawBufferVectorLoad | RawBufferVectorStore | VectorReduceAnd | VectorReduceOr | FDot)
    {
        return true;
    }
    !args.iter().any(|&a| value_ty(m, f, a).is_some_and(|t| vector_ty(m, t).is_some()))
}

/// The scalar overload suffix of a lane type (`f32`, `i16` ...).
fn lane_overload(p: &Program, t: TypeId) -> R<&'static str> {
    Ok(match p.scal(t) {
        Some(Scal::Float(Fk::H)) => "f16",
        Some(Scal::Float(Fk::F)) => "f32",
        Some(Scal::Float(Fk::D)) => "f64",
        Some(Scal::Int(1)) => "i1",
        Some(Scal::Int(8)) => "i8",
        Some(Scal::Int(16)) => "i16",
        Some(Scal::Int(32)) => "i32",
        Some(Scal::Int(64)) => "i64",
        _ => return internal(format!("a vector of {}", p.module.types.display(t))),
    })
}

/// The lanes of a native-vector value (a scalar is one lane).
fn lanes(v: &Val) -> R<Vec<Scalar>> {
    match v {
        Val::S(s) => Ok(vec![*s]),
        Val::Agg(xs) => xs.iter().map(|x| x.scalar().ok_or(RunError::Internal("a vector lane".into()))).collect(),
        other => internal(format!("a vector operand {other:?}")),
    }
}

/// Lane type and lane count of a value's type (1 for a scalar).
fn shape(p: &Program, t: TypeId) -> (TypeId, u32) {
    vector_ty(p.module, t).unwrap_or((t, 1))
}

fn handle_index(ctx: &Ctx, t: &Thread, v: Value) -> R<usize> {
    match operand(ctx.p, t, v)? {
        Val::Handle(h) => match ctx.res.find(h) {
            Some(i) => Ok(i),
            None => indeterminate(format!("access through a handle to an unbound resource {h:?}")),
        },
        _ => indeterminate("a resource access through an undefined handle"),
    }
}

/// A coordinate: `undef` (a raw buffer's element offset) reads as 0; it must be exact.
fn coordinate(ctx: &Ctx, t: &Thread, v: Value) -> R<u64> {
    if let Value::Const(c) = v {
        if matches!(ctx.p.module.constants.get(c).kind, untangle::ir::ConstKind::Undef) {
            return Ok(0);
        }
    }
    let x = scalar(ctx.p, t, v)?;
    if !x.acc.is_exact() {
        return indeterminate("a resource coordinate D3D leaves undefined");
    }
    Ok(x.bits & 0xffff_ffff)
}

/// Runs `c` if it is a vector operation or a vector overload: `Some` of its result (`None`
/// for a store); `None` for any other call (the scalar path in [`super::dxop`] runs it).
pub fn call(ctx: &mut Ctx, t: &mut Thread, inst: InstId, c: &OpCall) -> R<Option<Option<Val>>> {
    let p = ctx.p;
    let a = &c.args;
    let ty_of = |v: Value| value_ty(p.module, p.func, v).ok_or(RunError::Internal("operand type".into()));
    Ok(Some(Some(match c.op {
        DxOp::RawBufferVectorLoad => {
            let r = handle_index(ctx, t, a[0])?;
            let (c0, c1) = (coordinate(ctx, t, a[1])?, coordinate(ctx, t, a[2])?);
            let ret = p.func.insts[inst].ty;
            let vt = *p.elems(ret).first().ok_or(RunError::Internal("rawBufferVectorLoad's result".into()))?;
            let (lt, n) = shape(p, vt);
            let size = p.size_of(lt) as usize;
            let l = ctx.res.list[r].load_raw(c0, c1, size, n as usize);
            let v = if vector_ty(p.module, vt).is_some() {
                Val::agg(l.comps.into_iter().map(Val::S).collect())
            } else {
                Val::S(l.comps[0])
            };
            // The status: fully mapped (1) in bounds; D3D does not say out of bounds.
            Val::agg(vec![v, if l.in_bounds { Val::exact(1) } else { Val::undefined() }])
        }
        DxOp::RawBufferVectorStore => {
            let r = handle_index(ctx, t, a[0])?;
            let (c0, c1) = (coordinate(ctx, t, a[1])?, coordinate(ctx, t, a[2])?);
            let (lt, _) = shape(p, ty_of(a[3])?);
            let fk = match p.scal(lt) {
                Some(Scal::Float(fk)) => Some(fk),
                _ => None,
            };
            let vals: Vec<(Scalar, Option<Fk>)> = lanes(&operand(p, t, a[3])?)?.into_iter().map(|x| (x, fk)).collect();
            ctx.res.list[r].store_raw(c0, c1, p.size_of(lt) as usize, &vals, |_| true);
            return Ok(Some(None));
        }
        DxOp::VectorReduceAnd | DxOp::VectorReduceOr => {
            let (lt, _) = shape(p, ty_of(a[0])?);
            let Some(Scal::Int(w)) = p.scal(lt) else { return internal("vectorReduce of a non-integer vector") };
            let op = if c.op == DxOp::VectorReduceAnd { BinaryOp::And } else { BinaryOp::Or };
            let xs = lanes(&operand(p, t, a[0])?)?;
            let (first, rest) = xs.split_first().ok_or(RunError::Internal("vectorReduce of no lanes".into()))?;
            Val::S(rest.iter().fold(*first, |acc, x| int_binary(op, acc, *x, w)))
        }
        DxOp::FDot => {
            let (lt, _) = shape(p, ty_of(a[0])?);
            let Some(Scal::Float(fk)) = p.scal(lt) else { return internal("FDot of a non-float vector") };
            let (xs, ys) = (lanes(&operand(p, t, a[0])?)?, lanes(&operand(p, t, a[1])?)?);
            if xs.len() != ys.len() {
                return internal("FDot of vectors of different lengths");
            }
            Val::S(fdot(&xs, &ys, fk))
        }
        op if elementwise(op) => {
            let vals: Vec<Val> = a.iter().map(|&v| operand(p, t, v)).collect::<R<_>>()?;
            let n = match vals.iter().find_map(|v| if let Val::Agg(xs) = v { Some(xs.len()) } else { None }) {
                Some(n) => n,
                None => return Ok(None),
            };
            let vt = a.iter().find_map(|&v| ty_of(v).ok().filter(|&t| vector_ty(p.module, t).is_some()));
            let lt = shape(p, vt.ok_or(RunError::Internal("vector operand type".into()))?).0;
            let ov = lane_overload(p, lt)?;
            let per_arg: Vec<Vec<Scalar>> = vals.iter().map(lanes).collect::<R<_>>()?;
            let mut out = Vec::with_capacity(n);
            for k in 0..n {
                // Scalar operands (none in DXC's overloads) are the same in every lane.
                let xs: Vec<Scalar> = per_arg.iter().map(|l| if l.len() == n { l[k] } else { l[0] }).collect();
                let v = super::dxop::call_lane(ctx, t, c, Some((&xs, ov)))?
                    .ok_or(RunError::Internal(format!("{} lane without a result", op.name())))?;
                out.push(v);
            }
            Val::agg(out)
        }
        _ => return Ok(None),
    })))
}

/// `FDot` of two lanes' worth of `fk` values (see the module docs for when it is exact).
pub fn fdot(xs: &[Scalar], ys: &[Scalar], fk: Fk) -> Scalar {
    let significand = match fk {
        Fk::H => 11,
        Fk::F => 24,
        Fk::D => 53,
    };
    let mut sum = 0.0f64;
    let mut magnitude = 0.0f64;
    let mut low_bit: Option<i32> = None;
    let mut exact = true;
    for (x, y) in xs.iter().zip(ys) {
        exact &= x.acc.is_exact() && y.acc.is_exact();
        exact &= !float::is_denorm(x.bits, fk) && !float::is_denorm(y.bits, fk);
        let (fx, fy) = (float::to_f64(x.bits, fk), float::to_f64(y.bits, fk));
        let prod = fx * fy;
        exact &= prod.is_finite();
        // The product must be exact in the format (f64 holds a half or float product
        // exactly; a double product is checked against its fused remainder).
        let in_format = float::to_f64(float::from_f64(prod, fk), fk);
        exact &= in_format == prod && (fk != Fk::D || fx.mul_add(fy, -prod) == 0.0);
        if prod != 0.0 && prod.is_finite() {
            exact &= prod.abs() >= min_normal(fk);
            let bits = prod.abs().to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i32 - 1075;
            let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
            let low = exp + mant.trailing_zeros() as i32;
            low_bit = Some(low_bit.map_or(low, |l| l.min(low)));
        }
        sum += prod;
        magnitude += prod.abs();
    }
    if let Some(e) = low_bit {
        exact &= magnitude < 2f64.powi(e + significand);
        exact &= sum == 0.0 || sum.abs() >= min_normal(fk);
    }
    let bits = float::from_f64(sum, fk);
    Scalar { bits, acc: if exact { Acc::EXACT } else { Acc::ANY } }
}

fn min_normal(fk: Fk) -> f64 {
    match fk {
        Fk::H => 2f64.powi(-14),
        Fk::F => 2f64.powi(-126),
        Fk::D => f64::MIN_POSITIVE,
    }
}
