//! SM 6.10 `linAlgConvert` run on a Vulkan device (lavapipe in CI): `tests/linalg/
//! cs_linalg_convert.ll` converts float, integer, packed 8-bit and float8 vectors (16
//! conversions, one per 16-byte record) and every result word is compared with a reference
//! written from proposal 0035's conversion rules (integers saturate, float → integer
//! rounds to nearest even and saturates, float8 encodes round to nearest even and saturate
//! to the largest normal; the float8 formats from `untangle_testkit::ags`). A NaN is
//! compared as "some NaN" (its payload and sign are not specified).
//!
//! Without a Vulkan loader or driver the test prints why and passes, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when it fails.

use std::time::Duration;
use untangle::dxil::ResourceClass;
use untangle_testkit::ags::{float8_code, float8_value};
use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/linalg/cs_linalg_convert.ll");

const F: [f32; 4] = [1.5, -300.0, 2.5, 1e10];
const I: [i32; 4] = [-5, 200, 70000, i32::MIN];
/// Bytes 0x01, 0x7f, 0xff, 0x80 (E4M3: 2^-9, NaN, NaN, -0).
const P: u32 = 0x80ff_7f01;
/// E5M2 bytes 7, 1.5, -5, +infinity.
const Q: u32 = 0x7cc5_3e47;

fn pack(bytes: &[u8]) -> u32 {
    bytes.iter().enumerate().fold(0, |w, (j, &b)| w | u32::from(b) << (8 * j))
}

fn bytes(w: u32) -> [u8; 4] {
    w.to_le_bytes()
}

/// Round to nearest even, then saturate to `[lo, hi]`; NaN is 0.
fn to_int(v: f64, lo: i64, hi: i64) -> i64 {
    if v.is_nan() {
        return 0;
    }
    let r = v.round_ties_even();
    if r >= hi as f64 {
        hi
    } else if r <= lo as f64 {
        lo
    } else {
        r as i64
    }
}

/// The expected records; `None` marks a word holding a NaN (f32 bits, or a float8 code in
/// the given byte's position: `Some(Err(mask))`).
fn expected() -> Vec<[Result<u32, u32>; 4]> {
    let one = |w: u32| [Ok(w), Ok(0), Ok(0), Ok(0)];
    let words = |v: [u32; 4]| v.map(Ok);
    let i8s = |v: &[f64]| pack(&v.iter().map(|&x| to_int(x, -128, 127) as i8 as u8).collect::<Vec<_>>());
    let f = F.map(f64::from);
    let pb = bytes(P);
    let e4m3: Vec<f64> = pb.iter().map(|&b| float8_value(b, false)).collect();
    let nan_f32 = |v: f64| if v.is_nan() { Err(0) } else { Ok((v as f32).to_bits()) };
    // E4M3 → E5M2: NaN bytes are compared as any E5M2 NaN.
    let mut e4_to_e5 = Ok(pack(&e4m3.iter().map(|&v| float8_code(v as f32, true, true)).collect::<Vec<_>>()));
    if e4m3.iter().any(|v| v.is_nan()) {
        let mask = e4m3.iter().enumerate().fold(0u32, |m, (j, v)| m | if v.is_nan() { 0xff << (8 * j) } else { 0 });
        e4_to_e5 = Err(mask);
    }
    vec![
        one(i8s(&f)),
        one(pack(&F.map(|v| float8_code(v, false, true)))),
        one(pack(&F.map(|v| float8_code(v, true, true)))),
        words(f.map(|v| to_int(v, i32::MIN.into(), i32::MAX.into()) as u32)),
        words(f.map(|v| to_int(v, 0, u32::MAX.into()) as u32)),
        one(pack(&I.map(|v| v.clamp(0, 255) as u8))),
        one(pack(&I.map(|v| float8_code(v as f32, false, true)))),
        words(I.map(|v| (v as f32).to_bits())),
        words(I.map(|v| (v as u32).min(i32::MAX as u32))),
        one(pack(&pb.map(|b| b.min(127)))),
        words(pb.map(|b| b as i8 as i32 as u32)),
        [nan_f32(e4m3[0]), nan_f32(e4m3[1]), nan_f32(e4m3[2]), nan_f32(e4m3[3])],
        [e4_to_e5, Ok(0), Ok(0), Ok(0)],
        words(pb.map(|b| f32::from(b).to_bits())),
        words(bytes(Q).map(|b| to_int(float8_value(b, true), i32::MIN.into(), i32::MAX.into()) as u32)),
        one(i8s(&f[..2])),
    ]
}

/// Whether `got` matches `want`: exact, or for `Err(mask)` the bytes outside `mask` equal
/// the reference with each masked byte an E5M2 NaN (`Err(0)`: an f32 NaN).
fn matches(got: u32, want: Result<u32, u32>, reference_bytes: u32) -> bool {
    match want {
        Ok(w) => got == w,
        Err(0) => f32::from_bits(got).is_nan(),
        Err(mask) => (0..4).all(|j| {
            let (g, r) = (bytes(got)[j], bytes(reference_bytes)[j]);
            if mask >> (8 * j) & 0xff != 0 {
                g & 0x7f > 0x7c
            } else {
                g == r
            }
        }),
    }
}

#[test]
fn conversions_on_the_device() {
    let Some(mut gpu) = open_or_skip("gpu_linalg_convert") else { return };
    let src = std::fs::read_to_string(SRC).unwrap();
    let spirv = untangle::translate(src.as_bytes(), &Default::default()).expect("translates").words;
    let place = untangle::emit::binding_model::default_binding(ResourceClass::Uav, 0, 0);
    let mut words = vec![0u32; 64 + 16 * 4];
    words[..4].copy_from_slice(&F.map(f32::to_bits));
    words[4..8].copy_from_slice(&I.map(|v| v as u32));
    words[8] = P;
    words[9] = Q;
    let d = Dispatch {
        spirv: &spirv,
        entry: "main",
        bindings: vec![Binding::new(place.set, place.binding, Resource::words(&words))],
        groups: [1, 1, 1],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let out = gpu.dispatch(&d).unwrap_or_else(|e| panic!("dispatch: {e}")).words(0).expect("the buffer comes back");
    let e4_to_e5_reference = pack(&bytes(P).map(|b| float8_code(float8_value(b, false) as f32, true, true)));
    eprintln!("records: {:#010x?}", out[64..].chunks(4).collect::<Vec<_>>());
    let mut wrong = Vec::new();
    for (k, record) in expected().iter().enumerate() {
        for (j, &want) in record.iter().enumerate() {
            let got = out[64 + 4 * k + j];
            if !matches(got, want, e4_to_e5_reference) {
                wrong.push(format!("record {k} word {j}: got {got:#010x}, want {want:x?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The test can fail: a changed expected value is caught.
    let mut changed = expected();
    changed[3][1] = Ok(0);
    assert!(!matches(out[64 + 12 + 1], changed[3][1], 0), "record 3 word 1 is -300");
}
