//! Operands and module-level constants.
//!
//! An instruction operand is a [`Value`]: an instruction result, a function argument, an
//! interned constant, a global variable or a function. Constants are hash-consed in
//! [`Constants`], so identical constants share one [`ConstId`].

use super::types::TypeId;
use indexmap::IndexSet;

entity!(pub struct ConstId, "c");

entity!(pub struct GlobalId, "g");

entity!(pub struct FuncId, "f");

entity!(pub struct InstId, "i");

entity!(pub struct BlockId, "bb");

/// An instruction operand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    Inst(InstId),
    Arg(u32),
    Const(ConstId),
    Global(GlobalId),
    Func(FuncId),
    /// A metadata operand (`metadata !3` in a call); its content is not modelled.
    Metadata,
}

/// Operators of constant expressions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstExprOp {
    GetElementPtr { in_bounds: bool },
    Cast(super::ops::CastOp),
    Binary(super::ops::BinaryOp),
    ICmp(super::ops::IntPredicate),
    FCmp(super::ops::FloatPredicate),
    Select,
    ExtractElement,
    InsertElement,
    ShuffleVector,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstKind {
    /// Integer of any width up to 64 bits, zero-extended into `u64`.
    Int(u64),
    /// Wider integers, as little-endian 64-bit words.
    WideInt(Vec<u64>),
    /// IEEE bits, zero-extended into `u64` (half, float, double). Wider or odd float
    /// formats (x86_fp80, fp128) are kept as [`ConstKind::Opaque`] text.
    Float(u64),
    Null,
    Zero,
    Undef,
    Poison,
    /// Array, struct or vector with explicit elements.
    Aggregate(Vec<ConstId>),
    /// Address of a global variable.
    GlobalAddr(super::value::GlobalId),
    /// Address of a function.
    FuncAddr(super::value::FuncId),
    /// A constant expression; operands are constants, and for GEP the first type is
    /// the source element type.
    Expr {
        op: ConstExprOp,
        operands: Vec<ConstId>,
        source_ty: Option<TypeId>,
    },
    /// `blockaddress`, token none and other constants the structurizer never looks into.
    Opaque(String),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Constant {
    pub ty: TypeId,
    pub kind: ConstKind,
}

/// The module's constant pool.
#[derive(Clone, Debug, Default)]
pub struct Constants {
    set: IndexSet<Constant, super::hash::InternHasher>,
}

interned_pool!(Constants, ConstId, Constant);

impl Constants {
    /// The constants in id order, taking the pool apart (for a pass that rebuilds it in
    /// another order without copying).
    pub fn into_vec(self) -> Vec<Constant> {
        self.set.into_iter().collect()
    }

    /// The integer value of an integer constant, if it is one.
    pub fn as_int(&self, id: ConstId) -> Option<u64> {
        match self.get(id).kind {
            ConstKind::Int(v) => Some(v),
            ConstKind::Zero | ConstKind::Null => Some(0),
            _ => None,
        }
    }
}
