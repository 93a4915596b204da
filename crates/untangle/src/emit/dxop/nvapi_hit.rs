//! NVAPI shader execution reordering (`NvHitObject`, `NvReorderThread`: the
//! `NV_EXTN_OP_HIT_OBJECT_*` records, 67..=85, [`crate::dxil::nvapi::hit`]), lowered with the
//! SM 6.9 hit-object machinery of `dxop/hit_object.rs` to the extension
//! [`crate::emit::Options::shader_invocation_reorder`] selects, under
//! `Options::vendor.invocation_reorder` (refused naming it without).
//!
//! # Hit objects
//!
//! An `NvHitObject` is a word, the handle its making record returns through
//! `IncrementCounter`. Each making record (`TRACE_RAY`, `MAKE_HIT*`, `MAKE_MISS`,
//! `MAKE_NOP`) owns one slot of the function's hit-object array, planned before the body
//! with the SM 6.9 producers ([`FnEmit::nvapi_hit_producers`], keyed by the record's opening
//! `IncrementCounter`), and its handle *is* the slot index: the word flows through PHIs,
//! selects and memory unchanged, and a reading record takes `OpAccessChain(slots, handle)`.
//! The plan's invariant and loop check (a slot read after its producer ran again is
//! refused) apply to the PHIs and stores that carry handles. A making record is found
//! syntactically: a store of its opcode at byte 0 of the record that an `IncrementCounter`
//! on the same handle opened; the handle is the next `IncrementCounter` on that handle in
//! the block.
//!
//! # Tokens
//!
//! `TRACE_RAY`, `MAKE_HIT*` and `INVOKE` return a token that the next `TraceRay` takes as
//! its miss shader index; that call supplies the structure, ray and payload and emits
//! the operation. `MAKE_HIT*` first pass the attributes to a `CallShader` on the token
//! (copied into a `HitObjectAttribute*` variable), `GET_ATTRIBUTES` receives them from one.
//! A token call of another kind, or a record left waiting at the end of the function or
//! when the next making record comes, is an [`NvapiError`].
//!
//! | NVAPI | SPIR-V (NV spelling; EXT under the option) |
//! |---|---|
//! | `TRACE_RAY` (+ `TraceRay`) | `OpHitObjectTraceRayNV` with the record's miss index |
//! | `MAKE_HIT`, `MAKE_HIT_WITH_RECORD_INDEX` (+ `CallShader`, `TraceRay`) | `OpHitObjectRecordHitNV` / `RecordHitWithIndexNV` (refused under EXT, which has neither) |
//! | `MAKE_MISS` | `OpHitObjectRecordMissNV` (EXT: ray flags 0) |
//! | `MAKE_NOP` | `OpHitObjectRecordEmptyNV` |
//! | `REORDER_THREAD` | `OpReorderThreadWithHitObjectNV` (`src0u.x` = 1) or `OpReorderThreadWithHintNV` (0) |
//! | `INVOKE` (+ `TraceRay`) | `OpHitObjectExecuteShaderNV` with the call's payload |
//! | `IS_MISS`, `IS_HIT`, `IS_NOP` | `OpHitObjectIsMissNV`, `IsHit`, `IsEmpty`, as 1 / 0 |
//! | `GET_INSTANCE_ID`, `GET_INSTANCE_INDEX` | `OpHitObjectGetInstanceCustomIndexNV`, `GetInstanceId` (D3D's `InstanceID()` is the custom index) |
//! | `GET_PRIMITIVE_INDEX`, `GET_GEOMETRY_INDEX`, `GET_HIT_KIND`, `GET_SHADER_TABLE_INDEX` | `OpHitObjectGetPrimitiveIndexNV`, `GetGeometryIndex`, `GetHitKind`, `GetShaderBindingTableRecordIndex` |
//! | `GET_RAY_DESC` | `OpHitObjectGetRayTMin`, `GetRayTMax`, `GetWorldRayOrigin`, `GetWorldRayDirection`: 8 words |
//! | `GET_ATTRIBUTES` (+ `CallShader`) | `OpHitObjectGetAttributesNV` into the call's data |
//! | `LOAD_LOCAL_ROOT_TABLE_CONSTANT` | a load at `OpHitObjectGetShaderRecordBufferHandleNV` + offset (`PhysicalStorageBuffer`) |
//!
//! The hit-object forms of the ray-tracing queries (`HIT_OBJECT_GET_CLUSTER_ID`,
//! `_GET_TRIANGLE_OBJECT_POSITIONS`, `_GET_SPHERE_...`, `_GET_LSS_...`, `_IS_SPHERE_HIT`,
//! `_IS_LSS_HIT`, 96..=115) are numbered with those queries; `dxop/nvapi_rt.rs` lowers them
//! on the slot `nv_hit_object` maps their handle to.
//!
//! Sources: NVIDIA's nvapi `nvHLSLExtns.h` / `nvHLSLExtnsInternal.h` (the records), the
//! SPIR-V registry's `SPV_NV_shader_invocation_reorder`. Cost: a handful of instructions per
//! record; the producer scan is one pass over the function's calls when NVAPI is on.

use crate::dxil::nvapi::{field, field_name, hit, NvapiError, Opcode, Record};
use crate::dxil::DxOp;
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::{Call, FnEmit, NvHitPending, ReorderExtension};
use crate::ir::{BlockId, InstId, InstKind, Value};
use rspirv::spirv::{Op, Word};

use super::hit_object::spelled;

impl<'a, 'm> FnEmit<'a, 'm> {
    /// The NVAPI records of this function that make hit objects, as (block, opening
    /// `IncrementCounter`), and the handle values they return (see the module
    /// documentation). Empty without `Options::vendor.nvapi`.
    pub(super) fn nvapi_hit_producers(&self) -> (Vec<(BlockId, InstId)>, Vec<InstId>) {
        let (mut producers, mut handles) = (Vec::new(), Vec::new());
        if self.iface.stage.vendor.nvapi.is_none() {
            return (producers, handles);
        }
        let f = self.f;
        let call = |i: InstId| match &f.insts[i].kind {
            InstKind::Call { .. } => crate::dxil::decode_call(self.cx.m, f, i, "").ok().flatten(),
            _ => None,
        };
        for &b in &f.layout {
            let insts = &f.blocks[b].insts;
            for (k, &i) in insts.iter().enumerate() {
                let Some(st) = call(i) else { continue };
                if !matches!(st.op, DxOp::BufferStore | DxOp::RawBufferStore) || st.args.len() < 4 {
                    continue;
                }
                let (Value::Inst(d), Some(0), Some(n)) =
                    (st.args[1], self.const_int(st.args[2]), self.const_int(st.args[3]))
                else {
                    continue;
                };
                let opened = call(d).is_some_and(|c| c.op == DxOp::BufferUpdateCounter && c.args[0] == st.args[0]);
                if !opened || !u32::try_from(n).is_ok_and(hit::makes_hit_object) {
                    continue;
                }
                producers.push((self.block_of(d).unwrap_or(b), d));
                let handle = insts[k + 1..]
                    .iter()
                    .copied()
                    .find(|&j| call(j).is_some_and(|c| c.op == DxOp::BufferUpdateCounter && c.args[0] == st.args[0]));
                handles.extend(handle);
            }
        }
        (producers, handles)
    }

    /// The block holding instruction `i`.
    fn block_of(&self, i: InstId) -> Option<BlockId> {
        self.f.layout.iter().copied().find(|&b| self.f.blocks[b].insts.contains(&i))
    }

    /// Performs hit-object record `r`: the words its `IncrementCounter`s return.
    pub(super) fn nv_hit_perform(&mut self, r: &Record<Word>) -> Result<(Vec<Word>, [Option<Word>; 4])> {
        let op = r.opcode;
        let n = op.number();
        self.nv_need(
            op,
            self.iface.stage.vendor.invocation_reorder,
            "rayTracingInvocationReorder (VK_NV_ray_tracing_invocation_reorder; VK_EXT_ray_tracing_invocation_reorder \
             under Options::shader_invocation_reorder = Ext)",
            "invocation_reorder",
        )?;
        if let Some(p) = &self.nv_hit {
            let e = NvapiError::Incomplete {
                record: format!("the record of {}", Opcode::HitObject(p.opcode)),
                field: "the TraceRay or CallShader on its token".into(),
                when: format!("{op} comes"),
            };
            return Err(self.nv_malformed(op.to_string(), e));
        }
        let get = |d: u32| r.get(d).ok_or_else(|| Error::Internal(format!("{op}: operand dword {d} missing")));
        let u = self.cx.u32_t();
        let zero = self.cx.const_u32(0);
        let none = [None; 4];
        let one = |w: Word| Ok((vec![w], none));
        match n {
            hit::MAKE_NOP => {
                let (index, p) = self.own_hit_slot(r.doorbell, &op.to_string())?;
                self.record_empty(p)?;
                one(index)
            }
            hit::MAKE_MISS => {
                let (index, p) = self.own_hit_slot(r.doorbell, &op.to_string())?;
                let miss = get(field::SRC0U)?;
                let tmin = self.nv_float(get(field::SRC0U + 1)?)?;
                let tmax = self.nv_float(get(field::SRC0U + 2)?)?;
                let origin = self.nv_vec3(get(field::SRC1U)?, get(field::SRC1U + 1)?, get(field::SRC1U + 2)?)?;
                let dir = self.nv_vec3(get(field::SRC2U)?, get(field::SRC2U + 1)?, get(field::SRC2U + 2)?)?;
                self.record_miss(p, zero, miss, origin, tmin, dir, tmax)?;
                one(index)
            }
            hit::TRACE_RAY | hit::MAKE_HIT | hit::MAKE_HIT_WITH_RECORD_INDEX => {
                let outputs = r.konst(field::NUM_OUTPUTS).map_err(|e| self.nv_malformed(op.to_string(), e))?;
                if outputs != 2 {
                    let e = NvapiError::BadSubOp { opcode: op, field: field_name(field::NUM_OUTPUTS), value: outputs };
                    return Err(self.nv_malformed(op.to_string(), e));
                }
                if n != hit::TRACE_RAY && self.cx.reorder == ReorderExtension::Ext {
                    return Err(self.nv_error(
                        op.to_string(),
                        VendorRefusal::NotLowered(
                            "SPV_EXT_shader_invocation_reorder makes no hit object from its parts (NV's \
                             OpHitObjectRecordHit*); translate with Options::shader_invocation_reorder = Nv"
                                .into(),
                        ),
                    ));
                }
                let (index, slot) = self.own_hit_slot(r.doorbell, &op.to_string())?;
                let words = match n {
                    hit::TRACE_RAY => vec![get(field::SRC0U)?],
                    hit::MAKE_HIT => (0..4)
                        .map(|k| get(field::SRC0U + k))
                        .chain((0..2).map(|k| get(field::SRC1U + k)))
                        .collect::<Result<_>>()?,
                    _ => (0..4).map(|k| get(field::SRC0U + k)).chain([get(field::SRC1U)]).collect::<Result<_>>()?,
                };
                self.nv_hit = Some(NvHitPending { opcode: n, slot, words, token: None, attributes: None });
                Ok((vec![index, zero], none))
            }
            hit::INVOKE | hit::GET_ATTRIBUTES => {
                let slot = self.nv_hit_object(op, field::SRC0U, get(field::SRC0U)?)?;
                self.nv_hit = Some(NvHitPending { opcode: n, slot, words: Vec::new(), token: None, attributes: None });
                one(zero)
            }
            hit::REORDER_THREAD => {
                let with = r.konst(field::SRC0U).map_err(|e| self.nv_malformed(op.to_string(), e))?;
                let p = match with {
                    0 => None,
                    1 => Some(self.nv_hit_object(op, field::SRC0U + 1, get(field::SRC0U + 1)?)?),
                    _ => {
                        let e = NvapiError::BadSubOp { opcode: op, field: field_name(field::SRC0U), value: with };
                        return Err(self.nv_malformed(op.to_string(), e));
                    }
                };
                self.reorder_thread(p, get(field::SRC0U + 2)?, get(field::SRC0U + 3)?)?;
                one(zero)
            }
            hit::GET_RAY_DESC => {
                let p = self.nv_hit_object(op, field::SRC0U, get(field::SRC0U)?)?;
                let mut words = Vec::with_capacity(8);
                for q in [DxOp::HitObject_RayTMin, DxOp::HitObject_RayTCurrent] {
                    let (x, _) = self.hit_state(p, q)?;
                    words.push(self.ids_op(Op::Bitcast, u, &[x])?);
                }
                let f = self.cx.float(32);
                for q in [DxOp::HitObject_WorldRayOrigin, DxOp::HitObject_WorldRayDirection] {
                    let v = self.hit_ray_vector(p, q)?;
                    for k in 0..3 {
                        let x = self.ids_op(Op::CompositeExtract, f, &[v, k])?;
                        words.push(self.ids_op(Op::Bitcast, u, &[x])?);
                    }
                }
                Ok((words, none))
            }
            hit::LOAD_LOCAL_ROOT_TABLE_CONSTANT => {
                let p = self.nv_hit_object(op, field::SRC0U, get(field::SRC0U)?)?;
                let w = self.local_root_constant(p, get(field::SRC0U + 1)?)?;
                one(w)
            }
            _ => {
                let q = match n {
                    hit::IS_MISS => DxOp::HitObject_IsMiss,
                    hit::IS_HIT => DxOp::HitObject_IsHit,
                    hit::IS_NOP => DxOp::HitObject_IsNop,
                    hit::GET_INSTANCE_ID => DxOp::HitObject_InstanceID,
                    hit::GET_INSTANCE_INDEX => DxOp::HitObject_InstanceIndex,
                    hit::GET_PRIMITIVE_INDEX => DxOp::HitObject_PrimitiveIndex,
                    hit::GET_GEOMETRY_INDEX => DxOp::HitObject_GeometryIndex,
                    hit::GET_HIT_KIND => DxOp::HitObject_HitKind,
                    hit::GET_SHADER_TABLE_INDEX => DxOp::HitObject_ShaderTableIndex,
                    _ => return Err(Error::Internal(format!("{op} is no hit-object opcode"))),
                };
                let p = self.nv_hit_object(op, field::SRC0U, get(field::SRC0U)?)?;
                let (x, _) = self.hit_state(p, q)?;
                let w = if matches!(q, DxOp::HitObject_IsMiss | DxOp::HitObject_IsHit | DxOp::HitObject_IsNop) {
                    let one_w = self.cx.const_u32(1);
                    self.ids_op(Op::Select, u, &[x, one_w, zero])?
                } else {
                    x
                };
                one(w)
            }
        }
    }

    /// The slot pointer of the hit object whose handle `w` record field `d` of `op` holds.
    pub(super) fn nv_hit_object(&mut self, op: Opcode, d: u32, w: Word) -> Result<Word> {
        match self.hit_slot_ptr(w) {
            Some(p) => p,
            None => {
                let e = NvapiError::NoHitObject { opcode: op, field: field_name(d) };
                Err(self.nv_malformed(op.to_string(), e))
            }
        }
    }

    fn nv_float(&mut self, w: Word) -> Result<Word> {
        let f = self.cx.float(32);
        self.ids_op(Op::Bitcast, f, &[w])
    }

    fn nv_vec3(&mut self, x: Word, y: Word, z: Word) -> Result<Word> {
        let xs = [self.nv_float(x)?, self.nv_float(y)?, self.nv_float(z)?];
        let f = self.cx.float(32);
        let v3 = self.cx.vec(f, 3);
        self.ids_op(Op::CompositeConstruct, v3, &xs)
    }

    /// `IncrementCounter` `inst` returned a result: the last one of a record waiting for
    /// its call is the token.
    pub(super) fn nv_hit_token(&mut self, inst: InstId) {
        if self.nvapi.results_left() == 0 {
            if let Some(p) = self.nv_hit.as_mut().filter(|p| p.token.is_none()) {
                p.token = Some(inst);
            }
        }
    }

    /// A `TraceRay` or `CallShader` on the token of the waiting record performs it (true).
    pub(super) fn nvapi_hit_call(&mut self, c: &Call<'_>) -> Result<bool> {
        let Some(token) = self.nv_hit.as_ref().and_then(|p| p.token) else { return Ok(false) };
        let k = match c.op {
            DxOp::TraceRay => 5,
            DxOp::CallShader => 0,
            _ => return Ok(false),
        };
        if c.args.get(k) != Some(&Value::Inst(token)) {
            return Ok(false);
        }
        let Some(mut p) = self.nv_hit.take() else { return Ok(false) };
        let op = Opcode::HitObject(p.opcode);
        let r = self.cx.reorder;
        let making_hit = matches!(p.opcode, hit::MAKE_HIT | hit::MAKE_HIT_WITH_RECORD_INDEX);
        match (c.op, p.opcode) {
            (DxOp::TraceRay, hit::TRACE_RAY) => {
                let mut ops = self.trace_operands(c)?;
                ops[5] = p.words[0];
                ops.insert(0, p.slot);
                self.ids_void(spelled(Op::HitObjectTraceRayNV, Op::HitObjectTraceRayEXT, r), &ops)?;
            }
            (DxOp::CallShader, _) if making_hit && p.attributes.is_none() => {
                let (ty, src) = self.attribute_arg(c, 1)?;
                let var = self.attribute_var(ty)?;
                let t = self.cx.ty(ty)?;
                let value = self.ids_op(Op::Load, t, &[src])?;
                self.ids_void(Op::Store, &[var, value])?;
                p.attributes = Some(var);
                self.nv_hit = Some(p);
            }
            (DxOp::TraceRay, _) if making_hit => {
                let Some(attributes) = p.attributes else {
                    return Err(self.nv_wrong_call(c, op, "a CallShader with the attributes first"));
                };
                let accel = self.acceleration_structure(c, 0)?;
                let origin = self.arg_vec3(c, 6)?;
                let tmin = self.arg_f32(c, 9)?;
                let dir = self.arg_vec3(c, 10)?;
                let tmax = self.arg_f32(c, 13)?;
                let w = &p.words;
                // instance, primitive, geometry, hit kind; then the shader table operands.
                let mut ops = vec![p.slot, accel, w[0], w[2], w[1], w[3]];
                ops.extend_from_slice(&w[4..]);
                ops.extend([origin, tmin, dir, tmax, attributes]);
                let record = if p.opcode == hit::MAKE_HIT {
                    Op::HitObjectRecordHitNV
                } else {
                    Op::HitObjectRecordHitWithIndexNV
                };
                self.ids_void(record, &ops)?;
            }
            (DxOp::TraceRay, hit::INVOKE) => {
                let payload = self.ray_variable(c, 14)?;
                self.ids_void(
                    spelled(Op::HitObjectExecuteShaderNV, Op::HitObjectExecuteShaderEXT, r),
                    &[p.slot, payload],
                )?;
            }
            (DxOp::CallShader, hit::GET_ATTRIBUTES) => {
                let (ty, dst) = self.attribute_arg(c, 1)?;
                self.hit_attributes_to(p.slot, ty, dst)?;
            }
            _ => {
                let want = if p.opcode == hit::GET_ATTRIBUTES { "a CallShader" } else { "a TraceRay" };
                return Err(self.nv_wrong_call(c, op, want));
            }
        }
        Ok(true)
    }

    #[cold]
    fn nv_wrong_call(&self, c: &Call<'_>, opcode: Opcode, want: &'static str) -> Error {
        let e = NvapiError::WrongTokenCall { call: c.op.name().to_string(), opcode, want };
        self.nv_malformed(c.op.name().to_string(), e)
    }

    /// At the end of a function: a record still waiting for its call is malformed.
    pub(super) fn nv_hit_finish(&mut self) -> Result<()> {
        match self.nv_hit.take() {
            None => Ok(()),
            Some(p) => {
                let e = NvapiError::Incomplete {
                    record: format!("the record of {}", Opcode::HitObject(p.opcode)),
                    field: "the TraceRay or CallShader on its token".into(),
                    when: "the function ends".into(),
                };
                Err(self.nv_malformed("the end of the function".into(), e))
            }
        }
    }
}
