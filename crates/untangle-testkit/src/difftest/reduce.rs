//! Test-case reduction for differential mismatches (issue 20, triage): a program whose
//! translation disagrees with the interpreter is shrunk while a predicate (normally "the
//! device still differs from the interpreter on this input") keeps holding.
//!
//! Works on untangle's IR of any single-function DXIL module (generated programs and corpus
//! shaders alike); every candidate is a valid module (SSA dominance is kept):
//!
//! 1. **statements**: effects (`store`, side-effecting `dx.op` calls such as buffer stores
//!    and barriers) are deleted, in chunks halving down to single instructions (ddmin,
//!    Zeller and Hildebrandt, "Simplifying and isolating failure-inducing input", 2002);
//! 2. **control flow**: each conditional branch or switch becomes a branch to one of its
//!    targets; blocks no longer reachable are removed and PHIs lose their dead edges;
//! 3. **expressions**: each integer or float instruction's uses are replaced by one of its
//!    operands of the same type (never for PHIs: an incoming value need not dominate the
//!    PHI's uses), or by the constants 0 and 1.
//!
//! After every change dead instructions (no uses, no side effects) are removed. Passes
//! repeat until none makes progress or the test budget is spent. Cost: each test is one
//! predicate call (a translation, an interpreter run and a device dispatch for the
//! differential predicate); the number of tests is at most `budget`.

use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use untangle::dxil::DxOp;
use untangle::ir::{
    BlockId, ConstKind, Constant, FloatKind, FuncId, Function, InstId, InstKind, Module, Terminator, Type, TypeId,
    Value,
};

/// What the reduction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Predicate calls.
    pub tests: usize,
    /// Instructions (terminators excluded) in layout blocks before and after.
    pub insts_before: usize,
    pub insts_after: usize,
    pub blocks_before: usize,
    pub blocks_after: usize,
}

fn entry_function(m: &Module) -> Option<FuncId> {
    let mut defined = m.defined_functions();
    let first = defined.next().map(|(id, _)| id);
    if defined.next().is_some() {
        return None;
    }
    first
}

fn size(f: &Function) -> (usize, usize) {
    (f.layout.iter().map(|&b| f.blocks[b].insts.len()).sum(), f.layout.len())
}

/// Every value operand of an instruction, mutably.
fn operands_mut(kind: &mut InstKind) -> SmallVec<[&mut Value; 4]> {
    use InstKind::*;
    let mut v: SmallVec<[&mut Value; 4]> = SmallVec::new();
    match kind {
        Phi { incoming } => v.extend(incoming.iter_mut().map(|(x, _)| x)),
        Binary { lhs, rhs, .. } | ICmp { lhs, rhs, .. } | FCmp { lhs, rhs, .. } => {
            v.push(lhs);
            v.push(rhs);
        }
        FNeg { value } | Cast { value, .. } | Freeze { value } => v.push(value),
        Select { cond, if_true, if_false } => v.extend([cond, if_true, if_false]),
        ExtractValue { aggregate, .. } => v.push(aggregate),
        InsertValue { aggregate, element, .. } => v.extend([aggregate, element]),
        ExtractElement { vector, index } => v.extend([vector, index]),
        InsertElement { vector, element, index } => v.extend([vector, element, index]),
        ShuffleVector { lhs, rhs, .. } => v.extend([lhs, rhs]),
        Alloca { count, .. } => v.push(count),
        Load { ptr, .. } => v.push(ptr),
        Store { ptr, value, .. } => v.extend([ptr, value]),
        GetElementPtr { base, indices, .. } => {
            v.push(base);
            v.extend(indices.iter_mut());
        }
        AtomicRmw { ptr, value, .. } => v.extend([ptr, value]),
        CmpXchg { ptr, expected, replacement, .. } => v.extend([ptr, expected, replacement]),
        Fence { .. } => {}
        Call { args, .. } => v.extend(args.iter_mut()),
        VaArg { list } => v.push(list),
    }
    v
}

fn terminator_operands_mut(t: &mut Terminator) -> SmallVec<[&mut Value; 1]> {
    match t {
        Terminator::CondBr { cond, .. } => smallvec::smallvec![cond],
        Terminator::Switch { value, .. } => smallvec::smallvec![value],
        Terminator::Ret { value: Some(v) } => smallvec::smallvec![v],
        _ => SmallVec::new(),
    }
}

/// Replaces every use of `from` in the function's layout blocks by `to`.
fn replace_uses(f: &mut Function, from: Value, to: Value) {
    let layout = f.layout.clone();
    for b in layout {
        for k in 0..f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[k];
            for op in operands_mut(&mut f.insts[i].kind) {
                if *op == from {
                    *op = to;
                }
            }
        }
        for op in terminator_operands_mut(&mut f.blocks[b].terminator) {
            if *op == from {
                *op = to;
            }
        }
    }
}

/// Whether an instruction must stay even when its result is unused.
fn has_effect(m: &Module, f: &Function, i: InstId) -> bool {
    match &f.insts[i].kind {
        InstKind::Store { .. } | InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } | InstKind::Fence { .. } => true,
        InstKind::Call { callee: Value::Func(c), args } => {
            let name = &m.functions[*c].name;
            if !name.starts_with("dx.op.") {
                return !name.starts_with("llvm.lifetime") && !name.starts_with("llvm.dbg");
            }
            let op = match args.first() {
                Some(Value::Const(k)) => m.constants.as_int(*k).and_then(|n| DxOp::from_u32(n as u32)),
                _ => None,
            };
            op.is_none_or(DxOp::has_side_effects)
        }
        InstKind::Call { .. } | InstKind::VaArg { .. } => true,
        _ => false,
    }
}

/// Removes blocks unreachable from the entry, PHI entries of edges that no longer exist,
/// and instructions without uses or effects (to a fixpoint).
pub fn cleanup(m: &Module, f: &mut Function) {
    let Some(entry) = f.entry() else { return };
    let mut reached = HashSet::from([entry]);
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        for s in f.blocks[b].terminator.successors() {
            if reached.insert(s) {
                stack.push(s);
            }
        }
    }
    f.layout.retain(|b| reached.contains(b));
    let mut preds: HashMap<BlockId, HashSet<BlockId>> = HashMap::new();
    for &b in &f.layout {
        for s in f.blocks[b].terminator.successors() {
            preds.entry(s).or_default().insert(b);
        }
    }
    for b in f.layout.clone() {
        let ps = preds.get(&b).cloned().unwrap_or_default();
        for k in 0..f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[k];
            if let InstKind::Phi { incoming } = &mut f.insts[i].kind {
                incoming.retain(|(_, p)| ps.contains(p));
            }
        }
    }
    loop {
        let mut used: HashSet<InstId> = HashSet::new();
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                for v in f.insts[i].kind.operands() {
                    if let Value::Inst(x) = v {
                        used.insert(x);
                    }
                }
            }
            for v in f.blocks[b].terminator.operands() {
                if let Value::Inst(x) = v {
                    used.insert(x);
                }
            }
        }
        let mut removed = false;
        for b in f.layout.clone() {
            let before = f.blocks[b].insts.len();
            let keep: Vec<InstId> =
                f.blocks[b].insts.iter().copied().filter(|&i| used.contains(&i) || has_effect(m, f, i)).collect();
            removed |= keep.len() != before;
            f.blocks[b].insts = keep;
        }
        if !removed {
            break;
        }
    }
}

/// The reducer's state: the best module so far and the predicate.
struct Reducer<'p, P: FnMut(&Module) -> bool> {
    best: Module,
    func: FuncId,
    keep: &'p mut P,
    tests: usize,
    budget: usize,
}

impl<P: FnMut(&Module) -> bool> Reducer<'_, P> {
    /// Applies `change` to a copy of the best module; keeps it if the predicate holds.
    fn attempt(&mut self, change: impl FnOnce(&mut Module, FuncId) -> bool) -> bool {
        if self.tests >= self.budget {
            return false;
        }
        let mut m = self.best.clone();
        if !change(&mut m, self.func) {
            return false;
        }
        let mut f = std::mem::replace(&mut m.functions[self.func], placeholder(&self.best, self.func));
        cleanup(&m, &mut f);
        m.functions[self.func] = f;
        if m.functions[self.func] == self.best.functions[self.func] {
            return false;
        }
        self.tests += 1;
        if (self.keep)(&m) {
            self.best = m;
            true
        } else {
            false
        }
    }

    fn func(&self) -> &Function {
        &self.best.functions[self.func]
    }

    /// Deletes effect instructions, ddmin-style.
    fn statements(&mut self) -> bool {
        let f = self.func();
        let cands: Vec<InstId> = f
            .layout
            .iter()
            .flat_map(|&b| f.blocks[b].insts.iter().copied())
            .filter(|&i| has_effect(&self.best, f, i))
            .collect();
        let mut progress = false;
        let mut gone: HashSet<InstId> = HashSet::new();
        let mut chunk = cands.len().div_ceil(2).max(1);
        loop {
            let mut start = 0;
            while start < cands.len() {
                let set: HashSet<InstId> = cands[start..(start + chunk).min(cands.len())]
                    .iter()
                    .copied()
                    .filter(|i| !gone.contains(i))
                    .collect();
                start += chunk;
                if set.is_empty() {
                    continue;
                }
                let ok = self.attempt(|m, fid| {
                    let f = &mut m.functions[fid];
                    for b in f.layout.clone() {
                        f.blocks[b].insts.retain(|i| !set.contains(i));
                    }
                    true
                });
                if ok {
                    gone.extend(set);
                    progress = true;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        progress
    }

    /// Replaces conditional branches and switches by one of their targets.
    fn control_flow(&mut self) -> bool {
        let mut progress = false;
        let blocks: Vec<BlockId> = self.func().layout.clone();
        for b in blocks {
            let targets: Vec<BlockId> = match &self.func().blocks.get(b).map(|x| &x.terminator) {
                Some(t @ (Terminator::CondBr { .. } | Terminator::Switch { .. })) => t.successors().to_vec(),
                _ => continue,
            };
            let mut seen = HashSet::new();
            for target in targets.into_iter().rev() {
                if !seen.insert(target) {
                    continue;
                }
                if self.attempt(|m, fid| {
                    let f = &mut m.functions[fid];
                    if !f.layout.contains(&b) {
                        return false;
                    }
                    f.blocks[b].terminator = Terminator::Br { target };
                    true
                }) {
                    progress = true;
                    break;
                }
            }
        }
        progress
    }

    /// Replaces values by an operand of the same type or by 0 or 1.
    fn expressions(&mut self) -> bool {
        #[derive(Clone, Copy, PartialEq)]
        enum Repl {
            Val(Value),
            Const(u64),
        }
        let mut progress = false;
        let f = self.func();
        let insts: Vec<InstId> = f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter().copied()).collect();
        for i in insts {
            let f = self.func();
            if !f.layout.iter().any(|&b| f.blocks[b].insts.contains(&i)) {
                continue;
            }
            let ty = f.insts[i].ty;
            let t = self.best.types.get(ty).clone();
            if !matches!(t, Type::Int(_) | Type::Float(_)) {
                continue;
            }
            let mut cands: Vec<Repl> = Vec::new();
            if !f.insts[i].kind.is_phi() {
                for v in f.insts[i].kind.operands() {
                    if value_ty(&self.best, f, v) == Some(ty) && !cands.contains(&Repl::Val(v)) {
                        cands.push(Repl::Val(v));
                    }
                }
            }
            // An instruction of constants folded to a constant would only trade one
            // constant for another: try constants only where some operand is not one.
            if !f.insts[i].kind.operands().iter().all(|v| matches!(v, Value::Const(_))) {
                cands.extend([Repl::Const(0), Repl::Const(1)]);
            }
            for c in cands {
                let t = t.clone();
                if self.attempt(|m, fid| {
                    let to = match c {
                        Repl::Val(v) => v,
                        Repl::Const(n) => {
                            let kind = match t {
                                Type::Float(_) => ConstKind::Float(float_bits(&t, n as f64)),
                                _ => ConstKind::Int(n),
                            };
                            Value::Const(m.constants.intern(Constant { ty, kind }))
                        }
                    };
                    replace_uses(&mut m.functions[fid], Value::Inst(i), to);
                    true
                }) {
                    progress = true;
                    break;
                }
            }
        }
        progress
    }
}

fn float_bits(t: &Type, x: f64) -> u64 {
    match t {
        Type::Float(FloatKind::Half) => half::f16::from_f64(x).to_bits() as u64,
        Type::Float(FloatKind::Float) => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

fn value_ty(m: &Module, f: &Function, v: Value) -> Option<TypeId> {
    match v {
        Value::Inst(i) => Some(f.insts[i].ty),
        Value::Const(c) => Some(m.constants.get(c).ty),
        Value::Arg(a) => f.params.get(a as usize).map(|p| p.ty),
        _ => None,
    }
}

fn placeholder(m: &Module, id: FuncId) -> Function {
    let f = &m.functions[id];
    Function {
        name: String::new(),
        ty: f.ty,
        ret: f.ret,
        params: Vec::new(),
        blocks: Default::default(),
        insts: Default::default(),
        layout: Vec::new(),
    }
}

/// Shrinks `m` while `keep` holds (`keep(m)` must hold on entry: it is not re-checked),
/// calling `keep` at most `budget` times. Modules with more than one defined function are
/// returned as they are.
pub fn reduce(m: &Module, mut keep: impl FnMut(&Module) -> bool, budget: usize) -> (Module, Stats) {
    let Some(func) = entry_function(m) else { return (m.clone(), Stats::default()) };
    let (insts_before, blocks_before) = size(&m.functions[func]);
    let mut r = Reducer { best: m.clone(), func, keep: &mut keep, tests: 0, budget };
    loop {
        let mut progress = r.statements();
        progress |= r.control_flow();
        progress |= r.expressions();
        if !progress || r.tests >= r.budget {
            break;
        }
    }
    let (insts_after, blocks_after) = size(&r.best.functions[func]);
    let stats = Stats { tests: r.tests, insts_before, insts_after, blocks_before, blocks_after };
    (r.best, stats)
}
