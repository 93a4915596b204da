//! Constants (LangRef, "Constants": simple constants, aggregates, constant expressions)
//! into the module's interned [`crate::ir::Constants`].
//!
//! The LLVM front end sees constants after LLVM's constant factories have built them, and
//! those canonicalize: an aggregate of nulls is `zeroinitializer`, of `undef`s is `undef`,
//! of `poison`s is `poison`; integer literals are truncated to their type; casts and GEPs
//! fold where LLVM 14's `ConstantFold*` functions fold them. We apply the same rules
//! (LangRef plus the documented behaviour of `ConstantExpr::get*`), limited to what can
//! change our IR: casts of null/undef/poison, of integers and of casts; bitcasts to a
//! pointer to a first element (which LLVM turns into an all-zero `getelementptr inbounds`);
//! GEPs without indices, with one zero index, on null, and the `inbounds` LLVM infers
//! for in-range indices into a global variable; integer arithmetic, comparisons and
//! `select` on constant operands. Text printed by LLVM is already at this fixed point.
//!
//! A constant operand that is a global or function (after folding) is the global itself
//! ([`crate::ir::ConstKind::GlobalAddr`] here, [`crate::ir::Value::Global`] once it is an
//! operand), as in the LLVM front end. Global references are checked against the
//! global's type when the module is complete ([`super::module`]).
//!
//! Cost: linear in the constant's tokens (each fold is constant work or linear in the
//! operands); nesting bounded by [`super::parser::MAX_NESTING`].

use super::lexer::{Tok, Token};
use super::parser::{PResult, Parser};
use crate::ir::{
    BinaryOp, CastOp, ConstExprOp, ConstId, ConstKind, Constant, FloatKind, IntPredicate, Type, TypeId, Value,
};

/// The opcode words of casts.
pub fn cast_op(w: &str) -> Option<CastOp> {
    use CastOp::*;
    Some(match w {
        "trunc" => Trunc,
        "zext" => ZExt,
        "sext" => SExt,
        "fptoui" => FPToUI,
        "fptosi" => FPToSI,
        "uitofp" => UIToFP,
        "sitofp" => SIToFP,
        "fptrunc" => FPTrunc,
        "fpext" => FPExt,
        "ptrtoint" => PtrToInt,
        "inttoptr" => IntToPtr,
        "bitcast" => BitCast,
        "addrspacecast" => AddrSpaceCast,
        _ => return None,
    })
}

/// The opcode words of binary operators.
pub fn binary_op(w: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match w {
        "add" => Add,
        "sub" => Sub,
        "mul" => Mul,
        "udiv" => UDiv,
        "sdiv" => SDiv,
        "urem" => URem,
        "srem" => SRem,
        "shl" => Shl,
        "lshr" => LShr,
        "ashr" => AShr,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        "fadd" => FAdd,
        "fsub" => FSub,
        "fmul" => FMul,
        "fdiv" => FDiv,
        "frem" => FRem,
        _ => return None,
    })
}

pub fn int_predicate(w: &str) -> Option<IntPredicate> {
    use IntPredicate::*;
    Some(match w {
        "eq" => Eq,
        "ne" => Ne,
        "ugt" => Ugt,
        "uge" => Uge,
        "ult" => Ult,
        "ule" => Ule,
        "sgt" => Sgt,
        "sge" => Sge,
        "slt" => Slt,
        "sle" => Sle,
        _ => return None,
    })
}

pub fn float_predicate(w: &str) -> Option<crate::ir::FloatPredicate> {
    use crate::ir::FloatPredicate::*;
    Some(match w {
        "false" => False,
        "oeq" => Oeq,
        "ogt" => Ogt,
        "oge" => Oge,
        "olt" => Olt,
        "ole" => Ole,
        "one" => One,
        "ord" => Ord,
        "uno" => Uno,
        "ueq" => Ueq,
        "ugt" => Ugt,
        "uge" => Uge,
        "ult" => Ult,
        "ule" => Ule,
        "une" => Une,
        "true" => True,
        _ => return None,
    })
}

/// Wrap/exact flags of binary operators (not kept, as in the LLVM front end).
pub fn skip_wrap_flags(p: &mut Parser) {
    while p.is_word("nuw") || p.is_word("nsw") || p.is_word("exact") {
        p.bump();
    }
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

fn sign_extend(v: u128, bits: u32) -> i128 {
    if bits >= 128 {
        v as i128
    } else {
        ((v << (128 - bits)) as i128) >> (128 - bits)
    }
}

/// Widest integer constant we read (LLVM has arbitrary precision; the LLVM front end keeps
/// integers over 64 bits as printed text, which we produce up to this width).
const MAX_INT_CONST_BITS: u32 = 128;

impl Parser<'_> {
    pub fn konst(&mut self, ty: TypeId, kind: ConstKind) -> ConstId {
        self.m.constants.intern(Constant { ty, kind })
    }

    fn kind_of(&self, c: ConstId) -> &ConstKind {
        &self.m.constants.get(c).kind
    }

    fn type_of_const(&self, c: ConstId) -> TypeId {
        self.m.constants.get(c).ty
    }

    /// An integer constant of type `ty` (any width up to 128), from its value modulo 2^128.
    pub fn int_const(&mut self, ty: TypeId, value: u128) -> ConstId {
        let bits = self.int_width(ty).unwrap_or(64);
        let v = value & mask(bits);
        let kind = if bits <= 64 {
            ConstKind::Int(v as u64)
        } else {
            ConstKind::Opaque(format!("i{bits} {}", sign_extend(v, bits)))
        };
        self.konst(ty, kind)
    }

    /// The value of an integer constant, zero-extended, and its width.
    fn int_value(&self, c: ConstId) -> Option<(u128, u32)> {
        let bits = self.int_width(self.type_of_const(c))?;
        match self.kind_of(c) {
            ConstKind::Int(v) => Some((*v as u128, bits)),
            ConstKind::Opaque(s) => {
                let n: i128 = s.rsplit(' ').next()?.parse().ok()?;
                Some((n as u128 & mask(bits), bits))
            }
            _ => None,
        }
    }

    /// LLVM's `Constant::isNullValue`: integer 0, +0.0, null, `zeroinitializer`, `none`.
    pub fn is_null_const(&self, c: ConstId) -> bool {
        match self.kind_of(c) {
            ConstKind::Int(0) | ConstKind::Null | ConstKind::Zero => true,
            ConstKind::Float(bits) => *bits == 0,
            ConstKind::Opaque(s) => {
                s == "token none"
                    || self.int_value(c).is_some_and(|(v, _)| v == 0)
                    || s.strip_prefix("x86_fp80 0xK")
                        .or_else(|| s.strip_prefix("fp128 0xL"))
                        .is_some_and(|h| h.bytes().all(|b| b == b'0'))
            }
            _ => false,
        }
    }

    fn is_undef_const(&self, c: ConstId) -> bool {
        matches!(self.kind_of(c), ConstKind::Undef | ConstKind::Poison)
    }

    /// LLVM's `Constant::getNullValue`.
    pub fn null_value(&mut self, ty: TypeId, at: Token) -> PResult<ConstId> {
        let kind = match self.m.types.get(ty) {
            Type::Int(bits) if *bits > 64 => return Ok(self.int_const(ty, 0)),
            Type::Int(_) => ConstKind::Int(0),
            Type::Float(FloatKind::X86Fp80) => ConstKind::Opaque("x86_fp80 0xK00000000000000000000".into()),
            Type::Float(FloatKind::Fp128) => ConstKind::Opaque("fp128 0xL00000000000000000000000000000000".into()),
            Type::Float(_) => ConstKind::Float(0),
            Type::Pointer { .. } => ConstKind::Null,
            Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. } | Type::Named(_) => ConstKind::Zero,
            Type::Token => ConstKind::Opaque("token none".into()),
            _ => return Err(self.error_at(at, format!("invalid type `{}` for null constant", self.describe(ty)))),
        };
        Ok(self.konst(ty, kind))
    }

    /// `type value`, a constant.
    pub fn parse_typed_const(&mut self) -> PResult<ConstId> {
        let ty = self.parse_type()?;
        self.parse_const(ty)
    }

    /// A constant of type `ty` (already parsed).
    pub fn parse_const(&mut self, ty: TypeId) -> PResult<ConstId> {
        self.enter()?;
        let r = self.parse_const_inner(ty);
        self.leave();
        r
    }

    fn parse_const_inner(&mut self, ty: TypeId) -> PResult<ConstId> {
        let t = self.tok();
        match t.kind {
            Tok::Integer | Tok::HexInteger => {
                self.bump();
                if self.int_width(ty).is_none() {
                    return Err(self
                        .error_at(t, format!("integer constant must have integer type, not `{}`", self.describe(ty))));
                }
                let v = self.integer_literal(t)?;
                self.check_int_width(ty, t)?;
                Ok(self.int_const(ty, v))
            }
            Tok::Float | Tok::HexFloat => {
                self.bump();
                self.float_literal(t, ty)
            }
            Tok::GlobalVar | Tok::GlobalId => {
                self.bump();
                self.global_const(t, ty)
            }
            Tok::LocalVar | Tok::LocalId => Err(self.error_at(t, "local value in a constant")),
            Tok::LBrace => {
                self.bump();
                let elems = self.const_list(Tok::RBrace, "`}`")?;
                self.struct_const(ty, elems, false, t)
            }
            Tok::Less if self.peek_at(1) == Tok::LBrace => {
                self.bump();
                self.bump();
                let elems = self.const_list(Tok::RBrace, "`}`")?;
                self.expect(Tok::Greater, "`>` after a packed struct constant")?;
                self.struct_const(ty, elems, true, t)
            }
            Tok::LSquare => {
                self.bump();
                let elems = self.const_list(Tok::RSquare, "`]`")?;
                match self.m.types.get(ty) {
                    Type::Array { elem, len } if *len == elems.len() as u64 => {
                        let elem = *elem;
                        self.check_elements(&elems, |_| elem)?;
                        Ok(self.aggregate(ty, elems.into_iter().map(|e| e.0).collect(), false))
                    }
                    _ => Err(self.error_at(t, format!("array constant does not match type `{}`", self.describe(ty)))),
                }
            }
            Tok::Less => {
                self.bump();
                let elems = self.const_list(Tok::Greater, "`>`")?;
                match self.m.types.get(ty) {
                    Type::Vector { elem, len } if *len as usize == elems.len() => {
                        let elem = *elem;
                        self.check_elements(&elems, |_| elem)?;
                        Ok(self.aggregate(ty, elems.into_iter().map(|e| e.0).collect(), false))
                    }
                    _ => Err(self.error_at(t, format!("vector constant does not match type `{}`", self.describe(ty)))),
                }
            }
            Tok::Word => self.word_const(t, ty),
            _ => Err(self.unexpected("a constant")),
        }
    }

    fn check_int_width(&self, ty: TypeId, t: Token) -> PResult<()> {
        match self.int_width(ty) {
            Some(b) if b > MAX_INT_CONST_BITS => {
                Err(self.unsupported(t, &format!("an integer constant wider than {MAX_INT_CONST_BITS} bits")))
            }
            _ => Ok(()),
        }
    }

    /// The value of an integer token modulo 2^128 (LLVM truncates or extends literals to
    /// the type: `i8 300` is 44, `i32 s0xF` is -1).
    pub fn integer_literal(&self, t: Token) -> PResult<u128> {
        let s = self.text(t);
        if t.kind == Tok::HexInteger {
            let signed = s.starts_with('s');
            let digits = &s[3..];
            let mut v: u128 = 0;
            for d in digits.bytes() {
                v = v.wrapping_mul(16).wrapping_add((d as char).to_digit(16).unwrap_or(0) as u128);
            }
            let bits = (digits.len() as u32).saturating_mul(4);
            if signed && bits < 128 && bits > 0 && (v >> (bits - 1)) & 1 == 1 {
                v |= !mask(bits);
            }
            return Ok(v);
        }
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s),
        };
        let mut v: u128 = 0;
        for d in digits.bytes() {
            v = v.wrapping_mul(10).wrapping_add((d - b'0') as u128);
        }
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    /// A floating-point literal of type `ty`, with LLVM's rules: decimal and `0x` literals
    /// are doubles that must convert exactly to `ty`; `0xH` is half only, `0xK` x86_fp80,
    /// `0xL` fp128.
    fn float_literal(&mut self, t: Token, ty: TypeId) -> PResult<ConstId> {
        let Type::Float(kind) = *self.m.types.get(ty) else {
            return Err(self.error_at(t, format!("floating point constant invalid for type `{}`", self.describe(ty))));
        };
        let s = self.text(t);
        let invalid = || self.error_at(t, format!("floating point constant invalid for type `{}`", self.describe(ty)));
        let mismatch =
            || self.error_at(t, format!("floating point constant does not have type `{}`", self.describe(ty)));
        let hex_digits = |h: &str| -> u128 {
            h.bytes().fold(0u128, |v, d| v.wrapping_mul(16).wrapping_add((d as char).to_digit(16).unwrap_or(0) as u128))
        };
        let double_bits: u64 = if t.kind == Tok::HexFloat {
            let body = &s[2..];
            match body.as_bytes()[0] {
                b'H' => {
                    if kind != FloatKind::Half {
                        return Err(mismatch());
                    }
                    let h = hex_digits(&body[1..]) as u16;
                    return Ok(self.konst(ty, ConstKind::Float(quiet_half(h) as u64)));
                }
                // x86_fp80: four digits of sign and exponent, then up to sixteen of
                // significand; fp128: two halves of up to sixteen digits. Kept as text.
                letter @ (b'K' | b'L') => {
                    let (want, first_len, name) = if letter == b'K' {
                        (FloatKind::X86Fp80, 4, "x86_fp80")
                    } else {
                        (FloatKind::Fp128, 16, "fp128")
                    };
                    if kind != want {
                        return Err(mismatch());
                    }
                    let d = &body[1..];
                    let (first, second) = d.split_at(d.len().min(first_len));
                    let second = &second[..second.len().min(16)];
                    let (a, b) = (hex_digits(first), hex_digits(second) as u64);
                    let text = format!("{name} 0x{}{a:0first_len$X}{b:016X}", letter as char);
                    return Ok(self.konst(ty, ConstKind::Opaque(text)));
                }
                b'M' | b'R' => return Err(self.unsupported(t, "a ppc_fp128 or bfloat literal")),
                _ => hex_digits(body) as u64,
            }
        } else {
            s.parse::<f64>().map_err(|_| self.error_at(t, "invalid floating-point literal"))?.to_bits()
        };
        let d = f64::from_bits(double_bits);
        let bits = match kind {
            FloatKind::Double => double_bits,
            FloatKind::Float => {
                let f = d as f32;
                let exact = if d.is_nan() { double_bits & ((1 << 29) - 1) == 0 } else { f as f64 == d };
                if !exact {
                    return Err(invalid());
                }
                // The LLVM front end reads the value back through a double, which quiets
                // signalling NaNs.
                let b = f.to_bits();
                (if f.is_nan() { b | 0x0040_0000 } else { b }) as u64
            }
            FloatKind::Half => {
                let h = half::f16::from_f64(d);
                let exact = if d.is_nan() { double_bits & ((1 << 42) - 1) == 0 } else { h.to_f64() == d };
                if !exact {
                    return Err(invalid());
                }
                quiet_half(h.to_bits()) as u64
            }
            FloatKind::X86Fp80 | FloatKind::Fp128 => return Err(mismatch()),
        };
        Ok(self.konst(ty, ConstKind::Float(bits)))
    }

    /// `@g` as a constant of type `ty`: its address (checked against the global's type
    /// once the module is complete).
    fn global_const(&mut self, t: Token, ty: TypeId) -> PResult<ConstId> {
        if !matches!(self.m.types.get(ty), Type::Pointer { .. }) {
            return Err(self.error_at(
                t,
                format!("global variable reference must have pointer type, not `{}`", self.describe(ty)),
            ));
        }
        let kind = match self.global_ref(t, ty)? {
            Value::Global(g) => ConstKind::GlobalAddr(g),
            Value::Func(f) => ConstKind::FuncAddr(f),
            _ => return Err(self.error_at(t, "not a global")),
        };
        Ok(self.konst(ty, kind))
    }

    /// `type value, type value, ...` up to `close` (consumed).
    fn const_list(&mut self, close: Tok, what: &str) -> PResult<Vec<(ConstId, Token)>> {
        self.list_until(close, &format!("`,` or {what}"), |p| {
            let at = p.tok();
            Ok((p.parse_typed_const()?, at))
        })
    }

    fn check_elements(&self, elems: &[(ConstId, Token)], expected: impl Fn(usize) -> TypeId) -> PResult<()> {
        for (i, (c, at)) in elems.iter().enumerate() {
            let want = expected(i);
            if self.type_of_const(*c) != want {
                return Err(self.error_at(
                    *at,
                    format!(
                        "element {i} has type `{}`, expected `{}`",
                        self.describe(self.type_of_const(*c)),
                        self.describe(want)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn struct_const(&mut self, ty: TypeId, elems: Vec<(ConstId, Token)>, packed: bool, at: Token) -> PResult<ConstId> {
        let (fields, is_packed) = match self.m.types.get(ty) {
            Type::Struct { fields, packed } => (fields.clone(), *packed),
            Type::Named(_) => match self.m.types.body(ty) {
                Some(b) => (b.fields.clone().unwrap_or_default(), b.packed),
                None => (Vec::new(), false),
            },
            _ => return Err(self.error_at(at, format!("struct constant does not match type `{}`", self.describe(ty)))),
        };
        if is_packed != packed {
            return Err(self.error_at(at, "packed'ness of initializer and type don't match"));
        }
        if fields.len() != elems.len() {
            return Err(self.error_at(
                at,
                format!(
                    "struct constant has {} elements, type `{}` has {}",
                    elems.len(),
                    self.describe(ty),
                    fields.len()
                ),
            ));
        }
        self.check_elements(&elems, |i| fields[i])?;
        Ok(self.aggregate(ty, elems.into_iter().map(|e| e.0).collect(), true))
    }

    /// An aggregate in LLVM's canonical form: all-null is `zeroinitializer`, all-poison is
    /// `poison`, all-undef is `undef` (for structs, elements of different types count;
    /// for arrays and vectors every element is the same constant).
    pub fn aggregate(&mut self, ty: TypeId, elems: Vec<ConstId>, is_struct: bool) -> ConstId {
        let kind = if elems.is_empty() {
            ConstKind::Zero
        } else if is_struct {
            let all = |f: &dyn Fn(&ConstKind) -> bool| elems.iter().all(|&e| f(self.kind_of(e)));
            if elems.iter().all(|&e| self.is_null_const(e)) {
                ConstKind::Zero
            } else if all(&|k| matches!(k, ConstKind::Poison)) {
                ConstKind::Poison
            } else if all(&|k| matches!(k, ConstKind::Undef)) {
                ConstKind::Undef
            } else {
                ConstKind::Aggregate(elems)
            }
        } else {
            let first = elems[0];
            let same = elems.iter().all(|&e| e == first);
            match self.kind_of(first) {
                ConstKind::Poison if same => ConstKind::Poison,
                ConstKind::Undef if same => ConstKind::Undef,
                _ if same && self.is_null_const(first) => ConstKind::Zero,
                _ => ConstKind::Aggregate(elems),
            }
        };
        self.konst(ty, kind)
    }

    fn word_const(&mut self, t: Token, ty: TypeId) -> PResult<ConstId> {
        let w = self.text(t);
        match w {
            "true" | "false" => {
                self.bump();
                if self.int_width(ty) != Some(1) {
                    return Err(self.error_at(t, format!("`{w}` must have type i1, not `{}`", self.describe(ty))));
                }
                Ok(self.konst(ty, ConstKind::Int(u64::from(w == "true"))))
            }
            "null" => {
                self.bump();
                if !matches!(self.m.types.get(ty), Type::Pointer { .. }) {
                    return Err(self.error_at(t, "null must be a pointer type"));
                }
                Ok(self.konst(ty, ConstKind::Null))
            }
            "undef" | "poison" => {
                self.bump();
                if matches!(self.m.types.get(ty), Type::Void | Type::Label | Type::Function { .. } | Type::Metadata) {
                    return Err(self.error_at(t, format!("invalid type for {w} constant")));
                }
                Ok(self.konst(ty, if w == "undef" { ConstKind::Undef } else { ConstKind::Poison }))
            }
            "zeroinitializer" => {
                self.bump();
                self.null_value(ty, t)
            }
            "none" => {
                self.bump();
                if !matches!(self.m.types.get(ty), Type::Token) {
                    return Err(self.error_at(t, "invalid type for none constant"));
                }
                Ok(self.konst(ty, ConstKind::Opaque("token none".into())))
            }
            "c" if self.peek_at(1) == Tok::String => {
                self.bump();
                let st = self.bump();
                let bytes = self.string_bytes(st);
                let ok = match self.m.types.get(ty) {
                    Type::Array { elem, len } => *len == bytes.len() as u64 && self.int_width(*elem) == Some(8),
                    _ => false,
                };
                if !ok {
                    return Err(
                        self.error_at(t, format!("string constant does not match type `{}`", self.describe(ty)))
                    );
                }
                let i8t = self.scalar_elem(ty);
                if bytes.iter().all(|&b| b == 0) {
                    return Ok(self.konst(ty, ConstKind::Zero));
                }
                let elems = bytes.iter().map(|&b| self.konst(i8t, ConstKind::Int(b as u64))).collect();
                Ok(self.konst(ty, ConstKind::Aggregate(elems)))
            }
            "blockaddress" | "dso_local_equivalent" | "no_cfi" => Err(self.unsupported(t, &format!("`{w}` constant"))),
            "asm" => Err(self.unsupported(t, "inline assembly")),
            "extractvalue" | "insertvalue" | "fneg" => {
                Err(self.unsupported(t, &format!("the `{w}` constant expression")))
            }
            _ => self.const_expr(t, ty),
        }
    }

    fn scalar_elem(&self, ty: TypeId) -> TypeId {
        match self.m.types.get(ty) {
            Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
            _ => ty,
        }
    }

    /// The two operands of a binary or compare constant expression, after its `(` and up to
    /// its `)`: the first operand's token, both operands, and their one type (operands of
    /// different types are error `mismatch`).
    fn const_operand_pair(&mut self, mismatch: &str) -> PResult<(Token, ConstId, ConstId, TypeId)> {
        let at = self.tok();
        let lhs = self.parse_typed_const()?;
        self.expect(Tok::Comma, "`,`")?;
        let rhs = self.parse_typed_const()?;
        self.expect(Tok::RParen, "`)`")?;
        let lt = self.type_of_const(lhs);
        if lt != self.type_of_const(rhs) {
            return Err(self.error_at(at, mismatch));
        }
        Ok((at, lhs, rhs, lt))
    }

    /// Constant expressions: casts, `getelementptr`, binary operators, comparisons,
    /// `select`, vector element operations.
    fn const_expr(&mut self, t: Token, ty: TypeId) -> PResult<ConstId> {
        let w = self.text(t);
        self.bump();
        let result = if let Some(op) = cast_op(w) {
            self.expect(Tok::LParen, "`(` after the cast opcode")?;
            let vt = self.tok();
            let v = self.parse_typed_const()?;
            self.expect_word("to")?;
            let dest = self.parse_type()?;
            self.expect(Tok::RParen, "`)` after a cast constant expression")?;
            self.check_cast(op, self.type_of_const(v), dest, vt)?;
            self.fold_cast(op, v, dest)
        } else if w == "getelementptr" {
            let in_bounds = self.eat_word("inbounds");
            self.expect(Tok::LParen, "`(` after `getelementptr`")?;
            let source = self.parse_type()?;
            self.expect(Tok::Comma, "`,` after the source element type")?;
            let bt = self.tok();
            let base = self.parse_typed_const()?;
            let mut indices = Vec::new();
            while self.eat(Tok::Comma) {
                self.eat_word("inrange");
                let at = self.tok();
                indices.push((self.parse_typed_const()?, at));
            }
            self.expect(Tok::RParen, "`)` after a getelementptr constant expression")?;
            let idx: Vec<ConstId> = indices.iter().map(|i| i.0).collect();
            let index_types: Vec<TypeId> = idx.iter().map(|&i| self.type_of_const(i)).collect();
            let index_ints: Vec<Option<u64>> = idx.iter().map(|&i| self.int_value(i).map(|(v, _)| v as u64)).collect();
            let index_at: Vec<Token> = indices.iter().map(|i| i.1).collect();
            let result_ty =
                self.gep_result_type(source, self.type_of_const(base), &index_types, &index_ints, bt, &index_at)?;
            self.fold_gep(source, base, idx, in_bounds, result_ty)
        } else if let Some(op) = binary_op(w) {
            skip_wrap_flags(self);
            self.expect(Tok::LParen, "`(` after the opcode")?;
            let (at, lhs, rhs, lt) =
                self.const_operand_pair("operands of a constant expression have different types")?;
            let float_op =
                matches!(op, BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem);
            let ok = if float_op { self.is_fp_or_fp_vector(lt) } else { self.is_int_or_int_vector(lt) };
            if !ok {
                return Err(self.error_at(at, format!("invalid operand type `{}` for `{w}`", self.describe(lt))));
            }
            self.fold_binary(op, lhs, rhs)
        } else if w == "icmp" || w == "fcmp" {
            let pt = self.tok();
            let pred = self.text(pt);
            self.bump();
            self.expect(Tok::LParen, "`(` after the predicate")?;
            let (at, lhs, rhs, lt) = self.const_operand_pair("compare operands have different types")?;
            let rt = self.bool_like(lt);
            if w == "icmp" {
                let p =
                    int_predicate(pred).ok_or_else(|| self.error_at(pt, format!("unknown icmp predicate `{pred}`")))?;
                if !self.is_int_or_int_vector(lt) && !self.is_ptr_or_ptr_vector(lt) {
                    return Err(self.error_at(at, "icmp requires integer or pointer operands"));
                }
                self.fold_icmp(p, lhs, rhs, rt)
            } else {
                let p = float_predicate(pred)
                    .ok_or_else(|| self.error_at(pt, format!("unknown fcmp predicate `{pred}`")))?;
                if !self.is_fp_or_fp_vector(lt) {
                    return Err(self.error_at(at, "fcmp requires floating-point operands"));
                }
                self.konst(rt, ConstKind::Expr { op: ConstExprOp::FCmp(p), operands: vec![lhs, rhs], source_ty: None })
            }
        } else if w == "select" {
            self.expect(Tok::LParen, "`(` after `select`")?;
            let ct = self.tok();
            let c = self.parse_typed_const()?;
            self.expect(Tok::Comma, "`,`")?;
            let a = self.parse_typed_const()?;
            self.expect(Tok::Comma, "`,`")?;
            let b = self.parse_typed_const()?;
            self.expect(Tok::RParen, "`)`")?;
            let at = self.type_of_const(a);
            if at != self.type_of_const(b) || self.scalar_of(self.type_of_const(c)) != self.intern(Type::Int(1)) {
                return Err(self.error_at(ct, "invalid select constant expression operands"));
            }
            match self.kind_of(c) {
                ConstKind::Int(1) => a,
                ConstKind::Int(0) => b,
                _ => self
                    .konst(at, ConstKind::Expr { op: ConstExprOp::Select, operands: vec![c, a, b], source_ty: None }),
            }
        } else if w == "extractelement" || w == "insertelement" || w == "shufflevector" {
            self.expect(Tok::LParen, "`(`")?;
            let at = self.tok();
            let mut ops = vec![self.parse_typed_const()?];
            while self.eat(Tok::Comma) {
                ops.push(self.parse_typed_const()?);
            }
            self.expect(Tok::RParen, "`)`")?;
            let vt = self.type_of_const(ops[0]);
            let (op, rt, n) = match w {
                "extractelement" => (ConstExprOp::ExtractElement, self.scalar_of(vt), 2),
                "insertelement" => (ConstExprOp::InsertElement, vt, 3),
                _ => {
                    let len = ops.get(2).and_then(|&m| self.vector_len(self.type_of_const(m))).unwrap_or(0);
                    let elem = self.scalar_of(vt);
                    (ConstExprOp::ShuffleVector, self.intern(Type::Vector { elem, len }), 3)
                }
            };
            if ops.len() != n || self.vector_len(vt).is_none() {
                return Err(self.error_at(at, format!("invalid operands for the `{w}` constant expression")));
            }
            self.konst(rt, ConstKind::Expr { op, operands: ops, source_ty: None })
        } else {
            return Err(self.error_at(t, format!("expected a constant, found `{w}`")));
        };
        let got = self.type_of_const(result);
        if got != ty {
            return Err(self.error_at(
                t,
                format!(
                    "constant expression type mismatch: has type `{}`, expected `{}`",
                    self.describe(got),
                    self.describe(ty)
                ),
            ));
        }
        Ok(result)
    }

    /// LLVM's `CastInst::castIsValid`.
    pub fn check_cast(&self, op: CastOp, src: TypeId, dest: TypeId, at: Token) -> PResult<()> {
        use CastOp::*;
        let types = &self.m.types;
        let (sl, dl) = (self.vector_len(src), self.vector_len(dest));
        let (s, d) = (self.scalar_of(src), self.scalar_of(dest));
        let sbits = |t: TypeId| match types.get(t) {
            Type::Int(w) => Some(*w),
            Type::Float(k) => Some(k.bits()),
            _ => None,
        };
        let is_int = |t: TypeId| matches!(types.get(t), Type::Int(_));
        let is_fp = |t: TypeId| matches!(types.get(t), Type::Float(_));
        let is_ptr = |t: TypeId| matches!(types.get(t), Type::Pointer { .. });
        let same_shape = sl == dl;
        let ok = match op {
            Trunc => is_int(s) && is_int(d) && same_shape && sbits(s) > sbits(d),
            ZExt | SExt => is_int(s) && is_int(d) && same_shape && sbits(s) < sbits(d),
            FPTrunc => is_fp(s) && is_fp(d) && same_shape && sbits(s) > sbits(d),
            FPExt => is_fp(s) && is_fp(d) && same_shape && sbits(s) < sbits(d),
            UIToFP | SIToFP => is_int(s) && is_fp(d) && same_shape,
            FPToUI | FPToSI => is_fp(s) && is_int(d) && same_shape,
            PtrToInt => is_ptr(s) && is_int(d) && same_shape,
            IntToPtr => is_int(s) && is_ptr(d) && same_shape,
            AddrSpaceCast => match (types.get(s), types.get(d)) {
                (Type::Pointer { addr_space: a, .. }, Type::Pointer { addr_space: b, .. }) => a != b && same_shape,
                _ => false,
            },
            BitCast => match (types.get(s), types.get(d)) {
                (Type::Pointer { addr_space: a, .. }, Type::Pointer { addr_space: b, .. }) => a == b && same_shape,
                _ => {
                    !is_ptr(s)
                        && !is_ptr(d)
                        && self.is_first_class_non_aggregate(src)
                        && self.is_first_class_non_aggregate(dest)
                        && self.bit_size(src).is_some()
                        && self.bit_size(src) == self.bit_size(dest)
                }
            },
        };
        if ok {
            Ok(())
        } else {
            Err(self.error_at(
                at,
                format!("invalid cast opcode for cast from `{}` to `{}`", self.describe(src), self.describe(dest)),
            ))
        }
    }

    fn is_first_class_non_aggregate(&self, t: TypeId) -> bool {
        matches!(self.m.types.get(t), Type::Int(_) | Type::Float(_) | Type::Pointer { .. } | Type::Vector { .. })
    }

    /// Size in bits of a scalar or vector of scalars (pointers excluded).
    fn bit_size(&self, t: TypeId) -> Option<u64> {
        let scalar = |t: TypeId| match self.m.types.get(t) {
            Type::Int(w) => Some(*w as u64),
            Type::Float(k) => Some(k.bits() as u64),
            _ => None,
        };
        match self.m.types.get(t) {
            Type::Vector { elem, len } => scalar(*elem).map(|b| b * *len as u64),
            _ => scalar(t),
        }
    }

    /// `ConstantExpr::getCast` with LLVM 14's folds (see the module docs).
    pub fn fold_cast(&mut self, op: CastOp, v: ConstId, dest: TypeId) -> ConstId {
        use CastOp::*;
        let src = self.type_of_const(v);
        if op == BitCast && src == dest {
            return v;
        }
        match self.kind_of(v).clone() {
            ConstKind::Poison => return self.konst(dest, ConstKind::Poison),
            ConstKind::Undef => {
                if matches!(op, ZExt | SExt | UIToFP | SIToFP) {
                    let t = Token { kind: Tok::Eof, start: 0, end: 0 };
                    if let Ok(z) = self.null_value(dest, t) {
                        return z;
                    }
                }
                return self.konst(dest, ConstKind::Undef);
            }
            _ if op != AddrSpaceCast && self.is_null_const(v) => {
                let t = Token { kind: Tok::Eof, start: 0, end: 0 };
                if let Ok(z) = self.null_value(dest, t) {
                    return z;
                }
            }
            ConstKind::Expr { op: ConstExprOp::Cast(BitCast), operands, .. } if op == BitCast => {
                // bitcast (bitcast X) is bitcast X.
                return self.fold_cast(BitCast, operands[0], dest);
            }
            ConstKind::Expr { op: ConstExprOp::GetElementPtr { .. }, operands, .. }
                if op != AddrSpaceCast
                    && self.vector_len(src).is_none()
                    && operands[1..].iter().all(|&i| self.is_null_const(i)) =>
            {
                // A GEP with all-zero indices does not move the pointer: cast its base.
                return self.pointer_cast(operands[0], dest);
            }
            _ => {}
        }
        match (op, self.kind_of(v).clone()) {
            (Trunc | ZExt | SExt, _) if self.int_value(v).is_some() => {
                let (x, bits) = self.int_value(v).unwrap_or((0, 1));
                let x = if op == SExt { sign_extend(x, bits) as u128 } else { x };
                if self.vector_len(dest).is_none() {
                    return self.int_const(dest, x);
                }
            }
            (BitCast, ConstKind::Int(x)) if matches!(self.m.types.get(dest), Type::Float(_)) => {
                return self.konst(dest, ConstKind::Float(x));
            }
            (BitCast, ConstKind::Float(x)) if matches!(self.m.types.get(dest), Type::Int(_)) => {
                return self.konst(dest, ConstKind::Int(x));
            }
            (BitCast, _) => {
                if let Some(gep) = self.first_element_gep(v, src, dest) {
                    return gep;
                }
            }
            _ => {}
        }
        self.konst(dest, ConstKind::Expr { op: ConstExprOp::Cast(op), operands: vec![v], source_ty: None })
    }

    /// `ConstantExpr::getPointerCast`: addrspacecast across address spaces, else bitcast.
    fn pointer_cast(&mut self, v: ConstId, dest: TypeId) -> ConstId {
        let space = |p: &Self, t: TypeId| match p.m.types.get(p.scalar_of(t)) {
            Type::Pointer { addr_space, .. } => Some(*addr_space),
            _ => None,
        };
        let (s, d) = (space(self, self.type_of_const(v)), space(self, dest));
        if s.is_some() && d.is_some() && s != d {
            self.fold_cast(CastOp::AddrSpaceCast, v, dest)
        } else if d.is_none() {
            self.fold_cast(CastOp::PtrToInt, v, dest)
        } else {
            self.fold_cast(CastOp::BitCast, v, dest)
        }
    }

    /// LLVM folds `bitcast (T* X to E*)`, where E is reached from T by repeatedly taking
    /// element 0, into `getelementptr inbounds (T, T* X, i32 0, ..., i32 0)`.
    fn first_element_gep(&mut self, v: ConstId, src: TypeId, dest: TypeId) -> Option<ConstId> {
        let (Type::Pointer { pointee: from, addr_space: a }, Type::Pointer { pointee: to, addr_space: b }) =
            (self.m.types.get(src).clone(), self.m.types.get(dest).clone())
        else {
            return None;
        };
        if a != b || !self.is_sized(from) {
            return None;
        }
        let i32t = self.intern(Type::Int(32));
        let zero = self.konst(i32t, ConstKind::Int(0));
        let mut idx = vec![zero];
        let mut el = from;
        let mut steps = 0;
        while el != to {
            el = self.member_type(el, 0)?;
            idx.push(zero);
            steps += 1;
            if steps > super::parser::MAX_NESTING {
                return None;
            }
        }
        Some(self.fold_gep(from, v, idx, true, dest))
    }

    /// The result type of a GEP: a pointer (or vector of pointers) to the indexed type, in
    /// the base's address space. Struct indices must be in-range `i32` constants.
    pub fn gep_result_type(
        &mut self,
        source: TypeId,
        base_ty: TypeId,
        index_types: &[TypeId],
        index_values: &[Option<u64>],
        at: Token,
        index_at: &[Token],
    ) -> PResult<TypeId> {
        let (pointee, space) = match self.m.types.get(self.scalar_of(base_ty)) {
            Type::Pointer { pointee, addr_space } => (*pointee, *addr_space),
            _ => return Err(self.error_at(at, "base of getelementptr must be a pointer")),
        };
        if pointee != source {
            return Err(self.error_at(at, "explicit pointee type doesn't match operand's pointee type"));
        }
        if !self.is_sized(source) {
            return Err(self.error_at(at, "base element of getelementptr must be sized"));
        }
        let mut vector_len = self.vector_len(base_ty);
        for (k, &it) in index_types.iter().enumerate() {
            let at = index_at.get(k).copied().unwrap_or(at);
            if !self.is_int_or_int_vector(it) {
                return Err(self.error_at(at, "getelementptr index must be an integer"));
            }
            if let Some(n) = self.vector_len(it) {
                if vector_len.is_some_and(|v| v != n) {
                    return Err(self.error_at(at, "getelementptr vector index has a wrong number of elements"));
                }
                vector_len = Some(n);
            }
        }
        let mut t = source;
        for (k, &it) in index_types.iter().enumerate().skip(1) {
            let at = index_at.get(k).copied().unwrap_or(at);
            let is_struct = self.m.types.struct_fields(t).is_some() || matches!(self.m.types.get(t), Type::Named(_));
            t = if is_struct {
                let v = index_values[k];
                if self.int_width(it) != Some(32) || v.is_none() {
                    return Err(
                        self.error_at(at, "invalid getelementptr indices: struct index must be an i32 constant")
                    );
                }
                self.member_type(t, v.unwrap_or(u64::MAX))
                    .ok_or_else(|| self.error_at(at, "invalid getelementptr indices: struct index out of range"))?
            } else {
                match self.m.types.get(t) {
                    Type::Array { elem, .. } | Type::Vector { elem, .. } => *elem,
                    _ => return Err(self.error_at(at, "invalid getelementptr indices")),
                }
            };
        }
        let p = self.pointer_to(t, space);
        Ok(match vector_len {
            Some(len) => self.intern(Type::Vector { elem: p, len }),
            None => p,
        })
    }

    /// `ConstantExpr::getGetElementPtr` with LLVM 14's folds (see the module docs).
    fn fold_gep(
        &mut self,
        source: TypeId,
        base: ConstId,
        idx: Vec<ConstId>,
        in_bounds: bool,
        result_ty: TypeId,
    ) -> ConstId {
        let vector_result = self.vector_len(result_ty).is_some();
        if idx.is_empty() {
            return base;
        }
        match self.kind_of(base) {
            ConstKind::Poison => return self.konst(result_ty, ConstKind::Poison),
            ConstKind::Undef => {
                return self.konst(result_ty, if in_bounds { ConstKind::Poison } else { ConstKind::Undef });
            }
            _ => {}
        }
        let is_undef = |p: &Self, c: ConstId| p.is_undef_const(c);
        if idx.len() == 1 && (self.is_null_const(idx[0]) || is_undef(self, idx[0])) && !vector_result {
            return base;
        }
        if self.is_null_const(base) && idx.iter().all(|&i| self.is_null_const(i) || is_undef(self, i)) {
            let kind = if vector_result { ConstKind::Zero } else { ConstKind::Null };
            return self.konst(result_ty, kind);
        }
        let mut in_bounds = in_bounds;
        if !in_bounds {
            if let ConstKind::GlobalAddr(g) = *self.kind_of(base) {
                if !self.globals.is_extern_weak(g)
                    && self.indices_known_in_range(source, &idx)
                    && self.in_bounds_indices(&idx)
                {
                    in_bounds = true;
                }
            }
        }
        let mut operands = Vec::with_capacity(idx.len() + 1);
        operands.push(base);
        operands.extend(idx);
        self.konst(
            result_ty,
            ConstKind::Expr { op: ConstExprOp::GetElementPtr { in_bounds }, operands, source_ty: Some(source) },
        )
    }

    /// All indices are integer constants and every array index is within its array
    /// (LLVM's "not Unknown" after its range check; vectors make it unknown).
    fn indices_known_in_range(&self, source: TypeId, idx: &[ConstId]) -> bool {
        if self.int_value(idx[0]).is_none() {
            return false;
        }
        let mut t = source;
        for &i in &idx[1..] {
            let Some((v, bits)) = self.int_value(i) else { return false };
            match self.m.types.get(t).clone() {
                Type::Array { elem, len } => {
                    let s = sign_extend(v, bits);
                    if s < 0 || (len > 0 && s as u128 >= len as u128) {
                        return false;
                    }
                    t = elem;
                }
                Type::Vector { .. } => return false,
                _ => match self.member_type(t, v as u64) {
                    Some(f) => t = f,
                    None => return false,
                },
            }
        }
        true
    }

    /// LLVM's `isInBoundsIndices`: the first index is zero, or it is one and the rest zero.
    fn in_bounds_indices(&self, idx: &[ConstId]) -> bool {
        if self.is_null_const(idx[0]) {
            return true;
        }
        matches!(self.int_value(idx[0]), Some((1, _))) && idx[1..].iter().all(|&i| self.is_null_const(i))
    }

    /// Integer binary operators on two integer constants fold; anything else stays an
    /// expression.
    fn fold_binary(&mut self, op: BinaryOp, lhs: ConstId, rhs: ConstId) -> ConstId {
        use BinaryOp::*;
        let ty = self.type_of_const(lhs);
        if let (Some((a, bits)), Some((b, _))) = (self.int_value(lhs), self.int_value(rhs)) {
            let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
            let v = match op {
                Add => Some(a.wrapping_add(b)),
                Sub => Some(a.wrapping_sub(b)),
                Mul => Some(a.wrapping_mul(b)),
                And => Some(a & b),
                Or => Some(a | b),
                Xor => Some(a ^ b),
                UDiv | SDiv | URem | SRem if b == 0 => return self.konst(ty, ConstKind::Poison),
                UDiv => Some(a / b),
                URem => Some(a % b),
                SDiv | SRem if sa == sign_extend(1 << (bits - 1), bits) && sb == -1 => {
                    return self.konst(ty, ConstKind::Poison)
                }
                SDiv => Some(sa.wrapping_div(sb) as u128),
                SRem => Some(sa.wrapping_rem(sb) as u128),
                Shl | LShr | AShr if b >= bits as u128 => return self.konst(ty, ConstKind::Poison),
                Shl => Some(a << b),
                LShr => Some(a >> b),
                AShr => Some((sa >> b) as u128),
                _ => None,
            };
            if let Some(v) = v {
                return self.int_const(ty, v);
            }
        }
        self.konst(ty, ConstKind::Expr { op: ConstExprOp::Binary(op), operands: vec![lhs, rhs], source_ty: None })
    }

    fn fold_icmp(&mut self, p: IntPredicate, lhs: ConstId, rhs: ConstId, rt: TypeId) -> ConstId {
        use IntPredicate::*;
        if let (Some((a, bits)), Some((b, _))) = (self.int_value(lhs), self.int_value(rhs)) {
            let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
            let r = match p {
                Eq => a == b,
                Ne => a != b,
                Ugt => a > b,
                Uge => a >= b,
                Ult => a < b,
                Ule => a <= b,
                Sgt => sa > sb,
                Sge => sa >= sb,
                Slt => sa < sb,
                Sle => sa <= sb,
            };
            return self.konst(rt, ConstKind::Int(u64::from(r)));
        }
        self.konst(rt, ConstKind::Expr { op: ConstExprOp::ICmp(p), operands: vec![lhs, rhs], source_ty: None })
    }
}

/// The LLVM front end reads half constants back through a double, which quiets a
/// signalling NaN (sets the top significand bit); other values are unchanged.
fn quiet_half(h: u16) -> u16 {
    let nan = h & 0x7C00 == 0x7C00 && h & 0x03FF != 0;
    if nan {
        h | 0x0200
    } else {
        h
    }
}

impl Parser<'_> {
    /// A constant as an operand: a global's or function's address is the global itself
    /// (the LLVM front end sees the `GlobalVariable`/`Function`, not a constant).
    pub fn const_value(&self, c: ConstId) -> Value {
        match self.m.constants.get(c).kind {
            ConstKind::GlobalAddr(g) => Value::Global(g),
            ConstKind::FuncAddr(f) => Value::Func(f),
            _ => Value::Const(c),
        }
    }
}
