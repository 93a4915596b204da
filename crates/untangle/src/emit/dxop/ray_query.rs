//! Inline ray queries (SM 6.5 `RayQuery<>`, `SPV_KHR_ray_query`), in any stage.
//!
//! DXIL names a ray query by the `i32` that `allocateRayQuery` (or SM 6.9's
//! `allocateRayQuery2`, which adds the ray-query flags: see there) returns; each allocation here
//! is a `Private` variable of `OpTypeRayQueryKHR`, and every `rayQuery_*` call must name an
//! allocation directly (a query chosen through a PHI or a select is refused). The
//! allocation's constant ray flags (the HLSL template argument) are OR-ed into the flags of
//! each `TraceRayInline`, as D3D does.
//!
//! | DXIL | SPIR-V |
//! | --- | --- |
//! | `TraceRayInline` | `OpRayQueryInitializeKHR` |
//! | `Proceed`, `Abort` | `OpRayQueryProceedKHR`, `OpRayQueryTerminateKHR` |
//! | `CommitNonOpaqueTriangleHit`, `CommitProceduralPrimitiveHit` | `OpRayQueryConfirmIntersectionKHR`, `OpRayQueryGenerateIntersectionKHR` |
//! | `CommittedStatus`, `CandidateType` | `OpRayQueryGetIntersectionTypeKHR` (committed, candidate: D3D's enums have the same values) |
//! | `Candidate`/`Committed` getters | `OpRayQueryGetIntersection*KHR` with intersection 0 (candidate) or 1 (committed) |
//! | `CandidateProceduralPrimitiveNonOpaque` | not `OpRayQueryGetIntersectionCandidateAABBOpaqueKHR` |
//! | `RayFlags`, `WorldRayOrigin` / `Direction`, `RayTMin` | `OpRayQueryGetRayFlagsKHR`, `OpRayQueryGetWorldRay*KHR`, `OpRayQueryGetRayTMinKHR` |
//! | `*ObjectToWorld3x4`, `*WorldToObject3x4` (row, column) | element (column, row) of the `mat4x3` result |
//! | `InstanceIndex`, `InstanceID`, `InstanceContributionToHitGroupIndex` | `InstanceId`, `InstanceCustomIndex`, `InstanceShaderBindingTableRecordOffset` |
//! | `CandidateClusterID`, `CommittedClusterID` (SM 6.10) | `OpRayQueryGetIntersectionClusterIdNV` (`SPV_NV_cluster_acceleration_structure`) |
//! | `CandidateTriangleObjectPosition`, `CommittedTriangleObjectPosition` (SM 6.10) | `OpRayQueryGetIntersectionTriangleVertexPositionsKHR` (`SPV_KHR_ray_tracing_position_fetch`), flattened to `<9 x float>` |
//!
//! The SM 6.10 cluster id is -1 for a hit outside a cluster acceleration structure in
//! both APIs (D3D's `CLUSTER_ID_INVALID`, hlsl-specs 0045); the positions are in
//! barycentric order in both (hlsl-specs 0041).
//!
//! Vector and matrix components are immediates in DXIL (the validator requires them); a
//! dynamic one is refused.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit, Num};
use crate::ir::Value;
use rspirv::spirv::{Capability, Op, StorageClass, Word};

const FAMILY: &str = "ray query";
const CANDIDATE: u32 = 0;
const COMMITTED: u32 = 1;
/// `RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS`, the one SM 6.9 ray-query flag (hlsl-specs 0024).
const ALLOW_OPACITY_MICROMAPS: u64 = 0x1;

/// The intersection a `RayQuery_Candidate*` or `RayQuery_Committed*` op reads.
fn intersection(op: DxOp) -> u32 {
    match op {
        DxOp::RayQuery_CandidateObjectToWorld3x4
        | DxOp::RayQuery_CandidateWorldToObject3x4
        | DxOp::RayQuery_CandidateObjectRayOrigin
        | DxOp::RayQuery_CandidateObjectRayDirection
        | DxOp::RayQuery_CandidateTriangleBarycentrics
        | DxOp::RayQuery_CandidateType
        | DxOp::RayQuery_CandidateTriangleFrontFace
        | DxOp::RayQuery_CandidateTriangleRayT
        | DxOp::RayQuery_CandidateInstanceIndex
        | DxOp::RayQuery_CandidateInstanceID
        | DxOp::RayQuery_CandidateGeometryIndex
        | DxOp::RayQuery_CandidatePrimitiveIndex
        | DxOp::RayQuery_CandidateInstanceContributionToHitGroupIndex
        | DxOp::RayQuery_CandidateClusterID
        | DxOp::RayQuery_CandidateTriangleObjectPosition => CANDIDATE,
        _ => COMMITTED,
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn ray_query_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        self.cx.capability(Capability::RayQueryKHR);
        self.cx.extension("SPV_KHR_ray_query");
        let u = self.cx.u32_t();
        let f = self.cx.float(32);
        let b = self.cx.bool_t();
        if matches!(c.op, DxOp::AllocateRayQuery | DxOp::AllocateRayQuery2) {
            let flags = self
                .arg_const(c, 0)
                .map_err(|_| self.invalid(c, "operand 1", "the ray flags of allocateRayQuery must be a constant"))?
                as u32;
            if c.op == DxOp::AllocateRayQuery2 {
                // SM 6.9 ray-query flags: only `RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS`
                // (0x1) exists. Vulkan's ray queries consider opacity micromaps without
                // being asked, so the flag needs nothing here; `RAY_FLAG_FORCE_OMM_2_STATE`
                // in the ray flags declares `SPV_EXT_opacity_micromap` where a trace uses it
                // (`ModuleBuilder::ray_flags_used`).
                let query_flags = self.arg_const(c, 1).map_err(|_| {
                    self.invalid(c, "operand 2", "the ray-query flags of allocateRayQuery2 must be a constant")
                })?;
                if query_flags & !ALLOW_OPACITY_MICROMAPS != 0 {
                    return Err(self.invalid(
                        c,
                        "operand 2",
                        format!(
                            "ray-query flags {query_flags:#x}: only RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS (0x1) exists"
                        ),
                    ));
                }
            }
            let t = self.cx.b.type_ray_query();
            let var = self.cx.global_var(StorageClass::Private, t, "ray_query");
            self.ray_queries.insert(c.inst, (var, flags));
            return Ok(None);
        }
        let (rq, const_flags) = self.ray_query(c)?;
        let (op, intersection, ty) = match c.op {
            DxOp::RayQuery_TraceRayInline => {
                let accel = self.acceleration_structure(c, 1)?;
                let flags = self.index_u32(c, 2)?;
                let flags = if const_flags != 0 {
                    let k = self.cx.const_u32(const_flags);
                    self.cx.ray_flags_used(k);
                    self.ids_op(Op::BitwiseOr, u, &[flags, k])?
                } else {
                    flags
                };
                self.cx.ray_flags_used(flags);
                let mask = self.index_u32(c, 3)?;
                let origin = self.arg_vec3(c, 4)?;
                let tmin = self.arg_f32(c, 7)?;
                let dir = self.arg_vec3(c, 8)?;
                let tmax = self.arg_f32(c, 11)?;
                self.ids_void(Op::RayQueryInitializeKHR, &[rq, accel, flags, mask, origin, tmin, dir, tmax])?;
                return Ok(None);
            }
            DxOp::RayQuery_Proceed => return self.ids_op(Op::RayQueryProceedKHR, b, &[rq]).map(Some),
            DxOp::RayQuery_Abort => return self.ids_void(Op::RayQueryTerminateKHR, &[rq]).map(|_| None),
            DxOp::RayQuery_CommitNonOpaqueTriangleHit => {
                return self.ids_void(Op::RayQueryConfirmIntersectionKHR, &[rq]).map(|_| None)
            }
            DxOp::RayQuery_CommitProceduralPrimitiveHit => {
                let t = self.arg_f32(c, 1)?;
                return self.ids_void(Op::RayQueryGenerateIntersectionKHR, &[rq, t]).map(|_| None);
            }
            DxOp::RayQuery_CommittedStatus | DxOp::RayQuery_CandidateType => {
                (Op::RayQueryGetIntersectionTypeKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateObjectToWorld3x4
            | DxOp::RayQuery_CandidateWorldToObject3x4
            | DxOp::RayQuery_CommittedObjectToWorld3x4
            | DxOp::RayQuery_CommittedWorldToObject3x4 => return self.transform_element(c, rq).map(Some),
            DxOp::RayQuery_CandidateProceduralPrimitiveNonOpaque => {
                let opaque = self.ids_op(Op::RayQueryGetIntersectionCandidateAABBOpaqueKHR, b, &[rq])?;
                return self.ids_op(Op::LogicalNot, b, &[opaque]).map(Some);
            }
            DxOp::RayQuery_CandidateTriangleFrontFace | DxOp::RayQuery_CommittedTriangleFrontFace => {
                (Op::RayQueryGetIntersectionFrontFaceKHR, Some(intersection(c.op)), b)
            }
            DxOp::RayQuery_CandidateTriangleBarycentrics | DxOp::RayQuery_CommittedTriangleBarycentrics => {
                let i = Some(intersection(c.op));
                return self.component(c, Op::RayQueryGetIntersectionBarycentricsKHR, rq, i, 2).map(Some);
            }
            DxOp::RayQuery_RayFlags => (Op::RayQueryGetRayFlagsKHR, None, u),
            DxOp::RayQuery_WorldRayOrigin | DxOp::RayQuery_WorldRayDirection => {
                let op = if c.op == DxOp::RayQuery_WorldRayOrigin {
                    Op::RayQueryGetWorldRayOriginKHR
                } else {
                    Op::RayQueryGetWorldRayDirectionKHR
                };
                return self.component(c, op, rq, None, 3).map(Some);
            }
            DxOp::RayQuery_RayTMin => (Op::RayQueryGetRayTMinKHR, None, f),
            DxOp::RayQuery_CandidateTriangleRayT | DxOp::RayQuery_CommittedRayT => {
                (Op::RayQueryGetIntersectionTKHR, Some(intersection(c.op)), f)
            }
            DxOp::RayQuery_CandidateInstanceIndex | DxOp::RayQuery_CommittedInstanceIndex => {
                (Op::RayQueryGetIntersectionInstanceIdKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateInstanceID | DxOp::RayQuery_CommittedInstanceID => {
                (Op::RayQueryGetIntersectionInstanceCustomIndexKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateGeometryIndex | DxOp::RayQuery_CommittedGeometryIndex => {
                (Op::RayQueryGetIntersectionGeometryIndexKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidatePrimitiveIndex | DxOp::RayQuery_CommittedPrimitiveIndex => {
                (Op::RayQueryGetIntersectionPrimitiveIndexKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateInstanceContributionToHitGroupIndex
            | DxOp::RayQuery_CommittedInstanceContributionToHitGroupIndex => {
                (Op::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateObjectRayOrigin
            | DxOp::RayQuery_CandidateObjectRayDirection
            | DxOp::RayQuery_CommittedObjectRayOrigin
            | DxOp::RayQuery_CommittedObjectRayDirection => {
                let op = if matches!(
                    c.op,
                    DxOp::RayQuery_CandidateObjectRayOrigin | DxOp::RayQuery_CommittedObjectRayOrigin
                ) {
                    Op::RayQueryGetIntersectionObjectRayOriginKHR
                } else {
                    Op::RayQueryGetIntersectionObjectRayDirectionKHR
                };
                return self.component(c, op, rq, Some(intersection(c.op)), 3).map(Some);
            }
            DxOp::RayQuery_CandidateClusterID | DxOp::RayQuery_CommittedClusterID => {
                self.cx.capability(Capability::RayTracingClusterAccelerationStructureNV);
                self.cx.extension("SPV_NV_cluster_acceleration_structure");
                (Op::RayQueryGetIntersectionClusterIdNV, Some(intersection(c.op)), u)
            }
            DxOp::RayQuery_CandidateTriangleObjectPosition | DxOp::RayQuery_CommittedTriangleObjectPosition => {
                self.cx.capability(Capability::RayQueryPositionFetchKHR);
                self.cx.extension("SPV_KHR_ray_tracing_position_fetch");
                let t = self.triangle_positions_t();
                let i = self.cx.const_u32(intersection(c.op));
                let positions = self.ids_op(Op::RayQueryGetIntersectionTriangleVertexPositionsKHR, t, &[rq, i])?;
                return self.triangle_positions_to_ir(c, positions).map(Some);
            }
            other => return Err(self.not_in_family(other, FAMILY)),
        };
        let mut ops = vec![rq];
        if let Some(i) = intersection {
            ops.push(self.cx.const_u32(i));
        }
        let x = self.ids_op(op, ty, &ops)?;
        let num = if ty == u {
            Num::UInt
        } else if ty == f {
            Num::Float
        } else {
            Num::Bool
        };
        self.num_to_ir(x, num, c.ty).map(Some)
    }

    /// The ray query variable argument 0 names, and its allocation's constant flags.
    pub(super) fn ray_query(&self, c: &Call<'_>) -> Result<(Word, u32)> {
        match self.arg(c, 0)? {
            Value::Inst(i) => self.ray_queries.get(&i).copied(),
            _ => None,
        }
        .ok_or_else(|| self.form(c.op, "the ray query must be the result of allocateRayQuery"))
    }

    /// Immediate argument `k`, as a constant id.
    fn immediate(&mut self, c: &Call<'_>, k: usize) -> Result<u32> {
        let n = self.arg_const(c, k).map_err(|_| self.form(c.op, format!("operand {} must be an immediate", k + 1)))?;
        Ok(n as u32)
    }

    /// Element (`args[1]`, `args[2]`) = (row, column) of the 3x4 object-to-world or
    /// world-to-object matrix of query `rq`'s candidate or committed intersection;
    /// undefined outside the matrix.
    fn transform_element(&mut self, c: &Call<'_>, rq: Word) -> Result<Word> {
        let f = self.cx.float(32);
        let op = if matches!(c.op, DxOp::RayQuery_CandidateObjectToWorld3x4 | DxOp::RayQuery_CommittedObjectToWorld3x4)
        {
            Op::RayQueryGetIntersectionObjectToWorldKHR
        } else {
            Op::RayQueryGetIntersectionWorldToObjectKHR
        };
        let row = self.immediate(c, 1)?;
        let col = self.immediate(c, 2)?;
        if row > 2 || col > 3 {
            return Ok(self.cx.undef(f));
        }
        let v3 = self.cx.vec(f, 3);
        let mat = self.cx.b.type_matrix(v3, 4);
        let i = self.cx.const_u32(intersection(c.op));
        let m = self.ids_op(op, mat, &[rq, i])?;
        let x = self.ids_op(Op::CompositeExtract, f, &[m, col, row])?;
        self.num_to_ir(x, Num::Float, c.ty)
    }

    /// Component `args[1]` (an immediate) of the `float<n>` that `op` reads from query `rq`
    /// (of intersection `i`, when given); undefined past its end.
    fn component(&mut self, c: &Call<'_>, op: Op, rq: Word, i: Option<u32>, n: u32) -> Result<Word> {
        let f = self.cx.float(32);
        let vec = self.cx.vec(f, n);
        let mut operands = vec![rq];
        operands.extend(i.map(|i| self.cx.const_u32(i)));
        let v = self.ids_op(op, vec, &operands)?;
        let k = self.immediate(c, 1)?;
        let x = if k < n { self.ids_op(Op::CompositeExtract, f, &[v, k])? } else { self.cx.undef(f) };
        self.num_to_ir(x, Num::Float, c.ty)
    }
}
