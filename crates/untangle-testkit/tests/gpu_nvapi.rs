//! NVIDIA NVAPI intrinsics run on a Vulkan device (lavapipe in CI, NVIDIA GPUs; any device
//! with subgroup shuffle, vote and ballot operations): the shuffles of each mode and
//! segment width, votes, ballot, lane id and lane mask of
//! `untangle_testkit::nvapi::wave_shader`, against what each lane must get for the
//! device's subgroup size (`untangle_testkit::nvapi::wave_expected`, computed by hand from
//! `shfl.sync`'s definition), and a 64-bit atomic when the device has
//! `shaderBufferInt64Atomics` (the runner enables what the device has), and a texture
//! footprint when the device has `imageFootprint` (`VK_NV_shader_image_footprint`: NVIDIA
//! GPUs, not lavapipe).
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::time::Duration;
use untangle::dxil::ResourceClass;
use untangle::{translate, Options, VendorFeatures};
use untangle_testkit::nvapi::{
    atomic, cs, footprint, single_lod, texture_shader, wave_expected, wave_shader, Stage, SLOT,
};
use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Image, ImageDim, Resource, SamplerDesc};

fn nv(features: VendorFeatures) -> Options {
    Options { vendor: VendorFeatures { nvapi: Some(SLOT), ..features }, ..Default::default() }
}

/// Runs `spirv` on one group of `threads`: `u` (`u0`) holds room for `n` results, `t`
/// (`u1`) holds `t`; returns both buffers' words.
fn run(
    gpu: &mut untangle_testkit::vulkan::Gpu,
    spirv: &[u32],
    threads: u32,
    n: usize,
    t: &[u32],
) -> (Vec<u32>, Vec<u32>) {
    let place = |r| untangle::emit::binding_model::default_binding(ResourceClass::Uav, 0, r);
    let (pu, pt) = (place(0), place(1));
    let words = vec![0u32; threads as usize * (n + 1)];
    let mut bindings = vec![Binding::new(pu.set, pu.binding, Resource::words(&words))];
    if !t.is_empty() {
        bindings.push(Binding::new(pt.set, pt.binding, Resource::words(t)));
    }
    let d = Dispatch {
        spirv,
        entry: "main",
        bindings,
        groups: [1, 1, 1],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}"));
    let tw = if t.is_empty() { Vec::new() } else { r.words(1).expect("t comes back") };
    (r.words(0).expect("u comes back"), tw)
}

#[test]
fn shuffles_votes_and_lane_masks_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_nvapi wave") else { return };
    const THREADS: u32 = 64;
    let (body, n) = wave_shader();
    let t = translate(cs(&body, n, THREADS).as_bytes(), &nv(VendorFeatures::default())).expect("translates");
    let (out, _) = run(&mut gpu, &t.words, THREADS, n, &[]);
    let at = |k: usize, tid: u32| out[THREADS as usize * (k + 1) + tid as usize];
    let size = at(n - 1, 0);
    assert!(size.is_power_of_two() && size <= 128, "subgroup size {size}");
    println!("subgroup size {size}");
    if size > 32 {
        println!("skipped: NVAPI's warp is 32 lanes, this device's subgroups are {size}");
        return;
    }
    let mut bad = Vec::new();
    for tid in 0..THREADS {
        for (k, want) in wave_expected(tid, size).into_iter().enumerate() {
            let got = at(k, tid);
            if want.is_some_and(|w| w != got) {
                bad.push(format!("thread {tid} w{k}: got {got:#x}, want {:#x}", want.unwrap_or(0)));
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

#[test]
fn uint64_atomic_add_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_nvapi uint64 atomic") else { return };
    if !gpu.info().features.int64_atomics {
        println!("skipped: the device lacks shaderBufferInt64Atomics");
        return;
    }
    const THREADS: u32 = 32;
    // Every thread adds (tid + 1) << 31 to qword 0 (carries into the high word); each
    // returns the old value, whose high word it stores too.
    let b = "  %t1 = add i32 %tid, 1\n  %lo = shl i32 %t1, 31\n  %hi = lshr i32 %t1, 1\n".to_string()
        + &atomic("w", 20, "0", &["%lo", "%hi"], 3, true);
    let t = translate(cs(&b, 2, THREADS).as_bytes(), &nv(VendorFeatures { int64_atomics: true, ..Default::default() }))
        .expect("translates");
    let (out, tw) = run(&mut gpu, &t.words, THREADS, 2, &[0, 0]);
    let total: u64 = (1..=THREADS as u64).map(|k| k << 31).sum();
    assert_eq!(tw[0] as u64 | (tw[1] as u64) << 32, total, "the sum of every add");
    // The old values are the partial sums in some order: distinct, each below the total.
    let mut olds: Vec<u64> = (0..THREADS as usize)
        .map(|i| out[THREADS as usize + i] as u64 | (out[2 * THREADS as usize + i] as u64) << 32)
        .collect();
    olds.sort_unstable();
    olds.dedup();
    assert_eq!(olds.len(), THREADS as usize, "every thread saw another old value");
    assert!(olds.iter().all(|&o| o < total && o % (1 << 31) == 0));
}

/// `NvFootprintFineLevel` at level 0 of a 64x64 2D texture with one level, nearest
/// filtering, granularity code 1, at one texel centre per thread: the cases the Vulkan
/// specification fixes. One texel is touched, so the mask has one bit, the level is 0, the
/// query is single-level, and the granularity is the one asked for; two texels of one
/// 2x2 group give the same footprint, texels of other groups another.
#[test]
fn footprint_of_a_point_at_level_0() {
    const THREADS: u32 = 4;
    const SIZE: u32 = 64;
    // Thread texels: (5, 9) and (4, 8) share a 2x2 group; (6, 9) and (40, 33) do not.
    let texels = [(5u32, 9u32), (4, 8), (6, 9), (40, 33)];
    let centre = |t: u32| ((t as f32 + 0.5) / SIZE as f32).to_bits();
    // u words 0..3: x of each thread (as float bits), t words 0..3: y.
    let body = "  %yin = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %t, i32 %tid4, i32 undef)\n  %y = extractvalue %dx.types.ResRet.i32 %yin, 0\n".to_string()
        + &footprint("w", 31, "0", "0", 4, ["%x", "%y", "0"], "1", "0", &["0"], ["0", "0", "0"])
        + &single_lod("w4");
    let text = texture_shader(&body, 5, THREADS, Stage::Compute);
    let options = Options {
        vendor: VendorFeatures { nvapi: Some(SLOT), image_footprint: true, ..Default::default() },
        ..Default::default()
    };
    let t = translate(text.as_bytes(), &options).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "footprint");
    let Some(mut gpu) = open_or_skip("gpu_nvapi footprint") else { return };
    if !gpu.info().features.image_footprint {
        println!("skipped: the device lacks imageFootprint (VK_NV_shader_image_footprint)");
        return;
    }
    let place = |class, r| untangle::emit::binding_model::default_binding(class, 0, r);
    let (pu, pt) = (place(ResourceClass::Uav, 0), place(ResourceClass::Uav, 1));
    let (ptex, psmp) = (place(ResourceClass::Srv, 0), place(ResourceClass::Sampler, 0));
    let mut u = vec![0u32; (THREADS * 6) as usize];
    let mut ty = vec![0u32; THREADS as usize];
    for (k, &(x, y)) in texels.iter().enumerate() {
        u[k] = centre(x);
        ty[k] = centre(y);
    }
    let image = Image {
        dim: ImageDim::D2,
        format: ash::vk::Format::R8G8B8A8_UNORM,
        extent: [SIZE, SIZE, 1],
        layers: 1,
        arrayed: false,
        bytes: vec![0x80; (SIZE * SIZE * 4) as usize],
    };
    let d = Dispatch {
        spirv: &t.words,
        entry: "main",
        bindings: vec![
            Binding::new(pu.set, pu.binding, Resource::words(&u)),
            Binding::new(pt.set, pt.binding, Resource::words(&ty)),
            Binding::new(ptex.set, ptex.binding, Resource::SampledImage(image)),
            Binding::new(psmp.set, psmp.binding, Resource::Sampler(SamplerDesc::default())),
        ],
        groups: [1, 1, 1],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}"));
    let out = r.words(0).expect("u comes back");
    let at = |k: usize, tid: usize| out[THREADS as usize * (k + 1) + tid];
    let words = |tid: usize| [at(0, tid), at(1, tid), at(2, tid), at(3, tid)];
    for (tid, texel) in texels.iter().enumerate() {
        let [mx, my, z, w] = words(tid);
        let what = format!("thread {tid} texel {texel:?}: words {mx:#x} {my:#x} {z:#x} {w:#x}");
        println!("{what}, single-LOD {}", at(4, tid));
        // One 2x2 group at level 0, in the 8x8-group neighbourhood the anchor names; the
        // mask is toroidal (bit (gy mod 8)·8 + gx mod 8 for group (gx, gy)).
        let (gx, gy) = (texel.0 / 2, texel.1 / 2);
        let bit = (gy % 8) * 8 + gx % 8;
        assert_eq!((u64::from(my) << 32) | u64::from(mx), 1u64 << bit, "{what}: group ({gx}, {gy})");
        assert_eq!((w >> 12) & 0xf, 0, "{what}: level 0");
        assert_eq!(((w & 0xfff), (z & 0xfff)), (gx / 8, gy / 8), "{what}: the anchor (8x8 groups)");
        // The granularity word is the driver's: NVIDIA's Vulkan driver reports 0 here
        // (the footprint is at the granularity asked for), which D3D code reads back
        // unchanged; any other value must be the one asked for.
        assert!(matches!((z >> 24) & 0xf, 0 | 1), "{what}: the granularity");
        assert_eq!(at(4, tid), 1, "{what}: single-level");
    }
    assert_eq!(words(0), words(1), "one 2x2 group, one footprint");
    assert_ne!(words(0), words(2), "the next group");
    assert_ne!(words(0), words(3), "a far group");
}
