//! The LLVM rules the emitter relies on, checked on the entry function before anything is
//! emitted:
//!
//! - typing: operands of arithmetic, comparisons, casts, selects, aggregate and vector
//!   accesses, memory accesses and PHIs have the types LLVM's verifier requires, and branch
//!   conditions are `i1`;
//! - addressing: a `getelementptr` (an instruction, or a constant expression an instruction
//!   uses, however deeply nested in other constant expressions) steps into its base's
//!   pointee, every index into a struct is a constant naming one of its members, and its
//!   result points to the type the indices reach. `OpAccessChain` takes the same indices,
//!   and spirv-val refuses a struct index past the last member;
//! - SSA dominance: in a block the entry reaches, every instruction operand is defined in a
//!   block that dominates the use (earlier in the same block), and a PHI's incoming value is
//!   defined in a block that dominates its incoming edge's source (LLVM's "Instruction does
//!   not dominate all uses"). The emitter reuses a value's SPIR-V id wherever the input's
//!   dominance says it is available.
//!
//! The LLVM front end guarantees both for text it parsed, but the native readers take
//! operand types and value numbers from the file, so damaged bitcode could hand the emitter
//! an `fmul` of an `i32`, or an instruction that uses itself, which would become an invalid
//! module or an internal error. A violation is a typed [`Error::Invalid`] naming the
//! function, block and value. Cost: one pass over the instructions plus a dominator tree,
//! O((n + e) log n).
//!
//! A low-level module of `emit` (see its documentation): it imports only `error`
//! and the layers below `emit`; the driver (`translate`) runs it before emission.

use super::error::{Error, Result};
use crate::ir::dump::{block_name, inst_name};
use crate::ir::{
    BinaryOp, BlockId, CastOp, ConstExprOp, ConstId, ConstKind, Function, InstKind, Module, Terminator, Type, TypeId,
    Value,
};
use cranelift_entity::EntityRef;

struct Check<'a> {
    m: &'a Module,
    f: &'a Function,
}

impl Check<'_> {
    fn ty(&self, v: Value) -> Option<TypeId> {
        self.m.value_type(self.f, v)
    }

    fn t(&self, id: TypeId) -> &Type {
        self.m.types.get(id)
    }

    /// The scalar of a scalar or vector type, and the vector length (1 for scalars).
    fn scalar(&self, id: TypeId) -> (TypeId, u32) {
        match self.t(id) {
            Type::Vector { elem, len } => (*elem, *len),
            _ => (id, 1),
        }
    }

    fn is_int(&self, id: TypeId) -> bool {
        matches!(self.t(self.scalar(id).0), Type::Int(_))
    }

    fn is_float(&self, id: TypeId) -> bool {
        matches!(self.t(self.scalar(id).0), Type::Float(_))
    }

    fn is_bool(&self, id: TypeId) -> bool {
        matches!(self.t(self.scalar(id).0), Type::Int(1))
    }

    fn bits(&self, id: TypeId) -> Option<u64> {
        let (s, n) = self.scalar(id);
        let b = match self.t(s) {
            Type::Int(b) => *b as u64,
            Type::Float(k) => k.bits() as u64,
            _ => return None,
        };
        Some(b * n as u64)
    }

    /// The type at `indices` inside aggregate type `t`.
    fn member(&self, mut t: TypeId, indices: &[u32]) -> Option<TypeId> {
        for &k in indices {
            t = match self.t(t) {
                Type::Array { elem, len } => (u64::from(k) < *len).then_some(*elem)?,
                Type::Struct { .. } | Type::Named(_) => *self.m.types.struct_fields(t)?.get(k as usize)?,
                _ => return None,
            };
        }
        Some(t)
    }

    /// Whether a GEP of result type `ty` from `base` (a pointer to `source`) by `indices` is
    /// well formed (`None`: it is): LLVM's typed-pointer rules, which the readers check for
    /// instructions and the bitcode reader does not for constant expressions.
    fn gep(&self, ty: TypeId, source: TypeId, base: Value, indices: &[Value]) -> Option<String> {
        let tname = |t: TypeId| self.m.types.display(t);
        let b = self.ty(base)?;
        if self.m.types.pointee(b) != Some(source) {
            return Some(format!("getelementptr into {} from a base of type {}", tname(source), tname(b)));
        }
        let mut t = source;
        for (k, &ix) in indices.iter().enumerate().skip(1) {
            t = match self.t(t) {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
                Type::Struct { .. } | Type::Named(_) => {
                    let fields = self.m.types.struct_fields(t).unwrap_or(&[]);
                    let n = match ix {
                        Value::Const(c) => self.m.constants.as_int(c),
                        _ => None,
                    };
                    match n.and_then(|n| fields.get(usize::try_from(n).ok()?)) {
                        Some(&field) => field,
                        None => {
                            let what =
                                n.map_or("a non-constant struct index".to_string(), |n| format!("struct index {n}"));
                            return Some(format!(
                                "getelementptr: {what} into {}, a struct of {} members",
                                tname(t),
                                fields.len()
                            ));
                        }
                    }
                }
                _ => return Some(format!("getelementptr: index {k} (from 0) into {}, not an aggregate", tname(t))),
            };
        }
        (self.m.types.pointee(ty) != Some(t))
            .then(|| format!("getelementptr result of type {} for indices reaching {}", tname(ty), tname(t)))
    }

    /// The first malformed GEP among constant `k` and the constant expressions it is built
    /// from (`None`: none). Depth-bounded: the readers build constants bottom-up, so a
    /// cycle cannot occur, and real expressions nest a few levels.
    fn const_geps(&self, k: ConstId, depth: u32) -> Option<String> {
        let c = self.m.constants.get(k);
        let ConstKind::Expr { op, operands, source_ty } = &c.kind else { return None };
        if depth > 16 {
            return Some("constant expressions nested too deeply".into());
        }
        if let (ConstExprOp::GetElementPtr { .. }, Some(&first)) = (op, operands.first()) {
            let base = Value::Const(first);
            let source = source_ty.or_else(|| self.ty(base).and_then(|t| self.m.types.pointee(t)));
            let indices: Vec<Value> = operands[1..].iter().map(|&o| Value::Const(o)).collect();
            let message = match source {
                Some(source) => self.gep(c.ty, source, base, &indices),
                None => Some("constant getelementptr of a non-pointer".into()),
            };
            if let Some(m) = message {
                return Some(format!("constant {m}"));
            }
        }
        operands.iter().find_map(|&o| self.const_geps(o, depth + 1))
    }

    /// Whether instruction `kind` with result type `ty` is well typed (`None`: it is).
    fn inst(&self, ty: TypeId, kind: &InstKind) -> Option<String> {
        let same = |a: Value, t: TypeId| self.ty(a) == Some(t);
        let tname = |t: TypeId| self.m.types.display(t);
        match kind {
            InstKind::Binary { op, lhs, rhs, .. } => {
                let float_op =
                    matches!(op, BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem);
                let class_ok = if float_op { self.is_float(ty) } else { self.is_int(ty) };
                (!(same(*lhs, ty) && same(*rhs, ty) && class_ok))
                    .then(|| format!("`{}` operands must both be of the result type {}", op.name(), tname(ty)))
            }
            InstKind::FNeg { value } => {
                (!(same(*value, ty) && self.is_float(ty))).then(|| "fneg of a non-float".into())
            }
            InstKind::Cast { op, value } => {
                let from = self.ty(*value)?;
                let same_len = self.scalar(from).1 == self.scalar(ty).1;
                let (fb, tb) = (self.bits(from), self.bits(ty));
                let ok = same_len
                    && match op {
                        CastOp::Trunc => self.is_int(from) && self.is_int(ty) && tb < fb,
                        CastOp::ZExt | CastOp::SExt => self.is_int(from) && self.is_int(ty) && tb > fb,
                        CastOp::FPToUI | CastOp::FPToSI => self.is_float(from) && self.is_int(ty),
                        CastOp::UIToFP | CastOp::SIToFP => self.is_int(from) && self.is_float(ty),
                        CastOp::FPTrunc => self.is_float(from) && self.is_float(ty) && tb < fb,
                        CastOp::FPExt => self.is_float(from) && self.is_float(ty) && tb > fb,
                        CastOp::BitCast => {
                            let ptrs = matches!(self.t(from), Type::Pointer { .. })
                                && matches!(self.t(ty), Type::Pointer { .. });
                            ptrs || (fb.is_some() && fb == tb)
                        }
                        CastOp::PtrToInt | CastOp::IntToPtr | CastOp::AddrSpaceCast => true,
                    };
                (!ok).then(|| format!("`{}` from {} to {}", op.name(), tname(from), tname(ty)))
            }
            InstKind::ICmp { lhs, rhs, .. } | InstKind::FCmp { lhs, rhs, .. } => {
                let a = self.ty(*lhs)?;
                let float = matches!(kind, InstKind::FCmp { .. });
                let class_ok =
                    if float { self.is_float(a) } else { self.is_int(a) || matches!(self.t(a), Type::Pointer { .. }) };
                let ok = same(*rhs, a) && class_ok && self.is_bool(ty) && self.scalar(ty).1 == self.scalar(a).1;
                (!ok).then(|| format!("comparison of {} and {}", tname(a), self.ty(*rhs).map_or("?".into(), tname)))
            }
            InstKind::Select { cond, if_true, if_false } => {
                let c = self.ty(*cond)?;
                let ok = self.is_bool(c) && same(*if_true, ty) && same(*if_false, ty);
                (!ok).then(|| format!("select on {} between values of other types than {}", tname(c), tname(ty)))
            }
            InstKind::ExtractValue { aggregate, indices } => {
                let a = self.ty(*aggregate)?;
                (self.member(a, indices) != Some(ty)).then(|| format!("extractvalue {indices:?} of {}", tname(a)))
            }
            InstKind::InsertValue { aggregate, element, indices } => {
                let ok = same(*aggregate, ty) && self.member(ty, indices).is_some_and(|m| same(*element, m));
                (!ok).then(|| format!("insertvalue {indices:?} into {}", tname(ty)))
            }
            InstKind::ExtractElement { vector, index } => {
                let v = self.ty(*vector)?;
                let ok = matches!(self.t(v), Type::Vector { elem, .. } if *elem == ty)
                    && self.ty(*index).is_some_and(|i| matches!(self.t(i), Type::Int(_)));
                (!ok).then(|| format!("extractelement of {}", tname(v)))
            }
            InstKind::InsertElement { vector, element, index } => {
                let ok = same(*vector, ty)
                    && matches!(self.t(ty), Type::Vector { elem, .. } if same(*element, *elem))
                    && self.ty(*index).is_some_and(|i| matches!(self.t(i), Type::Int(_)));
                (!ok).then(|| format!("insertelement into {}", tname(ty)))
            }
            InstKind::ShuffleVector { lhs, rhs, mask } => {
                let a = self.ty(*lhs)?;
                let ok = matches!((self.t(a), self.t(ty)), (Type::Vector { elem: e1, len: n1 }, Type::Vector { elem: e2, len })
                        if e1 == e2 && *len as usize == mask.len() && mask.iter().all(|&k| k < 0 || (k as u32) < 2 * n1))
                    && same(*rhs, a);
                (!ok).then(|| format!("shufflevector of {}", tname(a)))
            }
            InstKind::Load { ptr, .. } => {
                let p = self.ty(*ptr)?;
                (self.m.types.pointee(p) != Some(ty)).then(|| format!("load of {} through {}", tname(ty), tname(p)))
            }
            InstKind::Store { ptr, value, .. } => {
                let p = self.ty(*ptr)?;
                let ok = self.m.types.pointee(p).is_some_and(|t| same(*value, t));
                (!ok).then(|| format!("store through {} of a {}", tname(p), self.ty(*value).map_or("?".into(), tname)))
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                let p = self.ty(*ptr)?;
                let ok = self.m.types.pointee(p) == Some(ty) && same(*value, ty) && self.is_int(ty);
                (!ok).then(|| format!("atomicrmw through {}", tname(p)))
            }
            InstKind::CmpXchg { ptr, expected, replacement, .. } => {
                let p = self.ty(*ptr)?;
                let v = self.m.types.pointee(p)?;
                let ok = same(*expected, v) && same(*replacement, v) && self.member(ty, &[0]) == Some(v);
                (!ok).then(|| format!("cmpxchg through {}", tname(p)))
            }
            InstKind::Phi { incoming } => {
                (!incoming.iter().all(|(v, _)| same(*v, ty))).then(|| "a PHI incoming value of another type".into())
            }
            InstKind::Freeze { value } => (!same(*value, ty)).then(|| "freeze of another type".into()),
            InstKind::GetElementPtr { source, base, indices, .. } => self.gep(ty, *source, *base, indices),
            _ => None,
        }
    }
}

/// Checks every instruction and terminator of `f`: types, then dominance.
pub fn function(m: &Module, f: &Function) -> Result<()> {
    let dom = crate::cfg::Graph::from_function(f).ok().map(|graph| crate::cfg::DomTree::of_graph(&graph));
    function_with_dominators(m, f, dom.as_ref())
}

/// [`function`] with `f`'s dominator tree computed already (`None`: its graph could not be
/// built, a branch out of the layout, which the structurizer reports with its own error).
pub fn function_with_dominators(m: &Module, f: &Function, dom: Option<&crate::cfg::DomTree>) -> Result<()> {
    types(m, f)?;
    match dom {
        Some(dom) => dominance(m, f, dom),
        None => Ok(()),
    }
}

/// Where each instruction of `f` is: its block and its index there.
/// Each instruction's block and index in it, by instruction id (`None`: in no block).
fn positions(f: &Function) -> Vec<Option<(BlockId, usize)>> {
    let mut at = vec![None; f.insts.len()];
    for &b in &f.layout {
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            if let Some(slot) = at.get_mut(i.index()) {
                *slot = Some((b, k));
            }
        }
    }
    at
}

fn dominance(m: &Module, f: &Function, dom: &crate::cfg::DomTree) -> Result<()> {
    let at = positions(f);
    let err = |b: BlockId, value: String, message: String| Error::Invalid {
        function: f.name.clone(),
        block: block_name(f, &m.types, b),
        value,
        message,
    };
    // Whether `v` is available at position `k` of block `b` (`k` = the block's length: at
    // its end, where the terminator and outgoing PHI edges use values). A plain test: the
    // walk below asks it for every operand, and only a failure needs words
    // (`unavailable`).
    let available = |v: Value, b: BlockId, k: usize| -> bool {
        let Value::Inst(d) = v else { return true };
        match at.get(d.index()).copied().flatten() {
            None => false,
            Some((db, dk)) if db == b => dk < k,
            Some((db, _)) => dom.dominates(db, b),
        }
    };
    // Why `v` is not available in block `b`, [`available`] having said so.
    let unavailable = |v: Value, b: BlockId| -> String {
        match v {
            Value::Inst(d) => match at.get(d.index()).copied().flatten() {
                None => "uses a value that is in no block".into(),
                Some((db, _)) if db == b => "uses a value defined at or after it in its block".into(),
                Some((db, _)) => {
                    format!("uses a value of block {}, which does not dominate it", block_name(f, &m.types, db))
                }
            },
            _ => "uses a value that is not available".into(),
        }
    };
    for &b in &f.layout {
        if !dom.contains(b) {
            // LLVM lets unreachable code use anything; the structurizer drops it.
            continue;
        }
        let block = &f.blocks[b];
        for (k, &i) in block.insts.iter().enumerate() {
            let inst = &f.insts[i];
            // The first operand that is not available (and where it is used), without
            // collecting them.
            let mut first: Option<(Value, BlockId)> = None;
            match &inst.kind {
                InstKind::Phi { incoming } => {
                    first = incoming.iter().find_map(|&(v, pred)| {
                        let reached = f.blocks.is_valid(pred) && dom.contains(pred);
                        (reached && !available(v, pred, f.blocks[pred].insts.len())).then_some((v, pred))
                    })
                }
                kind => kind.for_each_operand(|v| {
                    if first.is_none() && !available(v, b, k) {
                        first = Some((v, b));
                    }
                }),
            }
            if let Some((v, used_in)) = first {
                return Err(err(b, inst_name(f, &m.types, i), unavailable(v, used_in)));
            }
        }
        let end = block.insts.len();
        if let Some(&v) = block.terminator.operands().iter().find(|&&v| !available(v, b, end)) {
            return Err(err(b, "the terminator".into(), unavailable(v, b)));
        }
    }
    Ok(())
}

fn types(m: &Module, f: &Function) -> Result<()> {
    let c = Check { m, f };
    for &b in &f.layout {
        let block = &f.blocks[b];
        let err = |value: String, message: String| Error::Invalid {
            function: f.name.clone(),
            block: block_name(f, &m.types, b),
            value,
            message,
        };
        for &i in &block.insts {
            let inst = &f.insts[i];
            // Callees and metadata arguments have no value type to check.
            // Functions and metadata first: their type is a lookup (every call has a callee).
            let mut typed = true;
            let mut geps = None;
            inst.kind.for_each_operand(|v| match v {
                // The one kind of operand whose type can be missing ([`Check::ty`]: an
                // instruction, constant or global always has one; callees and metadata
                // have none to check).
                Value::Arg(a) => typed &= (a as usize) < f.params.len(),
                // Only constant expressions can hold a `getelementptr` (the test here: most
                // operands are plain constants, and the call is not free).
                Value::Const(k) if geps.is_none() => {
                    if matches!(m.constants.get(k).kind, ConstKind::Expr { .. }) {
                        geps = c.const_geps(k, 0);
                    }
                }
                _ => {}
            });
            let message = if typed {
                geps.or_else(|| c.inst(inst.ty, &inst.kind))
            } else {
                Some("an operand without a type".into())
            };
            if let Some(message) = message {
                return Err(err(inst_name(f, &m.types, i), message));
            }
        }
        let cond_ok = match &block.terminator {
            Terminator::CondBr { cond, .. } => c.ty(*cond).is_some_and(|t| *c.t(t) == Type::Int(1)),
            Terminator::Switch { value, .. } => c.ty(*value).is_some_and(|t| matches!(c.t(t), Type::Int(_))),
            _ => true,
        };
        if !cond_ok {
            return Err(err("the terminator".into(), "a branch condition of the wrong type".into()));
        }
    }
    Ok(())
}
