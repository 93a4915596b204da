//! Canonical numbering: types, constants and metadata values interned in the order the LLVM
//! front end (`crate::front::llvm`) meets them.
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
//!
//! Cost: the old tables are taken apart and every reached type and constant is moved into
//! the new ones with its children remapped in place, so the pass allocates only the new
//! tables (reserved to the old sizes) and one reusable stack; the id maps are plain vectors.
//! The maps are injective (distinct old entries stay distinct), so each reached entry is
//! interned exactly once.

use crate::ir::*;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

struct Canon {
    /// The old types by id, each taken (left as `Void`) when it is moved to the new table.
    otypes: Vec<(Type, Option<StructBody>)>,
    /// The old constants by id, taken likewise.
    oconsts: Vec<Constant>,
    types: Types,
    tmap: Vec<Option<TypeId>>,
    consts: Constants,
    cmap: Vec<Option<ConstId>>,
    /// Old function id → new (the function list may be reordered, see [`super::upgrade`]).
    fmap: SecondaryMap<FuncId, Option<FuncId>>,
    /// The type walk's stack: (old type, index of its next child), kept between walks.
    stack: Vec<(TypeId, usize)>,
}

/// What a constant leaves behind in the old pool once moved (never read again).
fn taken() -> Constant {
    Constant { ty: TypeId::from_u32(0), kind: ConstKind::Undef }
}

impl Canon {
    fn mapped(&self, t: TypeId) -> TypeId {
        self.tmap[t.index()].unwrap_or(t)
    }

    /// Child `k` of old type `t` in the walk's order (a named struct's children are its
    /// body's fields).
    fn child(&self, t: TypeId, k: usize) -> Option<TypeId> {
        let (ty, body) = &self.otypes[t.index()];
        match ty {
            Type::Pointer { pointee, .. } => (k == 0).then_some(*pointee),
            Type::Vector { elem, .. } | Type::Array { elem, .. } => (k == 0).then_some(*elem),
            Type::Struct { fields, .. } => fields.get(k).copied(),
            Type::Function { ret, params, .. } => {
                if k == 0 {
                    Some(*ret)
                } else {
                    params.get(k - 1).copied()
                }
            }
            Type::Named(_) => body.as_ref().and_then(|b| b.fields.as_ref()).and_then(|f| f.get(k).copied()),
            _ => None,
        }
    }

    /// The new id of old type `t`, moving it (and what it reaches) over on first use.
    #[inline]
    fn ty(&mut self, t: TypeId) -> TypeId {
        self.tmap[t.index()].unwrap_or_else(|| self.walk(t))
    }

    fn walk(&mut self, t: TypeId) -> TypeId {
        let mut stack = std::mem::take(&mut self.stack);
        self.open(t, &mut stack);
        while let Some(&mut (cur, ref mut next)) = stack.last_mut() {
            if let Some(k) = self.child(cur, *next) {
                *next += 1;
                if self.tmap[k.index()].is_none() {
                    self.open(k, &mut stack);
                }
                continue;
            }
            stack.pop();
            self.finish(cur);
        }
        self.stack = stack;
        self.mapped(t)
    }

    /// Start visiting `t`: a named struct gets its new id now, before its body, so that
    /// the body may refer to it.
    fn open(&mut self, t: TypeId, stack: &mut Vec<(TypeId, usize)>) {
        if let Type::Named(n) = &mut self.otypes[t.index()].0 {
            let id = self.types.intern(Type::Named(std::mem::take(n)));
            self.tmap[t.index()] = Some(id);
        }
        stack.push((t, 0));
    }

    /// Move `t` (all its children mapped) into the new table.
    fn finish(&mut self, t: TypeId) {
        let (ty, body) = std::mem::replace(&mut self.otypes[t.index()], (Type::Void, None));
        match ty {
            Type::Named(_) => {
                if let Some(mut b) = body {
                    for f in b.fields.iter_mut().flatten() {
                        *f = self.mapped(*f);
                    }
                    let new = self.mapped(t);
                    self.types.set_body(new, b);
                }
            }
            mut other => {
                match &mut other {
                    Type::Pointer { pointee: x, .. } | Type::Vector { elem: x, .. } | Type::Array { elem: x, .. } => {
                        *x = self.mapped(*x);
                    }
                    Type::Struct { fields, .. } => fields.iter_mut().for_each(|f| *f = self.mapped(*f)),
                    Type::Function { ret, params, .. } => {
                        *ret = self.mapped(*ret);
                        params.iter_mut().for_each(|p| *p = self.mapped(*p));
                    }
                    _ => {}
                }
                let id = self.types.intern(other);
                self.tmap[t.index()] = Some(id);
            }
        }
    }

    /// The new id of old constant `c`, moving it (and its operands) over on first use.
    #[inline]
    fn konst(&mut self, c: ConstId) -> ConstId {
        self.cmap[c.index()].unwrap_or_else(|| self.move_const(c))
    }

    fn move_const(&mut self, c: ConstId) -> ConstId {
        // Constants are acyclic, so `c` is not met again while its operands are mapped.
        let Constant { ty, mut kind } = std::mem::replace(&mut self.oconsts[c.index()], taken());
        let ty = self.ty(ty);
        match &mut kind {
            ConstKind::Aggregate(es) => es.iter_mut().for_each(|e| *e = self.konst(*e)),
            ConstKind::Expr { operands, source_ty, .. } => {
                *source_ty = source_ty.map(|t| self.ty(t));
                operands.iter_mut().for_each(|o| *o = self.konst(*o));
            }
            ConstKind::FuncAddr(f) => *f = self.fmap[*f].unwrap_or(*f),
            _ => {}
        }
        let id = self.consts.intern(Constant { ty, kind });
        self.cmap[c.index()] = Some(id);
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
    let otypes = std::mem::take(&mut m.types).into_entries();
    let oconsts = std::mem::take(&mut m.constants).into_vec();
    let mut fmap = SecondaryMap::with_capacity(m.functions.len());
    for (new, &f) in order.iter().enumerate() {
        fmap[f] = Some(FuncId::new(new));
    }
    let mut types = Types::default();
    types.reserve(otypes.len());
    let mut consts = Constants::default();
    consts.reserve(oconsts.len());
    let mut c = Canon {
        tmap: vec![None; otypes.len()],
        cmap: vec![None; oconsts.len()],
        otypes,
        oconsts,
        fmap,
        types,
        consts,
        stack: Vec::new(),
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
    for (ty, value) in m.metadata.values_mut() {
        *ty = c.ty(*ty);
        *value = c.value(*value);
    }
    m.types = c.types;
    m.constants = c.consts;
    m.functions = functions;
    m
}
