//! Ray-tracing stage operations (`SPV_KHR_ray_tracing`; the stages themselves and their
//! payload variables are `crate::emit::stage::ray_tracing`).
//!
//! | DXIL | SPIR-V |
//! | --- | --- |
//! | `traceRay` | `OpTraceRayKHR` on the payload's `RayPayloadKHR` variable |
//! | `reportHit` | the attributes copied to `HitAttributeKHR`, `OpReportIntersectionKHR` |
//! | `callShader` | `OpExecuteCallableKHR` on the `CallableDataKHR` variable |
//! | `ignoreHit`, `acceptHitAndEndSearch` | `OpIgnoreIntersectionKHR`, `OpTerminateRayKHR` |
//! | `dispatchRaysIndex` / `Dimensions` | `LaunchIdKHR` / `LaunchSizeKHR` |
//! | `worldRayOrigin` / `Direction`, `objectRayOrigin` / `Direction` | `WorldRayOriginKHR`, ... |
//! | `objectToWorld`, `worldToObject` (row, column) | `ObjectToWorldKHR`, `WorldToObjectKHR` (`mat4x3`): column, then row |
//! | `rayTMin`, `rayTCurrent` | `RayTminKHR`, `RayTmaxKHR` |
//! | `hitKind`, `rayFlags` | `HitKindKHR`, `IncomingRayFlagsKHR` |
//! | `instanceID`, `instanceIndex` | `InstanceCustomIndexKHR`, `InstanceId` |
//! | `primitiveIndex`, `geometryIndex` | `PrimitiveId`, `RayGeometryIndexKHR` |
//! | `clusterID` (SM 6.10) | `ClusterIDNV` (`SPV_NV_cluster_acceleration_structure`) |
//! | `triangleObjectPosition` (SM 6.10) | `HitTriangleVertexPositionsKHR` (`SPV_KHR_ray_tracing_position_fetch`), flattened to `<9 x float>` |
//!
//! The SM 6.10 preview's two (hlsl-specs proposals 0045 and 0041) are allowed in any-hit
//! and closest-hit shaders, as both built-ins are in Vulkan. `ClusterIDNV` is the
//! user-defined id of the hit's cluster acceleration structure, or -1 for a hit in an
//! ordinary one: D3D's `CLUSTER_ID_INVALID` (`0xffffffff`). The vertex positions are the
//! object-space ones the acceleration structure was built with, in barycentric order, in
//! both APIs.
//!
//! HLSL's `ObjectToWorld3x4()` and `ObjectToWorld4x3()` both compile to `objectToWorld` with
//! (row, column) of the 3x4 matrix, so one lowering serves both layouts. `ignoreHit` and
//! `acceptHitAndEndSearch` end the invocation: they are block terminators in SPIR-V, so
//! the block is split at the call (`if (true) { terminate }`) and whatever follows (DXIL's
//! `unreachable`) lands in the selection's merge block.

use crate::dxil::DxOp;
use crate::emit::error::{malformed, Result, Subject};
use crate::emit::{ArrayLen, Call, FnEmit, Indexing, Num, ResShape};
use crate::ir::Value;
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

const FAMILY: &str = "ray tracing";

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn ray_tracing_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let u = self.cx.u32_t();
        let f = self.cx.float(32);
        // The ray's origin and direction, in world or object space.
        let ray = |me: &mut Self, b| me.builtin_component(c, b, f, Num::Float).map(Some);
        match c.op {
            DxOp::DispatchRaysIndex | DxOp::DispatchRaysDimensions => {
                let b = if c.op == DxOp::DispatchRaysIndex { BuiltIn::LaunchIdKHR } else { BuiltIn::LaunchSizeKHR };
                self.builtin_component(c, b, u, Num::UInt).map(Some)
            }
            DxOp::WorldRayOrigin => ray(self, BuiltIn::WorldRayOriginKHR),
            DxOp::WorldRayDirection => ray(self, BuiltIn::WorldRayDirectionKHR),
            DxOp::ObjectRayOrigin => ray(self, BuiltIn::ObjectRayOriginKHR),
            DxOp::ObjectRayDirection => ray(self, BuiltIn::ObjectRayDirectionKHR),
            DxOp::ObjectToWorld | DxOp::WorldToObject => {
                let b = if c.op == DxOp::ObjectToWorld { BuiltIn::ObjectToWorldKHR } else { BuiltIn::WorldToObjectKHR };
                let v3 = self.cx.vec(f, 3);
                let mat = self.cx.b.type_matrix(v3, 4);
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, mat);
                let row = self.arg(c, 0)?;
                let col = self.arg(c, 1)?;
                let x = match (self.const_int(row), self.const_int(col)) {
                    (Some(r), Some(k)) if r > 2 || k > 3 => self.cx.undef(f),
                    _ => {
                        // Column `col`, component `row` (dynamic indices are allowed on an
                        // Input variable).
                        let r = self.index_u32(c, 0)?;
                        let k = self.index_u32(c, 1)?;
                        let pty = self.cx.ptr(StorageClass::Input, f);
                        let p = self.ids_op(Op::AccessChain, pty, &[var, k, r])?;
                        self.ids_op(Op::Load, f, &[p])?
                    }
                };
                self.num_to_ir(x, Num::Float, c.ty).map(Some)
            }
            DxOp::RayTMin | DxOp::RayTCurrent => {
                let b = if c.op == DxOp::RayTMin { BuiltIn::RayTminKHR } else { BuiltIn::RayTmaxKHR };
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, f);
                let x = self.ids_op(Op::Load, f, &[var])?;
                self.num_to_ir(x, Num::Float, c.ty).map(Some)
            }
            DxOp::HitKind
            | DxOp::RayFlags
            | DxOp::InstanceID
            | DxOp::InstanceIndex
            | DxOp::PrimitiveIndex
            | DxOp::GeometryIndex => {
                let b = match c.op {
                    DxOp::HitKind => BuiltIn::HitKindKHR,
                    DxOp::RayFlags => BuiltIn::IncomingRayFlagsKHR,
                    DxOp::InstanceID => BuiltIn::InstanceCustomIndexKHR,
                    DxOp::InstanceIndex => BuiltIn::InstanceId,
                    DxOp::PrimitiveIndex => BuiltIn::PrimitiveId,
                    _ => BuiltIn::RayGeometryIndexKHR,
                };
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, u);
                let x = self.ids_op(Op::Load, u, &[var])?;
                self.num_to_ir(x, Num::UInt, c.ty).map(Some)
            }
            DxOp::IgnoreHit | DxOp::AcceptHitAndEndSearch => {
                let op = if c.op == DxOp::IgnoreHit { Op::IgnoreIntersectionKHR } else { Op::TerminateRayKHR };
                self.terminate_in_block(op)?;
                Ok(None)
            }
            DxOp::TraceRay => self.trace_ray(c).map(|_| None),
            DxOp::ReportHit => self.report_hit(c).map(Some),
            DxOp::CallShader => {
                let index = self.index_u32(c, 0)?;
                let data = self.ray_variable(c, 1)?;
                self.ids_void(Op::ExecuteCallableKHR, &[index, data])?;
                Ok(None)
            }
            DxOp::ClusterID => {
                self.cx.capability(Capability::RayTracingClusterAccelerationStructureNV);
                self.cx.extension("SPV_NV_cluster_acceleration_structure");
                let var = self.iface.builtin(self.cx, BuiltIn::ClusterIDNV, StorageClass::Input, u);
                let x = self.ids_op(Op::Load, u, &[var])?;
                self.num_to_ir(x, Num::UInt, c.ty).map(Some)
            }
            DxOp::TriangleObjectPosition => {
                self.cx.capability(Capability::RayTracingPositionFetchKHR);
                self.cx.extension("SPV_KHR_ray_tracing_position_fetch");
                let t = self.triangle_positions_t();
                let var = self.iface.builtin(self.cx, BuiltIn::HitTriangleVertexPositionsKHR, StorageClass::Input, t);
                let positions = self.ids_op(Op::Load, t, &[var])?;
                self.triangle_positions_to_ir(c, positions).map(Some)
            }
            other => Err(self.not_in_family(other, FAMILY)),
        }
    }

    /// Component `args[0]` of a 3-vector built-in (an undefined value past 2, as in DXIL).
    fn builtin_component(&mut self, c: &Call<'_>, b: BuiltIn, scalar: Word, num: Num) -> Result<Word> {
        let v3 = self.cx.vec(scalar, 3);
        let var = self.iface.builtin(self.cx, b, StorageClass::Input, v3);
        let comp = self.arg(c, 0)?;
        let x = self.vec3_component(var, scalar, comp, |me| me.index_u32(c, 0))?;
        self.num_to_ir(x, num, c.ty)
    }

    /// Component `comp` of the 3-vector `Input` variable `var` of `scalar`s: an undefined
    /// value past 2, as in DXIL. A dynamic component (DXIL wants an immediate, but the
    /// meaning is clear) is the id `index` makes.
    pub(super) fn vec3_component(
        &mut self,
        var: Word,
        scalar: Word,
        comp: Value,
        index: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<Word> {
        match self.const_int(comp) {
            Some(k @ 0..=2) => {
                let pty = self.cx.ptr(StorageClass::Input, scalar);
                let k = self.cx.const_u32(k as u32);
                let p = self.ids_op(Op::AccessChain, pty, &[var, k])?;
                self.ids_op(Op::Load, scalar, &[p])
            }
            Some(_) => Ok(self.cx.undef(scalar)),
            None => {
                let v3 = self.cx.vec(scalar, 3);
                let v = self.ids_op(Op::Load, v3, &[var])?;
                let k = index(self)?;
                self.ids_op(Op::VectorExtractDynamic, scalar, &[v, k])
            }
        }
    }

    /// Argument `k` as a 32-bit unsigned integer.
    pub(super) fn index_u32(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let v = self.arg_val(c, k)?;
        let ty = self.arg_ty(c, k)?;
        self.ir_to_num(v, ty, Num::UInt)
    }

    /// Argument `k` as a 32-bit float.
    pub(super) fn arg_f32(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let v = self.arg_val(c, k)?;
        let ty = self.arg_ty(c, k)?;
        self.ir_to_num(v, ty, Num::Float)
    }

    /// Arguments `k..k + 3` as a float 3-vector.
    pub(super) fn arg_vec3(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let xs = [self.arg_f32(c, k)?, self.arg_f32(c, k + 1)?, self.arg_f32(c, k + 2)?];
        let f = self.cx.float(32);
        let v3 = self.cx.vec(f, 3);
        self.ids_op(Op::CompositeConstruct, v3, &xs)
    }

    /// The acceleration structure of the handle in argument `k`, loaded.
    pub(super) fn acceleration_structure(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let h = self.arg(c, k)?;
        let h = self.handle(h)?;
        let rv = self.res_var(h)?;
        if rv.shape != ResShape::AccelerationStructure {
            return Err(self.invalid(c, "operand 1", "not a ray-tracing acceleration structure"));
        }
        let t = rv.elem_ty;
        if let Indexing::Address { at } = rv.indexing {
            // A root SRV: the structure's device address.
            let address = self.root_address(at)?;
            return self.ids_op(Op::ConvertUToAccelerationStructureKHR, t, &[address]);
        }
        let p = self.element_ptr(h, &rv)?;
        if rv.len == ArrayLen::InBlock {
            // The layer's address table: the structure's device address.
            let u = self.cx.u32_t();
            let u2 = self.cx.vec(u, 2);
            let address = self.ids_op(Op::Load, u2, &[p])?;
            let t = self.cx.b.type_acceleration_structure();
            return self.ids_op(Op::ConvertUToAccelerationStructureKHR, t, &[address]);
        }
        self.ids_op(Op::Load, t, &[p])
    }

    /// The payload or callable-data variable of argument `k`.
    pub(super) fn ray_variable(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let v = self.arg(c, k)?;
        match self.iface.ray.as_ref().and_then(|r| r.pointer(v)) {
            Some((w, StorageClass::RayPayloadKHR | StorageClass::CallableDataKHR)) => Ok(w),
            // The stage's own payload, which SM 6.9's hit-object operations may name.
            Some((w, StorageClass::IncomingRayPayloadKHR))
                if matches!(c.op, DxOp::HitObject_TraceRay | DxOp::HitObject_Invoke) =>
            {
                Ok(w)
            }
            _ => Err(self.form(c.op, "the payload must be an alloca of the calling function")),
        }
    }

    fn trace_ray(&mut self, c: &Call<'_>) -> Result<()> {
        let ops = self.trace_operands(c)?;
        self.ids_void(Op::TraceRayKHR, &ops)
    }

    /// The operands of `OpTraceRayKHR` (and of `OpHitObjectTraceRay*`, which takes the same
    /// after the hit object) from a `traceRay`-shaped call: structure, flags, mask, SBT
    /// offset and stride, miss index, origin, tmin, direction, tmax, payload variable.
    pub(super) fn trace_operands(&mut self, c: &Call<'_>) -> Result<Vec<Word>> {
        let accel = self.acceleration_structure(c, 0)?;
        let mut ops = vec![accel];
        for k in 1..=5 {
            ops.push(self.index_u32(c, k)?);
        }
        ops.push(self.arg_vec3(c, 6)?);
        ops.push(self.arg_f32(c, 9)?);
        ops.push(self.arg_vec3(c, 10)?);
        ops.push(self.arg_f32(c, 13)?);
        ops.push(self.ray_variable(c, 14)?);
        self.cx.ray_flags_used(ops[1]);
        Ok(ops)
    }

    fn report_hit(&mut self, c: &Call<'_>) -> Result<Word> {
        let t = self.arg_f32(c, 0)?;
        let kind = self.index_u32(c, 1)?;
        let attr = self.arg(c, 2)?;
        let attr_ty = self
            .value_ty(attr)
            .and_then(|t| self.cx.m.types.pointee(t))
            .ok_or_else(|| self.form(c.op, "the attributes are not a pointer"))?;
        let ty = self.cx.ty(attr_ty)?;
        let Some(state) = self.iface.ray.as_ref() else {
            return Err(self.form(c.op, "reportHit outside a ray-tracing stage"));
        };
        let var = match state.hit_attributes {
            Some((var, t)) if t == attr_ty => var,
            Some(_) => return Err(self.form(c.op, "two attribute types in one intersection shader")),
            None => {
                let var = self.cx.global_var(StorageClass::HitAttributeKHR, ty, "hit_attributes");
                if let Some(s) = self.iface.ray.as_mut() {
                    s.hit_attributes = Some((var, attr_ty));
                }
                var
            }
        };
        let (src, _) = self.pointer(attr)?;
        let value = self.ids_op(Op::Load, ty, &[src])?;
        self.ids_void(Op::Store, &[var, value])?;
        let b = self.cx.bool_t();
        let hit = self.ids_op(Op::ReportIntersectionKHR, b, &[t, kind])?;
        if matches!(self.cx.m.types.get(c.ty), crate::ir::Type::Int(1)) {
            Ok(hit)
        } else {
            Err(malformed(Subject::Op(DxOp::ReportHit), "reportHit must return i1"))
        }
    }
}
