//! Function blocks (`FUNCTION_BLOCK`, block 12): instructions into IR blocks.
//!
//! Record codes and layouts from LLVM's `LLVMBitCodes.h` (`FUNC_CODE_*`) as LLVM 3.7's
//! reader interprets them. Operands are relative value ids (the current value number minus
//! the operand's); an operand whose id is not yet defined (a forward reference) carries its
//! type in the next field where the type cannot be inferred ("value and type" pairs). PHI
//! operands are sign-rotated relative ids. `ALLOCA` sizes and `SWITCH` case values are
//! absolute ids. `CALL` carries an explicit function type when bit 15 of its calling-convention
//! field is set (and fast-math flags when bit 17 is); `LOAD` carries an explicit type when it
//! has one field more than the old layout; `STORE` (44) has a typed value, `STORE_OLD` (24)
//! does not; `GEP` (43) is `[inbounds, source type, operands]`, `GEP_OLD`/`INBOUNDS_GEP_OLD`
//! (4/30) infer the source type from the base pointer. Alignments are log2 + 1; zero means
//! "unspecified", which LLVM's reader replaces by the data layout's ABI alignment (preferred
//! alignment for `alloca`), so we do too.
//!
//! Instruction results are numbered by value id while reading and renumbered to
//! [`InstId`]s (which also count void instructions) once the block is complete, so forward
//! references need no placeholders in the IR. Each forward reference must be defined later
//! in the function with the type it was used at.

use super::bitstream::Res;
use super::codes::{binary_op, cast_op, decode_signed, float_predicate, int_predicate, mask};
use super::cursor::{Cursor, Entry};
use super::error::{malformed, unsupported};
use super::reader::{Reader, Slot};
use super::symtab::{self, Name};
use crate::ir::*;
use cranelift_entity::{EntityRef, PrimaryMap};
use smallvec::SmallVec;

fn ordering(o: u64) -> Res<Ordering> {
    use Ordering::*;
    by_code(&[NotAtomic, Unordered, Monotonic, Acquire, Release, AcqRel, SeqCst], o, "atomic ordering")
}

fn rmw_op(o: u64) -> Res<AtomicRmwOp> {
    use AtomicRmwOp::*;
    by_code(&[Xchg, Add, Sub, And, Nand, Or, Xor, Max, Min, UMax, UMin, FAdd, FSub], o, "atomicrmw operation")
}

/// Entry `o` of `table`, the values of an enumeration in bitcode order; `what` names it
/// in the error for a value past the end.
fn by_code<T: Copy>(table: &[T], o: u64, what: &str) -> Res<T> {
    usize::try_from(o).ok().and_then(|i| table.get(i)).copied().ok_or_else(|| malformed(format!("{what} {o}")))
}

/// `(1 << e) >> 1` for an encoded alignment `e`.
fn alignment(e: u64) -> Res<u32> {
    if e > 32 {
        return Err(malformed(format!("alignment exponent {e}")));
    }
    Ok(((1u64 << e) >> 1) as u32)
}

/// Operands of one record with a read position.
struct Ops<'a> {
    ops: &'a [u64],
    i: usize,
}

impl Ops<'_> {
    fn next(&mut self) -> Res<u64> {
        let v = self.ops.get(self.i).copied().ok_or_else(|| malformed("instruction record too short"))?;
        self.i += 1;
        Ok(v)
    }
    fn left(&self) -> usize {
        self.ops.len().saturating_sub(self.i)
    }
}

struct Body {
    /// Value id of the function's first argument.
    base: usize,
    nblocks: Option<usize>,
    blocks: PrimaryMap<BlockId, Block>,
    current: Vec<InstId>,
    insts: PrimaryMap<InstId, Inst>,
    /// Function value id (minus `base`) → instruction.
    inst_of: Vec<Option<InstId>>,
    /// Forward references: value id and the type it was used at.
    forward: Vec<(u32, TypeId)>,
}

struct Fn<'r> {
    rd: &'r mut Reader,
    b: Body,
}

impl Fn<'_> {
    fn next_id(&self) -> u32 {
        self.rd.values.len() as u32
    }

    fn slot(&self, vid: u32) -> Res<(Value, TypeId)> {
        match self.rd.values.get(vid as usize) {
            Some(&Slot::Val(v, t)) => Ok((v, t)),
            _ => Err(malformed(format!("value {vid} is not available"))),
        }
    }

    fn forward(&mut self, vid: u32, ty: TypeId) -> Res<(Value, TypeId)> {
        if vid == u32::MAX || (vid as usize).saturating_sub(self.b.base) > self.rd.budget_values {
            return Err(malformed(format!("forward reference to value {vid}")));
        }
        self.b.forward.push((vid, ty));
        Ok((Value::Inst(InstId::from_u32(vid)), ty))
    }

    /// A relative operand whose type is known from context.
    fn value(&mut self, o: &mut Ops, ty: TypeId) -> Res<Value> {
        let vid = self.next_id().wrapping_sub(o.next()? as u32);
        if vid < self.next_id() {
            let (v, t) = self.slot(vid)?;
            if t != ty {
                return Err(malformed("operand of the wrong type"));
            }
            Ok(v)
        } else {
            Ok(self.forward(vid, ty)?.0)
        }
    }

    /// A relative operand followed by its type if it is a forward reference.
    fn value_and_type(&mut self, o: &mut Ops) -> Res<(Value, TypeId)> {
        let vid = self.next_id().wrapping_sub(o.next()? as u32);
        if vid < self.next_id() {
            self.slot(vid)
        } else {
            let ty = self.rd.ty(o.next()?)?;
            self.forward(vid, ty)
        }
    }

    fn block(&self, v: u64) -> Res<BlockId> {
        match self.b.nblocks {
            Some(n) if (v as usize) < n && v < u32::MAX as u64 => Ok(BlockId::new(v as usize)),
            _ => Err(malformed(format!("branch to block {v}, which does not exist"))),
        }
    }

    fn types(&self) -> &Types {
        &self.rd.m.types
    }

    fn ptr(&mut self, pointee: TypeId, addr_space: u32) -> TypeId {
        self.rd.m.types.intern(Type::Pointer { pointee, addr_space })
    }

    fn pointee(&self, t: TypeId) -> Res<TypeId> {
        self.types().pointee(t).ok_or_else(|| malformed("pointer operand is not a pointer"))
    }

    fn push(&mut self, kind: InstKind, ty: TypeId) -> Res<()> {
        if self.b.nblocks.is_none_or(|n| self.b.blocks.len() >= n) {
            return Err(malformed("instruction outside any declared block"));
        }
        let id = self.b.insts.push(Inst { name: None, ty, kind });
        self.b.current.push(id);
        if !self.types().is_void(ty) {
            let vid = self.rd.values.len();
            if vid >= u32::MAX as usize - 1 {
                return Err(malformed("too many values"));
            }
            self.rd.values.push(Slot::Val(Value::Inst(InstId::new(vid)), ty));
            let k = vid - self.b.base;
            // Results are numbered consecutively after the arguments and constants.
            if self.b.inst_of.len() < k {
                self.b.inst_of.resize(k, None);
            }
            match self.b.inst_of.get_mut(k) {
                Some(slot) => *slot = Some(id),
                None => self.b.inst_of.push(Some(id)),
            }
        }
        Ok(())
    }

    fn terminate(&mut self, t: Terminator) -> Res<()> {
        if self.b.nblocks.is_none_or(|n| self.b.blocks.len() >= n) {
            return Err(malformed("terminator outside any declared block"));
        }
        // The block's list at its exact size; the working list keeps its capacity for the
        // next block (taking it made every block grow a fresh list push by push).
        let insts = self.b.current.to_vec();
        self.b.current.clear();
        self.b.blocks.push(Block { name: None, insts, terminator: t });
        Ok(())
    }

    /// The type reached by `indices` into aggregate `ty` (extractvalue/insertvalue).
    fn indexed_aggregate(&self, mut ty: TypeId, indices: &[u32]) -> Res<TypeId> {
        for &i in indices {
            ty = match self.types().get(ty) {
                Type::Array { elem, len } if (i as u64) < *len => *elem,
                Type::Struct { .. } | Type::Named(_) => *self
                    .types()
                    .struct_fields(ty)
                    .and_then(|f| f.get(i as usize))
                    .ok_or_else(|| malformed("aggregate index out of range"))?,
                _ => return Err(malformed("aggregate index into a non-aggregate")),
            };
        }
        Ok(ty)
    }

    fn const_int(&self, v: Value) -> Option<u64> {
        match v {
            Value::Const(c) => self.rd.m.constants.as_int(c),
            _ => None,
        }
    }

    /// Result pointee of a GEP: the first index steps over `source`, the others go into it.
    fn gep_target(&self, source: TypeId, indices: &[Value]) -> Res<TypeId> {
        let mut ty = source;
        for &ix in indices.iter().skip(1) {
            ty = match self.types().get(ty) {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
                Type::Struct { .. } | Type::Named(_) => {
                    let i = self.const_int(ix).ok_or_else(|| malformed("struct index is not a constant"))?;
                    *self
                        .types()
                        .struct_fields(ty)
                        .and_then(|f| f.get(i as usize))
                        .ok_or_else(|| malformed("struct index out of range"))?
                }
                _ => return Err(malformed("GEP index into a non-aggregate")),
            };
        }
        Ok(ty)
    }

    fn indices(o: &mut Ops) -> Res<SmallVec<[u32; 2]>> {
        let mut v = SmallVec::new();
        while o.left() > 0 {
            v.push(u32::try_from(o.next()?).map_err(|_| malformed("aggregate index"))?);
        }
        Ok(v)
    }

    fn record(&mut self, code: u32, ops: &[u64]) -> Res<()> {
        let o = &mut Ops { ops, i: 0 };
        match code {
            1 => {
                let n = o.next()?;
                if self.b.nblocks.is_some() || n == 0 || n > self.rd.budget_values as u64 {
                    return Err(malformed(format!("DECLAREBLOCKS {n}")));
                }
                self.b.nblocks = Some(n as usize);
            }
            2 => {
                let (lhs, ty) = self.value_and_type(o)?;
                let rhs = self.value(o, ty)?;
                let fp = self.rd.is_fp(ty);
                if !fp && !self.rd.is_int(ty) {
                    return Err(malformed("binary operator on non-numbers"));
                }
                let op = binary_op(o.next()?, fp)?;
                // Optional flags: fast-math flags for floats (bit 0 LLVM 3.7's unsafe
                // algebra, i.e. `fast`; bit 5 `contract`, bit 7 `reassoc` in later LLVM).
                let flags = if o.left() > 0 { o.next()? } else { 0 };
                let fast = fp && flags & (1 | 1 << 5 | 1 << 7) != 0;
                self.push(InstKind::Binary { op, lhs, rhs, fast }, ty)?;
            }
            3 => {
                let (value, _) = self.value_and_type(o)?;
                let ty = self.rd.ty(o.next()?)?;
                let op = cast_op(o.next()?)?;
                self.push(InstKind::Cast { op, value }, ty)?;
            }
            4 | 30 | 43 => {
                let (in_bounds, explicit) =
                    if code == 43 { (o.next()? != 0, Some(self.rd.ty(o.next()?)?)) } else { (code == 30, None) };
                let (base, base_ty) = self.value_and_type(o)?;
                let pointee = self.pointee(base_ty)?;
                let source = explicit.unwrap_or(pointee);
                if source != pointee {
                    return Err(malformed("GEP type does not match the base pointer"));
                }
                let mut idx: SmallVec<[Value; 4]> = SmallVec::new();
                while o.left() > 0 {
                    let (v, t) = self.value_and_type(o)?;
                    if !self.rd.is_int(t) {
                        return Err(malformed("GEP index is not an integer"));
                    }
                    idx.push(v);
                }
                if idx.is_empty() {
                    return Err(malformed("GEP without indices"));
                }
                let target = self.gep_target(source, &idx)?;
                let space = match self.types().get(base_ty) {
                    Type::Pointer { addr_space, .. } => *addr_space,
                    _ => 0,
                };
                let ty = self.ptr(target, space);
                self.push(InstKind::GetElementPtr { source, base, indices: idx, in_bounds }, ty)?;
            }
            29 => {
                let (if_true, ty) = self.value_and_type(o)?;
                let if_false = self.value(o, ty)?;
                let (cond, ct) = self.value_and_type(o)?;
                match self.types().get(ct) {
                    Type::Int(1) => {}
                    Type::Vector { elem, .. } if self.types().get(*elem) == &Type::Int(1) => {}
                    _ => return Err(malformed("select condition is not i1")),
                }
                self.push(InstKind::Select { cond, if_true, if_false }, ty)?;
            }
            6 => {
                let (vector, vt) = self.value_and_type(o)?;
                let (index, _) = self.value_and_type(o)?;
                let Type::Vector { elem, .. } = *self.types().get(vt) else {
                    return Err(malformed("extractelement of a non-vector"));
                };
                self.push(InstKind::ExtractElement { vector, index }, elem)?;
            }
            7 => {
                let (vector, vt) = self.value_and_type(o)?;
                let Type::Vector { elem, .. } = *self.types().get(vt) else {
                    return Err(malformed("insertelement into a non-vector"));
                };
                let element = self.value(o, elem)?;
                let (index, _) = self.value_and_type(o)?;
                self.push(InstKind::InsertElement { vector, element, index }, vt)?;
            }
            8 => {
                let (lhs, vt) = self.value_and_type(o)?;
                let rhs = self.value(o, vt)?;
                let (m, _) = self.value_and_type(o)?;
                let Type::Vector { elem, .. } = *self.types().get(vt) else {
                    return Err(malformed("shufflevector of a non-vector"));
                };
                let mask = self.shuffle_mask(m)?;
                let len = u32::try_from(mask.len()).map_err(|_| malformed("mask"))?;
                let ty = self.rd.m.types.intern(Type::Vector { elem, len });
                self.push(InstKind::ShuffleVector { lhs, rhs, mask }, ty)?;
            }
            9 | 28 => {
                let (lhs, ty) = self.value_and_type(o)?;
                let rhs = self.value(o, ty)?;
                let pred = o.next()?;
                let i1 = self.rd.m.types.int(1);
                let rty = match *self.types().get(ty) {
                    Type::Vector { len, .. } => self.rd.m.types.intern(Type::Vector { elem: i1, len }),
                    _ => i1,
                };
                let kind = if self.rd.is_fp(ty) {
                    InstKind::FCmp { pred: float_predicate(pred)?, lhs, rhs }
                } else {
                    InstKind::ICmp { pred: int_predicate(pred)?, lhs, rhs }
                };
                self.push(kind, rty)?;
            }
            10 => {
                let value = if o.left() == 0 { None } else { Some(self.value_and_type(o)?.0) };
                self.terminate(Terminator::Ret { value })?;
            }
            11 => {
                let t = if ops.len() == 1 {
                    Terminator::Br { target: self.block(o.next()?)? }
                } else {
                    let if_true = self.block(o.next()?)?;
                    let if_false = self.block(o.next()?)?;
                    let i1 = self.rd.m.types.int(1);
                    let cond = self.value(o, i1)?;
                    Terminator::CondBr { cond, if_true, if_false }
                };
                self.terminate(t)?;
            }
            12 => {
                let opty = o.next()?;
                if opty >> 16 == 0x4B5 {
                    return Err(unsupported("switch with case ranges"));
                }
                let ty = self.rd.ty(opty)?;
                let value = self.value(o, ty)?;
                let default = self.block(o.next()?)?;
                let mut cases = Vec::with_capacity(o.left() / 2);
                while o.left() > 0 {
                    let c = o.next()?;
                    let bb = self.block(o.next()?)?;
                    let v = match self.rd.values.get(c as usize) {
                        Some(&Slot::Val(Value::Const(cid), t)) if t == ty => match self.rd.m.constants.get(cid).kind {
                            ConstKind::Int(x) => x,
                            _ => return Err(malformed("switch case is not an integer")),
                        },
                        _ => return Err(malformed("switch case is not a constant of the condition's type")),
                    };
                    cases.push((v, bb));
                }
                if let Type::Int(w) = self.types().get(ty) {
                    if *w > 64 {
                        return Err(unsupported(format!("switch on i{w}")));
                    }
                }
                self.terminate(Terminator::Switch { value, default, cases })?;
            }
            15 => self.terminate(Terminator::Unreachable)?,
            16 => {
                let ty = self.rd.ty(o.next()?)?;
                if !o.left().is_multiple_of(2) {
                    return Err(malformed("PHI with an odd operand count"));
                }
                let mut incoming = SmallVec::with_capacity(o.left() / 2);
                while o.left() > 0 {
                    let rel = decode_signed(o.next()?) as i64;
                    let vid = (self.next_id() as i64).wrapping_sub(rel);
                    let vid = u32::try_from(vid).map_err(|_| malformed("PHI operand id"))?;
                    let v = if vid < self.next_id() {
                        let (v, t) = self.slot(vid)?;
                        if t != ty {
                            return Err(malformed("PHI operand of the wrong type"));
                        }
                        v
                    } else {
                        self.forward(vid, ty)?.0
                    };
                    let bb = self.block(o.next()?)?;
                    incoming.push((v, bb));
                }
                self.push(InstKind::Phi { incoming }, ty)?;
            }
            19 => {
                let inst_ty = self.rd.ty(o.next()?)?;
                let op_ty = self.rd.ty(o.next()?)?;
                let count_id = o.next()?;
                let count = match self.rd.values.get(count_id as usize) {
                    Some(&Slot::Val(v, t)) if t == op_ty => v,
                    _ => return Err(malformed("alloca size is not a value of its type")),
                };
                let rec = o.next()?;
                let explicit = rec & (1 << 6) != 0;
                let allocated = if explicit { inst_ty } else { self.pointee(inst_ty)? };
                let mut align = alignment(rec & !((1 << 5) | (1 << 6) | (1 << 7)))?;
                if align == 0 {
                    align = self.rd.pref_align(allocated);
                }
                let ty = self.ptr(allocated, 0);
                self.push(InstKind::Alloca { allocated, count, align }, ty)?;
            }
            20 | 41 => {
                let (ptr, pt) = self.value_and_type(o)?;
                let extra = if code == 41 { 5 } else { 3 };
                let pointee = self.pointee(pt)?;
                let ty = if o.left() == extra { self.rd.ty(o.next()?)? } else { pointee };
                if ty != pointee {
                    return Err(malformed("load type does not match the pointer"));
                }
                let mut align = alignment(o.next()?)?;
                let volatile = o.next()? != 0;
                if align == 0 {
                    align = self.rd.abi_align(ty);
                }
                self.push(InstKind::Load { ptr, align, volatile }, ty)?;
            }
            23 => {
                let _list_ty = self.rd.ty(o.next()?)?;
                let (list, _) = self.value_and_type(o)?;
                let ty = self.rd.ty(o.next()?)?;
                self.push(InstKind::VaArg { list }, ty)?;
            }
            24 | 44 | 42 | 45 => {
                let (ptr, pt) = self.value_and_type(o)?;
                let pointee = self.pointee(pt)?;
                let value = if code == 44 || code == 45 {
                    let (v, t) = self.value_and_type(o)?;
                    if t != pointee {
                        return Err(malformed("stored value does not match the pointer"));
                    }
                    v
                } else {
                    self.value(o, pointee)?
                };
                let mut align = alignment(o.next()?)?;
                let volatile = o.next()? != 0;
                if align == 0 {
                    align = self.rd.abi_align(pointee);
                }
                let void = self.rd.m.types.void();
                self.push(InstKind::Store { ptr, value, align, volatile }, void)?;
            }
            26 => {
                let (aggregate, at) = self.value_and_type(o)?;
                let indices = Self::indices(o)?;
                if indices.is_empty() {
                    return Err(malformed("extractvalue without indices"));
                }
                let ty = self.indexed_aggregate(at, &indices)?;
                self.push(InstKind::ExtractValue { aggregate, indices }, ty)?;
            }
            27 => {
                let (aggregate, at) = self.value_and_type(o)?;
                let (element, et) = self.value_and_type(o)?;
                let indices = Self::indices(o)?;
                if indices.is_empty() || self.indexed_aggregate(at, &indices)? != et {
                    return Err(malformed("insertvalue element does not match"));
                }
                self.push(InstKind::InsertValue { aggregate, element, indices }, at)?;
            }
            34 => self.call(o)?,
            36 => {
                let ordering = ordering(o.next()?)?;
                let void = self.rd.m.types.void();
                self.push(InstKind::Fence { ordering }, void)?;
            }
            37 | 46 => {
                let (ptr, pt) = self.value_and_type(o)?;
                let pointee = self.pointee(pt)?;
                let (expected, et) =
                    if code == 46 { self.value_and_type(o)? } else { (self.value(o, pointee)?, pointee) };
                if et != pointee {
                    return Err(malformed("cmpxchg operand does not match the pointer"));
                }
                let replacement = self.value(o, et)?;
                let volatile = o.next()? != 0;
                let success = ordering(o.next()?)?;
                let _scope = o.next()?;
                let failure = if o.left() > 0 { ordering(o.next()?)? } else { strongest_failure(success) };
                if o.left() == 0 {
                    return Err(unsupported("cmpxchg without the weak flag (pre-3.5 layout)"));
                }
                let weak = o.next()? != 0;
                let i1 = self.rd.m.types.int(1);
                let ty = self.rd.m.types.intern(Type::Struct { fields: vec![et, i1], packed: false });
                self.push(InstKind::CmpXchg { ptr, expected, replacement, success, failure, weak, volatile }, ty)?;
            }
            38 => {
                let (ptr, pt) = self.value_and_type(o)?;
                let pointee = self.pointee(pt)?;
                let value = self.value(o, pointee)?;
                let op = rmw_op(o.next()?)?;
                let volatile = o.next()? != 0;
                let ordering = ordering(o.next()?)?;
                self.push(InstKind::AtomicRmw { op, ptr, value, ordering, volatile }, pointee)?;
            }
            56 => {
                let (value, ty) = self.value_and_type(o)?;
                if o.next()? != 0 || !self.rd.is_fp(ty) {
                    return Err(malformed("unary operator"));
                }
                self.push(InstKind::FNeg { value }, ty)?;
            }
            33 | 35 => {} // debug locations: not modelled
            other => return Err(unsupported(format!("instruction code {other}"))),
        }
        Ok(())
    }

    fn call(&mut self, o: &mut Ops) -> Res<()> {
        let _attrs = o.next()?;
        let cc = o.next()?;
        if cc & (1 << 17) != 0 {
            let _fmf = o.next()?;
        }
        let explicit = if cc & (1 << 15) != 0 { Some(self.rd.ty(o.next()?)?) } else { None };
        let (callee, ct) = self.value_and_type(o)?;
        let pointee = self.pointee(ct)?;
        let fty = explicit.unwrap_or(pointee);
        if fty != pointee {
            return Err(malformed("call type does not match the callee"));
        }
        let (ret, nparams, var_arg) = match self.types().get(fty) {
            Type::Function { ret, params, var_arg } => (*ret, params.len(), *var_arg),
            _ => return Err(malformed("callee is not a function")),
        };
        let mut args = SmallVec::with_capacity(nparams);
        for i in 0..nparams {
            let p = self.param_type(fty, i)?;
            match self.types().get(p) {
                Type::Label => return Err(unsupported("label arguments")),
                Type::Metadata => {
                    o.next()?;
                    args.push(Value::Metadata);
                }
                _ => args.push(self.value(o, p)?),
            }
        }
        if var_arg {
            while o.left() > 0 {
                args.push(self.value_and_type(o)?.0);
            }
        } else if o.left() > 0 {
            return Err(malformed("call with too many arguments"));
        }
        self.push(InstKind::Call { callee, args }, ret)
    }

    /// Parameter `i` of function type `fty`.
    fn param_type(&self, fty: TypeId, i: usize) -> Res<TypeId> {
        match self.types().get(fty) {
            Type::Function { params, .. } => params.get(i).copied().ok_or_else(|| malformed("parameter")),
            _ => Err(malformed("callee is not a function")),
        }
    }

    fn shuffle_mask(&self, m: Value) -> Res<Vec<i32>> {
        let Value::Const(c) = m else {
            return Err(malformed("shufflevector mask is not a constant"));
        };
        let k = self.rd.m.constants.get(c);
        let len = match self.types().get(k.ty) {
            Type::Vector { len, .. } => *len as usize,
            _ => return Err(malformed("shufflevector mask is not a vector")),
        };
        Ok(match &k.kind {
            ConstKind::Zero => vec![0; len],
            ConstKind::Undef => vec![-1; len],
            ConstKind::Aggregate(e) => e
                .iter()
                .map(|&x| match self.rd.m.constants.get(x).kind {
                    ConstKind::Int(v) => Ok((v & mask(32)) as u32 as i32),
                    ConstKind::Undef => Ok(-1),
                    _ => Err(malformed("shufflevector mask element")),
                })
                .collect::<Res<_>>()?,
            _ => return Err(malformed("shufflevector mask")),
        })
    }
}

fn strongest_failure(o: Ordering) -> Ordering {
    match o {
        Ordering::AcqRel => Ordering::Acquire,
        Ordering::Release => Ordering::Monotonic,
        other => other,
    }
}

/// Read one function body (after [`Entry::SubBlock`]`(12)`) into `fid`.
pub fn read(rd: &mut Reader, cur: &mut Cursor, fid: FuncId) -> Res<()> {
    cur.enter(12)?;
    let base = rd.values.len();
    let f = &rd.m.functions[fid];
    rd.values.extend(f.params.iter().enumerate().map(|(i, p)| Slot::Val(Value::Arg(i as u32), p.ty)));
    // Instruction records take about 64 bits on average (DXC's output: 76 including the
    // constants and names blocks), so this rarely grows and never over-reserves by much.
    let expected_insts = (cur.bits_left_in_block() / 64) as usize;
    rd.values.reserve(expected_insts);
    let body = Body {
        base,
        nblocks: None,
        blocks: PrimaryMap::new(),
        // A block's list grows to the longest block; the results' map to every result.
        current: Vec::with_capacity(expected_insts),
        insts: PrimaryMap::with_capacity(expected_insts),
        inst_of: Vec::with_capacity(expected_insts),
        forward: Vec::new(),
    };
    let mut f = Fn { rd, b: body };
    let mut names = Vec::new();
    loop {
        match cur.advance()? {
            Entry::End => break,
            Entry::SubBlock(11) => super::constants::read(f.rd, cur)?,
            Entry::SubBlock(14) => names.extend(symtab::read(cur)?),
            Entry::SubBlock(_) => cur.skip()?,
            Entry::Record(code) => {
                let ops = std::mem::take(&mut cur.ops);
                let r = f.record(code, &ops);
                cur.ops = ops;
                r?;
            }
        }
    }
    let Fn { rd, b } = f;
    let result = finish(rd, b, fid, names);
    rd.values.truncate(base);
    result
}

fn finish(rd: &mut Reader, mut b: Body, fid: FuncId, names: Vec<Name>) -> Res<()> {
    if b.nblocks != Some(b.blocks.len()) || !b.current.is_empty() {
        return Err(malformed("function body does not end with its last declared block"));
    }
    for &(vid, ty) in &b.forward {
        match rd.values.get(vid as usize) {
            Some(&Slot::Val(Value::Inst(_), t)) if t == ty => {}
            _ => return Err(malformed(format!("forward reference to value {vid} is never defined as used"))),
        }
    }
    let inst_of = &b.inst_of;
    let base = b.base;
    let map = |v: &mut Value| -> Res<()> {
        if let Value::Inst(p) = v {
            let k = p.index().checked_sub(base).ok_or_else(|| malformed("instruction id"))?;
            *v = Value::Inst(inst_of.get(k).copied().flatten().ok_or_else(|| malformed("instruction id"))?);
        }
        Ok(())
    };
    for inst in b.insts.values_mut() {
        for_each_value(&mut inst.kind, map)?;
    }
    for block in b.blocks.values_mut() {
        match &mut block.terminator {
            Terminator::CondBr { cond: v, .. }
            | Terminator::Switch { value: v, .. }
            | Terminator::Ret { value: Some(v) } => map(v)?,
            _ => {}
        }
    }
    let nparams = rd.m.functions[fid].params.len();
    for n in names {
        match n {
            Name::Value(id, name) => {
                let Some(k) = (id as usize).checked_sub(base) else { continue };
                if k < nparams {
                    if let Some(p) = rd.m.functions[fid].params.get_mut(k) {
                        p.name = Some(name);
                    }
                } else if let Some(Some(i)) = b.inst_of.get(k) {
                    b.insts[*i].name = Some(name);
                }
            }
            Name::Block(id, name) => {
                if let Some(block) = b.blocks.get_mut(BlockId::new(id.min(u32::MAX as u64 - 1) as usize)) {
                    block.name = Some(name);
                }
            }
        }
    }
    let func = &mut rd.m.functions[fid];
    func.layout = b.blocks.keys().collect();
    func.blocks = b.blocks;
    func.insts = b.insts;
    Ok(())
}

/// Apply `f` to every value operand of an instruction.
pub fn for_each_value(kind: &mut InstKind, mut f: impl FnMut(&mut Value) -> Res<()>) -> Res<()> {
    use InstKind::*;
    match kind {
        Phi { incoming } => {
            for (v, _) in incoming.iter_mut() {
                f(v)?;
            }
        }
        Binary { lhs, rhs, .. } | ICmp { lhs, rhs, .. } | FCmp { lhs, rhs, .. } => {
            f(lhs)?;
            f(rhs)?;
        }
        FNeg { value } | Cast { value, .. } | Freeze { value } => f(value)?,
        Select { cond, if_true, if_false } => {
            f(cond)?;
            f(if_true)?;
            f(if_false)?;
        }
        ExtractValue { aggregate, .. } => f(aggregate)?,
        InsertValue { aggregate, element, .. } => {
            f(aggregate)?;
            f(element)?;
        }
        ExtractElement { vector, index } => {
            f(vector)?;
            f(index)?;
        }
        InsertElement { vector, element, index } => {
            f(vector)?;
            f(element)?;
            f(index)?;
        }
        ShuffleVector { lhs, rhs, .. } => {
            f(lhs)?;
            f(rhs)?;
        }
        Alloca { count, .. } => f(count)?,
        Load { ptr, .. } => f(ptr)?,
        Store { ptr, value, .. } => {
            f(ptr)?;
            f(value)?;
        }
        GetElementPtr { base, indices, .. } => {
            f(base)?;
            for v in indices.iter_mut() {
                f(v)?;
            }
        }
        AtomicRmw { ptr, value, .. } => {
            f(ptr)?;
            f(value)?;
        }
        CmpXchg { ptr, expected, replacement, .. } => {
            f(ptr)?;
            f(expected)?;
            f(replacement)?;
        }
        Fence { .. } => {}
        Call { callee, args } => {
            f(callee)?;
            for v in args.iter_mut() {
                f(v)?;
            }
        }
        VaArg { list } => f(list)?,
    }
    Ok(())
}
