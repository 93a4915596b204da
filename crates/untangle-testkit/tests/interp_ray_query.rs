//! Inline ray tracing in the reference interpreter (issue 33, item 7), against the
//! interpreter's own scene model. No device here runs ray queries (lavapipe has none, the
//! H200 driver exposes none), so the oracle is hand-computed: a few triangles and a box on
//! the ray's path, the DXR traversal rules worked out on paper. The shader also translates
//! to valid SPIR-V.
//!
//! The ray starts at the origin along +Z, `TMin` 0.5, `TMax` 100. The scene:
//!
//! | instance | mask | ID | contribution | geometry | what | `t` |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | 0 | 0x01 | 10 | 3 | 0 | opaque triangle, clockwise (front) | 5 |
//! | 0 | | | | 1 | non-opaque triangle, clockwise (front) | 3 |
//! | 1 (translated to z = 10) | 0x02 | 20 | 7 | 0 | non-opaque box ±1 | enters at 9 |
//! | 2 | 0x04 | 30 | 0 | 0 | opaque triangle, counter-clockwise (back) | 2 |
//!
//! The ray meets every triangle at barycentrics (0.2, 0.2). The shader commits every
//! non-opaque triangle candidate and every box at `t` = 9, and counts the candidates.

use std::rc::Rc;
use untangle::dxil::ResourceClass;
use untangle::{translate, Options};
use untangle_testkit::difftest::reference;
use untangle_testkit::interp::memory::Mem;
use untangle_testkit::interp::ray_query::{ray_flag as rf, Geometry, Instance, Scene, SceneBinding, Shape};
use untangle_testkit::interp::{Config, Program, ResKind, ResourceData, Resources, RunError, Schedule};

/// Thread `i` reads ray flags and instance mask from words `2i`, `2i + 1` of u0 and writes
/// 12 words from byte `64 + 48i`: committed status, InstanceID, GeometryIndex,
/// PrimitiveIndex, RayT, barycentrics x and y, front face, contribution, InstanceIndex,
/// candidates seen, CandidateType-free padding 0.
const SHADER: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { i8* }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%struct.RWByteAddressBuffer = type { i32 }
%struct.RaytracingAccelerationStructure = type { i32 }
define void @main() {
entry:
  %as = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %id, 3
  %ld = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %buf, i32 %a, i32 undef, i8 3, i32 4)
  %flags = extractvalue %dx.types.ResRet.i32 %ld, 0
  %mask = extractvalue %dx.types.ResRet.i32 %ld, 1
  %q = call i32 @dx.op.allocateRayQuery(i32 178, i32 0)
  call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %q, %dx.types.Handle %as, i32 %flags, i32 %mask, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 5.000000e-01, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02)
  br label %loop
loop:
  %visits = phi i32 [ 0, %entry ], [ %v1, %latch ]
  %more = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %q)
  br i1 %more, label %body, label %done
body:
  %v1 = add i32 %visits, 1
  %ty = call i32 @dx.op.rayQuery_StateScalar.i32(i32 185, i32 %q)
  %tri = icmp eq i32 %ty, 0
  br i1 %tri, label %commit_tri, label %commit_proc
commit_tri:
  call void @dx.op.rayQuery_CommitNonOpaqueTriangleHit(i32 182, i32 %q)
  br label %latch
commit_proc:
  call void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32 183, i32 %q, float 9.000000e+00)
  br label %latch
latch:
  br label %loop
done:
  %status = call i32 @dx.op.rayQuery_StateScalar.i32(i32 184, i32 %q)
  %iid = call i32 @dx.op.rayQuery_StateScalar.i32(i32 208, i32 %q)
  %geo = call i32 @dx.op.rayQuery_StateScalar.i32(i32 209, i32 %q)
  %prim = call i32 @dx.op.rayQuery_StateScalar.i32(i32 210, i32 %q)
  %t = call float @dx.op.rayQuery_StateScalar.f32(i32 200, i32 %q)
  %bx = call float @dx.op.rayQuery_StateVector.f32(i32 194, i32 %q, i8 0)
  %by = call float @dx.op.rayQuery_StateVector.f32(i32 194, i32 %q, i8 1)
  %ff = call i1 @dx.op.rayQuery_StateScalar.i1(i32 192, i32 %q)
  %ffi = zext i1 %ff to i32
  %contrib = call i32 @dx.op.rayQuery_StateScalar.i32(i32 215, i32 %q)
  %idx = call i32 @dx.op.rayQuery_StateScalar.i32(i32 207, i32 %q)
  %o = mul i32 %id, 48
  %o0 = add i32 %o, 64
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %buf, i32 %o0, i32 undef, i32 %status, i32 %iid, i32 %geo, i32 %prim, i8 15, i32 4)
  %o1 = add i32 %o, 80
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 %o1, i32 undef, float %t, float %bx, float %by, float undef, i8 7, i32 4)
  %o2 = add i32 %o, 92
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %buf, i32 %o2, i32 undef, i32 %ffi, i32 %contrib, i32 %idx, i32 %visits, i8 15, i32 4)
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
declare i32 @dx.op.allocateRayQuery(i32, i32)
declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)
declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)
declare void @dx.op.rayQuery_CommitNonOpaqueTriangleHit(i32, i32)
declare void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32, i32, float)
declare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)
declare float @dx.op.rayQuery_StateScalar.f32(i32, i32)
declare i1 @dx.op.rayQuery_StateScalar.i1(i32, i32)
declare float @dx.op.rayQuery_StateVector.f32(i32, i32, i8)
!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!7}
!0 = !{i32 1, i32 5}
!1 = !{!"cs", i32 6, i32 5}
!2 = !{!3, !5, null, null}
!3 = !{!4}
!4 = !{i32 0, %struct.RaytracingAccelerationStructure* undef, !"scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!5 = !{!6}
!6 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!7 = !{void ()* @main, !"main", null, !2, !8}
!8 = !{i32 4, !9}
!9 = !{i32 5, i32 1, i32 1}
"#;

/// A triangle in the plane `z` around the ray (which meets it at barycentrics 0.2, 0.2),
/// clockwise seen from the origin, or counter-clockwise.
fn triangle(z: f32, clockwise: bool) -> [[f32; 3]; 3] {
    let (up, right) = ([-1.0, 4.0, z], [4.0, -1.0, z]);
    if clockwise {
        [[-1.0, -1.0, z], up, right]
    } else {
        [[-1.0, -1.0, z], right, up]
    }
}

fn scene(first: [[f32; 3]; 3]) -> Scene {
    let inst = |mask, id, contribution, transform, geometries| Instance {
        transform,
        id,
        mask,
        contribution,
        flags: 0,
        geometries,
    };
    let tris = |opaque, t: [[f32; 3]; 3]| Geometry { opaque, shape: Shape::Triangles(vec![t]) };
    let mut moved = Instance::IDENTITY;
    moved[2][3] = 10.0;
    Scene {
        instances: vec![
            inst(0x01, 10, 3, Instance::IDENTITY, vec![tris(true, first), tris(false, triangle(3.0, true))]),
            inst(
                0x02,
                20,
                7,
                moved,
                vec![Geometry { opaque: false, shape: Shape::Aabbs(vec![[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]]) }],
            ),
            inst(0x04, 30, 0, Instance::IDENTITY, vec![tris(true, triangle(2.0, false))]),
        ],
    }
}

/// (ray flags, instance mask) of the five threads.
const RAYS: [(u32, u32); 5] = [
    (0, 0xff),
    (rf::CULL_BACK_FACING_TRIANGLES, 0xff),
    (rf::FORCE_OPAQUE | rf::CULL_BACK_FACING_TRIANGLES, 0x02),
    (rf::ACCEPT_FIRST_HIT_AND_END_SEARCH | rf::CULL_NON_OPAQUE, 0x01),
    (0, 0x08),
];

/// What a thread writes; `None`: D3D leaves it open (not compared).
struct Want {
    status: u32,
    ids: Option<[u32; 3]>,
    t: f32,
    bary: Option<[f32; 2]>,
    front: Option<u32>,
    contribution_index: Option<[u32; 2]>,
    visits: Option<u32>,
}

/// u0 holding the rays, and the scene at t0.
fn resources(scene: Scene) -> Resources {
    let mut words: Vec<u32> = RAYS.iter().flat_map(|&(f, m)| [f, m]).collect();
    words.resize(16 + 12 * RAYS.len(), 0);
    Resources {
        list: vec![ResourceData {
            class: ResourceClass::Uav,
            space: 0,
            register: 0,
            kind: ResKind::Raw,
            mem: Mem::from_bytes(words.iter().flat_map(|w| w.to_le_bytes()).collect()),
            counter: None,
        }],
        scenes: vec![SceneBinding { space: 0, register: 0, scene: Rc::new(scene) }],
    }
}

fn run(scene: Scene) -> Result<Vec<u8>, RunError> {
    let m = untangle::front::load_bytes(SHADER.as_bytes().to_vec(), "ray_query.ll").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    let out = reference(&p, &resources(scene), 32, [1, 1, 1])?;
    let u = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
    // Words D3D leaves open read as a marker no test value uses.
    Ok((0..u.mem.len() as i64 / 4)
        .flat_map(|w| {
            let v = u.mem.read(4 * w, 4).expect("in bounds");
            let x = if v.acc.is_any() { 0xdead_beef } else { v.bits as u32 };
            x.to_le_bytes()
        })
        .collect())
}

fn word(bytes: &[u8], w: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * w..4 * w + 4].try_into().unwrap())
}

/// The interpreter's traversal against the hand-worked traversal of each ray.
#[test]
fn ray_queries_follow_the_dxr_traversal_rules() {
    let tri = |ids, t, front, ci, visits| Want {
        status: 1,
        ids: Some(ids),
        t,
        bary: Some([0.2, 0.2]),
        front: Some(front),
        contribution_index: Some(ci),
        visits,
    };
    let wants = [
        // Everything: the back-facing opaque triangle at 2 is the closest; how many
        // candidates the shader sees depends on the order (forward 1, reverse 0).
        tri([30, 0, 0], 2.0, 0, [0, 2], None),
        // Back faces culled: the non-opaque triangle at 3, committed by the shader.
        tri([10, 1, 0], 3.0, 1, [3, 0], None),
        // Only the box (procedural candidates are shown whatever their opacity).
        Want {
            status: 2,
            ids: Some([20, 0, 0]),
            t: 9.0,
            bary: None,
            front: None,
            contribution_index: Some([7, 1]),
            visits: Some(1),
        },
        // Accept the first hit, non-opaque culled: the opaque triangle at 5, no candidate.
        tri([10, 0, 0], 5.0, 1, [3, 0], Some(0)),
        // No instance in the mask: nothing committed, CommittedRayT is TMax.
        Want { status: 0, ids: None, t: 100.0, bary: None, front: None, contribution_index: None, visits: Some(0) },
    ];
    let out = run(scene(triangle(5.0, true))).expect("runs");
    const OPEN: u32 = 0xdead_beef;
    for (i, want) in wants.iter().enumerate() {
        let w = |k: usize| word(&out, 16 + 12 * i + k);
        let what = format!("ray {i} {:?}", RAYS[i]);
        assert_eq!(w(0), want.status, "{what}: status");
        if let Some(ids) = want.ids {
            assert_eq!([w(1), w(2), w(3)], ids, "{what}: InstanceID, GeometryIndex, PrimitiveIndex");
        }
        // A triangle's t is computed, open to precision (its value: the next test).
        if want.status == 1 {
            assert_eq!(w(4), OPEN, "{what}: a triangle's RayT is open to precision");
        } else {
            assert_eq!(f32::from_bits(w(4)), want.t, "{what}: RayT");
        }
        match want.bary {
            Some(_) => assert_eq!(w(5), OPEN, "{what}: barycentrics are open to precision"),
            None => assert_eq!([w(5), w(6)], [OPEN, OPEN], "{what}: no triangle, no barycentrics"),
        }
        if let Some(f) = want.front {
            assert_eq!(w(7), f, "{what}: front face");
        }
        if let Some([c, idx]) = want.contribution_index {
            assert_eq!([w(8), w(9)], [c, idx], "{what}: contribution, InstanceIndex");
        }
        match want.visits {
            Some(v) => assert_eq!(w(10), v, "{what}: candidates"),
            None => assert_eq!(w(10), OPEN, "{what}: the candidate count depends on the order"),
        }
    }
}

/// The values behind the precision-open words (t and barycentrics of triangle hits), read
/// from a single run: the hand-computed intersection.
#[test]
fn triangle_hits_have_the_hand_computed_t_and_barycentrics() {
    let m = untangle::front::load_bytes(SHADER.as_bytes().to_vec(), "ray_query.ll").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    let mut res = resources(scene(triangle(5.0, true)));
    untangle_testkit::interp::run(&p, &mut res, &Config { schedule: Schedule::Forward, ..Config::default() })
        .expect("runs");
    let u = res.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
    let f = |w: usize| f32::from_bits(u.mem.read(4 * w as i64, 4).expect("in bounds").bits as u32);
    for (i, t) in [(0, 2.0f32), (1, 3.0), (3, 5.0)] {
        let base = 16 + 12 * i;
        assert_eq!(f(base + 4), t, "ray {i}: t");
        for k in [5, 6] {
            assert!((f(base + k) - 0.2).abs() < 1e-6, "ray {i}: barycentric {} = {}", k - 5, f(base + k));
        }
    }
}

/// A ray through a triangle's edge: whether it hits is the implementation's, so the query
/// is open and the loop on `Proceed` makes the run indeterminate.
#[test]
fn a_ray_through_an_edge_is_open() {
    let edge = [[0.0, -1.0, 5.0], [0.0, 4.0, 5.0], [4.0, -1.0, 5.0]];
    match run(scene(edge)) {
        Err(RunError::Indeterminate(why)) => assert!(why.starts_with("branch condition"), "{why}"),
        other => panic!("expected an indeterminate run, got {:?}", other.map(|_| ())),
    }
}

/// The shader's translation is valid SPIR-V.
#[test]
fn ray_query_shader_translates_to_valid_spirv() {
    let t = translate(SHADER.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("translates: {e}"));
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "ray query shader");
}

/// The project's own `corpus/cs_ray_query.ll` (the shader `gpu_ray_tracing.rs` runs on a
/// device with `VK_KHR_ray_query`) over the same scene: the interpreter gives that test's
/// hand-computed results (status, instance, primitive, T; -1 and ~0 where nothing is
/// committed), so the two oracles agree, and the shader runs without an unsupported
/// operation.
#[test]
fn the_gpu_ray_query_case_gives_the_same_results_in_the_interpreter() {
    const CS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_ray_query.ll");
    let m = untangle::front::load_bytes(std::fs::read(CS).expect("reads"), "cs_ray_query.ll").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    let rays: [[f32; 2]; 5] = [[0.25, 0.25], [5.0, 5.0], [2.5, 0.5], [0.75, 0.75], [0.25, 2.25]];
    let expected: [(u32, u32, u32, f32); 5] =
        [(1, 0, 0, 1.0), (0, !0, !0, -1.0), (2, 1, 0, 2.0), (0, !0, !0, -1.0), (1, 0, 1, 0.5)];
    let buffer = |class, register, bytes: Vec<u8>| ResourceData {
        class,
        space: 0,
        register,
        kind: ResKind::Raw,
        mem: Mem::from_bytes(bytes),
        counter: None,
    };
    let scene = Scene {
        instances: vec![
            Instance {
                transform: Instance::IDENTITY,
                id: 0,
                mask: 0xff,
                contribution: 0,
                flags: 0,
                geometries: vec![Geometry {
                    opaque: true,
                    shape: Shape::Triangles(vec![
                        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                        [[0.0, 2.0, 0.5], [1.0, 2.0, 0.5], [0.0, 3.0, 0.5]],
                    ]),
                }],
            },
            Instance {
                transform: Instance::IDENTITY,
                id: 0,
                mask: 0xff,
                contribution: 0,
                flags: 0,
                geometries: vec![Geometry { opaque: true, shape: Shape::Aabbs(vec![[2.0, 0.0, -1.0, 3.0, 1.0, 1.0]]) }],
            },
        ],
    };
    let res = Resources {
        list: vec![
            buffer(ResourceClass::Srv, 1, rays.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()),
            buffer(ResourceClass::Uav, 0, vec![0; 16 * rays.len()]),
        ],
        scenes: vec![SceneBinding { space: 0, register: 0, scene: Rc::new(scene) }],
    };
    let out = reference(&p, &res, 32, [rays.len() as u32, 1, 1]).expect("runs");
    let u = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
    for (i, &(status, instance, primitive, t)) in expected.iter().enumerate() {
        let w = |k: usize| u.mem.read(4 * (4 * i + k) as i64, 4).expect("in bounds");
        assert_eq!([w(0), w(1), w(2)].map(|v| v.acc.is_exact()), [true; 3], "ray {i}: ids exact");
        assert_eq!([w(0).bits, w(1).bits, w(2).bits].map(|b| b as u32), [status, instance, primitive], "ray {i}");
        // A triangle's T is open to precision; the interpreter's value is the exact one.
        assert_eq!(f32::from_bits(w(3).bits as u32), t, "ray {i}: T");
        assert_eq!(w(3).acc.is_exact(), status != 1, "ray {i}: T exact unless a triangle's");
    }
}
