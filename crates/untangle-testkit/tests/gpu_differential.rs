//! Differential execution on the Vulkan device (issue 20): the corpus compute shaders and
//! generated programs, each run by the DXIL interpreter and as translated SPIR-V on seeded
//! random inputs, every UAV word compared; deliberately broken lowerings that both runs
//! must catch; the reducer on one of them; and small shaders that each pinned a
//! translator bug the runs found. Skips without a device unless `UNTANGLE_REQUIRE_VULKAN=1`
//! (tools/test.sh sets it).

use std::time::Duration;
use untangle_testkit::difftest::gpu::{
    corpus_files, outcome_line, reduce_mismatch, run_corpus, run_generated, run_program, Outcome,
};
use untangle_testkit::difftest::known::{known_mismatch, uses_ags, LAVAPIPE_NOT_COMPARED};
use untangle_testkit::difftest::sabotage::Sabotage;
use untangle_testkit::vulkan::corpus::DefaultPlacement;
use untangle_testkit::vulkan::{Gpu, VkError};

const TIMEOUT: Duration = Duration::from_secs(20);

fn gpu() -> Option<Gpu> {
    match Gpu::open() {
        Ok(g) => Some(g),
        Err(e @ (VkError::NoLoader(_) | VkError::NoDevice(_))) => {
            assert!(std::env::var("UNTANGLE_REQUIRE_VULKAN").is_err(), "Vulkan required: {e}");
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn corpus() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let files = corpus_files(&dir).expect("corpus folder");
    assert_eq!(files.len(), 113, "the shared corpus holds 113 compute shaders");
    files
}

/// Every corpus compute shader the interpreter and the device can run, 20 seeds each; no
/// mismatch but the known ones (`difftest::known`); every shader that compares nothing says
/// why, and on lavapipe exactly the shaders of `LAVAPIPE_NOT_COMPARED` compare nothing.
#[test]
fn corpus_differential() {
    let Some(mut gpu) = gpu() else { return };
    let files = corpus();
    let started = std::time::Instant::now();
    let results = run_corpus(&mut gpu, &files, 0..20, TIMEOUT, None, |_, _| {});
    let (mut compared, mut compared_ags, mut failures, mut not_compared) = (0, 0, Vec::new(), Vec::new());
    for (name, o) in &results {
        println!("{}", outcome_line(name, o));
        let why = match o {
            Outcome::Ran(r) => {
                if !r.passed() && known_mismatch(name).is_none() {
                    failures.push(name.clone());
                }
                if r.seeds > 0 {
                    if uses_ags(name) {
                        compared_ags += 1;
                    } else {
                        compared += 1;
                    }
                    continue;
                }
                r.first_indeterminate.clone().unwrap_or_default()
            }
            Outcome::LeftOut(why) => why.clone(),
        };
        assert!(!why.is_empty(), "{name} compares nothing, without a reason");
        if !uses_ags(name) {
            not_compared.push((name.clone(), why));
        }
    }
    println!(
        "{compared} of {} corpus shaders (AGS shaders aside) and {compared_ags} AGS shaders compared on {}, {:.1?}",
        files.iter().filter(|f| !uses_ags(&f.to_string_lossy())).count(),
        gpu.info(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "unexplained mismatches: {failures:?}");
    if gpu.info().name.contains("llvmpipe") {
        for (name, why) in &not_compared {
            let expected = LAVAPIPE_NOT_COMPARED.iter().find(|(n, _)| name.starts_with(n));
            assert!(
                expected.is_some_and(|(_, reason)| why.contains(reason)),
                "{name} compares nothing on lavapipe, unexpectedly: {why}"
            );
        }
        let now_compared: Vec<&str> = LAVAPIPE_NOT_COMPARED
            .iter()
            .filter(|(n, _)| !not_compared.iter().any(|(name, _)| name.starts_with(n)))
            .map(|(n, _)| *n)
            .collect();
        assert!(now_compared.is_empty(), "shaders of LAVAPIPE_NOT_COMPARED compare now: {now_compared:?}");
        // 88 shaders besides the 25 AGS ones; 23 compare nothing on lavapipe (see the list).
        assert_eq!(compared, 65);
    } else {
        assert!(compared >= 68, "only {compared} shaders compared anything");
    }
}

/// 500 generated programs, 2 inputs each: no mismatch, and nearly every program compares
/// something (the generator avoids what D3D leaves undefined).
#[test]
fn generated_differential() {
    let Some(mut gpu) = gpu() else { return };
    let started = std::time::Instant::now();
    let s = run_generated(&mut gpu, 0..500, 2, TIMEOUT, None, |_, line| {
        if !line.starts_with("pass") {
            println!("{line}");
        }
    });
    println!(
        "{} programs: {} passed, {} indeterminate, {} untranslated, {} failed, {} words compared, {:.1?}",
        s.programs,
        s.passed,
        s.indeterminate,
        s.untranslated.len(),
        s.failed.len(),
        s.words_compared,
        started.elapsed()
    );
    assert!(s.failed.is_empty() && s.untranslated.is_empty() && s.left_out.is_empty());
    assert!(s.passed >= 490, "only {} of 500 programs compared anything", s.passed);
}

/// A broken lowering (swapped operands of a subtraction; a signed operation made
/// unsigned) fails both the corpus run and the generated programs.
#[test]
fn broken_lowerings_are_caught() {
    let Some(mut gpu) = gpu() else { return };
    let files = corpus();
    for sabotage in Sabotage::ALL {
        let results = run_corpus(&mut gpu, &files, 0..4, TIMEOUT, Some(sabotage), |_, _| {});
        let corpus_failed: Vec<&str> =
            results.iter().filter(|(_, o)| matches!(o, Outcome::Ran(r) if !r.passed())).map(|(n, _)| &n[..]).collect();
        let s = run_generated(&mut gpu, 0..40, 2, TIMEOUT, Some(sabotage), |_, _| {});
        println!(
            "{}: {} corpus shaders fail ({:?}...), {} of 40 generated programs fail",
            sabotage.name(),
            corpus_failed.len(),
            &corpus_failed[..corpus_failed.len().min(3)],
            s.failed.len()
        );
        // At least 1: the emitter folds constant arithmetic, so few corpus shaders keep a
        // subtraction whose result the checks see, and some of those a swap cannot change
        // (`Msad` takes the absolute value of its byte difference): 1 on lavapipe, of the 4
        // seeds; 6 on the H200, which runs the descriptor-indexing shaders too.
        assert!(!corpus_failed.is_empty(), "{}: the corpus run misses it", sabotage.name());
        assert!(s.failed.len() >= 10, "{}: the generated programs miss it", sabotage.name());
    }
}

/// The reducer shrinks a generated program that a broken lowering makes fail to a few
/// instructions that still fail, and reports both results.
#[test]
fn reducer_shrinks_a_mismatch() {
    let Some(mut gpu) = gpu() else { return };
    let placement = DefaultPlacement;
    let options = Default::default();
    let (seed, r) = (0..20)
        .find_map(|seed| {
            let m = untangle_testkit::fuzzing::shader_gen::generate(seed);
            let sabotage = Some(Sabotage::SwapSub);
            reduce_mismatch(&mut gpu, &m, &options, &placement, 0, [1, 1, 1], TIMEOUT, sabotage, 400).map(|r| (seed, r))
        })
        .expect("a sabotaged program that fails");
    print!("gen-{seed}: {}", r.report());
    assert!(!r.mismatches.is_empty(), "the reduced program still differs");
    assert!(r.stats.insts_after < r.stats.insts_before / 4, "reduced too little: {:?}", r.stats);
    assert!(r.stats.insts_after <= 40, "reduced too little: {:?}", r.stats);
}

/// A compute shader (64 threads) with raw buffers `t0` (`%in`) and `u0` (`%out`) and
/// whatever `extra_srvs`/`extra_md` declare, around `body`, which reads `%a` and `%b`
/// (`t0` words `tid` and `tid + 64`) and defines `%r` (`i32`) or `%rf` (`float`: stored
/// as a float, so that the comparison applies float rules), stored to `u0[tid]`.
fn shader(body: &str, decls: &str, extra_srvs: &str, extra_md: &str) -> String {
    let store = if body.contains("%rf =") {
        "call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %out, i32 %a4, i32 undef, float %rf, float undef, float undef, float undef, i8 1, i32 4)"
    } else {
        "call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %a4, i32 undef, i32 %r, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"
    };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%dx.types.Dimensions = type {{ i32, i32, i32, i32 }}
%struct.ByteAddressBuffer = type {{ i32 }}
%struct.RWByteAddressBuffer = type {{ i32 }}
%"class.StructuredBuffer<unsigned int>" = type {{ i32 }}
%"class.Texture2D<float>" = type {{ float, i32 }}
define void @main() {{
entry:
  %in = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a4 = shl i32 %tid, 2
  %la = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %in, i32 %a4, i32 undef, i8 1, i32 4)
  %a = extractvalue %dx.types.ResRet.i32 %la, 0
  %b4 = add i32 %a4, 256
  %lb = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %in, i32 %b4, i32 undef, i8 1, i32 4)
  %b = extractvalue %dx.types.ResRet.i32 %lb, 0
{body}
  {store}
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
{decls}
!dx.version = !{{!0}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 0}}
!1 = !{{i32 1, i32 8}}
!2 = !{{!"cs", i32 6, i32 0}}
!3 = !{{!10, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 16, i32 4, !8}}
!8 = !{{i32 64, i32 1, i32 1}}
!10 = !{{!11{extra_srvs}}}
!11 = !{{i32 0, %struct.ByteAddressBuffer* undef, !"in", i32 0, i32 0, i32 1, i32 11, i32 0, null}}
{extra_md}
"#
    )
}

/// Runs `text` differentially on 8 inputs: it must compare words and find no mismatch.
fn assert_agrees(gpu: &mut Gpu, what: &str, text: &str) {
    let loaded = untangle::front::load_bytes(text.as_bytes().to_vec(), what).unwrap_or_else(|e| panic!("{what}: {e}"));
    let tr = untangle::translate_module(&loaded.module, &Default::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
    let o = run_program(gpu, &loaded.module, &tr, &DefaultPlacement, 0..8, [1, 1, 1], TIMEOUT, None);
    println!("{}", outcome_line(what, &o));
    let Outcome::Ran(r) = o else { panic!("{what} left out") };
    assert!(r.passed(), "{what}: the device differs from the interpreter");
    assert!(r.seeds == 8 && r.counts.compared >= 64 * 8 * 3 / 4, "{what}: too little compared: {:?}", r.counts);
}

/// Float → half conversions whose rounding D3D leaves to the device (issue 33): `f32tof16`
/// of random words (about half of them round differently to nearest even and toward zero,
/// and past the half range to infinity or the largest half). The interpreter once demanded
/// round-to-nearest-even, and NVIDIA's truncating answers failed; both modes now match.
#[test]
fn half_conversions_accept_the_devices_rounding() {
    let Some(mut gpu) = gpu() else { return };
    let body = "  %x = bitcast i32 %a to float\n  %r = call i32 @dx.op.legacyF32ToF16(i32 130, float %x)";
    let decls = "declare i32 @dx.op.legacyF32ToF16(i32, float)";
    assert_agrees(&mut gpu, "f32tof16-rounding", &shader(body, decls, "", ""));
}

/// Translator bugs the differential runs found, one small shader each (they failed on
/// lavapipe or NVIDIA before the fix).
#[test]
fn fixed_translator_bugs_stay_fixed() {
    let Some(mut gpu) = gpu() else { return };
    let g = &mut gpu;
    // `udiv`/`urem` by zero: D3D gives all ones; SPIR-V leaves it undefined.
    let body = "  %d = and i32 %b, 1\n  %q = udiv i32 %a, %d\n  %m = urem i32 %b, %d\n  %r = xor i32 %q, %m";
    assert_agrees(g, "udiv-by-zero", &shader(body, "", "", ""));
    // Bit fields reaching past bit 31: D3D cuts them at bit 31; SPIR-V leaves it undefined.
    let body = "  %u = call i32 @dx.op.tertiary.i32(i32 52, i32 %b, i32 %a, i32 %tid)
  %s = call i32 @dx.op.tertiary.i32(i32 51, i32 %a, i32 %b, i32 %u)
  %r = call i32 @dx.op.quaternary.i32(i32 53, i32 %b, i32 %a, i32 %s, i32 %tid)";
    let decls = "declare i32 @dx.op.tertiary.i32(i32, i32, i32, i32)
declare i32 @dx.op.quaternary.i32(i32, i32, i32, i32, i32)";
    assert_agrees(g, "bitfield-past-bit-31", &shader(body, decls, "", ""));
    // Saturate of NaN: D3D gives 0; FClamp of NaN is undefined.
    let body = "  %inf = bitcast i32 2139095040 to float
  %nan = fsub float %inf, %inf
  %odd = trunc i32 %a to i1
  %x = sitofp i32 %b to float
  %v = select i1 %odd, float %nan, float %x
  %rf = call float @dx.op.unary.f32(i32 7, float %v)";
    let decls = "declare float @dx.op.unary.f32(i32, float)";
    assert_agrees(g, "saturate-nan", &shader(body, decls, "", ""));
    // A structured index whose `index × stride` passes 32 bits: D3D reads 0 (past the
    // end); a 32-bit product wraps into the buffer.
    let body = "  %st = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 1, i32 1, i1 false)
  %hi = shl i32 %b, 30
  %i = or i32 %hi, %tid
  %l = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %st, i32 %i, i32 0, i8 1, i32 4)
  %r = extractvalue %dx.types.ResRet.i32 %l, 0";
    let srv = r#"!12 = !{i32 1, %"class.StructuredBuffer<unsigned int>"* undef, !"st", i32 0, i32 1, i32 1, i32 12, i32 0, !13}
!13 = !{i32 1, i32 4}"#;
    assert_agrees(g, "structured-index-wraps", &shader(body, "", ", !12", srv));
    // The same with stride 16 and an offset that makes `index × stride + offset` pass 32 bits
    // (D3D: past the end, 0; a 32-bit sum wraps into the buffer), for indices that wrap too.
    let body = "  %st = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 1, i32 1, i1 false)
  %hi = shl i32 %b, 28
  %i = or i32 %hi, %tid
  %o0 = shl i32 %a, 28
  %o = and i32 %o0, -16
  %l = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %st, i32 %i, i32 %o, i8 1, i32 4)
  %r = extractvalue %dx.types.ResRet.i32 %l, 0";
    let srv = r#"!12 = !{i32 1, %"class.StructuredBuffer<unsigned int>"* undef, !"st", i32 0, i32 1, i32 1, i32 12, i32 0, !13}
!13 = !{i32 1, i32 16}"#;
    assert_agrees(g, "structured-offset-wraps", &shader(body, "", ", !12", srv));
    // GetDimensions of a mip level past the last: D3D gives 0; SPIR-V's size query needs a
    // level that exists.
    let body = "  %tex = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 1, i32 1, i1 false)
  %mip = and i32 %a, 1
  %d = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %tex, i32 %mip)
  %w = extractvalue %dx.types.Dimensions %d, 0
  %h = extractvalue %dx.types.Dimensions %d, 1
  %n = extractvalue %dx.types.Dimensions %d, 3
  %wh = add i32 %w, %h
  %r = add i32 %wh, %n";
    let decls = "declare %dx.types.Dimensions @dx.op.getDimensions(i32, %dx.types.Handle, i32)";
    let srv = r#"!12 = !{i32 1, %"class.Texture2D<float>"* undef, !"tex", i32 0, i32 1, i32 1, i32 2, i32 0, !13}
!13 = !{i32 0, i32 9}"#;
    assert_agrees(g, "dimensions-past-last-mip", &shader(body, decls, ", !12", srv));
    // `precise` arithmetic (no fast-math flag) must not be reassociated: (20.75 + x) - x
    // is 0 for large x, not 20.75 (Mesa folded it without `NoContraction`).
    let body = "  %x = sitofp i32 %a to float
  %s = fadd float 2.075000e+01, %x
  %t = fsub float %s, %x
  %p = fmul float %x, %x
  %q = fadd float %p, %s
  %rf = fadd float %t, %q";
    assert_agrees(g, "precise-not-reassociated", &shader(body, "", "", ""));
    // `WaveMultiPrefixSum` whose masks hold lanes that do not run: the odd or even lanes
    // of all 32, entered by the lanes where bit 2 of `b` is set, with per-lane junk in
    // the word of lanes 96..127. D3D ANDs a mask with the active lanes first; comparing
    // raw masks made every lane its own partition (vkd3d-proton's
    // `test_shader_sm65_wave_intrinsics`, tests 3 and 4).
    let body = "  %lane = call i32 @dx.op.waveGetLaneIndex(i32 111)
  %par = and i32 %lane, 1
  %odd = icmp ne i32 %par, 0
  %m0 = select i1 %odd, i32 -1431655766, i32 1431655765
  %c = and i32 %b, 4
  %take = icmp ne i32 %c, 0
  br i1 %take, label %then, label %join
then:
  %v = call i32 @dx.op.waveMultiPrefixOp.i32(i32 166, i32 %a, i32 %m0, i32 0, i32 0, i32 %b, i8 0, i8 1)
  %w = call i32 @dx.op.waveMultiPrefixBitCount(i32 167, i1 %odd, i32 %m0, i32 0, i32 0, i32 %a)
  %vw = xor i32 %v, %w
  br label %join
join:
  %r = phi i32 [ %vw, %then ], [ 7, %entry ]";
    let decls = "declare i32 @dx.op.waveGetLaneIndex(i32)
declare i32 @dx.op.waveMultiPrefixOp.i32(i32, i32, i32, i32, i32, i32, i8, i8)
declare i32 @dx.op.waveMultiPrefixBitCount(i32, i1, i32, i32, i32, i32)";
    assert_agrees(
        g,
        "multi-prefix-masks-inactive-lanes",
        &shader(body, decls, "", "").replace(r#"!"cs", i32 6, i32 0"#, r#"!"cs", i32 6, i32 5"#),
    );
    // SM 6.6 quad operations in a 4×16 group: the quads are 2×2 threads (vkd3d-proton's
    // `test_shader_sm66_quad_op_semantics`), which the derivative group layout gives. Rows
    // of 4, so that a wave of 8 or more threads (the interpreter's: consecutive flattened
    // indices) holds whole quads.
    let body = "  %qx = call i32 @dx.op.quadOp.i32(i32 123, i32 %a, i8 0)
  %qy = call i32 @dx.op.quadOp.i32(i32 123, i32 %a, i8 1)
  %qd = call i32 @dx.op.quadOp.i32(i32 123, i32 %a, i8 2)
  %q3 = call i32 @dx.op.quadReadLaneAt.i32(i32 122, i32 %a, i32 3)
  %sy = mul i32 %qy, 3
  %sd = mul i32 %qd, 5
  %s3 = mul i32 %q3, 7
  %o1 = add i32 %qx, %sy
  %o2 = add i32 %o1, %sd
  %r = add i32 %o2, %s3";
    let decls = "declare i32 @dx.op.quadOp.i32(i32, i32, i8)
declare i32 @dx.op.quadReadLaneAt.i32(i32, i32, i32)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)";
    let text = shader(body, decls, "", "")
        .replace(r#"!"cs", i32 6, i32 0"#, r#"!"cs", i32 6, i32 6"#)
        .replace("!8 = !{i32 64, i32 1, i32 1}", "!8 = !{i32 4, i32 16, i32 1}")
        .replace(
            "%tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)",
            "%tid = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)",
        );
    if g.info().features.compute_derivatives {
        assert_agrees(g, "sm66-quads-2x2", &text);
    } else {
        // Without VK_KHR_compute_shader_derivatives (lavapipe) the device's quads stay
        // 4 consecutive lanes whatever the module declares.
        println!("sm66-quads-2x2: left out, {} has no compute-shader derivatives", g.info().name);
    }
}
