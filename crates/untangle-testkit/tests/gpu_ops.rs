//! DXIL operations executed on a Vulkan device (lavapipe in CI) and compared with their
//! CPU semantics (`untangle_testkit::dxil_ops::reference`, written from DXC's `DXIL.rst`):
//! every synthesized call with a reference (integer two-result operations, carries, bit
//! fields in 32 and 64 bits, bit scans in 16/32/64 bits, `Msad`, float classification,
//! legacy double conversions, packing, ...), 64 invocations each over inputs that mix random
//! words, small integers and special float encodings; then constant-buffer loads in every
//! overload, and the cycle counter.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail. Calls needing a feature the device lacks
//! (64-bit, 16-bit or 8-bit types) are skipped and listed.

use std::time::Duration;
use untangle::Options;
use untangle_testkit::dxil_ops::reference::{self, Value};
use untangle_testkit::dxil_ops::shell::{Res, Shell};
use untangle_testkit::dxil_ops::synth::{Body, Scalar, INPUT_WORDS, OUTPUT_WORDS, OUT_BASE};
use untangle_testkit::dxil_ops::{gpu_calls, SynthCall};
use untangle_testkit::fuzzing::mutate::SplitMix64;
use untangle_testkit::vulkan::{Binding, Dispatch, Features, Gpu, Resource};

const INVOCATIONS: usize = 64;
const TIMEOUT: Duration = Duration::from_secs(60);

use untangle_testkit::vulkan::open_or_skip as gpu_or_skip;

/// Whether the device runs code using type `t`.
fn has(f: &Features, t: Scalar) -> bool {
    match t {
        Scalar::I64 => f.shader_int64,
        Scalar::F64 => f.shader_float64,
        Scalar::I16 => f.shader_int16,
        Scalar::F16 => f.shader_float16,
        Scalar::I8 => f.shader_int8,
        _ => true,
    }
}

/// Eight input words for invocation `i`: random, small integers, float specials (32- and
/// 16-bit encodings) or double specials, by `i % 4`.
fn inputs(i: usize, rng: &mut SplitMix64) -> [u32; INPUT_WORDS] {
    const F32: &[u32] = &[
        0,
        0x8000_0000,
        0x3f80_0000,
        0xbfc0_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        1,
        0x807f_ffff,
        0x7f7f_ffff,
        0x0080_0000,
        0x3c00,
        0x7c00,
        0xfc00,
        0x7e00,
        0x0001,
        0x03ff,
        0x0400,
        0x8000,
        0x7bff,
        0x3f00_0000,
    ];
    const F64: &[f64] = &[
        1e9,
        -3.7,
        3e9,
        -3e9,
        5e9,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.5,
        -0.0,
        4294967295.9,
        2147483647.5,
        -2147483648.7,
        -2147483649.0,
        1e-310,
        3.4e38,
        3.5e38,
        1.0 + f64::EPSILON,
    ];
    let mut w = [0u32; INPUT_WORDS];
    match i % 4 {
        0 => w.iter_mut().for_each(|x| *x = rng.next_u32()),
        1 => w.iter_mut().for_each(|x| *x = rng.below(70) as u32),
        2 => w.iter_mut().for_each(|x| *x = F32[rng.below(F32.len())]),
        _ => {
            for k in 0..INPUT_WORDS / 2 {
                let d = F64[rng.below(F64.len())].to_bits();
                w[2 * k] = d as u32;
                w[2 * k + 1] = (d >> 32) as u32;
            }
        }
    }
    w
}

/// Result words agree: bit for bit, except that IEEE zeros of either sign match (D3D leaves
/// the sign of `max(-0, +0)` open) and an expected denormal may be flushed to zero (drivers
/// may flush).
fn same(t: Scalar, got: u64, want: u64) -> bool {
    if got == want {
        return true;
    }
    let (exp, sign) = match t {
        Scalar::F16 => (0x7c00u64, 0x8000u64),
        Scalar::F32 => (0x7f80_0000, 0x8000_0000),
        Scalar::F64 => (0x7ff0_0000_0000_0000, 0x8000_0000_0000_0000),
        _ => return false,
    };
    let zero_or_denormal = |x: u64| x & exp == 0;
    // A zero of either sign where a zero (of either sign) or a denormal was expected.
    got & !sign == 0 && zero_or_denormal(want)
}

/// The words of a result list, with the scalar each word belongs to.
fn typed_words(values: &[Value]) -> Vec<(Scalar, usize, u64)> {
    let mut out = Vec::new();
    for (k, v) in values.iter().enumerate() {
        out.push((v.ty, k, v.bits));
    }
    out
}

fn run_kernel(gpu: &mut Gpu, text: &str, buffer: Vec<u32>, extra: Vec<(&str, Resource)>) -> Result<Vec<u32>, String> {
    let t = untangle::translate(text.as_bytes(), &Options::default()).map_err(|e| format!("translate: {e}"))?;
    let place = |name: &str| t.bindings.iter().find(|r| r.name == name).map(|r| (r.set, r.binding));
    let (set, binding) = place("out").ok_or("no binding for `out`")?;
    let mut bindings = vec![Binding::new(set, binding, Resource::words(&buffer))];
    for (name, r) in extra {
        let (set, binding) = place(name).ok_or_else(|| format!("no binding for `{name}`"))?;
        bindings.push(Binding::new(set, binding, r));
    }
    let d = Dispatch {
        spirv: &t.words,
        entry: &t.entry_point,
        bindings,
        groups: [1, 1, 1],
        timeout: TIMEOUT,
        ..Default::default()
    };
    let r = gpu.dispatch(&d).map_err(|e| e.to_string())?;
    r.words(0).ok_or_else(|| "no result".to_string())
}

fn kernel_shell() -> Shell {
    let mut shell = Shell::new("cs");
    shell.threads = [INVOCATIONS as u32, 1, 1];
    shell
}

fn check_call(gpu: &mut Gpu, call: &SynthCall, rng: &mut SplitMix64) -> Result<(), String> {
    let (body, decls) = call.body("cs");
    let text = kernel_shell().module(&body, &decls);
    let words = (OUT_BASE as usize + 64 * INVOCATIONS) / 4;
    let mut buffer = vec![0u32; words];
    let mut ins = Vec::new();
    for i in 0..INVOCATIONS {
        let w = inputs(i, rng);
        buffer[i * INPUT_WORDS..(i + 1) * INPUT_WORDS].copy_from_slice(&w);
        ins.push(w);
    }
    let out = run_kernel(gpu, &text, buffer, vec![])?;
    let types = call.operand_types();
    let mut errors = Vec::new();
    for (i, w) in ins.iter().enumerate() {
        let args = reference::operands(&types, w);
        let Some(want) = reference::compute(call.op, call.overload, &call.imm, &args) else { continue };
        let base = (OUT_BASE as usize) / 4 + 16 * i;
        let mut at = base;
        for (t, k, bits) in typed_words(&want) {
            let n = t.words();
            let got = if n == 2 { out[at] as u64 | (out[at + 1] as u64) << 32 } else { out[at] as u64 };
            if !same(t, got, bits) {
                errors.push(format!("invocation {i} inputs {w:08x?}: result {k} = {got:#x}, expected {bits:#x}"));
            }
            at += n;
        }
        assert!(at - base <= OUTPUT_WORDS);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        let n = errors.len();
        errors.truncate(4);
        Err(format!("{n} mismatches, e.g.\n    {}", errors.join("\n    ")))
    }
}

#[test]
fn synthesized_calls_compute_what_dxil_specifies() {
    let Some(mut gpu) = gpu_or_skip("synthesized_calls_compute_what_dxil_specifies") else { return };
    let features = gpu.info().features.clone();
    let mut rng = SplitMix64::new(0x6f70_5f63_6865_636b);
    let (mut passed, mut skipped, mut failed) = (0, Vec::new(), Vec::new());
    for call in gpu_calls() {
        let mut types = call.operand_types();
        types.push(call.overload);
        if let Some(t) = types.iter().find(|&&t| !has(&features, t)) {
            skipped.push(format!("{} (no {t:?})", call.name()));
            continue;
        }
        match check_call(&mut gpu, &call, &mut rng) {
            Ok(()) => passed += 1,
            Err(e) => failed.push(format!("{}: {e}", call.name())),
        }
    }
    println!("{passed} calls passed; skipped: {skipped:?}");
    assert!(failed.is_empty(), "{} calls failed:\n{}", failed.len(), failed.join("\n"));
    assert!(passed >= 60, "only {passed} calls ran");
}

/// Constant-buffer loads: `cbufferLoadLegacy` rows in 32-, 64- and 16-bit overloads (native
/// and minimum precision) and `cbufferLoad` at byte offsets in every width, against the
/// buffer's bytes.
#[test]
fn constant_buffer_loads_read_the_right_bytes() {
    let Some(mut gpu) = gpu_or_skip("constant_buffer_loads_read_the_right_bytes") else { return };
    let f = gpu.info().features.clone();
    if !(f.shader_int64 && f.shader_int16 && f.shader_int8 && f.shader_float16 && f.shader_float64) {
        println!("skipped: the device lacks 8/16/64-bit types");
        return;
    }
    let bytes: Vec<u8> = (0..256u32).map(|k| (k.wrapping_mul(37) ^ 0x5a) as u8).collect();
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut b = Body::default();
    b.declare("declare i32 @dx.op.threadId.i32(i32, i32)");
    b.line("%tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)");
    let legacy = [
        ("i32", "%dx.types.CBufRet.i32", Scalar::I32, 4),
        ("i64", "%dx.types.CBufRet.i64", Scalar::I64, 2),
        ("i16", "%dx.types.CBufRet.i16.8", Scalar::I16, 8),
    ];
    for (sfx, ty, s, n) in legacy {
        b.declare(format!("declare {ty} @dx.op.cbufferLoadLegacy.{sfx}(i32, %dx.types.Handle, i32)"));
        let r = b.fresh();
        b.line(format!("{r} = call {ty} @dx.op.cbufferLoadLegacy.{sfx}(i32 59, %dx.types.Handle %cb, i32 %tid)"));
        for k in 0..n {
            let x = b.fresh();
            b.line(format!("{x} = extractvalue {ty} {r}, {k}"));
            b.output(s, &x);
        }
    }
    b.store_outputs("%tid");
    // The byte-offset loads go to a second output slot of the same invocation.
    b.outputs.clear();
    let c = &mut b;
    let loads = [
        (Scalar::I8, 3, 1),
        (Scalar::I16, 2, 0),
        (Scalar::I32, 4, 0),
        (Scalar::I64, 8, 0),
        (Scalar::F16, 2, 2),
        (Scalar::F64, 8, 0),
    ];
    for (s, stride, bias) in loads {
        let (o, m) = (c.fresh(), c.fresh());
        c.line(format!("{m} = mul i32 %tid, {stride}"));
        c.line(format!("{o} = add i32 {m}, {bias}"));
        let size = s.bits().max(8) / 8;
        c.declare(format!("declare {} @dx.op.cbufferLoad.{}(i32, %dx.types.Handle, i32, i32)", s.llvm(), s.suffix()));
        let x = c.fresh();
        c.line(format!(
            "{x} = call {} @dx.op.cbufferLoad.{}(i32 58, %dx.types.Handle %cb, i32 {o}, i32 {size})",
            s.llvm(),
            s.suffix()
        ));
        c.output(s, &x);
    }
    c.line("%tid2 = add i32 %tid, 16");
    c.store_outputs("%tid2");
    c.line("ret void");
    let body = b.text();
    let decls: Vec<String> = b.decls.iter().cloned().collect();
    let mut shell = Shell::new("cs");
    shell.threads = [16, 1, 1];
    shell.resources =
        vec![Res::new("cb", untangle::dxil::ResourceClass::Cbv, untangle::dxil::ResourceKind::CBuffer, 0).extra(256)];
    let text = shell.module(&body, &decls.join("\n"));
    let words = (OUT_BASE as usize + 64 * 32) / 4;
    let out = run_kernel(&mut gpu, &text, vec![0; words], vec![("cb", Resource::UniformBuffer(bytes.clone()))])
        .unwrap_or_else(|e| panic!("{e}"));
    for tid in 0..16usize {
        let base = OUT_BASE as usize / 4 + 16 * tid;
        let row = 16 * tid;
        let mut want: Vec<u32> = (0..4).map(|k| word(row + 4 * k)).collect();
        want.extend((0..4).map(|k| word(row + 4 * k)));
        want.extend((0..8).map(|k| u16::from_le_bytes([bytes[row + 2 * k], bytes[row + 2 * k + 1]]) as u32));
        assert_eq!(&out[base..base + 16], &want[..], "legacy rows, invocation {tid}");
        let base = OUT_BASE as usize / 4 + 16 * (tid + 16);
        let at8 = 3 * tid + 1;
        let at16 = 2 * tid;
        let at32 = 4 * tid;
        let at64 = 8 * tid;
        let at16f = 2 * tid + 2;
        let want = [
            bytes[at8] as u32,
            u16::from_le_bytes([bytes[at16], bytes[at16 + 1]]) as u32,
            word(at32),
            word(at64),
            word(at64 + 4),
            u16::from_le_bytes([bytes[at16f], bytes[at16f + 1]]) as u32,
            word(at64),
            word(at64 + 4),
        ];
        assert_eq!(&out[base..base + 8], &want[..], "byte-offset loads, invocation {tid}");
    }
}

/// `cycleCounterLegacy` reads a counter that does not run backwards.
#[test]
fn cycle_counter_is_monotonic() {
    let Some(mut gpu) = gpu_or_skip("cycle_counter_is_monotonic") else { return };
    if !gpu.info().features.shader_subgroup_clock {
        println!("skipped: no VK_KHR_shader_clock shaderSubgroupClock");
        return;
    }
    let mut b = Body::default();
    b.declare("declare i32 @dx.op.threadId.i32(i32, i32)");
    b.declare("declare %dx.types.twoi32 @dx.op.cycleCounterLegacy(i32)");
    b.line("%tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)");
    for k in 0..2 {
        b.line(format!("%c{k} = call %dx.types.twoi32 @dx.op.cycleCounterLegacy(i32 109)"));
        for f in 0..2 {
            b.line(format!("%c{k}.{f} = extractvalue %dx.types.twoi32 %c{k}, {f}"));
            b.output(Scalar::I32, &format!("%c{k}.{f}"));
        }
    }
    b.store_outputs("%tid");
    b.line("ret void");
    let text = kernel_shell().module(&b.text(), &b.decls.iter().cloned().collect::<Vec<_>>().join("\n"));
    let words = (OUT_BASE as usize + 64 * INVOCATIONS) / 4;
    let out = run_kernel(&mut gpu, &text, vec![0; words], vec![]).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..INVOCATIONS {
        let at = OUT_BASE as usize / 4 + 16 * i;
        let t0 = out[at] as u64 | (out[at + 1] as u64) << 32;
        let t1 = out[at + 2] as u64 | (out[at + 3] as u64) << 32;
        assert!(t1 >= t0, "invocation {i}: {t0} then {t1}");
    }
}

/// Raw 16-bit stores (`rawBufferStore.i16`/`.f16`): pairs of halves at a word-aligned
/// address (one plain word store), three halves at a 2-byte-aligned address whose words
/// neighbouring invocations share (each half cleared and set atomically), and half floats
/// (their bits, not converted), against the bytes D3D writes.
#[test]
fn raw_16_bit_stores_write_their_halves() {
    let Some(mut gpu) = gpu_or_skip("raw_16_bit_stores_write_their_halves") else { return };
    let f = gpu.info().features.clone();
    if !(f.shader_int16 && f.shader_float16) {
        println!("skipped: the device lacks 16-bit types");
        return;
    }
    const INVOCATIONS: u32 = 64;
    // Added to the invocation id for halves 0..3 of the aligned store (signed i16 text).
    const ADD: [i32; 4] = [0x1111, 0x8888 - 0x10000, 0x2222, 0xf0f0 - 0x10000];
    let body = format!(
        "  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %t16 = trunc i32 %tid to i16
  %a = shl i32 %tid, 3
  %x0 = add i16 %t16, {}
  %x1 = add i16 %t16, {}
  %x2 = add i16 %t16, {}
  %x3 = add i16 %t16, {}
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %out, i32 %a, i32 undef, i16 %x0, i16 %x1, i16 %x2, i16 %x3, i8 15, i32 2)
  %m6 = mul i32 %tid, 6
  %b = add i32 %m6, 1024
  %t3 = mul i16 %t16, 3
  %y0 = add i16 %t3, 1
  %y1 = add i16 %t3, 2
  %y2 = add i16 %t3, 3
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %out, i32 %b, i32 undef, i16 %y0, i16 %y1, i16 %y2, i16 undef, i8 7, i32 2)
  %m4 = shl i32 %tid, 2
  %c = add i32 %m4, 2048
  %h0 = uitofp i32 %tid to half
  %h1 = fadd fast half %h0, 0xH3C00
  call void @dx.op.rawBufferStore.f16(i32 140, %dx.types.Handle %out, i32 %c, i32 undef, half %h0, half %h1, half undef, half undef, i8 3, i32 2)
  ret void",
        ADD[0], ADD[1], ADD[2], ADD[3]
    );
    let decls = "declare i32 @dx.op.threadId.i32(i32, i32)
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32)
declare void @dx.op.rawBufferStore.f16(i32, %dx.types.Handle, i32, i32, half, half, half, half, i8, i32)";
    let mut shell = Shell::new("cs");
    shell.threads = [INVOCATIONS, 1, 1];
    let text = shell.module(&body, decls);
    let fill = 0xaaaa_aaaau32;
    let out = run_kernel(&mut gpu, &text, vec![fill; 1024], Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
    let half_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    // Small integers are exact in binary16.
    let f16_bits = |n: u32| -> u16 {
        if n == 0 {
            return 0;
        }
        let e = 31 - n.leading_zeros();
        (((e + 15) << 10) | ((n << (10 - e)) & 0x3ff)) as u16
    };
    for tid in 0..INVOCATIONS {
        let t = tid as usize;
        for (k, add) in ADD.iter().enumerate() {
            let want = (tid as i32 + add) as u16;
            assert_eq!(half_at(8 * t + 2 * k), want, "aligned store, invocation {tid}, half {k}");
        }
        for k in 0..3 {
            let want = (3 * tid + k as u32 + 1) as u16;
            assert_eq!(half_at(1024 + 6 * t + 2 * k), want, "unaligned store, invocation {tid}, half {k}");
        }
        assert_eq!(half_at(2048 + 4 * t), f16_bits(tid), "half float 0, invocation {tid}");
        assert_eq!(half_at(2048 + 4 * t + 2), f16_bits(tid + 1), "half float 1, invocation {tid}");
    }
    // Nothing past the stores was written.
    assert!(out[(1024 + 6 * INVOCATIONS as usize).div_ceil(4)..512].iter().all(|&w| w == fill));
    assert!(out[(2048 + 4 * INVOCATIONS as usize) / 4..].iter().all(|&w| w == fill));
}

/// DXIL 1.9 long vectors on the device: per invocation, `<8 x float>` loaded with
/// `rawBufferVectorLoad`, `FMad(a, a, a)` stored with `rawBufferVectorStore`; and a
/// `<17 x i32>` doubled lane by lane, stored, and summed through its 17 lanes. Expected
/// values computed by hand (small exact floats and integers).
#[test]
fn long_vectors_load_compute_store() {
    let Some(mut gpu) = gpu_or_skip("long_vectors_load_compute_store") else { return };
    const INV: u32 = 4;
    let mut body = String::from(
        "  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %fa = mul i32 %tid, 32
  %lf = call %dx.types.ResRet.v8f32 @dx.op.rawBufferVectorLoad.v8f32(i32 303, %dx.types.Handle %out, i32 %fa, i32 undef, i32 4)
  %a = extractvalue %dx.types.ResRet.v8f32 %lf, 0
  %r = call <8 x float> @dx.op.tertiary.v8f32(i32 46, <8 x float> %a, <8 x float> %a, <8 x float> %a)
  %fo = add i32 %fa, 1024
  call void @dx.op.rawBufferVectorStore.v8f32(i32 304, %dx.types.Handle %out, i32 %fo, i32 undef, <8 x float> %r, i32 4)
  %ia0 = mul i32 %tid, 68
  %ia = add i32 %ia0, 2048
  %li = call %dx.types.ResRet.v17i32 @dx.op.rawBufferVectorLoad.v17i32(i32 303, %dx.types.Handle %out, i32 %ia, i32 undef, i32 4)
  %v = extractvalue %dx.types.ResRet.v17i32 %li, 0
  %d = add <17 x i32> %v, %v
  %io = add i32 %ia0, 3072
  call void @dx.op.rawBufferVectorStore.v17i32(i32 304, %dx.types.Handle %out, i32 %io, i32 undef, <17 x i32> %d, i32 4)
  %s0 = extractelement <17 x i32> %d, i32 0
",
    );
    for k in 1..17 {
        body += &format!("  %e{k} = extractelement <17 x i32> %d, i32 {k}\n  %s{k} = add i32 %s{}, %e{k}\n", k - 1);
    }
    body += "  %so0 = shl i32 %tid, 2\n  %so = add i32 %so0, 4096\n";
    body += "  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %so, i32 undef, i32 %s16, i32 undef, i32 undef, i32 undef, i8 1, i32 4)\n  ret void";
    // `Shell` declares `%dx.types.ResRet.v6f32`/`v17i32`.
    let decls = "%dx.types.ResRet.v8f32 = type { <8 x float>, i32 }
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.v8f32 @dx.op.rawBufferVectorLoad.v8f32(i32, %dx.types.Handle, i32, i32, i32)
declare %dx.types.ResRet.v17i32 @dx.op.rawBufferVectorLoad.v17i32(i32, %dx.types.Handle, i32, i32, i32)
declare void @dx.op.rawBufferVectorStore.v8f32(i32, %dx.types.Handle, i32, i32, <8 x float>, i32)
declare void @dx.op.rawBufferVectorStore.v17i32(i32, %dx.types.Handle, i32, i32, <17 x i32>, i32)
declare <8 x float> @dx.op.tertiary.v8f32(i32, <8 x float>, <8 x float>, <8 x float>)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
    let mut shell = Shell::new("cs");
    shell.threads = [INV, 1, 1];
    let text = shell
        .module(&body, decls)
        .replace("!{i32 1, i32 8}", "!{i32 1, i32 9}")
        .replace("i32 6, i32 8}", "i32 6, i32 9}");
    let mut words = vec![0u32; 2048];
    for (i, w) in words[..8 * INV as usize].iter_mut().enumerate() {
        *w = (i as f32 * 0.5).to_bits();
    }
    for (i, w) in words[512..512 + 17 * INV as usize].iter_mut().enumerate() {
        *w = 3 * i as u32 + 1;
    }
    let out = run_kernel(&mut gpu, &text, words, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..8 * INV as usize {
        let a = i as f32 * 0.5;
        assert_eq!(f32::from_bits(out[256 + i]), a * a + a, "FMad lane {i}");
    }
    for t in 0..INV as usize {
        let mut sum = 0u32;
        for k in 0..17 {
            let want = 2 * (3 * (17 * t + k) as u32 + 1);
            assert_eq!(out[768 + 17 * t + k], want, "<17 x i32> invocation {t} lane {k}");
            sum += want;
        }
        assert_eq!(out[1024 + t], sum, "lane sum of invocation {t}");
    }
}
