//! The interpreter on DXIL 1.9 native vectors (issue 34, item 6), against values written
//! by hand from DXC's `docs/DXIL.rst` and `utils/hct/hctdb.py`: a hand-written shader with
//! vectors of 8, 20 and 3 lanes (`rawBufferVectorLoad`/`Store` in and out of bounds and
//! misaligned, lane-wise `add`/`icmp`/`select`/`fmul`, `shufflevector`, `extractelement`,
//! a PHI of `<20 x float>`, `VectorReduceAnd`/`Or` of `i32` and `i1` vectors, vector
//! `IsNaN`/`IsInf`, the `FMax` vector overload and `FDot`); a wrong expected word is
//! caught; and generated long-vector programs all translate to valid SPIR-V and run in the
//! interpreter (the device side is `gpu_long_vectors`).

use untangle_testkit::difftest::inputs::{inputs, to_interp, Budget};
use untangle_testkit::difftest::{compare, reference};
use untangle_testkit::fuzzing::shader_gen::{generate_with, Config};
use untangle_testkit::interp::{Program, Resources};

fn splat(ty: &str, v: &str, n: u32) -> String {
    format!("<{}>", (0..n).map(|_| format!("{ty} {v}")).collect::<Vec<_>>().join(", "))
}

fn lanes(ty: &str, vs: impl IntoIterator<Item = u32>) -> String {
    format!("<{}>", vs.into_iter().map(|v| format!("{ty} {v}")).collect::<Vec<_>>().join(", "))
}

/// Two threads over one `RWByteAddressBuffer` (256 words); see [`expected`] for the
/// layout.
fn shader() -> String {
    let body = format!(
        r#"  %off = shl i32 %tid, 5
  %ld = call %dx.types.ResRet.v8i32 @dx.op.rawBufferVectorLoad.v8i32(i32 303, %dx.types.Handle %buf, i32 %off, i32 undef, i32 4)
  %v = extractvalue %dx.types.ResRet.v8i32 %ld, 0
  %w = add <8 x i32> %v, {iota8}
  %c = icmp ult <8 x i32> %w, {four8}
  %s = select <8 x i1> %c, <8 x i32> %v, <8 x i32> %w
  %r = shufflevector <8 x i32> %s, <8 x i32> %w, <8 x i32> {rev}
  %or = call i32 @dx.op.vectorReduce.v8i32(i32 310, <8 x i32> %r)
  %sm = or <8 x i32> %s, {b256}
  %and = call i32 @dx.op.vectorReduce.v8i32(i32 309, <8 x i32> %sm)
  %ro = add i32 %off, 512
  call void @dx.op.rawBufferVectorStore.v8i32(i32 304, %dx.types.Handle %buf, i32 %ro, i32 undef, <8 x i32> %r, i32 4)
  %mo = add i32 %off, 2
  %ml = call %dx.types.ResRet.v8i32 @dx.op.rawBufferVectorLoad.v8i32(i32 303, %dx.types.Handle %buf, i32 %mo, i32 undef, i32 4)
  %mv = extractvalue %dx.types.ResRet.v8i32 %ml, 0
  %mis = call i32 @dx.op.vectorReduce.v8i32(i32 310, <8 x i32> %mv)
  %fo = mul i32 %tid, 80
  %fo2 = add i32 %fo, 256
  %lf = call %dx.types.ResRet.v20f32 @dx.op.rawBufferVectorLoad.v20f32(i32 303, %dx.types.Handle %buf, i32 %fo2, i32 undef, i32 4)
  %f = extractvalue %dx.types.ResRet.v20f32 %lf, 0
  %nan = call <20 x i1> @dx.op.isSpecialFloat.v20f32(i32 8, <20 x float> %f)
  %nanz = zext <20 x i1> %nan to <20 x i32>
  %anynan = call i32 @dx.op.vectorReduce.v20i32(i32 310, <20 x i32> %nanz)
  %inf = call <20 x i1> @dx.op.isSpecialFloat.v20f32(i32 9, <20 x float> %f)
  %anyinf = call i1 @dx.op.vectorReduce.v20i1(i32 310, <20 x i1> %inf)
  %anyinfz = zext i1 %anyinf to i32
  %fm = call <20 x float> @dx.op.binary.v20f32(i32 35, <20 x float> %f, <20 x float> {three20})
  %e6 = extractelement <20 x float> %fm, i32 6
  %e5 = extractelement <20 x float> %fm, i32 5
  %f3 = shufflevector <20 x float> %f, <20 x float> undef, <3 x i32> <i32 0, i32 1, i32 2>
  %dot = call float @dx.op.dot.v3f32(i32 311, <3 x float> %f3, <3 x float> %f3)
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %then, label %join
then:
  %g = fmul <20 x float> %fm, {two20}
  %lo = call %dx.types.ResRet.v8i32 @dx.op.rawBufferVectorLoad.v8i32(i32 303, %dx.types.Handle %buf, i32 1016, i32 undef, i32 4)
  %o = extractvalue %dx.types.ResRet.v8i32 %lo, 0
  %oor = call i32 @dx.op.vectorReduce.v8i32(i32 310, <8 x i32> %o)
  %o1 = extractelement <8 x i32> %o, i32 1
  %o2 = extractelement <8 x i32> %o, i32 2
  %op1 = add <8 x i32> %o, {one8}
  call void @dx.op.rawBufferVectorStore.v8i32(i32 304, %dx.types.Handle %buf, i32 1016, i32 undef, <8 x i32> %op1, i32 4)
  {store_oor}
  {store_o1}
  {store_o2}
  br label %join
join:
  %p = phi <20 x float> [ %fm, %entry ], [ %g, %then ]
  %p19 = extractelement <20 x float> %p, i32 19
  %po = add i32 %fo, 704
  call void @dx.op.rawBufferVectorStore.v20f32(i32 304, %dx.types.Handle %buf, i32 %po, i32 undef, <20 x float> %p, i32 4)
  %so = shl i32 %tid, 5
  %s0 = add i32 %so, 640
  {scalars}
  %mso = shl i32 %tid, 2
  %mso2 = add i32 %mso, 864
  {store_mis}"#,
        iota8 = lanes("i32", 0..8),
        four8 = splat("i32", "4", 8),
        rev = lanes("i32", [7, 6, 5, 4, 3, 2, 1, 8]),
        b256 = splat("i32", "256", 8),
        one8 = splat("i32", "1", 8),
        three20 = splat("float", "3.0", 20),
        two20 = splat("float", "2.0", 20),
        store_oor = store_i32("896", "%oor"),
        store_o1 = store_i32("900", "%o1"),
        store_o2 = store_i32("904", "%o2"),
        store_mis = store_i32("%mso2", "%mis"),
        scalars = [
            ("%or", false),
            ("%and", false),
            ("%anynan", false),
            ("%anyinfz", false),
            ("%e6", true),
            ("%e5", true),
            ("%dot", true),
            ("%p19", true)
        ]
        .iter()
        .enumerate()
        .map(|(j, (v, float))| {
            let at = format!("%s{}", j + 1);
            let add = format!("{at} = add i32 %s0, {}", 4 * j);
            let st = if *float { store_f32(&at, v) } else { store_i32(&at, v) };
            format!("{add}\n  {st}")
        })
        .collect::<Vec<_>>()
        .join("\n  "),
    );
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.v8i32 = type {{ <8 x i32>, i32 }}
%dx.types.ResRet.v20f32 = type {{ <20 x float>, i32 }}
%struct.Buf = type {{ i32 }}
define void @main() {{
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
{body}
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.v8i32 @dx.op.rawBufferVectorLoad.v8i32(i32, %dx.types.Handle, i32, i32, i32)
declare %dx.types.ResRet.v20f32 @dx.op.rawBufferVectorLoad.v20f32(i32, %dx.types.Handle, i32, i32, i32)
declare void @dx.op.rawBufferVectorStore.v8i32(i32, %dx.types.Handle, i32, i32, <8 x i32>, i32)
declare void @dx.op.rawBufferVectorStore.v20f32(i32, %dx.types.Handle, i32, i32, <20 x float>, i32)
declare i32 @dx.op.vectorReduce.v8i32(i32, <8 x i32>)
declare i32 @dx.op.vectorReduce.v20i32(i32, <20 x i32>)
declare i1 @dx.op.vectorReduce.v20i1(i32, <20 x i1>)
declare <20 x i1> @dx.op.isSpecialFloat.v20f32(i32, <20 x float>)
declare <20 x float> @dx.op.binary.v20f32(i32, <20 x float>, <20 x float>)
declare float @dx.op.dot.v3f32(i32, <3 x float>, <3 x float>)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 9}}
!2 = !{{!"cs", i32 6, i32 9}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.Buf* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 16, i32 4, !8}}
!8 = !{{i32 2, i32 1, i32 1}}
"#
    )
}

fn store_i32(at: &str, v: &str) -> String {
    format!(
        "call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %buf, i32 {at}, i32 undef, i32 {v}, i32 undef, \
         i32 undef, i32 undef, i8 1, i32 4)"
    )
}

fn store_f32(at: &str, v: &str) -> String {
    format!(
        "call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 {at}, i32 undef, float {v}, float \
         undef, float undef, float undef, i8 1, i32 4)"
    )
}

/// The buffer before the run: words 0–15 their index (the `<8 x i32>` of thread `t` at
/// word `8t`); words 64–103 `0.5 * (i - 64)` as floats (the `<20 x float>` of thread `t`
/// at word `64 + 20t`), but word 69 a NaN and word 70 +infinity; words 254 and 255 0x10
/// and 0x20 (the out-of-bounds vector access at byte 1016); everything else `0xdead_0000 + i`.
fn input() -> Vec<u32> {
    (0..256u32)
        .map(|i| match i {
            0..=15 => i,
            69 => 0x7fc0_0000,
            70 => 0x7f80_0000,
            64..=103 => (0.5 * (i - 64) as f32).to_bits(),
            254 => 0x10,
            255 => 0x20,
            _ => 0xdead_0000 + i,
        })
        .collect()
}

/// The buffer after the run, worked out by hand:
/// - words 128 + 8t: `r`, the lanes of `s = select(v + iota < 4, v, v + iota)` reversed
///   with lane 7 from `w = v + iota` (thread 0: s = [0 1 4 6 8 10 12 14]; thread 1: w);
/// - words 160 + 8t: `VectorReduceOr(r)`, `VectorReduceAnd(s | 256)`, any NaN lane, any
///   infinite lane (an `i1` reduction), `FMax(f, 3)` lanes 6 and 5 (a NaN lane gives 3),
///   `FDot` of lanes 0–2 with themselves, lane 19 of the PHI (thread 0 doubled it);
/// - words 176 + 20t: the PHI, `FMax(f, 3)` (doubled by thread 0);
/// - words 216 + t: the reduction of a misaligned load: undefined (`None`);
/// - words 224–226 (thread 0): `or` of the lanes read at byte 1016 (two in bounds, the
///   rest 0), lane 1, lane 2 (0); words 254–255 those lanes plus one (the other six
///   lanes of the store are out of bounds: dropped).
fn expected() -> Vec<Option<u32>> {
    let mut w: Vec<Option<u32>> = input().into_iter().map(Some).collect();
    let f = |x: f32| Some(x.to_bits());
    let r = [[14, 12, 10, 8, 6, 4, 1, 0], [22, 20, 18, 16, 14, 12, 10, 8]];
    for (t, lanes) in r.iter().enumerate() {
        for (k, &x) in lanes.iter().enumerate() {
            w[128 + 8 * t + k] = Some(x);
        }
    }
    let scalars = [
        [Some(15), Some(256), Some(1), Some(1), f(f32::INFINITY), f(3.0), f(1.25), f(19.0)],
        [Some(30), Some(256), Some(0), Some(0), f(13.0), f(12.5), f(331.25), f(19.5)],
    ];
    for (t, s) in scalars.iter().enumerate() {
        for (j, &x) in s.iter().enumerate() {
            w[160 + 8 * t + j] = x;
        }
    }
    for k in 0..20 {
        let t0 = match k {
            0..=5 => 6.0,
            6 => f32::INFINITY,
            _ => k as f32,
        };
        w[176 + k] = f(t0);
        w[196 + k] = f(10.0 + 0.5 * k as f32);
    }
    w[216] = None;
    w[217] = None;
    w[224] = Some(0x30);
    w[225] = Some(0x20);
    w[226] = Some(0);
    w[254] = Some(0x11);
    w[255] = Some(0x21);
    w
}

fn program(text: &str) -> Program<'static> {
    let m = untangle::front::load_bytes(text.as_bytes().to_vec(), "long-vectors.ll").expect("loads").module;
    Program::new(Box::leak(Box::new(m))).unwrap_or_else(|e| panic!("{}", e.0))
}

fn interp_inputs(p: &Program) -> Resources {
    let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
    assert_eq!(ins.len(), 1);
    ins[0].bytes = input().iter().flat_map(|w| w.to_le_bytes()).collect();
    to_interp(&ins)
}

/// `expected` as device words: a defined word as it is, an undefined one as some bits.
fn device(expected: &[Option<u32>]) -> Vec<Option<Vec<u8>>> {
    vec![Some(expected.iter().flat_map(|w| w.unwrap_or(0x1234_5678).to_le_bytes()).collect())]
}

/// The interpreter computes every hand-worked word, exactly; the two misaligned
/// reductions are undefined (not compared).
#[test]
fn long_vector_shader_matches_hand_worked_values() {
    let text = shader();
    let p = program(&text);
    let res = interp_inputs(&p);
    let got = reference(&p, &res, 32, [1, 1, 1]).unwrap_or_else(|e| panic!("runs: {e}"));
    let want = expected();
    let (bad, counts) = compare(&got, &device(&want));
    assert!(bad.is_empty(), "{}", bad.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"));
    assert_eq!(counts.compared, 254, "{counts:?}");
    assert_eq!(counts.skipped, 2, "{counts:?}");
    // And the shader is valid DXIL 1.9 the translator lowers to valid SPIR-V.
    let t = untangle::translate(text.as_bytes(), &untangle::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "long-vector shader");
}

/// A device answer with one wrong word is caught: a lane order swapped in the `<8 x i32>`
/// store, an `FDot` off by one step, a NaN lane that `FMax` did not replace, an
/// out-of-bounds lane that was written.
#[test]
fn a_wrong_long_vector_word_is_caught() {
    let p = program(&shader());
    let got = reference(&p, &interp_inputs(&p), 32, [1, 1, 1]).expect("runs");
    let cases: [(&str, Vec<(usize, u32)>); 4] = [
        ("lanes 0 and 1 swapped", vec![(128, 12), (129, 14)]),
        ("FDot", vec![(160 + 8 + 6, 331.5f32.to_bits())]),
        ("FMax of a NaN lane", vec![(160 + 5, 0x7fc0_0000)]),
        ("out-of-bounds lane written", vec![(224 + 2, 1)]),
    ];
    for (what, changes) in cases {
        let mut want = expected();
        for &(i, v) in &changes {
            want[i] = Some(v);
        }
        let (bad, _) = compare(&got, &device(&want));
        let offsets: Vec<usize> = bad.iter().map(|m| m.byte_offset / 4).collect();
        let words: Vec<usize> = changes.iter().map(|c| c.0).collect();
        assert_eq!(offsets, words, "{what}: {bad:?}");
    }
}

/// Generated long-vector programs (the CI's seeds and more): each translates to a module
/// `spirv-val` accepts, and the interpreter runs it on an input without an internal error.
#[test]
fn generated_long_vector_programs_translate_and_interpret() {
    let config = Config { long_vectors: true };
    let mut exact_words = 0;
    for seed in 0..40 {
        let m = generate_with(seed, config);
        let t = untangle::translate_module(&m, &untangle::Options::default())
            .unwrap_or_else(|e| panic!("gen-{seed}: {e}\n{}", untangle_testkit::fuzzing::shader_gen::dump(&m)));
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", &format!("gen-{seed}"));
        let p = Program::new(&m).unwrap_or_else(|e| panic!("gen-{seed}: {}", e.0));
        let ins = inputs(&p.info.resources, seed, Budget::default()).expect("inputs");
        match reference(&p, &to_interp(&ins), 32, [1, 1, 1]) {
            Ok(r) => {
                exact_words +=
                    r.list.iter().map(|d| d.mem.tags.iter().filter(|t| t.acc.is_exact()).count()).sum::<usize>()
            }
            Err(untangle_testkit::interp::RunError::Internal(e)) => panic!("gen-{seed}: interpreter: {e}"),
            Err(_) => {}
        }
    }
    assert!(exact_words > 0);
}
