//! NVIDIA NVAPI ray-tracing queries (`NV_EXTN_OP_RT_*`; [`crate::dxil::nvapi::rt`] decodes
//! them): cluster ids, triangle object positions, spheres and linear swept spheres, read
//! from the hit of an any-hit or closest-hit shader (built-ins), from a ray query's
//! candidate or committed intersection (the `OpRayQuery*` forms, intersection 0 / 1), or
//! from an `NvHitObject` (the `HIT_OBJECT_*` forms, `OpHitObject*` on its slot).
//!
//! | NVAPI opcode | hit shader | ray query | hit object | needs |
//! |---|---|---|---|---|
//! | `RT_GET_CLUSTER_ID`, `_CANDIDATE_` / `_COMMITTED_`, `HIT_OBJECT_` | `ClusterIDNV` | `OpRayQueryGetIntersectionClusterIdNV` | `OpHitObjectGetClusterIdNV` | `cluster_acceleration_structure` |
//! | `RT_TRIANGLE_OBJECT_POSITIONS`, `RT_CANDIDATE_` / `_COMMITTED_`, `HIT_OBJECT_GET_` | `HitTriangleVertexPositionsKHR` | `OpRayQueryGetIntersectionTriangleVertexPositionsKHR` | `OpHitObjectGetIntersectionTriangleVertexPositionsEXT` (EXT only) | `ray_tracing_position_fetch` |
//! | `RT_[CANDIDATE_/COMMITTED_]SPHERE_OBJECT_POSITION_AND_RADIUS`, `HIT_OBJECT_GET_` | `HitSpherePositionNV`, `HitSphereRadiusNV` | `OpRayQueryGetIntersectionSphere{Position,Radius}NV` | `OpHitObjectGetSphere{Position,Radius}NV` | `spheres` |
//! | `RT_IS_SPHERE_HIT`, `RT_CANDIDATE_IS_NONOPAQUE_SPHERE`, `RT_COMMITTED_IS_SPHERE`, `HIT_OBJECT_IS_SPHERE_HIT` | `HitIsSphereNV` | `OpRayQueryIsSphereHitNV` | `OpHitObjectIsSphereHitNV` | `spheres` |
//! | `RT_[CANDIDATE_/COMMITTED_]LSS_OBJECT_POSITIONS_AND_RADII`, `HIT_OBJECT_GET_` | `HitLSSPositionsNV`, `HitLSSRadiiNV` | `OpRayQueryGetIntersectionLSS{Positions,Radii}NV` | `OpHitObjectGetLSS{Positions,Radii}NV` | `linear_swept_spheres` |
//! | `RT_IS_LSS_HIT`, `RT_CANDIDATE_IS_NONOPAQUE_LSS`, `RT_COMMITTED_IS_LSS`, `HIT_OBJECT_IS_LSS_HIT` | `HitIsLSSNV` | `OpRayQueryIsLSSHitNV` | `OpHitObjectIsLSSHitNV` | `linear_swept_spheres` |
//! | `RT_CANDIDATE_` / `_COMMITTED_LSS_HIT_PARAMETER` | | `OpRayQueryGetIntersectionLSSHitValueNV` | | `linear_swept_spheres` |
//!
//! A hit-object form names its hit object by the handle in `src0u.x`, mapped to its slot
//! exactly as the `HIT_OBJECT_GET_*` records are (`nvapi_hit.rs`), and needs
//! `invocation_reorder` besides the query's option (refused naming the missing one). The
//! `OpHitObject*NV` queries of clusters and (swept) spheres take NV hit objects only
//! (`SPV_NV_cluster_acceleration_structure`, `SPV_NV_linear_swept_spheres`): refused under
//! `ReorderExtension::Ext`. Triangle positions exist only as `SPV_EXT_shader_invocation_reorder`'s
//! `OpHitObjectGetIntersectionTriangleVertexPositionsEXT`: refused under `Nv`.
//!
//! The results go back through `IncrementCounter`s as NVAPI's HLSL reads them: float bits
//! as words, matrices row by row (`float3x3` positions: vertex `k` is row `k`; `float2x4`:
//! end point `k`'s `x, y, z` and radius), predicates as 1 / 0. The cluster id is -1 outside
//! a cluster acceleration structure in both APIs. A candidate a query stops at is
//! non-opaque, so `CANDIDATE_IS_NONOPAQUE_*` is the candidate's sphere (LSS) test.
//!
//! A ray-query form names its query only by `src0u.x = rq.RayFlags()`: the value must be a
//! `rayQuery_StateScalar` `RayFlags` call on an `allocateRayQuery` result, else the record
//! is malformed. A hit-shader form outside an any-hit or closest-hit shader is refused (the
//! built-ins exist only there).
//!
//! Refused ([`crate::emit::support::nvapi_support`] says why): the micro-map queries
//! (87..=92), `RT_CANDIDATE_BUILTIN_PRIMITIVE_RAY_T` and
//! `RT_COMMIT_NONOPAQUE_BUILTIN_PRIMITIVE_HIT`. Cost: one instruction and a load or
//! query (or hit-object slot), plus one extract and bitcast per result word. Sources:
//! `nvHLSLExtns.h` / `nvHLSLExtnsInternal.h` (records), the SPIR-V registry's extensions.

use crate::dxil::nvapi::{field, rt, NvapiError, Opcode, Record};
use crate::dxil::DxOp;
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::support::{nvapi_support, VendorSupport};
use crate::emit::{FnEmit, ReorderExtension};
use crate::front::container::ShaderKind;
use crate::ir::Value;
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

/// What a query reads: the hit of a hit shader, a ray query and its intersection, or the
/// hit object at a slot pointer.
#[derive(Copy, Clone)]
enum From {
    Hit,
    Query(Word, u32),
    HitObject(Word),
}

/// One value the queries read.
#[derive(Copy, Clone)]
enum Read {
    ClusterId,
    TrianglePositions,
    SpherePosition,
    SphereRadius,
    LssPositions,
    LssRadii,
    IsSphere,
    IsLss,
}

impl Read {
    /// Its built-in in a hit shader, the instruction that reads it from a ray query's
    /// intersection, and the one that reads it from a hit object.
    fn sources(self) -> (BuiltIn, Op, Op) {
        match self {
            Read::ClusterId => {
                (BuiltIn::ClusterIDNV, Op::RayQueryGetIntersectionClusterIdNV, Op::HitObjectGetClusterIdNV)
            }
            Read::TrianglePositions => (
                BuiltIn::HitTriangleVertexPositionsKHR,
                Op::RayQueryGetIntersectionTriangleVertexPositionsKHR,
                Op::HitObjectGetIntersectionTriangleVertexPositionsEXT,
            ),
            Read::SpherePosition => (
                BuiltIn::HitSpherePositionNV,
                Op::RayQueryGetIntersectionSpherePositionNV,
                Op::HitObjectGetSpherePositionNV,
            ),
            Read::SphereRadius => {
                (BuiltIn::HitSphereRadiusNV, Op::RayQueryGetIntersectionSphereRadiusNV, Op::HitObjectGetSphereRadiusNV)
            }
            Read::LssPositions => {
                (BuiltIn::HitLSSPositionsNV, Op::RayQueryGetIntersectionLSSPositionsNV, Op::HitObjectGetLSSPositionsNV)
            }
            Read::LssRadii => {
                (BuiltIn::HitLSSRadiiNV, Op::RayQueryGetIntersectionLSSRadiiNV, Op::HitObjectGetLSSRadiiNV)
            }
            Read::IsSphere => (BuiltIn::HitIsSphereNV, Op::RayQueryIsSphereHitNV, Op::HitObjectIsSphereHitNV),
            Read::IsLss => (BuiltIn::HitIsLSSNV, Op::RayQueryIsLSSHitNV, Op::HitObjectIsLSSHitNV),
        }
    }
}

/// Intersection operands of the `OpRayQuery*` instructions.
const CANDIDATE: u32 = 0;
const COMMITTED: u32 = 1;

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Performs ray-tracing record `r` (opcode `n`): the words its `IncrementCounter`s
    /// return.
    pub(super) fn nv_ray_tracing(&mut self, r: &Record<Word>, n: u32) -> Result<Vec<Word>> {
        use rt::Query::*;
        let op = r.opcode;
        let Some((query, source)) = rt::decode(n) else {
            return Err(match nvapi_support(op) {
                VendorSupport::Refused(why) => self.nv_error(op.to_string(), VendorRefusal::NotLowered(why.into())),
                VendorSupport::Lowered { .. } => Error::Internal(format!("{op} is lowered but reached no lowering")),
            });
        };
        let vendor = self.iface.stage.vendor;
        let query_form = matches!(source, rt::Source::Candidate | rt::Source::Committed);
        if source == rt::Source::HitObject {
            self.nv_need(
                op,
                vendor.invocation_reorder,
                "rayTracingInvocationReorder (VK_NV_ray_tracing_invocation_reorder)",
                "invocation_reorder",
            )?;
        }
        // The device feature each query needs (its option field), and the capability and
        // extension that declare it.
        let (have, feature, option, capability, extension) = match query {
            ClusterId => (
                vendor.cluster_acceleration_structure,
                "clusterAccelerationStructure (VK_NV_cluster_acceleration_structure)",
                "cluster_acceleration_structure",
                Capability::RayTracingClusterAccelerationStructureNV,
                "SPV_NV_cluster_acceleration_structure",
            ),
            TrianglePositions => (
                vendor.ray_tracing_position_fetch,
                "rayTracingPositionFetch (VK_KHR_ray_tracing_position_fetch)",
                "ray_tracing_position_fetch",
                if query_form { Capability::RayQueryPositionFetchKHR } else { Capability::RayTracingPositionFetchKHR },
                "SPV_KHR_ray_tracing_position_fetch",
            ),
            SpherePositionRadius | IsSphere => (
                vendor.spheres,
                "spheres (VK_NV_ray_tracing_linear_swept_spheres)",
                "spheres",
                Capability::RayTracingSpheresGeometryNV,
                "SPV_NV_linear_swept_spheres",
            ),
            LssPositionsRadii | IsLss | LssHitParameter => (
                vendor.linear_swept_spheres,
                "linearSweptSpheres (VK_NV_ray_tracing_linear_swept_spheres)",
                "linear_swept_spheres",
                Capability::RayTracingLinearSweptSpheresGeometryNV,
                "SPV_NV_linear_swept_spheres",
            ),
        };
        self.nv_need(op, have, feature, option)?;
        self.cx.capability(capability);
        self.cx.extension(extension);
        let from = match source {
            rt::Source::Hit => {
                if !matches!(self.sm.kind, ShaderKind::AnyHit | ShaderKind::ClosestHit) {
                    return Err(self.nv_error(
                        op.to_string(),
                        VendorRefusal::NotLowered(format!(
                            "it reads the hit of an any-hit or closest-hit shader, and this is a {:?} shader",
                            self.sm.kind
                        )),
                    ));
                }
                From::Hit
            }
            rt::Source::Candidate => From::Query(self.nv_ray_query(r)?, CANDIDATE),
            rt::Source::Committed => From::Query(self.nv_ray_query(r)?, COMMITTED),
            rt::Source::HitObject => {
                self.nv_rt_hit_object_extension(op, query)?;
                let handle = r
                    .get(field::SRC0U)
                    .ok_or_else(|| Error::Internal(format!("{op}: operand dword src0u.x missing")))?;
                From::HitObject(self.nv_hit_object(op, field::SRC0U, handle)?)
            }
        };
        let (u, f, b) = (self.cx.u32_t(), self.cx.float(32), self.cx.bool_t());
        let v3 = self.cx.vec(f, 3);
        match query {
            ClusterId => {
                let id = self.nv_rt_read(from, Read::ClusterId, u)?;
                Ok(vec![id])
            }
            TrianglePositions => {
                let t = self.triangle_positions_t();
                let p = self.nv_rt_read(from, Read::TrianglePositions, t)?;
                // Vertex k's coordinate i, row by row.
                let at: Vec<[u32; 2]> = (0..3).flat_map(|k| (0..3).map(move |i| [k, i])).collect();
                let paths: Vec<&[u32]> = at.iter().map(|x| &x[..]).collect();
                self.nv_float_bits(p, &paths)
            }
            SpherePositionRadius => {
                let p = self.nv_rt_read(from, Read::SpherePosition, v3)?;
                let r = self.nv_rt_read(from, Read::SphereRadius, f)?;
                let mut words = self.nv_float_bits(p, &[&[0], &[1], &[2]])?;
                words.extend(self.nv_float_bits(r, &[&[]])?);
                Ok(words)
            }
            LssPositionsRadii => {
                let two = self.cx.const_u32(2);
                let (pt, rt) = (self.cx.b.type_array(v3, two), self.cx.b.type_array(f, two));
                let p = self.nv_rt_read(from, Read::LssPositions, pt)?;
                let r = self.nv_rt_read(from, Read::LssRadii, rt)?;
                // Endpoint k's position, then its radius, for k = 0, 1.
                let mut words = Vec::with_capacity(8);
                for k in 0..2 {
                    words.extend(self.nv_float_bits(p, &[&[k, 0], &[k, 1], &[k, 2]])?);
                    words.extend(self.nv_float_bits(r, &[&[k]])?);
                }
                Ok(words)
            }
            IsSphere | IsLss => {
                let hit = self.nv_rt_read(from, if query == IsSphere { Read::IsSphere } else { Read::IsLss }, b)?;
                let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
                Ok(vec![self.ids_op(Op::Select, u, &[hit, one, zero])?])
            }
            LssHitParameter => {
                // Query forms only (`rt::decode`): the built-in below is never read.
                let From::Query(rq, i) = from else {
                    return Err(Error::Internal(format!("{op}: a hit parameter outside a ray query")));
                };
                let i = self.cx.const_u32(i);
                let x = self.ids_op(Op::RayQueryGetIntersectionLSSHitValueNV, f, &[rq, i])?;
                Ok(vec![self.ids_op(Op::Bitcast, u, &[x])?])
            }
        }
    }

    /// The bits of float members `paths` of `composite` (each an `OpCompositeExtract` index
    /// path; an empty path is `composite` itself, a float), as words.
    fn nv_float_bits(&mut self, composite: Word, paths: &[&[u32]]) -> Result<Vec<Word>> {
        let (u, f) = (self.cx.u32_t(), self.cx.float(32));
        let mut words = Vec::with_capacity(paths.len());
        for path in paths {
            let x = if path.is_empty() {
                composite
            } else {
                let operands: Vec<Word> = std::iter::once(composite).chain(path.iter().copied()).collect();
                self.ids_op(Op::CompositeExtract, f, &operands)?
            };
            words.push(self.ids_op(Op::Bitcast, u, &[x])?);
        }
        Ok(words)
    }

    /// Reads `what` (of type `ty`) from `from`: its built-in in a hit shader, else its
    /// instruction on a ray query and its intersection, or on a hit object.
    fn nv_rt_read(&mut self, from: From, what: Read, ty: Word) -> Result<Word> {
        let (builtin, query, hit_object) = what.sources();
        match from {
            From::Hit => {
                let var = self.iface.builtin(self.cx, builtin, StorageClass::Input, ty);
                self.ids_op(Op::Load, ty, &[var])
            }
            From::Query(rq, i) => {
                let i = self.cx.const_u32(i);
                self.ids_op(query, ty, &[rq, i])
            }
            From::HitObject(p) => self.ids_op(hit_object, ty, &[p]),
        }
    }

    /// Refuses hit-object query `query` of record `op` when the selected reordering
    /// extension has no form of it: the `OpHitObjectGet*NV` queries of clusters and
    /// (swept) spheres take NV hit objects only; triangle positions exist only as
    /// `OpHitObjectGetIntersectionTriangleVertexPositionsEXT`, on EXT hit objects.
    fn nv_rt_hit_object_extension(&self, op: Opcode, query: rt::Query) -> Result<()> {
        let why = match (query, self.cx.reorder) {
            (rt::Query::TrianglePositions, ReorderExtension::Nv) => {
                "SPV_NV_shader_invocation_reorder has no query of a hit object's triangle vertex positions \
                 (SPV_EXT_shader_invocation_reorder's OpHitObjectGetIntersectionTriangleVertexPositionsEXT takes EXT \
                 hit objects); translate with Options::shader_invocation_reorder = Ext"
            }
            (rt::Query::TrianglePositions, ReorderExtension::Ext) | (_, ReorderExtension::Nv) => return Ok(()),
            (_, ReorderExtension::Ext) => {
                "its OpHitObjectGet*NV / OpHitObjectIs*NV instruction (SPV_NV_cluster_acceleration_structure, \
                 SPV_NV_linear_swept_spheres) takes NV hit objects only, and SPV_EXT_shader_invocation_reorder has \
                 none; translate with Options::shader_invocation_reorder = Nv"
            }
        };
        Err(self.nv_error(op.to_string(), VendorRefusal::NotLowered(why.into())))
    }

    /// The ray query record `r` names: `src0u.x` is `RayFlags()` of it.
    fn nv_ray_query(&mut self, r: &Record<Word>) -> Result<Word> {
        let op = r.opcode;
        let query = match r.arg(field::SRC0U) {
            Some(Value::Inst(i)) => crate::dxil::decode_call(self.cx.m, self.f, i, "")
                .ok()
                .flatten()
                .filter(|c| c.op == DxOp::RayQuery_RayFlags)
                .and_then(|c| match c.args.first() {
                    Some(Value::Inst(q)) => self.ray_queries.get(q).map(|&(var, _)| var),
                    _ => None,
                }),
            _ => None,
        };
        let Some(var) = query else {
            let e = NvapiError::NoRayQuery { opcode: op };
            return Err(self.nv_malformed(op.to_string(), e));
        };
        self.cx.capability(Capability::RayQueryKHR);
        self.cx.extension("SPV_KHR_ray_query");
        Ok(var)
    }
}
