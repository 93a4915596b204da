//! Constants blocks (`CONSTANTS_BLOCK`, block 11), module-level and function-level.
//!
//! Record codes from LLVM's `LLVMBitCodes.h` (`CST_CODE_*`) with LLVM 3.7 layouts:
//! `SETTYPE` sets the type of the following constants; `INTEGER` is sign-rotated VBR;
//! `AGGREGATE`, `DATA`, `STRING`/`CSTRING` list elements; `CE_CAST [op, type, value]`,
//! `CE_(INBOUNDS_)GEP [source type if the count is odd, (type, value)*]`, `CE_BINOP`,
//! `CE_CMP`, `CE_SELECT`, `CE_EXTRACTELT`, `CE_INSERTELT`, `CE_SHUFFLEVEC`. Operand ids are
//! absolute value ids and may refer forward (to later constants of the same block).
//!
//! Records are kept raw while the block is read and resolved afterwards, depth-first with an
//! explicit stack (a forward chain cannot overflow the call stack; a cycle is an error).
//! Resolution applies the canonical forms LLVM's constant factories produce when its reader
//! builds the same constants (and which the LLVM front end therefore sees): `null` of an
//! integer or float type is the number zero; an aggregate whose elements are all null is
//! `zeroinitializer`; one whose elements are all `undef` is `undef`; a bitcast to the same
//! type is its operand. Nesting is limited to [`MAX_CONST_DEPTH`].
//!
//! Cost: while a block is read its records are kept in one [`RawConsts`] (operand lists in
//! one shared buffer), so a pending constant costs no allocation of its own; resolution
//! reuses one stack for the whole block.

use super::bitstream::Res;
use super::codes::{binary_op, cast_op, decode_signed, float_predicate, int_predicate, mask};
use super::cursor::Cursor;
use super::error::{malformed, unsupported};
use super::reader::{Reader, Slot};
use crate::ir::{CastOp, ConstExprOp, ConstId, ConstKind, Constant, FloatKind, Type, TypeId, Value};
use std::ops::Range;

pub const MAX_CONST_DEPTH: u32 = 64;

/// A constant record; operand lists are ranges of `RawConsts::lists`.
#[derive(Clone, Debug)]
pub enum RawConst {
    Null,
    Undef,
    Int(u64),
    Float(u64),
    Aggregate(Range<usize>),
    Data(Range<usize>),
    Str(Range<usize>),
    Cast { op: CastOp, value: u64 },
    Gep { in_bounds: bool, source: Option<TypeId>, operands: Range<usize> },
    Expr { op: ConstExprOp, operands: Range<usize> },
}

/// The records of one constants block, pending resolution.
#[derive(Default)]
pub struct RawConsts {
    records: Vec<RawConst>,
    /// Every record's operand list, one after another.
    lists: Vec<u64>,
}

impl RawConsts {
    /// Append an operand list; its range in [`RawConsts::lists`].
    fn list(&mut self, values: impl IntoIterator<Item = u64>) -> Range<usize> {
        let start = self.lists.len();
        self.lists.extend(values);
        start..self.lists.len()
    }

    fn values(&self, r: &Range<usize>) -> &[u64] {
        self.lists.get(r.clone()).unwrap_or(&[])
    }

    /// The value ids record `i` refers to.
    fn deps(&self, i: usize) -> &[u64] {
        match self.records.get(i) {
            Some(RawConst::Aggregate(r) | RawConst::Gep { operands: r, .. } | RawConst::Expr { operands: r, .. }) => {
                self.values(r)
            }
            Some(RawConst::Cast { value, .. }) => std::slice::from_ref(value),
            _ => &[],
        }
    }
}

/// Read a constants block, append its values to the value list and resolve them.
pub fn read(rd: &mut Reader, cur: &mut Cursor) -> Res<()> {
    cur.enter(11)?;
    let first = rd.values.len();
    let mut cur_ty: Option<TypeId> = None;
    let mut raws = RawConsts::default();
    // Size hints (DXC's constants records average about 23 bits).
    let expected = (cur.bits_left_in_block() / 24) as usize;
    raws.records.reserve(expected);
    rd.values.reserve(expected);
    while let Some(code) = cur.next_record(|_| false)? {
        let ops = &cur.ops;
        let op = |i: usize| ops.get(i).copied().ok_or_else(|| malformed(format!("constant record {code} too short")));
        if code == 1 {
            cur_ty = Some(rd.ty(op(0)?)?);
            continue;
        }
        let ty = cur_ty.ok_or_else(|| malformed("constant before SETTYPE"))?;
        let raw = match code {
            2 => RawConst::Null,
            3 => RawConst::Undef,
            4 => RawConst::Int(decode_signed(op(0)?)),
            6 => RawConst::Float(op(0)?),
            7 => RawConst::Aggregate(raws.list(ops.iter().copied())),
            22 => RawConst::Data(raws.list(ops.iter().copied())),
            8 => RawConst::Str(raws.list(ops.iter().copied())),
            9 => RawConst::Str(raws.list(ops.iter().copied().chain([0]))),
            11 => RawConst::Cast { op: cast_op(op(0)?)?, value: op(2)? },
            12 | 20 => {
                let mut i = 0;
                let source = if ops.len() % 2 == 1 {
                    i = 1;
                    Some(rd.ty(op(0)?)?)
                } else {
                    None
                };
                let pairs = ops.get(i..).unwrap_or(&[]).chunks(2);
                let operands = raws.list(pairs.map(|p| p.get(1).copied().unwrap_or(0)));
                RawConst::Gep { in_bounds: code == 20, source, operands }
            }
            10 => {
                let opcode = op(0)?;
                let b = binary_op(opcode, rd.is_fp(ty))?;
                RawConst::Expr { op: ConstExprOp::Binary(b), operands: raws.list([op(1)?, op(2)?]) }
            }
            13 => RawConst::Expr { op: ConstExprOp::Select, operands: raws.list([op(0)?, op(1)?, op(2)?]) },
            14 => {
                let idx = if ops.len() >= 4 { op(3)? } else { op(2)? };
                RawConst::Expr { op: ConstExprOp::ExtractElement, operands: raws.list([op(1)?, idx]) }
            }
            15 => {
                let idx = if ops.len() >= 4 { op(3)? } else { op(2)? };
                RawConst::Expr { op: ConstExprOp::InsertElement, operands: raws.list([op(0)?, op(1)?, idx]) }
            }
            16 => RawConst::Expr { op: ConstExprOp::ShuffleVector, operands: raws.list([op(0)?, op(1)?, op(2)?]) },
            19 => RawConst::Expr { op: ConstExprOp::ShuffleVector, operands: raws.list([op(1)?, op(2)?, op(3)?]) },
            17 => {
                let op_ty = rd.ty(op(0)?)?;
                let pred = op(3)?;
                let e = if rd.is_fp(op_ty) {
                    ConstExprOp::FCmp(float_predicate(pred)?)
                } else {
                    ConstExprOp::ICmp(int_predicate(pred)?)
                };
                RawConst::Expr { op: e, operands: raws.list([op(1)?, op(2)?]) }
            }
            other => return Err(unsupported(format!("constant code {other}"))),
        };
        let index = u32::try_from(raws.records.len()).map_err(|_| malformed("too many constants"))?;
        raws.records.push(raw);
        rd.values.push(Slot::Pending { ty, raw: index, visiting: false });
    }
    rd.m.constants.reserve(raws.records.len());
    rd.depths.reserve(raws.records.len());
    let mut stack = Vec::with_capacity(16);
    for v in first..rd.values.len() {
        resolve(rd, &raws, v, &mut stack)?;
    }
    Ok(())
}

fn index(v: u64) -> Res<usize> {
    usize::try_from(v).map_err(|_| malformed("value id"))
}

/// Resolve pending constant `root` and everything it depends on (`stack`: scratch space).
fn resolve(rd: &mut Reader, raws: &RawConsts, root: usize, stack: &mut Vec<(usize, usize)>) -> Res<()> {
    stack.clear();
    stack.push((root, 0));
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        let dep = match rd.values.get_mut(v) {
            Some(Slot::Pending { raw, visiting, .. }) => {
                *visiting = true;
                raws.deps(*raw as usize).get(*next).copied()
            }
            Some(_) => {
                stack.pop();
                continue;
            }
            None => return Err(malformed(format!("reference to undefined value {v}"))),
        };
        match dep {
            Some(d) => {
                *next += 1;
                let d = index(d)?;
                match rd.values.get(d) {
                    Some(Slot::Pending { visiting: true, .. }) => return Err(malformed("constant refers to itself")),
                    Some(Slot::Pending { .. }) => stack.push((d, 0)),
                    Some(_) => {}
                    None => return Err(malformed(format!("constant operand {d} is not defined"))),
                }
            }
            None => {
                let slot = std::mem::replace(&mut rd.values[v], Slot::Busy);
                let Slot::Pending { ty, raw, .. } = slot else {
                    return Err(malformed("constant resolution"));
                };
                let raw = raws.records.get(raw as usize).ok_or_else(|| malformed("constant resolution"))?;
                let c = build(rd, raws, ty, raw)?;
                rd.values[v] = Slot::Val(Value::Const(c), ty);
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The constant for value `v` (globals and functions become their addresses).
pub fn const_of(rd: &mut Reader, v: u64) -> Res<ConstId> {
    match rd.values.get(index(v)?) {
        Some(&Slot::Val(Value::Const(c), _)) => Ok(c),
        Some(&Slot::Val(Value::Global(g), ty)) => Ok(rd.intern(Constant { ty, kind: ConstKind::GlobalAddr(g) }, 1)),
        Some(&Slot::Val(Value::Func(f), ty)) => Ok(rd.intern(Constant { ty, kind: ConstKind::FuncAddr(f) }, 1)),
        _ => Err(malformed(format!("value {v} is not a constant"))),
    }
}

/// The constants of `operands`, and the deepest of their nesting depths.
fn operand_consts(rd: &mut Reader, operands: &[u64]) -> Res<(Vec<ConstId>, u32)> {
    let mut cs = Vec::with_capacity(operands.len());
    let mut d = 0;
    for &v in operands {
        let (c, cd) = typed_const(rd, v, None)?;
        d = d.max(cd);
        cs.push(c);
    }
    Ok((cs, d))
}

fn typed_const(rd: &mut Reader, v: u64, expected: Option<TypeId>) -> Res<(ConstId, u32)> {
    let c = const_of(rd, v)?;
    if let Some(t) = expected {
        if rd.m.constants.get(c).ty != t {
            return Err(malformed("constant operand of the wrong type"));
        }
    }
    Ok((c, rd.const_depth(c)))
}

fn is_null(k: &ConstKind) -> bool {
    matches!(k, ConstKind::Int(0) | ConstKind::Float(0) | ConstKind::Null | ConstKind::Zero)
}

/// Float bits as the LLVM front end sees them (through a double).
pub fn float_bits(kind: FloatKind, bits: u64) -> Res<u64> {
    Ok(match kind {
        FloatKind::Double => bits,
        FloatKind::Float => ((f32::from_bits(bits as u32) as f64) as f32).to_bits() as u64,
        FloatKind::Half => half::f16::from_f64(half::f16::from_bits(bits as u16).to_f64()).to_bits() as u64,
        other => return Err(unsupported(format!("{other:?} constants"))),
    })
}

/// The element types of an aggregate constant of type `ty` with `n` elements: the one
/// element type of an array or vector of that length, `None` for a struct with `n` fields
/// (see [`field_type`]).
fn element_type(rd: &Reader, ty: TypeId, n: usize) -> Res<Option<TypeId>> {
    let types = &rd.m.types;
    Ok(match types.get(ty) {
        Type::Array { elem, len } if *len == n as u64 => Some(*elem),
        Type::Vector { elem, len } if *len as usize == n => Some(*elem),
        Type::Struct { .. } | Type::Named(_) => {
            let f = types.struct_fields(ty).ok_or_else(|| malformed("aggregate of an opaque struct"))?;
            if f.len() != n {
                return Err(malformed("aggregate element count"));
            }
            None
        }
        _ => return Err(malformed("aggregate of a non-aggregate type or wrong length")),
    })
}

/// The type of element `i` of an aggregate of type `ty` ([`element_type`] checked it).
fn field_type(rd: &Reader, ty: TypeId, same: Option<TypeId>, i: usize) -> Res<TypeId> {
    match same {
        Some(t) => Ok(t),
        None => rd.m.types.struct_fields(ty).and_then(|f| f.get(i)).copied().ok_or_else(|| malformed("aggregate")),
    }
}

fn build(rd: &mut Reader, raws: &RawConsts, ty: TypeId, raw: &RawConst) -> Res<ConstId> {
    let (kind, depth) = match raw {
        RawConst::Null => (
            match rd.m.types.get(ty) {
                Type::Int(_) => ConstKind::Int(0),
                Type::Float(_) => ConstKind::Float(0),
                Type::Pointer { .. } => ConstKind::Null,
                Type::Struct { .. } | Type::Named(_) | Type::Array { .. } | Type::Vector { .. } => ConstKind::Zero,
                _ => return Err(malformed("null of a type without a null value")),
            },
            1,
        ),
        RawConst::Undef => match rd.m.types.get(ty) {
            Type::Void | Type::Label | Type::Metadata | Type::Function { .. } => {
                return Err(malformed("undef of this type"))
            }
            _ => (ConstKind::Undef, 1),
        },
        RawConst::Int(v) => match rd.m.types.get(ty) {
            Type::Int(w) if *w <= 64 => (ConstKind::Int(v & mask(*w)), 1),
            Type::Int(w) => return Err(unsupported(format!("i{w} constants"))),
            _ => return Err(malformed("integer constant of a non-integer type")),
        },
        RawConst::Float(bits) => match rd.m.types.get(ty) {
            Type::Float(k) => (ConstKind::Float(float_bits(*k, *bits)?), 1),
            _ => return Err(malformed("float constant of a non-float type")),
        },
        RawConst::Aggregate(ids) => {
            let ids = raws.values(ids);
            let same = element_type(rd, ty, ids.len())?;
            let mut elems = Vec::with_capacity(ids.len());
            let mut d = 0;
            for (i, &v) in ids.iter().enumerate() {
                let t = field_type(rd, ty, same, i)?;
                let (c, cd) = typed_const(rd, v, Some(t))?;
                d = d.max(cd);
                elems.push(c);
            }
            (fold_aggregate(rd, elems), d + 1)
        }
        RawConst::Data(vals) | RawConst::Str(vals) => {
            let vals = raws.values(vals);
            let same = element_type(rd, ty, vals.len())?;
            let elem = if vals.is_empty() { None } else { Some(field_type(rd, ty, same, 0)?) };
            if matches!(raw, RawConst::Str(_)) && elem.is_some_and(|e| rd.m.types.get(e) != &Type::Int(8)) {
                return Err(malformed("string constant of a non-i8 array"));
            }
            if vals.iter().all(|&v| v == 0) {
                (ConstKind::Zero, 1)
            } else {
                let mut elems = Vec::with_capacity(vals.len());
                for (i, &v) in vals.iter().enumerate() {
                    let t = field_type(rd, ty, same, i)?;
                    let kind = match rd.m.types.get(t) {
                        Type::Int(w) if *w <= 64 => ConstKind::Int(v & mask(*w)),
                        Type::Float(k) => ConstKind::Float(float_bits(*k, v)?),
                        _ => return Err(malformed("data constant of a non-simple element type")),
                    };
                    elems.push(rd.intern(Constant { ty: t, kind }, 1));
                }
                (ConstKind::Aggregate(elems), 2)
            }
        }
        RawConst::Cast { op, value } => {
            let (c, d) = typed_const(rd, *value, None)?;
            if *op == CastOp::BitCast && rd.m.constants.get(c).ty == ty {
                return Ok(c);
            }
            (ConstKind::Expr { op: ConstExprOp::Cast(*op), operands: vec![c], source_ty: None }, d + 1)
        }
        RawConst::Gep { in_bounds, source, operands } => {
            let (cs, d) = operand_consts(rd, raws.values(operands))?;
            let base = cs.first().ok_or_else(|| malformed("constant GEP without operands"))?;
            let base_ty = rd.m.constants.get(*base).ty;
            let pointee = rd.m.types.pointee(base_ty).ok_or_else(|| malformed("constant GEP base is not a pointer"))?;
            let source = source.unwrap_or(pointee);
            if source != pointee {
                return Err(malformed("constant GEP type does not match its base"));
            }
            (
                ConstKind::Expr {
                    op: ConstExprOp::GetElementPtr { in_bounds: *in_bounds },
                    operands: cs,
                    source_ty: Some(source),
                },
                d + 1,
            )
        }
        RawConst::Expr { op, operands } => {
            let (cs, d) = operand_consts(rd, raws.values(operands))?;
            (ConstKind::Expr { op: *op, operands: cs, source_ty: None }, d + 1)
        }
    };
    if depth > MAX_CONST_DEPTH {
        return Err(malformed(format!("constants nested deeper than {MAX_CONST_DEPTH}")));
    }
    Ok(rd.intern(Constant { ty, kind }, depth))
}

fn fold_aggregate(rd: &Reader, elems: Vec<ConstId>) -> ConstKind {
    let k = |c: &ConstId| &rd.m.constants.get(*c).kind;
    if elems.iter().all(|c| is_null(k(c))) {
        ConstKind::Zero
    } else if elems.iter().all(|c| matches!(k(c), ConstKind::Undef)) {
        ConstKind::Undef
    } else {
        ConstKind::Aggregate(elems)
    }
}
