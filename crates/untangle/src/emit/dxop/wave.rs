//! Wave (subgroup) and quad operations as `OpGroupNonUniform*` at subgroup scope.
//!
//! `WaveMatch` and `WaveMultiPrefix*` run once per partition of lanes with equal keys
//! (`FnEmit::partition_loop`). A `WaveMultiPrefix*` mask is ANDed with the ballot of the
//! participating lanes first (D3D: "the mask is ANDed with the active lanes"), so bits of
//! inactive lanes, or of lanes past the wave size, never split a partition.
//!
//! `WaveActiveOp(value, op, sign)`: op 0 sum, 1 product, 2 min, 3 max; sign 0 signed,
//! 1 unsigned; `WavePrefixOp` is the exclusive scan of the same. `WaveActiveBit`: 0 and,
//! 1 or, 2 xor. `QuadOp`: 0 across X, 1 across Y, 2 diagonal (`OpGroupNonUniformQuadSwap`).
//! `QuadVote` (SM 6.7): 0 any, 1 all of the quad, from three quad swaps.
//!
//! # Quads in compute-like stages
//!
//! Before SM 6.6 a quad is four consecutive lanes. From SM 6.6, in compute, mesh,
//! amplification and node shaders, quad operations follow compute derivatives: quads are
//! 2x2 threads of the group's X and Y when both are even, else four consecutive threads
//! (flattened group index); vkd3d-proton's `test_shader_sm66_quad_op_semantics` checks both.
//! The entry then declares `DerivativeGroupQuadsKHR` or `DerivativeGroupLinearKHR`
//! ([`crate::emit::ThreadQuads::QuadOps`]), which makes `OpGroupNonUniformQuad*` work on
//! those quads (on NVIDIA, as dxil-spirv relies on); a group whose size is not a multiple
//! of 4 has no such quads and keeps the lanes'.
//!
//! # Helper lanes
//!
//! D3D leaves a pixel shader's helper lanes (quad members outside the primitive, and lanes
//! that `discard` demoted) out of wave operations unless the entry declares SM 6.7's
//! `[WaveOpsIncludeHelperLanes]`; Vulkan counts helper invocations as active in subgroup
//! operations. Where `StageIo::wave_excludes_helpers` says so (pixel shaders without the
//! attribute, under `Options::strict_helper_lane_wave_ops`), every operation that
//! depends on which lanes are active asks `OpIsHelperInvocationEXT` at that point (so a
//! lane demoted earlier counts as a helper, as `IsHelperLane` does) and leaves helpers out:
//!
//! | Operation | Helpers |
//! |---|---|
//! | `WaveActiveBallot`, `WaveActiveCountBits`, `WavePrefixCountBits` | vote false |
//! | `WaveActiveAnyTrue` / `WaveActiveAllTrue` | vote false / true |
//! | `WaveActiveOp`, `WavePrefixOp`, `WaveActiveBit` | feed the identity: 0 (sum, or, xor, unsigned max), 1 (product), all ones (and, unsigned min), the signed maximum (signed min), the signed minimum (signed max), -0.0 (float sum), +inf / -inf (float min / max) |
//! | `WaveIsFirstLane` | false; the lane with no non-helper lane below it is first |
//! | `WaveReadLaneFirst` | read the lowest non-helper lane (0 when every lane is a helper, as drivers return) |
//! | `WaveActiveAllEqual` | take the lowest non-helper lane's value (true when every lane is a helper) |
//! | `WaveMatch`, `WaveMultiPrefix*` | stay out of the partition loop (undefined result) |
//!
//! `WaveGetLaneIndex`, `WaveGetLaneCount`, `WaveReadLaneAt` and the quad operations keep
//! helpers, which quads need.

use crate::dxil::DxOp;
use crate::emit::error::{malformed, Result, Subject};
use crate::emit::function::PartitionKeys;
use crate::emit::{Call, FnEmit, Num, ThreadQuads};
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Capability, GroupOperation, Op, Scope, StorageClass, Word};

const FAMILY: &str = "wave";

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn wave_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        use DxOp::*;
        self.cx.capability(Capability::GroupNonUniform);
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let b = self.cx.bool_t();
        let w = match c.op {
            WaveIsFirstLane => {
                let x = match self.helper_lane()? {
                    None => self.ids_op(Op::GroupNonUniformElect, b, &[sg])?,
                    Some(helper) => {
                        // No non-helper lane below this one, and not a helper itself.
                        let (active, ballot) = self.non_helper_ballot(helper)?;
                        let u = self.cx.u32_t();
                        let scan = GroupOperation::ExclusiveScan as u32;
                        let below = self.ids_op(Op::GroupNonUniformBallotBitCount, u, &[sg, scan, ballot])?;
                        let zero = self.cx.const_u32(0);
                        let none_below = self.ids_op(Op::IEqual, b, &[below, zero])?;
                        self.ids_op(Op::LogicalAnd, b, &[active, none_below])?
                    }
                };
                self.num_to_ir(x, Num::Bool, c.ty)?
            }
            WaveGetLaneCount if self.iface.stage.wave_lane_count.is_some() => {
                let n = self.iface.stage.wave_lane_count.unwrap_or(0);
                self.cx.const_u32(n)
            }
            WaveGetLaneIndex | WaveGetLaneCount => {
                let bi =
                    if c.op == WaveGetLaneIndex { BuiltIn::SubgroupLocalInvocationId } else { BuiltIn::SubgroupSize };
                let u = self.cx.u32_t();
                let var = self.iface.builtin(self.cx, bi, StorageClass::Input, u);
                if self.sm.kind == crate::front::container::ShaderKind::Pixel {
                    self.cx.decorate(var, rspirv::spirv::Decoration::Flat, &[]);
                }
                self.ids_op(Op::Load, u, &[var])?
            }
            WaveAnyTrue | WaveAllTrue => {
                self.cx.capability(Capability::GroupNonUniformVote);
                let mut x = self.arg_val(c, 0)?;
                if let Some(helper) = self.helper_lane()? {
                    // Helpers vote false for any, true for all.
                    x = if c.op == WaveAnyTrue {
                        let active = self.ids_op(Op::LogicalNot, b, &[helper])?;
                        self.ids_op(Op::LogicalAnd, b, &[x, active])?
                    } else {
                        self.ids_op(Op::LogicalOr, b, &[x, helper])?
                    };
                }
                let op = if c.op == WaveAnyTrue { Op::GroupNonUniformAny } else { Op::GroupNonUniformAll };
                let r = self.ids_op(op, b, &[sg, x])?;
                self.num_to_ir(r, Num::Bool, c.ty)?
            }
            WaveActiveAllEqual => {
                self.cx.capability(Capability::GroupNonUniformVote);
                let mut x = self.arg_val(c, 0)?;
                let helper = self.helper_lane()?;
                let mut none = None;
                if let Some(helper) = helper {
                    // Helpers repeat the first non-helper lane's value.
                    let t = self.arg_ty(c, 0)?;
                    let t = self.cx.ty(t)?;
                    let (first, any) = self.read_first_non_helper(helper, x, t)?;
                    x = self.ids_op(Op::Select, t, &[helper, first, x])?;
                    none = Some(self.ids_op(Op::LogicalNot, b, &[any])?);
                }
                let mut r = self.ids_op(Op::GroupNonUniformAllEqual, b, &[sg, x])?;
                if let Some(none) = none {
                    r = self.ids_op(Op::LogicalOr, b, &[r, none])?;
                }
                self.num_to_ir(r, Num::Bool, c.ty)?
            }
            WaveActiveBallot => {
                let v = self.ballot_of_arg(c, sg)?;
                let u = self.cx.u32_t();
                let mut comps = Vec::new();
                for k in 0..4 {
                    comps.push(self.extract(u, v, k)?);
                }
                self.make_ret(c.ty, &comps, None)?
            }
            WaveReadLaneFirst => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let t = self.cx.ty(c.ty)?;
                let x = self.arg_val(c, 0)?;
                match self.helper_lane()? {
                    None => self.ids_op(Op::GroupNonUniformBroadcastFirst, t, &[sg, x])?,
                    Some(helper) => {
                        let (first, any) = self.read_first_non_helper(helper, x, t)?;
                        let zero = self.cx.null(t);
                        self.ids_op(Op::Select, t, &[any, first, zero])?
                    }
                }
            }
            WaveReadLaneAt => {
                self.cx.capability(Capability::GroupNonUniformShuffle);
                let t = self.cx.ty(c.ty)?;
                let x = self.arg_val(c, 0)?;
                let lane = self.arg_val(c, 1)?;
                self.ids_op(Op::GroupNonUniformShuffle, t, &[sg, x, lane])?
            }
            WaveActiveOp | WavePrefixOp => {
                self.cx.capability(Capability::GroupNonUniformArithmetic);
                let float = self.is_float_ty(c.ty);
                // `i1` (allowed by the overload list) is not a SPIR-V integer: operate on its
                // sign extension (0 or all ones), whose low bit follows i1 arithmetic for every
                // operation (sum: parity, product: and, min/max: or/and), and take bit 0.
                let boolean = matches!(self.cx.m.types.get(c.ty), crate::ir::Type::Int(1));
                let t = if boolean { self.cx.u32_t() } else { self.cx.ty(c.ty)? };
                let op = self.arg_const(c, 1)?;
                let unsigned = self.arg_const(c, 2)? == 1;
                let opcode = match (op, float, unsigned) {
                    (0, true, _) => Op::GroupNonUniformFAdd,
                    (0, false, _) => Op::GroupNonUniformIAdd,
                    (1, true, _) => Op::GroupNonUniformFMul,
                    (1, false, _) => Op::GroupNonUniformIMul,
                    (2, true, _) => Op::GroupNonUniformFMin,
                    (2, false, false) => Op::GroupNonUniformSMin,
                    (2, false, true) => Op::GroupNonUniformUMin,
                    (3, true, _) => Op::GroupNonUniformFMax,
                    (3, false, false) => Op::GroupNonUniformSMax,
                    (3, false, true) => Op::GroupNonUniformUMax,
                    _ => return Err(self.invalid(c, "operand 1", format!("wave operation kind {op}"))),
                };
                let mut x = self.arg_val(c, 0)?;
                if boolean {
                    let (ones, zero) = (self.cx.const_u32(u32::MAX), self.cx.const_u32(0));
                    x = self.ids_op(Op::Select, t, &[x, ones, zero])?;
                }
                let bits = if boolean { 32 } else { self.scalar_bits(c.ty).unwrap_or(32) };
                x = self.non_helper_input(x, opcode, t, bits)?;
                let group = if c.op == WaveActiveOp { GroupOperation::Reduce } else { GroupOperation::ExclusiveScan };
                let r = self.ids_op(opcode, t, &[sg, group as u32, x])?;
                if boolean {
                    let one = self.cx.const_u32(1);
                    let zero = self.cx.const_u32(0);
                    let low = self.ids_op(Op::BitwiseAnd, t, &[r, one])?;
                    self.ids_op(Op::INotEqual, b, &[low, zero])?
                } else {
                    r
                }
            }
            WaveActiveBit => {
                self.cx.capability(Capability::GroupNonUniformArithmetic);
                let t = self.cx.ty(c.ty)?;
                let opcode = match self.arg_const(c, 1)? {
                    0 => Op::GroupNonUniformBitwiseAnd,
                    1 => Op::GroupNonUniformBitwiseOr,
                    _ => Op::GroupNonUniformBitwiseXor,
                };
                let x = self.arg_val(c, 0)?;
                let bits = self.scalar_bits(c.ty).unwrap_or(32);
                let x = self.non_helper_input(x, opcode, t, bits)?;
                self.ids_op(opcode, t, &[sg, GroupOperation::Reduce as u32, x])?
            }
            WaveAllBitCount | WavePrefixBitCount => {
                let v = self.ballot_of_arg(c, sg)?;
                let u = self.cx.u32_t();
                let group =
                    if c.op == WaveAllBitCount { GroupOperation::Reduce } else { GroupOperation::ExclusiveScan };
                self.ids_op(Op::GroupNonUniformBallotBitCount, u, &[sg, group as u32, v])?
            }
            QuadReadLaneAt | QuadOp => {
                self.quad_op_layout();
                self.cx.capability(Capability::GroupNonUniformQuad);
                let t = self.cx.ty(c.ty)?;
                let x = self.arg_val(c, 0)?;
                if c.op == QuadReadLaneAt {
                    let lane = self.arg_val(c, 1)?;
                    self.ids_op(Op::GroupNonUniformQuadBroadcast, t, &[sg, x, lane])?
                } else {
                    let dir = self.arg_const(c, 1)?;
                    if dir > 2 {
                        return Err(self.invalid(c, "operand 1", format!("quad operation kind {dir}")));
                    }
                    let d = self.cx.const_u32(dir as u32);
                    self.ids_op(Op::GroupNonUniformQuadSwap, t, &[sg, x, d])?
                }
            }
            QuadVote => {
                // Any (0) or all (1) of the quad's four lanes: the lane's own value combined
                // with those across X, Y and the diagonal (DXC emulates it the same way for
                // older targets, `DxilPreparePasses.cpp` `convertQuadVote`).
                self.quad_op_layout();
                self.cx.capability(Capability::GroupNonUniformQuad);
                let x = self.arg_val(c, 0)?;
                let all = match self.arg_const(c, 1)? {
                    0 => false,
                    1 => true,
                    k => return Err(self.invalid(c, "operand 1", format!("quad vote kind {k}"))),
                };
                let combine = if all { Op::LogicalAnd } else { Op::LogicalOr };
                let mut acc = x;
                for dir in 0..3 {
                    let d = self.cx.const_u32(dir);
                    let other = self.ids_op(Op::GroupNonUniformQuadSwap, b, &[sg, x, d])?;
                    acc = self.ids_op(combine, b, &[acc, other])?;
                }
                acc
            }
            WaveMatch => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let keys = self.key_words(c, 0)?;
                let u = self.cx.u32_t();
                let u4 = self.cx.vec(u, 4);
                let b2 = b;
                let skip = self.helper_lane()?;
                let mask = self.partition_loop(PartitionKeys::Values(&keys), u4, skip, |me| {
                    let t = me.cx.b.constant_true(b2);
                    me.ids_op(Op::GroupNonUniformBallot, u4, &[sg, t])
                })?;
                let mut comps = Vec::new();
                for k in 0..4 {
                    comps.push(self.extract(u, mask, k)?);
                }
                self.make_ret(c.ty, &comps, None)?
            }
            WaveMultiPrefixOp | WaveMultiPrefixBitCount => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                self.cx.capability(Capability::GroupNonUniformArithmetic);
                let keys = [self.arg_val(c, 1)?, self.arg_val(c, 2)?, self.arg_val(c, 3)?, self.arg_val(c, 4)?];
                let keys = PartitionKeys::LaneMask(&keys);
                let x = self.arg_val(c, 0)?;
                let t = self.cx.ty(c.ty)?;
                let scan = GroupOperation::ExclusiveScan as u32;
                let skip = self.helper_lane()?;
                if c.op == WaveMultiPrefixBitCount {
                    let u = self.cx.u32_t();
                    let u4 = self.cx.vec(u, 4);
                    self.partition_loop(keys, t, skip, |me| {
                        let v = me.ids_op(Op::GroupNonUniformBallot, u4, &[sg, x])?;
                        me.ids_op(Op::GroupNonUniformBallotBitCount, t, &[sg, scan, v])
                    })?
                } else {
                    // Kinds: 0 sum, 1 and, 2 or, 3 xor, 4 product.
                    let float = self.is_float_ty(c.ty);
                    let opcode = match (self.arg_const(c, 5)?, float) {
                        (0, true) => Op::GroupNonUniformFAdd,
                        (0, false) => Op::GroupNonUniformIAdd,
                        (1, false) => Op::GroupNonUniformBitwiseAnd,
                        (2, false) => Op::GroupNonUniformBitwiseOr,
                        (3, false) => Op::GroupNonUniformBitwiseXor,
                        (4, true) => Op::GroupNonUniformFMul,
                        (4, false) => Op::GroupNonUniformIMul,
                        (k, _) => {
                            return Err(malformed(
                                Subject::Op(DxOp::WaveMultiPrefixOp),
                                format!("multi-prefix operation {k}"),
                            ))
                        }
                    };
                    self.partition_loop(keys, t, skip, |me| me.ids_op(opcode, t, &[sg, scan, x]))?
                }
            }
            other => return Err(self.not_in_family(other, FAMILY)),
        };
        Ok(Some(w))
    }

    /// From SM 6.6, quad operations in compute-like stages use the quads of compute
    /// derivatives (module documentation): the entry then declares the derivative group
    /// layout, under which the subgroup's quads are those quads of threads.
    fn quad_op_layout(&mut self) {
        let compute_like = matches!(
            self.sm.kind,
            ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification | ShaderKind::Node
        );
        if compute_like && (self.sm.major, self.sm.minor) >= (6, 6) {
            self.need_thread_quads(ThreadQuads::QuadOps);
        }
    }

    /// Where wave operations leave helper lanes out (module documentation): whether this
    /// lane is a helper now (`OpIsHelperInvocationEXT`, which sees earlier demotes).
    fn helper_lane(&mut self) -> Result<Option<Word>> {
        if !self.iface.stage.wave_excludes_helpers {
            return Ok(None);
        }
        self.cx.capability(Capability::DemoteToHelperInvocation);
        let b = self.cx.bool_t();
        self.ids_op(Op::IsHelperInvocationEXT, b, &[]).map(Some)
    }

    /// The `uvec4` ballot (at subgroup scope `sg`) of call `c`'s operand 0, a vote that
    /// helper lanes cast false where they are left out.
    fn ballot_of_arg(&mut self, c: &Call<'_>, sg: Word) -> Result<Word> {
        self.cx.capability(Capability::GroupNonUniformBallot);
        let u = self.cx.u32_t();
        let u4 = self.cx.vec(u, 4);
        let x = self.arg_val(c, 0)?;
        let x = self.non_helper_vote(x)?;
        self.ids_op(Op::GroupNonUniformBallot, u4, &[sg, x])
    }

    /// A lane's vote `x` (a boolean id), false from helper lanes where they are left out.
    fn non_helper_vote(&mut self, x: Word) -> Result<Word> {
        let Some(helper) = self.helper_lane()? else { return Ok(x) };
        let b = self.cx.bool_t();
        let active = self.ids_op(Op::LogicalNot, b, &[helper])?;
        self.ids_op(Op::LogicalAnd, b, &[x, active])
    }

    /// Operand `x` (SPIR-V type `ty`, scalar of `bits`) of the group operation `opcode`,
    /// its identity from helper lanes where they are left out.
    fn non_helper_input(&mut self, x: Word, opcode: Op, ty: Word, bits: u32) -> Result<Word> {
        let Some(helper) = self.helper_lane()? else { return Ok(x) };
        let identity = self.cx.const_bits(ty, bits, group_identity(opcode, bits));
        self.ids_op(Op::Select, ty, &[helper, identity, x])
    }

    /// Whether this lane is not a helper, and the ballot of those lanes.
    fn non_helper_ballot(&mut self, helper: Word) -> Result<(Word, Word)> {
        self.cx.capability(Capability::GroupNonUniformBallot);
        let b = self.cx.bool_t();
        let u = self.cx.u32_t();
        let u4 = self.cx.vec(u, 4);
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let active = self.ids_op(Op::LogicalNot, b, &[helper])?;
        let ballot = self.ids_op(Op::GroupNonUniformBallot, u4, &[sg, active])?;
        Ok((active, ballot))
    }

    /// `x` (of SPIR-V type `ty`) read from the lowest non-helper lane, and whether there
    /// is one (else the value read is undefined).
    fn read_first_non_helper(&mut self, helper: Word, x: Word, ty: Word) -> Result<(Word, Word)> {
        self.cx.capability(Capability::GroupNonUniformShuffle);
        let (_, ballot) = self.non_helper_ballot(helper)?;
        let (b, u) = (self.cx.bool_t(), self.cx.u32_t());
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let lane = self.ids_op(Op::GroupNonUniformBallotFindLSB, u, &[sg, ballot])?;
        let first = self.ids_op(Op::GroupNonUniformShuffle, ty, &[sg, x, lane])?;
        let reduce = GroupOperation::Reduce as u32;
        let count = self.ids_op(Op::GroupNonUniformBallotBitCount, u, &[sg, reduce, ballot])?;
        let zero = self.cx.const_u32(0);
        let any = self.ids_op(Op::INotEqual, b, &[count, zero])?;
        Ok((first, any))
    }

    /// A value as 32-bit unsigned words, for comparing values bit for bit.
    fn key_words(&mut self, c: &Call<'_>, k: usize) -> Result<Vec<Word>> {
        let ty = self.arg_ty(c, k)?;
        let v = self.arg_val(c, k)?;
        let u = self.cx.u32_t();
        match self.scalar_bits(ty) {
            Some(64) => {
                let u2 = self.cx.vec(u, 2);
                let pair = self.ids_op(Op::Bitcast, u2, &[v])?;
                Ok(vec![self.extract(u, pair, 0)?, self.extract(u, pair, 1)?])
            }
            Some(16) if self.is_float_ty(ty) => {
                let u16t = self.cx.uint(16);
                let b = self.ids_op(Op::Bitcast, u16t, &[v])?;
                Ok(vec![self.ids_op(Op::UConvert, u, &[b])?])
            }
            _ => Ok(vec![self.ir_to_num(v, ty, Num::UInt)?]),
        }
    }
}

/// The identity of group operation `opcode` on scalars of `bits`, as raw bits: what a lane
/// left out of it contributes. The float sum's is -0.0 (`-0.0 + x` is `x` for every `x`,
/// -0.0 included).
fn group_identity(opcode: Op, bits: u32) -> u64 {
    let ones = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let sign = 1u64 << (bits - 1);
    // (1.0, +inf) as bits.
    let (one, inf) = match bits {
        16 => (0x3c00, 0x7c00),
        64 => (0x3ff0_0000_0000_0000, 0x7ff0_0000_0000_0000),
        _ => (0x3f80_0000, 0x7f80_0000),
    };
    match opcode {
        Op::GroupNonUniformIMul => 1,
        Op::GroupNonUniformBitwiseAnd | Op::GroupNonUniformUMin => ones,
        Op::GroupNonUniformSMin => ones >> 1,
        Op::GroupNonUniformSMax => sign,
        Op::GroupNonUniformFAdd => sign,
        Op::GroupNonUniformFMul => one,
        Op::GroupNonUniformFMin => inf,
        Op::GroupNonUniformFMax => inf | sign,
        // IAdd, BitwiseOr, BitwiseXor, UMax.
        _ => 0,
    }
}
