//! AMD AGS test inputs: compute shaders whose `atomicCompareExchange` calls on AGS's magic
//! UAV encode intrinsics as `ags_shader_intrinsics_dx12.hlsl` does, and a float8 reference
//! written from the formats' definitions (nearest representable value, ties to even, on
//! `f64`), independent of the translator's integer emulation, and likewise a
//! directed-rounding reference for `FloatOpWithRoundMode` and `FloatConversion`
//! ([`rounded_op`], [`f16_rounded`]: on `f64`, exact products and Knuth's TwoSum, checked
//! against LLVM's APFloat by `tests/ags_rounding_oracle.rs`). Used by `tests/vendor_ags.rs`,
//! `tests/gpu_ags.rs`, `tests/interp_ags.rs` and the interpreter.

use untangle::dxil::ags::{word, Opcode};

/// [`cs_threads`] with 64 threads.
pub fn cs(body: &str, n: usize) -> String {
    cs_threads(body, n, 64)
}

/// The stores of `%w0..%w{n-1}` to word `threads (k + 1) + tid` of the buffer `%u`
/// (`%tid4` is the thread's byte offset): the tail of this module's and
/// [`crate::nvapi`]'s test shaders.
pub(crate) fn word_stores(n: usize, threads: u32) -> String {
    let mut stores = String::new();
    for k in 0..n {
        stores.push_str(&format!(
            "  %o{k} = add i32 %tid4, {}\n  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %u, i32 %o{k}, i32 undef, i32 %w{k}, i32 undef, i32 undef, i32 undef, i8 1)\n",
            4 * threads as usize * (k + 1)
        ));
    }
    stores
}

/// A compute shader of one group of `threads` threads (`[numthreads(threads, 1, 1)]`)
/// with `body` between the handles and the stores: `%tid` is the thread id, `%x` the word
/// `u[tid]` (words of the `RWByteAddressBuffer` `u`, `u0` in space 0), `%ags` the magic
/// UAV's handle (`u0, space2147420894`); `%w0..%w{n-1}` are stored to word
/// `threads (k + 1) + tid`.
pub fn cs_threads(body: &str, n: usize, threads: u32) -> String {
    cs_module(body, n, threads, None)
}

/// [`cs`] with also a typed UAV `%img` (`u0, space1`) of resource kind `kind` (DXIL's
/// numbering: 1 `Texture1D`, 2 `Texture2D`, 4 `Texture3D`, 7 `Texture2DArray`, 10
/// `TypedBuffer`, …) and `uint2` texels, as AGS's 64-bit texture atomics take them.
pub fn cs_with_texture(body: &str, n: usize, kind: u32) -> String {
    cs_module(body, n, 64, Some(kind))
}

fn cs_module(body: &str, n: usize, threads: u32, texture: Option<u32>) -> String {
    let stores = word_stores(n, threads);
    let (img, img_ref, img_node) = match texture {
        None => (String::new(), "", String::new()),
        Some(kind) => (
            "  %img = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 2, i32 0, i1 false)\n".to_string(),
            ", !9",
            format!(
                "!9 = !{{i32 2, %struct.RWByteAddressBuffer* undef, !\"img\", i32 1, i32 0, i32 1, i32 {kind}, i1 false, i1 false, i1 false, !10}}\n!10 = !{{i32 0, i32 5}}\n"
            ),
        ),
    };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
entry:
  %u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %ags = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 1, i32 0, i1 false)
{img}  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %tid4 = shl i32 %tid, 2
  %in = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 %tid4, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %in, 0
{body}{stores}  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.textureStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32, i8)
declare i32 @dx.op.atomicCompareExchange.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 6}}
!1 = !{{!"cs", i32 6, i32 6}}
!2 = !{{null, !3, null, null}}
!3 = !{{!4, !5{img_ref}}}
!4 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!5 = !{{i32 1, %struct.RWByteAddressBuffer* undef, !"AmdExtD3DShaderIntrinsicsUAV", i32 2147420894, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !2, !7}}
!7 = !{{i32 4, !8}}
!8 = !{{i32 {threads}, i32 1, i32 1}}
{img_node}"#
    )
}

/// A pixel shader with `body` between the magic UAV's handle (`%ags`) and the stores:
/// inputs `SV_Position` (register 0) and `TEXCOORD` (`float4`, register 1, interpolation
/// mode `interpolation`: 1 `nointerpolation`, 2 linear); with `load`, `TEXCOORD.x` is also
/// read interpolated (`%t`). `%w0..%w{n-1}` (`n` ≤ 4, `i32`) go to `SV_Target`'s
/// components as their bits.
pub fn ps(body: &str, n: usize, interpolation: u32, load: bool) -> String {
    let mut stores = String::new();
    for k in 0..n {
        stores.push_str(&format!(
            "  %f{k} = bitcast i32 %w{k} to float\n  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {k}, float %f{k})\n"
        ));
    }
    let load = if load { "  %t = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 undef)\n" } else { "" };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
entry:
  %ags = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
{load}{body}{stores}  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare i32 @dx.op.atomicCompareExchange.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 6}}
!1 = !{{!"ps", i32 6, i32 6}}
!2 = !{{null, !3, null, null}}
!3 = !{{!5}}
!5 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"AmdExtD3DShaderIntrinsicsUAV", i32 2147420894, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", !7, !2, null}}
!7 = !{{!8, !12, null}}
!8 = !{{!9, !11}}
!9 = !{{i32 0, !"SV_Position", i8 9, i8 3, !10, i8 4, i32 1, i8 4, i32 0, i8 0, null}}
!10 = !{{i32 0}}
!11 = !{{i32 1, !"TEXCOORD", i8 9, i8 0, !10, i8 {interpolation}, i32 1, i8 4, i32 1, i8 0, null}}
!12 = !{{!13}}
!13 = !{{i32 0, !"SV_Target", i8 9, i8 16, !10, i8 0, i32 1, i8 4, i32 0, i8 0, null}}
"#
    )
}

/// A vertex shader for [`ps`]: `POSITION` (register 0, `float4`) goes to `SV_Position` and
/// unchanged to `TEXCOORD` (register 1), so a vertex parameter of `TEXCOORD` is the
/// vertex's position.
pub fn vs_position_texcoord() -> String {
    let mut body = String::new();
    for k in 0..4 {
        body += &format!("  %p{k} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {k}, i32 undef)\n");
        for out in 0..2 {
            body += &format!("  call void @dx.op.storeOutput.f32(i32 5, i32 {out}, i32 0, i8 {k}, float %p{k})\n");
        }
    }
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
define void @main() {{
entry:
{body}  ret void
}}
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.entryPoints = !{{!2}}
!0 = !{{i32 1, i32 0}}
!1 = !{{!"vs", i32 6, i32 0}}
!2 = !{{void ()* @main, !"main", !3, null, null}}
!3 = !{{!4, !6, null}}
!4 = !{{!5}}
!5 = !{{i32 0, !"POSITION", i8 9, i8 0, !9, i8 0, i32 1, i8 4, i32 0, i8 0, null}}
!6 = !{{!7, !8}}
!7 = !{{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}}
!8 = !{{i32 1, !"TEXCOORD", i8 9, i8 0, !9, i8 2, i32 1, i8 4, i32 1, i8 0, null}}
!9 = !{{i32 0}}
"#
    )
}

/// The data of `VtxParam` (vertex `vertex`, input register `param`, component
/// `component`), as `AmdExtD3DShaderIntrinsics_VertexParameterComponent` packs it.
pub fn vertex_param(vertex: u32, param: u32, component: u32) -> u32 {
    param | vertex << 5 | component << 7
}

/// `%{out} = cmpxchg(magic, word(op, phase, data), src0, src1)`.
pub fn call(out: &str, op: Opcode, phase: u32, data: u32, src0: &str, src1: &str) -> String {
    format!(
        "  %{out} = call i32 @dx.op.atomicCompareExchange.i32(i32 79, %dx.types.Handle %ags, i32 {}, i32 undef, i32 undef, i32 {src0}, i32 {src1})\n",
        word(op, phase, data) as i32
    )
}

/// The value of float8 code `c` (E5M2 when `e5m2`, else OCP E4M3); NaN codes give NaN.
pub fn float8_value(c: u8, e5m2: bool) -> f64 {
    let (m_bits, bias, e_mask) = if e5m2 { (2, 15, 31) } else { (3, 7, 15) };
    let e = (c >> m_bits) as i32 & e_mask;
    let m = (c & ((1 << m_bits) - 1)) as f64;
    let sign = if c & 0x80 != 0 { -1.0 } else { 1.0 };
    if e5m2 && e == 31 {
        return if m == 0.0 { sign * f64::INFINITY } else { f64::NAN };
    }
    if !e5m2 && c & 0x7f == 0x7f {
        return f64::NAN;
    }
    let scale = 2f64.powi(e.max(1) - bias - m_bits);
    let sig = if e == 0 { m } else { m + (1 << m_bits) as f64 };
    sign * sig * scale
}

/// `v` converted to float8 as AMD's hardware does (vkd3d-proton's
/// `test_ags_float8_conversion` expects it): the nearest finite code, ties to the even
/// code; E4M3 clamps to ±448 and gives NaN (`0x7f | sign`) from |v| ≥ 465 unless
/// saturating; E5M2 gives ±infinity from |v| ≥ 61440, ±57344 when saturating; NaN gives
/// `0x7f | sign`.
pub fn float8_code(v: f32, e5m2: bool, saturate: bool) -> u8 {
    let sign = if v.is_sign_negative() { 0x80u8 } else { 0 };
    if v.is_nan() {
        return 0x7f | sign;
    }
    let a = f64::from(v.abs());
    if e5m2 && a >= 61440.0 {
        return sign | if saturate { 0x7b } else { 0x7c };
    }
    if !e5m2 && a >= 465.0 {
        return sign | if saturate { 0x7e } else { 0x7f };
    }
    let a = if e5m2 { a } else { a.min(448.0) };
    let top = if e5m2 { 0x7b } else { 0x7e };
    let mut best = 0u8;
    for c in 0..=top {
        let (d, db) = ((float8_value(c, e5m2) - a).abs(), (float8_value(best, e5m2) - a).abs());
        if d < db || (d == db && c % 2 == 0 && best % 2 == 1) {
            best = c;
        }
    }
    best | sign
}

/// Every wave and lane intrinsic AGS lowers, one result each (`w0..w18`, for [`cs`] or
/// [`cs_threads`]); [`wave_expected`] says what each lane must get.
pub fn wave_shader() -> (String, usize) {
    use Opcode::*;
    let mut b = String::from("  %tf = uitofp i32 %tid to float\n  %tb = bitcast float %tf to i32\n");
    b += &call("w0", Readfirstlane, 0, 0, "%tid", "0");
    b += &call("w1", Readlane, 0, 5, "%tid", "0");
    b += &call("w2", LaneId, 0, 0, "0", "0");
    b += &call("w3", GetWaveSize, 0, 0, "0", "0");
    b += &call("w4", Swizzle, 0, 0x041f, "%tid", "0"); // SwapX1
    b += &call("w5", Swizzle, 0, 0x8000 | 0b00_01_10_11, "%tid", "0"); // quad reverse
    b += "  %odd = and i32 %tid, 1\n";
    b += &call("w6", Ballot, 0, 0, "%odd", "0");
    b += &call("w7", Ballot, 1, 0, "%odd", "0");
    b += &call("w8", MBCnt, 0, 0, "%w6", "%w7");
    b += &call("m0", Min3U, 0, 0, "%tid", "7");
    b += &call("w9", Min3U, 1, 0, "3", "%m0");
    b += &call("m1", Med3U, 0, 0, "%tid", "7");
    b += &call("w10", Med3U, 1, 0, "3", "%m1");
    b += &call("m2", Max3F, 0, 0, "%tb", "1065353216"); // 1.0
    b += &call("w11", Max3F, 1, 0, "0", "%m2");
    b += &call("m3", Med3F, 0, 0, "%tb", "1065353216");
    b += &call("w12", Med3F, 1, 0, "0", "%m3");
    b += &call("w13", WaveReduce, 0, 0x03, "%tid", "0"); // AddU
    b += &call("w14", WaveReduce, 0, 0x0a, "%tb", "0"); // MaxF
    b += &call("w15", WaveReduce, 0, 0x0f, "%tid", "0"); // Xor
    b += &call("w16", WaveScan, 0, 0x0106, "%tid", "0"); // inclusive MulU
    b += &call("w17", WaveScan, 0, 0x0208, "%tid", "0"); // exclusive MinI
    b += &call("w18", ReadlaneAt, 0, 0, "%tid", "%odd");
    (b, 19)
}

/// What thread `tid` of [`wave_shader`] must store, with `size` lanes a wave (every lane
/// active, waves of consecutive threads); `None` where the result depends on more lanes
/// than a wave of `size` has.
pub fn wave_expected(tid: u32, size: u32) -> Vec<Option<u32>> {
    let lane = tid % size;
    let base = tid - lane;
    let wave = base..base + size;
    let odd_mask = |lo: u32| (lo..lo + 32).filter(|&l| l < size && l % 2 == 1).fold(0u32, |m, l| m | 1 << (l - lo));
    let f = |v: u32| (v as f32).to_bits();
    vec![
        Some(base),
        (size > 5).then_some(base + 5),
        Some(lane),
        Some(size),
        (size >= 2).then_some(tid ^ 1),
        (size >= 4).then_some(tid ^ 3),
        Some(odd_mask(0)),
        Some(if size > 32 { odd_mask(32) } else { 0 }),
        Some(lane / 2),
        Some(tid.min(3)),
        Some(tid.clamp(3, 7)),
        Some(f(tid.max(1))),
        Some(f(tid.min(1))),
        Some(wave.clone().sum()),
        Some(f(base + size - 1)),
        Some(wave.clone().fold(0, |a, t| a ^ t)),
        Some((base..=tid).fold(1u32, |a, t| a.wrapping_mul(t))),
        Some(if lane == 0 { i32::MAX as u32 } else { base }),
        Some(base + tid % 2),
    ]
}

/// An AGS 64-bit atomic max (`AmdExtD3DShaderIntrinsics_AtomicMaxU64` on `u`) at byte
/// `%tid * 8 + base`, of the value (`%tid`, 7 for odd threads else 3): `%w0` and `%w1` are
/// the old value's low and high words. With `store` false the store that names the
/// target is left out (a malformed stream).
pub fn atomic_max_u64(base: u32, store: bool) -> String {
    use Opcode::AtomicU64;
    let mut b = format!("  %tid8 = shl i32 %tid, 3\n  %addr = add i32 %tid8, {base}\n  %odd = and i32 %tid, 1\n  %hi0 = shl i32 %odd, 2\n  %hi = or i32 %hi0, 3\n");
    b += &call("w0", AtomicU64, 0, 2, "%addr", "0");
    b += &call("a1", AtomicU64, 1, 2, "0", "%tid");
    if store {
        b += "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %u, i32 %w0, i32 undef, i32 %a1, i32 undef, i32 undef, i32 undef, i8 1)\n";
    }
    b += &call("w1", AtomicU64, 2, 2, "%hi", "%a1");
    b
}

/// An AGS 64-bit compare-exchange (`AmdExtD3DShaderIntrinsics_AtomicCmpXchgU64` on `u`, 4
/// phases) at byte `%tid * 8 + base` of the value `(%tid, 9)` against the comparator
/// `(0x1000 + %tid + odd, 5)` (`odd` = `%tid & 1`: odd threads' comparator misses):
/// `%w0` and `%w1` are the old value's low and high words.
pub fn atomic_cmpxchg_u64(base: u32) -> String {
    use Opcode::AtomicU64;
    let mut b = format!("  %tid8 = shl i32 %tid, 3\n  %addr = add i32 %tid8, {base}\n  %odd = and i32 %tid, 1\n  %cmp0 = add i32 %tid, %odd\n  %cmplo = add i32 %cmp0, 4096\n");
    b += &call("w0", AtomicU64, 0, 8, "%addr", "0");
    b += &call("a1", AtomicU64, 1, 8, "0", "%tid");
    b += "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %u, i32 %w0, i32 undef, i32 %a1, i32 undef, i32 undef, i32 undef, i8 1)\n";
    b += &call("a2", AtomicU64, 2, 8, "9", "%cmplo");
    b += &call("w1", AtomicU64, 3, 8, "5", "%a2");
    b
}

/// An AGS 64-bit atomic on the typed UAV of [`cs_with_texture`] at texel `coords` (phase
/// 0's two sources and phase 1's first: AGS's `uint3 address`), as
/// `ags_shader_intrinsics_dx12.hlsl` writes it for `RWTexture*<uint2>`: max (`cmpxchg`
/// false) of the value `(%tid, 7)`, or compare-exchange of `(%tid, 9)` against `(0, 0)`.
/// The store between phases 1 and 2 names the target: a `textureStore` at
/// `(retVal.x, retVal.x, …)`, or a `bufferStore` (`typed_buffer`). `%w0` and `%w1` are the
/// old value's low and high words.
pub fn atomic_u64_texel(coords: [&str; 3], cmpxchg: bool, typed_buffer: bool) -> String {
    use Opcode::AtomicU64;
    let op = if cmpxchg { 8 } else { 2 };
    let [x, y, z] = coords;
    let mut b = call("w0", AtomicU64, 0, op, x, y);
    b += &call("a1", AtomicU64, 1, op, z, "%tid");
    b += &if typed_buffer {
        "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %img, i32 %w0, i32 undef, i32 %a1, i32 %a1, i32 undef, i32 undef, i8 3)\n".to_string()
    } else {
        "  call void @dx.op.textureStore.i32(i32 67, %dx.types.Handle %img, i32 %w0, i32 %w0, i32 %w0, i32 %a1, i32 %a1, i32 undef, i32 undef, i8 3)\n".to_string()
    };
    if cmpxchg {
        b += &call("a2", AtomicU64, 2, op, "9", "0");
        b += &call("w1", AtomicU64, 3, op, "0", "%a2");
    } else {
        b += &call("w1", AtomicU64, 2, op, "7", "%a1");
    }
    b
}

/// Where thread `tid` of [`sub_word_store`] stores: groups of three threads fill the
/// first three of every four bytes (`bytes` 1) or the first three of every four halves
/// (`bytes` 2), so neighbouring bytes belong to other threads and every fourth is kept.
pub fn sub_word_address(bytes: u32, base: u32, tid: u32) -> u32 {
    base + bytes * (tid + tid / 3)
}

/// The value thread `tid` of [`sub_word_store`] passes: only its low `bytes` bytes are
/// stored.
pub fn sub_word_value(tid: u32) -> u32 {
    0xdead_0000 | (0x1234 + 0x101 * tid) & 0xffff
}

/// AGS's `BufferStoreByte` (`bytes` 1) or `BufferStoreShort` (2) of [`sub_word_value`] at
/// byte [`sub_word_address`] of `u` (its byte `base` on), as the SDK writes it: phase 0
/// (address, value), a store of its result at the address (`rawBufferStore` with `raw`,
/// else `bufferStore`), phase 1. With `store` false the naming store is left out.
pub fn sub_word_store(bytes: u32, base: u32, raw: bool, store: bool) -> String {
    let op = if bytes == 1 { Opcode::BufferStoreByte } else { Opcode::BufferStoreShort };
    let mut b = format!(
        "  %g = udiv i32 %tid, 3\n  %slot = add i32 %tid, %g\n  %sb = mul i32 %slot, {bytes}\n  %addr = add i32 %sb, {base}\n  %v0 = mul i32 %tid, 257\n  %v1 = add i32 %v0, 4660\n  %v2 = and i32 %v1, 65535\n  %val = or i32 %v2, -559087616\n"
    );
    b += &call("s0", op, 0, 0, "%addr", "%val");
    if store && raw {
        b += "  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %u, i32 %addr, i32 undef, i32 %s0, i32 undef, i32 undef, i32 undef, i8 1, i32 4)\n";
    } else if store {
        b += "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %u, i32 %addr, i32 undef, i32 %s0, i32 undef, i32 undef, i32 undef, i8 1)\n";
    }
    b += &call("w0", op, 1, 0, "0", "0");
    b
}

/// A WMMA matrix type code (`WMMA_MakeType`: format, use, column-major bit; 16x16).
pub fn wmma_type(format: u32, usage: u32, column_major: bool) -> u32 {
    format | usage << 4 | u32::from(column_major) << 7
}

/// `MatrixIO(channel, reg, kind)`.
fn matrix_io(channel: u32, reg: u32, kind: u32) -> u32 {
    channel | reg << 4 | kind << 8
}

/// `WMMA_Load(type, u, offset, stride)` from buffer `u` into words `%{m}0..%{m}7`.
pub fn wmma_load(m: &str, ty: u32, offset: u32, stride: u32) -> String {
    let mut s = call(&format!("{m}_door"), Opcode::WaveMatrixUavLoad, 0, 0, &offset.to_string(), &stride.to_string());
    s += &format!("  %{m}_ld = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 %{m}_door, i32 undef)\n  %{m}_hook = extractvalue %dx.types.ResRet.i32 %{m}_ld, 0\n");
    s += &call(&format!("{m}_ty"), Opcode::WaveMatrixUavLoad, 1, ty, &format!("%{m}_hook"), "0");
    for k in 0..8 {
        s += &call(&format!("{m}{k}"), Opcode::WaveMatrixUavLoad, 2, matrix_io(k % 4, k / 4, 0), "0", "0");
    }
    s
}

/// The four input calls passing matrix `%{m}0..%{m}7` in register `kind`.
pub fn wmma_inputs(out: &str, op: Opcode, phase: u32, m: &str, kind: u32) -> String {
    (0..4)
        .map(|i| {
            let io = matrix_io(i % 2, i / 2, kind);
            call(
                &format!("{out}_in{kind}_{i}"),
                op,
                phase,
                io,
                &format!("%{m}{}", 2 * i),
                &format!("%{m}{}", 2 * i + 1),
            )
        })
        .collect()
}

/// `%{d}0..7 = WMMA_MatMulAcc(op, a, b, c)`.
pub fn wmma_mul_acc(d: &str, op: u32, a: &str, b: &str, c: &str) -> String {
    let mut s = wmma_inputs(d, Opcode::WaveMatrixMulAcc, 0, a, 1);
    s += &wmma_inputs(d, Opcode::WaveMatrixMulAcc, 0, b, 2);
    s += &wmma_inputs(d, Opcode::WaveMatrixMulAcc, 0, c, 3);
    s += &call(&format!("{d}_op"), Opcode::WaveMatrixMulAcc, 1, op, "0", "0");
    for k in 0..8 {
        s += &call(&format!("{d}{k}"), Opcode::WaveMatrixMulAcc, 2, matrix_io(k % 4, k / 4, 0), "0", "0");
    }
    s
}

/// The 8 output calls `%{d}0..7` of `op` at `phase`.
fn wmma_outputs(d: &str, op: Opcode, phase: u32) -> String {
    (0..8).map(|k| call(&format!("{d}{k}"), op, phase, matrix_io(k % 4, k / 4, 0), "0", "0")).collect()
}

/// `%{d}0..7 = MatrixElementWiseArithmetic(op, a, b)` on matrices of type `ty`
/// (`op`: 1 add, 2 sub, 3 mul, 4 div, 5 times).
pub fn wmma_element_wise(d: &str, op: u32, ty: u32, a: &str, b: &str) -> String {
    use Opcode::MatrixElementWiseArithmetic as E;
    let mut s = wmma_inputs(d, E, 0, a, 1);
    s += &wmma_inputs(d, E, 0, b, 2);
    s += &call(&format!("{d}_op"), E, 1, ty, &op.to_string(), "0");
    s + &wmma_outputs(d, E, 2)
}

/// `%{out} = WMMA_ElementExtract(m, index)` (`index` an operand: a constant or `%name`).
pub fn wmma_extract(out: &str, ty: u32, m: &str, index: &str) -> String {
    use Opcode::WaveMatrixElementExtract as X;
    wmma_inputs(out, X, 0, m, 0) + &call(out, X, 1, ty, index, "0")
}

/// `%{d}0..7 = WMMA_ElementFill(m, index, data)`.
pub fn wmma_fill_element(d: &str, ty: u32, m: &str, index: &str, data: &str) -> String {
    use Opcode::WaveMatrixElementFill as F;
    wmma_inputs(d, F, 0, m, 0) + &call(&format!("{d}_ty"), F, 1, ty, index, data) + &wmma_outputs(d, F, 2)
}

/// `%{d}0..7 = WMMA_Convert(m: tin → tout)` (not saturating).
pub fn wmma_convert(d: &str, m: &str, tin: u32, tout: u32) -> String {
    use Opcode::WaveMatrixCopy as C;
    let mut s = call(&format!("{d}_open"), C, 0, 0, "0", "0");
    s += &wmma_inputs(d, C, 0, m, 0);
    s += &call(&format!("{d}_ty"), C, 1, tin, &tout.to_string(), "0");
    s + &wmma_outputs(d, C, 2)
}

/// `WMMA_Store(type, u, offset, stride, m)`.
pub fn wmma_store(m: &str, ty: u32, offset: u32, stride: u32) -> String {
    let mut s = call(&format!("{m}_sdoor"), Opcode::WaveMatrixUavStore, 0, 0, &offset.to_string(), &stride.to_string());
    s += &format!("  %{m}_sld = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 %{m}_sdoor, i32 undef)\n  %{m}_shook = extractvalue %dx.types.ResRet.i32 %{m}_sld, 0\n");
    s += &wmma_inputs(&format!("{m}_st"), Opcode::WaveMatrixUavStore, 1, m, 0);
    s += &call(&format!("{m}_sty"), Opcode::WaveMatrixUavStore, 2, ty, &format!("%{m}_shook"), "0");
    s
}

/// `%{out} = AmdExtD3DShaderIntrinsics_LoadDwordAtAddr(lo, hi, offset)`: phase 0 passes the
/// address's words, phase 1 the byte offset and returns the dword.
pub fn load_dw_at_addr(out: &str, lo: &str, hi: &str, offset: &str) -> String {
    call(&format!("{out}_va"), Opcode::LoadDwAtAddr, 0, 0, lo, hi) + &call(out, Opcode::LoadDwAtAddr, 1, 0, offset, "0")
}

/// `WMMA_Load(type, address lo/hi, offset, stride)` of the global form into `%{m}0..%{m}7`:
/// phase 0 offset and stride, phase 1 the type and the address, phase 2 the words.
pub fn wmma_global_load(m: &str, ty: u32, (lo, hi): (&str, &str), offset: u32, stride: u32) -> String {
    use Opcode::WaveMatrixGlobalLoad as G;
    let mut s = call(&format!("{m}_gdoor"), G, 0, 0, &offset.to_string(), &stride.to_string());
    s += &call(&format!("{m}_gty"), G, 1, ty, lo, hi);
    s + &wmma_outputs(m, G, 2)
}

/// `WMMA_Store(type, address lo/hi, offset, stride, m)` of the global form: phase 0 offset
/// and stride, phase 1 the matrix, phase 2 the type and the address.
pub fn wmma_global_store(m: &str, ty: u32, (lo, hi): (&str, &str), offset: u32, stride: u32) -> String {
    use Opcode::WaveMatrixGlobalStore as G;
    let mut s = call(&format!("{m}_gsdoor"), G, 0, 0, &offset.to_string(), &stride.to_string());
    s += &wmma_inputs(&format!("{m}_gst"), G, 1, m, 0);
    s + &call(&format!("{m}_gsty"), G, 2, ty, lo, hi)
}

/// [`wmma_mul_add_shader_at`] through raw GPU addresses: the 64-bit address of the matrices'
/// memory is the words `%va_lo`, `%va_hi` (the body defines them from `u`'s words 0 and 1),
/// A at `base`, B at `base + 512`, C at `base + 1024`, D stored at `base + 2048`.
pub fn wmma_global_mul_add_shader(b_column_major: bool, base: u32) -> String {
    let va = ("%va_lo", "%va_hi");
    let mut s = String::from(
        "  %va = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 0, i32 undef)\n  %va_lo = extractvalue %dx.types.ResRet.i32 %va, 0\n  %vb = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 4, i32 undef)\n  %va_hi = extractvalue %dx.types.ResRet.i32 %vb, 0\n",
    );
    s += &wmma_global_load("a", wmma_type(4, 0, false), va, base, 32);
    s += &wmma_global_load("b", wmma_type(4, 1, b_column_major), va, base + 512, 32);
    s += &wmma_global_load("c", wmma_type(6, 2, false), va, base + 1024, 64);
    s += &wmma_mul_acc("d", 5, "a", "b", "c");
    s += &wmma_global_store("d", wmma_type(6, 2, false), va, base + 2048, 64);
    s += "  %w0 = add i32 0, 0\n";
    s
}

/// `D = A * B + C` on 16x16 matrices in `u`: A (f16, row major) at byte 0, B (f16, column
/// major when `b_column_major`) at 512, C (f32, row major) at 1024, D (f32, row major)
/// stored at 2048 (`WMMA_F32_16X16X16_F16`). `%w0 = 0` for [`cs`]'s one output store.
pub fn wmma_mul_add_shader(b_column_major: bool) -> String {
    wmma_mul_add_shader_at(b_column_major, 0)
}

/// [`wmma_mul_add_shader`] with every matrix `base` bytes further.
pub fn wmma_mul_add_shader_at(b_column_major: bool, base: u32) -> String {
    let mut s = wmma_load("a", wmma_type(4, 0, false), base, 32);
    s += &wmma_load("b", wmma_type(4, 1, b_column_major), base + 512, 32);
    s += &wmma_load("c", wmma_type(6, 2, false), base + 1024, 64);
    s += &wmma_mul_acc("d", 5, "a", "b", "c");
    s += &wmma_store("d", wmma_type(6, 2, false), base + 2048, 64);
    s += "  %w0 = add i32 0, 0\n";
    s
}

/// The inputs of the GPU multiply-add case, as functions of (row, column): A, B and C are
/// small integers (C: halves) every format holds exactly, so `D = A * B + C` is exact in
/// f32.
pub fn wmma_case_a(i: u32, k: u32) -> f32 {
    ((i + 2 * k) % 5) as f32 - 2.0
}

/// B of the GPU multiply-add case (see [`wmma_case_a`]).
pub fn wmma_case_b(k: u32, j: u32) -> f32 {
    ((3 * k + j) % 7) as f32 - 3.0
}

/// C of the GPU multiply-add case (see [`wmma_case_a`]).
pub fn wmma_case_c(i: u32, j: u32) -> f32 {
    i as f32 - j as f32 / 2.0
}

/// `D[i][j] = sum_k A[i][k] B[k][j] + C[i][j]` of [`wmma_case_a`], [`wmma_case_b`],
/// [`wmma_case_c`].
pub fn wmma_case_expected(i: u32, j: u32) -> f32 {
    (0..16).map(|k| wmma_case_a(i, k) * wmma_case_b(k, j)).sum::<f32>() + wmma_case_c(i, j)
}

/// The exact value `x + e` (`f64`s, `|e|` below half an ulp of `x`, `x + e` not zero)
/// rounded as `mode` says into the format `fmt`; returns the bits. A reference written
/// from IEEE 754's definition of the rounding directions, on `f64` (not from the
/// translator's integer emulation): the two representable neighbours `lo ≤ |v| < hi` are
/// found from `f64`'s own rounding to nearest, then the mode picks one, comparing the
/// distances exactly (differences of nearby `f64`s are exact, Sterbenz's lemma).
fn round_pair(x: f64, e: f64, mode: untangle::dxil::ags::RoundMode, fmt: &RefFormat) -> u32 {
    use untangle::dxil::ags::RoundMode::*;
    let negative = x < 0.0 || (x == 0.0 && e < 0.0);
    let (x, e) = if negative { (-x, -e) } else { (x, e) };
    let r = (fmt.nearest)(x);
    let rf = (fmt.value)(r);
    let below = x - rf < 0.0 || (x == rf && e < 0.0);
    let lo = if below { r - 1 } else { r };
    let lo_f = (fmt.value)(lo);
    let hi = lo + 1;
    let hi_f = if hi == fmt.inf { fmt.inf_value } else { (fmt.value)(hi) };
    let up = match mode {
        _ if x == lo_f && e == 0.0 => false,
        TowardZero => false,
        TowardPositive => !negative,
        TowardNegative => negative,
        NearestEven => {
            let t = ((x - lo_f) - (hi_f - x)) + 2.0 * e;
            t > 0.0 || (t == 0.0 && lo & 1 == 1)
        }
    };
    let mag = if up { hi } else { lo };
    mag | if negative { fmt.sign } else { 0 }
}

/// A destination format for [`round_pair`].
struct RefFormat {
    /// The bits of the representable magnitude nearest a nonnegative `f64` (ties to even;
    /// infinity's bits beyond the range).
    nearest: fn(f64) -> u32,
    /// The value of a finite magnitude's bits.
    value: fn(u32) -> f64,
    inf: u32,
    /// The power of two just above the largest finite value (where infinity's bits sit).
    inf_value: f64,
    sign: u32,
}

const REF_F32: RefFormat = RefFormat {
    nearest: |x| (x as f32).to_bits(),
    value: |b| f64::from(f32::from_bits(b)),
    inf: 0x7f80_0000,
    inf_value: 340282366920938463463374607431768211456.0, // 2^128
    sign: 0x8000_0000,
};

const REF_F16: RefFormat = RefFormat {
    nearest: |x| u32::from(half::f16::from_f64(x).to_bits()),
    value: |b| f64::from(half::f16::from_bits(b as u16)),
    inf: 0x7c00,
    inf_value: 65536.0,
    sign: 0x8000,
};

/// `FloatOpWithRoundMode`'s result bits: `a op b` on `f32`s rounded as `mode` says
/// (IEEE 754, subnormals kept). NaN results are `0x7fc00000`. The reference the GPU tests
/// compare with; `tests/ags_rounding_oracle.rs` checks it against LLVM's APFloat.
pub fn rounded_op(op: untangle::dxil::ags::FloatOp, mode: untangle::dxil::ags::RoundMode, a: f32, b: f32) -> u32 {
    use untangle::dxil::ags::{FloatOp, RoundMode};
    let b = if op == FloatOp::Subtract { -b } else { b };
    let (x, y) = (f64::from(a), f64::from(b));
    let (v, e) = match op {
        // Exact in f64: 24 × 24 significand bits, exponents far inside f64's range.
        FloatOp::Multiply => (x * y, 0.0),
        // Knuth's TwoSum: v + e is exactly x + y.
        _ => {
            let s = x + y;
            let bb = s - x;
            (s, (x - (s - bb)) + (y - bb))
        }
    };
    if v.is_nan() {
        return 0x7fc0_0000;
    }
    if v.is_infinite() {
        return (v as f32).to_bits();
    }
    if v == 0.0 && e == 0.0 {
        return match op {
            FloatOp::Multiply => (v as f32).to_bits(),
            _ if a.is_sign_negative() == b.is_sign_negative() => a.to_bits() & 0x8000_0000,
            _ if mode == RoundMode::TowardNegative => 0x8000_0000,
            _ => 0,
        };
    }
    round_pair(v, e, mode, &REF_F32)
}

/// `FloatConversion`'s result: the `f16` bits of `x` rounded as `mode` says (NaN: quiet,
/// sign and the payload's top bits kept).
pub fn f16_rounded(mode: untangle::dxil::ags::RoundMode, x: f32) -> u32 {
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    if x.is_nan() {
        return sign | 0x7e00 | ((bits & 0x7f_ffff) >> 13);
    }
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    if x == 0.0 {
        return sign;
    }
    round_pair(f64::from(x), 0.0, mode, &REF_F16)
}

/// Inputs for the rounding tests: signed zeros, the smallest and largest subnormals,
/// normals at the range's ends, infinities, NaNs, values around `f16`'s range (its
/// largest value, overflow midpoint, smallest subnormal and half of it) and ties of
/// sums and products at 1.
pub fn rounding_edge_values() -> Vec<f32> {
    let b = f32::from_bits;
    let mut v = vec![
        0.0,
        b(1),
        b(2),
        b(3),
        b(0x007f_ffff),
        b(0x0080_0000),
        b(0x0080_0001),
        1.0,
        b(0x3f80_0001),
        1.5,
        3.0,
        1.0 + 1.0 / 4096.0, // squared: a tie of the product
        5.960_464_5e-8,     // 2^-24: half an ulp of 1 (a tie of 1 + x), f16's smallest subnormal
        2.980_232_2e-8,     // 2^-25
        b(0x3380_0001),
        65504.0,
        65519.0,
        65520.0,
        6.103_515_6e-5, // f16's smallest normal
        b(0x7f7f_ffff),
        b(0x7f7f_fffe),
        b(0x7f00_0000),
        b(0x0100_0000),
        f32::INFINITY,
        f32::NAN,
        0.1,
        1.0e30,
    ];
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// `n` pseudo-random operand pairs (a fixed sequence): half random bit patterns, half
/// pairs of nearby exponents (cancellation, carries and ties), a quarter of those subnormal
/// or near the overflow threshold.
pub fn rounding_random_pairs(n: usize) -> Vec<(f32, f32)> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 32) as u32
    };
    (0..n)
        .map(|k| {
            let (x, y) = (next(), next());
            if k % 2 == 0 {
                return (f32::from_bits(x), f32::from_bits(y));
            }
            let e = match k % 8 {
                1 => x % 3,               // subnormals and the smallest normals
                3 => 252 + x % 3,         // near the overflow threshold
                _ => 100 + (x >> 8) % 50, // ordinary
            };
            let ey = (e as i32 + (y % 5) as i32 - 2).clamp(0, 254) as u32;
            let m = |r: u32| r & 0x7f_ffff;
            (
                f32::from_bits((x & 0x8000_0000) | e << 23 | m(next())),
                f32::from_bits((y & 0x8000_0000) | ey << 23 | m(next())),
            )
        })
        .collect()
}

/// The rounded operations of [`rounding_shader`], in output order: every
/// `FloatOpWithRoundMode` (operation, mode), then `FloatConversion` to nearest, −∞, +∞.
pub fn rounding_cases() -> Vec<(Opcode, u32)> {
    let mut v = Vec::new();
    for op in 0..3u32 {
        for mode in 0..4u32 {
            v.push((Opcode::FloatOpWithRoundMode, op << 4 | mode));
        }
    }
    v.extend([1, 2, 3].map(|d| (Opcode::FloatConversion, d)));
    v
}

/// A body for [`cs_threads`] computing every [`rounding_cases`] case of `a = %x` and
/// `b` = word `threads (n + 1) + tid` (after the results); returns it and `n`.
pub fn rounding_shader(threads: u32) -> (String, usize) {
    let cases = rounding_cases();
    let n = cases.len();
    let mut s = format!(
        "  %bo = add i32 %tid4, {}\n  %bin = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 %bo, i32 undef)\n  %y = extractvalue %dx.types.ResRet.i32 %bin, 0\n",
        4 * threads as usize * (n + 1)
    );
    for (k, (op, data)) in cases.into_iter().enumerate() {
        let src1 = if op == Opcode::FloatConversion { "0" } else { "%y" };
        s += &call(&format!("w{k}"), op, 0, data, "%x", src1);
    }
    (s, n)
}

/// What case `k` of [`rounding_shader`] must give for `(a, b)`.
pub fn rounding_expected(k: usize, a: f32, b: f32) -> u32 {
    use untangle::dxil::ags::{decode, Kind};
    let (op, data) = rounding_cases()[k];
    match decode(word(op, 0, data)).map(|i| i.kind) {
        Ok(Kind::RoundedOp { op, mode }) => rounded_op(op, mode, a, b),
        Ok(Kind::F16Conversion(mode)) => f16_rounded(mode, a),
        other => panic!("not a rounding case: {other:?}"),
    }
}
