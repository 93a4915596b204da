//! The shared corpus's AGS WMMA shaders (`dxil/vkd3d-proton/sm_advanced.cs_wmma_*.dxil`,
//! read at test time) run on a Vulkan device with the inputs and expected values of
//! vkd3d-proton's own tests (`tests/d3d12_sm_advanced.c`), translated with the AGS vendor
//! options (`--vendor amd-ags,cooperative-matrix,cooperative-matrix2`).
//!
//! Every shader binds what its root signature gives it (root SRV `t0`, root UAV `u0`) through
//! the default binding model; the magic UAV (`u0, space2147420894`) is consumed by the
//! lowering and bound to nothing. Each case builds its input bytes and the words its output
//! must hold exactly as the vkd3d-proton test does, and compares as that test does:
//!
//! | case (vkd3d-proton test) | inputs | checked |
//! | --- | --- | --- |
//! | `quant_f16`, `_at`, `_bt`, `_ot` (`test_wmma_matmul`) | A, B f16 (A or B column major for `_at`/`_bt`), C f32 | `f16(C + Σ A·B)` (f32 sums), row major or transposed (`_ot`), exact |
//! | `element_wise` (`test_wmma_element_wise`) | a = i − 100.5, b = i − 99.5 | add, sub, mul exact; div within 16 ulps (f32) or 20000 (f16 path); times = product or 0 |
//! | `alloca` (`test_wmma_alloca`) | f16 `32j + i + k` | `2 Σ_k (32j + k)(32i + k + 1)`, column major, exact |
//! | `lds_transpose` (`test_wmma_lds_transpose`) | f16 0..255 | `Σ_k (j + 16k)(i + 16k)`, exact |
//! | `layout_assumptions` (`test_wmma_layout_assumptions`) | 100 + i; 1..256 | layout-independent part only (below) |
//!
//! Cooperative-matrix element positions are implementation-defined. vkd3d-proton's
//! `test_wmma_layout_assumptions` expects AMD RDNA4's (element `k` of a lane is row
//! `p & 7`); here each output `p` must be `in[p] + 100 + k` for some per-lane index
//! `k < 256 / subgroup size` (each element held by one lane), and the length it stores
//! (word 0) is not checked, as that test does not check it.
//!
//! Every case runs a second time with one computed expected value changed, and must then
//! fail. The FP8/BF8 WMMA shaders (`test_wmma_matrix_length`, `_extract_insert`,
//! `_copy_transpose`, `_lds_layout`, `_multi_matmul`, the FP8 matmuls and conversions)
//! need `VK_EXT_shader_float8`, which the runner does not enable (the H200 has none):
//! translated without `float8` they must be refused naming it.
//!
//! Without cooperative matrix (a 16x16x16 f16 × f16 + f32 form; lavapipe has none), 16-bit
//! storage or a 32-lane subgroup (the shaders declare `[WaveSize(32)]`) the device test
//! prints why and passes; without a Vulkan device it follows `open_or_skip`
//! (`UNTANGLE_REQUIRE_VULKAN=1` makes that a failure). The translation, validation and
//! expected-value test runs everywhere.

use half::f16;
use std::path::Path;
use std::time::Duration;
use untangle::emit::translate::{Options, Translation};
use untangle::{translate, TranslateError};
use untangle_testkit::vulkan::corpus::{
    compare, run_spec, t, u, CaseResource, DefaultPlacement, Kind, Placed, Placement, Spec, Want,
};
use untangle_testkit::vulkan::{open_or_skip, Features};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// The vendor options of a device with cooperative matrix (KHR and NV 2) and, when
/// `float8`, `VK_EXT_shader_float8`.
fn vendor(o: &mut Options, float8: bool) {
    o.vendor.amd_ags = true;
    o.vendor.cooperative_matrix = true;
    o.vendor.cooperative_matrix2 = true;
    o.vendor.float8 = float8;
}

/// The default binding model with the AGS vendor options (no float8).
struct AgsPlacement;

impl Placement for AgsPlacement {
    fn options(&self, shader: &[u8]) -> Result<Options, String> {
        let mut o = DefaultPlacement.options(shader)?;
        vendor(&mut o, false);
        Ok(o)
    }
    fn place(&self, tr: &Translation, res: &CaseResource) -> Result<Placed, String> {
        DefaultPlacement.place(tr, res)
    }
}

#[derive(Clone, Copy, Debug)]
enum Which {
    /// `test_wmma_matmul`'s f16 rows: A, B transposed (column major) and the output
    /// transposed.
    MatMul {
        a_t: bool,
        b_t: bool,
        o_t: bool,
    },
    ElementWise,
    Alloca,
    LdsTranspose,
    LayoutAssumptions,
}

struct Case {
    file: &'static str,
    vkd3d_test: &'static str,
    which: Which,
}

fn cases() -> Vec<Case> {
    let mm = |a_t, b_t, o_t| Which::MatMul { a_t, b_t, o_t };
    let c = |file, vkd3d_test, which| Case { file, vkd3d_test, which };
    vec![
        c("sm_advanced.cs_wmma_f32_16x16x16_f16_quant_f16.cs_6_6.dxil", "test_wmma_matmul", mm(false, false, false)),
        c("sm_advanced.cs_wmma_f32_16x16x16_f16_quant_f16_at.cs_6_6.dxil", "test_wmma_matmul", mm(true, false, false)),
        c("sm_advanced.cs_wmma_f32_16x16x16_f16_quant_f16_bt.cs_6_6.dxil", "test_wmma_matmul", mm(false, true, false)),
        c("sm_advanced.cs_wmma_f32_16x16x16_f16_quant_f16_ot.cs_6_6.dxil", "test_wmma_matmul", mm(false, false, true)),
        c("sm_advanced.cs_wmma_element_wise.cs_6_6.dxil", "test_wmma_element_wise", Which::ElementWise),
        c("sm_advanced.cs_wmma_alloca.cs_6_6.dxil", "test_wmma_alloca", Which::Alloca),
        c("sm_advanced.cs_wmma_lds_transpose.cs_6_6.dxil", "test_wmma_lds_transpose", Which::LdsTranspose),
        c(
            "sm_advanced.cs_wmma_layout_assumptions.cs_6_6.dxil",
            "test_wmma_layout_assumptions",
            Which::LayoutAssumptions,
        ),
    ]
}

/// The WMMA shaders that need `VK_EXT_shader_float8`, with the vkd3d-proton test of each.
const FLOAT8: &[(&str, &str)] = &[
    ("sm_advanced.cs_wmma_matrix_length.cs_6_6.dxil", "test_wmma_matrix_length"),
    ("sm_advanced.cs_wmma_extract_insert.cs_6_6.dxil", "test_wmma_extract_insert"),
    ("sm_advanced.cs_wmma_copy_transpose_fp16.cs_6_6.dxil", "test_wmma_copy_transpose"),
    ("sm_advanced.cs_wmma_lds_layout.cs_6_6.dxil", "test_wmma_lds_layout"),
    ("sm_advanced.cs_wmma_multi_matmul.cs_6_6.dxil", "test_wmma_multi_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_fp8.cs_6_6.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_f16_quant_fp8.cs_6_0.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_fp8_quant_f16.cs_6_6.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_fp8_quant_f32.cs_6_6.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_fp8_quant_f16_strided.cs_6_6.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_f32_16x16x16_fp8_quant_f16_strided_transpose.cs_6_6.dxil", "test_wmma_matmul"),
    ("sm_advanced.cs_wmma_special_conversions.cs_6_6.dxil", "test_wmma_special_conversions"),
    ("sm_advanced.cs_wmma_fp8_fp32_conversions.cs_6_6.dxil", "test_wmma_fp8_fp32_conversions"),
    ("sm_advanced.cs_wmma_fp32_fp8_conversions.cs_6_6.dxil", "test_wmma_fp32_fp8_conversions"),
    ("sm_advanced.cs_wmma_fp32_fp8_special_conversions.cs_6_6.dxil", "test_wmma_fp32_fp8_special_conversions"),
    ("sm_advanced.cs_wmma_fp16_fp8_conversions.cs_6_6.dxil", "test_wmma_fp16_fp8_conversions"),
];

/// The corpus folder, or `None` (with why) when it is absent outside CI.
fn corpus() -> Option<&'static Path> {
    let dir = Path::new(CORPUS);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(std::env::var_os("CI").is_none(), "the shared corpus is required under CI");
    println!("SKIPPED gpu_ags_corpus: no shared corpus at {CORPUS}");
    None
}

// ---------------------------------------------------------------------------------------
// Expected values, computed as vkd3d-proton's tests compute them.

fn quant_f16(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

/// A float read back must equal `v` as a float compares (either zero for a zero).
fn f32_want(v: f32) -> Want {
    if v == 0.0 {
        Want::OneOf(vec![0, 0x8000_0000])
    } else {
        Want::Eq(v.to_bits())
    }
}

/// The words holding `halves` (little-endian pairs), each half equal as a float compares.
fn f16_words_want(halves: &[u16]) -> Vec<Want> {
    let alts = |h: u16| if h & 0x7fff == 0 { vec![0u32, 0x8000] } else { vec![u32::from(h)] };
    halves
        .chunks(2)
        .map(|p| {
            let words: Vec<u32> =
                alts(p[0]).into_iter().flat_map(|lo| alts(p[1]).into_iter().map(move |hi| lo | hi << 16)).collect();
            if words.len() == 1 {
                Want::Eq(words[0])
            } else {
                Want::OneOf(words)
            }
        })
        .collect()
}

fn put_f16(bytes: &mut [u8], at: usize, v: f32) {
    bytes[at..at + 2].copy_from_slice(&f16::from_f32(v).to_bits().to_le_bytes());
}

fn put_f32(bytes: &mut [u8], at: usize, v: f32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// `test_wmma_matmul`'s matrices: `A[j][i]`, `B[j][i]`, `C[j][i]` (row j, column i).
fn matmul_inputs() -> [[[f32; 16]; 16]; 3] {
    let (row_mod, bias) = ([9, 13, 11], [30, 50, 100]);
    std::array::from_fn(|m| {
        std::array::from_fn(|j| std::array::from_fn(|i| (i as i32 + (j % row_mod[m]) as i32 - bias[m]) as f32 / 16.0))
    })
}

/// `C[j][i] + Σ_k A[j][k] B[k][i]` in f32, in the test's order.
fn matmul_expected(j: usize, i: usize) -> f32 {
    let [a, b, c] = matmul_inputs();
    let mut e = c[j][i];
    for k in 0..16 {
        e += a[j][k] * b[k][i];
    }
    e
}

fn buffers(input: Vec<u8>, output_bytes: usize, want: Vec<Want>) -> Spec {
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            CaseResource { reg: t(0, 0), kind: Kind::Buffer(input) },
            CaseResource { reg: u(0, 0), kind: Kind::Buffer(vec![0; output_bytes]) },
        ],
        expect: vec![(u(0, 0), want)],
    }
}

fn spec(which: Which, features: &Features) -> Spec {
    match which {
        Which::MatMul { a_t, b_t, o_t } => {
            // A f16 at 0, B f16 at 512, C f32 at 1024, 16 elements a row; a transposed
            // matrix has element (j, i) at i * 16 + j.
            let [a, b, c] = matmul_inputs();
            let mut input = vec![0u8; 16 * 16 * 2 * 2 + 16 * 16 * 4];
            let at = |t: bool, j: usize, i: usize| if t { i * 16 + j } else { j * 16 + i };
            let mut out = vec![0u16; 256];
            for j in 0..16 {
                for i in 0..16 {
                    put_f16(&mut input, 2 * at(a_t, j, i), a[j][i]);
                    put_f16(&mut input, 512 + 2 * at(b_t, j, i), b[j][i]);
                    put_f32(&mut input, 1024 + 4 * at(false, j, i), c[j][i]);
                    out[at(o_t, j, i)] = f16::from_f32(matmul_expected(j, i)).to_bits();
                }
            }
            // The output buffer is 256 floats; the f16 matrix fills its first half and the
            // rest stays zero.
            let mut want = f16_words_want(&out);
            want.extend((0..128).map(|_| Want::Eq(0)));
            buffers(input, 1024, want)
        }
        Which::ElementWise => {
            let mut input = vec![0u8; 2 * 256 * 4];
            let mut want = vec![Want::Any; 10 * 256];
            for i in 0..256 {
                let (a, b) = (i as f32 - 100.5, i as f32 - 99.5);
                put_f32(&mut input, 4 * i, a);
                put_f32(&mut input, 4 * (256 + i), b);
                for f16_path in [false, true] {
                    let q = |x: f32| if f16_path { quant_f16(x) } else { x };
                    let (a, b) = (q(a), q(b));
                    let base = if f16_path { 5 * 256 } else { 0 };
                    want[base + i] = f32_want(q(a + b));
                    want[base + 256 + i] = f32_want(q(a - b));
                    want[base + 512 + i] = f32_want(q(a * b));
                    let ulps = if f16_path { 20000 } else { 16 };
                    want[base + 768 + i] = Want::F32Ulps { want: q(a / b).to_bits(), ulps };
                    // AMD leaves `Times` unimplemented (0); vkd3d-proton accepts either.
                    want[base + 1024 + i] = Want::OneOf(vec![q(a * b).to_bits(), 0, 0x8000_0000]);
                }
            }
            buffers(input, 10 * 256 * 4, want)
        }
        Which::Alloca => {
            // input[k][j][i] = f16(32j + i + k), k < 2, j < 16, i < 32.
            let mut input = vec![0u8; 2 * 16 * 32 * 2];
            for k in 0..2 {
                for j in 0..16 {
                    for i in 0..32 {
                        put_f16(&mut input, 2 * (k * 512 + j * 32 + i), (32 * j + i + k) as f32);
                    }
                }
            }
            let mut want = vec![Want::Any; 256];
            for j in 0..16u32 {
                for i in 0..16u32 {
                    let mut e = 0f32;
                    for k in 0..32u32 {
                        e += ((j * 32 + k) * (i * 32 + k + 1)) as f32;
                    }
                    want[(i * 16 + j) as usize] = f32_want(e * 2.0);
                }
            }
            buffers(input, 256 * 4, want)
        }
        Which::LdsTranspose => {
            let mut input = vec![0u8; 256 * 2];
            for i in 0..256 {
                put_f16(&mut input, 2 * i, i as f32);
            }
            let mut want = vec![Want::Any; 256];
            for j in 0..16u32 {
                for i in 0..16u32 {
                    let mut e = 0f32;
                    for k in 0..16u32 {
                        e += ((j + 16 * k) * (i + 16 * k)) as f32;
                    }
                    want[(j * 16 + i) as usize] = f32_want(e);
                }
            }
            buffers(input, 256 * 4, want)
        }
        Which::LayoutAssumptions => {
            // Floats: 100 + i (i < 16), then the matrix 1..=256.
            let mut input = vec![0u8; (16 + 256) * 4];
            for i in 0..16 {
                put_f32(&mut input, 4 * i, 100.0 + i as f32);
            }
            for i in 0..256 {
                put_f32(&mut input, 4 * (16 + i), (i + 1) as f32);
            }
            let len = 256 / features.subgroup_size.max(1) as usize;
            // Word 0: the B matrix's length (not checked, as vkd3d-proton does not);
            // words 1..16 untouched.
            let mut want = vec![Want::Any];
            want.extend((1..16).map(|_| Want::Eq(0)));
            for p in 0..256 {
                let alts = (0..len.min(16)).map(|k| ((p + 1) as f32 + 100.0 + k as f32).to_bits());
                want.push(Want::OneOf(alts.collect()));
            }
            buffers(input, 256 * 4 + 64, want)
        }
    }
}

/// Changes the first computed expected value (not `Any`, not an untouched zero) so that
/// what satisfied it no longer can; returns where.
fn perturb(spec: &mut Spec) -> String {
    for (reg, want) in &mut spec.expect {
        for (i, w) in want.iter_mut().enumerate() {
            let changed = match w {
                Want::Any | Want::Eq(0) => continue,
                Want::Eq(v) => Want::Eq(*v ^ 1),
                // Bit 30 is an exponent bit of the float (or of the upper half).
                Want::OneOf(vs) => Want::OneOf(vs.iter().map(|v| v ^ 0x4000_0000).collect()),
                Want::F32Ulps { want, ulps } => {
                    Want::F32Ulps { want: (f32::from_bits(*want) * 2.0 + 1.0).to_bits(), ulps: *ulps }
                }
            };
            let at = format!("{reg} word {i}: {w:x?} -> {changed:x?}");
            *w = changed;
            return at;
        }
    }
    panic!("no computed expected value to change")
}

/// A word that satisfies `w`.
fn satisfying(w: &Want) -> u32 {
    match w {
        Want::Eq(v) | Want::F32Ulps { want: v, .. } => *v,
        Want::OneOf(vs) => vs[0],
        Want::Any => 0,
    }
}

fn h200_like() -> Features {
    Features { subgroup_size: 32, ..Default::default() }
}

// ---------------------------------------------------------------------------------------
// Tests.

/// Everywhere: each case translates with the AGS options and validates (Vulkan 1.4);
/// its placement binds exactly `t0` and `u0` (the magic UAV has no binding); its expected
/// words accept an ideal answer and reject it once perturbed; the FP8 shaders are refused
/// naming `VK_EXT_shader_float8` without `float8` and validate with it.
#[test]
fn corpus_wmma_cases_translate_and_expectations_hold() {
    let Some(dir) = corpus() else { return };
    for case in cases() {
        let bytes = std::fs::read(dir.join(case.file)).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let options = AgsPlacement.options(&bytes).unwrap();
        let tr = translate(&bytes, &options).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        untangle_spirv_tools::assert_valid(&tr.words, "vulkan1.4", case.file);
        let mut spec = spec(case.which, &h200_like());
        for res in &spec.resources {
            assert!(
                matches!(AgsPlacement.place(&tr, res), Ok(Placed::Binding(_))),
                "{}: {} is not bound",
                case.file,
                res.reg
            );
        }
        let magic = CaseResource { reg: u(0, 2147420894), kind: Kind::Buffer(vec![0; 4]) };
        assert_eq!(AgsPlacement.place(&tr, &magic), Ok(Placed::Unused), "{}: the magic UAV is bound", case.file);
        // An ideal answer passes, and fails once one expected value changes.
        let (reg, want) = spec.expect[0].clone();
        let ideal: Vec<u8> = want.iter().flat_map(|w| satisfying(w).to_le_bytes()).collect();
        compare(reg, &ideal, &want).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let at = perturb(&mut spec);
        assert!(compare(reg, &ideal, &spec.expect[0].1).is_err(), "{}: {at} still passes", case.file);
        println!("{} ({}): translates, validates; expectations checked", case.file, case.vkd3d_test);
    }
    for (file, test) in FLOAT8 {
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut o = Options::default();
        vendor(&mut o, false);
        match translate(&bytes, &o) {
            Err(untangle::Error::Translate(TranslateError::VendorExtension { reason, .. })) => {
                assert!(reason.to_string().contains("VK_EXT_shader_float8"), "{file} ({test}): {reason}")
            }
            Err(e) => panic!("{file} ({test}): {e}"),
            Ok(_) => panic!("{file} ({test}): translated without float8"),
        }
        vendor(&mut o, true);
        let tr = translate(&bytes, &o).unwrap_or_else(|e| panic!("{file} with float8: {e}"));
        untangle_spirv_tools::assert_valid(&tr.words, "vulkan1.4", file);
    }
}

/// The expected-value generators against values worked out by hand.
#[test]
fn expected_values_match_hand_computed_ones() {
    // test_wmma_matmul: D = C + A·B at (0, 0), (5, 3) and (15, 15), and its f16 rounding
    // (57.28125 is exact in f16; 40.45703125 rounds to 40.46875, 26.1484375 to 26.15625).
    assert_eq!(matmul_expected(0, 0), 57.28125);
    assert_eq!(matmul_expected(5, 3), 10357.0 / 256.0);
    assert_eq!(quant_f16(matmul_expected(5, 3)), 40.46875);
    assert_eq!(quant_f16(matmul_expected(15, 15)), 26.15625);
    let f = h200_like();
    let word = |s: &Spec, i: usize| s.expect[0].1[i].clone();
    // The f16 output: halves (0, 0) and (0, 1) in word 0; transposed: (0, 0) and (1, 0).
    let s = spec(Which::MatMul { a_t: false, b_t: false, o_t: false }, &f);
    let h = |j, i| u32::from(f16::from_f32(matmul_expected(j, i)).to_bits());
    assert_eq!(word(&s, 0), Want::Eq(h(0, 0) | h(0, 1) << 16));
    assert_eq!(word(&s, 200), Want::Eq(0), "past the f16 matrix");
    let s = spec(Which::MatMul { a_t: false, b_t: false, o_t: true }, &f);
    assert_eq!(word(&s, 0), Want::Eq(h(0, 0) | h(1, 0) << 16));
    // Transposed A: element (0, 1) = (1 - 30) / 16 lands at half 16, byte 32.
    let s = spec(Which::MatMul { a_t: true, b_t: false, o_t: false }, &f);
    let Kind::Buffer(input) = &s.resources[0].kind else { panic!() };
    assert_eq!(&input[32..34], &f16::from_f32(-29.0 / 16.0).to_bits().to_le_bytes());
    // Element-wise at i = 0: a = -100.5, b = -99.5; f16 product 9999.75 rounds to 10000.
    let s = spec(Which::ElementWise, &f);
    assert_eq!(word(&s, 0), Want::Eq((-200f32).to_bits()));
    assert_eq!(word(&s, 256), Want::Eq((-1f32).to_bits()));
    assert_eq!(word(&s, 512), Want::Eq(9999.75f32.to_bits()));
    assert_eq!(word(&s, 5 * 256 + 512), Want::Eq(10000f32.to_bits()));
    let Want::F32Ulps { want, ulps: 16 } = word(&s, 768) else { panic!("div") };
    assert_eq!(f32::from_bits(want), -100.5 / -99.5);
    // lds_transpose (1, 2): Σ (1 + 16k)(2 + 16k) = 323232. alloca at column 2, row 1 (word
    // 2·16 + 1): 2 Σ_k (32 + k)(64 + k + 1) = 250176.
    assert_eq!(word(&spec(Which::LdsTranspose, &f), 18), Want::Eq(323232f32.to_bits()));
    assert_eq!(word(&spec(Which::Alloca, &f), 33), Want::Eq(250176f32.to_bits()));
    // layout_assumptions: word 16 + 3 is 4 + 100 + k for k < 8 on 32 lanes.
    let Want::OneOf(alts) = word(&spec(Which::LayoutAssumptions, &f), 19) else { panic!() };
    assert_eq!(alts, (104..112).map(|v| (v as f32).to_bits()).collect::<Vec<_>>());
    // The ulp distance is counted through zero.
    use untangle_testkit::vulkan::corpus::f32_ulp_distance;
    assert_eq!(f32_ulp_distance(0x8000_0001, 1), 2);
    assert_eq!(f32_ulp_distance(0x8000_0000, 0), 0);
}

/// On the device: every case passes, and fails with one expected value changed.
#[test]
fn corpus_wmma_on_the_device() {
    let Some(dir) = corpus() else { return };
    let Some(mut gpu) = open_or_skip("gpu_ags_corpus") else { return };
    let f = gpu.info().features.clone();
    let missing: Vec<&str> = [
        (!f.cooperative_matrix_f16_f32, "VK_KHR_cooperative_matrix with a 16x16x16 f16 x f16 + f32 form"),
        (!(f.shader_float16 && f.storage_16bit), "16-bit floats and storage"),
        (f.subgroup_size != 32, "a 32-lane subgroup ([WaveSize(32)])"),
    ]
    .into_iter()
    .filter_map(|(m, what)| m.then_some(what))
    .collect();
    if !missing.is_empty() {
        println!("SKIPPED gpu_ags_corpus: {} lacks {}", gpu.info(), missing.join(", "));
        return;
    }
    let timeout = Duration::from_secs(60);
    let mut failures = Vec::new();
    for case in cases() {
        let bytes = std::fs::read(dir.join(case.file)).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let mut spec = spec(case.which, &f);
        if let Err(e) = run_spec(&mut gpu, &bytes, &spec, &AgsPlacement, timeout) {
            failures.push(format!("{} ({}): {e}", case.file, case.vkd3d_test));
            continue;
        }
        let at = perturb(&mut spec);
        match run_spec(&mut gpu, &bytes, &spec, &AgsPlacement, timeout) {
            Ok(()) => failures.push(format!("{}: passes with a changed expected value ({at})", case.file)),
            Err(e) => println!(
                "{} ({}): pass; changed value caught: {}",
                case.file,
                case.vkd3d_test,
                e.lines().next().unwrap_or("")
            ),
        }
    }
    for (file, test) in FLOAT8 {
        println!("{file} ({test}): not run, needs VK_EXT_shader_float8 (refused without it)");
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases().len(), failures.join("\n"));
}
