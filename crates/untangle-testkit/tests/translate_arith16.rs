//! Native 16-bit arithmetic and buffer accesses that vkd3d-proton checks on hardware, on small
//! hand-written shaders (and two corpus shaders): what the translator emits, `spirv-val`, and
//! for `dot2AddHalf` the reference interpreter's values.
//!
//! * `fpext(fptrunc(x))`, float → half → float, is `OpQuantizeToF16 x`: a driver may fold a
//!   pair of `OpFConvert`s back to `x` (NVIDIA does), where D3D rounds to half precision
//!   (`test_shader_instructions_dxil`, `fptrunc_roundtrip`).
//! * `dot2AddHalf(acc, a, b)` is `acc + (float(a.x·b.x) + float(a.y·b.y))`: the dot product
//!   completed before the accumulator is added (`test_shader_sm64_packed`, test 12:
//!   `2^24 + (1 + 1)` is `2^24 + 2`; adding the products one by one gives `2^24`).
//! * 16-bit components of raw and structured buffers go through a 16-bit view of the
//!   buffer (`{ uint16_t data[]; }`, array stride 2), one element each: a view may start at
//!   a 2-aligned address (stride 2, `FirstElement` 1), where 32-bit words straddle its start
//!   (`test_buffers_oob_behavior_vectorized_structured_16bit`).

use untangle::dxil::ResourceClass;
use untangle::{translate, Options};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::interp::memory::Mem;
use untangle_testkit::interp::resources::{ResKind, ResourceData, Resources};
use untangle_testkit::interp::{Config, Program};

/// `UseNativeLowPrecision` | `LowPrecisionPresent` | `EnableRawAndStructuredBuffers`.
const NATIVE_16_FLAGS: u64 = (1 << 23) | (1 << 5) | (1 << 4);

/// A SM 6.2 compute shader (4 threads) around `body` with one `RWByteAddressBuffer` at u0
/// (`%buf`), or with `structured = Some(stride)` an `RWStructuredBuffer` of that stride.
fn shader(body: &str, decls: &str, structured: Option<u32>) -> String {
    let (kind, extra) = match structured {
        Some(stride) => (12, format!("!9 = !{{i32 1, i32 {stride}}}")),
        None => (11, String::new()),
    };
    let props = if structured.is_some() { "!9" } else { "null" };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%dx.types.ResRet.f32 = type {{ float, float, float, float, i32 }}
%dx.types.ResRet.f16 = type {{ half, half, half, half, i32 }}
%dx.types.ResRet.i16 = type {{ i16, i16, i16, i16, i32 }}
%struct.Buf = type {{ i32 }}
define void @main() {{
{body}
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
declare %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32, %dx.types.Handle, i32, i32, i8, i32)
declare %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32)
{decls}
!dx.version = !{{!0}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 2}}
!1 = !{{i32 1, i32 8}}
!2 = !{{!"cs", i32 6, i32 2}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.Buf* undef, !"buf", i32 0, i32 0, i32 1, i32 {kind}, i1 false, i1 false, i1 false, {props}}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 {NATIVE_16_FLAGS}, i32 4, !8}}
!8 = !{{i32 4, i32 1, i32 1}}
{extra}
"#
    )
}

/// The module's disassembly after `spirv-val` (vulkan1.3); `None` without SPIRV-Tools.
fn validated(words: &[u32]) -> Option<String> {
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return None;
    };
    val.validate(words, "vulkan1.3").unwrap_or_else(|e| panic!("spirv-val: {e}"));
    Some(val.disassemble(words).expect("disassembles"))
}

fn translated(text: &str) -> Option<String> {
    let t = translate(text.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("translates: {e}"));
    validated(&t.words)
}

/// The function body's instructions (from the first `OpFunction`), one per line.
fn body(asm: &str) -> Vec<String> {
    asm.lines().skip_while(|l| !l.contains("OpFunction ")).map(|l| l.trim().to_string()).collect()
}

const ROUNDTRIP: &str = r#"
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %id, 2
  %ld = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 %a, i32 undef, i8 1, i32 4)
  %x = extractvalue %dx.types.ResRet.f32 %ld, 0
  %h = fptrunc float %x to half
  %y = fpext half %h to float
  %h2 = fadd fast half %h, 0xH3C00
  %z = fpext half %h2 to float
  %s = fadd fast float %y, %z
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 %a, i32 undef, float %s, float undef, float undef, float undef, i8 1, i32 4)
  ret void"#;

#[test]
fn fpext_of_fptrunc_is_a_quantization() {
    let Some(asm) = translated(&shader(ROUNDTRIP, "", None)) else { return };
    let body = body(&asm);
    let quantize: Vec<&String> = body.iter().filter(|l| l.contains("OpQuantizeToF16")).collect();
    assert_eq!(quantize.len(), 1, "one quantization (fpext of the fptrunc):\n{asm}");
    // Its operand is the loaded float (a 32-bit value), not the half.
    let operand = quantize[0].split_whitespace().last().unwrap();
    let def = body.iter().find(|l| l.starts_with(&format!("{operand} = "))).expect("operand defined");
    assert_eq!(def.split_whitespace().nth(3), Some("%float"), "quantizes the 32-bit value: {def}\n{asm}");
    // The fpext of a half computed otherwise is a conversion: float → half (the fptrunc,
    // which the fadd uses) and half → float.
    let converts = body.iter().filter(|l| l.contains("OpFConvert")).count();
    assert_eq!(converts, 2, "{asm}");
}

const DOT2ADD: &str = r#"
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %la = call %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32 139, %dx.types.Handle %buf, i32 0, i32 undef, i8 3, i32 2)
  %ax = extractvalue %dx.types.ResRet.f16 %la, 0
  %ay = extractvalue %dx.types.ResRet.f16 %la, 1
  %lb = call %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32 139, %dx.types.Handle %buf, i32 4, i32 undef, i8 3, i32 2)
  %bx = extractvalue %dx.types.ResRet.f16 %lb, 0
  %by = extractvalue %dx.types.ResRet.f16 %lb, 1
  %lc = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %buf, i32 8, i32 undef, i8 1, i32 4)
  %acc = extractvalue %dx.types.ResRet.f32 %lc, 0
  %r = call float @dx.op.dot2AddHalf.f32(i32 162, float %acc, half %ax, half %ay, half %bx, half %by)
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %buf, i32 12, i32 undef, float %r, float undef, float undef, float undef, i8 1, i32 4)
  ret void"#;

const DOT2ADD_DECL: &str = "declare float @dx.op.dot2AddHalf.f32(i32, float, half, half, half, half)";

#[test]
fn dot2add_completes_the_dot_product_before_accumulating() {
    let Some(asm) = translated(&shader(DOT2ADD, DOT2ADD_DECL, None)) else { return };
    let body = body(&asm);
    let ops: Vec<&str> = body
        .iter()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("OpF")))
        .filter(|op| matches!(*op, "OpFMul" | "OpFAdd" | "OpFConvert"))
        .collect();
    assert_eq!(ops, ["OpFMul", "OpFConvert", "OpFMul", "OpFConvert", "OpFAdd", "OpFAdd"], "{asm}");
    let muls: Vec<&String> = body.iter().filter(|l| l.contains("OpFMul")).collect();
    assert!(muls.iter().all(|l| l.contains("OpFMul %half")), "products in half precision:\n{asm}");
    // The last add takes the accumulator and the sum of the products.
    let adds: Vec<&String> = body.iter().filter(|l| l.contains("OpFAdd")).collect();
    let dot = adds[0].split_whitespace().next().unwrap();
    assert!(adds[1].split_whitespace().any(|w| w == dot), "acc + dot:\n{asm}");
}

/// Runs `text` (one thread group) in the reference interpreter over a raw u0 of `bytes`.
fn interpret(text: &str, bytes: Vec<u8>) -> ResourceData {
    let m = untangle::front::load_bytes(text.as_bytes().to_vec(), "dot2add.ll").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    let mut res = Resources {
        list: vec![ResourceData {
            class: ResourceClass::Uav,
            space: 0,
            register: 0,
            kind: ResKind::Raw,
            mem: Mem::from_bytes(bytes),
            counter: None,
        }],
        scenes: Vec::new(),
    };
    untangle_testkit::interp::run(&p, &mut res, &Config::default()).expect("runs");
    res.list.remove(0)
}

/// `FP16_EXP2` of vkd3d-proton's test: the half 2^x.
const fn h_exp2(x: u32) -> u32 {
    (15 + x) << 10
}

#[test]
fn interpreter_dot2add_follows_vkd3d_protons_cases() {
    let text = shader(DOT2ADD, DOT2ADD_DECL, None);
    // (a, b, acc) → result, exact (vkd3d-proton's `test_shader_sm64_packed`).
    let cases: [([u32; 3], u32); 5] = [
        ([h_exp2(0), h_exp2(0), 0x3f80_0000], 0x4000_0000),
        ([h_exp2(0) | h_exp2(1) << 16, h_exp2(2) | h_exp2(3) << 16, 0x3f80_0000], 0x41a8_0000),
        ([h_exp2(0), h_exp2(15), 0x3f80_0000], 0x4700_0100),
        ([h_exp2(0) * 0x10001, h_exp2(15) * 0x10001, 0x3f80_0000], 0x4780_0080),
        // The dot product before the accumulator: 2^24 + 2, not 2^24.
        ([h_exp2(0) * 0x10001, 0x3c00 * 0x10001, 0x4b80_0000], 0x4b80_0001),
    ];
    for (input, want) in cases {
        let mut bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend([0; 4]);
        let out = interpret(&text, bytes);
        let r = out.mem.read(12, 4).expect("result written");
        assert_eq!(r.bits as u32, want, "{input:x?}: {:#x}", r.bits);
        assert!(r.acc.is_exact(), "{input:x?}: the result is defined exactly ({:?})", r.acc);
    }
}

const STORE16: &str = r#"
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %v = trunc i32 %id to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %buf, i32 %id, i32 0, i16 %v, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  %n = add i32 %id, 1
  %ld = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %buf, i32 %n, i32 0, i8 1, i32 2)
  %w = extractvalue %dx.types.ResRet.i16 %ld, 0
  %w1 = add i16 %w, 1
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %buf, i32 %n, i32 0, i16 %w1, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  ret void"#;

/// The 16-bit view's variable (a `StorageBuffer` block of a runtime array of `ushort` with
/// array stride 2) in `asm`, and the checks every 16-bit access module shares: no atomics,
/// no 32-bit word of the buffer accessed.
fn assert_sixteen_bit_view(asm: &str) {
    assert!(asm.contains("OpCapability StorageBuffer16BitAccess"), "{asm}");
    let arr = asm
        .lines()
        .find_map(|l| l.contains("OpTypeRuntimeArray %ushort").then(|| l.split_whitespace().next().unwrap()))
        .unwrap_or_else(|| panic!("a runtime array of ushort:\n{asm}"));
    assert!(asm.contains(&format!("OpDecorate {arr} ArrayStride 2")), "{asm}");
    assert!(!asm.contains("OpAtomic"), "16-bit stores are plain stores of their element:\n{asm}");
    assert!(asm.contains("OpAccessChain %_ptr_StorageBuffer_ushort"), "{asm}");
    assert!(!asm.contains("OpAccessChain %_ptr_StorageBuffer_uint "), "no 32-bit word of the buffer:\n{asm}");
}

#[test]
fn sixteen_bit_structured_accesses_use_a_sixteen_bit_view() {
    let Some(asm) = translated(&shader(STORE16, "", Some(2))) else { return };
    assert_sixteen_bit_view(&asm);
    let body = body(&asm);
    // Element `id` of stride 2 is 16-bit element `id`: `(id · 2 + 0) >> 1`.
    assert_eq!(body.iter().filter(|l| l.contains("OpStore") && !l.contains("Output")).count(), 2, "{asm}");
    assert_eq!(body.iter().filter(|l| l.contains("OpLoad %ushort")).count(), 1, "{asm}");
}

#[test]
fn sixteen_bit_corpus_shaders_use_a_sixteen_bit_view() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    for name in [
        "robustness.oob_behavior_vectorized_structured_16bit_write.cs_6_2.dxil",
        "robustness.oob_behavior_vectorized_byte_address_16bit_read.cs_6_2.dxil",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = translate(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some(asm) = validated(&t.words) else { return };
        assert!(asm.contains("OpTypeRuntimeArray %ushort"), "{name}:\n{asm}");
        assert!(!asm.contains("OpAtomic"), "{name}:\n{asm}");
    }
}
