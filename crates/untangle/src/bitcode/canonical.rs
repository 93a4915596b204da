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
    otypes: &'m Types,
    oconsts: &'m Constants,
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
            let old = self.otypes.get(cur);
            match old {
                Type::Named(_) => {
                    if let Some(b) = self.otypes.body(cur) {
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
        if let Type::Named(n) = self.otypes.get(t) {
            let id = self.types.intern(Type::Named(n.clone()));
            self.tmap[t] = Some(id);
        }
        stack.push((t, children(self.otypes, t), 0));
    }

    fn konst(&mut self, c: ConstId) -> ConstId {
        if let Some(n) = self.cmap[c] {
            return n;
        }
        let old = self.oconsts.get(c);
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

    /// Remap an instruction's types and constants in place, in the front end's order.
    fn kind(&mut self, k: &mut InstKind) {
        use InstKind::*;
        let v = |c: &mut Self, x: &mut Value| *x = c.value(*x);
        match k {
            Phi { incoming } => incoming.iter_mut().for_each(|(x, _)| v(self, x)),
            Binary { lhs, rhs, .. }
            | ICmp { lhs, rhs, .. }
            | FCmp { lhs, rhs, .. }
            | ShuffleVector { lhs, rhs, .. } => {
                v(self, lhs);
                v(self, rhs);
            }
            FNeg { value } | Cast { value, .. } | Freeze { value } | VaArg { list: value } => v(self, value),
            Select { cond, if_true, if_false } => {
                v(self, cond);
                v(self, if_true);
                v(self, if_false);
            }
            ExtractValue { aggregate, .. } => v(self, aggregate),
            InsertValue { aggregate, element, .. } => {
                v(self, aggregate);
                v(self, element);
            }
            ExtractElement { vector, index } => {
                v(self, vector);
                v(self, index);
            }
            InsertElement { vector, element, index } => {
                v(self, vector);
                v(self, element);
                v(self, index);
            }
            Alloca { allocated, count, .. } => {
                *allocated = self.ty(*allocated);
                v(self, count);
            }
            Load { ptr, .. } => v(self, ptr),
            Store { ptr, value, .. } => {
                v(self, value);
                v(self, ptr);
            }
            GetElementPtr { source, base, indices, .. } => {
                indices.iter_mut().for_each(|x| v(self, x));
                *source = self.ty(*source);
                v(self, base);
            }
            AtomicRmw { ptr, value, .. } => {
                v(self, ptr);
                v(self, value);
            }
            CmpXchg { ptr, expected, replacement, .. } => {
                v(self, ptr);
                v(self, expected);
                v(self, replacement);
            }
            Fence { .. } => {}
            Call { callee, args } => {
                v(self, callee);
                args.iter_mut().for_each(|x| v(self, x));
            }
        }
    }

    fn terminator(&mut self, t: &mut Terminator) {
        match t {
            Terminator::Ret { value: Some(x) }
            | Terminator::CondBr { cond: x, .. }
            | Terminator::Switch { value: x, .. } => *x = self.value(*x),
            _ => {}
        }
    }
}
/// Rebuild `m` with types, constants and metadata values in the LLVM front end's order,
/// and functions in `order` (old ids; every function exactly once). Bodies, names and
/// metadata are moved and remapped in place, not copied.
pub fn canonicalize(mut m: Module, order: &[FuncId]) -> Module {
    let otypes = std::mem::take(&mut m.types);
    let oconsts = std::mem::take(&mut m.constants);
    let mut fmap = SecondaryMap::with_capacity(m.functions.len());
    for (new, &f) in order.iter().enumerate() {
        fmap[f] = Some(FuncId::new(new));
    }
    let mut c = Canon {
        otypes: &otypes,
        oconsts: &oconsts,
        fmap,
        types: Types::default(),
        tmap: SecondaryMap::with_capacity(otypes.len()),
        consts: Constants::default(),
        cmap: SecondaryMap::with_capacity(oconsts.len()),
    };
    for g in m.globals.values_mut() {
        g.value_ty = c.ty(g.value_ty);
        g.ty = c.ty(g.ty);
    }
    let mut old_functions: Vec<Option<Function>> =
        std::mem::take(&mut m.functions).into_iter().map(|(_, f)| Some(f)).collect();
    let mut functions: PrimaryMap<FuncId, Function> = PrimaryMap::with_capacity(old_functions.len());
    for &fid in order {
        let Some(mut f) = old_functions.get_mut(fid.index()).and_then(Option::take) else { continue };
        f.ty = c.ty(f.ty);
        f.ret = c.ty(f.ret);
        for p in f.params.iter_mut() {
            p.ty = c.ty(p.ty);
        }
        functions.push(f);
    }
    for g in m.globals.values_mut() {
        g.initializer = g.initializer.map(|i| c.konst(i));
    }
    for f in functions.values_mut() {
        let Function { layout, blocks, insts, .. } = f;
        for &b in layout.iter() {
            let block = &mut blocks[b];
            for &i in &block.insts {
                let inst = &mut insts[i];
                inst.ty = c.ty(inst.ty);
                c.kind(&mut inst.kind);
            }
            c.terminator(&mut block.terminator);
        }
    }
    for node in m.metadata.nodes.values_mut() {
        if let Metadata::Value { ty, value } = node {
            *ty = c.ty(*ty);
            *value = c.value(*value);
        }
    }
    m.types = c.types;
    m.constants = c.consts;
    m.functions = functions;
    m
}
