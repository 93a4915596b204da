//! NVIDIA NVAPI intrinsics: the record sequences on NVAPI's magic UAV (the register
//! `Options::vendor.nvapi` names), followed by [`crate::dxil::nvapi::Stream`] and lowered
//! here to what they compute. The UAV is never declared and nothing is stored to it; the
//! store of a marking record to the application's UAV (which only names an atomic's
//! target) is dropped. Without the option the UAV is an ordinary structured buffer, as on a
//! D3D driver without the extension (what vkd3d-proton does when the application set no
//! slot).
//!
//! | NVAPI opcode | SPIR-V | needs |
//! |---|---|---|
//! | `SHFL`, `SHFL_UP`, `SHFL_DOWN`, `SHFL_XOR` | `OpGroupNonUniformShuffle` from the lane `shfl.sync` picks: segment `[min, max]` from the clamp word `c` (`min = lane & c[12:8]`, `max = min \| (c[4:0] & ~c[12:8])`), `j` = `min \| (b & ~c[12:8])` / `lane - b` / `lane + b` / `lane ^ b`, own lane unless `j <= max` (`j >= max`, signed, for up) | |
//! | `VOTE_ALL`, `VOTE_ANY` | `OpGroupNonUniformAll` / `Any` of `src0u.x != 0`, as `0xffffffff` / `0` | |
//! | `VOTE_BALLOT` | component 0 of `OpGroupNonUniformBallot` | |
//! | `GET_LANE_ID` | `SubgroupLocalInvocationId` | |
//! | `GET_SPECIAL` `THREADLTMASK` | component 0 of `SubgroupLtMask` | |
//! | `GET_SPECIAL` `GLOBAL_TIMER_LO/HI` | a word of `OpReadClockKHR` at `Device` scope | `shader_clock` |
//! | `MATCH_ANY` | component 0 of `OpGroupNonUniformPartitionNV` of the 1..4 words | `subgroup_partitioned` |
//! | `UINT64_ATOMIC` (and, or, xor, add, max, min, swap, compare-exchange) on a `RWByteAddressBuffer` | 64-bit `OpAtomic*` on the buffer's 64-bit view; `dst0u.xy` the old value | `int64_atomics` |
//! | `FP32_ATOMIC` (add) on a `RWByteAddressBuffer` | `OpAtomicFAddEXT` on the buffer's `float` view | `float32_atomic_add` |
//! | `FP16_ATOMIC` (add, min, max of two halves) on a `RWByteAddressBuffer` | `OpAtomicF{Add,Min,Max}EXT` on the buffer's `f16vec2` view (`SPV_NV_shader_atomic_fp16_vector`) | `float16_vector_atomics` |
//! | `HIT_OBJECT_*` (67..=85: trace, make hit / miss / nop, reorder, invoke, queries, ray, attributes, local root constant) | `SPV_NV_shader_invocation_reorder` through the SM 6.9 hit-object slots (`dxop/nvapi_hit.rs` has the table) | `invocation_reorder` |
//!
//! Refused, naming the instruction ([`crate::emit::support::nvapi_support`] says why):
//! atomics on textures, texture footprints, variable pixel rate shading, `SHFL_GENERIC`,
//! micro-map / cluster / sphere ray tracing opcodes (86..=119, the hit object's cluster id
//! among them), and any other call on the magic UAV. A lowering whose device feature
//! `Options::vendor` does not grant is refused naming the feature.
//!
//! NVIDIA's warps are 32 lanes, and so are its Vulkan subgroups: the lowering uses the
//! subgroup as the warp (a ballot returns its first 32 lanes).
//!
//! Cost: a few instructions per intrinsic; a shuffle computes its source lane in about 12
//! integer operations (constants when the clamp word is).

use crate::dxil::nvapi::{field, AtomicOp, Counter, Field, NvapiError, Opcode, Record, ShflMode, SpecialOp};
use crate::dxil::{DxOp, ResourceClass};
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::support::{nvapi_support, VendorSupport};
use crate::emit::{Call, FnEmit, Handle, ModuleBuilder, ResShape};
use crate::ir::Value;
use rspirv::spirv::{BuiltIn, Capability, Op, Scope, StorageClass, Word};

const VENDOR: &str = "NVIDIA NVAPI";

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Call `c` goes through NVAPI's magic UAV (its first operand is a handle to it, and the
    /// options name that register).
    pub(super) fn is_nvapi_call(&self, c: &Call<'_>) -> Result<bool> {
        let Some(slot) = self.iface.stage.vendor.nvapi else { return Ok(false) };
        if matches!(c.op, DxOp::AnnotateHandle | DxOp::CreateHandle | DxOp::CreateHandleFromBinding) {
            return Ok(false);
        }
        let Some(Value::Inst(i)) = c.args.first() else { return Ok(false) };
        let Some(h) = self.handles.get(i) else { return Ok(false) };
        if h.class != ResourceClass::Uav || h.heap.is_some() {
            return Ok(false);
        }
        let r = self.res.resource(h.class, h.id)?;
        Ok(r.space == slot.space && r.lower_bound == slot.register)
    }

    pub(super) fn nvapi_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let what = format!("{} on the magic UAV", c.op.name());
        let index = match c.args.get(1) {
            Some(Value::Inst(i)) => Some(*i),
            _ => None,
        };
        match c.op {
            DxOp::BufferUpdateCounter => match self.nvapi.counter(c.inst).map_err(|e| self.nv_malformed(what, e))? {
                // The record's index: only the stores to the magic UAV (dropped) use it.
                Counter::Open => Ok(Some(self.cx.const_u32(0))),
                Counter::Result(w) => {
                    self.nv_hit_token(c.inst);
                    Ok(Some(w))
                }
            },
            DxOp::BufferStore | DxOp::RawBufferStore => {
                let offset = self.const_int(self.arg(c, 2)?).and_then(|o| u32::try_from(o).ok());
                let mask = self.arg_const(c, 7)?;
                let mut values = [None; 4];
                for (k, v) in values.iter_mut().enumerate() {
                    if mask & (1 << k) != 0 {
                        let konst = self.const_int(self.arg(c, 3 + k)?).map(|x| x as u32);
                        *v = Some(Field { value: self.nv_word(c, 3 + k)?, konst });
                    }
                }
                let ready = self.nvapi.store(&what, index, offset, values).map_err(|e| self.nv_malformed(what, e))?;
                if let Some(r) = ready {
                    let (counter, dst) = self.nv_perform(&r)?;
                    self.nvapi.done(r.opcode, counter, dst);
                }
                Ok(None)
            }
            DxOp::BufferLoad | DxOp::RawBufferLoad => {
                let offset = self.const_int(self.arg(c, 2)?).and_then(|o| u32::try_from(o).ok());
                let dst = self.nvapi.load(&what, index, offset).map_err(|e| self.nv_malformed(what, e))?;
                let mut comps = Vec::new();
                let u = self.cx.u32_t();
                for (k, &f) in self.fields(c.ty).iter().take(4).enumerate() {
                    let t = self.cx.ty(f)?;
                    comps.push(match dst[k] {
                        Some(w) if t == u => w,
                        Some(w) => self.ids_op(Op::Bitcast, t, &[w])?,
                        None => self.cx.undef(t),
                    });
                }
                self.make_ret(c.ty, &comps, None).map(Some)
            }
            _ => Err(self.nv_error(
                what,
                VendorRefusal::NotLowered(
                    "NVAPI encodes intrinsics only as IncrementCounter, stores and loads of its records".into(),
                ),
            )),
        }
    }

    /// A store to another UAV at the index of an open marking record: it names the next
    /// atomic's target, and emits nothing.
    pub(super) fn nvapi_target(&mut self, c: &Call<'_>) -> Result<bool> {
        if self.iface.stage.vendor.nvapi.is_none()
            || !matches!(c.op, DxOp::BufferStore | DxOp::RawBufferStore | DxOp::TextureStore)
        {
            return Ok(false);
        }
        let Some(Value::Inst(i)) = c.args.get(1) else { return Ok(false) };
        let i = *i;
        let Ok(h) = self.handle(self.arg(c, 0)?) else { return Ok(false) };
        Ok(self.nvapi.mark_target(Some(i), h))
    }

    /// At the end of a function: a record left incomplete is malformed.
    pub(in crate::emit) fn nvapi_finish(&mut self) -> Result<()> {
        self.nvapi.finish().map_err(|e| self.nv_malformed("the end of the function".into(), e))?;
        self.nv_hit_finish()
    }

    pub(super) fn nv_error(&self, instruction: String, reason: VendorRefusal) -> Error {
        Error::VendorExtension { vendor: VENDOR, instruction, reason }
    }

    pub(super) fn nv_malformed(&self, instruction: String, e: NvapiError) -> Error {
        self.nv_error(instruction, e.into())
    }

    pub(super) fn nv_need(&self, op: Opcode, have: bool, feature: &'static str, option: &'static str) -> Result<()> {
        if have {
            Ok(())
        } else {
            Err(self.nv_error(op.to_string(), VendorRefusal::MissingFeature { feature, option }))
        }
    }

    /// Argument `k` as a 32-bit word (`u32`).
    fn nv_word(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let t = self.arg_ty(c, k)?;
        let t = self.cx.ty(t)?;
        let w = self.arg_val(c, k)?;
        let u = self.cx.u32_t();
        if t == u {
            Ok(w)
        } else {
            self.ids_op(Op::Bitcast, u, &[w])
        }
    }

    /// Performs complete record `r`: the results the next `IncrementCounter`s return, and
    /// those a load of `dst0u` reads.
    fn nv_perform(&mut self, r: &Record<Word>) -> Result<(Vec<Word>, [Option<Word>; 4])> {
        let u = self.cx.u32_t();
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let vendor = self.iface.stage.vendor;
        let src = |k: u32| r.get(field::SRC0U + k).ok_or_else(|| Error::Internal(format!("{}: no src0u", r.opcode)));
        let one = |w: Word| Ok((vec![w], [None; 4]));
        match r.opcode {
            Opcode::Shfl(mode) => {
                let w = self.nv_shuffle(mode, src(0)?, src(1)?, src(2)?)?;
                one(w)
            }
            Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteBallot => {
                let p = self.nv_predicate(src(0)?)?;
                let w = if r.opcode == Opcode::VoteBallot {
                    self.cx.capability(Capability::GroupNonUniformBallot);
                    let u4 = self.cx.vec(u, 4);
                    let v = self.ids_op(Op::GroupNonUniformBallot, u4, &[sg, p])?;
                    self.extract(u, v, 0)?
                } else {
                    self.cx.capability(Capability::GroupNonUniformVote);
                    let b = self.cx.bool_t();
                    let op = if r.opcode == Opcode::VoteAll { Op::GroupNonUniformAll } else { Op::GroupNonUniformAny };
                    let v = self.ids_op(op, b, &[sg, p])?;
                    let (all, none) = (self.cx.const_u32(u32::MAX), self.cx.const_u32(0));
                    self.ids_op(Op::Select, u, &[v, all, none])?
                };
                one(w)
            }
            Opcode::GetLaneId => {
                let w = self.ags_builtin(BuiltIn::SubgroupLocalInvocationId)?;
                one(w)
            }
            Opcode::GetSpecial => {
                let special = r.special_op().map_err(|e| self.nv_malformed(r.opcode.to_string(), e))?;
                let w = match special {
                    SpecialOp::ThreadLtMask => {
                        self.cx.capability(Capability::GroupNonUniformBallot);
                        let u4 = self.cx.vec(u, 4);
                        let var = self.iface.builtin(self.cx, BuiltIn::SubgroupLtMask, StorageClass::Input, u4);
                        let lt = self.ids_op(Op::Load, u4, &[var])?;
                        self.extract(u, lt, 0)?
                    }
                    SpecialOp::GlobalTimerLo | SpecialOp::GlobalTimerHi => {
                        self.nv_need(
                            r.opcode,
                            vendor.shader_clock,
                            "shaderDeviceClock (VK_KHR_shader_clock)",
                            "shader_clock",
                        )?;
                        self.cx.capability(Capability::ShaderClockKHR);
                        self.cx.extension("SPV_KHR_shader_clock");
                        let scope = self.cx.const_u32(Scope::Device as u32);
                        let u2 = self.cx.vec(u, 2);
                        let clock = self.ids_op(Op::ReadClockKHR, u2, &[scope])?;
                        self.extract(u, clock, u32::from(special == SpecialOp::GlobalTimerHi))?
                    }
                    SpecialOp::FootprintSingleLodPred => {
                        return Err(self.nv_error(
                            format!("{} NV_SPECIALOP_FOOTPRINT_SINGLELOD_PRED", r.opcode),
                            VendorRefusal::NotLowered("texture footprints are not lowered".into()),
                        ))
                    }
                };
                one(w)
            }
            Opcode::MatchAny => {
                self.nv_need(
                    r.opcode,
                    vendor.subgroup_partitioned,
                    "VK_NV_shader_subgroup_partitioned",
                    "subgroup_partitioned",
                )?;
                let n = r.konst(field::SRC1U).map_err(|e| self.nv_malformed(r.opcode.to_string(), e))?;
                if !(1..=4).contains(&n) {
                    let e = NvapiError::BadSubOp { opcode: r.opcode, field: "src1u.x".into(), value: n };
                    return Err(self.nv_malformed(r.opcode.to_string(), e));
                }
                let words = (0..n).map(src).collect::<Result<Vec<_>>>()?;
                let x = if n == 1 {
                    words[0]
                } else {
                    let v = self.cx.vec(u, n);
                    self.ids_op(Op::CompositeConstruct, v, &words)?
                };
                self.cx.capability(Capability::GroupNonUniformPartitionedNV);
                self.cx.extension("SPV_NV_shader_subgroup_partitioned");
                let u4 = self.cx.vec(u, 4);
                let m = self.ids_op(Op::GroupNonUniformPartitionNV, u4, &[x])?;
                let w = self.extract(u, m, 0)?;
                one(w)
            }
            Opcode::Uint64Atomic | Opcode::Fp32Atomic | Opcode::Fp16Atomic => {
                let dst = self.nv_atomic(r)?;
                Ok((Vec::new(), dst))
            }
            Opcode::HitObject(_) => self.nv_hit_perform(r),
            op => Err(match nvapi_support(op) {
                VendorSupport::Refused(why) => self.nv_error(op.to_string(), VendorRefusal::NotLowered(why.into())),
                VendorSupport::Lowered { .. } => Error::Internal(format!("{op} is lowered but reached no lowering")),
            }),
        }
    }

    /// `x != 0`.
    fn nv_predicate(&mut self, x: Word) -> Result<Word> {
        let b = self.cx.bool_t();
        let zero = self.cx.const_u32(0);
        self.ids_op(Op::INotEqual, b, &[x, zero])
    }

    /// A warp shuffle of `val` in `mode` with lane operand `b` and clamp word `clamp`
    /// (PTX `shfl.sync` semantics; see the module documentation).
    fn nv_shuffle(&mut self, mode: ShflMode, val: Word, b: Word, clamp: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let bool_t = self.cx.bool_t();
        self.cx.capability(Capability::GroupNonUniformShuffle);
        let lane = self.ags_builtin(BuiltIn::SubgroupLocalInvocationId)?;
        let (c31, c8) = (self.cx.const_u32(31), self.cx.const_u32(8));
        let seg = self.ids_op(Op::ShiftRightLogical, u, &[clamp, c8])?;
        let seg = self.ids_op(Op::BitwiseAnd, u, &[seg, c31])?;
        let not_seg = self.ids_op(Op::Not, u, &[seg])?;
        let top = self.ids_op(Op::BitwiseAnd, u, &[clamp, c31])?;
        let min = self.ids_op(Op::BitwiseAnd, u, &[lane, seg])?;
        let span = self.ids_op(Op::BitwiseAnd, u, &[top, not_seg])?;
        let max = self.ids_op(Op::BitwiseOr, u, &[min, span])?;
        let b = self.ids_op(Op::BitwiseAnd, u, &[b, c31])?;
        let j = match mode {
            ShflMode::Idx => {
                let off = self.ids_op(Op::BitwiseAnd, u, &[b, not_seg])?;
                self.ids_op(Op::BitwiseOr, u, &[min, off])?
            }
            ShflMode::Up => self.ids_op(Op::ISub, u, &[lane, b])?,
            ShflMode::Down => self.ids_op(Op::IAdd, u, &[lane, b])?,
            ShflMode::Xor => self.ids_op(Op::BitwiseXor, u, &[lane, b])?,
        };
        let valid = if mode == ShflMode::Up {
            self.ids_op(Op::SGreaterThanEqual, bool_t, &[j, max])?
        } else {
            self.ids_op(Op::ULessThanEqual, bool_t, &[j, max])?
        };
        let from = self.ids_op(Op::Select, u, &[valid, j, lane])?;
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        self.ids_op(Op::GroupNonUniformShuffle, u, &[sg, val, from])
    }

    /// An atomic on the target the marking record named: `dst0u`'s words.
    fn nv_atomic(&mut self, r: &Record<Word>) -> Result<[Option<Word>; 4]> {
        let op = r.opcode;
        let vendor = self.iface.stage.vendor;
        match op {
            Opcode::Uint64Atomic => {
                self.nv_need(op, vendor.int64_atomics, "shaderBufferInt64Atomics (Vulkan 1.2)", "int64_atomics")?
            }
            Opcode::Fp32Atomic => self.nv_need(
                op,
                vendor.float32_atomic_add,
                "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)",
                "float32_atomic_add",
            )?,
            _ => self.nv_need(
                op,
                vendor.float16_vector_atomics,
                "shaderFloat16VectorAtomics (VK_NV_shader_atomic_float16_vector)",
                "float16_vector_atomics",
            )?,
        }
        let sub = r.atomic_op().map_err(|e| self.nv_malformed(op.to_string(), e))?;
        let Some(h) = self.nvapi.take_target() else {
            let e = NvapiError::Incomplete {
                record: format!("the record of {op}"),
                field: "the marking record (markUavRef = 1) that names its UAV".into(),
                when: "it is performed".into(),
            };
            return Err(self.nv_malformed(op.to_string(), e));
        };
        let rv = self.res_var(h)?;
        if !rv.uav || h.heap.is_some() || !matches!(rv.shape, ResShape::Words { .. }) {
            return Err(self.nv_error(
                op.to_string(),
                VendorRefusal::NotLowered(
                    "only RWByteAddressBuffer targets bound by register are lowered (not textures)".into(),
                ),
            ));
        }
        let get = |k: u32| r.get(k).ok_or_else(|| Error::Internal(format!("{op}: operand dword {k} missing")));
        let addr = get(field::SRC0U)?;
        let u = self.cx.u32_t();
        let scope = self.cx.const_u32(Scope::Device as u32);
        let sem = self.cx.const_u32(0);
        match op {
            Opcode::Uint64Atomic => {
                let opcode = match sub {
                    AtomicOp::And => Op::AtomicAnd,
                    AtomicOp::Or => Op::AtomicOr,
                    AtomicOp::Xor => Op::AtomicXor,
                    AtomicOp::Add => Op::AtomicIAdd,
                    AtomicOp::Max => Op::AtomicUMax,
                    AtomicOp::Min => Op::AtomicUMin,
                    AtomicOp::Swap => Op::AtomicExchange,
                    AtomicOp::CompareExchange => Op::AtomicCompareExchange,
                };
                let u64t = self.cx.uint(64);
                let first = self.pack_u64(get(field::SRC1U)?, get(field::SRC1U + 1)?)?;
                let view = self.buffer_u64_view(h)?;
                let ptr = self.buffer_u64_ptr(h, view, addr)?;
                let old = if sub == AtomicOp::CompareExchange {
                    // src1u.xy: the comparand, src1u.zw: the value.
                    let value = self.pack_u64(get(field::SRC1U + 2)?, get(field::SRC1U + 3)?)?;
                    self.ids_op(opcode, u64t, &[ptr, scope, sem, sem, value, first])?
                } else {
                    self.ids_op(opcode, u64t, &[ptr, scope, sem, first])?
                };
                let lo = self.ids_op(Op::UConvert, u, &[old])?;
                let c32 = self.cx.const_u32(32);
                let hi = self.ids_op(Op::ShiftRightLogical, u64t, &[old, c32])?;
                let hi = self.ids_op(Op::UConvert, u, &[hi])?;
                Ok([Some(lo), Some(hi), None, None])
            }
            Opcode::Fp32Atomic => {
                if sub != AtomicOp::Add {
                    return Err(self.nv_sub_refused(op, sub));
                }
                self.cx.capability(Capability::AtomicFloat32AddEXT);
                self.cx.extension("SPV_EXT_shader_atomic_float_add");
                let f = self.cx.float(32);
                let ptr = self.nv_word_view_ptr(h, addr, |cx| cx.float(32), "f32")?;
                let x = self.ids_op(Op::Bitcast, f, &[get(field::SRC1U)?])?;
                let old = self.ids_op(Op::AtomicFAddEXT, f, &[ptr, scope, sem, x])?;
                Ok([Some(self.ids_op(Op::Bitcast, u, &[old])?), None, None, None])
            }
            _ => {
                let opcode = match sub {
                    AtomicOp::Add => Op::AtomicFAddEXT,
                    AtomicOp::Min => Op::AtomicFMinEXT,
                    AtomicOp::Max => Op::AtomicFMaxEXT,
                    _ => return Err(self.nv_sub_refused(op, sub)),
                };
                self.cx.capability(Capability::Float16);
                self.cx.capability(Capability::StorageBuffer16BitAccess);
                self.cx.capability(Capability::AtomicFloat16VectorNV);
                self.cx.extension("SPV_NV_shader_atomic_fp16_vector");
                let half2: fn(&mut ModuleBuilder<'_>) -> Word = |cx| {
                    let h = cx.float(16);
                    cx.vec(h, 2)
                };
                let h2 = half2(self.cx);
                let ptr = self.nv_word_view_ptr(h, addr, half2, "f16x2")?;
                let x = self.ids_op(Op::Bitcast, h2, &[get(field::SRC1U)?])?;
                let old = self.ids_op(opcode, h2, &[ptr, scope, sem, x])?;
                Ok([Some(self.ids_op(Op::Bitcast, u, &[old])?), None, None, None])
            }
        }
    }

    fn nv_sub_refused(&self, op: Opcode, sub: AtomicOp) -> Error {
        self.nv_error(
            format!("{op} {sub:?}"),
            VendorRefusal::NotLowered("NVAPI defines this atomic for other element types only".into()),
        )
    }

    /// A pointer to the 4-byte element at byte address `addr` of raw buffer `h`, through
    /// its view as an array of `elem` (bounded like the buffer's other accesses).
    fn nv_word_view_ptr(
        &mut self,
        h: Handle,
        addr: Word,
        elem: fn(&mut ModuleBuilder<'_>) -> Word,
        suffix: &'static str,
    ) -> Result<Word> {
        let view = self.res.elem_view(self.cx, h.class, h.id, elem, 4, suffix)?;
        let var = self.element_ptr(h, &view)?;
        let u = self.cx.u32_t();
        let two = self.cx.const_u32(2);
        let word = self.ids_op(Op::ShiftRightLogical, u, &[addr, two])?;
        let range = self.buffer_range(h)?;
        let word = self.in_range(range, word, super::buffers::FAR_ADDRESS / 4)?;
        let t = elem(self.cx);
        let pty = self.cx.ptr(view.storage, t);
        let zero = self.cx.const_u32(0);
        self.ids_op(Op::AccessChain, pty, &[var, zero, word])
    }
}
