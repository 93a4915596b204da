//! Inlining: a copy of a function with every call to a function that has a body replaced
//! by that body. Libraries keep functions that several entries call (HLSL `export`ed or
//! not inlined by DXC); each entry's module then holds what its entry reaches, and the
//! structurizer and emitter see one function as for any other stage.
//!
//! Algorithm, per call (in layout order, callees' own calls included): the calling block
//! is split after the call (the second half keeps the terminator, and successors' PHIs now
//! name it); the callee's blocks are cloned with fresh block and instruction ids, its
//! arguments replaced by the call's operands and each `ret` by a branch to the second
//! half; the call instruction becomes a PHI of the returned values there (or disappears
//! for `void`). Blocks keep their relative order, cloned blocks right after the caller's
//! block. HLSL has no recursion: a call nested deeper than [`MAX_DEPTH`] is refused.
//!
//! Invariants: the result is SSA (every clone's definitions dominate its uses, as in the
//! callee); no id is reused across copies. Cost: linear in the size of the result.

use crate::ir::hash::HashMap;
use crate::ir::{BlockId, Function, InstId, InstKind, Module, Terminator, Value};
use smallvec::SmallVec;

/// Calls nested deeper than this are treated as recursion.
pub const MAX_DEPTH: usize = 64;

/// Why a function cannot be inlined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InlineError {
    #[error("function `{caller}` calls `{callee}` recursively (or nests calls more than {MAX_DEPTH} deep)")]
    Recursion { caller: String, callee: String },
    #[error("function `{caller}` calls `{callee}` with {given} arguments; it takes {takes}")]
    Arity { caller: String, callee: String, given: usize, takes: usize },
}

/// `f` with every call to a defined function inlined; `None` when it calls none.
pub fn inline_calls(m: &Module, f: &Function) -> Result<Option<Function>, InlineError> {
    let defined = |v: &Value| matches!(v, Value::Func(g) if !m.functions[*g].is_declaration());
    let calls_defined = f
        .layout
        .iter()
        .flat_map(|&b| &f.blocks[b].insts)
        .any(|&i| matches!(&f.insts[i].kind, InstKind::Call { callee, .. } if defined(callee)));
    if !calls_defined {
        return Ok(None);
    }
    let mut out = f.clone();
    // Inlining depth of each block (0: the function's own).
    let mut depth: HashMap<BlockId, usize> = HashMap::default();
    let mut at = 0;
    while at < out.layout.len() {
        let b = out.layout[at];
        let d = depth.get(&b).copied().unwrap_or(0);
        let call_at = out.blocks[b]
            .insts
            .iter()
            .position(|&i| matches!(&out.insts[i].kind, InstKind::Call { callee, .. } if defined(callee)));
        let Some(k) = call_at else {
            at += 1;
            continue;
        };
        let call = out.blocks[b].insts[k];
        let InstKind::Call { callee: Value::Func(g), args } = out.insts[call].kind.clone() else { unreachable!() };
        let callee = &m.functions[g];
        if d >= MAX_DEPTH {
            return Err(InlineError::Recursion { caller: f.name.clone(), callee: callee.name.clone() });
        }
        if args.len() != callee.params.len() {
            return Err(InlineError::Arity {
                caller: f.name.clone(),
                callee: callee.name.clone(),
                given: args.len(),
                takes: callee.params.len(),
            });
        }
        // Split: `b` keeps the instructions before the call, `rest` the ones after it and
        // the terminator.
        let after: Vec<InstId> = out.blocks[b].insts.split_off(k + 1);
        out.blocks[b].insts.pop();
        let terminator = std::mem::replace(&mut out.blocks[b].terminator, Terminator::Unreachable);
        let rest = out.blocks.push(crate::ir::Block {
            name: out.blocks[b].name.as_ref().map(|n| format!("{n}.after.{}", callee.name)),
            insts: after,
            terminator,
        });
        for s in out.blocks[rest].terminator.successors() {
            for &i in &out.blocks[s].insts.clone() {
                if let InstKind::Phi { incoming } = &mut out.insts[i].kind {
                    for (_, p) in incoming.iter_mut() {
                        if *p == b {
                            *p = rest;
                        }
                    }
                }
            }
        }
        // Clone the callee.
        let mut blocks: HashMap<BlockId, BlockId> = HashMap::default();
        for &cb in &callee.layout {
            let nb = out.blocks.push(crate::ir::Block {
                name: callee.blocks[cb].name.as_ref().map(|n| format!("{}.{n}", callee.name)),
                insts: Vec::new(),
                terminator: Terminator::Unreachable,
            });
            blocks.insert(cb, nb);
        }
        let mut insts: HashMap<InstId, InstId> = HashMap::default();
        for &cb in &callee.layout {
            for &ci in &callee.blocks[cb].insts {
                let ni = out.insts.push(callee.insts[ci].clone());
                insts.insert(ci, ni);
            }
        }
        let map_value = |v: Value| match v {
            Value::Inst(i) => insts.get(&i).map_or(v, |&n| Value::Inst(n)),
            Value::Arg(a) => args.get(a as usize).copied().unwrap_or(v),
            _ => v,
        };
        let mut returns: SmallVec<[(Value, BlockId); 4]> = SmallVec::new();
        for &cb in &callee.layout {
            let nb = blocks[&cb];
            let mut list = Vec::with_capacity(callee.blocks[cb].insts.len());
            for &ci in &callee.blocks[cb].insts {
                let ni = insts[&ci];
                map_operands(&mut out.insts[ni].kind, &map_value);
                if let InstKind::Phi { incoming } = &mut out.insts[ni].kind {
                    for (_, p) in incoming.iter_mut() {
                        *p = blocks.get(p).copied().unwrap_or(*p);
                    }
                }
                list.push(ni);
            }
            out.blocks[nb].insts = list;
            out.blocks[nb].terminator = match &callee.blocks[cb].terminator {
                Terminator::Ret { value } => {
                    if let Some(v) = value {
                        returns.push((map_value(*v), nb));
                    }
                    Terminator::Br { target: rest }
                }
                Terminator::Br { target } => Terminator::Br { target: blocks[target] },
                Terminator::CondBr { cond, if_true, if_false } => {
                    Terminator::CondBr { cond: map_value(*cond), if_true: blocks[if_true], if_false: blocks[if_false] }
                }
                Terminator::Switch { value, default, cases } => Terminator::Switch {
                    value: map_value(*value),
                    default: blocks[default],
                    cases: cases.iter().map(|&(k, t)| (k, blocks[&t])).collect(),
                },
                Terminator::Unreachable => Terminator::Unreachable,
            };
        }
        // The call's result: a PHI of the returned values, keeping the call's id.
        // A `void` call is left out of every block.
        if !returns.is_empty() {
            out.insts[call].kind = InstKind::Phi { incoming: returns };
            out.blocks[rest].insts.insert(0, call);
        }
        let entry = callee.layout.first().map(|cb| blocks[cb]);
        out.blocks[b].terminator = match entry {
            Some(e) => Terminator::Br { target: e },
            None => Terminator::Unreachable,
        };
        let cloned: Vec<BlockId> = callee.layout.iter().map(|cb| blocks[cb]).collect();
        for &nb in &cloned {
            depth.insert(nb, d + 1);
        }
        depth.insert(rest, d);
        let tail: Vec<BlockId> = cloned.into_iter().chain(std::iter::once(rest)).collect();
        out.layout.splice(at + 1..at + 1, tail);
        // `b` holds no call now; the clones and `rest` come next.
        at += 1;
    }
    Ok(Some(out))
}

/// Replaces every value operand of `kind` by `f(operand)`.
fn map_operands(kind: &mut InstKind, f: &impl Fn(Value) -> Value) {
    use InstKind::*;
    let m = |v: &mut Value| *v = f(*v);
    match kind {
        Phi { incoming } => incoming.iter_mut().for_each(|(x, _)| m(x)),
        Binary { lhs, rhs, .. } | ICmp { lhs, rhs, .. } | FCmp { lhs, rhs, .. } => {
            m(lhs);
            m(rhs);
        }
        FNeg { value } | Cast { value, .. } | Freeze { value } => m(value),
        Select { cond, if_true, if_false } => [cond, if_true, if_false].into_iter().for_each(m),
        ExtractValue { aggregate, .. } => m(aggregate),
        InsertValue { aggregate, element, .. } => [aggregate, element].into_iter().for_each(m),
        ExtractElement { vector, index } => [vector, index].into_iter().for_each(m),
        InsertElement { vector, element, index } => [vector, element, index].into_iter().for_each(m),
        ShuffleVector { lhs, rhs, .. } => [lhs, rhs].into_iter().for_each(m),
        Alloca { count, .. } => m(count),
        Load { ptr, .. } => m(ptr),
        Store { ptr, value, .. } => [ptr, value].into_iter().for_each(m),
        GetElementPtr { base, indices, .. } => {
            m(base);
            indices.iter_mut().for_each(m);
        }
        AtomicRmw { ptr, value, .. } => [ptr, value].into_iter().for_each(m),
        CmpXchg { ptr, expected, replacement, .. } => [ptr, expected, replacement].into_iter().for_each(m),
        Fence { .. } => {}
        Call { callee, args } => {
            m(callee);
            args.iter_mut().for_each(m);
        }
        VaArg { list } => m(list),
    }
}
