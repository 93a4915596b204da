//! The vocabulary of the generated table (`table.rs`): parameter types in hctdb's terms
//! ([`ParamTy`]) and one row per operation ([`OpFacts`]).

use serde::Serialize;

/// One slot of an operation's signature, in hctdb's vocabulary.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub enum ParamTy {
    /// `void` (results only).
    Void,
    /// The overload type (`$o`): every `Overload` slot of a call has the same type, one of
    /// [`super::Signature::overloads`].
    Overload,
    I1,
    /// `i8` (hctdb's `i8` and `u8`).
    I8,
    I16,
    /// `i32` (hctdb's `i32` and `u32`).
    I32,
    I64,
    F16,
    F32,
    F64,
    /// `%dx.types.ResRet.<o>`: four overload values and an `i32` residency status.
    ResRet,
    /// `%dx.types.CBufRet.<o>`: one 16-byte row of the overload (8 halves or 16-bit ints, 4
    /// 32-bit values, or 2 64-bit ones).
    CBufRet,
    /// `%dx.types.Handle`.
    Handle,
    /// `%dx.types.Dimensions`: four `i32`.
    Dimensions,
    /// `%dx.types.twoi32`.
    TwoI32,
    /// `%dx.types.i32c`: an `i32` and an `i1` carry.
    I32Carry,
    /// `%dx.types.SamplePos`: two `float`.
    SamplePos,
    /// `%dx.types.fouri32`.
    FourI32,
    /// `%dx.types.splitdouble`: two `i32`.
    SplitDouble,
    /// Four values of the overload type (`%dx.types.fouri32` / `fouri16`).
    OverloadVec4,
    /// `%dx.types.ResBind` (an immediate): range lower bound, upper bound, space, class.
    ResBind,
    /// `%dx.types.ResourceProperties` (an immediate): two `i32`.
    ResProperties,
    /// `float*` (DXBC-converter register arrays).
    PointerF32,
    /// A user-defined struct (ray payloads, attributes).
    UserDefined,
    /// A resource object (libraries).
    Object,
    NodeHandle,
    NodeRecordHandle,
    NodeProperties,
    NodeRecordProperties,
    /// `$o_i1` (DXIL 1.9): `i1`, or `<N x i1>` when the overload is `<N x T>`.
    OverloadShapedI1,
    /// `$o_i32` (DXIL 1.9): `i32`, or `<N x i32>` when the overload is `<N x T>`.
    OverloadShapedI32,
    /// `$elt` (DXIL 1.9): the element type of the vector overload (`VectorReduce*`, `FDot`).
    OverloadElement,
    /// `$vec9`: `<9 x o>` (a triangle's three object-space positions, SM 6.10).
    OverloadVec9,
    /// `int2`: `<2 x i32>`.
    I32Vec2,
    /// `%dx.types.HitObject` (shader execution reordering).
    HitObject,
    /// `$x<k>`: the `k`-th overload of a multi-overload experimental operation.
    ExtOverload(u8),
    /// `$x_gs<k>`: a groupshared pointer to the `k`-th overload.
    ExtOverloadGroupShared(u8),
}

/// One row of the generated table.
#[derive(Debug)]
pub(crate) struct OpFacts {
    pub(super) overloads: &'static str,
    pub(super) result: ParamTy,
    pub(super) params: &'static [ParamTy],
    pub(super) immediates: u32,
    pub(super) stages: u32,
}
