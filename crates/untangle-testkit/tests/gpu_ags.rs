//! AMD AGS intrinsics run on a Vulkan device (lavapipe in CI; any device with subgroup
//! arithmetic, ballot and shuffle operations): the wave and lane intrinsics against what
//! each lane must get for the device's wave size (`untangle_testkit::ags::wave_expected`),
//! and the float8 conversions, emulated in 32-bit arithmetic and (where the device has
//! `shaderFloat8`, which this runner does not enable yet) natively, against a reference
//! written from the formats' definitions (`untangle_testkit::ags::float8_code`): every
//! float8 code decoded, and for encoding vkd3d-proton's `test_ags_float8_conversion`
//! inputs, every midpoint between neighbouring codes and the floats next to it (ties and
//! their neighbours), and random bit patterns. The rounded float operations
//! (`FloatOpWithRoundMode` in its 12 forms, `FloatConversion` in its 3) run on every pair
//! of edge values and 8192 pseudo-random pairs, bit for bit against the directed-rounding
//! reference (`untangle_testkit::ags::rounding_expected`, itself checked against LLVM's
//! APFloat in `ags_rounding_oracle.rs`).
//!
//! AGS WMMA (`WMMA_F32_16X16X16_F16`, as vkd3d-proton's `test_wmma_matmul` runs it) needs
//! `VK_KHR_cooperative_matrix` with a 16x16x16 f16 × f16 + f32 form: `D = A * B + C` on
//! known small-integer inputs (exact in f32), B row and column major, every element of
//! D compared; without the feature (lavapipe) the case prints why and passes. The same
//! form checks an f32 accumulator copied to an f16 A matrix without
//! `cooperative_matrix2` (a groupshared round trip, validated everywhere, run where
//! subgroups are 32 wide).
//!
//! Raw GPU addresses (`bufferDeviceAddress`; skipped without it): `LoadDwordAtAddr` reads
//! a device buffer whose address the runner writes into `u`, and the WMMA multiply-add
//! runs again with its matrices loaded and stored through that address (global forms).
//!
//! 64-bit atomics on a texture (`shaderImageInt64Atomics`; skipped without it): max and
//! compare-exchange on an `R64_UINT` storage image, old values and the image checked. AGS
//! barycentrics and vertex parameters (`fragmentShaderBarycentric`; skipped without it):
//! one triangle drawn, perspective and linear `(I, J)` at pixel centres against the
//! weights computed on the host, vertex parameters against the vertices' attributes.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::time::Duration;
use untangle::dxil::ags::Opcode;
use untangle::dxil::ResourceClass;
use untangle::{translate, Options, VendorFeatures};
use untangle_testkit::ags::{
    atomic_cmpxchg_u64, atomic_max_u64, atomic_u64_texel, call, cs_threads, cs_with_texture, float8_code, float8_value,
    ps, sub_word_address, sub_word_store, sub_word_value, vertex_param, vs_position_texcoord, wave_expected,
    wave_shader,
};
use untangle_testkit::vulkan::graphics::{Draw, StageModule, Target};
use untangle_testkit::vulkan::{
    open_or_skip, AddressSlot, Binding, DeviceBuffer, Dispatch, Gpu, Image, ImageDim, Resource,
};

fn ags() -> Options {
    Options { vendor: VendorFeatures { amd_ags: true, ..Default::default() }, ..Default::default() }
}

/// Runs `spirv` on one group: `u` holds `input` then room for `n` results of `threads`
/// threads; returns its words.
fn run(gpu: &mut Gpu, spirv: &[u32], input: &[u32], threads: u32, n: usize) -> Vec<u32> {
    let place = untangle::emit::binding_model::default_binding(ResourceClass::Uav, 0, 0);
    let mut words = vec![0u32; (threads as usize * (n + 1)).max(input.len())];
    words[..input.len()].copy_from_slice(input);
    let d = Dispatch {
        spirv,
        entry: "main",
        bindings: vec![Binding::new(place.set, place.binding, Resource::words(&words))],
        groups: [1, 1, 1],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}"));
    r.words(0).expect("the buffer comes back")
}

#[test]
fn wave_and_lane_intrinsics_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_ags wave") else { return };
    const THREADS: u32 = 64;
    let (body, n) = wave_shader();
    let t = translate(cs_threads(&body, n, THREADS).as_bytes(), &ags()).expect("translates");
    let out = run(&mut gpu, &t.words, &[], THREADS, n);
    let size = out[THREADS as usize * 4];
    assert!(size.is_power_of_two() && size <= 64, "wave size {size}");
    println!("wave size {size}");
    let mut bad = Vec::new();
    for tid in 0..THREADS {
        for (k, want) in wave_expected(tid, size).into_iter().enumerate() {
            let got = out[(THREADS as usize) * (k + 1) + tid as usize];
            if want.is_some_and(|w| w != got) {
                bad.push(format!("thread {tid} w{k}: got {got:#x}, want {:#x}", want.unwrap_or(0)));
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

/// The inputs to encode: vkd3d-proton's (both signs), midpoints and their neighbours,
/// random patterns.
fn encode_inputs() -> Vec<f32> {
    let mut v = Vec::new();
    for i in 0..512u32 {
        let x = match i {
            // `half_to_float(i << 7)`: f16 subnormals and small normals.
            0..8 => f32::from(half::f16::from_bits((i << 7) as u16)),
            507 => f32::INFINITY,
            508 => 465.0,
            509 => 465.1,
            510 => 61439.0,
            511 => 61440.0,
            _ => (i as f32 / 8.0).powi(3),
        };
        v.extend([x, -x]);
    }
    for e5m2 in [false, true] {
        let top = if e5m2 { 0x7b } else { 0x7e };
        for c in 0..top {
            let mid = ((float8_value(c, e5m2) + float8_value(c + 1, e5m2)) / 2.0) as f32;
            for x in [mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits().saturating_sub(1))] {
                v.extend([x, -x]);
            }
        }
    }
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..1024 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        v.push(f32::from_bits((s >> 32) as u32));
    }
    v.extend([f32::NAN, -f32::NAN, f32::NEG_INFINITY, 0.0, -0.0, 448.0, 464.0, 464.5, 57344.0]);
    v
}

#[test]
fn float8_conversions_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_ags float8") else { return };
    const THREADS: u32 = 256;
    let data = [0x000u32, 0x001, 0x002, 0x003, 0x100, 0x101, 0x102, 0x103];
    let mut body = String::new();
    for (k, d) in data.iter().enumerate() {
        body += &call(&format!("w{k}"), Opcode::Float8Conversion, 0, *d, "%x", "0");
    }
    let t = translate(cs_threads(&body, data.len(), THREADS).as_bytes(), &ags()).expect("translates");
    let floats = encode_inputs();
    let mut bad = Vec::new();
    // Batch 0 decodes (and encodes) the 256 codes; the rest encode the float inputs.
    let mut batches: Vec<Vec<u32>> = vec![(0..256).collect()];
    batches.extend(floats.chunks(THREADS as usize).map(|c| c.iter().map(|f| f.to_bits()).collect()));
    for batch in &batches {
        let out = run(&mut gpu, &t.words, batch, THREADS, data.len());
        for (i, &x) in batch.iter().enumerate() {
            let got = |k: usize| out[THREADS as usize * (k + 1) + i];
            for (k, &d) in data.iter().enumerate() {
                let e5m2 = d & 1 == 1;
                let saturate = d & 0x100 != 0;
                let ok = if d & 2 == 0 {
                    let want = float8_value((x & 0xff) as u8, e5m2) as f32;
                    let g = f32::from_bits(got(k));
                    (want.is_nan() && g.is_nan()) || want.to_bits() == got(k)
                } else {
                    u32::from(float8_code(f32::from_bits(x), e5m2, saturate)) == got(k)
                };
                if !ok {
                    bad.push(format!("input {x:#010x} ({}) cvt {d:#x}: got {:#x}", f32::from_bits(x), got(k)));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

/// AGS's `FloatOpWithRoundMode` (add, subtract, multiply in the 4 rounding modes) and
/// `FloatConversion` (f32 → f16 to nearest, −∞, +∞), emulated in integer arithmetic, on
/// every pair of edge values (signed zeros, subnormals, ties, overflow, infinities, NaN)
/// and 8192 pseudo-random pairs (cancellation, carries, subnormal and overflowing results),
/// bit for bit against `untangle_testkit::ags::rounding_expected` (any NaN for a NaN).
#[test]
fn rounded_float_operations_on_the_device() {
    use untangle_testkit::ags::{rounding_edge_values, rounding_expected, rounding_random_pairs, rounding_shader};
    let Some(mut gpu) = open_or_skip("gpu_ags rounding") else { return };
    const THREADS: u32 = 256;
    let (body, n) = rounding_shader(THREADS);
    let t = translate(cs_threads(&body, n, THREADS).as_bytes(), &ags()).expect("translates");
    let edges = rounding_edge_values();
    let mut pairs: Vec<(f32, f32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
    pairs.extend(rounding_random_pairs(8192));
    let nan =
        |k: usize, v: u32| if k < 12 { f32::from_bits(v).is_nan() } else { v & 0x7c00 == 0x7c00 && v & 0x3ff != 0 };
    let mut bad = Vec::new();
    let (mut checked, mut swapped) = (0usize, 0usize);
    for chunk in pairs.chunks(THREADS as usize) {
        let mut input = vec![0u32; THREADS as usize * (n + 2)];
        for (i, &(a, b)) in chunk.iter().enumerate() {
            input[i] = a.to_bits();
            input[THREADS as usize * (n + 1) + i] = b.to_bits();
        }
        let out = run(&mut gpu, &t.words, &input, THREADS, n);
        for (i, &(a, b)) in chunk.iter().enumerate() {
            for k in 0..n {
                let (got, want) = (out[THREADS as usize * (k + 1) + i], rounding_expected(k, a, b));
                checked += 1;
                // The check can fail: against the opposite direction's expectation
                // (cases 1 ↔ 2 of each operation: toward +∞ / −∞), results differ.
                if k < 12 && k % 4 != 0 && k % 4 != 3 {
                    let other = k - k % 4 + 3 - k % 4;
                    swapped += usize::from(got != rounding_expected(other, a, b) && !nan(k, got));
                }
                if got != want && !(nan(k, got) && nan(k, want)) {
                    bad.push(format!(
                        "case {k}: a {a:e} ({:#x}) b {b:e} ({:#x}): got {got:#x}, want {want:#x}",
                        a.to_bits(),
                        b.to_bits()
                    ));
                }
            }
        }
    }
    println!("{checked} results checked, {swapped} caught against the opposite direction's expectation");
    assert!(swapped > 0, "a changed expected value (toward +∞ for toward −∞) must be caught");
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

/// AGS's 64-bit atomic max: each thread's 64-bit slot (after the results) starts at
/// `(0x1000 + tid, 5)`; odd threads' values `(tid, 7)` win, even threads' `(tid, 3)` lose;
/// every thread gets the old value back.
#[test]
fn atomic_u64_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_ags atomic") else { return };
    const THREADS: u32 = 64;
    let base = THREADS * 3; // words: inputs, w0, w1
    let t = translate(cs_threads(&atomic_max_u64(base * 4, true), 2, THREADS).as_bytes(), &ags()).expect("translates");
    let mut input = vec![0u32; (base + 2 * THREADS) as usize];
    for tid in 0..THREADS {
        input[(base + 2 * tid) as usize] = 0x1000 + tid;
        input[(base + 2 * tid + 1) as usize] = 5;
    }
    let out = run(&mut gpu, &t.words, &input, THREADS, 2);
    for tid in 0..THREADS {
        let i = tid as usize;
        assert_eq!(
            (out[THREADS as usize + i], out[2 * THREADS as usize + i]),
            (0x1000 + tid, 5),
            "old value, thread {tid}"
        );
        let slot = (out[(base + 2 * tid) as usize], out[(base + 2 * tid + 1) as usize]);
        let want = if tid % 2 == 1 { (tid, 7) } else { (0x1000 + tid, 5) };
        assert_eq!(slot, want, "memory, thread {tid}");
    }
}

/// What thread `tid`'s texel of [`atomic_u64_on_a_texture_on_the_device`] starts at: 0 for
/// every third, else a high word of 3 (loses to the max) or 11 (wins).
fn texel_start(tid: u32) -> u64 {
    if tid.is_multiple_of(3) {
        0
    } else {
        (u64::from(tid % 2) * 8 + 3) << 32 | u64::from(tid * 1000)
    }
}

/// AGS's 64-bit atomics on a `RWTexture2D<uint2>`: an 8x8 `R64_UINT` storage image (the
/// 64-bit view vkd3d-proton gives D3D's `R32G32_UINT` textures), thread `tid` at texel
/// `(tid & 7, tid >> 3)`: max with `(tid, 7)`, and compare-exchange of `(tid, 9)` against
/// 0. Every thread gets its texel's old value, and the image holds the new ones. Skipped
/// without `shaderImageInt64Atomics`.
#[test]
fn atomic_u64_on_a_texture_on_the_device() {
    let options = Options {
        vendor: VendorFeatures { amd_ags: true, image_int64_atomics: true, ..Default::default() },
        ..Default::default()
    };
    let modules: Vec<_> = [false, true]
        .into_iter()
        .map(|cmpxchg| {
            let body = "  %cx = and i32 %tid, 7\n  %cy = lshr i32 %tid, 3\n".to_string()
                + &atomic_u64_texel(["%cx", "%cy", "0"], cmpxchg, false);
            let t = translate(cs_with_texture(&body, 2, 2).as_bytes(), &options).expect("translates");
            untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "AGS texture atomic");
            (cmpxchg, t)
        })
        .collect();
    let Some(mut gpu) = open_or_skip("gpu_ags texture atomic") else { return };
    if !gpu.info().features.image_int64_atomics {
        eprintln!("gpu_ags texture atomic: skipped, {} has no shaderImageInt64Atomics", gpu.info());
        return;
    }
    const THREADS: u32 = 64;
    for (cmpxchg, t) in modules {
        let u = untangle::emit::binding_model::default_binding(ResourceClass::Uav, 0, 0);
        let img = untangle::emit::binding_model::default_binding(ResourceClass::Uav, 1, 0);
        let image = Image {
            dim: ImageDim::D2,
            format: ash::vk::Format::R64_UINT,
            extent: [8, 8, 1],
            layers: 1,
            arrayed: false,
            bytes: (0..THREADS).flat_map(|tid| texel_start(tid).to_le_bytes()).collect(),
        };
        let words = vec![0u32; 3 * THREADS as usize];
        let d = Dispatch {
            spirv: &t.words,
            entry: "main",
            bindings: vec![
                Binding::new(u.set, u.binding, Resource::words(&words)),
                Binding::new(img.set, img.binding, Resource::StorageImage(image)),
            ],
            groups: [1, 1, 1],
            timeout: Duration::from_secs(60),
            ..Default::default()
        };
        let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}"));
        let out = r.words(0).expect("the buffer comes back");
        let texels = r.words(1).expect("the image comes back");
        for tid in 0..THREADS {
            let (i, start) = (tid as usize, texel_start(tid));
            let old = (out[THREADS as usize + i], out[2 * THREADS as usize + i]);
            assert_eq!(old, (start as u32, (start >> 32) as u32), "old value, thread {tid}, cmpxchg {cmpxchg}");
            let new = if cmpxchg {
                if start == 0 {
                    9 << 32 | u64::from(tid)
                } else {
                    start
                }
            } else {
                start.max(7 << 32 | u64::from(tid))
            };
            let got = u64::from(texels[2 * i]) | u64::from(texels[2 * i + 1]) << 32;
            assert_eq!(got, new, "texel of thread {tid}, cmpxchg {cmpxchg}");
        }
    }
}

/// The triangle of [`barycentrics_and_vertex_parameters_on_the_device`]: clip-space
/// positions with different `w`, so perspective and linear barycentrics differ.
fn bary_triangle() -> Vec<[f32; 4]> {
    [([-0.9f32, -0.9], 1.0f32), ([0.9, -0.7], 2.0), ([-0.6, 0.9], 4.0)]
        .iter()
        .map(|&([x, y], w)| [x * w, y * w, 0.0, w])
        .collect()
}

/// At the centre of pixel `(px, py)` of a `size` x `size` target (D3D's screen
/// coordinates, y down): the screen-space (linear) weights of [`bary_triangle`]'s vertices,
/// and the perspective-correct ones.
fn bary_expected(px: u32, py: u32, size: u32) -> ([f64; 3], [f64; 3]) {
    let v = bary_triangle();
    let screen: Vec<(f64, f64)> = v
        .iter()
        .map(|p| {
            let (x, y) = (f64::from(p[0] / p[3]), f64::from(p[1] / p[3]));
            ((x + 1.0) / 2.0 * f64::from(size), (1.0 - y) / 2.0 * f64::from(size))
        })
        .collect();
    let (x, y) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
    let edge = |a: (f64, f64), b: (f64, f64)| (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0);
    let area = (screen[1].0 - screen[0].0) * (screen[2].1 - screen[0].1)
        - (screen[1].1 - screen[0].1) * (screen[2].0 - screen[0].0);
    let linear =
        [edge(screen[1], screen[2]) / area, edge(screen[2], screen[0]) / area, edge(screen[0], screen[1]) / area];
    let q: Vec<f64> = (0..3).map(|i| linear[i] / f64::from(v[i][3])).collect();
    let sum: f64 = q.iter().sum();
    (linear, [q[0] / sum, q[1] / sum, q[2] / sum])
}

/// AGS `BaryCoord` (perspective and linear, at the pixel centre) and `VtxParam`, drawn:
/// one triangle whose vertices have different `w`, into a 16x16 `R32G32B32A32_SFLOAT`
/// target. Where a pixel centre is clearly inside, the first draw's `(I, J)` must be the
/// weights of vertices 1 and 2 computed on the host (perspective-correct and screen-space,
/// within 1e-3; they differ by far more), and the second draw's vertex parameters the
/// vertices' `TEXCOORD` (their positions) bit for bit; clearly outside pixels keep the
/// clear value. Skipped without `fragmentShaderBarycentric`.
#[test]
fn barycentrics_and_vertex_parameters_on_the_device() {
    let options = Options {
        vendor: VendorFeatures { amd_ags: true, fragment_shader_barycentric: true, ..Default::default() },
        ..Default::default()
    };
    const SIZE: u32 = 16;
    const CLEAR: f32 = -100.0;
    let vs = translate(vs_position_texcoord().as_bytes(), &options).expect("the vertex shader translates");
    let bary = |mode: u32, i: &str, j: &str| {
        call(i, Opcode::BaryCoord, 0, mode, "0", "0") + &call(j, Opcode::BaryCoord, 1, mode, &format!("%{i}"), "0")
    };
    // Perspective centre (mode 4), linear centre (mode 1).
    let bary_ps = bary(4, "w0", "w1") + &bary(1, "w2", "w3");
    let params = [(0, 0), (1, 1), (2, 0), (2, 3)];
    let param_ps: String = params
        .iter()
        .enumerate()
        .map(|(k, &(v, c))| call(&format!("w{k}"), Opcode::VtxParam, 0, vertex_param(v, 1, c), "0", "0"))
        .collect();
    untangle_spirv_tools::assert_valid(&vs.words, "vulkan1.3", "vertex shader");
    let vs_io = untangle_testkit::check::stage_link::StageIo::from_words(&vs.words).expect("vertex outputs");
    let mut shaders = Vec::new();
    for (what, body, interpolation) in [("BaryCoord", bary_ps, 2), ("VtxParam", param_ps, 1)] {
        let fs = translate(ps(&body, 4, interpolation, false).as_bytes(), &options)
            .unwrap_or_else(|e| panic!("{what}: the pixel shader translates: {e}"));
        untangle_spirv_tools::assert_valid(&fs.words, "vulkan1.3", what);
        let fs_io = untangle_testkit::check::stage_link::StageIo::from_words(&fs.words).expect("pixel inputs");
        let errors = untangle_testkit::check::stage_link::link(&vs_io, &fs_io);
        assert!(errors.is_empty(), "{what}: the stages do not link: {errors:?}");
        shaders.push((what, fs));
    }
    // The triangle tells the perspective weights from the linear ones (a swapped built-in
    // is caught): they differ by far more than the tolerance.
    let spread = (0..SIZE * SIZE)
        .map(|p| bary_expected(p % SIZE, p / SIZE, SIZE))
        .filter(|(linear, _)| linear.iter().all(|&l| l > 0.02))
        .map(|(linear, persp)| (1..3).map(|k| (linear[k] - persp[k]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max);
    assert!(spread > 0.1, "perspective and linear weights differ by at most {spread}");
    let Some(mut gpu) = open_or_skip("gpu_ags barycentrics") else { return };
    if !gpu.info().features.fragment_shader_barycentric {
        eprintln!("gpu_ags barycentrics: skipped, {} has no fragmentShaderBarycentric", gpu.info());
        return;
    }
    let triangle = bary_triangle();
    let mut checked = 0;
    for (what, fs) in shaders {
        let draw = Draw {
            stages: vec![
                StageModule {
                    stage: ash::vk::ShaderStageFlags::VERTEX,
                    words: vs.words.clone(),
                    entry: vs.entry_point.clone(),
                },
                StageModule { stage: ash::vk::ShaderStageFlags::FRAGMENT, words: fs.words, entry: fs.entry_point },
            ],
            width: SIZE,
            height: SIZE,
            targets: vec![Target { format: ash::vk::Format::R32G32B32A32_SFLOAT, clear: [CLEAR.to_bits(); 4] }],
            positions: triangle.clone(),
            vertex_count: 3,
            ..Default::default()
        };
        let r = gpu.draw(&draw).unwrap_or_else(|e| panic!("{what}: draw: {e}"));
        let px: Vec<f32> = r.targets[0].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let mut bad = Vec::new();
        for y in 0..SIZE {
            for x in 0..SIZE {
                let at = 4 * (y * SIZE + x) as usize;
                let got = &px[at..at + 4];
                let (linear, persp) = bary_expected(x, y, SIZE);
                let inside = linear.iter().all(|&l| l > 0.02);
                if linear.iter().any(|&l| l < -0.02) {
                    if got != [CLEAR; 4] {
                        bad.push(format!("({x}, {y}) is outside, got {got:?}"));
                    }
                    continue;
                }
                if !inside {
                    continue;
                }
                checked += 1;
                let want: Vec<f32> = if what == "BaryCoord" {
                    [persp[1], persp[2], linear[1], linear[2]].iter().map(|&w| w as f32).collect()
                } else {
                    params.iter().map(|&(v, c)| triangle[v as usize][c as usize]).collect()
                };
                let close = if what == "BaryCoord" {
                    got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-3)
                } else {
                    got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits())
                };
                if !close {
                    bad.push(format!("{what} ({x}, {y}): got {got:?}, want {want:?}"));
                }
            }
        }
        assert!(bad.is_empty(), "{} wrong on {}:\n{}", bad.len(), gpu.info(), bad[..bad.len().min(20)].join("\n"));
    }
    assert!(checked > 40, "only {checked} pixels inside the triangle");
}

/// The memory of the WMMA multiply-add case from byte 0: A (f16, row major) at 0, B (f16,
/// row or column major) at 512, C (f32) at 1024, room for D (f32) at 2048; 3072 bytes.
fn wmma_case_memory(column_major: bool) -> Vec<u32> {
    use untangle_testkit::ags::{wmma_case_a as a, wmma_case_b as b, wmma_case_c as c};
    let f16 = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
    let mut m = vec![0u32; 3072 / 4];
    let w = |byte: u32| (byte / 4) as usize;
    for r in 0..16u32 {
        for col in 0..16u32 {
            // f16 pairs: element e at half-word e.
            let e = r * 16 + col;
            m[w(2 * e)] |= f16(a(r, col)) << (16 * (e % 2));
            // B[k = r][j = col]: row major at r * 16 + col, column major at col * 16 + r.
            let eb = if column_major { col * 16 + r } else { e };
            m[w(512 + 2 * eb)] |= f16(b(r, col)) << (16 * (eb % 2));
            m[w(1024 + 4 * e)] = c(r, col).to_bits();
        }
    }
    m
}

/// D's elements (f32 words, row major) that differ from `wmma_case_expected`.
fn wmma_case_mismatches(d: &[u32]) -> Vec<String> {
    let mut bad = Vec::new();
    for i in 0..16u32 {
        for j in 0..16u32 {
            let got = f32::from_bits(d[(i * 16 + j) as usize]);
            let want = untangle_testkit::ags::wmma_case_expected(i, j);
            if got != want {
                bad.push(format!("D[{i}][{j}]: got {got}, want {want}"));
            }
        }
    }
    bad
}

/// Whether the device runs the WMMA case (else why not, printed).
fn wmma_case_device(gpu: &Gpu, what: &str) -> bool {
    let ok = gpu.info().features.cooperative_matrix_f16_f32;
    if !ok {
        println!("SKIPPED {what}: no VK_KHR_cooperative_matrix 16x16x16 f16 x f16 + f32 form on this device");
    }
    ok
}

/// AGS's 64-bit compare-exchange: each thread's slot starts at `(0x1000 + tid, 5)`; even
/// threads' comparators match and store `(tid, 9)`, odd threads' miss; every thread gets
/// the old value back.
#[test]
fn atomic_u64_compare_exchange_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_ags cmpxchg") else { return };
    const THREADS: u32 = 64;
    let base = THREADS * 3;
    let t = translate(cs_threads(&atomic_cmpxchg_u64(base * 4), 2, THREADS).as_bytes(), &ags()).expect("translates");
    let mut input = vec![0u32; (base + 2 * THREADS) as usize];
    for tid in 0..THREADS {
        input[(base + 2 * tid) as usize] = 0x1000 + tid;
        input[(base + 2 * tid + 1) as usize] = 5;
    }
    let out = run(&mut gpu, &t.words, &input, THREADS, 2);
    for tid in 0..THREADS {
        let i = tid as usize;
        assert_eq!((out[THREADS as usize + i], out[2 * THREADS as usize + i]), (0x1000 + tid, 5), "old, thread {tid}");
        let slot = (out[(base + 2 * tid) as usize], out[(base + 2 * tid + 1) as usize]);
        let want = if tid % 2 == 0 { (tid, 9) } else { (0x1000 + tid, 5) };
        assert_eq!(slot, want, "memory, thread {tid}");
    }
}

/// AGS's byte and short stores: 64 threads write the low byte (short) of their value at
/// neighbouring addresses, three threads to a word (two halves and one of the next word's
/// for shorts), every fourth byte (half) left alone; the region, prefilled with `0xee`,
/// must hold exactly those bytes (a lost neighbour or a clobbered fourth byte fails).
#[test]
fn byte_and_short_stores_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_ags sub-word stores") else { return };
    const THREADS: u32 = 64;
    for bytes in [1u32, 2] {
        for raw in [false, true] {
            let base = 4 * THREADS; // bytes: after the inputs
            let text = cs_threads(&sub_word_store(bytes, base, raw, true), 0, THREADS);
            let t = translate(text.as_bytes(), &ags()).expect("translates");
            let end = sub_word_address(bytes, base, THREADS) as usize + 8;
            let mut mem = vec![0xeeu8; end.div_ceil(4) * 4];
            let input: Vec<u32> = mem.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            for tid in 0..THREADS {
                let a = sub_word_address(bytes, base, tid) as usize;
                let v = sub_word_value(tid).to_le_bytes();
                mem[a..a + bytes as usize].copy_from_slice(&v[..bytes as usize]);
            }
            let want: Vec<u32> = mem.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            let out = run(&mut gpu, &t.words, &input, THREADS, 0);
            let (lo, hi) = (base as usize / 4, want.len());
            for w in lo..hi {
                assert_eq!(out[w], want[w], "{bytes}-byte stores (raw {raw}): word {w} ({:#010x} wanted)", want[w]);
            }
        }
    }
}

/// AGS WMMA multiply-add on the device: A (f16) at byte 1024, B (f16, row or column major)
/// at 1536, C (f32) at 2048, D (f32) stored at 3072, by one group of 32 threads; every
/// element of D must be `wmma_case_expected`.
#[test]
fn wmma_mul_add_on_the_device() {
    use untangle_testkit::ags::wmma_mul_add_shader_at;
    let Some(mut gpu) = open_or_skip("gpu_ags wmma") else { return };
    if !wmma_case_device(&gpu, "gpu_ags wmma") {
        return;
    }
    const THREADS: u32 = 32;
    const BASE: u32 = 1024;
    let mut o = ags();
    o.vendor.cooperative_matrix = true;
    for column_major in [false, true] {
        let text = cs_threads(&wmma_mul_add_shader_at(column_major, BASE), 1, THREADS);
        let t = translate(text.as_bytes(), &o).expect("translates");
        let mut input = vec![0u32; (BASE / 4) as usize];
        input.extend(wmma_case_memory(column_major));
        let out = run(&mut gpu, &t.words, &input, THREADS, 1);
        let d = (BASE + 2048) as usize / 4;
        let bad = wmma_case_mismatches(&out[d..d + 256]);
        assert!(
            bad.is_empty(),
            "B column major {column_major}: {} wrong:\n{}",
            bad.len(),
            bad[..bad.len().min(40)].join("\n")
        );
    }
}

/// Runs `spirv` on one group with `u` (`words`, binding 0) and one device buffer (`memory`)
/// whose address is written at `u`'s bytes 0..8; returns `u` and the device buffer after it,
/// or `None` (printed why) on a device without `bufferDeviceAddress`.
fn run_with_address(
    gpu: &mut Gpu,
    what: &str,
    spirv: &[u32],
    words: &[u32],
    memory: &[u32],
) -> Option<(Vec<u32>, Vec<u32>)> {
    if !gpu.info().features.buffer_device_address {
        println!("SKIPPED {what}: no bufferDeviceAddress on this device");
        return None;
    }
    let place = untangle::emit::binding_model::default_binding(ResourceClass::Uav, 0, 0);
    let d = Dispatch {
        spirv,
        entry: "main",
        bindings: vec![Binding::new(place.set, place.binding, Resource::words(words))],
        device_buffers: vec![DeviceBuffer {
            bytes: memory.iter().flat_map(|w| w.to_le_bytes()).collect(),
            address: AddressSlot::Binding { binding: 0, offset: 0 },
        }],
        groups: [1, 1, 1],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}"));
    let words = |b: &[u8]| b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some((r.words(0).expect("the buffer comes back"), words(&r.device_buffers[0])))
}

/// `LoadDwordAtAddr` on the device: the device buffer's address is `u`'s words 0 and 1;
/// thread `tid` loads dword `tid` (offset `4 tid`) and dword `tid + 64` (offset `4 tid +
/// 256`) of it, each `0xa5000000 + index`.
#[test]
fn load_dword_at_address_on_the_device() {
    use untangle_testkit::ags::load_dw_at_addr;
    let Some(mut gpu) = open_or_skip("gpu_ags LoadDwAtAddr") else { return };
    const THREADS: u32 = 64;
    let mut body = String::from(
        "  %va = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 0, i32 undef)\n  %va_lo = extractvalue %dx.types.ResRet.i32 %va, 0\n  %vb = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 4, i32 undef)\n  %va_hi = extractvalue %dx.types.ResRet.i32 %vb, 0\n  %far = add i32 %tid4, 256\n",
    );
    body += &load_dw_at_addr("w0", "%va_lo", "%va_hi", "%tid4");
    body += &load_dw_at_addr("w1", "%va_lo", "%va_hi", "%far");
    let mut o = ags();
    o.vendor.buffer_device_address = true;
    let t = translate(cs_threads(&body, 2, THREADS).as_bytes(), &o).expect("translates");
    let memory: Vec<u32> = (0..2 * THREADS).map(|k| 0xa500_0000 + k).collect();
    let words = vec![0u32; 3 * THREADS as usize];
    let Some((out, _)) = run_with_address(&mut gpu, "gpu_ags LoadDwAtAddr", &t.words, &words, &memory) else { return };
    for tid in 0..THREADS as usize {
        assert_eq!(out[THREADS as usize + tid], memory[tid], "dword {tid}");
        assert_eq!(out[2 * THREADS as usize + tid], memory[tid + 64], "dword {}", tid + 64);
    }
}

/// The WMMA multiply-add through raw GPU addresses (`WaveMatrixGlobalLoad` / `GlobalStore`):
/// A, B, C and D in a device buffer whose address is `u`'s words 0 and 1, at the offsets of
/// [`wmma_case_memory`]; every element of D must be `wmma_case_expected`.
#[test]
fn wmma_global_mul_add_on_the_device() {
    use untangle_testkit::ags::wmma_global_mul_add_shader;
    let what = "gpu_ags wmma global";
    let Some(mut gpu) = open_or_skip(what) else { return };
    if !wmma_case_device(&gpu, what) {
        return;
    }
    const THREADS: u32 = 32;
    let mut o = ags();
    o.vendor.cooperative_matrix = true;
    o.vendor.buffer_device_address = true;
    for column_major in [false, true] {
        let text = cs_threads(&wmma_global_mul_add_shader(column_major, 0), 1, THREADS);
        let t = translate(text.as_bytes(), &o).expect("translates");
        let words = vec![0u32; 2 * THREADS as usize];
        let Some((_, memory)) = run_with_address(&mut gpu, what, &t.words, &words, &wmma_case_memory(column_major))
        else {
            return;
        };
        let bad = wmma_case_mismatches(&memory[512..768]);
        assert!(
            bad.is_empty(),
            "B column major {column_major}: {} wrong:\n{}",
            bad.len(),
            bad[..bad.len().min(40)].join("\n")
        );
    }
}

/// An f32 accumulator copied to an f16 A matrix on the device (FSR4's quantization step),
/// without `cooperative_matrix2` (a groupshared round trip; dxil-spirv's path without NV
/// conversions), then `D = A * I + 0`: every element of D must be C's, in place (a
/// transposed or shuffled round trip would move them). C's elements `16 i + j + 0.5` are
/// exact in f16. One group of 32 threads, `[WaveSize(32)]` (one subgroup: one scratch
/// slot); a device whose subgroups are not 32 wide prints why and passes.
#[test]
fn wmma_accumulator_to_a_through_groupshared_memory_on_the_device() {
    use untangle_testkit::ags::{wmma_convert, wmma_load, wmma_mul_acc, wmma_store, wmma_type};
    const THREADS: u32 = 32;
    const BASE: u32 = 1024;
    let (acc, a, b) = (wmma_type(6, 2, false), wmma_type(4, 0, false), wmma_type(4, 1, false));
    let mut body = wmma_load("c", acc, BASE, 64);
    body += &wmma_convert("q", "c", acc, a);
    body += &wmma_load("i", b, BASE + 1024, 32);
    body += &wmma_load("z", acc, BASE + 1536, 64);
    body += &wmma_mul_acc("d", 5, "q", "i", "z");
    body += &wmma_store("d", acc, BASE + 2560, 64);
    body += "  %w0 = add i32 0, 0\n";
    let text = cs_threads(&body, 1, THREADS).replace("!7 = !{i32 4, !8}", "!7 = !{i32 4, !8, i32 11, i32 32}");
    assert!(text.contains("i32 11, i32 32"), "the entry declares [WaveSize(32)]");
    let mut o = ags();
    o.vendor.cooperative_matrix = true;
    let t = translate(text.as_bytes(), &o).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA accumulator → A through groupshared memory");
    let Some(mut gpu) = open_or_skip("gpu_ags wmma accumulator → A") else { return };
    let f = &gpu.info().features;
    if !f.cooperative_matrix_f16_f32 || f.subgroup_size != 32 {
        println!(
            "SKIPPED gpu_ags wmma accumulator → A: needs the 16x16x16 f16 x f16 + f32 cooperative-matrix form and 32-wide subgroups (have {})",
            f.subgroup_size
        );
        return;
    }
    let c = |i: u32, j: u32| (16 * i + j) as f32 + 0.5;
    let w = |byte: u32| (byte / 4) as usize;
    let mut input = vec![0u32; w(BASE + 3584)];
    for i in 0..16u32 {
        input[w(BASE + 1024 + 2 * (17 * i))] |= u32::from(half::f16::from_f32(1.0).to_bits()) << (16 * (17 * i % 2));
        for j in 0..16u32 {
            input[w(BASE + 4 * (16 * i + j))] = c(i, j).to_bits();
        }
    }
    let out = run(&mut gpu, &t.words, &input, THREADS, 1);
    let mut bad = Vec::new();
    for i in 0..16u32 {
        for j in 0..16u32 {
            let got = f32::from_bits(out[w(BASE + 2560 + 4 * (16 * i + j))]);
            if got != c(i, j) {
                bad.push(format!("D[{i}][{j}]: got {got}, want {}", c(i, j)));
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}
