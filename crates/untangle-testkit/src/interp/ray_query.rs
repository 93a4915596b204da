//! Inline ray tracing (SM 6.5 `RayQuery`) against a scene model of the interpreter's own.
//!
//! A D3D acceleration structure is opaque (its layout belongs to the driver), so a test
//! describes the scene itself: a [`Scene`] of instances (3×4 object-to-world transform,
//! `InstanceID`, mask, hit-group contribution, instance flags) each holding geometries of
//! triangles or AABBs, bound to an SRV register through [`super::resources::Resources::scenes`].
//!
//! Semantics from the DirectX Raytracing spec ("Inline raytracing", `RayQuery` methods,
//! ray, instance and geometry flags) and DXC `docs/DXIL.rst` (the `RayQuery_*` operations):
//!
//! * `TraceRayInline` takes the query's flags OR the call's, the instance inclusion mask
//!   (an instance is visited when `instance mask & inclusion mask` is not 0), origin,
//!   `TMin`, direction, `TMax`. Candidates are intersected in object space (the ray
//!   transformed by the inverse instance transform; `t` is the same in both spaces).
//! * Opacity: the geometry's `OPAQUE` flag, overridden by the instance's `FORCE_OPAQUE` /
//!   `FORCE_NON_OPAQUE`, overridden by the ray's; then `CULL_OPAQUE` / `CULL_NON_OPAQUE`,
//!   `SKIP_TRIANGLES` / `SKIP_PROCEDURAL_PRIMITIVES`. A triangle is front-facing when its
//!   vertices appear clockwise from the ray origin in object space
//!   (`dot((v1 - v0) × (v2 - v0), d) < 0`), counter-clockwise with the instance's
//!   `TRIANGLE_FRONT_COUNTERCLOCKWISE`; `CULL_BACK_FACING_TRIANGLES` /
//!   `CULL_FRONT_FACING_TRIANGLES` apply unless the instance has `TRIANGLE_CULL_DISABLE`.
//! * `Proceed` walks the candidates: an opaque triangle within `[TMin, TCurrent]` is
//!   committed on the spot (`TCurrent` becomes its `t`); a non-opaque triangle in range,
//!   or an AABB the ray meets within it, stops `Proceed` with `true` for the shader to
//!   inspect and maybe commit (`CommitNonOpaqueTriangleHit`,
//!   `CommitProceduralPrimitiveHit(t)`, `t` in `[TMin, TCurrent]`). With
//!   `ACCEPT_FIRST_HIT_AND_END_SEARCH` the first commit ends the search. `Abort` ends it.
//!   `CommittedRayT` is `TMax` until something is committed.
//! * The order candidates come in is the implementation's: the run's [`Schedule`] picks it
//!   (scene order, reversed, or shuffled per thread), so a result that depends on it
//!   differs between the harness's schedule runs and is not compared.
//!
//! Precision (D3D bounds none of it; the spec asks only for watertight triangles):
//! intersections are computed in `f64`. Hit `t` and barycentrics of triangles, object-space
//! rays and world-to-object matrices of non-identity instances are [`Acc::ANY`]; flags,
//! indices, ids, status, facing, the world ray and object-to-world matrices are exact.
//! A ray passing within 1e-6 (barycentric) of a triangle edge, within a relative 1e-6 of
//! `TMin`/`TMax` or of another hit's `t`, or grazing an AABB, makes the whole query open
//! (`Proceed` undefined: a branch on it is indeterminate): which hits exist is then the
//! implementation's. Limits: no motion blur, no `AllocateRayQuery2`/opacity micromaps, no
//! acceleration structures reached through descriptor heaps (typed errors), and an AABB
//! is visited only when the ray meets it (a device may visit ones it merely comes near;
//! an intersection test in the shader keeps results the same).
//!
//! Cost: each `TraceRayInline` intersects every primitive of the scene (no BVH).

use super::exec::{exact, indeterminate, internal, operand, scalar, Ctx, Thread, R};
use super::program::OpCall;
use super::sched::Schedule;
use super::value::{Acc, Handle, Scalar, Val};
use std::rc::Rc;
use untangle::dxil::{DxOp, ResourceClass};

/// Ray flags (`RAY_FLAG_*`).
pub mod ray_flag {
    pub const FORCE_OPAQUE: u32 = 0x1;
    pub const FORCE_NON_OPAQUE: u32 = 0x2;
    pub const ACCEPT_FIRST_HIT_AND_END_SEARCH: u32 = 0x4;
    pub const CULL_BACK_FACING_TRIANGLES: u32 = 0x10;
    pub const CULL_FRONT_FACING_TRIANGLES: u32 = 0x20;
    pub const CULL_OPAQUE: u32 = 0x40;
    pub const CULL_NON_OPAQUE: u32 = 0x80;
    pub const SKIP_TRIANGLES: u32 = 0x100;
    pub const SKIP_PROCEDURAL_PRIMITIVES: u32 = 0x200;
}

/// Instance flags (`D3D12_RAYTRACING_INSTANCE_FLAG_*`).
pub mod instance_flag {
    pub const TRIANGLE_CULL_DISABLE: u32 = 0x1;
    pub const TRIANGLE_FRONT_COUNTERCLOCKWISE: u32 = 0x2;
    pub const FORCE_OPAQUE: u32 = 0x4;
    pub const FORCE_NON_OPAQUE: u32 = 0x8;
}

/// Primitives of one geometry.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Vertices `v0, v1, v2` of each triangle, object space.
    Triangles(Vec<[[f32; 3]; 3]>),
    /// `[min x, min y, min z, max x, max y, max z]` of each box, object space.
    Aabbs(Vec<[f32; 6]>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// `D3D12_RAYTRACING_GEOMETRY_FLAG_OPAQUE`.
    pub opaque: bool,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Object to world, rows of a 3×4 matrix (`x' = row · (x, y, z, 1)`).
    pub transform: [[f32; 4]; 3],
    /// `InstanceID` (24 bits).
    pub id: u32,
    /// `InstanceMask` (8 bits).
    pub mask: u32,
    /// `InstanceContributionToHitGroupIndex` (24 bits).
    pub contribution: u32,
    /// [`instance_flag`]s.
    pub flags: u32,
    pub geometries: Vec<Geometry>,
}

impl Instance {
    pub const IDENTITY: [[f32; 4]; 3] = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
}

/// A top-level acceleration structure's contents.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Scene {
    pub instances: Vec<Instance>,
}

/// A scene bound to an SRV register (`RaytracingAccelerationStructure`).
#[derive(Clone, Debug, PartialEq)]
pub struct SceneBinding {
    pub space: u32,
    pub register: u32,
    pub scene: Rc<Scene>,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Kind {
    Triangle { t: f64, bary: [f64; 2], front: bool },
    Aabb,
}

/// One primitive the ray meets.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Hit {
    instance: usize,
    geometry: usize,
    primitive: usize,
    opaque: bool,
    kind: Kind,
    /// Nearest entry into an AABB (for the range check against `TCurrent`).
    t_enter: f64,
}

/// The committed hit: which, and at what `t` (a procedural commit's `t` is the shader's).
#[derive(Copy, Clone, Debug)]
struct Committed {
    hit: Hit,
    t: Scalar,
}

/// The state of one `RayQuery` object of a thread.
#[derive(Clone, Debug, Default)]
pub struct RayQuery {
    const_flags: u32,
    traced: Option<Traced>,
}

#[derive(Clone, Debug)]
struct Traced {
    scene: Rc<Scene>,
    flags: u32,
    origin: [f32; 3],
    dir: [f32; 3],
    tmin: f32,
    tmax: f32,
    pending: Vec<Hit>,
    next: usize,
    candidate: Option<Hit>,
    committed: Option<Committed>,
    done: bool,
    /// Which hits exist is the implementation's (module docs): every read is open.
    open: bool,
}

impl Traced {
    fn tcurrent(&self) -> f64 {
        self.committed.map_or(self.tmax as f64, |c| f32::from_bits(c.t.bits as u32) as f64)
    }
}

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn v3(v: [f32; 3]) -> V3 {
    v.map(f64::from)
}

/// The inverse of an affine 3×4 matrix (rows), `None` when singular.
fn inverse(m: &[[f32; 4]; 3]) -> Option<[[f64; 4]; 3]> {
    let a = |r: usize, c: usize| f64::from(m[r][c]);
    let rows = [[a(0, 0), a(0, 1), a(0, 2)], [a(1, 0), a(1, 1), a(1, 2)], [a(2, 0), a(2, 1), a(2, 2)]];
    let det = dot(rows[0], cross(rows[1], rows[2]));
    if det == 0.0 {
        return None;
    }
    // The inverse of the linear part is the transposed cofactors over the determinant.
    let c0 = cross(rows[1], rows[2]);
    let c1 = cross(rows[2], rows[0]);
    let c2 = cross(rows[0], rows[1]);
    let lin = [[c0[0], c1[0], c2[0]], [c0[1], c1[1], c2[1]], [c0[2], c1[2], c2[2]]].map(|r| r.map(|x| x / det));
    let tr = [a(0, 3), a(1, 3), a(2, 3)];
    let mut out = [[0.0; 4]; 3];
    for r in 0..3 {
        out[r][..3].copy_from_slice(&lin[r]);
        out[r][3] = -dot(lin[r], tr);
    }
    Some(out)
}

fn apply(m: &[[f64; 4]; 3], p: V3, w: f64) -> V3 {
    [0, 1, 2].map(|r| m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3] * w)
}

const EPS: f64 = 1e-6;

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= EPS * a.abs().max(b.abs()).max(1.0)
}

/// Every primitive of `scene` the ray meets within `[tmin, tmax]` that the flags keep, in
/// scene order, and whether the hit set is open (module docs).
fn intersect(scene: &Scene, flags: u32, mask: u32, o: V3, d: V3, tmin: f64, tmax: f64) -> (Vec<Hit>, bool) {
    use ray_flag as rf;
    let mut hits = Vec::new();
    let mut open = false;
    for (ii, inst) in scene.instances.iter().enumerate() {
        if inst.mask & mask & 0xff == 0 {
            continue;
        }
        let Some(inv) = inverse(&inst.transform) else { continue };
        let (oo, od) = (apply(&inv, o, 1.0), apply(&inv, d, 0.0));
        for (gi, g) in inst.geometries.iter().enumerate() {
            let mut opaque = g.opaque;
            if inst.flags & instance_flag::FORCE_OPAQUE != 0 {
                opaque = true;
            } else if inst.flags & instance_flag::FORCE_NON_OPAQUE != 0 {
                opaque = false;
            }
            if flags & rf::FORCE_OPAQUE != 0 {
                opaque = true;
            } else if flags & rf::FORCE_NON_OPAQUE != 0 {
                opaque = false;
            }
            if (opaque && flags & rf::CULL_OPAQUE != 0) || (!opaque && flags & rf::CULL_NON_OPAQUE != 0) {
                continue;
            }
            match &g.shape {
                Shape::Triangles(tris) if flags & rf::SKIP_TRIANGLES == 0 => {
                    for (pi, tri) in tris.iter().enumerate() {
                        let [v0, v1, v2] = tri.map(v3);
                        let (e1, e2) = (sub(v1, v0), sub(v2, v0));
                        let p = cross(od, e2);
                        let det = dot(e1, p);
                        if det == 0.0 {
                            continue;
                        }
                        let s = sub(oo, v0);
                        let u = dot(s, p) / det;
                        let q = cross(s, e1);
                        let v = dot(od, q) / det;
                        let t = dot(e2, q) / det;
                        let w = 1.0 - u - v;
                        let inside = u >= 0.0 && v >= 0.0 && w >= 0.0;
                        let in_range = t >= tmin && t <= tmax;
                        // On an edge (or a vertex) of the triangle, not merely on an edge's line.
                        let edge = [u, v, w].iter().all(|x| *x >= -EPS) && [u, v, w].iter().any(|x| x.abs() <= EPS);
                        let boundary = near(t, tmin) || near(t, tmax);
                        if (edge && (in_range || boundary)) || (boundary && (inside || edge)) {
                            open = true;
                        }
                        if !inside || !in_range {
                            continue;
                        }
                        let clockwise = dot(cross(e1, e2), od) < 0.0;
                        let ccw_front = inst.flags & instance_flag::TRIANGLE_FRONT_COUNTERCLOCKWISE != 0;
                        let front = clockwise != ccw_front;
                        if inst.flags & instance_flag::TRIANGLE_CULL_DISABLE == 0
                            && ((front && flags & rf::CULL_FRONT_FACING_TRIANGLES != 0)
                                || (!front && flags & rf::CULL_BACK_FACING_TRIANGLES != 0))
                        {
                            continue;
                        }
                        let kind = Kind::Triangle { t, bary: [u, v], front };
                        hits.push(Hit { instance: ii, geometry: gi, primitive: pi, opaque, kind, t_enter: t });
                    }
                }
                Shape::Aabbs(boxes) if flags & rf::SKIP_PROCEDURAL_PRIMITIVES == 0 => {
                    for (pi, b) in boxes.iter().enumerate() {
                        let (mut t0, mut t1) = (tmin, tmax);
                        let mut graze = false;
                        for k in 0..3 {
                            let (lo, hi) = (f64::from(b[k]), f64::from(b[k + 3]));
                            if od[k] == 0.0 {
                                graze |= near(oo[k], lo) || near(oo[k], hi);
                                if oo[k] < lo || oo[k] > hi {
                                    t0 = f64::INFINITY;
                                }
                                continue;
                            }
                            let (a, c) = ((lo - oo[k]) / od[k], (hi - oo[k]) / od[k]);
                            t0 = t0.max(a.min(c));
                            t1 = t1.min(a.max(c));
                        }
                        if graze || (t0.is_finite() && near(t0, t1)) {
                            open = true;
                        }
                        if t0 <= t1 {
                            hits.push(Hit {
                                instance: ii,
                                geometry: gi,
                                primitive: pi,
                                opaque,
                                kind: Kind::Aabb,
                                t_enter: t0,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // Two triangle hits at (nearly) the same distance: which one is closer is open.
    let ts: Vec<f64> =
        hits.iter().filter_map(|h| matches!(h.kind, Kind::Triangle { .. }).then_some(h.t_enter)).collect();
    for (i, a) in ts.iter().enumerate() {
        if ts[i + 1..].iter().any(|b| near(*a, *b)) {
            open = true;
        }
    }
    (hits, open)
}

/// The candidates in the order this run visits them (module docs).
fn visit_order(hits: &mut [Hit], schedule: Schedule, flat: u32) {
    match schedule {
        Schedule::Forward => {}
        Schedule::Reverse => hits.reverse(),
        Schedule::Shuffled(seed) => {
            let mut rng = crate::fuzzing::mutate::SplitMix64::new(seed ^ (u64::from(flat) << 32) ^ 0x7a7);
            for i in (1..hits.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                hits.swap(i, j);
            }
        }
    }
}

/// Whether `op` is a ray query operation this module runs.
pub fn is_ray_query(op: DxOp) -> bool {
    use DxOp::*;
    matches!(
        op,
        AllocateRayQuery
            | RayQuery_TraceRayInline
            | RayQuery_Proceed
            | RayQuery_Abort
            | RayQuery_CommitNonOpaqueTriangleHit
            | RayQuery_CommitProceduralPrimitiveHit
            | RayQuery_CommittedStatus
            | RayQuery_CandidateType
            | RayQuery_CandidateObjectToWorld3x4
            | RayQuery_CandidateWorldToObject3x4
            | RayQuery_CommittedObjectToWorld3x4
            | RayQuery_CommittedWorldToObject3x4
            | RayQuery_CandidateProceduralPrimitiveNonOpaque
            | RayQuery_CandidateTriangleFrontFace
            | RayQuery_CommittedTriangleFrontFace
            | RayQuery_CandidateTriangleBarycentrics
            | RayQuery_CommittedTriangleBarycentrics
            | RayQuery_RayFlags
            | RayQuery_WorldRayOrigin
            | RayQuery_WorldRayDirection
            | RayQuery_RayTMin
            | RayQuery_CandidateTriangleRayT
            | RayQuery_CommittedRayT
            | RayQuery_CandidateInstanceIndex
            | RayQuery_CandidateInstanceID
            | RayQuery_CandidateGeometryIndex
            | RayQuery_CandidatePrimitiveIndex
            | RayQuery_CandidateObjectRayOrigin
            | RayQuery_CandidateObjectRayDirection
            | RayQuery_CommittedInstanceIndex
            | RayQuery_CommittedInstanceID
            | RayQuery_CommittedGeometryIndex
            | RayQuery_CommittedPrimitiveIndex
            | RayQuery_CommittedObjectRayOrigin
            | RayQuery_CommittedObjectRayDirection
            | RayQuery_CandidateInstanceContributionToHitGroupIndex
            | RayQuery_CommittedInstanceContributionToHitGroupIndex
    )
}

fn f32_exact(x: f32) -> Val {
    Val::exact(u64::from(x.to_bits()))
}

fn f32_any(x: f64) -> Val {
    Val::S(Scalar { bits: u64::from((x as f32).to_bits()), acc: Acc::ANY })
}

fn float_arg(p: &super::Program, t: &Thread, v: untangle::ir::Value, what: &str) -> R<f32> {
    Ok(f32::from_bits(exact(p, t, v, what)? as u32))
}

/// Runs one ray query operation for thread `t`; `None` for those without a result.
pub fn call(ctx: &mut Ctx, t: &mut Thread, c: &OpCall) -> R<Option<Val>> {
    use DxOp::*;
    let p = ctx.p;
    let a = &c.args;
    if c.op == AllocateRayQuery {
        let const_flags = exact(p, t, a[0], "constant ray flags")? as u32;
        t.ray_queries.push(RayQuery { const_flags, traced: None });
        return Ok(Some(Val::exact((t.ray_queries.len() - 1) as u64)));
    }
    let index = exact(p, t, a[0], "ray query handle")? as usize;
    if index >= t.ray_queries.len() {
        return internal(format!("ray query handle {index} never allocated"));
    }
    if c.op == RayQuery_TraceRayInline {
        let scene = match operand(p, t, a[1])? {
            Val::Handle(Handle::Reg { class: ResourceClass::Srv, space, register }) => {
                match ctx.res.scenes.iter().find(|s| s.space == space && s.register == register) {
                    Some(s) => s.scene.clone(),
                    None => {
                        return indeterminate(format!("TraceRayInline on t{register}, space{space}: no scene bound"))
                    }
                }
            }
            Val::Handle(h) => return internal(format!("TraceRayInline through {h:?}: not modelled")),
            _ => return indeterminate("TraceRayInline through an undefined handle"),
        };
        let flags = exact(p, t, a[2], "ray flags")? as u32 | t.ray_queries[index].const_flags;
        let mask = exact(p, t, a[3], "instance inclusion mask")? as u32;
        let f = |k: usize| float_arg(p, t, a[k], "ray");
        let origin = [f(4)?, f(5)?, f(6)?];
        let tmin = f(7)?;
        let dir = [f(8)?, f(9)?, f(10)?];
        let tmax = f(11)?;
        let (mut pending, open) = intersect(&scene, flags, mask, v3(origin), v3(dir), f64::from(tmin), f64::from(tmax));
        visit_order(&mut pending, ctx.schedule, t.flat);
        let q = &mut t.ray_queries[index];
        q.traced = Some(Traced {
            scene,
            flags,
            origin,
            dir,
            tmin,
            tmax,
            pending,
            next: 0,
            candidate: None,
            committed: None,
            done: false,
            open,
        });
        return Ok(None);
    }
    let commit_t = if c.op == RayQuery_CommitProceduralPrimitiveHit { Some(scalar(p, t, a[1])?) } else { None };
    let Some(q) = t.ray_queries[index].traced.as_mut() else {
        return indeterminate(format!("{} before TraceRayInline", c.op.name()));
    };
    let accept_first = q.flags & ray_flag::ACCEPT_FIRST_HIT_AND_END_SEARCH != 0;
    match c.op {
        RayQuery_Proceed => {
            if q.open {
                return Ok(Some(Val::undefined()));
            }
            q.candidate = None;
            while !q.done && q.next < q.pending.len() {
                let h = q.pending[q.next];
                q.next += 1;
                if h.t_enter > q.tcurrent() {
                    continue;
                }
                match h.kind {
                    Kind::Triangle { t: ht, .. } if h.opaque => {
                        q.committed = Some(Committed {
                            hit: h,
                            t: Scalar { bits: u64::from((ht as f32).to_bits()), acc: Acc::ANY },
                        });
                        q.done = accept_first;
                    }
                    _ => {
                        q.candidate = Some(h);
                        return Ok(Some(Val::bool(true)));
                    }
                }
            }
            q.done = true;
            Ok(Some(Val::bool(false)))
        }
        RayQuery_Abort => {
            q.done = true;
            q.candidate = None;
            Ok(None)
        }
        RayQuery_CommitNonOpaqueTriangleHit => match q.candidate {
            Some(h @ Hit { kind: Kind::Triangle { t: ht, .. }, .. }) => {
                q.committed =
                    Some(Committed { hit: h, t: Scalar { bits: u64::from((ht as f32).to_bits()), acc: Acc::ANY } });
                q.done |= accept_first;
                Ok(None)
            }
            _ => indeterminate("CommitNonOpaqueTriangleHit without a triangle candidate"),
        },
        RayQuery_CommitProceduralPrimitiveHit => {
            let t_hit = commit_t.expect("read above");
            let x = f64::from(f32::from_bits(t_hit.bits as u32));
            match q.candidate {
                Some(h @ Hit { kind: Kind::Aabb, .. }) if t_hit.acc.is_exact() => {
                    if !(x >= f64::from(q.tmin) && x <= q.tcurrent()) {
                        return indeterminate("CommitProceduralPrimitiveHit outside [TMin, TCurrent]");
                    }
                    q.committed = Some(Committed { hit: h, t: t_hit });
                    q.done |= accept_first;
                    Ok(None)
                }
                Some(Hit { kind: Kind::Aabb, .. }) => indeterminate("a procedural hit's t D3D leaves undefined"),
                _ => indeterminate("CommitProceduralPrimitiveHit without a procedural candidate"),
            }
        }
        _ => Ok(Some(state(p, t, c, index)?)),
    }
}

/// The state reads (`RayQuery_Committed*`, `RayQuery_Candidate*`, the ray's own values).
fn state(p: &super::Program, t: &Thread, c: &OpCall, index: usize) -> R<Val> {
    use DxOp::*;
    let q = t.ray_queries[index].traced.as_ref().expect("checked by the caller");
    let a = &c.args;
    let comp = |k: usize| -> R<usize> { Ok(exact(p, t, a[k], "component")? as usize % 3) };
    // Ray values the shader gave: exact even when the hits are open.
    match c.op {
        RayQuery_RayFlags => return Ok(Val::exact(u64::from(q.flags))),
        RayQuery_WorldRayOrigin => return Ok(f32_exact(q.origin[comp(1)?])),
        RayQuery_WorldRayDirection => return Ok(f32_exact(q.dir[comp(1)?])),
        RayQuery_RayTMin => return Ok(f32_exact(q.tmin)),
        _ => {}
    }
    if q.open {
        return Ok(Val::undefined());
    }
    let committed_op = matches!(
        c.op,
        RayQuery_CommittedStatus
            | RayQuery_CommittedObjectToWorld3x4
            | RayQuery_CommittedWorldToObject3x4
            | RayQuery_CommittedTriangleFrontFace
            | RayQuery_CommittedTriangleBarycentrics
            | RayQuery_CommittedRayT
            | RayQuery_CommittedInstanceIndex
            | RayQuery_CommittedInstanceID
            | RayQuery_CommittedGeometryIndex
            | RayQuery_CommittedPrimitiveIndex
            | RayQuery_CommittedObjectRayOrigin
            | RayQuery_CommittedObjectRayDirection
            | RayQuery_CommittedInstanceContributionToHitGroupIndex
    );
    match c.op {
        RayQuery_CommittedStatus => {
            let status = match q.committed {
                None => 0,
                Some(Committed { hit: Hit { kind: Kind::Triangle { .. }, .. }, .. }) => 1,
                Some(_) => 2,
            };
            return Ok(Val::exact(status));
        }
        RayQuery_CommittedRayT => {
            return Ok(match q.committed {
                None => f32_exact(q.tmax),
                Some(cm) => Val::S(cm.t),
            })
        }
        _ => {}
    }
    // Reads of a hit that does not exist (nothing committed, no candidate) are undefined.
    let hit = if committed_op { q.committed.map(|c| c.hit) } else { q.candidate };
    let Some(h) = hit else { return Ok(Val::undefined()) };
    let inst = &q.scene.instances[h.instance];
    let identity = inst.transform == Instance::IDENTITY;
    let object_ray = |dir: bool, k: usize| -> Val {
        let v = if dir { q.dir[k] } else { q.origin[k] };
        if identity {
            return f32_exact(v);
        }
        let inv = inverse(&inst.transform).expect("a hit has an invertible transform");
        let r = if dir { apply(&inv, v3(q.dir), 0.0) } else { apply(&inv, v3(q.origin), 1.0) };
        f32_any(r[k])
    };
    let tri = match h.kind {
        Kind::Triangle { t, bary, front } => Some((t, bary, front)),
        Kind::Aabb => None,
    };
    Ok(match c.op {
        RayQuery_CandidateType => Val::exact(u64::from(tri.is_none())),
        RayQuery_CandidateProceduralPrimitiveNonOpaque => Val::bool(!h.opaque),
        RayQuery_CandidateTriangleFrontFace | RayQuery_CommittedTriangleFrontFace => match tri {
            Some((_, _, front)) => Val::bool(front),
            None => Val::undefined(),
        },
        RayQuery_CandidateTriangleBarycentrics | RayQuery_CommittedTriangleBarycentrics => match tri {
            Some((_, bary, _)) => {
                let k = exact(p, t, a[1], "component")? as usize;
                if k < 2 {
                    f32_any(bary[k])
                } else {
                    Val::undefined()
                }
            }
            None => Val::undefined(),
        },
        RayQuery_CandidateTriangleRayT => match tri {
            Some((ht, _, _)) => f32_any(ht),
            None => Val::undefined(),
        },
        RayQuery_CandidateInstanceIndex | RayQuery_CommittedInstanceIndex => Val::exact(h.instance as u64),
        RayQuery_CandidateInstanceID | RayQuery_CommittedInstanceID => Val::exact(u64::from(inst.id & 0xff_ffff)),
        RayQuery_CandidateGeometryIndex | RayQuery_CommittedGeometryIndex => Val::exact(h.geometry as u64),
        RayQuery_CandidatePrimitiveIndex | RayQuery_CommittedPrimitiveIndex => Val::exact(h.primitive as u64),
        RayQuery_CandidateInstanceContributionToHitGroupIndex
        | RayQuery_CommittedInstanceContributionToHitGroupIndex => Val::exact(u64::from(inst.contribution & 0xff_ffff)),
        RayQuery_CandidateObjectRayOrigin | RayQuery_CommittedObjectRayOrigin => object_ray(false, comp(1)?),
        RayQuery_CandidateObjectRayDirection | RayQuery_CommittedObjectRayDirection => object_ray(true, comp(1)?),
        RayQuery_CandidateObjectToWorld3x4
        | RayQuery_CommittedObjectToWorld3x4
        | RayQuery_CandidateWorldToObject3x4
        | RayQuery_CommittedWorldToObject3x4 => {
            let row = exact(p, t, a[1], "matrix row")? as usize;
            let col = exact(p, t, a[2], "matrix column")? as usize;
            if row >= 3 || col >= 4 {
                return Ok(Val::undefined());
            }
            let to_world = matches!(c.op, RayQuery_CandidateObjectToWorld3x4 | RayQuery_CommittedObjectToWorld3x4);
            if to_world || identity {
                f32_exact(inst.transform[row][col])
            } else {
                f32_any(inverse(&inst.transform).expect("invertible")[row][col])
            }
        }
        other => return internal(format!("dx.op {} is not a ray query state read", other.name())),
    })
}
