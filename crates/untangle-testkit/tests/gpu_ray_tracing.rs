//! Ray tracing on a device (`untangle_testkit::vulkan::ray_tracing`): the corpus library
//! `rt.default` (raygen tracing from `RayPositions`, miss and closest hit adding their
//! local root constants to the payload, any-hit shaders that count and `IgnoreHit`, an
//! intersection shader that reports a hit with attribute 1.0) translated through a global
//! root signature (root SRVs and UAV by address, the ray flags as a root constant) and a
//! local one (two constants in the shader record), run over a triangle and a box:
//!
//! - opaque rays (`RAY_FLAG_FORCE_OPAQUE`): the triangle's and the box's closest hits add
//!   their hit group's record, missing rays the miss record;
//! - non-opaque: the triangle's any-hit adds 1 to `x` and ignores the hit, the box's adds
//!   the reported attribute to `y` and ignores it, so every ray ends in the miss shader;
//! - a changed record is caught (the expectation check can fail);
//! - an inline ray query in a compute shader (`corpus/cs_ray_query.ll`) reports the
//!   committed status, instance, primitive and T of triangle and box hits (devices
//!   without `VK_KHR_ray_query` skip).
//!
//! - shader execution reordering (`corpus/lib_ser_gpu.ll`, SM 6.9): a raygen shader traces
//!   into hit objects, reorders on them and invokes them; hit and miss shaders write
//!   distinguishable values per pixel (devices without `VK_NV_ray_tracing_invocation_reorder`
//!   skip).
//!
//! - NVAPI shader execution reordering (`tests/nvapi/lib_nvapi_ser.ll`): the same through
//!   `NvTraceRayHitObject`, `NvReorderThread` and `NvInvokeHitObject`'s records on the magic
//!   UAV, with the instance's `InstanceID()` (devices without
//!   `VK_NV_ray_tracing_invocation_reorder` skip).
//!
//! Devices without `VK_KHR_ray_tracing_pipeline` (lavapipe) skip, saying so.

use std::path::PathBuf;
use untangle::rootsig::layout::PushKind;
use untangle::rootsig::{parse_hlsl, BindingModel, LayoutOptions, Version};
use untangle::{Options, RootSignatureBinding, Shader};
use untangle_testkit::vulkan::ray_tracing::{Address, RtCase, RtDevice, RtHitGroup, RtInstance, RtOpen};

const LIB: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton/rt.default.lib_6_3.dxil");
const GLOBAL: &str = "SRV(t0), SRV(t1), UAV(u0), RootConstants(num32BitConstants=1, b0)";
const LOCAL: &str = "RootConstants(num32BitConstants=1, b0, space=1), RootConstants(num32BitConstants=1, b1, space=1)";
/// Ray origins (x, y) at z = 1, traced towards -z: the triangle, nothing, the box, nothing.
const RAYS: [[f32; 2]; 4] = [[0.25, 0.25], [5.0, 5.0], [2.5, 0.5], [0.75, 0.75]];

fn record(a: f32, b: f32) -> Vec<u8> {
    [a.to_le_bytes(), b.to_le_bytes()].concat()
}

/// The case with ray flags `flags` and records: miss, triangle hit group, box hit group.
fn case(flags: u32, opaque_geometry: bool, records: [(f32, f32); 3]) -> RtCase {
    let shader = Shader::parse(&std::fs::read(LIB).unwrap()).unwrap();
    let options = Options {
        root_signature: Some(RootSignatureBinding {
            signature: parse_hlsl(GLOBAL, Version::V1_1).unwrap(),
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        ..Default::default()
    };
    let local = parse_hlsl(LOCAL, Version::V1_1).unwrap();
    let stage = |s: untangle::ShaderKind| {
        use ash::vk::ShaderStageFlags as F;
        match s {
            untangle::ShaderKind::RayGeneration => F::RAYGEN_KHR,
            untangle::ShaderKind::Miss => F::MISS_KHR,
            untangle::ShaderKind::ClosestHit => F::CLOSEST_HIT_KHR,
            untangle::ShaderKind::AnyHit => F::ANY_HIT_KHR,
            untangle::ShaderKind::Intersection => F::INTERSECTION_KHR,
            _ => F::CALLABLE_KHR,
        }
    };
    let mut modules = Vec::new();
    let mut push = None;
    for name in shader.entry_names() {
        let t = shader.translate_entry_with_local_root_signature(&name, &options, &local).unwrap();
        if name == "RayGen" {
            push = t.layout.clone();
        }
        modules.push((name, t.words, stage(t.stage)));
    }
    let layout = push.expect("RayGen translated");
    let members = &layout.layout.push_constants.members;
    let mut push_constants = vec![0u8; layout.layout.push_constants.size as usize];
    let mut push_addresses = Vec::new();
    for m in members {
        match m.kind {
            PushKind::RootDescriptorAddress { register: 0, class: untangle::dxil::ResourceClass::Srv, .. } => {
                push_addresses.push((m.offset, Address::Tlas))
            }
            PushKind::RootDescriptorAddress { register: 1, .. } => push_addresses.push((m.offset, Address::Buffer(0))),
            PushKind::RootDescriptorAddress { .. } => push_addresses.push((m.offset, Address::Buffer(1))),
            PushKind::RootConstants { .. } => {
                push_constants[m.offset as usize..m.offset as usize + 4].copy_from_slice(&flags.to_le_bytes())
            }
            PushKind::TableOffset { .. } => panic!("no tables in {GLOBAL}"),
        }
    }
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let instance = |aabbs: bool, sbt_offset: u32| RtInstance {
        aabbs,
        transform: identity,
        custom_index: sbt_offset,
        mask: 0xff,
        sbt_offset,
        flags: 0,
    };
    let [(m0, m1), (t0, t1), (b0, b1)] = records;
    RtCase {
        name: format!("rt.default flags {flags:#x}"),
        modules,
        raygen: ("RayGen".into(), Vec::new()),
        misses: vec![("RayMiss".into(), record(m0, m1))],
        hit_groups: vec![
            RtHitGroup {
                closest: Some("RayClosest".into()),
                any: Some("RayAnyTriangle".into()),
                intersection: None,
                record: record(t0, t1),
            },
            RtHitGroup {
                closest: Some("RayClosest".into()),
                any: Some("RayAnyAABB".into()),
                intersection: Some("RayIntersect".into()),
                record: record(b0, b1),
            },
        ],
        callables: Vec::new(),
        triangles: vec![[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
        aabbs: vec![[2.0, 0.0, -1.0, 3.0, 1.0, 1.0]],
        geometry_opaque: opaque_geometry,
        instances: vec![instance(false, 0), instance(true, 1)],
        push_constants,
        push_addresses,
        buffers: vec![RAYS.iter().flatten().flat_map(|f| f.to_le_bytes()).collect(), vec![0u8; 8 * RAYS.len()]],
        launch: [RAYS.len() as u32, 1],
        max_recursion: 1,
        timeout: std::time::Duration::from_secs(10),
        compute: None,
    }
}

fn payloads(bytes: &[u8]) -> Vec<[f32; 2]> {
    bytes
        .chunks_exact(8)
        .map(|c| [f32::from_le_bytes(c[0..4].try_into().unwrap()), f32::from_le_bytes(c[4..8].try_into().unwrap())])
        .collect()
}

#[test]
fn rt_default_runs_closest_hit_miss_any_hit_intersection_and_local_constants() {
    if !PathBuf::from(LIB).exists() {
        eprintln!("{LIB} not found: skipping");
        return;
    }
    // Built first, so translation and argument placement are checked on any machine.
    let records = [(1000.0, 2000.0), (10.0, 20.0), (30.0, 40.0)];
    let opaque = case(1, false, records);
    let any_hit = case(0, false, records);
    let wrong_record = case(1, false, [(999.0, 2000.0), (10.0, 20.0), (30.0, 40.0)]);
    assert_eq!(opaque.modules.len(), 6);
    assert_eq!(opaque.push_addresses.len(), 3, "t0, t1 and u0 by address");
    assert_ne!(opaque.push_constants, any_hit.push_constants, "the ray flags are a root constant");
    let device = match RtDevice::open() {
        Ok(RtOpen::Ready(d)) => d,
        Ok(RtOpen::Unsupported(why)) => {
            eprintln!("ray tracing skipped: {why} (lavapipe has no ray tracing; run on a device with VK_KHR_ray_tracing_pipeline)");
            return;
        }
        Err(e) => {
            eprintln!("ray tracing skipped: no Vulkan device ({e})");
            return;
        }
    };
    eprintln!("ray tracing on {}", device.name);
    // Opaque: closest hits and misses add their records.
    let out = device.run(&opaque).unwrap();
    assert_eq!(payloads(&out[1]), [[10.0, 20.0], [1000.0, 2000.0], [30.0, 40.0], [1000.0, 2000.0]], "opaque rays");
    // Non-opaque: any-hit shaders count and ignore, every ray misses.
    let out = device.run(&any_hit).unwrap();
    assert_eq!(payloads(&out[1]), [[1001.0, 2000.0], [1000.0, 2000.0], [1000.0, 2001.0], [1000.0, 2000.0]], "any hit");
    // A wrong record gives a different answer: the check can fail.
    let wrong = device.run(&wrong_record).unwrap();
    assert_ne!(payloads(&wrong[1]), [[10.0, 20.0], [1000.0, 2000.0], [30.0, 40.0], [1000.0, 2000.0]]);
}

/// A pipeline module: entry name, SPIR-V words, stage.
type RtModule = (String, Vec<u32>, ash::vk::ShaderStageFlags);

/// The pipeline's modules: the entries `stages` of the library `text` (built into the test
/// binary, which runs on the device machine without the repository), translated under the
/// root signature `SRV(t0), UAV(u0)` with both bound by address (push constants), each
/// validated; and where `Gen`'s push constants carry the structure's and the buffer's
/// addresses.
fn root_address_entries(
    text: &[u8],
    stages: &[(&str, ash::vk::ShaderStageFlags)],
) -> (Vec<RtModule>, Vec<(u32, Address)>) {
    root_address_entries_with(text, stages, "SRV(t0), UAV(u0)", untangle::VendorFeatures::default())
}

/// [`root_address_entries`] with root signature `signature` (its root SRV and UAV first;
/// descriptor tables after them are left unset) and the vendor intrinsics `vendor`.
fn root_address_entries_with(
    text: &[u8],
    stages: &[(&str, ash::vk::ShaderStageFlags)],
    signature: &str,
    vendor: untangle::VendorFeatures,
) -> (Vec<RtModule>, Vec<(u32, Address)>) {
    let shader = Shader::parse(text).unwrap();
    let signature = parse_hlsl(signature, Version::V1_1).unwrap();
    let options = Options {
        root_signature: Some(RootSignatureBinding {
            signature,
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        vendor,
        ..Default::default()
    };
    let mut modules = Vec::new();
    let mut push_addresses = Vec::new();
    for &(name, stage) in stages {
        let t = shader.translate_entry(name, &options).unwrap();
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", name);
        if name == "Gen" {
            for m in &t.layout.as_ref().unwrap().layout.push_constants.members {
                let PushKind::RootDescriptorAddress { class, .. } = m.kind else {
                    assert!(matches!(m.kind, PushKind::TableOffset { .. }), "{:?}", m.kind);
                    continue;
                };
                let what = if class == untangle::dxil::ResourceClass::Srv { Address::Tlas } else { Address::Buffer(0) };
                push_addresses.push((m.offset, what));
            }
        }
        modules.push((name.to_string(), t.words, stage));
    }
    assert_eq!(push_addresses.len(), 2, "the structure's and the buffer's addresses");
    (modules, push_addresses)
}

/// A callable shader (`corpus/lib_ray_ops.ll`): `Gen` traces into an empty scene (its
/// miss shader `Sky` writes the ray direction's y, 0, to the payload), then calls `Fn` with
/// the launch height, which returns `(height + launch x) * 3`; `Gen` stores both.
#[test]
fn callable_shaders_return_their_data() {
    // Built in: the test binary runs on the device machine without the repository.
    let (modules, push_addresses) = root_address_entries(
        include_bytes!("../../../corpus/lib_ray_ops.ll"),
        &[
            ("Gen", ash::vk::ShaderStageFlags::RAYGEN_KHR),
            ("Sky", ash::vk::ShaderStageFlags::MISS_KHR),
            ("Fn", ash::vk::ShaderStageFlags::CALLABLE_KHR),
        ],
    );
    let width = 4u32;
    let case = RtCase {
        name: "lib_ray_ops callable".into(),
        modules,
        raygen: ("Gen".into(), Vec::new()),
        misses: vec![("Sky".into(), Vec::new())],
        callables: vec![("Fn".into(), Vec::new())],
        push_constants: vec![0; 16],
        push_addresses,
        buffers: vec![vec![0u8; 8 * width as usize]],
        launch: [width, 1],
        max_recursion: 1,
        timeout: std::time::Duration::from_secs(10),
        ..Default::default()
    };
    let Some(device) = ray_tracing_device("callable shaders") else { return };
    let out = device.run(&case).unwrap();
    let words: Vec<u32> = out[0].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let expected: Vec<u32> = (0..width).flat_map(|x| [0, (1 + x) * 3]).collect();
    assert_eq!(words, expected);
}

/// Rays of the inline ray-query case: origins (x, y) at z = 1, traced towards -z.
const QUERY_RAYS: [[f32; 2]; 5] = [[0.25, 0.25], [5.0, 5.0], [2.5, 0.5], [0.75, 0.75], [0.25, 2.25]];
/// Per ray: committed status (0 nothing, 1 triangle, 2 procedural), committed instance
/// index, committed primitive index, committed T (-1 and ~0 where nothing was committed).
/// Triangle 0 (instance 0, z = 0) is hit at t = 1, triangle 1 (z = 0.5) at t = 0.5; the
/// box (instance 1) is committed by the shader at t = 2; (5, 5) and (0.75, 0.75) (past the
/// triangle's hypotenuse x + y = 1) miss.
const QUERY_EXPECTED: [(u32, u32, u32, f32); 5] =
    [(1, 0, 0, 1.0), (0, !0, !0, -1.0), (2, 1, 0, 2.0), (0, !0, !0, -1.0), (1, 0, 1, 0.5)];

/// An inline ray query in a compute shader (`corpus/cs_ray_query.ll`, `RayQuery<RAY_FLAG_FORCE_OPAQUE>`
/// with a `Proceed` loop committing the box as a procedural hit at t = 2) over two
/// triangles and a box, the structure and buffers bound as root SRVs/UAV by address;
/// each thread writes the committed status, instance and primitive index and T. Skips
/// on devices without `VK_KHR_ray_query` (and ray tracing), saying so.
#[test]
fn inline_ray_query_in_compute_reports_committed_hits() {
    let shader = Shader::parse(include_bytes!("../../../corpus/cs_ray_query.ll")).unwrap();
    let options = Options {
        root_signature: Some(RootSignatureBinding {
            signature: parse_hlsl("SRV(t0), SRV(t1), UAV(u0)", Version::V1_1).unwrap(),
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        ..Default::default()
    };
    let t = shader.translate_entry("main", &options).unwrap();
    match untangle_spirv_tools::find_spirv_val() {
        Some(val) => val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("cs_ray_query: {e}")),
        None => eprintln!("spirv-val not found: cs_ray_query not validated"),
    }
    let members = &t.layout.as_ref().unwrap().layout.push_constants.members;
    let mut push_addresses = Vec::new();
    for m in members {
        let PushKind::RootDescriptorAddress { class, register, .. } = m.kind else { panic!("{:?}", m.kind) };
        let what = match (class, register) {
            (untangle::dxil::ResourceClass::Srv, 0) => Address::Tlas,
            (untangle::dxil::ResourceClass::Srv, 1) => Address::Buffer(0),
            (untangle::dxil::ResourceClass::Uav, 0) => Address::Buffer(1),
            other => panic!("unexpected root descriptor {other:?}"),
        };
        push_addresses.push((m.offset, what));
    }
    assert_eq!(push_addresses.len(), 3, "t0, t1 and u0 by address");
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let instance =
        |aabbs: bool| RtInstance { aabbs, transform: identity, custom_index: 0, mask: 0xff, sbt_offset: 0, flags: 0 };
    let case = RtCase {
        name: "cs_ray_query".into(),
        modules: vec![("main".into(), t.words, ash::vk::ShaderStageFlags::COMPUTE)],
        compute: Some("main".into()),
        triangles: vec![
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[0.0, 2.0, 0.5], [1.0, 2.0, 0.5], [0.0, 3.0, 0.5]],
        ],
        aabbs: vec![[2.0, 0.0, -1.0, 3.0, 1.0, 1.0]],
        geometry_opaque: true,
        instances: vec![instance(false), instance(true)],
        push_constants: vec![0; t.layout.as_ref().unwrap().layout.push_constants.size as usize],
        push_addresses,
        buffers: vec![
            QUERY_RAYS.iter().flatten().flat_map(|f| f.to_le_bytes()).collect(),
            vec![0u8; 16 * QUERY_RAYS.len()],
        ],
        launch: [QUERY_RAYS.len() as u32, 1],
        timeout: std::time::Duration::from_secs(10),
        ..Default::default()
    };
    let device = match RtDevice::open() {
        Ok(RtOpen::Ready(d)) if d.ray_query => d,
        Ok(RtOpen::Ready(d)) => {
            eprintln!("inline ray query skipped: {} has no VK_KHR_ray_query", d.name);
            return;
        }
        Ok(RtOpen::Unsupported(why)) => {
            eprintln!(
                "inline ray query skipped: {why} (lavapipe has no ray tracing; run on a device with VK_KHR_ray_query)"
            );
            return;
        }
        Err(e) => {
            eprintln!("inline ray query skipped: no Vulkan device ({e})");
            return;
        }
    };
    eprintln!("inline ray query on {}", device.name);
    let results = |case: &RtCase| -> Vec<(u32, u32, u32, f32)> {
        let out = device.run(case).unwrap();
        out[1]
            .chunks_exact(16)
            .map(|c| {
                let w = |k: usize| u32::from_le_bytes(c[4 * k..4 * k + 4].try_into().unwrap());
                // T to 1e-4: hardware intersection need not be exact to the last bit.
                let t = (f32::from_bits(w(3)) * 1e4).round() / 1e4;
                (w(0), w(1), w(2), t)
            })
            .collect()
    };
    assert_eq!(results(&case), QUERY_EXPECTED, "inline ray queries");
    // The triangles' instance moved 10 along x: their rays miss, the box still hits. The
    // answer follows the scene, so a wrong expectation is caught.
    let mut moved = case.clone();
    moved.instances[0].transform[3] = 10.0;
    let got = results(&moved);
    assert_ne!(got, QUERY_EXPECTED);
    let miss = (0, !0, !0, -1.0);
    assert_eq!(got, [miss, miss, QUERY_EXPECTED[2], miss, miss], "triangles moved away");
}

/// The ray-tracing device, or `None` after saying why `what` is skipped.
fn ray_tracing_device(what: &str) -> Option<Box<RtDevice>> {
    match RtDevice::open() {
        Ok(RtOpen::Ready(d)) => Some(d),
        Ok(RtOpen::Unsupported(why)) => {
            eprintln!("{what} skipped: {why} (lavapipe has no ray tracing)");
            None
        }
        Err(e) => {
            eprintln!("{what} skipped: no Vulkan device ({e})");
            None
        }
    }
}

/// Shader execution reordering (`corpus/lib_ser_gpu.ll`, `SPV_NV_shader_invocation_reorder`):
/// `Gen` traces ray x into a hit object (even x at the triangle, odd x beside it), reads
/// `IsHit`, calls `MaybeReorderThread` on it with hint x, then `Invoke`s it: the closest hit
/// writes 1000 + x, the miss 2000 + x; each pixel stores (payload, IsHit). The triangle moved
/// away makes every ray miss, so a wrong expectation is caught. Skips without
/// `VK_NV_ray_tracing_invocation_reorder`.
#[test]
fn shader_execution_reordering_invokes_hit_and_miss_records() {
    let (modules, push_addresses) = root_address_entries(
        include_bytes!("../../../corpus/lib_ser_gpu.ll"),
        &[
            ("Gen", ash::vk::ShaderStageFlags::RAYGEN_KHR),
            ("Hit", ash::vk::ShaderStageFlags::CLOSEST_HIT_KHR),
            ("Sky", ash::vk::ShaderStageFlags::MISS_KHR),
        ],
    );
    let width = 8u32;
    let case = ser_case("lib_ser_gpu", modules, push_addresses, 16, 2, 0);
    let expected: Vec<u32> = (0..width).flat_map(|x| if x % 2 == 0 { [1000 + x, 1] } else { [2000 + x, 0] }).collect();
    let all_miss: Vec<u32> = (0..width).flat_map(|x| [2000 + x, 0]).collect();
    check_ser("shader execution reordering", case, &expected, &all_miss, "hit objects: (payload, IsHit) per pixel");
}

/// NVAPI shader execution reordering (`tests/nvapi/lib_nvapi_ser.ll`, `Options::vendor.nvapi`
/// and `invocation_reorder`): `Gen` makes a hit object with `NvTraceRayHitObject` (ray x:
/// even x at the triangle, odd x beside it), reads `IsHit` and `GetInstanceID`, reorders
/// with `NvReorderThread(hitObj, x, 2)` and runs it with `NvInvokeHitObject`: the closest
/// hit writes 1000 + x, the miss 2000 + x; each pixel stores (payload, IsHit, IsHit ?
/// InstanceID : 0), the instance's custom index being 7. The triangle moved away makes
/// every ray miss. Skips without `VK_NV_ray_tracing_invocation_reorder`.
#[test]
fn nvapi_hit_objects_trace_reorder_and_invoke() {
    let vendor = untangle::VendorFeatures {
        nvapi: Some(untangle::NvapiSlot { register: 7, space: 3 }),
        invocation_reorder: true,
        ..Default::default()
    };
    let (modules, push_addresses) = root_address_entries_with(
        include_bytes!("nvapi/lib_nvapi_ser.ll"),
        &[
            ("Gen", ash::vk::ShaderStageFlags::RAYGEN_KHR),
            ("Hit", ash::vk::ShaderStageFlags::CLOSEST_HIT_KHR),
            ("Sky", ash::vk::ShaderStageFlags::MISS_KHR),
        ],
        // The root signature need not cover the magic UAV: it is never declared, and
        // the layer is not asked for it (a driver intercepts its records).
        "SRV(t0), UAV(u0)",
        vendor,
    );
    let width = 8u32;
    let case = ser_case("lib_nvapi_ser", modules, push_addresses, 32, 3, 7);
    let expected: Vec<u32> =
        (0..width).flat_map(|x| if x % 2 == 0 { [1000 + x, 1, 7] } else { [2000 + x, 0, 0] }).collect();
    let all_miss: Vec<u32> = (0..width).flat_map(|x| [2000 + x, 0, 0]).collect();
    check_ser(
        "NVAPI shader execution reordering",
        case,
        &expected,
        &all_miss,
        "NVAPI hit objects: (payload, IsHit, InstanceID) per pixel",
    );
}

/// The shader-execution-reordering scene: `Gen` (raygen), `Hit` (closest hit) and `Sky`
/// (miss) of `modules`, one opaque triangle at the origin in one instance with custom index
/// `custom_index`, 8 rays in a row, `words` result words a pixel in buffer 0.
fn ser_case(
    name: &str,
    modules: Vec<RtModule>,
    push_addresses: Vec<(u32, Address)>,
    push_bytes: usize,
    words: usize,
    custom_index: u32,
) -> RtCase {
    let width = 8u32;
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    RtCase {
        name: name.into(),
        modules,
        raygen: ("Gen".into(), Vec::new()),
        misses: vec![("Sky".into(), Vec::new())],
        hit_groups: vec![RtHitGroup { closest: Some("Hit".into()), ..Default::default() }],
        triangles: vec![[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
        geometry_opaque: true,
        instances: vec![RtInstance {
            aabbs: false,
            transform: identity,
            custom_index,
            mask: 0xff,
            sbt_offset: 0,
            flags: 0,
        }],
        push_constants: vec![0; push_bytes],
        push_addresses,
        buffers: vec![vec![0u8; 4 * words * width as usize]],
        launch: [width, 1],
        max_recursion: 1,
        timeout: std::time::Duration::from_secs(10),
        ..Default::default()
    }
}

/// Runs `case` on a device with `VK_NV_ray_tracing_invocation_reorder` (else skips,
/// saying so): buffer 0 must read `expected`, and with the triangle moved away `all_miss`.
fn check_ser(what: &str, case: RtCase, expected: &[u32], all_miss: &[u32], message: &str) {
    let Some(device) = ray_tracing_device(what) else { return };
    if !device.invocation_reorder {
        eprintln!("{what} skipped: {} has no VK_NV_ray_tracing_invocation_reorder", device.name);
        return;
    }
    eprintln!("{what} on {}", device.name);
    let words = |case: &RtCase| -> Vec<u32> {
        let out = device.run(case).unwrap();
        out[0].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    assert_eq!(words(&case), expected, "{message}");
    let mut moved = case.clone();
    moved.instances[0].transform[3] = 10.0;
    let got = words(&moved);
    assert_ne!(got, expected);
    assert_eq!(got, all_miss, "the triangle moved away: every ray misses");
}
