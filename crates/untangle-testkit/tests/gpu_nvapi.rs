//! NVIDIA NVAPI intrinsics run on a Vulkan device (lavapipe in CI, NVIDIA GPUs; any device
//! with subgroup shuffle, vote and ballot operations): the shuffles of each mode and
//! segment width, votes, ballot, lane id and lane mask of
//! `untangle_testkit::nvapi::wave_shader`, against what each lane must get for the
//! device's subgroup size (`untangle_testkit::nvapi::wave_expected`, computed by hand from
//! `shfl.sync`'s definition), and a 64-bit atomic when the device has
//! `shaderBufferInt64Atomics` (the runner enables what the device has).
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::time::Duration;
use untangle::dxil::ResourceClass;
use untangle::{translate, Options, VendorFeatures};
use untangle_testkit::nvapi::{atomic, cs, wave_expected, wave_shader, SLOT};
use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

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
