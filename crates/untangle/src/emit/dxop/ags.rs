//! AMD AGS intrinsics: the `atomicCompareExchange` calls on AGS's magic UAV, decoded by
//! [`crate::dxil::ags`] and lowered here to what they compute. The UAV is never declared
//! and nothing is stored.
//!
//! Each call is `cmpxchg(magic, instruction word, _, _, src0, src1)` and returns one 32-bit
//! word. The [`crate::dxil::ags::Sequencer`] checks phase order; a multi-phase intrinsic
//! keeps the SPIR-V ids its later phases need in `FnEmit::ags_pending`.
//!
//! | AGS opcode | SPIR-V |
//! |---|---|
//! | `Readfirstlane` | `OpGroupNonUniformBroadcastFirst` |
//! | `Readlane` (lane in the immediate) | `OpGroupNonUniformBroadcast` (constant lane) |
//! | `ReadlaneAt` (lane in src1) | `OpGroupNonUniformShuffle` |
//! | `LaneId`, `GetWaveSize` | `SubgroupLocalInvocationId`, `SubgroupSize` |
//! | `Swizzle` | `OpGroupNonUniformShuffle` from the lane the `ds_swizzle` pattern names |
//! | `Ballot` phase 0 / 1 | components 0 / 1 of `OpGroupNonUniformBallot(src0 != 0)` |
//! | `MBCnt` | `bitCount(src0 & SubgroupLtMask.x) + bitCount(src1 & SubgroupLtMask.y)` |
//! | `Min3`/`Max3` `U`/`F` | `UMin`/`UMax`/`NMin`/`NMax` of phase 0's two sources, then of that and phase 1's |
//! | `Med3` `U`/`F` | `max(min(a, b), min(max(a, b), c))` at phase 1 (phase 0's result is `min(a, b)`, which only phase 1 reads) |
//! | `WaveReduce` / `WaveScan` | `OpGroupNonUniform{F,I}{Add,Mul}`, `{F,S,U}{Min,Max}`, `Bitwise{And,Or,Xor}` with `Reduce` / `InclusiveScan` / `ExclusiveScan` |
//! | `DrawIndex`, `BaseVertex`, `BaseInstance` (vertex shaders) | `DrawIndex`, `BaseVertex`, `BaseInstance` built-ins (`shaderDrawParameters`) |
//! | `AtomicU64` (min, max, and, or, xor, add, exchange; raw or structured buffer targets) | the 64-bit `OpAtomic*` on the target's 64-bit view, at phase 2; the store between phases 1 and 2 names the target and is not emitted; phase 0's result is redefined as the old value's low word, phase 2's is its high word |
//! | `AtomicU64` compare-exchange (4 phases: phase 2 passes the value's high word and the comparator's low word, phase 3 the comparator's high word) | `OpAtomicCompareExchange` on the 64-bit view at phase 3, whose result is the old value's high word |
//! | `AtomicU64` on a texture or typed buffer (`RWTexture1D/2D/3D<uint2>`: the naming store is a `textureStore` at `(retVal.x, …)`; the texel's coordinates are phase 0's two sources and phase 1's first, AGS's `uint3 address`) | the same atomics through `OpImageTexelPointer` into the UAV's `R64ui` view (`SPV_EXT_shader_image_int64`, as SM 6.6's 64-bit typed atomics), with `image_int64_atomics` (`shaderImageInt64Atomics`), else refused naming it; multisampled targets are refused |
//! | `BufferStoreByte` / `BufferStoreShort` (phase 0: address, value; then a store of phase 0's result names the buffer and address; phase 1: nothing) | at that store: a short through the buffer's 16-bit view, a byte (or a short without the view: root descriptors) by `OpAtomicAnd` + `OpAtomicOr` on its word (other threads may write the neighbouring bytes), `FnEmit::store_sub_word` |
//! | `BaryCoord` (pixel shaders; phase 0: I, phase 1: J) | components 1 and 2 of `BaryCoordKHR` (perspective) / `BaryCoordNoPerspKHR` (linear), decorated `Centroid` / `Sample` for those modes (`fragment_shader_barycentric`); one place per built-in, not beside `SV_Barycentrics`, not the pull model |
//! | `VtxParam` (pixel shaders) | the element's `PerVertexKHR` array at the vertex (`fragment_shader_barycentric`); the element holding input register `param` must be `nointerpolation` or read no other way |
//! | `ShaderMarker` | nothing: its operand goes to the hardware thread trace (RGP/SQTT), the shader observes no result, and Vulkan has no such channel; its result reads 0 |
//! | `Float8Conversion` | `OpFConvert` with `SPV_EXT_float8`, else an exact emulation (`dxop/ags_float8.rs`) |
//! | `FloatOpWithRoundMode` (f32 add, subtract, multiply; 4 rounding modes), `FloatConversion` (f32 → f16; nearest, −∞, +∞) | an exact emulation in 32-bit integer arithmetic (`dxop/ags_rounding.rs`) |
//! | WMMA loads, stores, multiply-add, fill, length, conversions, element access, element-wise arithmetic | cooperative matrices (`dxop/ags_wmma.rs`) |
//! | `ShaderClock` / `ShaderRealtimeClock` | `OpReadClockKHR` at `Subgroup` / `Device` scope, read once at phase 0; phase 1 returns its high word (`VK_KHR_shader_clock`) |
//! | `LoadDwAtAddr` (phase 0: address low, high word; phase 1: byte offset) | `OpLoad` `Aligned 4` of a `uint` through a `PhysicalStorageBuffer` pointer, address + offset with the carry into the high word (`bufferDeviceAddress`); `LoadDwordAtAddrx2`/`x4` are that many of them |
//!
//! The rest is refused with [`VendorRefusal::NotLowered`], naming the instruction, for the
//! reason [`crate::emit::support::ags_support`] gives (which also says what is lowered:
//! the coverage table prints it): `Halt`, BVH intersection, the built-in escape opcodes,
//! 64-bit atomics on multisampled textures, the barycentric pull model, and WMMA sparse
//! forms.
//! Every other call through the magic UAV (a store, load, or another atomic) is a typed
//! error: AGS encodes nothing else there.
//!
//! Cost: a few instructions per call; the swizzle computes its source lane in 3 integer
//! operations.

use crate::dxil::ags::{self, Kind, Opcode, Scan, Swizzle, WaveOp};
use crate::dxil::DxOp;
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::support::{ags_support, VendorSupport};
use crate::emit::{AgsStore, AgsU64, Call, FnEmit, ResShape};
use crate::front::container::ShaderKind;
use crate::ir::Value;
use rspirv::spirv::{BuiltIn, Capability, Decoration, GroupOperation, MemoryAccess, Op, Scope, StorageClass, Word};

const VENDOR: &str = "AMD AGS";

/// GLSL.std.450 instruction numbers used here.
const UMIN: u32 = 38;
const UMAX: u32 = 41;
const NMIN: u32 = 79;
const NMAX: u32 = 80;

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Call `c` goes through AGS's magic UAV (its first operand is a handle to it).
    pub(super) fn is_ags_call(&self, c: &Call<'_>) -> Result<bool> {
        if matches!(c.op, DxOp::AnnotateHandle | DxOp::CreateHandle | DxOp::CreateHandleFromBinding) {
            return Ok(false);
        }
        let Some(crate::ir::Value::Inst(i)) = c.args.first() else { return Ok(false) };
        match self.handles.get(i) {
            Some(h) => self.is_ags_uav(h),
            None => Ok(false),
        }
    }

    pub(super) fn ags_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        if c.op != DxOp::AtomicCompareExchange {
            return Err(self.ags_error(
                format!("{} on the magic UAV", c.op.name()),
                VendorRefusal::NotLowered("AGS encodes intrinsics only as atomicCompareExchange calls".into()),
            ));
        }
        let word = self.arg_const(c, 1).map_err(|_| {
            self.ags_error(
                "atomicCompareExchange on the magic UAV".into(),
                VendorRefusal::NotLowered("its instruction word (the address) is not a constant".into()),
            )
        })?;
        let word = u32::try_from(word).unwrap_or(u32::MAX);
        if let Some(inst) = ags::decode(word).ok().filter(|i| i.opcode.is_wave_matrix()) {
            if let Some(open) = self.ags.open() {
                return Err(self.ags_error(
                    open.opcode.to_string(),
                    VendorRefusal::Malformed(ags::AgsError::Phase {
                        opcode: open.opcode,
                        phase: open.phase + 1,
                        what: format!("is missing: the next call is {}", inst.opcode),
                    }),
                ));
            }
            return self.wmma_op(c, inst).map(Some);
        }
        let step = self.ags.push(word).map_err(|e| self.ags_error(format!("word 0x{word:08x}"), e.into()))?;
        if step.inst.phase == 0 {
            self.ags_pending.clear();
        }
        let r = self.ags_lower(c, step.inst)?;
        if step.last {
            self.ags_pending.clear();
        }
        Ok(Some(r))
    }

    /// At the end of a function: an AGS intrinsic left without its last phase is malformed.
    pub(in crate::emit) fn ags_finish(&mut self) -> Result<()> {
        self.wmma_finish()?;
        match self.ags.open() {
            Some(inst) => Err(self.ags_error(
                inst.opcode.to_string(),
                VendorRefusal::Malformed(ags::AgsError::Phase {
                    opcode: inst.opcode,
                    phase: inst.phase + 1,
                    what: "is missing: the function ends first".into(),
                }),
            )),
            None => Ok(()),
        }
    }

    #[cold]
    pub(super) fn ags_error(&self, instruction: String, reason: VendorRefusal) -> Error {
        Error::VendorExtension { vendor: VENDOR, instruction, reason }
    }

    pub(super) fn ags_need(&self, op: Opcode, have: bool, feature: &'static str, option: &'static str) -> Result<()> {
        if have {
            Ok(())
        } else {
            Err(self.ags_error(op.to_string(), VendorRefusal::MissingFeature { feature, option }))
        }
    }

    /// Raw GPU addresses (`LoadDwAtAddr`, WMMA global forms) need `bufferDeviceAddress`.
    pub(super) fn ags_need_addresses(&self, op: Opcode) -> Result<()> {
        let have = self.iface.stage.vendor.buffer_device_address;
        self.ags_need(
            op,
            have,
            "bufferDeviceAddress (Vulkan 1.2, VK_KHR_buffer_device_address)",
            "buffer_device_address",
        )
    }

    /// A `PhysicalStorageBuffer` pointer to `pointee` at the 64-bit GPU address whose words
    /// are `lo`, `hi`, plus the 32-bit byte offset `offset` (its carry into `hi`): in 32-bit
    /// arithmetic, so no `Int64`; the `uvec2` becomes the pointer by `OpBitcast`
    /// (`SPV_KHR_physical_storage_buffer`), low word first.
    pub(super) fn ags_address(&mut self, lo: Word, hi: Word, offset: Word, pointee: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let b = self.cx.bool_t();
        let lo2 = self.ids_op(Op::IAdd, u, &[lo, offset])?;
        let wrapped = self.ids_op(Op::ULessThan, b, &[lo2, lo])?;
        let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
        let carry = self.ids_op(Op::Select, u, &[wrapped, one, zero])?;
        let hi2 = self.ids_op(Op::IAdd, u, &[hi, carry])?;
        let u2 = self.cx.vec(u, 2);
        let at = self.ids_op(Op::CompositeConstruct, u2, &[lo2, hi2])?;
        self.cx.physical_addressing();
        let pty = self.cx.ptr(StorageClass::PhysicalStorageBuffer, pointee);
        self.ids_op(Op::Bitcast, pty, &[at])
    }

    fn ags_lower(&mut self, c: &Call<'_>, inst: ags::Instruction) -> Result<Word> {
        use Opcode::*;
        let u = self.cx.u32_t();
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let src0 = |fe: &mut Self| fe.arg_val(c, 4);
        let src1 = |fe: &mut Self| fe.arg_val(c, 5);
        let vendor = self.iface.stage.vendor;
        Ok(match inst.opcode {
            Readfirstlane => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let x = src0(self)?;
                self.ids_op(Op::GroupNonUniformBroadcastFirst, u, &[sg, x])?
            }
            Readlane => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let x = src0(self)?;
                let lane = self.cx.const_u32(inst.data);
                self.ids_op(Op::GroupNonUniformBroadcast, u, &[sg, x, lane])?
            }
            ReadlaneAt => {
                self.cx.capability(Capability::GroupNonUniformShuffle);
                let (x, lane) = (src0(self)?, src1(self)?);
                self.ids_op(Op::GroupNonUniformShuffle, u, &[sg, x, lane])?
            }
            LaneId => self.ags_builtin(BuiltIn::SubgroupLocalInvocationId)?,
            GetWaveSize => self.ags_builtin(BuiltIn::SubgroupSize)?,
            Swizzle => {
                let Kind::Swizzle(s) = inst.kind else { return Err(self.err("AGS swizzle without its pattern")) };
                self.cx.capability(Capability::GroupNonUniformShuffle);
                let lane = self.ags_builtin(BuiltIn::SubgroupLocalInvocationId)?;
                let src = self.swizzle_source(lane, s)?;
                let x = src0(self)?;
                self.ids_op(Op::GroupNonUniformShuffle, u, &[sg, x, src])?
            }
            Ballot => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let b = self.cx.bool_t();
                let x = src0(self)?;
                let zero = self.cx.const_u32(0);
                let p = self.ids_op(Op::INotEqual, b, &[x, zero])?;
                let u4 = self.cx.vec(u, 4);
                let v = self.ids_op(Op::GroupNonUniformBallot, u4, &[sg, p])?;
                self.extract(u, v, inst.phase)?
            }
            MBCnt => {
                self.cx.capability(Capability::GroupNonUniformBallot);
                let u4 = self.cx.vec(u, 4);
                let var = self.iface.builtin(self.cx, BuiltIn::SubgroupLtMask, StorageClass::Input, u4);
                let lt = self.ids_op(Op::Load, u4, &[var])?;
                let mut counts = Vec::new();
                for k in 0..2 {
                    let m = self.extract(u, lt, k)?;
                    let x = if k == 0 { src0(self)? } else { src1(self)? };
                    let both = self.ids_op(Op::BitwiseAnd, u, &[x, m])?;
                    counts.push(self.ids_op(Op::BitCount, u, &[both])?);
                }
                self.ids_op(Op::IAdd, u, &counts)?
            }
            Min3U | Min3F | Max3U | Max3F | Med3U | Med3F => self.ags_three(c, inst)?,
            WaveReduce | WaveScan => {
                let Kind::Wave { op, scan } = inst.kind else { return Err(self.err("AGS wave op without its kind")) };
                self.ags_wave(c, op, scan)?
            }
            DrawIndex | BaseVertex | BaseInstance => {
                if self.sm.kind != ShaderKind::Vertex {
                    return Err(self.ags_error(
                        inst.opcode.to_string(),
                        VendorRefusal::NotLowered(format!(
                            "Vulkan's draw parameters are vertex-shader inputs, and this is a {:?} shader",
                            self.sm.kind
                        )),
                    ));
                }
                self.ags_need(
                    inst.opcode,
                    vendor.draw_parameters,
                    "shaderDrawParameters (Vulkan 1.1)",
                    "draw_parameters",
                )?;
                self.cx.capability(Capability::DrawParameters);
                let b = match inst.opcode {
                    DrawIndex => BuiltIn::DrawIndex,
                    BaseVertex => BuiltIn::BaseVertex,
                    _ => BuiltIn::BaseInstance,
                };
                let i = self.cx.sint(32);
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, i);
                let v = self.ids_op(Op::Load, i, &[var])?;
                self.ids_op(Op::Bitcast, u, &[v])?
            }
            ShaderClock | ShaderRealtimeClock => {
                self.ags_need(
                    inst.opcode,
                    vendor.shader_clock,
                    "shaderSubgroupClock / shaderDeviceClock (VK_KHR_shader_clock)",
                    "shader_clock",
                )?;
                if inst.phase == 0 {
                    self.cx.capability(Capability::ShaderClockKHR);
                    self.cx.extension("SPV_KHR_shader_clock");
                    let scope = if inst.opcode == ShaderClock { Scope::Subgroup } else { Scope::Device };
                    let scope = self.cx.const_u32(scope as u32);
                    let u2 = self.cx.vec(u, 2);
                    let clock = self.ids_op(Op::ReadClockKHR, u2, &[scope])?;
                    let hi = self.extract(u, clock, 1)?;
                    self.ags_pending.push(hi);
                    self.extract(u, clock, 0)?
                } else {
                    self.ags_pending_word(inst, 0)?
                }
            }
            AtomicU64 => self.ags_atomic_u64(c, inst)?,
            LoadDwAtAddr => {
                self.ags_need_addresses(inst.opcode)?;
                if inst.phase == 0 {
                    let (lo, hi) = (src0(self)?, src1(self)?);
                    self.ags_pending.extend([lo, hi]);
                    // AGS overwrites phase 0's result with phase 1's.
                    self.cx.undef(u)
                } else {
                    let (lo, hi) = (self.ags_pending_word(inst, 0)?, self.ags_pending_word(inst, 1)?);
                    let offset = src0(self)?;
                    let p = self.ags_address(lo, hi, offset, u)?;
                    // AGS loads dwords: the address is 4-byte aligned.
                    self.ids_op(Op::Load, u, &[p, MemoryAccess::ALIGNED.bits(), 4])?
                }
            }
            BufferStoreByte | BufferStoreShort => self.ags_sub_word_store(c, inst)?,
            BaryCoord => self.ags_barycentric(inst)?,
            VtxParam => self.ags_vertex_param(inst)?,
            // A marker in the hardware thread trace (RGP's SQTT), for profilers: the shader
            // observes nothing (the call's result is undefined, its operand only goes to
            // the trace), and Vulkan has no such side channel. Its phase was checked.
            ShaderMarker => self.cx.const_u32(0),
            Float8Conversion => {
                let Kind::Float8 { cvt, saturate } = inst.kind else {
                    return Err(self.err("AGS float8 conversion without its kind"));
                };
                let x = src0(self)?;
                self.ags_float8(cvt, saturate, x)?
            }
            FloatConversion => {
                let Kind::F16Conversion(mode) = inst.kind else {
                    return Err(self.err("AGS float conversion without its rounding mode"));
                };
                let x = src0(self)?;
                self.ags_f16_conversion(mode, x)?
            }
            FloatOpWithRoundMode => {
                let Kind::RoundedOp { op, mode } = inst.kind else {
                    return Err(self.err("AGS rounded float operation without its kind"));
                };
                let (a, b) = (src0(self)?, src1(self)?);
                self.ags_rounded_op(op, mode, a, b)?
            }
            op => {
                return Err(match ags_support(op) {
                    VendorSupport::Refused(why) => {
                        self.ags_error(op.to_string(), VendorRefusal::NotLowered(why.into()))
                    }
                    VendorSupport::Lowered { .. } => {
                        Error::Internal(format!("{op} is lowered but reached no lowering"))
                    }
                })
            }
        })
    }

    /// A store that names the target of an open AGS 64-bit atomic ([`Self::ags_u64_target`])
    /// or byte or short store ([`Self::ags_store_target`]): recorded or lowered, the
    /// store itself not emitted.
    pub(super) fn ags_target(&mut self, c: &Call<'_>) -> Result<bool> {
        Ok(self.ags_u64_target(c)? || self.ags_store_target(c)?)
    }

    /// A store that names an AGS byte or short store's target: a `bufferStore` /
    /// `rawBufferStore` of the open intrinsic's phase-0 result (one component) to a raw or
    /// structured buffer UAV. The sub-word store is emitted here, at the store's byte
    /// address (the SDK passes the same address to phase 0, whose operand is not needed).
    fn ags_store_target(&mut self, c: &Call<'_>) -> Result<bool> {
        let Some(mut s) = self.ags_store else { return Ok(false) };
        if s.stored
            || !matches!(c.op, DxOp::BufferStore | DxOp::RawBufferStore)
            || c.args.get(3) != Some(&crate::ir::Value::Inst(s.phase0))
        {
            return Ok(false);
        }
        let opcode = if s.bytes == 1 { Opcode::BufferStoreByte } else { Opcode::BufferStoreShort };
        let refuse = |fe: &Self, why: &str| fe.ags_error(opcode.to_string(), VendorRefusal::NotLowered(why.into()));
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if !rv.uav || !matches!(rv.shape, crate::emit::ResShape::Words { .. }) {
            return Err(refuse(self, "the target store is not to a raw or structured buffer UAV"));
        }
        // The write mask: `bufferStore`'s last operand, `rawBufferStore`'s last but one.
        let mask = c.args.len().saturating_sub(if c.op == DxOp::RawBufferStore { 2 } else { 1 });
        if self.arg_const(c, mask).ok() != Some(1) {
            return Err(refuse(self, "the target store writes other components than the first"));
        }
        let index = self.arg_val(c, 1)?;
        let off = if self.is_undef(self.arg(c, 2)?) { None } else { Some(self.arg_val(c, 2)?) };
        let addr = self.byte_address(rv.shape, index, self.arg(c, 1)?, off, self.arg(c, 2).ok())?;
        self.store_sub_word(h, addr, s.value, s.bytes)?;
        s.stored = true;
        self.ags_store = Some(s);
        Ok(true)
    }

    /// `BufferStoreByte` / `BufferStoreShort`: phase 0 (address, value), the store of its
    /// result that names the buffer and address (where the store is emitted:
    /// [`Self::ags_store_target`]), phase 1 (nothing).
    fn ags_sub_word_store(&mut self, c: &Call<'_>, inst: ags::Instruction) -> Result<Word> {
        let u = self.cx.u32_t();
        if inst.phase == 0 {
            let value = self.arg_val(c, 5)?;
            let bytes = if inst.opcode == Opcode::BufferStoreByte { 1 } else { 2 };
            self.ags_store = Some(AgsStore { phase0: c.inst, value, bytes, stored: false });
            return Ok(self.cx.undef(u));
        }
        if !self.ags_store.take().is_some_and(|s| s.stored) {
            return Err(self.ags_error(
                inst.opcode.to_string(),
                VendorRefusal::Malformed(ags::AgsError::Phase {
                    opcode: inst.opcode,
                    phase: 1,
                    what: "comes without the store that names the target buffer".into(),
                }),
            ));
        }
        Ok(self.cx.undef(u))
    }

    /// A store that names an AGS 64-bit atomic's target: a `bufferStore` / `rawBufferStore`
    /// (raw, structured or typed buffer) or `textureStore` of the open atomic's phase-1
    /// result at its phase-0 result (a texture's coordinates all phase 0's result, as the
    /// SDK writes `uav[uint2(retVal.x, retVal.x)] = retVal.y`). It is recorded (its handle
    /// is the target) and emits nothing.
    fn ags_u64_target(&mut self, c: &Call<'_>) -> Result<bool> {
        let Some(mut a) = self.ags_u64 else { return Ok(false) };
        let Some(phase1) = a.phase1 else { return Ok(false) };
        let value_at = match c.op {
            DxOp::BufferStore | DxOp::RawBufferStore => 3,
            DxOp::TextureStore | DxOp::TextureStoreSample => 4,
            _ => return Ok(false),
        };
        if a.target.is_some() || c.args.get(value_at) != Some(&Value::Inst(phase1)) {
            return Ok(false);
        }
        let atomic = |fe: &Self, why: &str| {
            fe.ags_error(Opcode::AtomicU64.to_string(), VendorRefusal::NotLowered(why.to_string()))
        };
        if c.args.get(1) != Some(&Value::Inst(a.phase0)) {
            return Err(atomic(self, "the store naming the target is not at phase 0's result"));
        }
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        let image = match rv.shape {
            ResShape::Words { .. } => false,
            ResShape::Image { ms: false, .. } if c.op != DxOp::TextureStoreSample => true,
            ResShape::Image { .. } => {
                return Err(atomic(self, "the target is a multisampled texture, which AGS's atomics do not address"))
            }
            _ => return Err(atomic(self, "the target is not a raw, structured or typed UAV")),
        };
        if !rv.uav || h.heap.is_some() {
            return Err(atomic(self, "only UAVs bound by register are lowered as targets"));
        }
        if image {
            // A 64-bit view (`R64ui`) of the typed UAV: D3D's 64-bit texture atomics act on
            // `R32G32_UINT` textures, one 64-bit value a texel, which vkd3d-proton makes
            // `R64_UINT`-compatible where the device has `shaderImageInt64Atomics`.
            self.ags_need(
                Opcode::AtomicU64,
                self.iface.stage.vendor.image_int64_atomics,
                "shaderImageInt64Atomics (VK_EXT_shader_image_atomic_int64)",
                "image_int64_atomics",
            )?;
        }
        a.target = Some(h);
        self.ags_u64 = Some(a);
        Ok(true)
    }

    /// The coordinates of an AGS 64-bit atomic's texel in a texture of `n` coordinates
    /// (`n` ≤ 3): the scalar, or a `uvec{n}`.
    fn ags_texel(&mut self, texel: [Option<Value>; 3], n: usize) -> Result<Word> {
        let mut words = Vec::with_capacity(n);
        for v in texel.iter().take(n) {
            let v = v.ok_or_else(|| Error::Internal("AGS texture atomic without its coordinates".into()))?;
            words.push(self.value(v)?);
        }
        match words[..] {
            [x] => Ok(x),
            _ => {
                let u = self.cx.u32_t();
                let vt = self.cx.vec(u, n as u32);
                self.ids_op(Op::CompositeConstruct, vt, &words)
            }
        }
    }

    /// `AtomicU64`: phase 0 (address, unused), phase 1 (unused, value low word), the store
    /// naming the target, phase 2 (value high word): the atomic, on the target's 64-bit
    /// view. The compare-exchange's phase 2 also passes the comparator's low word and its
    /// phase 3 the high word, where the `OpAtomicCompareExchange` is (its result: phase 3's).
    fn ags_atomic_u64(&mut self, c: &Call<'_>, inst: ags::Instruction) -> Result<Word> {
        let Kind::Atomic(op) = inst.kind else { return Err(self.err("AGS atomic without its operation")) };
        let u = self.cx.u32_t();
        let opcode = match op {
            ags::AtomicOp::MinU64 => Op::AtomicUMin,
            ags::AtomicOp::MaxU64 => Op::AtomicUMax,
            ags::AtomicOp::AndU64 => Op::AtomicAnd,
            ags::AtomicOp::OrU64 => Op::AtomicOr,
            ags::AtomicOp::XorU64 => Op::AtomicXor,
            ags::AtomicOp::AddU64 => Op::AtomicIAdd,
            ags::AtomicOp::XchgU64 => Op::AtomicExchange,
            ags::AtomicOp::CmpXchgU64 => Op::AtomicCompareExchange,
        };
        let missing = || Error::Internal(format!("AGS atomic phase {} without phase 0", inst.phase));
        match inst.phase {
            0 => {
                let address = self.arg_val(c, 4)?;
                let texel = [c.args.get(4).copied(), c.args.get(5).copied(), None];
                self.ags_u64 = Some(AgsU64 {
                    phase0: c.inst,
                    phase1: None,
                    address,
                    texel,
                    value_lo: 0,
                    target: None,
                    cmpxchg: None,
                });
                Ok(self.cx.undef(u))
            }
            1 => {
                let value_lo = self.arg_val(c, 5)?;
                let a = self
                    .ags_u64
                    .as_mut()
                    .ok_or_else(|| Error::Internal("AGS atomic phase 1 without phase 0".into()))?;
                a.phase1 = Some(c.inst);
                a.value_lo = value_lo;
                a.texel[2] = c.args.get(4).copied();
                Ok(self.cx.undef(u))
            }
            2 if op == ags::AtomicOp::CmpXchgU64 => {
                let (value_hi, compare_lo) = (self.arg_val(c, 4)?, self.arg_val(c, 5)?);
                let a = self.ags_u64.as_mut().ok_or_else(missing)?;
                a.cmpxchg = Some((value_hi, compare_lo));
                Ok(self.cx.undef(u))
            }
            _ => {
                let a = self.ags_u64.take().ok_or_else(missing)?;
                let Some(h) = a.target else {
                    return Err(self.ags_error(
                        inst.opcode.to_string(),
                        VendorRefusal::Malformed(ags::AgsError::Phase {
                            opcode: inst.opcode,
                            phase: inst.phase,
                            what: "comes without the store that names the atomic's target".into(),
                        }),
                    ));
                };
                let (value_hi, comparator) = match a.cmpxchg {
                    None => (self.arg_val(c, 4)?, None),
                    Some((value_hi, compare_lo)) => {
                        let compare_hi = self.arg_val(c, 4)?;
                        (value_hi, Some(self.pack_u64(compare_lo, compare_hi)?))
                    }
                };
                let v = self.pack_u64(a.value_lo, value_hi)?;
                let u64t = self.cx.uint(64);
                let shape = self.res_var(h)?.shape;
                let ptr = if let ResShape::Image { .. } = shape {
                    let n = shape.coords() as usize;
                    self.image_u64_ptr(h, shape, |fe| fe.ags_texel(a.texel, n))?.0
                } else {
                    let view = self.buffer_u64_view(h)?;
                    self.buffer_u64_ptr(h, view, a.address)?
                };
                let scope = self.cx.const_u32(Scope::Device as u32);
                let sem = self.cx.const_u32(0);
                let old = match comparator {
                    None => self.ids_op(opcode, u64t, &[ptr, scope, sem, v])?,
                    Some(cmp) => self.ids_op(opcode, u64t, &[ptr, scope, sem, sem, v, cmp])?,
                };
                let old_lo = self.ids_op(Op::UConvert, u, &[old])?;
                let c32 = self.cx.const_u32(32);
                let old_hi = self.ids_op(Op::ShiftRightLogical, u64t, &[old, c32])?;
                let old_hi = self.ids_op(Op::UConvert, u, &[old_hi])?;
                // Phase 0's result is the old value's low word.
                self.define(a.phase0, old_lo)?;
                Ok(old_hi)
            }
        }
    }

    /// The `u64` whose words are `lo` and `hi` (`lo | hi << 32`).
    pub(super) fn pack_u64(&mut self, lo: Word, hi: Word) -> Result<Word> {
        let u64t = self.cx.uint(64);
        let lo = self.ids_op(Op::UConvert, u64t, &[lo])?;
        let hi = self.ids_op(Op::UConvert, u64t, &[hi])?;
        let c32 = self.cx.const_u32(32);
        let hi = self.ids_op(Op::ShiftLeftLogical, u64t, &[hi, c32])?;
        self.ids_op(Op::BitwiseOr, u64t, &[lo, hi])
    }

    /// `BaryCoord` and `VtxParam` are pixel-shader intrinsics needing
    /// `fragmentShaderBarycentric`.
    fn ags_pixel_barycentric(&mut self, op: Opcode) -> Result<()> {
        if self.sm.kind != ShaderKind::Pixel {
            return Err(self.ags_error(
                op.to_string(),
                VendorRefusal::NotLowered(format!("a pixel-shader intrinsic in a {:?} shader", self.sm.kind)),
            ));
        }
        self.ags_need(
            op,
            self.iface.stage.vendor.fragment_shader_barycentric,
            "fragmentShaderBarycentric (VK_KHR_fragment_shader_barycentric)",
            "fragment_shader_barycentric",
        )?;
        self.cx.extension("SPV_KHR_fragment_shader_barycentric");
        self.cx.capability(Capability::FragmentBarycentricKHR);
        Ok(())
    }

    /// `BaryCoord` (phase 0: I, phase 1: J): AMD's `(I, J)` are the weights of the
    /// triangle's vertices 1 and 2, components 1 and 2 of `BaryCoordKHR` (perspective) or
    /// `BaryCoordNoPerspKHR` (linear), evaluated at the pixel centre, the centroid
    /// (`Centroid`) or the sample (`Sample`). Vulkan allows one variable per built-in, so
    /// one shader may evaluate each built-in at one place only, and not next to an
    /// `SV_Barycentrics` input; the pull model has no built-in.
    fn ags_barycentric(&mut self, inst: ags::Instruction) -> Result<Word> {
        use ags::Barycentric::*;
        let Kind::Barycentric(mode) = inst.kind else { return Err(self.err("AGS BaryCoord without its mode")) };
        let refuse = |fe: &Self, why: String| fe.ags_error(inst.opcode.to_string(), VendorRefusal::NotLowered(why));
        let (builtin, at) = match mode {
            LinearCenter => (BuiltIn::BaryCoordNoPerspKHR, None),
            LinearCentroid => (BuiltIn::BaryCoordNoPerspKHR, Some(Decoration::Centroid)),
            LinearSample => (BuiltIn::BaryCoordNoPerspKHR, Some(Decoration::Sample)),
            PerspCenter => (BuiltIn::BaryCoordKHR, None),
            PerspCentroid => (BuiltIn::BaryCoordKHR, Some(Decoration::Centroid)),
            PerspSample => (BuiltIn::BaryCoordKHR, Some(Decoration::Sample)),
            PerspPullModel => {
                return Err(refuse(self, "pull-model barycentrics (1/W, 1/I, 1/J) have no Vulkan built-in".into()))
            }
        };
        self.ags_pixel_barycentric(inst.opcode)?;
        if self.sigs.inputs.iter().any(|e| e.system_value == crate::dxil::SemanticKind::Barycentrics) {
            return Err(refuse(
                self,
                "the shader also reads SV_Barycentrics, and Vulkan allows one variable per barycentric built-in".into(),
            ));
        }
        let place = at.map(|d| d as u32);
        match self.iface.ags_barycentrics.insert(builtin as u32, place) {
            Some(before) if before != place => {
                return Err(refuse(
                    self,
                    format!("{builtin:?} is evaluated at two places, and Vulkan allows one variable per built-in"),
                ))
            }
            _ => {}
        }
        let f = self.cx.float(32);
        let v3 = self.cx.vec(f, 3);
        let (var, created) = self.iface.builtin_created(self.cx, builtin, StorageClass::Input, v3);
        if let (true, Some(d)) = (created, at) {
            self.cx.decorate(var, d, &[]);
            if d == Decoration::Sample {
                self.cx.capability(Capability::SampleRateShading);
            }
        }
        let v = self.ids_op(Op::Load, v3, &[var])?;
        let x = self.extract(f, v, inst.phase + 1)?;
        let u = self.cx.u32_t();
        self.ids_op(Op::Bitcast, u, &[x])
    }

    /// `VtxParam`: component `component` of input register `param` at the triangle's
    /// vertex `vertex`, from the element's `PerVertexKHR` array (`emit::stage::pixel`
    /// makes it one where it is `nointerpolation` or read no other way), as its bits.
    fn ags_vertex_param(&mut self, inst: ags::Instruction) -> Result<Word> {
        let Kind::VertexParam { vertex, param, component } = inst.kind else {
            return Err(self.err("AGS VtxParam without its operands"));
        };
        let refuse = |fe: &Self, why: String| fe.ags_error(inst.opcode.to_string(), VendorRefusal::NotLowered(why));
        self.ags_pixel_barycentric(inst.opcode)?;
        let Some(el) = ags::vertex_param_element(&self.sigs.inputs, param, component).cloned() else {
            return Err(refuse(self, format!("no input varying holds parameter {param}, component {component}")));
        };
        if !self.iface.stage.per_vertex_inputs.contains(&el.id) {
            return Err(refuse(
                self,
                format!(
                    "{} is interpolated and also read interpolated, and a Vulkan input is either interpolated or per vertex (PerVertexKHR)",
                    el.semantic
                ),
            ));
        }
        let sv = self.element(crate::emit::locations::SigKind::Input, el.id)?;
        if sv.builtin.is_some() || sv.vertices != 3 || sv.repr.num == crate::emit::Num::Bool {
            return Err(refuse(self, format!("{} is not a per-vertex 32-bit varying", el.semantic)));
        }
        let row = self.cx.const_u32(param - el.start_row.unwrap_or(0));
        let col = component - el.start_col.unwrap_or(0);
        let vertex = self.cx.const_u32(vertex);
        let p = self.sig_scalar_ptr(sv, StorageClass::Input, Some(vertex), row, Some(col), row)?;
        let st = sv.repr.num.scalar(self.cx);
        let x = self.ids_op(Op::Load, st, &[p])?;
        let u = self.cx.u32_t();
        if sv.repr.num == crate::emit::Num::UInt {
            Ok(x)
        } else {
            self.ids_op(Op::Bitcast, u, &[x])
        }
    }

    /// A `u32` built-in input, loaded.
    pub(super) fn ags_builtin(&mut self, b: BuiltIn) -> Result<Word> {
        self.cx.capability(Capability::GroupNonUniform);
        let u = self.cx.u32_t();
        let var = self.iface.builtin(self.cx, b, StorageClass::Input, u);
        if self.sm.kind == ShaderKind::Pixel {
            self.cx.decorate(var, rspirv::spirv::Decoration::Flat, &[]);
        }
        self.ids_op(Op::Load, u, &[var])
    }

    /// The id an earlier phase of the open intrinsic left at `k`.
    fn ags_pending_word(&self, inst: ags::Instruction, k: usize) -> Result<Word> {
        self.ags_pending.get(k).copied().ok_or_else(|| {
            self.ags_error(
                inst.opcode.to_string(),
                VendorRefusal::NotLowered(format!("phase {} found no value of the earlier phases", inst.phase)),
            )
        })
    }

    /// The lane `s` makes lane `lane` read.
    fn swizzle_source(&mut self, lane: Word, s: Swizzle) -> Result<Word> {
        let u = self.cx.u32_t();
        match s {
            Swizzle::BitMasks { and, or, xor } => {
                let keep = self.cx.const_u32(!31 | and);
                let or = self.cx.const_u32(or);
                let xor = self.cx.const_u32(xor);
                let x = self.ids_op(Op::BitwiseAnd, u, &[lane, keep])?;
                let x = self.ids_op(Op::BitwiseOr, u, &[x, or])?;
                self.ids_op(Op::BitwiseXor, u, &[x, xor])
            }
            Swizzle::Quad(sel) => {
                // base | ((packed >> 2 * (lane & 3)) & 3), the four selectors packed in a byte.
                let packed = self.cx.const_u32(sel[0] | sel[1] << 2 | sel[2] << 4 | sel[3] << 6);
                let (three, one, not3) = (self.cx.const_u32(3), self.cx.const_u32(1), self.cx.const_u32(!3));
                let pos = self.ids_op(Op::BitwiseAnd, u, &[lane, three])?;
                let shift = self.ids_op(Op::ShiftLeftLogical, u, &[pos, one])?;
                let sel = self.ids_op(Op::ShiftRightLogical, u, &[packed, shift])?;
                let sel = self.ids_op(Op::BitwiseAnd, u, &[sel, three])?;
                let base = self.ids_op(Op::BitwiseAnd, u, &[lane, not3])?;
                self.ids_op(Op::BitwiseOr, u, &[base, sel])
            }
        }
    }

    /// `Min3`, `Max3`, `Med3` (two phases).
    fn ags_three(&mut self, c: &Call<'_>, inst: ags::Instruction) -> Result<Word> {
        use Opcode::*;
        let float = matches!(inst.opcode, Min3F | Max3F | Med3F);
        let u = self.cx.u32_t();
        let t = if float { self.cx.float(32) } else { u };
        let (min, max) = if float { (NMIN, NMAX) } else { (UMIN, UMAX) };
        let operand = |fe: &mut Self, k: usize| -> Result<Word> {
            let x = fe.arg_val(c, k)?;
            if float {
                fe.ids_op(Op::Bitcast, t, &[x])
            } else {
                Ok(x)
            }
        };
        let r = if inst.phase == 0 {
            let (a, b) = (operand(self, 4)?, operand(self, 5)?);
            let op = if matches!(inst.opcode, Max3U | Max3F) { max } else { min };
            let r = self.glsl(t, op, &[a, b])?;
            let hi = if matches!(inst.opcode, Med3U | Med3F) { self.glsl(t, max, &[a, b])? } else { r };
            self.ags_pending.extend([r, hi]);
            r
        } else {
            // Phase 1: cmpxchg(src2, phase 0's result); the result operand is phase 0's value,
            // kept as its id.
            let c2 = operand(self, 4)?;
            let lo = self.ags_pending_word(inst, 0)?;
            let hi = self.ags_pending_word(inst, 1)?;
            match inst.opcode {
                Min3U | Min3F => self.glsl(t, min, &[lo, c2])?,
                Max3U | Max3F => self.glsl(t, max, &[lo, c2])?,
                _ => {
                    let m = self.glsl(t, min, &[hi, c2])?;
                    self.glsl(t, max, &[lo, m])?
                }
            }
        };
        if float {
            self.ids_op(Op::Bitcast, u, &[r])
        } else {
            Ok(r)
        }
    }

    /// `WaveReduce` and `WaveScan` of one 32-bit component.
    fn ags_wave(&mut self, c: &Call<'_>, op: WaveOp, scan: Option<Scan>) -> Result<Word> {
        use WaveOp::*;
        self.cx.capability(Capability::GroupNonUniformArithmetic);
        let u = self.cx.u32_t();
        let (t, opcode) = match op {
            AddF => (self.cx.float(32), Op::GroupNonUniformFAdd),
            MulF => (self.cx.float(32), Op::GroupNonUniformFMul),
            MinF => (self.cx.float(32), Op::GroupNonUniformFMin),
            MaxF => (self.cx.float(32), Op::GroupNonUniformFMax),
            AddI | AddU => (u, Op::GroupNonUniformIAdd),
            MulI | MulU => (u, Op::GroupNonUniformIMul),
            MinI => (self.cx.sint(32), Op::GroupNonUniformSMin),
            MaxI => (self.cx.sint(32), Op::GroupNonUniformSMax),
            MinU => (u, Op::GroupNonUniformUMin),
            MaxU => (u, Op::GroupNonUniformUMax),
            And => (u, Op::GroupNonUniformBitwiseAnd),
            Or => (u, Op::GroupNonUniformBitwiseOr),
            Xor => (u, Op::GroupNonUniformBitwiseXor),
        };
        let group = match scan {
            None => GroupOperation::Reduce,
            Some(Scan::Inclusive) => GroupOperation::InclusiveScan,
            Some(Scan::Exclusive) => GroupOperation::ExclusiveScan,
        };
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        let mut x = self.arg_val(c, 4)?;
        if t != u {
            x = self.ids_op(Op::Bitcast, t, &[x])?;
        }
        let r = self.ids_op(opcode, t, &[sg, group as u32, x])?;
        if t != u {
            self.ids_op(Op::Bitcast, u, &[r])
        } else {
            Ok(r)
        }
    }
}
