//! Instructions and terminators.
//!
//! The instruction set is LLVM's, restricted to what DXIL and optimizer-shaped CFG inputs
//! use. Control flow lives only in [`Terminator`]s, so the CFG of a function is read off
//! its blocks' terminators without looking at instructions.

use super::ops::{AtomicRmwOp, BinaryOp, CastOp, FloatPredicate, IntPredicate, Ordering};
use super::types::TypeId;
use super::value::{BlockId, Value};
use smallvec::SmallVec;

#[derive(Clone, PartialEq, Debug)]
pub enum InstKind {
    /// Incoming values by predecessor block, in source order.
    Phi {
        incoming: SmallVec<[(Value, BlockId); 4]>,
    },
    /// Wrap and exactness flags (`nuw`, `nsw`, `exact`) are not kept: they only license
    /// optimisations and change nothing we emit.
    Binary {
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
        /// A float operation the compiler may reassociate or contract: LLVM's `fast`
        /// (LLVM 3.7's unsafe-algebra flag), `reassoc` or `contract`. DXC sets `fast` on
        /// every float operation but `precise` ones; without it the translation must not
        /// fuse or reorder (SPIR-V `NoContraction`). Always false for integers.
        fast: bool,
    },
    FNeg {
        value: Value,
    },
    Cast {
        op: CastOp,
        value: Value,
    },
    ICmp {
        pred: IntPredicate,
        lhs: Value,
        rhs: Value,
    },
    FCmp {
        pred: FloatPredicate,
        lhs: Value,
        rhs: Value,
    },
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
    },
    ExtractValue {
        aggregate: Value,
        indices: SmallVec<[u32; 2]>,
    },
    InsertValue {
        aggregate: Value,
        element: Value,
        indices: SmallVec<[u32; 2]>,
    },
    ExtractElement {
        vector: Value,
        index: Value,
    },
    InsertElement {
        vector: Value,
        element: Value,
        index: Value,
    },
    ShuffleVector {
        lhs: Value,
        rhs: Value,
        mask: Vec<i32>,
    },
    /// `allocated` is the element type; the instruction's type is a pointer to it.
    Alloca {
        allocated: TypeId,
        count: Value,
        align: u32,
    },
    Load {
        ptr: Value,
        align: u32,
        volatile: bool,
    },
    Store {
        ptr: Value,
        value: Value,
        align: u32,
        volatile: bool,
    },
    /// `source` is the type the first index steps over.
    GetElementPtr {
        source: TypeId,
        base: Value,
        indices: SmallVec<[Value; 4]>,
        in_bounds: bool,
    },
    AtomicRmw {
        op: AtomicRmwOp,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        volatile: bool,
    },
    CmpXchg {
        ptr: Value,
        expected: Value,
        replacement: Value,
        success: Ordering,
        failure: Ordering,
        weak: bool,
        volatile: bool,
    },
    Fence {
        ordering: Ordering,
    },
    Call {
        callee: Value,
        args: SmallVec<[Value; 8]>,
    },
    Freeze {
        value: Value,
    },
    VaArg {
        list: Value,
    },
}

#[derive(Clone, PartialEq, Debug)]
pub struct Inst {
    /// The LLVM name, kept for dumps; `None` for unnamed (numbered) values.
    pub name: Option<String>,
    /// Result type; `void` for instructions that produce nothing.
    pub ty: TypeId,
    pub kind: InstKind,
}

impl InstKind {
    /// Every value operand, in order (PHI incoming values included, blocks excluded).
    pub fn operands(&self) -> SmallVec<[Value; 4]> {
        let mut v = SmallVec::new();
        self.for_each_operand(|x| v.push(x));
        v
    }

    /// [`InstKind::operands`] without collecting them (calls often have more than four).
    pub fn for_each_operand(&self, mut f: impl FnMut(Value)) {
        use InstKind::*;
        match self {
            Phi { incoming } => incoming.iter().for_each(|(x, _)| f(*x)),
            Binary { lhs, rhs, .. } | ICmp { lhs, rhs, .. } | FCmp { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs);
            }
            FNeg { value } | Cast { value, .. } | Freeze { value } => f(*value),
            Select { cond, if_true, if_false } => [*cond, *if_true, *if_false].into_iter().for_each(f),
            ExtractValue { aggregate, .. } => f(*aggregate),
            InsertValue { aggregate, element, .. } => [*aggregate, *element].into_iter().for_each(f),
            ExtractElement { vector, index } => [*vector, *index].into_iter().for_each(f),
            InsertElement { vector, element, index } => [*vector, *element, *index].into_iter().for_each(f),
            ShuffleVector { lhs, rhs, .. } => [*lhs, *rhs].into_iter().for_each(f),
            Alloca { count, .. } => f(*count),
            Load { ptr, .. } => f(*ptr),
            Store { ptr, value, .. } => [*ptr, *value].into_iter().for_each(f),
            GetElementPtr { base, indices, .. } => {
                f(*base);
                indices.iter().for_each(|x| f(*x));
            }
            AtomicRmw { ptr, value, .. } => [*ptr, *value].into_iter().for_each(f),
            CmpXchg { ptr, expected, replacement, .. } => [*ptr, *expected, *replacement].into_iter().for_each(f),
            Fence { .. } => {}
            Call { callee, args } => {
                f(*callee);
                args.iter().for_each(|x| f(*x));
            }
            VaArg { list } => f(*list),
        }
    }

    /// Whether the instruction computes its result from its operands alone: LLVM
    /// arithmetic (integer division and remainder included: no effect, though a zero divisor
    /// gives no defined value), casts other than to and from pointers, comparisons,
    /// `select`, `freeze`, and aggregate and vector element operations. No memory, no call,
    /// no PHI.
    pub fn is_pure_arithmetic(&self) -> bool {
        use InstKind::*;
        match self {
            Binary { .. }
            | FNeg { .. }
            | ICmp { .. }
            | FCmp { .. }
            | Select { .. }
            | Freeze { .. }
            | ExtractValue { .. }
            | InsertValue { .. }
            | ExtractElement { .. }
            | InsertElement { .. }
            | ShuffleVector { .. } => true,
            Cast { op, .. } => !matches!(
                op,
                super::ops::CastOp::PtrToInt | super::ops::CastOp::IntToPtr | super::ops::CastOp::AddrSpaceCast
            ),
            _ => false,
        }
    }

    pub fn is_phi(&self) -> bool {
        matches!(self, InstKind::Phi { .. })
    }
}

/// How a block ends. Successor order is the LLVM operand order (true before false,
/// default before cases).
#[derive(Clone, PartialEq, Debug)]
pub enum Terminator {
    Br {
        target: BlockId,
    },
    CondBr {
        cond: Value,
        if_true: BlockId,
        if_false: BlockId,
    },
    /// `cases` keep source order; values are zero-extended to `u64`.
    Switch {
        value: Value,
        default: BlockId,
        cases: Vec<(u64, BlockId)>,
    },
    Ret {
        value: Option<Value>,
    },
    Unreachable,
}

impl Terminator {
    /// Successor blocks in operand order; a block appears once per edge.
    pub fn successors(&self) -> SmallVec<[BlockId; 2]> {
        match self {
            Terminator::Br { target } => smallvec::smallvec![*target],
            Terminator::CondBr { if_true, if_false, .. } => smallvec::smallvec![*if_true, *if_false],
            Terminator::Switch { default, cases, .. } => {
                let mut v = SmallVec::with_capacity(cases.len() + 1);
                v.push(*default);
                v.extend(cases.iter().map(|(_, b)| *b));
                v
            }
            Terminator::Ret { .. } | Terminator::Unreachable => SmallVec::new(),
        }
    }

    pub fn successors_mut(&mut self) -> SmallVec<[&mut BlockId; 2]> {
        match self {
            Terminator::Br { target } => smallvec::smallvec![target],
            Terminator::CondBr { if_true, if_false, .. } => smallvec::smallvec![if_true, if_false],
            Terminator::Switch { default, cases, .. } => {
                let mut v: SmallVec<[&mut BlockId; 2]> = SmallVec::with_capacity(cases.len() + 1);
                v.push(default);
                v.extend(cases.iter_mut().map(|(_, b)| b));
                v
            }
            Terminator::Ret { .. } | Terminator::Unreachable => SmallVec::new(),
        }
    }

    pub fn operands(&self) -> SmallVec<[Value; 1]> {
        match self {
            Terminator::CondBr { cond, .. } => smallvec::smallvec![*cond],
            Terminator::Switch { value, .. } => smallvec::smallvec![*value],
            Terminator::Ret { value: Some(v) } => smallvec::smallvec![*v],
            _ => SmallVec::new(),
        }
    }
}
