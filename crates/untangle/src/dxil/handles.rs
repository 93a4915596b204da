//! Which declared resource a `dx.op` call's handle names: handles followed back through
//! `annotateHandle` to `createHandle` / `createHandleFromBinding` (constant operands only)
//! or a library's `createHandleForLib` of a load from the resource's global variable.
//! Cost: one walk over the function's calls, each handle chain at most 64 links.

use super::ResourceClass;
use crate::ir::Value;

/// The UAV range ids that `atomicBinOp` / `atomicCompareExchange` calls of `f` use (32-bit
/// ones; 64-bit atomics use their own 64-bit view, `image64`).
pub fn atomic_uavs(
    m: &crate::ir::Module,
    f: &crate::ir::Function,
    table: &crate::dxil::Resources,
) -> std::collections::BTreeSet<u32> {
    use crate::dxil::DxOp;
    handle_targets(m, f, table, |op, inst| {
        // The opcode first: the type lookup only for the few atomics.
        matches!(op, DxOp::AtomicBinOp | DxOp::AtomicCompareExchange)
            && !matches!(m.types.get(f.insts[inst].ty), crate::ir::Type::Int(64))
    })
    .into_iter()
    .filter(|(class, _)| *class == ResourceClass::Uav)
    .map(|(_, id)| id)
    .collect()
}

/// The global variable a library's resource handle is loaded from (`ptr`: the global, or
/// an element of an array of them, `getelementptr @g, 0, index` as an instruction or a
/// constant expression), and that index.
pub fn library_global(
    m: &crate::ir::Module,
    f: &crate::ir::Function,
    ptr: Value,
) -> Option<(crate::ir::GlobalId, Option<Value>)> {
    use crate::ir::{ConstExprOp, ConstKind, InstKind};
    let global_of = |v: Value| match v {
        Value::Global(g) => Some(g),
        Value::Const(k) => match m.constants.get(k).kind {
            ConstKind::GlobalAddr(g) => Some(g),
            _ => None,
        },
        _ => None,
    };
    if let Some(g) = global_of(ptr) {
        return Some((g, None));
    }
    match ptr {
        Value::Inst(i) => match &f.insts.get(i)?.kind {
            InstKind::GetElementPtr { base, indices, .. } if indices.len() == 2 => {
                Some((global_of(*base)?, Some(indices[1])))
            }
            _ => None,
        },
        Value::Const(k) => match &m.constants.get(k).kind {
            ConstKind::Expr { op: ConstExprOp::GetElementPtr { .. }, operands, .. } if operands.len() == 3 => {
                Some((global_of(Value::Const(operands[0]))?, Some(Value::Const(operands[2]))))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The declared resource (class, range id) handle `v` names, found by following it back
/// through `annotateHandle` to `createHandle` / `createHandleFromBinding` or
/// `createHandleForLib` (its global's resource), with whether its index into the range is a
/// constant (then every evaluation of `v` names the same descriptor, wherever it runs). Heap
/// handles (`createHandleFromHeap`) and handles through PHIs or selects name none: `None`.
pub fn declared_resource(
    m: &crate::ir::Module,
    f: &crate::ir::Function,
    table: &crate::dxil::Resources,
    mut v: Value,
) -> Option<(ResourceClass, u32, bool)> {
    use crate::dxil::{decode_call, DxOp};
    use crate::ir::{ConstKind, InstKind};
    let constant = |a: Option<&Value>| matches!(a, Some(Value::Const(c)) if m.constants.as_int(*c).is_some());
    for _ in 0..64 {
        let Value::Inst(i) = v else { return None };
        let call = decode_call(m, f, i, "").ok()??;
        let int = |k: usize| {
            call.args.get(k).and_then(|a| match a {
                Value::Const(c) => m.constants.as_int(*c),
                _ => None,
            })
        };
        match call.op {
            DxOp::AnnotateHandle => v = *call.args.first()?,
            DxOp::CreateHandle => {
                let fixed = constant(call.args.get(2));
                return Some((ResourceClass::from_index(int(0)?)?, int(1)? as u32, fixed));
            }
            DxOp::CreateHandleFromBinding => {
                let Value::Const(c) = call.args.first()? else { return None };
                let ConstKind::Aggregate(e) = &m.constants.get(*c).kind else { return None };
                let field = |k: usize| e.get(k).and_then(|x| m.constants.as_int(*x));
                let class = ResourceClass::from_index(field(3)?)?;
                let (lower, space) = (field(0)? as u32, field(2)? as u32);
                let fixed = constant(call.args.get(1));
                return table.holding(class, space, lower).map(|r| (class, r.id, fixed));
            }
            DxOp::CreateHandleForLib => {
                let Value::Inst(load) = *call.args.first()? else { return None };
                let InstKind::Load { ptr, .. } = f.insts.get(load)?.kind else { return None };
                let (g, index) = library_global(m, f, ptr)?;
                let fixed = index.is_none() || constant(index.as_ref());
                return table.iter().find(|r| r.global == Some(g)).map(|r| (r.class, r.id, fixed));
            }
            _ => return None,
        }
    }
    None
}

/// The declared resources (class, range id) whose handles reach the first argument of a
/// `dx.op` call of `f` that `wanted(op, call)` selects ([`declared_resource`]). Heap
/// handles (`createHandleFromHeap`) name no declared resource and are skipped.
pub fn handle_targets(
    m: &crate::ir::Module,
    f: &crate::ir::Function,
    table: &crate::dxil::Resources,
    wanted: impl Fn(crate::dxil::DxOp, crate::ir::InstId) -> bool,
) -> std::collections::BTreeSet<(ResourceClass, u32)> {
    use crate::dxil::{decode_call, DxOp};
    use crate::ir::InstKind;
    let mut out = std::collections::BTreeSet::new();
    let resolve = |v: Value| declared_resource(m, f, table, v).map(|(class, id, _)| (class, id));
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let InstKind::Call { args, .. } = &f.insts[i].kind else { continue };
            // The opcode argument first: most calls are not wanted, and a call is decoded
            // (its callee's name included) only if its opcode is. `decode_call` takes the
            // operation from this same argument.
            let opcode = match args.first() {
                Some(Value::Const(c)) => m.constants.as_int(*c).and_then(|n| u32::try_from(n).ok()),
                _ => None,
            };
            if !opcode.and_then(DxOp::from_u32).is_some_and(|op| wanted(op, i)) {
                continue;
            }
            let Ok(Some(call)) = decode_call(m, f, i, "") else { continue };
            if let Some(target) = call.args.first().copied().and_then(resolve) {
                out.insert(target);
            }
        }
    }
    out
}
