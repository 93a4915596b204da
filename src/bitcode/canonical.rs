//! Canonical numbering: types, constants and metadata values interned in the order the LLVM
//! front end (`crate::llvm`) meets them.
//!
//! Type ids are observable (the IR dump lists named structs in type-id order), so the
//! native reader's module is rebuilt by one walk that visits exactly what the LLVM front end
//! visits, in the same order: global value and pointer types; function, return and
//! parameter types; initializers; in each body, every instruction's type and then its
//! operands in the order the front end converts them (a store's value before its pointer,
//! a GEP's indices before its source type and base, an alloca's type before its count);
//! terminator operands; finally metadata values in metadata-id order. Types and constants
//! not reached are dropped, as they never exist in the front end's module. Types are walked
//! with an explicit stack (named structs first get their id, then their body), so a long
//! chain of struct definitions cannot exhaust the call stack; constants are bounded by
//! [`super::constants::MAX_CONST_DEPTH`].

use crate::ir::*;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

struct Canon<'m> {
    old: &'m Module,
    types: Types,
    tmap: SecondaryMap<TypeId, Option<TypeId>>,
    consts: Constants,
    cmap: SecondaryMap<ConstId, Option<ConstId>>,
    /// Old function id → new (the function list may be reordered, see [`super::upgrade`]).
    fmap: SecondaryMap<FuncId, Option<FuncId>>,
}

fn children(types: &Types, t: TypeId) -> Vec<TypeId> {
    match types.get(t) {
        Type::Pointer { pointee, .. } => vec![*pointee],
        Type::Vector { elem, .. } | Type::Array { elem, .. } => vec![*elem],
        Type::Struct { fields, .. } => fields.clone(),
        Type::Function { ret, params, .. } => std::iter::once(*ret).chain(params.iter().copied()).collect(),
        Type::Named(_) => types.body(t).and_then(|b| b.fields.clone()).unwrap_or_default(),
        _ => Vec::new(),
    }
}

impl Canon<'_> {
    fn mapped(&self, t: TypeId) -> TypeId {
        self.tmap[t].unwrap_or(t)
    }

    fn ty(&mut self, t: TypeId) -> TypeId {
        if let Some(n) = self.tmap[t] {
            return n;
        }
        let mut stack: Vec<(TypeId, Vec<TypeId>, usize)> = Vec::new();
        self.open(t, &mut stack);
        while let Some((cur, kids, next)) = stack.last_mut() {
            if let Some(&k) = kids.get(*next) {
                *next += 1;
                if self.tmap[k].is_none() {
                    self.open(k, &mut stack);
                }
                continue;
            }
            let cur = *cur;
            stack.pop();
            let old = self.old.types.get(cur);
            match old {
                Type::Named(_) => {
                    if let Some(b) = self.old.types.body(cur) {
                        let fields = b.fields.as_ref().map(|f| f.iter().map(|&x| self.mapped(x)).collect());
                        let new = self.mapped(cur);
                        self.types.set_body(new, StructBody { fields, packed: b.packed });
                    }
                }
                other => {
                    let new = match other {
                        Type::Pointer { pointee, addr_space } => {
                            Type::Pointer { pointee: self.mapped(*pointee), addr_space: *addr_space }
                        }
                        Type::Vector { elem, len } => Type::Vector { elem: self.mapped(*elem), len: *len },
                        Type::Array { elem, len } => Type::Array { elem: self.mapped(*elem), len: *len },
                        Type::Struct { fields, packed } => {
                            Type::Struct { fields: fields.iter().map(|&f| self.mapped(f)).collect(), packed: *packed }
                        }
                        Type::Function { ret, params, var_arg } => Type::Function {
                            ret: self.mapped(*ret),
                            params: params.iter().map(|&p| self.mapped(p)).collect(),
                            var_arg: *var_arg,
                        },
                        simple => simple.clone(),
                    };
                    let id = self.types.intern(new);
                    self.tmap[cur] = Some(id);
                }
            }
        }
        self.mapped(t)
    }

    fn open(&mut self, t: TypeId, stack: &mut Vec<(TypeId, Vec<TypeId>, usize)>) {
        if let Type::Named(n) = self.old.types.get(t) {
            let id = self.types.intern(Type::Named(n.clone()));
            self.tmap[t] = Some(id);
        }
        stack.push((t, children(&self.old.types, t), 0));
    }

    fn konst(&mut self, c: ConstId) -> ConstId {
        if let Some(n) = self.cmap[c] {
            return n;
        }
        let old = self.old.constants.get(c);
        let ty = self.ty(old.ty);
        let kind = match &old.kind {
            ConstKind::Aggregate(es) => ConstKind::Aggregate(es.iter().map(|&e| self.konst(e)).collect()),
            ConstKind::Expr { op, operands, source_ty } => {
                let source_ty = source_ty.map(|t| self.ty(t));
                let operands = operands.iter().map(|&o| self.konst(o)).collect();
                ConstKind::Expr { op: *op, operands, source_ty }
            }
            ConstKind::FuncAddr(f) => ConstKind::FuncAddr(self.fmap[*f].unwrap_or(*f)),
            other => other.clone(),
        };
        let id = self.consts.intern(Constant { ty, kind });
        self.cmap[c] = Some(id);
        id
    }

    fn value(&mut self, v: Value) -> Value {
        match v {
            Value::Const(c) => Value::Const(self.konst(c)),
            Value::Func(f) => Value::Func(self.fmap[f].unwrap_or(f)),
            other => other,
        }
    }

    fn kind(&mut self, k: &InstKind) -> InstKind {
        use InstKind::*;
        match k {
            Phi { incoming } => Phi { incoming: incoming.iter().map(|&(v, b)| (self.value(v), b)).collect() },
            Binary { op, lhs, rhs } => {
                let lhs = self.value(*lhs);
                Binary { op: *op, lhs, rhs: self.value(*rhs) }
            }
            FNeg { value } => FNeg { value: self.value(*value) },
            Cast { op, value } => Cast { op: *op, value: self.value(*value) },
            ICmp { pred, lhs, rhs } => {
                let lhs = self.value(*lhs);
                ICmp { pred: *pred, lhs, rhs: self.value(*rhs) }
            }
            FCmp { pred, lhs, rhs } => {
                let lhs = self.value(*lhs);
                FCmp { pred: *pred, lhs, rhs: self.value(*rhs) }
            }
            Select { cond, if_true, if_false } => {
                let cond = self.value(*cond);
                let if_true = self.value(*if_true);
                Select { cond, if_true, if_false: self.value(*if_false) }
            }
            ExtractValue { aggregate, indices } => ExtractValue { aggregate: self.value(*aggregate), indices: indices.clone() },
            InsertValue { aggregate, element, indices } => {
                let aggregate = self.value(*aggregate);
                InsertValue { aggregate, element: self.value(*element), indices: indices.clone() }
            }
            ExtractElement { vector, index } => {
                let vector = self.value(*vector);
                ExtractElement { vector, index: self.value(*index) }
            }
            InsertElement { vector, element, index } => {
                let vector = self.value(*vector);
                let element = self.value(*element);
                InsertElement { vector, element, index: self.value(*index) }
            }
            ShuffleVector { lhs, rhs, mask } => {
                let lhs = self.value(*lhs);
                ShuffleVector { lhs, rhs: self.value(*rhs), mask: mask.clone() }
            }
            Alloca { allocated, count, align } => {
                let allocated = self.ty(*allocated);
                Alloca { allocated, count: self.value(*count), align: *align }
            }
            Load { ptr, align, volatile } => Load { ptr: self.value(*ptr), align: *align, volatile: *volatile },
            Store { ptr, value, align, volatile } => {
                let value = self.value(*value);
                Store { ptr: self.value(*ptr), value, align: *align, volatile: *volatile }
            }
            GetElementPtr { source, base, indices, in_bounds } => {
                let indices = indices.iter().map(|&v| self.value(v)).collect();
                let source = self.ty(*source);
                GetElementPtr { source, base: self.value(*base), indices, in_bounds: *in_bounds }
            }
            AtomicRmw { op, ptr, value, ordering, volatile } => {
                let ptr = self.value(*ptr);
                AtomicRmw { op: *op, ptr, value: self.value(*value), ordering: *ordering, volatile: *volatile }
            }
            CmpXchg { ptr, expected, replacement, success, failure, weak, volatile } => {
                let ptr = self.value(*ptr);
                let expected = self.value(*expected);
                CmpXchg {
                    ptr,
                    expected,
                    replacement: self.value(*replacement),
                    success: *success,
                    failure: *failure,
                    weak: *weak,
                    volatile: *volatile,
                }
            }
            Fence { ordering } => Fence { ordering: *ordering },
            Call { callee, args } => {
                let callee = self.value(*callee);
                Call { callee, args: args.iter().map(|&a| self.value(a)).collect() }
            }
            Freeze { value } => Freeze { value: self.value(*value) },
            VaArg { list } => VaArg { list: self.value(*list) },
        }
    }

    fn terminator(&mut self, t: &Terminator) -> Terminator {
        match t {
            Terminator::Ret { value } => Terminator::Ret { value: value.map(|v| self.value(v)) },
            Terminator::CondBr { cond, if_true, if_false } => {
                Terminator::CondBr { cond: self.value(*cond), if_true: *if_true, if_false: *if_false }
            }
            Terminator::Switch { value, default, cases } => {
                Terminator::Switch { value: self.value(*value), default: *default, cases: cases.clone() }
            }
            other => other.clone(),
        }
    }
}

/// Rebuild `old` with types, constants and metadata values in the LLVM front end's order,
/// and functions in `order` (old ids; every function exactly once).
pub fn canonicalize(old: &Module, order: &[FuncId]) -> Module {
    let mut fmap = SecondaryMap::with_capacity(old.functions.len());
    for (new, &f) in order.iter().enumerate() {
        fmap[f] = Some(FuncId::new(new));
    }
    let mut c = Canon {
        fmap,
        old,
        types: Types::default(),
        tmap: SecondaryMap::with_capacity(old.types.len()),
        consts: Constants::default(),
        cmap: SecondaryMap::with_capacity(old.constants.len()),
    };
    let mut globals = PrimaryMap::with_capacity(old.globals.len());
    for (_, g) in old.globals.iter() {
        let value_ty = c.ty(g.value_ty);
        let ty = c.ty(g.ty);
        globals.push(Global { value_ty, ty, initializer: None, ..g.clone() });
    }
    let mut functions: PrimaryMap<FuncId, Function> = PrimaryMap::with_capacity(old.functions.len());
    for &fid in order {
        let f = &old.functions[fid];
        let ty = c.ty(f.ty);
        let ret = c.ty(f.ret);
        let params = f.params.iter().map(|p| Param { name: p.name.clone(), ty: c.ty(p.ty) }).collect();
        functions.push(Function {
            name: f.name.clone(),
            ty,
            ret,
            params,
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Vec::new(),
        });
    }
    for (gid, g) in old.globals.iter() {
        if let Some(init) = g.initializer {
            globals[gid].initializer = Some(c.konst(init));
        }
    }
    for &fid in order {
        let f = &old.functions[fid];
        if f.is_declaration() {
            continue;
        }
        let mut insts: PrimaryMap<InstId, Inst> = PrimaryMap::with_capacity(f.insts.len());
        let mut blocks: PrimaryMap<BlockId, Block> = PrimaryMap::with_capacity(f.blocks.len());
        // Instruction ids are layout order already (the reader numbers them so).
        let mut staged: Vec<Option<Inst>> = vec![None; f.insts.len()];
        for &b in &f.layout {
            let block = &f.blocks[b];
            for &i in &block.insts {
                let inst = &f.insts[i];
                let ty = c.ty(inst.ty);
                let kind = c.kind(&inst.kind);
                staged[i.index()] = Some(Inst { name: inst.name.clone(), ty, kind });
            }
            let terminator = c.terminator(&block.terminator);
            blocks.push(Block { name: block.name.clone(), insts: block.insts.clone(), terminator });
        }
        for (k, s) in staged.into_iter().enumerate() {
            insts.push(s.unwrap_or_else(|| f.insts[InstId::new(k)].clone()));
        }
        let nf = &mut functions[c.fmap[fid].unwrap_or(fid)];
        nf.layout = f.layout.clone();
        nf.blocks = blocks;
        nf.insts = insts;
    }
    let mut metadata = MetadataTable { nodes: PrimaryMap::with_capacity(old.metadata.nodes.len()), named: old.metadata.named.clone() };
    for (_, node) in old.metadata.nodes.iter() {
        let n = match node {
            Metadata::Value { ty, value } => {
                let ty = c.ty(*ty);
                Metadata::Value { ty, value: c.value(*value) }
            }
            other => other.clone(),
        };
        metadata.nodes.push(n);
    }
    Module {
        source_name: old.source_name.clone(),
        data_layout: old.data_layout.clone(),
        triple: old.triple.clone(),
        types: c.types,
        constants: c.consts,
        globals,
        functions,
        metadata,
    }
}
