//! `dx.op.*` lowering, one file per family. [`FnEmit::dx_op`] decodes nothing itself: it asks
//! [`crate::emit::support::support`] whether the operation is lowered in this stage (a
//! refusal becomes a typed error naming the operation, stage, function, block and reason),
//! checks the call against the operation's DXIL signature (`check`), and hands it to its
//! family's module.
//!
//! Conventions shared by the families: results that DXIL returns as structs (`ResRet`,
//! `CBufRet`, `Dimensions`, ...) are built with [`FnEmit::make_ret`] from their components;
//! values cross between the IR's scalar types (unsigned ints, floats, `bool`) and the 32-bit
//! numeric kinds of images and interface variables with [`FnEmit::num_to_ir`] and
//! [`FnEmit::ir_to_num`]; an image access whose residency status the program reads is the
//! `OpImageSparse*` form of the access ([`FnEmit::wants_status`], [`FnEmit::image_access`]),
//! the status its residency code. A family function given an operation that is not its own returns
//! an internal error (the coverage test translates every lowered operation, so that cannot
//! go unnoticed).
//!
//! A leaf of `emit` (see its documentation), and so is each family: they import the root
//! ([`Call`], [`FnEmit`], ...), the low-level modules and the layers below `emit`, never
//! each other; what several families share is a method here ([`FnEmit::arg`],
//! [`FnEmit::make_ret`], ...) or on the root's types ([`super::TexelKind::num`]).

mod ags;
mod ags_float8;
mod ags_rounding;
mod ags_wmma;
mod ags_wmma_memory;
mod barriers;
mod buffers;
mod check;
mod compute;
mod convert;
mod debug;
mod feedback;
mod handles;
mod hit_object;
mod integer;
mod interpolation;
mod io;
mod linalg;
mod linalg_convert;
mod linalg_matrix;
mod math;
mod mesh;
mod nodes;
mod nvapi;
mod nvapi_hit;
mod nvapi_rt;
mod ray_query;
mod raytracing;
mod stages;
mod system;
mod textures;
mod wave;

use super::error::{malformed, Error, Result, Subject};
use super::support::{support, Family, Refusal, Support, Uncovered};
use super::{Call, FnEmit, Num};
use crate::dxil::{DxOp, DxOpCall};
use crate::front::container::ShaderKind;
use crate::ir::{InstId, Type, TypeId, Value};
use rspirv::spirv::{Capability, Op, Word};
use smallvec::SmallVec;

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Lowers one call; `Ok(None)` for calls without a result (or handles, which have no id).
    pub(super) fn dx_op(&mut self, inst: InstId, call: &DxOpCall<'_>) -> Result<Option<Word>> {
        let fe = self;
        let c = &Call { op: call.op, args: call.args, inst, ty: fe.f.insts[inst].ty };
        if fe.is_ags_call(c)? {
            return fe.ags_op(c);
        }
        if let Some(w) = fe.wmma_buffer_hook(c)? {
            return Ok(Some(w));
        }
        if fe.ags_target(c)? {
            return Ok(None);
        }
        if fe.is_nvapi_call(c)? {
            return fe.nvapi_op(c);
        }
        if fe.nvapi_target(c)? {
            return Ok(None);
        }
        if fe.nvapi_hit_call(c)? {
            return Ok(None);
        }
        // A library's entries, of whatever stage, name its resource objects with
        // `createHandleForLib`, which DXIL allows in library functions only.
        let stage =
            if c.op == DxOp::CreateHandleForLib && fe.sm.is_library() { ShaderKind::Library } else { fe.sm.kind };
        let family = match support(c.op, stage) {
            Support::Lowered(f) => f,
            // Lowered only under an encoding the layer selects (`feedback`).
            Support::Refused(r @ Refusal::NoVulkanFeature(Uncovered::SamplerFeedback)) => {
                let Some(encoding) = fe.iface.stage.sampler_feedback else { return Err(fe.refused(c, r)) };
                fe.check_signature(c)?;
                return fe.feedback_op(c, encoding);
            }
            Support::Refused(r) => return Err(fe.refused(c, r)),
        };
        fe.check_signature(c)?;
        match family {
            Family::Handles => fe.handle_op(c).map(|_| None),
            Family::ComputeIds => fe.compute_op(c),
            Family::Barriers => fe.barrier_op(c),
            Family::Buffers => fe.buffer_op(c),
            Family::Textures => fe.texture_op(c),
            Family::StageIo => fe.io_op(c),
            Family::Wave => fe.wave_op(c),
            Family::FloatMath => fe.float_op(c).map(Some),
            Family::IntegerMath => fe.integer_op(c).map(Some),
            Family::Conversions => fe.convert_op(c).map(Some),
            Family::SystemValues => fe.system_op(c).map(Some),
            Family::GraphicsStages => fe.stage_op(c),
            Family::Interpolation => fe.interpolation_op(c),
            Family::MeshShading => fe.mesh_family_op(c),
            Family::RayTracing => fe.ray_tracing_op(c),
            Family::RayQuery => fe.ray_query_op(c),
            Family::HitObjects => fe.hit_object_op(c),
            Family::WorkGraphs => fe.node_op(c),
            Family::Debugging => fe.debug_op(c),
            Family::LinearAlgebra => fe.linalg_op(c),
        }
    }

    /// The typed error for a call that [`support`] refuses.
    #[cold]
    fn refused(&self, c: &Call<'_>, r: Refusal) -> Error {
        let (function, block, _) = self.site(c.inst);
        Error::UnsupportedOp { op: c.op, stage: self.sm.profile.clone(), reason: r, function, block }
    }

    /// A family function was handed an operation of another family (a bug in
    /// `support::owner` or in the family's match).
    #[cold]
    pub fn not_in_family(&self, op: DxOp, family: &str) -> Error {
        Error::Internal(format!("{} was routed to the {family} family, which does not lower it", op.name()))
    }

    #[cold]
    pub fn form(&self, op: DxOp, message: impl Into<String>) -> Error {
        Error::UnsupportedForm { subject: Subject::Op(op), message: message.into() }
    }

    pub fn arg(&self, c: &Call<'_>, k: usize) -> Result<Value> {
        c.args
            .get(k)
            .copied()
            .ok_or_else(|| malformed(Subject::Op(c.op), format!("{} has too few arguments", c.op.name())))
    }

    pub fn arg_const(&self, c: &Call<'_>, k: usize) -> Result<u64> {
        let v = self.arg(c, k)?;
        self.const_int(v)
            .ok_or_else(|| malformed(Subject::Op(c.op), format!("{} argument {k} must be a constant", c.op.name())))
    }

    pub fn arg_val(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let v = self.arg(c, k)?;
        self.value(v)
    }

    /// The IR type of argument `k`.
    pub fn arg_ty(&self, c: &Call<'_>, k: usize) -> Result<TypeId> {
        let v = self.arg(c, k)?;
        self.value_ty(v)
            .ok_or_else(|| malformed(Subject::Op(c.op), format!("{} argument {k} has no type", c.op.name())))
    }

    /// Fields of a struct result type (empty for other types), borrowed from the module.
    pub fn fields(&self, ty: TypeId) -> &'m [TypeId] {
        let m: &'m crate::ir::Module = self.cx.m;
        m.types.struct_fields(ty).unwrap_or(&[])
    }

    /// Builds a struct result from its first components; missing components are undefined,
    /// an `i32` field after them (the residency status) is 0 unless `status` is given; a
    /// given `status` is the last field however few components precede it (comparisons
    /// give one).
    pub fn make_ret(&mut self, ty: TypeId, comps: &[Word], status: Option<Word>) -> Result<Word> {
        let fields = self.fields(ty);
        if fields.is_empty() {
            return Err(malformed(
                Subject::Module,
                format!("an operation that returns a struct is declared to return {}", self.cx.m.types.display(ty)),
            ));
        }
        let mut ids: SmallVec<[Word; 8]> = SmallVec::with_capacity(fields.len());
        for (k, &f) in fields.iter().enumerate() {
            let w = match comps.get(k) {
                Some(&w) => w,
                // The status: the last field, after the components or (given) after fewer.
                None if k == fields.len() - 1 && (fields.len() == comps.len() + 1 || status.is_some()) => {
                    match status {
                        Some(s) => s,
                        None => self.scalar_const(f, 0, 0.0)?,
                    }
                }
                None => {
                    let t = self.cx.ty(f)?;
                    self.cx.undef(t)
                }
            };
            ids.push(w);
        }
        let t = self.cx.ty(ty)?;
        self.ids_op(Op::CompositeConstruct, t, &ids)
    }

    /// SPIR-V's triangle vertex positions (`SPV_KHR_ray_tracing_position_fetch`): an array
    /// of 3 `vec3` of 32-bit floats, vertex by vertex.
    pub fn triangle_positions_t(&mut self) -> Word {
        let f = self.cx.float(32);
        let v3 = self.cx.vec(f, 3);
        let three = self.cx.const_u32(3);
        self.cx.b.type_array(v3, three)
    }

    /// The DXIL `<9 x float>` result of `c` (SM 6.10 `TriangleObjectPosition` and its
    /// ray-query and hit-object forms, hlsl-specs proposal 0041) from `positions`, a
    /// [`Self::triangle_positions_t`] value: lane `3k + i` is component `i` of vertex `k`
    /// (the proposal's `p0, p1, p2`, each `x, y, z`). Nine extracts and one construct.
    pub fn triangle_positions_to_ir(&mut self, c: &Call<'_>, positions: Word) -> Result<Word> {
        let f = self.cx.float(32);
        let mut lanes: SmallVec<[Word; 9]> = SmallVec::new();
        for k in 0..3 {
            for i in 0..3 {
                lanes.push(self.ids_op(Op::CompositeExtract, f, &[positions, k, i])?);
            }
        }
        let t = self.cx.ty(c.ty)?;
        self.ids_op(Op::CompositeConstruct, t, &lanes)
    }

    /// Byte offset `offset` of raw or structured buffer `h`, as an offset into the views of
    /// its descriptor: plus the first byte of the buffer's range when it lives in an offset
    /// table ([`Self::buffer_range`]). For the operations that address buffers in bytes
    /// (AGS WMMA, LinAlg matrices).
    pub fn view_byte_offset(&mut self, h: super::Handle, offset: Word) -> Result<Word> {
        Ok(match self.buffer_range(h)? {
            None => offset,
            Some((first, _)) => {
                let u = self.cx.u32_t();
                let four = self.cx.const_u32(4);
                let base = self.ids_op(Op::IMul, u, &[first, four])?;
                self.ids_op(Op::IAdd, u, &[base, offset])?
            }
        })
    }

    /// A pointer to the `uint[]` array of raw or structured buffer `h`'s descriptor (its
    /// block's only member; `StorageBuffer`, or `PhysicalStorageBuffer` for a root
    /// descriptor) and byte offset `offset` in it ([`Self::view_byte_offset`]): the
    /// `Matrix` operand `SPV_NV_cooperative_vector` reads at a byte offset.
    pub fn byte_view_array(&mut self, h: super::Handle, offset: Word) -> Result<(Word, Word)> {
        let rv = self.res_var(h)?;
        if !matches!(rv.shape, super::ResShape::Words { .. }) {
            return Err(Error::Internal("byte_view_array on a resource other than a raw or structured buffer".into()));
        }
        let block = self.element_ptr(h, &rv)?;
        let Some(&arr) = self.cx.block_arrays.get(&rv.elem_ty) else {
            return Err(Error::Internal("a buffer block without its array type".into()));
        };
        let pty = self.cx.ptr(rv.storage, arr);
        let zero = self.cx.const_u32(0);
        let ptr = self.ids_op(Op::AccessChain, pty, &[block, zero])?;
        Ok((ptr, self.view_byte_offset(h, offset)?))
    }

    /// The scalar type of an overloaded result: field 0 of a struct, else the type itself.
    pub fn overload_scalar(&self, ty: TypeId) -> TypeId {
        match self.cx.m.types.get(ty) {
            Type::Struct { .. } | Type::Named(_) => self.fields(ty).first().copied().unwrap_or(ty),
            _ => ty,
        }
    }

    /// Converts between a 32-bit float and an IR scalar (`is_float`, `bits`), to the type
    /// `dest`: the same value as a float (`FConvert`) or the same bits (`Bitcast`); an
    /// integer of another width goes through `uint`, its width changed (`UConvert`) on the
    /// integer side of the bitcast.
    fn float32_bridge(&mut self, w: Word, dest: Word, (is_float, bits): (bool, u32), way: Bridge) -> Result<Word> {
        match (is_float, bits) {
            (true, 32) => Ok(w),
            (true, _) => self.ids_op(Op::FConvert, dest, &[w]),
            (false, 32) => self.ids_op(Op::Bitcast, dest, &[w]),
            (false, _) => {
                let u = self.cx.u32_t();
                let (first, second) = match way {
                    Bridge::IntoIr => (Op::Bitcast, Op::UConvert),
                    Bridge::FromIr => (Op::UConvert, Op::Bitcast),
                };
                let x = self.ids_op(first, u, &[w])?;
                self.ids_op(second, dest, &[x])
            }
        }
    }

    /// Converts a 32-bit value of numeric kind `num` to the IR scalar type `to`.
    pub fn num_to_ir(&mut self, w: Word, num: Num, to: TypeId) -> Result<Word> {
        let t = self.cx.ty(to)?;
        let bits = self.scalar_bits(to).unwrap_or(32);
        let is_float = self.is_float_ty(to);
        if matches!(self.cx.m.types.get(to), Type::Int(1)) {
            return match num {
                Num::Bool => Ok(w),
                Num::Float => {
                    let f = self.cx.float(32);
                    let z = self.cx.null(f);
                    self.ids_op(Op::FUnordNotEqual, t, &[w, z])
                }
                _ => {
                    let ty = num.scalar(self.cx);
                    let z = self.cx.null(ty);
                    self.ids_op(Op::INotEqual, t, &[w, z])
                }
            };
        }
        match num {
            Num::Bool => {
                let one = self.scalar_const(to, 1, 1.0)?;
                let zero = self.scalar_const(to, 0, 0.0)?;
                self.ids_op(Op::Select, t, &[w, one, zero])
            }
            Num::Float => self.float32_bridge(w, t, (is_float, bits), Bridge::IntoIr),
            Num::SInt | Num::UInt => {
                let u = self.cx.u32_t();
                let x = if num == Num::SInt { self.ids_op(Op::Bitcast, u, &[w])? } else { w };
                match (is_float, bits) {
                    (false, 32) => Ok(x),
                    (false, _) => self.ids_op(if num == Num::SInt { Op::SConvert } else { Op::UConvert }, t, &[x]),
                    (true, 32) => self.ids_op(Op::Bitcast, t, &[x]),
                    (true, _) => {
                        let f = self.cx.float(32);
                        let y = self.ids_op(Op::Bitcast, f, &[x])?;
                        self.ids_op(Op::FConvert, t, &[y])
                    }
                }
            }
        }
    }

    /// Converts an IR scalar of type `from` to a 32-bit value of numeric kind `num`.
    pub fn ir_to_num(&mut self, w: Word, from: TypeId, num: Num) -> Result<Word> {
        let bits = self.scalar_bits(from).unwrap_or(32);
        let is_float = self.is_float_ty(from);
        let target = num.scalar(self.cx);
        if matches!(self.cx.m.types.get(from), Type::Int(1)) {
            if num == Num::Bool {
                return Ok(w);
            }
            let (one, zero) = match num {
                Num::Float => {
                    let f = self.cx.float(32);
                    (self.cx.const_bits(f, 32, 1.0f32.to_bits() as u64), self.cx.null(f))
                }
                _ => (self.cx.const_bits(target, 32, 1), self.cx.null(target)),
            };
            return self.ids_op(Op::Select, target, &[w, one, zero]);
        }
        match num {
            Num::Bool => {
                let z = self.scalar_const(from, 0, 0.0)?;
                let op = if is_float { Op::FUnordNotEqual } else { Op::INotEqual };
                self.ids_op(op, target, &[w, z])
            }
            Num::Float => self.float32_bridge(w, target, (is_float, bits), Bridge::FromIr),
            Num::SInt | Num::UInt => {
                let u = self.cx.u32_t();
                let x = match (is_float, bits) {
                    (false, 32) => w,
                    (false, _) => self.ids_op(Op::UConvert, u, &[w])?,
                    (true, 32) => self.ids_op(Op::Bitcast, u, &[w])?,
                    (true, _) => {
                        let f = self.cx.float(32);
                        let y = self.ids_op(Op::FConvert, f, &[w])?;
                        self.ids_op(Op::Bitcast, u, &[y])?
                    }
                };
                if num == Num::SInt {
                    self.ids_op(Op::Bitcast, target, &[x])
                } else {
                    Ok(x)
                }
            }
        }
    }

    /// Bits of the overload scalar: which struct members the program extracts.
    pub fn used(&self, c: &Call<'_>) -> u32 {
        self.used_members.get(&c.inst).copied().unwrap_or(0)
    }

    /// Whether the program reads the residency status of a `ResRet` result (field 4, what
    /// `checkAccessFullyMapped` takes): then the access must be an `OpImageSparse*` one
    /// ([`Self::image_access`]), whose residency code is the status.
    pub fn wants_status(&self, c: &Call<'_>) -> bool {
        self.fields(c.ty).len() == 5 && self.used(c) & (1 << 4) != 0
    }

    /// The `OpImageSparse*` twin of an image access, whose result is `{ uint code, texel }`.
    pub fn sparse_twin(&self, op: Op) -> Result<Op> {
        Ok(match op {
            Op::ImageSampleImplicitLod => Op::ImageSparseSampleImplicitLod,
            Op::ImageSampleExplicitLod => Op::ImageSparseSampleExplicitLod,
            Op::ImageSampleDrefImplicitLod => Op::ImageSparseSampleDrefImplicitLod,
            Op::ImageSampleDrefExplicitLod => Op::ImageSparseSampleDrefExplicitLod,
            Op::ImageFetch => Op::ImageSparseFetch,
            Op::ImageRead => Op::ImageSparseRead,
            Op::ImageGather => Op::ImageSparseGather,
            Op::ImageDrefGather => Op::ImageSparseDrefGather,
            other => return Err(Error::Internal(format!("no sparse form of Op{other:?}"))),
        })
    }

    /// The result type of [`Self::sparse_twin`] for a texel of type `texel`:
    /// `struct { uint code; texel }`; declares `SparseResidency`.
    pub fn sparse_result(&mut self, texel: Word) -> Word {
        self.cx.capability(Capability::SparseResidency);
        let u = self.cx.u32_t();
        self.cx.b.type_struct([u, texel])
    }

    /// Splits the result `v` of a sparse access (type [`Self::sparse_result`] of `texel`)
    /// into the texel and the residency code.
    pub fn split_sparse(&mut self, v: Word, texel: Word) -> Result<(Word, Word)> {
        let u = self.cx.u32_t();
        let code = self.extract(u, v, 0)?;
        let t = self.extract(texel, v, 1)?;
        Ok((t, code))
    }

    /// One image access `op` with result type `ty` and `operands` (image first): with
    /// `sparse`, its `OpImageSparse*` twin, giving the texel and the residency code (the
    /// DXIL status); else the plain access and no code.
    pub fn image_access(&mut self, op: Op, ty: Word, operands: &[Word], sparse: bool) -> Result<(Word, Option<Word>)> {
        if !sparse {
            return Ok((self.ids_op(op, ty, operands)?, None));
        }
        let op = self.sparse_twin(op)?;
        let st = self.sparse_result(ty);
        let v = self.ids_op(op, st, operands)?;
        let (t, code) = self.split_sparse(v, ty)?;
        Ok((t, Some(code)))
    }
}

/// Which way [`FnEmit::float32_bridge`] converts: from the 32-bit float into the IR scalar,
/// or from the IR scalar into the 32-bit float.
#[derive(Copy, Clone)]
enum Bridge {
    IntoIr,
    FromIr,
}
