//! DXIL 1.9 long vectors (native vectors of 5 to 1024 lanes) as SPIR-V arrays.
//!
//! SPIR-V vectors have 2 to 4 components for shaders (`Vector16` is Kernel-only), and
//! `SPV_EXT_long_vector` is not known to the validator this project checks against
//! (SPIRV-Tools v2025.5), so a `<N x T>` with N > 4 is an `OpTypeArray` of N `T`s
//! ([`ModuleBuilder::ty`]); vectors of 2 to 4 lanes stay `OpTypeVector`s.
//!
//! # Invariants
//!
//! - Every value id of such an array type is noted in the module builder
//!   ([`ModuleBuilder::note_value`]) where it is made: results of [`FnEmit::ids_op`],
//!   constants, undefs, nulls and `OpPhi`s. [`FnEmit::lanewise`] reads that note to tell a
//!   long operand (split into lanes) from a scalar one (a `select`'s `i1` condition, kept).
//! - An element-wise opcode ([`elementwise`]) whose result is a long vector is emitted once
//!   per lane on the lanes' `OpCompositeExtract`s, and the lanes rebuilt with
//!   `OpCompositeConstruct`: N + 1 instructions plus N extracts per long operand.
//! - Any other opcode with a long result or a long operand (besides the composite,
//!   memory and `OpPhi` instructions, which take arrays as they take vectors) is refused
//!   with a typed error naming the opcode, never emitted on an array (invalid SPIR-V).
//! - A dynamic `extractelement`/`insertelement` goes through one `Function` variable per
//!   array type (planned by `FnEmit::plan_variables`): store, `OpAccessChain`, load/store.
//!   Its index is clamped to the last lane (LLVM gives poison past the end; an unclamped
//!   access chain would be out of bounds).

use crate::emit::error::{Error, Result};
use crate::emit::FnEmit;
use rspirv::spirv::{Op, StorageClass, Word};

/// Whether `op` computes each result lane from the same lane of its vector operands.
pub fn elementwise(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | Not
            | SNegate
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | FNegate
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | IEqual
            | INotEqual
            | UGreaterThan
            | UGreaterThanEqual
            | ULessThan
            | ULessThanEqual
            | SGreaterThan
            | SGreaterThanEqual
            | SLessThan
            | SLessThanEqual
            | FOrdEqual
            | FOrdNotEqual
            | FOrdLessThan
            | FOrdLessThanEqual
            | FOrdGreaterThan
            | FOrdGreaterThanEqual
            | FUnordEqual
            | FUnordNotEqual
            | FUnordLessThan
            | FUnordLessThanEqual
            | FUnordGreaterThan
            | FUnordGreaterThanEqual
            | IsNan
            | IsInf
            | Select
            | UConvert
            | SConvert
            | FConvert
            | ConvertFToU
            | ConvertFToS
            | ConvertUToF
            | ConvertSToF
            | QuantizeToF16
            | Bitcast
            | CopyObject
            | BitCount
            | BitReverse
            | ExtInst
    )
}

/// Opcodes that take and make arrays as they do vectors: composites, memory, `OpPhi`.
fn array_ready(op: Op) -> bool {
    use Op::*;
    matches!(op, CompositeExtract | CompositeInsert | CompositeConstruct | Load | Store | Phi | CopyObject)
}

impl FnEmit<'_, '_> {
    /// `opcode` of result type `ty` on `ids` when a long vector is involved: lane by lane
    /// for element-wise opcodes, a typed error for the rest; `None` when no long vector
    /// is involved (the caller emits the instruction as it is).
    pub fn lanewise(&mut self, opcode: Op, ty: Word, ids: &[Word]) -> Result<Option<Word>> {
        if !self.cx.has_long_types() {
            return Ok(None);
        }
        // `OpExtInst`'s set and instruction number are not values.
        let first = if opcode == Op::ExtInst { 2 } else { 0 };
        let long_result = self.cx.long_type(ty);
        let long_operand = ids.iter().skip(first).find_map(|&w| self.cx.long_value(w));
        if long_result.is_none() && long_operand.is_none() {
            return Ok(None);
        }
        if array_ready(opcode) {
            return Ok(None);
        }
        let Some((elem, n)) = long_result.filter(|_| elementwise(opcode)) else {
            return Err(self.long_refusal(&format!("Op{opcode:?}")));
        };
        let lens_agree = ids.iter().skip(first).filter_map(|&w| self.cx.long_value(w)).all(|(_, m)| m == n);
        if !lens_agree {
            return Err(self.long_refusal(&format!("Op{opcode:?} between vectors of different lengths")));
        }
        let mut lanes = Vec::with_capacity(n as usize);
        let mut ops = ids.to_vec();
        for k in 0..n {
            for (j, &w) in ids.iter().enumerate().skip(first) {
                if let Some((e, _)) = self.cx.long_value(w) {
                    ops[j] = self.cx.b.block_value(Op::CompositeExtract, e, &[w, k])?;
                }
            }
            lanes.push(self.cx.b.block_value(opcode, elem, &ops)?);
        }
        let w = self.cx.b.block_value(Op::CompositeConstruct, ty, &lanes)?;
        self.cx.note_value(w, ty);
        Ok(Some(w))
    }

    /// The typed error for an operation whose long-vector form is not lowered.
    #[cold]
    pub fn long_refusal(&self, what: &str) -> Error {
        self.err(format!(
            "{what} on a DXIL 1.9 long vector (more than 4 lanes, lowered to an array): its long-vector form isn't lowered"
        ))
    }

    /// Lane `index` (a 32-bit id, any value) of the long vector `v` of array type `vty`.
    pub fn long_extract_dynamic(&mut self, vty: Word, elem: Word, v: Word, index: Word) -> Result<Word> {
        let p = self.long_lane_ptr(vty, elem, v, index)?;
        self.ids_op(Op::Load, elem, &[p])
    }

    /// `v` (of array type `vty`) with lane `index` replaced by `e`.
    pub fn long_insert_dynamic(&mut self, vty: Word, elem: Word, v: Word, e: Word, index: Word) -> Result<Word> {
        let p = self.long_lane_ptr(vty, elem, v, index)?;
        self.ids_void(Op::Store, &[p, e])?;
        let var = self.long_scratch(vty)?;
        self.ids_op(Op::Load, vty, &[var])
    }

    /// Stores `v` in the scratch variable of `vty` and returns a pointer to lane `index`
    /// (clamped to the last lane).
    fn long_lane_ptr(&mut self, vty: Word, elem: Word, v: Word, index: Word) -> Result<Word> {
        let (_, n) = self.cx.long_type(vty).ok_or_else(|| Error::Internal("long lane of a non-long vector".into()))?;
        let var = self.long_scratch(vty)?;
        self.ids_void(Op::Store, &[var, v])?;
        let u = self.cx.u32_t();
        let last = self.cx.const_u32(n - 1);
        let i = self.glsl(u, crate::emit::glsl::UMIN, &[index, last])?;
        let pt = self.cx.ptr(StorageClass::Function, elem);
        self.ids_op(Op::AccessChain, pt, &[var, i])
    }

    /// The scratch variable of array type `vty` (planned for every dynamic lane access).
    fn long_scratch(&self, vty: Word) -> Result<Word> {
        self.long_scratch
            .get(&vty)
            .copied()
            .ok_or_else(|| Error::Internal("long-vector scratch variable not planned".into()))
    }

    /// `VectorShuffle` when an operand or the result is a long vector: each lane extracted
    /// from its source (`u32::MAX` in `mask`: undefined) and the result constructed.
    pub fn long_shuffle(
        &mut self,
        t: Word,
        elem: Word,
        (a, b): (Word, Word),
        a_len: u32,
        mask: &[i32],
    ) -> Result<Word> {
        let mut lanes = Vec::with_capacity(mask.len());
        for &k in mask {
            let w = match u32::try_from(k) {
                Ok(k) if k < a_len => self.ids_op(Op::CompositeExtract, elem, &[a, k])?,
                Ok(k) => self.ids_op(Op::CompositeExtract, elem, &[b, k - a_len])?,
                Err(_) => self.cx.undef(elem),
            };
            lanes.push(w);
        }
        self.ids_op(Op::CompositeConstruct, t, &lanes)
    }
}
