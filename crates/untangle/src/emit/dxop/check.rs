//! Every `dx.op` call is checked against its DXIL signature
//! ([`crate::dxil::op_facts`]) before a family lowers it: the argument count, each
//! argument's type and the result type, one overload type shared by every overloaded slot
//! and allowed for the operation, and immediate constants where DXIL requires them. The
//! families can then take operand types for granted (an `FAbs` whose operand and result
//! differ, or a `void` one, would otherwise become an invalid module), and malformed input
//! is a typed [`Error::Invalid`] naming the function, block and value.
//!
//! A DXIL 1.9 native-vector overload `<N x T>` (any N from 2 to 1024) is allowed where
//! the operation lists `T` among its vector overloads (hctdb's letters after `<`).
//!
//! Shapes are compared structurally (`%dx.types.ResRet.f32` is a struct of four `float`
//! and an `i32`, whatever it is called), except handles, which the translator recognizes by
//! their name `%dx.types.Handle` everywhere.
//!
//! Cost: the full check once per `dx.op` declaration and operation; a later call whose
//! result and operands have the declared types (every call of well-formed DXIL) compares
//! those types and checks its immediates only ([`FnEmit::signatures_checked`]).

use crate::dxil::op_facts::{ParamTy, Signature};
use crate::emit::error::{Error, Result};
use crate::emit::{Call, FnEmit};
use crate::ir::{ConstKind, FloatKind, FuncId, InstKind, Type, TypeId, Value};

/// DXC's overload letter for a scalar type.
fn overload_letter(t: &Type) -> Option<char> {
    Some(match t {
        Type::Int(1) => '1',
        Type::Int(8) => '8',
        Type::Int(16) => 'w',
        Type::Int(32) => 'i',
        Type::Int(64) => 'l',
        Type::Float(FloatKind::Half) => 'h',
        Type::Float(FloatKind::Float) => 'f',
        Type::Float(FloatKind::Double) => 'd',
        _ => return None,
    })
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// A [`Error::Invalid`] about call `c` (`what` names the offending part).
    #[cold]
    pub fn invalid(&self, c: &Call<'_>, what: &str, message: impl Into<String>) -> Error {
        let (function, block, value) = self.site(c.inst);
        Error::Invalid {
            function,
            block,
            value: format!("{what} of {value} = {}", c.op.name()),
            message: message.into(),
        }
    }

    fn ty_text(&self, t: TypeId) -> String {
        self.cx.m.types.display(t)
    }

    /// The type the overload names (a scalar, or a DXIL 1.9 native vector): the first
    /// overloaded slot's type (for a struct result of overloaded fields, its first field's).
    fn overload_of(&self, c: &Call<'_>, sig: &Signature) -> Option<TypeId> {
        let types = &self.cx.m.types;
        match sig.result {
            ParamTy::Overload => return Some(c.ty),
            ParamTy::ResRet | ParamTy::CBufRet | ParamTy::OverloadVec4 => {
                return types.struct_fields(c.ty).and_then(|f| f.first().copied())
            }
            // SM 6.10's triangle positions: a `<9 x T>` of the overload `T`.
            ParamTy::OverloadVec9 => {
                return match types.get(c.ty) {
                    Type::Vector { elem, .. } => Some(*elem),
                    _ => None,
                }
            }
            _ => {}
        }
        let k = sig.params.iter().position(|&p| p == ParamTy::Overload)?;
        c.args.get(k).and_then(|&v| self.value_ty(v))
    }

    /// Whether `t` has the shape `p` asks for (`o`: the overload type).
    fn fits(&self, t: TypeId, p: ParamTy, o: Option<TypeId>) -> bool {
        let types = &self.cx.m.types;
        let ty = types.get(t);
        let fields = |n: usize, each: &dyn Fn(usize, TypeId) -> bool| -> bool {
            types.struct_fields(t).is_some_and(|f| f.len() == n && f.iter().enumerate().all(|(k, &x)| each(k, x)))
        };
        let is = |x: TypeId, want: &Type| types.get(x) == want;
        let i32_ = Type::Int(32);
        match p {
            ParamTy::Void => matches!(ty, Type::Void),
            ParamTy::Overload => Some(t) == o,
            ParamTy::I1 => *ty == Type::Int(1),
            ParamTy::I8 => *ty == Type::Int(8),
            ParamTy::I16 => *ty == Type::Int(16),
            ParamTy::I32 => *ty == i32_,
            ParamTy::I64 => *ty == Type::Int(64),
            ParamTy::F16 => *ty == Type::Float(FloatKind::Half),
            ParamTy::F32 => *ty == Type::Float(FloatKind::Float),
            ParamTy::F64 => *ty == Type::Float(FloatKind::Double),
            // `ResRet.v<N><T>` (`rawBufferVectorLoad`): the vector and the status.
            ParamTy::ResRet if o.is_some_and(|o| matches!(types.get(o), Type::Vector { .. })) => {
                fields(2, &|k, x| if k == 0 { Some(x) == o } else { is(x, &i32_) })
            }
            ParamTy::ResRet => fields(5, &|k, x| if k < 4 { Some(x) == o } else { is(x, &i32_) }),
            ParamTy::OverloadShapedI1 | ParamTy::OverloadShapedI32 => {
                let bits = if p == ParamTy::OverloadShapedI1 { 1 } else { 32 };
                match o.map(|o| types.get(o)) {
                    Some(Type::Vector { len, .. }) => {
                        matches!(ty, Type::Vector { elem, len: l } if l == len && is(*elem, &Type::Int(bits)))
                    }
                    _ => *ty == Type::Int(bits),
                }
            }
            ParamTy::OverloadElement => match o.map(|o| types.get(o)) {
                Some(Type::Vector { elem, .. }) => *elem == t,
                _ => false,
            },
            ParamTy::OverloadVec9 => matches!(ty, Type::Vector { len: 9, elem } if Some(*elem) == o),
            ParamTy::I32Vec2 => matches!(ty, Type::Vector { len: 2, elem } if is(*elem, &i32_)),
            ParamTy::CBufRet => {
                let bits = o.and_then(|o| self.scalar_bits(o)).unwrap_or(0);
                // 16-bit rows hold 8 values, or 4 (one per 32-bit slot) when the module uses
                // minimum precision instead of native 16-bit types (DXC `GetCBufferRetType`).
                let each = |_, x| Some(x) == o;
                match bits {
                    16 => fields(8, &each) || fields(4, &each),
                    32 => fields(4, &each),
                    64 => fields(2, &each),
                    _ => false,
                }
            }
            ParamTy::Handle => types.struct_name(t) == Some("dx.types.Handle") && matches!(ty, Type::Named(_)),
            ParamTy::Dimensions | ParamTy::FourI32 => fields(4, &|_, x| is(x, &i32_)),
            ParamTy::TwoI32 | ParamTy::SplitDouble | ParamTy::ResProperties => fields(2, &|_, x| is(x, &i32_)),
            ParamTy::I32Carry => fields(2, &|k, x| is(x, if k == 0 { &i32_ } else { &Type::Int(1) })),
            ParamTy::SamplePos => fields(2, &|_, x| is(x, &Type::Float(FloatKind::Float))),
            ParamTy::OverloadVec4 => fields(4, &|_, x| Some(x) == o),
            ParamTy::ResBind => fields(4, &|k, x| is(x, if k < 3 { &i32_ } else { &Type::Int(8) })),
            // Work-graph handles are recognized by name, as resource handles are; their
            // properties are two `i32` (`%dx.types.NodeInfo`, `%dx.types.NodeRecordInfo`).
            ParamTy::NodeHandle => types.struct_name(t) == Some("dx.types.NodeHandle") && matches!(ty, Type::Named(_)),
            ParamTy::NodeRecordHandle => {
                types.struct_name(t) == Some("dx.types.NodeRecordHandle") && matches!(ty, Type::Named(_))
            }
            ParamTy::NodeProperties | ParamTy::NodeRecordProperties => fields(2, &|_, x| is(x, &i32_)),
            // Only operations the translator refuses take these; nothing to check.
            ParamTy::PointerF32
            | ParamTy::UserDefined
            | ParamTy::Object
            | ParamTy::HitObject
            | ParamTy::ExtOverload(_)
            | ParamTy::ExtOverloadGroupShared(_) => true,
        }
    }

    fn is_constant(&self, v: Value) -> bool {
        match v {
            Value::Const(k) => !matches!(
                self.cx.m.constants.get(k).kind,
                ConstKind::GlobalAddr(_) | ConstKind::FuncAddr(_) | ConstKind::Expr { .. } | ConstKind::Opaque(_)
            ),
            _ => false,
        }
    }

    /// The callee of `c` when the call's result and operands have exactly the types the
    /// callee declares (as every call of well-formed DXIL does): then everything the
    /// signature check looks at but the immediates is a property of the callee (and the
    /// operation).
    fn declared_callee(&self, c: &Call<'_>) -> Option<FuncId> {
        let InstKind::Call { callee: Value::Func(f), .. } = self.f.insts[c.inst].kind else { return None };
        let Type::Function { ret, params, .. } = self.cx.m.types.get(self.cx.m.functions[f].ty) else { return None };
        let declared = *ret == c.ty
            && params.len() == c.args.len() + 1
            && c.args.iter().zip(&params[1..]).all(|(&v, &p)| self.value_ty(v) == Some(p));
        declared.then_some(f)
    }

    /// Checks call `c` against the operation's signature: fully once per callee and
    /// operation ([`FnEmit::signatures_checked`]); a later call with the declared types
    /// only for its immediates, the one part that depends on the call's operands.
    pub(super) fn check_signature(&mut self, c: &Call<'_>) -> Result<()> {
        let sig = crate::dxil::op_facts::signature(c.op);
        if c.args.len() != sig.params.len() {
            return Err(self.invalid(
                c,
                "the call",
                format!("{} takes {} operands after the opcode, not {}", c.op.name(), sig.params.len(), c.args.len()),
            ));
        }
        let declared = self.declared_callee(c);
        if declared.is_some_and(|f| self.signatures_checked.contains(&(f, c.op))) {
            return match c.args.iter().enumerate().find(|&(k, &v)| sig.is_immediate(k) && !self.is_constant(v)) {
                Some((k, _)) => Err(self.invalid(c, &format!("operand {k}"), "must be an immediate constant")),
                None => Ok(()),
            };
        }
        self.check_call_types(c, &sig)?;
        if let Some(f) = declared {
            self.signatures_checked.insert((f, c.op));
        }
        Ok(())
    }

    /// [`Self::check_signature`] in full: the overload, the result and every operand.
    fn check_call_types(&self, c: &Call<'_>, sig: &Signature) -> Result<()> {
        let o = self.overload_of(c, sig);
        // Operations whose every slot has a fixed type (`threadId` is `i32`, `makeDouble`
        // `double`) list one overload but have no overloaded slot to check.
        if let Some(o) = o.filter(|_| sig.overloads != "v") {
            // `u`: a user-defined type, passed by pointer (the mesh payload).
            let types = &self.cx.m.types;
            let user = sig.overloads == "u" && matches!(types.get(o), Type::Pointer { .. });
            let allowed = match types.get(o) {
                _ if user => sig.allows_overload('u'),
                // SM 6.10 LinAlg matrices (`%dx.types.LinAlgMatrix…`): hctdb's `o`.
                Type::Named(n) if crate::dxil::linalg::is_matrix_name(n) => sig.allows_overload('o'),
                // DXIL 1.9 native vectors: `<N x T>`, 2 <= N <= 1024 (hctdb's vector letters).
                Type::Vector { elem, len } => {
                    (2..=1024).contains(len)
                        && overload_letter(types.get(*elem)).is_some_and(|l| sig.allows_vector_overload(l))
                }
                t => overload_letter(t).is_some_and(|l| sig.allows_overload(l)),
            };
            if !allowed {
                return Err(self.invalid(
                    c,
                    "the overload",
                    format!(
                        "{} is not an overload of {} (DXIL allows `{}`{})",
                        self.ty_text(o),
                        c.op.name(),
                        sig.overloads,
                        if sig.vector_overloads.is_empty() {
                            String::new()
                        } else {
                            format!(" and vectors of `{}`", sig.vector_overloads)
                        }
                    ),
                ));
            }
        }
        if !self.fits(c.ty, sig.result, o) {
            return Err(self.invalid(
                c,
                "the result",
                format!(
                    "type {} does not fit {:?} (overload {})",
                    self.ty_text(c.ty),
                    sig.result,
                    self.overload_text(o)
                ),
            ));
        }
        for (k, (&v, &p)) in c.args.iter().zip(sig.params).enumerate() {
            // Named only for a message (every call's every operand passes here).
            let what = || format!("operand {k}");
            let Some(t) = self.value_ty(v) else {
                return Err(self.invalid(c, &what(), "a value without a type"));
            };
            if !self.fits(t, p, o) {
                return Err(self.invalid(
                    c,
                    &what(),
                    format!("type {} does not fit {p:?} (overload {})", self.ty_text(t), self.overload_text(o)),
                ));
            }
            if sig.is_immediate(k) && !self.is_constant(v) {
                return Err(self.invalid(c, &what(), "must be an immediate constant"));
            }
        }
        Ok(())
    }

    fn overload_text(&self, o: Option<TypeId>) -> String {
        o.map_or_else(|| "none".to_string(), |o| self.ty_text(o))
    }
}
