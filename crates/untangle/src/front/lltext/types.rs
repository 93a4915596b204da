//! Types (LangRef, "Type System") into the module's interned [`crate::ir::Types`].
//!
//! Named structs (`%T = type { ... }`) are nominal: `Type::Named(T)` is interned when
//! first met and its body set when its definition is parsed, so bodies may refer to any
//! type, themselves included. Numbered structs (`%0 = type { ... }`) have no name in LLVM,
//! and the LLVM front end converts nameless structs into literal ones; so do we, which
//! needs the body at the first reference: such definitions (and non-struct aliases,
//! `%T = type i32`) are parsed on demand, with a cycle check. All type definitions are
//! found by the module prescan ([`super::module`]), so a reference to an undefined type is
//! reported where it is used.
//!
//! Checks are LLVM's (LangRef): integer widths 1 to 2^24-1, non-empty vectors of integers,
//! floats or pointers, no pointers to `void`/`label`/`metadata`/`token`, aggregate
//! elements of sized first-class types, function results that are not `label`/`metadata`.
//! Types our IR cannot represent (`bfloat`, `ppc_fp128`, `x86_mmx`, `x86_amx`, scalable
//! vectors, opaque `ptr`) are errors, as in the LLVM front end. Cost: linear in the tokens
//! of the type; nesting bounded by [`super::parser::MAX_NESTING`].

use super::lexer::Tok;
use super::parser::{PResult, Parser};
use super::tables::TypeDef;
use crate::ir::{FloatKind, StructBody, Type, TypeId};

/// What a definition's `type ...` right-hand side is.
fn is_struct_body(p: &Parser, at: usize) -> bool {
    // `%T = type {` / `type <{` / `type opaque`: tokens at + 3.
    let k = |n: usize| p.toks.get(at + n).map_or(Tok::Eof, |t| t.kind);
    match k(3) {
        Tok::LBrace => true,
        Tok::Less => k(4) == Tok::LBrace,
        Tok::Word => p.text(p.toks[at + 3]) == "opaque",
        _ => false,
    }
}

impl Parser<'_> {
    pub fn intern(&mut self, t: Type) -> TypeId {
        self.m.types.intern(t)
    }

    pub fn pointer_to(&mut self, pointee: TypeId, addr_space: u32) -> TypeId {
        self.intern(Type::Pointer { pointee, addr_space })
    }

    pub fn describe(&self, t: TypeId) -> String {
        self.m.types.display(t)
    }

    /// A full type: a base type followed by any `*`, `addrspace(N)*` and `(params)` suffixes.
    pub fn parse_type(&mut self) -> PResult<TypeId> {
        self.enter()?;
        let start = self.tok();
        let mut t = self.parse_base_type()?;
        loop {
            match self.peek() {
                Tok::Star => {
                    self.check_pointee(t, start)?;
                    self.bump();
                    t = self.pointer_to(t, 0);
                }
                Tok::Word if self.is_word("addrspace") => {
                    self.bump();
                    let space = self.parse_addrspace_number()?;
                    self.check_pointee(t, start)?;
                    self.expect(Tok::Star, "`*` after `addrspace(N)`")?;
                    t = self.pointer_to(t, space);
                }
                Tok::LParen => t = self.parse_function_type(t, start)?,
                _ => break,
            }
        }
        self.leave();
        Ok(t)
    }

    /// `(N)` after `addrspace`.
    pub fn parse_addrspace_number(&mut self) -> PResult<u32> {
        self.expect(Tok::LParen, "`(` after `addrspace`")?;
        let n = self.expect_u32("address space")?;
        self.expect(Tok::RParen, "`)` after the address space")?;
        if n >= 1 << 24 {
            return Err(self.error_here("invalid address space, must be a 24-bit integer"));
        }
        Ok(n)
    }

    fn check_pointee(&self, t: TypeId, at: super::lexer::Token) -> PResult<()> {
        match self.m.types.get(t) {
            Type::Void => Err(self.error_at(at, "pointers to void are invalid - use i8* instead")),
            Type::Label | Type::Metadata | Type::Token => {
                Err(self.error_at(at, format!("pointer to `{}` is invalid", self.describe(t))))
            }
            _ => Ok(()),
        }
    }

    fn parse_function_type(&mut self, ret: TypeId, at: super::lexer::Token) -> PResult<TypeId> {
        if matches!(self.m.types.get(ret), Type::Label | Type::Metadata) {
            return Err(self.error_at(at, format!("invalid function return type `{}`", self.describe(ret))));
        }
        self.expect(Tok::LParen, "`(`")?;
        let mut params = Vec::new();
        let mut var_arg = false;
        if !self.eat(Tok::RParen) {
            loop {
                if self.eat(Tok::DotDotDot) {
                    var_arg = true;
                    self.expect(Tok::RParen, "`)` after `...`")?;
                    break;
                }
                let pt = self.tok();
                let p = self.parse_type()?;
                if matches!(self.m.types.get(p), Type::Void | Type::Function { .. }) {
                    return Err(self.error_at(pt, "invalid type for function argument"));
                }
                if matches!(self.peek(), Tok::LocalVar | Tok::LocalId) {
                    return Err(self.error_here("argument name invalid in function type"));
                }
                params.push(p);
                if self.eat(Tok::RParen) {
                    break;
                }
                self.expect(Tok::Comma, "`,` or `)` in a function type")?;
            }
        }
        Ok(self.intern(Type::Function { ret, params, var_arg }))
    }

    fn parse_base_type(&mut self) -> PResult<TypeId> {
        let t = self.tok();
        match t.kind {
            Tok::Word => {
                let w = self.text(t);
                let ty = match w {
                    "void" => Type::Void,
                    "half" => Type::Float(FloatKind::Half),
                    "float" => Type::Float(FloatKind::Float),
                    "double" => Type::Float(FloatKind::Double),
                    "x86_fp80" => Type::Float(FloatKind::X86Fp80),
                    "fp128" => Type::Float(FloatKind::Fp128),
                    "label" => Type::Label,
                    "metadata" => Type::Metadata,
                    "token" => Type::Token,
                    "bfloat" | "ppc_fp128" | "x86_mmx" | "x86_amx" => {
                        return Err(self.unsupported(t, &format!("type `{w}`")));
                    }
                    "ptr" => return Err(self.unsupported(t, "the opaque pointer type `ptr`")),
                    _ if w.len() > 1 && w.starts_with('i') && w[1..].bytes().all(|b| b.is_ascii_digit()) => {
                        let bits: u64 = w[1..].parse().unwrap_or(u64::MAX);
                        if bits == 0 || bits >= 1 << 24 {
                            return Err(self.error_at(t, "bitwidth for integer type out of range"));
                        }
                        Type::Int(bits as u32)
                    }
                    _ => return Err(self.unexpected("a type")),
                };
                self.bump();
                Ok(self.intern(ty))
            }
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                self.type_reference(t)
            }
            Tok::LBrace => {
                let fields = self.parse_struct_fields()?;
                Ok(self.intern(Type::Struct { fields, packed: false }))
            }
            Tok::Less => {
                if self.peek_at(1) == Tok::LBrace {
                    self.bump();
                    let fields = self.parse_struct_fields()?;
                    self.expect(Tok::Greater, "`>` after a packed struct")?;
                    return Ok(self.intern(Type::Struct { fields, packed: true }));
                }
                self.bump();
                if self.is_word("vscale") {
                    return Err(self.unsupported(self.tok(), "scalable vector type"));
                }
                let len = self.expect_u64("vector length")?;
                self.expect_word("x")?;
                let et = self.tok();
                let elem = self.parse_type()?;
                self.expect(Tok::Greater, "`>` after a vector type")?;
                if len == 0 {
                    return Err(self.error_at(t, "zero element vector is illegal"));
                }
                let len = u32::try_from(len).map_err(|_| self.error_at(t, "size too large for vector"))?;
                if !matches!(self.m.types.get(elem), Type::Int(_) | Type::Float(_) | Type::Pointer { .. }) {
                    return Err(self.error_at(et, "invalid vector element type"));
                }
                Ok(self.intern(Type::Vector { elem, len }))
            }
            Tok::LSquare => {
                self.bump();
                let len = self.expect_u64("array length")?;
                self.expect_word("x")?;
                let et = self.tok();
                let elem = self.parse_type()?;
                self.expect(Tok::RSquare, "`]` after an array type")?;
                if !self.is_element_type(elem) {
                    return Err(self.error_at(et, "invalid array element type"));
                }
                Ok(self.intern(Type::Array { elem, len }))
            }
            _ => Err(self.unexpected("a type")),
        }
    }

    /// `{ T, T, ... }` (the current token is `{`).
    fn parse_struct_fields(&mut self) -> PResult<Vec<TypeId>> {
        self.expect(Tok::LBrace, "`{`")?;
        self.list_until(Tok::RBrace, "`,` or `}` in a struct type", |p| {
            let ft = p.tok();
            let f = p.parse_type()?;
            if !p.is_element_type(f) {
                return Err(p.error_at(ft, "invalid element type for struct"));
            }
            Ok(f)
        })
    }

    /// Valid element of an array or struct (LLVM's `isValidElementType`).
    pub fn is_element_type(&self, t: TypeId) -> bool {
        !matches!(self.m.types.get(t), Type::Void | Type::Label | Type::Metadata | Type::Function { .. } | Type::Token)
    }

    /// `%name` / `%N` used as a type.
    fn type_reference(&mut self, t: super::lexer::Token) -> PResult<TypeId> {
        if t.kind == Tok::LocalVar {
            let name = self.name(t).into_owned();
            match self.types.named.get(&name).cloned() {
                None => Err(self.error_at(t, format!("use of undefined type named '{name}'"))),
                Some(TypeDef::Done(id)) => Ok(id),
                Some(TypeDef::InProgress) => {
                    Err(self
                        .error_at(t, format!("type '%{name}' is defined in terms of itself through a non-struct type")))
                }
                Some(TypeDef::Pending(at)) => {
                    if is_struct_body(self, at) {
                        let id = self.intern(Type::Named(name.clone()));
                        self.types.named.insert(name, TypeDef::Done(id));
                        Ok(id)
                    } else {
                        self.parse_type_definition_at(at)
                    }
                }
            }
        } else {
            let n = self.number(t)?;
            match self.types.numbered.get(&n).cloned() {
                None => Err(self.error_at(t, format!("use of undefined type '%{n}'"))),
                Some(TypeDef::Done(id)) => Ok(id),
                Some(TypeDef::InProgress) => Err(self.unsupported(
                    t,
                    &format!("recursive unnamed type '%{n}' (nameless structs are literal structs in our IR, which cannot refer to themselves)"),
                )),
                Some(TypeDef::Pending(at)) => self.parse_type_definition_at(at),
            }
        }
    }

    /// Parse the definition at token `at` now (on demand), then return to where we were.
    fn parse_type_definition_at(&mut self, at: usize) -> PResult<TypeId> {
        let saved = self.pos;
        self.pos = at;
        let id = self.parse_type_definition()?;
        self.pos = saved;
        Ok(id)
    }

    /// `%name = type ...` or `%N = type ...` at the cursor, once; later calls return the
    /// same type. Leaves the cursor after the definition.
    pub fn parse_type_definition(&mut self) -> PResult<TypeId> {
        let start = self.pos;
        let name_tok = self.bump();
        let key_named = if name_tok.kind == Tok::LocalVar { Some(self.name(name_tok).into_owned()) } else { None };
        let key_num = if name_tok.kind == Tok::LocalId { Some(self.number(name_tok)?) } else { None };
        let state = match (&key_named, key_num) {
            (Some(n), _) => self.types.named.get(n).cloned(),
            (None, Some(n)) => self.types.numbered.get(&n).cloned(),
            _ => None,
        };
        // Already parsed (on demand, or a named struct interned by a reference whose body
        // is still to come): a named struct's body is parsed here exactly once.
        if let Some(&end) = self.types.def_end.get(&start) {
            self.pos = end;
            if let Some(TypeDef::Done(id)) = state {
                return Ok(id);
            }
        }
        self.expect(Tok::Equal, "`=` after a type name")?;
        self.expect_word("type")?;
        let set = |p: &mut Self, d: TypeDef| match (&key_named, key_num) {
            (Some(n), _) => {
                p.types.named.insert(n.clone(), d);
            }
            (None, Some(n)) => {
                p.types.numbered.insert(n, d);
            }
            _ => {}
        };
        let struct_body = is_struct_body(self, start);
        let id = if let (Some(name), true) = (&key_named, struct_body) {
            // Nominal: the name is the type; the body may refer to it.
            let id = match state {
                Some(TypeDef::Done(id)) => id,
                _ => self.intern(Type::Named(name.clone())),
            };
            set(self, TypeDef::Done(id));
            let body = if self.eat_word("opaque") {
                StructBody { fields: None, packed: false }
            } else {
                let packed = self.eat(Tok::Less);
                let fields = self.parse_struct_fields()?;
                if packed {
                    self.expect(Tok::Greater, "`>` after a packed struct")?;
                }
                StructBody { fields: Some(fields), packed }
            };
            self.m.types.set_body(id, body);
            id
        } else {
            set(self, TypeDef::InProgress);
            let id = if self.eat_word("opaque") {
                self.intern(Type::Struct { fields: Vec::new(), packed: false })
            } else {
                let tt = self.tok();
                let id = self.parse_type()?;
                if matches!(self.m.types.get(id), Type::Void | Type::Label | Type::Metadata | Type::Function { .. }) {
                    return Err(self.error_at(tt, format!("invalid type `{}` in a type definition", self.describe(id))));
                }
                id
            };
            set(self, TypeDef::Done(id));
            id
        };
        self.types.def_end.insert(start, self.pos);
        Ok(id)
    }

    /// Whether `t` has a size (LLVM's `isSized`): not void/label/metadata/token/function,
    /// and not an opaque struct or an aggregate containing one.
    pub fn is_sized(&self, t: TypeId) -> bool {
        // Explicit stack: aggregates nest at most MAX_NESTING deep, but named structs can
        // chain through each other's bodies.
        let mut stack = vec![t];
        let mut seen = std::collections::HashSet::new();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            match self.m.types.get(t) {
                Type::Void | Type::Label | Type::Metadata | Type::Token | Type::Function { .. } => return false,
                Type::Array { elem, .. } | Type::Vector { elem, .. } => stack.push(*elem),
                Type::Struct { fields, .. } => stack.extend(fields.iter().copied()),
                Type::Named(_) => match self.m.types.body(t).and_then(|b| b.fields.as_ref()) {
                    Some(fields) => stack.extend(fields.iter().copied()),
                    None => return false,
                },
                _ => {}
            }
        }
        true
    }

    /// Element or field `index` of an aggregate type (arrays and vectors: any index).
    pub fn member_type(&self, t: TypeId, index: u64) -> Option<TypeId> {
        match self.m.types.get(t) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => Some(*elem),
            _ => self.m.types.struct_fields(t).and_then(|f| f.get(usize::try_from(index).ok()?).copied()),
        }
    }

    pub fn is_int_or_int_vector(&self, t: TypeId) -> bool {
        self.m.types.is_int_like(t)
    }

    pub fn is_fp_or_fp_vector(&self, t: TypeId) -> bool {
        self.m.types.is_fp_like(t)
    }

    pub fn is_ptr_or_ptr_vector(&self, t: TypeId) -> bool {
        self.m.types.is_ptr_like(t)
    }

    /// The vector length of `t`, if it is a vector.
    pub fn vector_len(&self, t: TypeId) -> Option<u32> {
        match self.m.types.get(t) {
            Type::Vector { len, .. } => Some(*len),
            _ => None,
        }
    }

    /// Scalar type of `t` (the element of a vector, or `t`).
    pub fn scalar_of(&self, t: TypeId) -> TypeId {
        self.m.types.scalar_of(t)
    }

    /// `i1`, or `<N x i1>` shaped like `t`.
    pub fn bool_like(&mut self, t: TypeId) -> TypeId {
        let i1 = self.intern(Type::Int(1));
        match self.vector_len(t) {
            Some(len) => self.intern(Type::Vector { elem: i1, len }),
            None => i1,
        }
    }

    pub fn int_width(&self, t: TypeId) -> Option<u32> {
        match self.m.types.get(t) {
            Type::Int(w) => Some(*w),
            _ => None,
        }
    }
}
