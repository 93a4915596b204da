//! Derivatives of draw-uniform values: an explicit screen-space derivative (`dx.op`
//! `DerivCoarseX/Y`, `DerivFineX/Y`) whose operand has the same value in every invocation
//! of the draw or dispatch becomes `fsub x, x`.
//!
//! # Why
//!
//! A derivative is the difference between the operand's values in two lanes of a quad. When
//! the operand is the same in every lane (a constant, a constant-buffer value read at a
//! uniform address, math on such values), that difference is `x - x`: 0, or NaN where `x`
//! is infinite or NaN, exactly what the hardware's subtraction gives. Computing it as a
//! subtraction instead of a derivative changes no defined result and gains twice:
//! - **Defined everywhere.** `OpDPdx*` in divergent control flow is undefined in SPIR-V
//!   (NVIDIA's inactive lanes read as 0, so `ddx_coarse(cb.x)` after an early `return`
//!   reads `cb.x - 0` there); the subtraction needs no other lane. vkd3d-proton's
//!   `test_derivative_hoisting` has such derivatives of constant-buffer values, which
//!   [`super::derivative_hoisting`] cannot move (it never speculates memory reads).
//! - **Cheaper.** A derivative is a cross-lane exchange the driver must keep in quad-uniform
//!   flow with its helper lanes; NVIDIA does not fold it for uniform operands. On the H200,
//!   replacing the two coarse derivatives of constant-buffer values in
//!   `ps_derivative_hoisting` by subtractions made its full-screen draws 9.4% faster (1,126
//!   against 1,020 µs for ten 1024² draws; BENCHMARKS.md, issue 36's sixth pass).
//!
//! # Draw-uniform values
//!
//! Conservatively, a value is *draw-uniform* when it is:
//! - a constant other than `undef`/`poison` (each invocation may see another value of
//!   those);
//! - a constant-buffer read (`CBufferLoadLegacy`, `CBufferLoad`) whose handle and operands
//!   are draw-uniform: constant buffers do not change during a draw, helper lanes included;
//! - a handle (`CreateHandle`, `CreateHandleFromBinding`, `CreateHandleFromHeap`,
//!   `AnnotateHandle`) whose operands are draw-uniform: the same descriptor everywhere;
//! - pure arithmetic on draw-uniform operands: LLVM's arithmetic, casts, comparisons,
//!   `select`, `freeze` and aggregate and vector element operations, and the `dx.op` math
//!   classes (`unary`, `binary`, `tertiary`, dot products, bit and conversion operations;
//!   a derivative among them is itself `x - x` of a uniform value).
//!
//! Everything else is not: PHIs (a branch may choose between uniform values), memory
//! loads, inputs and system values, wave operations, and any other call. The answer is
//! memoized per instruction; operand chains deeper than [`MAX_DEPTH`] count as not uniform,
//! so adversarial input costs bounded stack.
//!
//! # Invariant
//!
//! The rewritten function has the same blocks, edges and instruction ids as the input; only
//! the kinds of the rewritten derivatives change, to a `fsub` of the same operand with the
//! same type (the derivative's result type is its operand's, which the type check has
//! verified), so SSA dominance and types still hold.
//!
//! # Cost
//!
//! One scan for derivative calls (an opcode lookup per call); none: no allocation, no copy.
//! Otherwise each instruction's uniformity is decided at most once (O(operands)), and the
//! function is copied once.

use crate::dxil::opcodes::DxOp;
use crate::dxil::ops::decode_call_with;
use crate::ir::{BinaryOp, ConstKind, Function, InstId, InstKind, Module, Value};
use cranelift_entity::SecondaryMap;

/// The deepest operand chain examined; deeper ones count as not uniform.
pub const MAX_DEPTH: usize = 64;

/// What the pass did to one function.
#[derive(Clone, Debug)]
pub struct Folded {
    /// The rewritten function.
    pub function: Function,
    /// Derivatives rewritten as subtractions.
    pub derivatives: usize,
}

/// Rewrites the derivatives of draw-uniform values in `f` as `fsub x, x`; `None` when there
/// is none.
pub fn run(m: &Module, f: &Function) -> Option<Folded> {
    // Made at the first derivative: a shader without one allocates nothing.
    let mut analysis: Option<Uniformity<'_>> = None;
    let mut folds: Vec<(InstId, Value)> = Vec::new();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let Some(operand) = derivative_operand(m, f, i) else { continue };
            let Some(operand_ty) = m.value_type(f, operand) else { continue };
            if m.types.get(f.insts[i].ty) != m.types.get(operand_ty) {
                continue;
            }
            let analysis = analysis.get_or_insert_with(|| Uniformity { m, f, state: SecondaryMap::new() });
            if analysis.value(operand, 0) {
                folds.push((i, operand));
            }
        }
    }
    if folds.is_empty() {
        return None;
    }
    let mut function = f.clone();
    for &(i, x) in &folds {
        // `fast`: the subtraction of a value from itself needs no `NoContraction`, and a
        // driver that folds it to 0 gives the derivative's value for every finite `x`.
        function.insts[i].kind = InstKind::Binary { op: BinaryOp::FSub, lhs: x, rhs: x, fast: true };
    }
    Some(Folded { function, derivatives: folds.len() })
}

/// The operand of an explicit derivative (`DerivCoarseX/Y`, `DerivFineX/Y`), read off the
/// call's opcode operand: the scan costs a lookup per call, not a decoding of the callee's
/// name, in the many shaders without derivatives.
fn derivative_operand(m: &Module, f: &Function, i: InstId) -> Option<Value> {
    let InstKind::Call { callee: Value::Func(callee), args } = &f.insts[i].kind else { return None };
    let &[Value::Const(opcode), operand] = args.as_slice() else { return None };
    let op = DxOp::from_u32(u32::try_from(m.constants.as_int(opcode)?).ok()?)?;
    (op.is_derivative() && m.functions[*callee].name.starts_with("dx.op.")).then_some(operand)
}

/// Memoized answers, by instruction.
#[derive(Copy, Clone, Default, PartialEq)]
enum State {
    #[default]
    Unknown,
    /// Being decided: a cycle (only possible through unreachable code) is not uniform.
    Visiting,
    Uniform,
    Varying,
}

struct Uniformity<'a> {
    m: &'a Module,
    f: &'a Function,
    state: SecondaryMap<InstId, State>,
}

impl Uniformity<'_> {
    /// Whether `v` is draw-uniform (see the module docs).
    fn value(&mut self, v: Value, depth: usize) -> bool {
        match v {
            Value::Const(c) => !matches!(self.m.constants.get(c).kind, ConstKind::Undef | ConstKind::Poison),
            // A callee: the same function everywhere.
            Value::Metadata | Value::Func(_) => true,
            Value::Inst(i) => self.inst(i, depth),
            Value::Arg(_) | Value::Global(_) => false,
        }
    }

    fn inst(&mut self, i: InstId, depth: usize) -> bool {
        match self.state[i] {
            State::Uniform => return true,
            State::Varying | State::Visiting => return false,
            State::Unknown => {}
        }
        if depth >= MAX_DEPTH {
            return false;
        }
        self.state[i] = State::Visiting;
        let uniform =
            self.pure_kind(i) && self.f.insts[i].kind.operands().into_iter().all(|v| self.value(v, depth + 1));
        self.state[i] = if uniform { State::Uniform } else { State::Varying };
        uniform
    }

    /// `i` computes its result from its operands alone, the same in every invocation that
    /// gives it the same operands.
    fn pure_kind(&self, i: InstId) -> bool {
        match &self.f.insts[i].kind {
            InstKind::Call { .. } => {
                let Some(call) = decode_call_with(self.m, self.f, i, String::new).ok().flatten() else { return false };
                uniform_given_uniform_operands(call.op)
            }
            kind => kind.is_pure_arithmetic(),
        }
    }
}

/// `dx.op`s whose result is draw-uniform when their operands are: the math classes, and the
/// handle and constant-buffer reads (constant buffers stay the same for a whole draw).
fn uniform_given_uniform_operands(op: DxOp) -> bool {
    use DxOp::*;
    if matches!(
        op,
        CreateHandle
            | CreateHandleFromBinding
            | CreateHandleFromHeap
            | AnnotateHandle
            | CBufferLoad
            | CBufferLoadLegacy
    ) {
        return true;
    }
    // The math classes hold only pure operations, and the explicit derivatives, whose
    // value on a uniform operand is the uniform `x - x`.
    matches!(
        op.class(),
        "unary"
            | "unaryBits"
            | "isSpecialFloat"
            | "binary"
            | "binaryWithTwoOuts"
            | "binaryWithCarryOrBorrow"
            | "tertiary"
            | "quaternary"
            | "dot2"
            | "dot3"
            | "dot4"
            | "dot"
            | "dot2AddHalf"
            | "dot4AddPacked"
            | "vectorReduce"
            | "unpack4x8"
            | "pack4x8"
            | "makeDouble"
            | "splitDouble"
            | "bitcastI16toF16"
            | "bitcastF16toI16"
            | "bitcastI32toF32"
            | "bitcastF32toI32"
            | "bitcastI64toF64"
            | "bitcastF64toI64"
            | "legacyF32ToF16"
            | "legacyF16ToF32"
            | "legacyDoubleToFloat"
            | "legacyDoubleToSInt32"
            | "legacyDoubleToUInt32"
    )
}
