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
//! | `UINT64_ATOMIC` on a `RWTexture1D/2D/3D(Array)<uint2>` or `RWBuffer<uint2>` (`R32G32_UINT`) | the same through `OpImageTexelPointer` on the UAV's `R64ui` view (the one SM 6.6's and AGS's 64-bit image atomics use) | `image_int64_atomics` |
//! | `FP32_ATOMIC` (add) on a `RWByteAddressBuffer` | `OpAtomicFAddEXT` on the buffer's `float` view | `float32_atomic_add` |
//! | `FP32_ATOMIC` on a `RWTexture*<float>` / `RWBuffer<float>` (`R32_FLOAT`) | `OpAtomicFAddEXT` through `OpImageTexelPointer` on the UAV's `R32f` view | `image_float32_atomic_add` |
//! | `FP16_ATOMIC` (add, min, max of two halves) on a `RWByteAddressBuffer` | `OpAtomicF{Add,Min,Max}EXT` on the buffer's `f16vec2` view (`SPV_NV_shader_atomic_fp16_vector`) | `float16_vector_atomics` |
//! | `FP16_ATOMIC` on a texture or typed buffer (`R16G16_FLOAT`) | the same through `OpImageTexelPointer` to an `f16vec2` texel of the UAV's `Rg16f` view (the extension covers images) | `float16_vector_atomics` |
//! | `FOOTPRINT`, `_BIAS`, `_LEVEL`, `_GRAD` (`NvFootprintFine/Coarse[Bias/Level/Grad]`) on a 2D or 3D texture | `OpImageSampleFootprintNV` of the texture and sampler (below), `Coarse` = mode `src3u.w` is `COARSE`, with `Bias` / `Lod` (`src2u.x`) / `Grad` (`src2u.xyz`, `src5u.xyz`) and `ConstOffset` (`src4u`, when not 0); implicit-level forms need derivatives as `Sample` does | `image_footprint` |
//! | `GET_SPECIAL` `FOOTPRINT_SINGLELOD_PRED` | member 0 (single level) of the function's last footprint, as 1 / 0 | `image_footprint` |
//! | `HIT_OBJECT_*` (67..=85: trace, make hit / miss / nop, reorder, invoke, queries, ray, attributes, local root constant) | `SPV_NV_shader_invocation_reorder` through the SM 6.9 hit-object slots (`dxop/nvapi_hit.rs` has the table) | `invocation_reorder` |
//! | `RT_*` cluster ids, triangle object positions, spheres, linear swept spheres (hit-shader and ray-query forms) | built-ins / `OpRayQuery*` of `SPV_NV_cluster_acceleration_structure`, `SPV_KHR_ray_tracing_position_fetch`, `SPV_NV_linear_swept_spheres` (`nvapi_rt.rs`) | `cluster_acceleration_structure`, `ray_tracing_position_fetch`, `spheres`, `linear_swept_spheres` |
//!
//! A footprint's record names its texture and sampler by register (`src0u.x` / `src0u.y`)
//! and space (`src3u.x` / `src3u.y`, constants), not by handle: a constant register is the
//! SRV (sampler) range of the shader that holds it; a register known only at run time must
//! fall in the only SRV (sampler) range of its space, indexed non-uniformly. A register no
//! range of the shader's resource table holds (DXC drops resources the shader uses only
//! through NVAPI) is refused naming it. 2D array textures are refused
//! (`OpImageSampleFootprintNV` takes 2D and 3D), and so is an offset that is not constant.
//!
//! `NvFootprint*` returns the hardware's packed footprint (`nvHLSLExtns.h`'s
//! `NvFootprintExtract*` read it back); the SPIR-V result struct `{bool single-level,
//! uvecN anchor, uvecN offset, uvec2 mask, uint lod, uint granularity}` is packed into it
//! (bit ranges inclusive, `OpBitFieldInsert` into 0; the bits of each member beyond its
//! field are dropped):
//!
//! | word | 2D | 3D |
//! |---|---|---|
//! | `x` | `mask.x` | `mask.x` |
//! | `y` | `mask.y` | `mask.y` |
//! | `z` | `anchor.y` 0..11, `offset.x` 16..18, `offset.y` 19..21, `granularity` 24..27 | `anchor.z` 0..12, `offset.x` 16..17, `offset.y` 18..19, `offset.z` 20..21, `granularity` 24..27 |
//! | `w` | `anchor.x` 0..11, `lod` 12..15 | `anchor.x` 0..11, `lod` 12..15, `anchor.y` 16..27 |
//!
//! The granularity operand (`src1u.w`) goes to `OpImageSampleFootprintNV` unchanged, and
//! the members are packed unscaled: both interfaces expose the same hardware query (an
//! 8x8 (2D) or 4x4x4 (3D) neighbourhood of texel groups, 3- or 2-bit offsets, a 64-bit
//! mask, 4-bit level and granularity codes), an assumption `gpu_nvapi` checks on NVIDIA
//! hardware for the cases the Vulkan specification fixes. The predicate is 1 when
//! single-level (an HLSL `bool` stored as `uint`).
//!
//! A texture atomic's texel is at `src0u.x..` (one word a coordinate, as `nvHLSLExtns.h`'s
//! texture overloads write them; a typed buffer's bounded like its other accesses). The
//! view in the atomic's format shares the UAV's binding: D3D's atomics need exactly those
//! formats (vkd3d-proton makes `R32G32_UINT` `R64_UINT`-compatible where the device has
//! `shaderImageInt64Atomics`). Multisampled and heap targets are refused.
//!
//! Refused, naming the instruction ([`crate::emit::support::nvapi_support`] says why):
//! variable pixel rate shading, `SHFL_GENERIC`,
//! the hit object's ray-tracing queries (cluster id, positions, sphere and LSS forms), the
//! displacement micro-map queries, `RT_CANDIDATE_BUILTIN_PRIMITIVE_RAY_T` and
//! `RT_COMMIT_NONOPAQUE_BUILTIN_PRIMITIVE_HIT`, and any other call on the magic UAV. A lowering whose device feature
//! `Options::vendor` does not grant is refused naming the feature.
//!
//! NVIDIA's warps are 32 lanes, and so are its Vulkan subgroups: the lowering uses the
//! subgroup as the warp (a ballot returns its first 32 lanes).
//!
//! Cost: a few instructions per intrinsic; a shuffle computes its source lane in about 12
//! integer operations (constants when the clamp word is); a footprint about 30 (the
//! packing).

use crate::dxil::nvapi::{
    field, field_name, footprint, AtomicOp, Counter, Field, NvapiError, Opcode, Record, ShflMode, SpecialOp,
};
use crate::dxil::{DxOp, ResourceClass};
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::support::{nvapi_support, VendorSupport};
use crate::emit::{Call, FnEmit, Handle, ModuleBuilder, ResShape, ThreadQuads};
use crate::ir::Value;
use rspirv::spirv::{BuiltIn, Capability, Dim, ImageFormat, ImageOperands, Op, Scope, StorageClass, Word};

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
                        let arg = self.arg(c, 3 + k)?;
                        let konst = self.const_int(arg).map(|x| x as u32);
                        *v = Some(Field { value: self.nv_word(c, 3 + k)?, konst, arg: Some(arg) });
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

    #[cold]
    pub(super) fn nv_error(&self, instruction: String, reason: VendorRefusal) -> Error {
        Error::VendorExtension { vendor: VENDOR, instruction, reason }
    }

    #[cold]
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
                        let what = format!("{} NV_SPECIALOP_FOOTPRINT_SINGLELOD_PRED", r.opcode);
                        let pred = self.nvapi.single_lod(&what).map_err(|e| self.nv_malformed(what, e))?;
                        let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
                        self.ids_op(Op::Select, u, &[pred, one, zero])?
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
            Opcode::Footprint(_) => {
                let words = self.nv_footprint(r)?;
                Ok((words.to_vec(), [None; 4]))
            }
            Opcode::HitObject(_) => self.nv_hit_perform(r),
            Opcode::RayTracing(n) => {
                let words = self.nv_ray_tracing(r, n)?;
                Ok((words, [None; 4]))
            }
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
        let refuse = |fe: &Self, why: &str| fe.nv_error(op.to_string(), VendorRefusal::NotLowered(why.into()));
        if !rv.uav || h.heap.is_some() {
            return Err(refuse(self, "only UAVs bound by register are lowered as targets"));
        }
        // A texture or typed buffer: its texel at `src0u.x..` (one word a coordinate).
        let texture = match rv.shape {
            ResShape::Words { .. } => None,
            ResShape::Image { ms: false, .. } => Some(rv.shape),
            _ => return Err(refuse(self, "the target is not a RWByteAddressBuffer or non-multisampled typed UAV")),
        };
        match (op, texture.is_some()) {
            (Opcode::Uint64Atomic, false) => {
                self.nv_need(op, vendor.int64_atomics, "shaderBufferInt64Atomics (Vulkan 1.2)", "int64_atomics")?
            }
            (Opcode::Uint64Atomic, true) => self.nv_need(
                op,
                vendor.image_int64_atomics,
                "shaderImageInt64Atomics (VK_EXT_shader_image_atomic_int64)",
                "image_int64_atomics",
            )?,
            (Opcode::Fp32Atomic, false) => self.nv_need(
                op,
                vendor.float32_atomic_add,
                "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)",
                "float32_atomic_add",
            )?,
            (Opcode::Fp32Atomic, true) => self.nv_need(
                op,
                vendor.image_float32_atomic_add,
                "shaderImageFloat32AtomicAdd (VK_EXT_shader_atomic_float)",
                "image_float32_atomic_add",
            )?,
            _ => self.nv_need(
                op,
                vendor.float16_vector_atomics,
                "shaderFloat16VectorAtomics (VK_NV_shader_atomic_float16_vector)",
                "float16_vector_atomics",
            )?,
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
                let ptr = match texture {
                    None => {
                        let view = self.buffer_u64_view(h)?;
                        self.buffer_u64_ptr(h, view, addr)?
                    }
                    // D3D's 64-bit texture atomics act on `R32G32_UINT` textures, one value a
                    // texel: through the UAV's `R64ui` view, as AGS's and SM 6.6's.
                    Some(shape) => self.image_u64_ptr(h, shape, |fe| fe.nv_texel(r, shape))?.0,
                };
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
                let ptr = match texture {
                    None => self.nv_word_view_ptr(h, addr, |cx| cx.float(32), "f32")?,
                    // An `R32_FLOAT` texture (what D3D's fp32 atomics need): its `R32f` view.
                    Some(shape) => {
                        let view = self.res.image_view(self.cx, h.id, f, ImageFormat::R32f, "r32f")?;
                        self.image_view_ptr(h, shape, view, |fe| fe.nv_texel(r, shape))?.0
                    }
                };
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
                self.cx.capability(Capability::AtomicFloat16VectorNV);
                self.cx.extension("SPV_NV_shader_atomic_fp16_vector");
                let half2: fn(&mut ModuleBuilder<'_>) -> Word = |cx| {
                    let h = cx.float(16);
                    cx.vec(h, 2)
                };
                let h2 = half2(self.cx);
                let ptr = match texture {
                    None => {
                        self.cx.capability(Capability::StorageBuffer16BitAccess);
                        self.nv_word_view_ptr(h, addr, half2, "f16x2")?
                    }
                    // An `R16G16_FLOAT` texture: its `Rg16f` view (sampled type `float`, as
                    // Vulkan's images have), its texel an `f16vec2`.
                    Some(shape) => {
                        let f = self.cx.float(32);
                        self.cx.capability(Capability::StorageImageExtendedFormats);
                        let (view, _) = self.res.image_view(self.cx, h.id, f, ImageFormat::Rg16f, "rg16f")?;
                        self.image_view_ptr(h, shape, (view, h2), |fe| fe.nv_texel(r, shape))?.0
                    }
                };
                let x = self.ids_op(Op::Bitcast, h2, &[get(field::SRC1U)?])?;
                let old = self.ids_op(opcode, h2, &[ptr, scope, sem, x])?;
                Ok([Some(self.ids_op(Op::Bitcast, u, &[old])?), None, None, None])
            }
        }
    }

    /// The texel coordinates of a texture atomic's record on a target of shape `shape`:
    /// `src0u`'s first words, one a coordinate (the scalar for one).
    fn nv_texel(&mut self, r: &Record<Word>, shape: ResShape) -> Result<Word> {
        let n = shape.coords();
        let mut words = Vec::with_capacity(n as usize);
        for k in 0..n {
            let Some(w) = r.get(field::SRC0U + k) else {
                let e = NvapiError::Incomplete {
                    record: format!("the record of {}", r.opcode),
                    field: format!("{} (coordinate {k} of its texture)", field_name(field::SRC0U + k)),
                    when: "it is performed".into(),
                };
                return Err(self.nv_malformed(r.opcode.to_string(), e));
            };
            words.push(w);
        }
        if n == 1 {
            return Ok(words[0]);
        }
        let u = self.cx.u32_t();
        let vt = self.cx.vec(u, n);
        self.ids_op(Op::CompositeConstruct, vt, &words)
    }

    /// A texture footprint: `OpImageSampleFootprintNV`, its result packed into the four
    /// words of `NvFootprint*` (see the module documentation).
    fn nv_footprint(&mut self, r: &Record<Word>) -> Result<[Word; 4]> {
        let op = r.opcode;
        let Opcode::Footprint(n) = op else { return Err(Error::Internal(format!("{op} is no footprint"))) };
        self.nv_need(
            op,
            self.iface.stage.vendor.image_footprint,
            "imageFootprint (VK_NV_shader_image_footprint)",
            "image_footprint",
        )?;
        let konst = |me: &Self, d: u32| r.konst(d).map_err(|e| me.nv_malformed(op.to_string(), e));
        let get = |d: u32| r.get(d).ok_or_else(|| Error::Internal(format!("{op}: operand dword {d} missing")));
        let texture_type = konst(self, field::SRC3U + 2)?;
        let (dim, n_coords) = match texture_type {
            footprint::TEXTURE_2D => (Dim::Dim2D, 2),
            footprint::TEXTURE_3D => (Dim::Dim3D, 3),
            footprint::TEXTURE_2D_ARRAY => {
                return Err(self.nv_error(
                    op.to_string(),
                    VendorRefusal::NotLowered(
                        "footprints of 2D array textures: `OpImageSampleFootprintNV` takes 2D and 3D textures".into(),
                    ),
                ))
            }
            value => {
                let e = NvapiError::BadSubOp { opcode: op, field: field_name(field::SRC3U + 2), value };
                return Err(self.nv_malformed(op.to_string(), e));
            }
        };
        let tex = self.nv_bound(r, ResourceClass::Srv, field::SRC0U, field::SRC3U)?;
        let smp = self.nv_bound(r, ResourceClass::Sampler, field::SRC0U + 1, field::SRC3U + 1)?;
        let (rv, img) = self.load_descriptor(tex)?;
        let fits = matches!(rv.shape, ResShape::Image { dim: d, arrayed: false, ms: false, .. } if d == dim) && !rv.uav;
        if !fits {
            return Err(self.nv_error(
                op.to_string(),
                VendorRefusal::NotLowered(format!(
                    "the texture its record names is not a non-multisampled {} texture SRV (texture type {texture_type})",
                    if dim == Dim::Dim3D { "3D" } else { "2D" }
                )),
            ));
        }
        let Some((si, _)) = self.combine_sampler(&rv, img, smp)? else {
            let why = "the sampler its record names is no sampler";
            return Err(self.nv_error(op.to_string(), VendorRefusal::NotLowered(why.into())));
        };
        let f = self.cx.float(32);
        let floats = |me: &mut Self, first: u32| -> Result<Word> {
            let mut comps = Vec::new();
            for k in 0..n_coords {
                let w = get(first + k)?;
                comps.push(me.ids_op(Op::Bitcast, f, &[w])?);
            }
            let v = me.cx.vec(f, n_coords);
            me.ids_op(Op::CompositeConstruct, v, &comps)
        };
        let coord = floats(self, field::SRC1U)?;
        let granularity = get(field::SRC1U + 3)?;
        let coarse = match r.konst(field::SRC3U + 3) {
            Ok(m) if m == footprint::MODE_FINE || m == footprint::MODE_COARSE => {
                self.cx.const_bool(m == footprint::MODE_COARSE)
            }
            Ok(value) => {
                let e = NvapiError::BadSubOp { opcode: op, field: field_name(field::SRC3U + 3), value };
                return Err(self.nv_malformed(op.to_string(), e));
            }
            Err(_) => {
                let m = get(field::SRC3U + 3)?;
                self.nv_predicate(m)?
            }
        };
        // Image operands in mask-bit order: Bias, Lod, Grad, ConstOffset.
        let mut mask = ImageOperands::NONE;
        let mut operands = Vec::new();
        match n {
            footprint::BIAS | footprint::LEVEL => {
                let x = self.ids_op(Op::Bitcast, f, &[get(field::SRC2U)?])?;
                mask |= if n == footprint::BIAS { ImageOperands::BIAS } else { ImageOperands::LOD };
                operands.push(x);
            }
            footprint::GRAD => {
                let dx = floats(self, field::SRC2U)?;
                let dy = floats(self, field::SRC5U)?;
                mask |= ImageOperands::GRAD;
                operands.extend([dx, dy]);
            }
            _ => {}
        }
        if matches!(n, footprint::PLAIN | footprint::BIAS) {
            self.need_thread_quads(ThreadQuads::Derivatives);
        }
        let mut offset = Vec::new();
        for k in 0..n_coords {
            let o = r.konst(field::SRC4U + k).map_err(|_| {
                self.nv_error(
                    op.to_string(),
                    VendorRefusal::NotLowered("a non-constant texel offset (NVAPI requires an immediate)".into()),
                )
            })?;
            offset.push(o);
        }
        if offset.iter().any(|&o| o != 0) {
            let i = self.cx.sint(32);
            let comps: Vec<Word> = offset.iter().map(|&o| self.cx.const_bits(i, 32, u64::from(o))).collect();
            let iv = self.cx.vec(i, n_coords);
            let id = self.cx.b.constant_composite(iv, comps);
            mask |= ImageOperands::CONST_OFFSET;
            operands.push(id);
        }
        self.cx.capability(Capability::ImageFootprintNV);
        self.cx.extension("SPV_NV_shader_image_footprint");
        let u = self.cx.u32_t();
        let b = self.cx.bool_t();
        let (un, u2) = (self.cx.vec(u, n_coords), self.cx.vec(u, 2));
        let st = self.cx.b.type_struct([b, un, un, u2, u, u]);
        let mut args = vec![si, coord, granularity, coarse];
        if !mask.is_empty() {
            args.push(mask.bits());
            args.extend(operands);
        }
        let fp = self.ids_op(Op::ImageSampleFootprintNV, st, &args)?;
        let single = self.extract(b, fp, 0)?;
        self.nvapi.set_single_lod(single);
        let anchor = self.extract(un, fp, 1)?;
        let offs = self.extract(un, fp, 2)?;
        let mask2 = self.extract(u2, fp, 3)?;
        let lod = self.extract(u, fp, 4)?;
        let gran = self.extract(u, fp, 5)?;
        let comp = |me: &mut Self, v: Word, k: u32| me.extract(u, v, k);
        let (mx, my) = (comp(self, mask2, 0)?, comp(self, mask2, 1)?);
        let (ax, ay) = (comp(self, anchor, 0)?, comp(self, anchor, 1)?);
        let (ox, oy) = (comp(self, offs, 0)?, comp(self, offs, 1)?);
        let (z, w) = if dim == Dim::Dim3D {
            let (az, oz) = (comp(self, anchor, 2)?, comp(self, offs, 2)?);
            let z = self.nv_pack(&[(az, 0, 13), (ox, 16, 2), (oy, 18, 2), (oz, 20, 2), (gran, 24, 4)])?;
            let w = self.nv_pack(&[(ax, 0, 12), (lod, 12, 4), (ay, 16, 12)])?;
            (z, w)
        } else {
            let z = self.nv_pack(&[(ay, 0, 12), (ox, 16, 3), (oy, 19, 3), (gran, 24, 4)])?;
            let w = self.nv_pack(&[(ax, 0, 12), (lod, 12, 4)])?;
            (z, w)
        };
        Ok([mx, my, z, w])
    }

    /// The word with bits `offset..offset + count` of each `(value, offset, count)` from the
    /// value's low bits, the rest 0.
    fn nv_pack(&mut self, fields: &[(Word, u32, u32)]) -> Result<Word> {
        let u = self.cx.u32_t();
        let mut acc = self.cx.const_u32(0);
        for &(v, offset, count) in fields {
            let (o, c) = (self.cx.const_u32(offset), self.cx.const_u32(count));
            acc = self.ids_op(Op::BitFieldInsert, u, &[acc, v, o, c])?;
        }
        Ok(acc)
    }

    /// The `class` resource at register `src` in space `space` (record dwords), as a
    /// handle: a constant register names the range holding it; a register known only at
    /// run time must be in the only `class` range of the space (and is non-uniform).
    fn nv_bound(&mut self, r: &Record<Word>, class: ResourceClass, src: u32, space: u32) -> Result<Handle> {
        let op = r.opcode;
        let s = r.konst(space).map_err(|e| self.nv_malformed(op.to_string(), e))?;
        let arg = r.arg(src).ok_or_else(|| Error::Internal(format!("{op}: {} has no value", field_name(src))))?;
        let (id, non_uniform) = match r.konst(src) {
            Ok(reg) => (self.res.table_holding(class, s, reg), false),
            Err(_) => (self.res.only_in_space(class, s), true),
        };
        let id = id.ok_or_else(|| {
            let reg = r
                .konst(src)
                .map_or_else(|_| "a register known at run time".to_string(), |reg| format!("register {reg}"));
            self.nv_error(
                op.to_string(),
                VendorRefusal::NotLowered(format!(
                    "no {} range of the shader holds {reg} of space {s} ({} and {})",
                    class.name(),
                    field_name(src),
                    field_name(space)
                )),
            )
        })?;
        Ok(Handle { class, id, index: Some(arg), non_uniform, heap: None })
    }

    #[cold]
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
