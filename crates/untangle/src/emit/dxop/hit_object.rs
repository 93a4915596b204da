//! SM 6.9 shader execution reordering: `HitObject_*` and `MaybeReorderThread` (DXIL 1.9
//! opcodes 262–289), lowered to `SPV_NV_shader_invocation_reorder` or, under
//! [`crate::emit::Options::shader_invocation_reorder`], `SPV_EXT_shader_invocation_reorder`.
//!
//! # Hit objects as values
//!
//! DXIL's `%dx.types.HitObject` is an SSA value: it flows through PHIs, selects and allocas
//! like any other. SPIR-V's hit object is opaque, exists only in `Function` or `Private`
//! variables, and can be neither loaded, stored nor copied: every instruction takes a
//! pointer to one. So each call that makes a hit object (the producers: `TraceRay`,
//! `FromRayQuery*`, `MakeMiss`, `MakeNop`, `SetShaderTableIndex`) owns one slot of a
//! `Function` array of hit objects, planned before the body ([`FnEmit::plan_hit_objects`]),
//! and the IR value of a hit object is the `u32` index of its slot
//! (`ModuleBuilder::ty`). PHIs, selects, allocas, loads and stores then carry indices
//! unchanged, and a consumer takes `OpAccessChain(slots, index)`.
//!
//! The invariant that makes an index mean the value: a slot is written only by its
//! producer, and no older value of a slot is read after the producer ran again. In SSA the
//! second can only fail when a producer inside a loop feeds a value that survives into the
//! next iteration (a loop-carried PHI, or memory); the plan refuses a function where a
//! producer lies on a cycle with a hit-object PHI, or stores hit objects and has a producer
//! on a cycle (a typed error: SPIR-V cannot copy hit objects). Calls are inlined before
//! emission (`passes::inline`), so hit objects never cross SPIR-V functions.
//!
//! # Lowering
//!
//! | DXIL | NV (`...NV`) | EXT (`...EXT`) |
//! | --- | --- | --- |
//! | `TraceRay` | `OpHitObjectTraceRay` | same |
//! | `MakeMiss` (flags, miss index, ray) | `OpHitObjectRecordMiss` (flags must be 0: NV has none) | `OpHitObjectRecordMiss` with flags |
//! | `MakeNop` | `OpHitObjectRecordEmpty` | same |
//! | `FromRayQuery` | refused (NV cannot make a hit from a query) | `OpHitObjectRecordFromQuery`, SBT index 0 (D3D's initial shader table index) |
//! | `FromRayQueryWithAttrs` | refused (`support`) | refused: it needs `OpHitObjectRecordFromQuery`'s optional Hit Kind (registry, 2026), which SPIRV-Tools 2025.5 rejects |
//! | `Invoke` | `OpHitObjectExecuteShader` | same |
//! | `MaybeReorderThread` | `OpReorderThreadWithHitObject`, hint and bits unless bits is 0; a hit object known to be `MakeNop` with bits: `OpReorderThreadWithHint` | same |
//! | `IsMiss`, `IsHit`, `IsNop` | `OpHitObjectIsMiss`, `IsHit`, `IsEmpty` | same |
//! | `RayFlags` | refused (NV keeps no flags) | `OpHitObjectGetRayFlags` |
//! | `RayTMin`, `RayTCurrent` | `OpHitObjectGetRayTMin`, `GetRayTMax` | same |
//! | world / object ray origin and direction (component) | `OpHitObjectGet{World,Object}Ray{Origin,Direction}`, the component extracted | same |
//! | `ObjectToWorld3x4`, `WorldToObject3x4` (row, column) | element (column, row) of `OpHitObjectGetObjectToWorld` / `WorldToObject` (`mat4x3`) | same |
//! | `GeometryIndex`, `InstanceIndex`, `InstanceID`, `PrimitiveIndex`, `HitKind` | `OpHitObjectGetGeometryIndex`, `GetInstanceId`, `GetInstanceCustomIndex`, `GetPrimitiveIndex`, `GetHitKind` | same |
//! | `ShaderTableIndex` | `OpHitObjectGetShaderBindingTableRecordIndex` | same |
//! | `SetShaderTableIndex` | refused (NV cannot change it) | a `MakeMiss`/`MakeNop` source is recorded again into the call's own slot, then `OpHitObjectSetShaderBindingTableRecordIndex`; another source is changed in place, which must be its last use |
//! | `LoadLocalRootTableConstant` (byte offset) | a 32-bit load at `OpHitObjectGetShaderRecordBufferHandle` + offset (`PhysicalStorageBuffer`) | same |
//! | `Attributes` | `OpHitObjectGetAttributes` into a `HitObjectAttribute` variable of the attribute type, copied to the alloca | same |
//! | `ClusterID` (SM 6.10) | `OpHitObjectGetClusterIdNV` (`SPV_NV_cluster_acceleration_structure`) | refused: that instruction takes NV hit objects only (its extension supports it only with `SPV_NV_shader_invocation_reorder`; `spirv-val` rejects an EXT one), and EXT has none |
//! | `TriangleObjectPosition` (SM 6.10) | refused (NV has no position fetch from a hit object) | `OpHitObjectGetIntersectionTriangleVertexPositionsEXT`, flattened to `<9 x float>`; declares `RayTracingPositionFetchKHR` for the device feature |
//!
//! NVAPI's hit objects (`dxop/nvapi_hit.rs`) use the same slots: their making records are
//! producers ([`FnEmit::nvapi_hit_producers`]), their handle words carry slot indices, and
//! the PHIs and stores carrying a handle fall under the same loop check.
//!
//! Sources: DXC `utils/hct/hctdb.py` (operands), `docs/DXIL.rst`, hlsl-specs proposal 0027,
//! the SPIR-V registry's two extensions. Cost: one instruction or a handful per call; the
//! plan is O(instructions + blocks²) for functions with hit objects, nothing otherwise.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::module::HIT_OBJECT;
use crate::emit::{Call, FnEmit, Num, ReorderExtension};
use crate::ir::{BlockId, InstId, InstKind, TypeId, Value};
use rspirv::spirv::{Capability, MemoryAccess, Op, StorageClass, Word};
use std::collections::HashSet;

const FAMILY: &str = "shader execution reordering";

/// The two spellings of each instruction: (NV, EXT).
pub(super) fn spelled(nv: Op, ext: Op, r: ReorderExtension) -> Op {
    match r {
        ReorderExtension::Nv => nv,
        ReorderExtension::Ext => ext,
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn is_hit_object_ty(&self, t: TypeId) -> bool {
        self.cx.m.types.struct_name(t) == Some(HIT_OBJECT)
    }

    /// Assigns a slot to every hit-object producing call of the function and returns the
    /// `Function` variable (pointer type, id) of the slots, if any; refuses what the slot
    /// representation cannot express (see the module documentation).
    pub(crate) fn plan_hit_objects(&mut self) -> Result<Option<(Word, Word)>> {
        // A module without the hit-object type (nearly all) has no producer unless NVAPI
        // makes hit objects: one lookup instead of a pass over the function.
        let typed = self.cx.m.types.lookup(&crate::ir::Type::Named(HIT_OBJECT.to_string())).is_some();
        let (mut producers, nv_handles) = self.nvapi_hit_producers();
        if !typed && producers.is_empty() {
            return Ok(None);
        }
        let f = self.f;
        // NVAPI's handles are words: the values carrying one are the handles and the
        // PHIs and selects made from them.
        let mut carried: HashSet<InstId> = nv_handles.into_iter().collect();
        while !carried.is_empty() {
            let before = carried.len();
            for &b in &f.layout {
                for &i in &f.blocks[b].insts {
                    let mut from = false;
                    match &f.insts[i].kind {
                        InstKind::Phi { .. } | InstKind::Select { .. } => {
                            f.insts[i]
                                .kind
                                .for_each_operand(|v| from |= matches!(v, Value::Inst(j) if carried.contains(&j)));
                        }
                        _ => {}
                    }
                    if from {
                        carried.insert(i);
                    }
                }
            }
            if carried.len() == before {
                break;
            }
        }
        let carries = |v: Value| matches!(v, Value::Inst(j) if carried.contains(&j));
        let mut phis: Vec<(BlockId, InstId)> = Vec::new();
        let mut stores = false;
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                match &inst.kind {
                    InstKind::Call { .. } if typed && self.is_hit_object_ty(inst.ty) => producers.push((b, i)),
                    InstKind::Phi { .. } if (typed && self.is_hit_object_ty(inst.ty)) || carried.contains(&i) => {
                        phis.push((b, i))
                    }
                    InstKind::Store { value, .. } => {
                        stores |= carries(*value)
                            || (typed && self.value_ty(*value).is_some_and(|t| self.is_hit_object_ty(t)));
                    }
                    _ => {}
                }
            }
        }
        if producers.is_empty() {
            return Ok(None);
        }
        // The blocks reachable from `from`'s successors without entering `stop`.
        let reach = |from: BlockId, stop: Option<BlockId>| -> HashSet<BlockId> {
            let mut seen = HashSet::new();
            let mut stack: Vec<BlockId> = f.blocks[from].terminator.successors().into_vec();
            while let Some(b) = stack.pop() {
                if Some(b) != stop && seen.insert(b) {
                    stack.extend(f.blocks[b].terminator.successors());
                }
            }
            seen
        };
        for &(b, i) in &producers {
            let from_b = reach(b, None);
            if !from_b.contains(&b) {
                continue;
            }
            let op = self.call_op(i).map(|o| o.name()).unwrap_or("a hit-object call or NVAPI record");
            // A PHI on a cycle with the producer holds an older value of the producer's
            // slot; it is refused when that value is read after the producer ran again:
            // a use of the PHI (or of a select or PHI made from it) reachable from the
            // producer without passing the PHI's block, which would define it anew.
            let carried = phis.iter().any(|&(pb, phi)| {
                if !from_b.contains(&pb) || !reach(pb, None).contains(&b) {
                    return false;
                }
                let after = reach(b, Some(pb));
                let position = |blk: BlockId, inst: InstId| -> Option<usize> {
                    f.blocks[blk].insts.iter().position(|&x| x == inst)
                };
                let at = position(b, i).unwrap_or(0);
                self.carriers(phi).into_iter().any(|(ub, u, pred)| match pred {
                    Some(pb2) => pb2 == b || after.contains(&pb2),
                    None => after.contains(&ub) || (ub == b && position(ub, u).is_some_and(|k| k > at)),
                })
            });
            if carried || stores {
                return Err(self.form_in_function(
                    op,
                    "a HitObject made inside a loop and kept across iterations (a PHI or memory): SPIR-V hit \
                     objects cannot be copied, so each call owns one variable, which the next iteration overwrites",
                ));
            }
        }
        for (k, &(_, i)) in producers.iter().enumerate() {
            self.hit_slots.insert(i, k as u32);
        }
        let hit = self.cx.hit_object_t();
        let n = self.cx.const_u32(producers.len() as u32);
        let array = self.cx.b.type_array(hit, n);
        let ty = self.cx.ptr(StorageClass::Function, array);
        let id = self.cx.b.id();
        self.hit_array = id;
        Ok(Some((ty, id)))
    }

    /// The uses of hit-object PHI `phi` and of the selects and PHIs made from it, as (block,
    /// using instruction, predecessor for a PHI's incoming edge); terminator uses count as
    /// the block's last instruction (`InstId` of the phi itself stands in).
    fn carriers(&self, phi: InstId) -> Vec<(BlockId, InstId, Option<BlockId>)> {
        let f = self.f;
        let mut values = vec![phi];
        let mut uses = Vec::new();
        let mut k = 0;
        while k < values.len() {
            let v = Value::Inst(values[k]);
            k += 1;
            for &b in &f.layout {
                for &j in &f.blocks[b].insts {
                    match &f.insts[j].kind {
                        InstKind::Phi { incoming } => {
                            for &(x, pred) in incoming.iter() {
                                if x == v {
                                    uses.push((b, j, Some(pred)));
                                    if !values.contains(&j) {
                                        values.push(j);
                                    }
                                }
                            }
                        }
                        kind => {
                            let mut hit = false;
                            kind.for_each_operand(|x| hit |= x == v);
                            if hit {
                                uses.push((b, j, None));
                                if matches!(kind, InstKind::Select { .. }) && !values.contains(&j) {
                                    values.push(j);
                                }
                            }
                        }
                    }
                }
                if f.blocks[b].terminator.operands().into_iter().any(|x| x == v) {
                    uses.push((b, phi, Some(b)));
                }
            }
        }
        uses
    }

    /// The operation a call instruction makes, if it is a `dx.op` call.
    fn call_op(&self, i: InstId) -> Option<DxOp> {
        crate::dxil::decode_call(self.cx.m, self.f, i, "").ok().flatten().map(|c| c.op)
    }

    fn form_in_function(&self, op: &str, message: &str) -> crate::emit::Error {
        self.err(format!("{op}: {message}"))
    }

    /// The slot pointer of the hit object in argument `k`.
    fn hit_object(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        if self.is_undef(self.arg(c, k)?) {
            return Err(self.invalid(c, &format!("operand {}", k + 1), "HitObject is undef"));
        }
        let index = self.arg_val(c, k)?;
        self.slot_ptr(c, index)
    }

    fn slot_ptr(&mut self, c: &Call<'_>, index: Word) -> Result<Word> {
        self.hit_slot_ptr(index).ok_or_else(|| self.form(c.op, "a hit object that no call of this function makes"))?
    }

    /// The pointer to slot `index` (a `u32` id), or `None` when the function makes no hit
    /// object.
    pub(super) fn hit_slot_ptr(&mut self, index: Word) -> Option<Result<Word>> {
        if self.hit_array == 0 {
            return None;
        }
        let hit = self.cx.hit_object_t();
        let pty = self.cx.ptr(StorageClass::Function, hit);
        Some(self.ids_op(Op::AccessChain, pty, &[self.hit_array, index]))
    }

    /// The slot of this producing call, as an index constant and a pointer.
    fn own_slot(&mut self, c: &Call<'_>) -> Result<(Word, Word)> {
        self.own_hit_slot(c.inst, c.op.name())
    }

    /// The slot planned for producer `inst` (a call, or the record of an NVAPI hit object):
    /// its index constant and pointer.
    pub(super) fn own_hit_slot(&mut self, inst: InstId, what: &str) -> Result<(Word, Word)> {
        let k = self
            .hit_slots
            .get(&inst)
            .copied()
            .ok_or_else(|| crate::emit::Error::Internal(format!("{what} has no hit-object slot")))?;
        let index = self.cx.const_u32(k);
        let p = self.hit_slot_ptr(index).unwrap_or_else(|| {
            Err(crate::emit::Error::Internal(format!("{what} has a slot but the function no slot array")))
        })?;
        Ok((index, p))
    }

    /// A typed error for an operation the selected extension cannot express.
    fn not_in_nv(&self, c: &Call<'_>, what: &str) -> crate::emit::Error {
        self.form(
            c.op,
            format!(
                "SPV_NV_shader_invocation_reorder has no {what}; translate with \
                 Options::shader_invocation_reorder = ReorderExtension::Ext (SPV_EXT_shader_invocation_reorder)"
            ),
        )
    }

    /// The `HitObjectAttribute*` variable for attributes of IR type `ty`.
    pub(super) fn attribute_var(&mut self, ty: TypeId) -> Result<Word> {
        if let Some(&v) = self.hit_attrs.get(&ty) {
            return Ok(v);
        }
        let class = match self.cx.reorder {
            ReorderExtension::Nv => StorageClass::HitObjectAttributeNV,
            ReorderExtension::Ext => StorageClass::HitObjectAttributeEXT,
        };
        let t = self.cx.ty(ty)?;
        let v = self.cx.global_var(class, t, "hit_object_attributes");
        self.hit_attrs.insert(ty, v);
        Ok(v)
    }

    /// The attribute pointer argument `k`: its pointee type and SPIR-V pointer.
    pub(super) fn attribute_arg(&mut self, c: &Call<'_>, k: usize) -> Result<(TypeId, Word)> {
        let v = self.arg(c, k)?;
        let ty = self
            .value_ty(v)
            .and_then(|t| self.cx.m.types.pointee(t))
            .ok_or_else(|| self.form(c.op, "the attributes are not a pointer"))?;
        let (p, _) = self.pointer(v)?;
        Ok((ty, p))
    }

    pub(super) fn hit_object_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let r = self.cx.reorder;
        let u = self.cx.u32_t();
        let f = self.cx.float(32);
        let b = self.cx.bool_t();
        // A state query: (NV, EXT) spelling, result type and numeric kind.
        let (nv, ext, ty, num) = match c.op {
            DxOp::HitObject_TraceRay => {
                let (index, p) = self.own_slot(c)?;
                let mut ops = vec![p];
                ops.extend(self.trace_operands(c)?);
                self.ids_void(spelled(Op::HitObjectTraceRayNV, Op::HitObjectTraceRayEXT, r), &ops)?;
                return Ok(Some(index));
            }
            DxOp::HitObject_MakeMiss | DxOp::HitObject_MakeNop => {
                let (index, p) = self.own_slot(c)?;
                self.record(c, p)?;
                return Ok(Some(index));
            }
            DxOp::HitObject_FromRayQuery => {
                if r == ReorderExtension::Nv {
                    return Err(self.not_in_nv(c, "hit object made from a ray query"));
                }
                let (index, p) = self.own_slot(c)?;
                let (rq, _) = self.ray_query(c)?;
                // D3D's initial shader table index is 0 (hlsl-specs 0027).
                let sbt = self.cx.const_u32(0);
                // A committed triangle: the attributes operand is ignored (the query's
                // barycentrics are taken), but must be a `HitObjectAttributeEXT` variable.
                let v2 = self.cx.vec(f, 2);
                let attrs = self.cx.global_var(StorageClass::HitObjectAttributeEXT, v2, "hit_object_barycentrics");
                self.ids_void(Op::HitObjectRecordFromQueryEXT, &[p, rq, sbt, attrs])?;
                return Ok(Some(index));
            }
            DxOp::HitObject_SetShaderTableIndex => {
                if r == ReorderExtension::Nv {
                    return Err(self.not_in_nv(c, "way to change a hit object's shader table index"));
                }
                let source = self.arg(c, 0)?;
                let sbt = self.index_u32(c, 1)?;
                let made = match source {
                    Value::Inst(s) => crate::dxil::decode_call(self.cx.m, self.f, s, "").ok().flatten().map(|d| (s, d)),
                    _ => None,
                };
                if let Some((s, d)) =
                    made.filter(|(_, d)| matches!(d.op, DxOp::HitObject_MakeMiss | DxOp::HitObject_MakeNop))
                {
                    // A miss or nop hit object depends on its operands only: made again in
                    // this call's own slot, which then takes the index; the source is intact.
                    let (index, p) = self.own_slot(c)?;
                    let ty = self.f.insts[s].ty;
                    self.record(&Call { op: d.op, args: d.args, inst: s, ty }, p)?;
                    self.ids_void(Op::HitObjectSetShaderBindingTableRecordIndexEXT, &[p, sbt])?;
                    return Ok(Some(index));
                }
                // Otherwise (a traced hit, one from a query) the source's slot changes in
                // place, which only its last use may do.
                let last_use = match source {
                    Value::Inst(s) => self.no_use_after(s, c.inst),
                    _ => false,
                };
                if !last_use {
                    return Err(self.form(
                        c.op,
                        "the source hit object is used elsewhere: SPIR-V changes a hit object's shader table index \
                         in place and cannot copy hit objects",
                    ));
                }
                let p = self.hit_object(c, 0)?;
                let index = self.arg_val(c, 0)?;
                self.ids_void(Op::HitObjectSetShaderBindingTableRecordIndexEXT, &[p, sbt])?;
                return Ok(Some(index));
            }
            DxOp::HitObject_Invoke => {
                let p = self.hit_object(c, 0)?;
                let payload = self.ray_variable(c, 1)?;
                self.ids_void(spelled(Op::HitObjectExecuteShaderNV, Op::HitObjectExecuteShaderEXT, r), &[p, payload])?;
                return Ok(None);
            }
            DxOp::MaybeReorderThread => {
                let bits = self.index_u32(c, 2)?;
                let no_bits = self.cx.const_value_u32(bits) == Some(0);
                let nop = match self.arg(c, 0)? {
                    Value::Inst(i) => self.call_op(i) == Some(DxOp::HitObject_MakeNop),
                    _ => false,
                };
                if nop && !no_bits {
                    // `MaybeReorderThread(hint, bits)`: DXC passes a fresh nop hit object.
                    let hint = self.index_u32(c, 1)?;
                    self.reorder_thread(None, hint, bits)?;
                } else {
                    let p = self.hit_object(c, 0)?;
                    // Without bits the hint is not an operand (nor converted).
                    let hint = if no_bits { bits } else { self.index_u32(c, 1)? };
                    self.reorder_thread(Some(p), hint, bits)?;
                }
                return Ok(None);
            }
            DxOp::HitObject_Attributes => {
                let p = self.hit_object(c, 0)?;
                let (ty, dst) = self.attribute_arg(c, 1)?;
                self.hit_attributes_to(p, ty, dst)?;
                return Ok(None);
            }
            DxOp::HitObject_LoadLocalRootTableConstant => {
                let p = self.hit_object(c, 0)?;
                let offset = self.index_u32(c, 1)?;
                let x = self.local_root_constant(p, offset)?;
                return self.num_to_ir(x, Num::UInt, c.ty).map(Some);
            }
            DxOp::HitObject_ObjectToWorld3x4 | DxOp::HitObject_WorldToObject3x4 => {
                let p = self.hit_object(c, 0)?;
                let op = if c.op == DxOp::HitObject_ObjectToWorld3x4 {
                    spelled(Op::HitObjectGetObjectToWorldNV, Op::HitObjectGetObjectToWorldEXT, r)
                } else {
                    spelled(Op::HitObjectGetWorldToObjectNV, Op::HitObjectGetWorldToObjectEXT, r)
                };
                let row = self.arg_const(c, 1)? as u32;
                let col = self.arg_const(c, 2)? as u32;
                if row > 2 || col > 3 {
                    return Ok(Some(self.cx.undef(f)));
                }
                let v3 = self.cx.vec(f, 3);
                let mat = self.cx.b.type_matrix(v3, 4);
                let m = self.ids_op(op, mat, &[p])?;
                let x = self.ids_op(Op::CompositeExtract, f, &[m, col, row])?;
                return self.num_to_ir(x, Num::Float, c.ty).map(Some);
            }
            DxOp::HitObject_WorldRayOrigin
            | DxOp::HitObject_WorldRayDirection
            | DxOp::HitObject_ObjectRayOrigin
            | DxOp::HitObject_ObjectRayDirection => {
                let p = self.hit_object(c, 0)?;
                let v = self.hit_ray_vector(p, c.op)?;
                let k = self.arg_const(c, 1)? as u32;
                let x = if k < 3 { self.ids_op(Op::CompositeExtract, f, &[v, k])? } else { self.cx.undef(f) };
                return self.num_to_ir(x, Num::Float, c.ty).map(Some);
            }
            DxOp::HitObject_ClusterID => {
                if r == ReorderExtension::Ext {
                    return Err(self.form(
                        c.op,
                        "SPV_EXT_shader_invocation_reorder has no query of a hit object's cluster id, and \
                         SPV_NV_cluster_acceleration_structure's OpHitObjectGetClusterIdNV takes NV hit objects only; \
                         translate with Options::shader_invocation_reorder = ReorderExtension::Nv",
                    ));
                }
                self.cx.capability(Capability::RayTracingClusterAccelerationStructureNV);
                self.cx.extension("SPV_NV_cluster_acceleration_structure");
                (Op::HitObjectGetClusterIdNV, Op::HitObjectGetClusterIdNV, u, Num::UInt)
            }
            DxOp::HitObject_TriangleObjectPosition => {
                if r == ReorderExtension::Nv {
                    return Err(self.not_in_nv(c, "query of a hit object's triangle vertex positions"));
                }
                self.cx.capability(Capability::RayTracingPositionFetchKHR);
                self.cx.extension("SPV_KHR_ray_tracing_position_fetch");
                let p = self.hit_object(c, 0)?;
                let t = self.triangle_positions_t();
                let positions = self.ids_op(Op::HitObjectGetIntersectionTriangleVertexPositionsEXT, t, &[p])?;
                return self.triangle_positions_to_ir(c, positions).map(Some);
            }
            DxOp::HitObject_RayFlags => {
                if r == ReorderExtension::Nv {
                    return Err(self.not_in_nv(c, "query of a hit object's ray flags"));
                }
                (Op::HitObjectGetRayFlagsEXT, Op::HitObjectGetRayFlagsEXT, u, Num::UInt)
            }
            op => match Self::hit_state_spelling(op, u, f, b) {
                Some(q) => q,
                None => return Err(self.not_in_family(op, FAMILY)),
            },
        };
        let p = self.hit_object(c, 0)?;
        let x = self.ids_op(spelled(nv, ext, r), ty, &[p])?;
        self.num_to_ir(x, num, c.ty).map(Some)
    }

    /// The (NV, EXT) spelling, result type and numeric kind of the state query `op` that
    /// both extensions express in one instruction on the hit object (`u`, `f`, `b`: the
    /// `u32`, `f32` and `bool` types).
    fn hit_state_spelling(op: DxOp, u: Word, f: Word, b: Word) -> Option<(Op, Op, Word, Num)> {
        Some(match op {
            DxOp::HitObject_IsMiss => (Op::HitObjectIsMissNV, Op::HitObjectIsMissEXT, b, Num::Bool),
            DxOp::HitObject_IsHit => (Op::HitObjectIsHitNV, Op::HitObjectIsHitEXT, b, Num::Bool),
            DxOp::HitObject_IsNop => (Op::HitObjectIsEmptyNV, Op::HitObjectIsEmptyEXT, b, Num::Bool),
            DxOp::HitObject_RayTMin => (Op::HitObjectGetRayTMinNV, Op::HitObjectGetRayTMinEXT, f, Num::Float),
            DxOp::HitObject_RayTCurrent => (Op::HitObjectGetRayTMaxNV, Op::HitObjectGetRayTMaxEXT, f, Num::Float),
            DxOp::HitObject_GeometryIndex => {
                (Op::HitObjectGetGeometryIndexNV, Op::HitObjectGetGeometryIndexEXT, u, Num::UInt)
            }
            DxOp::HitObject_InstanceIndex => {
                (Op::HitObjectGetInstanceIdNV, Op::HitObjectGetInstanceIdEXT, u, Num::UInt)
            }
            DxOp::HitObject_InstanceID => {
                (Op::HitObjectGetInstanceCustomIndexNV, Op::HitObjectGetInstanceCustomIndexEXT, u, Num::UInt)
            }
            DxOp::HitObject_PrimitiveIndex => {
                (Op::HitObjectGetPrimitiveIndexNV, Op::HitObjectGetPrimitiveIndexEXT, u, Num::UInt)
            }
            DxOp::HitObject_HitKind => (Op::HitObjectGetHitKindNV, Op::HitObjectGetHitKindEXT, u, Num::UInt),
            DxOp::HitObject_ShaderTableIndex => (
                Op::HitObjectGetShaderBindingTableRecordIndexNV,
                Op::HitObjectGetShaderBindingTableRecordIndexEXT,
                u,
                Num::UInt,
            ),
            _ => return None,
        })
    }

    /// State query `op` (one of [`Self::hit_state_spelling`]'s) of the hit object at slot
    /// pointer `p`: its SPIR-V value and numeric kind.
    pub(super) fn hit_state(&mut self, p: Word, op: DxOp) -> Result<(Word, Num)> {
        let (u, f, b) = (self.cx.u32_t(), self.cx.float(32), self.cx.bool_t());
        let (nv, ext, ty, num) = Self::hit_state_spelling(op, u, f, b)
            .ok_or_else(|| crate::emit::Error::Internal(format!("{} is no hit-object state query", op.name())))?;
        let x = self.ids_op(spelled(nv, ext, self.cx.reorder), ty, &[p])?;
        Ok((x, num))
    }

    /// The ray vector (`float3`) `op` (world or object ray origin or direction) of the hit
    /// object at slot pointer `p`.
    pub(super) fn hit_ray_vector(&mut self, p: Word, op: DxOp) -> Result<Word> {
        let r = self.cx.reorder;
        let op = match op {
            DxOp::HitObject_WorldRayOrigin => {
                spelled(Op::HitObjectGetWorldRayOriginNV, Op::HitObjectGetWorldRayOriginEXT, r)
            }
            DxOp::HitObject_WorldRayDirection => {
                spelled(Op::HitObjectGetWorldRayDirectionNV, Op::HitObjectGetWorldRayDirectionEXT, r)
            }
            DxOp::HitObject_ObjectRayOrigin => {
                spelled(Op::HitObjectGetObjectRayOriginNV, Op::HitObjectGetObjectRayOriginEXT, r)
            }
            _ => spelled(Op::HitObjectGetObjectRayDirectionNV, Op::HitObjectGetObjectRayDirectionEXT, r),
        };
        let f = self.cx.float(32);
        let v3 = self.cx.vec(f, 3);
        self.ids_op(op, v3, &[p])
    }

    /// The hit object at slot pointer `p`'s attributes, of IR type `ty`, stored to `dst`
    /// (through the `HitObjectAttribute*` variable of the type).
    pub(super) fn hit_attributes_to(&mut self, p: Word, ty: TypeId, dst: Word) -> Result<()> {
        let var = self.attribute_var(ty)?;
        let r = self.cx.reorder;
        self.ids_void(spelled(Op::HitObjectGetAttributesNV, Op::HitObjectGetAttributesEXT, r), &[p, var])?;
        let t = self.cx.ty(ty)?;
        let value = self.ids_op(Op::Load, t, &[var])?;
        self.ids_void(Op::Store, &[dst, value])
    }

    /// The 32-bit word at byte `offset` (a `u32` id) of the shader record of the hit object
    /// at slot pointer `p` (its local root table).
    pub(super) fn local_root_constant(&mut self, p: Word, offset: Word) -> Result<Word> {
        let r = self.cx.reorder;
        let u = self.cx.u32_t();
        let u2 = self.cx.vec(u, 2);
        let op = spelled(Op::HitObjectGetShaderRecordBufferHandleNV, Op::HitObjectGetShaderRecordBufferHandleEXT, r);
        let base = self.ids_op(op, u2, &[p])?;
        // base + offset as a 64-bit address held in two words (carry into the high word).
        let u64t = self.cx.uint(64);
        let wide = self.ids_op(Op::Bitcast, u64t, &[base])?;
        let off64 = self.ids_op(Op::UConvert, u64t, &[offset])?;
        let at = self.ids_op(Op::IAdd, u64t, &[wide, off64])?;
        self.cx.capability(Capability::Int64);
        self.cx.physical_addressing();
        let pty = self.cx.ptr(StorageClass::PhysicalStorageBuffer, u);
        let ptr = self.ids_op(Op::ConvertUToPtr, pty, &[at])?;
        self.ids_op(Op::Load, u, &[ptr, MemoryAccess::ALIGNED.bits(), 4])
    }

    /// Reorders the invocation on the hit object at slot pointer `p` (`None`: on the hint
    /// alone), with coherence hint `hint` of `bits` bits (left out when `bits` is the
    /// constant 0 and there is a hit object).
    pub(super) fn reorder_thread(&mut self, p: Option<Word>, hint: Word, bits: Word) -> Result<()> {
        let r = self.cx.reorder;
        let no_bits = self.cx.const_value_u32(bits) == Some(0);
        match p {
            None => self.ids_void(spelled(Op::ReorderThreadWithHintNV, Op::ReorderThreadWithHintEXT, r), &[hint, bits]),
            Some(p) => {
                let op = spelled(Op::ReorderThreadWithHitObjectNV, Op::ReorderThreadWithHitObjectEXT, r);
                if no_bits {
                    self.ids_void(op, &[p])
                } else {
                    self.ids_void(op, &[p, hint, bits])
                }
            }
        }
    }

    /// Records an empty (nop) hit object into slot pointer `p`.
    pub(super) fn record_empty(&mut self, p: Word) -> Result<()> {
        let r = self.cx.reorder;
        self.ids_void(spelled(Op::HitObjectRecordEmptyNV, Op::HitObjectRecordEmptyEXT, r), &[p])
    }

    /// Records a miss of shader `miss` for the ray (`origin`, `tmin`, `dir`, `tmax`) into
    /// slot pointer `p`; `flags` (ray flags) only under EXT, NV keeping none.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_miss(
        &mut self,
        p: Word,
        flags: Word,
        miss: Word,
        origin: Word,
        tmin: Word,
        dir: Word,
        tmax: Word,
    ) -> Result<()> {
        match self.cx.reorder {
            ReorderExtension::Nv => self.ids_void(Op::HitObjectRecordMissNV, &[p, miss, origin, tmin, dir, tmax]),
            ReorderExtension::Ext => {
                self.cx.ray_flags_used(flags);
                self.ids_void(Op::HitObjectRecordMissEXT, &[p, flags, miss, origin, tmin, dir, tmax])
            }
        }
    }

    /// Records the miss or nop hit object of `c` (`MakeMiss`, `MakeNop`) into slot pointer `p`.
    fn record(&mut self, c: &Call<'_>, p: Word) -> Result<()> {
        if c.op == DxOp::HitObject_MakeNop {
            return self.record_empty(p);
        }
        let flags = self.index_u32(c, 0)?;
        let miss = self.index_u32(c, 1)?;
        let origin = self.arg_vec3(c, 2)?;
        let tmin = self.arg_f32(c, 5)?;
        let dir = self.arg_vec3(c, 6)?;
        let tmax = self.arg_f32(c, 9)?;
        if self.cx.reorder == ReorderExtension::Nv && self.cx.const_value_u32(flags) != Some(0) {
            return Err(self.not_in_nv(c, "ray flags on a miss hit object (only 0 is expressible)"));
        }
        self.record_miss(p, flags, miss, origin, tmin, dir, tmax)
    }

    /// Whether every use of `i` other than by `at` is an instruction before `at` in `at`'s
    /// block (so nothing reads `i` once `at` ran; conservative: any use elsewhere counts).
    fn no_use_after(&self, i: InstId, at: InstId) -> bool {
        let f = self.f;
        let mut before = true;
        for &b in &f.layout {
            let mut seen_at = false;
            for &j in &f.blocks[b].insts {
                if j == at {
                    seen_at = true;
                    continue;
                }
                let mut uses = false;
                f.insts[j].kind.for_each_operand(|v| uses |= v == Value::Inst(i));
                let here = f.blocks[b].insts.contains(&at);
                if uses && (!here || seen_at) {
                    before = false;
                }
            }
            if f.blocks[b].terminator.operands().into_iter().any(|v| v == Value::Inst(i)) {
                before = false;
            }
        }
        before
    }
}
