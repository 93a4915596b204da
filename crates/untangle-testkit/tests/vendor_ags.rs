//! AMD AGS intrinsics (`dxil/ags.rs` decodes, `emit/dxop/ags.rs` lowers): compute shaders
//! of our own whose `atomicCompareExchange` calls on the magic UAV (`u0, space2147420894`)
//! encode one intrinsic family each, as `ags_shader_intrinsics_dx12.hlsl` writes them.
//!
//! Checked: without `Options::vendor.amd_ags` the magic UAV is refused naming the option;
//! with it every wave and lane intrinsic translates, validates (`spirv-val`, Vulkan 1.4)
//! and becomes the subgroup operation it means (never a store); features the lowering
//! needs (`shader_clock`) are typed errors naming them when absent; malformed streams
//! (phase out of order, unknown opcode, non-constant word, a store to the magic UAV) are
//! typed errors naming the instruction; float8 conversions validate natively
//! (`SPV_EXT_float8`) and emulated; rounded float operations (`FloatOpWithRoundMode`,
//! `FloatConversion`) are integer emulations with no float instruction; WMMA
//! load/multiply-add/store become cooperative-matrix instructions, from buffers and (with
//! `buffer_device_address`) from raw GPU addresses, as `LoadDwAtAddr` is an aligned
//! `PhysicalStorageBuffer` load; 64-bit atomics on textures go through the UAV's `R64ui`
//! view (refused naming `shaderImageInt64Atomics` without the option); byte and short
//! stores, the 64-bit compare-exchange,
//! shader markers, barycentrics and vertex parameters lower as `emit/dxop/ags.rs` says; and
//! the corpus's 25 AGS shaders translate and validate or are refused
//! naming the WMMA instruction (FP8 without `float8`: naming `VK_EXT_shader_float8`).

use rspirv::spirv::Op;
use untangle::dxil::ags::Opcode;
use untangle::{translate, Options, TranslateError, VendorFeatures, VendorRefusal};
use untangle_testkit::ags::{
    atomic_cmpxchg_u64, atomic_max_u64, atomic_u64_texel, call, cs, cs_threads, cs_with_texture, ps, sub_word_store,
    vertex_param, wave_shader,
};

fn ags() -> Options {
    Options { vendor: VendorFeatures { amd_ags: true, ..Default::default() }, ..Default::default() }
}

fn opcodes(words: &[u32]) -> Vec<Op> {
    let m = rspirv::dr::load_words(words).expect("the module parses");
    m.functions.iter().flat_map(|f| f.all_inst_iter().map(|i| i.class.opcode)).collect()
}

fn count(ops: &[Op], op: Op) -> usize {
    ops.iter().filter(|&&o| o == op).count()
}

fn refusal(text: &str, options: &Options) -> (String, VendorRefusal) {
    match translate(text.as_bytes(), options) {
        Err(untangle::Error::Translate(TranslateError::VendorExtension { vendor: "AMD AGS", instruction, reason })) => {
            (instruction, reason)
        }
        Err(e) => panic!("expected an AGS refusal, got {e}"),
        Ok(_) => panic!("expected an AGS refusal, got a module"),
    }
}

#[test]
fn without_the_option_the_magic_uav_is_refused() {
    let (b, n) = wave_shader();
    let (instruction, reason) = refusal(&cs(&b, n), &Options::default());
    assert!(instruction.contains("space2147420894"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "amd_ags", .. }), "{reason}");
}

#[test]
fn wave_and_lane_intrinsics_lower_to_subgroup_operations() {
    let (b, n) = wave_shader();
    let t = translate(cs(&b, n).as_bytes(), &ags()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS wave intrinsics");
    let ops = opcodes(&t.words);
    assert_eq!(count(&ops, Op::AtomicCompareExchange), 0, "nothing reaches the magic UAV");
    assert_eq!(count(&ops, Op::GroupNonUniformBroadcastFirst), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformBroadcast), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformShuffle), 3, "two swizzles and ReadlaneAt");
    assert_eq!(count(&ops, Op::GroupNonUniformBallot), 2, "one per ballot phase");
    assert_eq!(count(&ops, Op::BitCount), 2, "MBCnt counts both halves");
    assert_eq!(count(&ops, Op::GroupNonUniformIAdd), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformFMax), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformBitwiseXor), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformIMul), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformSMin), 1);
    // Only `u` is declared: the magic UAV has no variable.
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let bindings = m.annotations.iter().filter(|i| i.class.opcode == Op::Decorate).filter(|i| {
        matches!(i.operands.get(1), Some(rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Binding)))
    });
    assert_eq!(bindings.count(), 1);
    // ... and the bindings table lists only `u`: a layer binds nothing for the magic UAV
    // (whose default place, set 2147420894, no device could bind).
    let rows: Vec<_> = t.bindings.iter().map(|r| (r.register.as_str(), r.set, r.binding)).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(t.bindings.iter().all(|r| r.space != untangle::dxil::ags::MAGIC_SPACE), "{rows:?}");
    // Deterministic.
    assert_eq!(translate(cs(&b, n).as_bytes(), &ags()).unwrap().words, t.words);
}

#[test]
fn clocks_need_the_feature() {
    let b = call("w0", Opcode::ShaderClock, 0, 0, "0", "0") + &call("w1", Opcode::ShaderClock, 1, 0, "0", "0");
    let text = cs(&b, 2);
    let (instruction, reason) = refusal(&text, &ags());
    assert!(instruction.contains("ShaderClock"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "shader_clock", .. }), "{reason}");
    let mut o = ags();
    o.vendor.shader_clock = true;
    let t = translate(text.as_bytes(), &o).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS clock");
    assert_eq!(count(&opcodes(&t.words), Op::ReadClockKHR), 1, "both halves of one reading");
}

#[test]
fn malformed_streams_name_the_instruction() {
    use Opcode::*;
    let cases = [
        (call("w0", Med3F, 1, 0, "0", "0"), "Med3F"),
        (call("m", Min3U, 0, 0, "0", "0") + &call("w0", LaneId, 0, 0, "0", "0"), "Min3U"),
        (call("w0", Ballot, 0, 0, "0", "0") + &call("w1", Ballot, 0, 0, "0", "0"), "Ballot"),
        (call("w0", WaveScan, 0, 0x030d, "0", "0"), "WaveScan"),
        (call("w0", Max3U, 0, 0, "0", "0"), "Max3U"),
    ];
    for (b, name) in cases {
        let n = if b.contains("%w1") { 2 } else { 1 };
        let (instruction, reason) = refusal(&cs(&b, n), &ags());
        assert!(matches!(reason, VendorRefusal::Malformed(_)), "{name}: {reason}");
        assert!(format!("{instruction} {reason}").contains(name), "{name}: {instruction}: {reason}");
    }
    // An unknown opcode, a word that is not constant, a store to the magic UAV.
    let unknown = "  %w0 = call i32 @dx.op.atomicCompareExchange.i32(i32 79, %dx.types.Handle %ags, i32 1342177295, i32 undef, i32 undef, i32 0, i32 0)\n";
    let (_, reason) = refusal(&cs(unknown, 1), &ags());
    assert!(reason.to_string().contains("opcode 0x0f"), "{reason}");
    let dynamic = "  %w0 = call i32 @dx.op.atomicCompareExchange.i32(i32 79, %dx.types.Handle %ags, i32 %tid, i32 undef, i32 undef, i32 0, i32 0)\n";
    let (_, reason) = refusal(&cs(dynamic, 1), &ags());
    assert!(reason.to_string().contains("not a constant"), "{reason}");
    let store = "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ags, i32 0, i32 undef, i32 1, i32 undef, i32 undef, i32 undef, i8 1)\n  %w0 = add i32 0, 0\n";
    let (instruction, _) = refusal(&cs(store, 1), &ags());
    assert!(instruction.contains("BufferStore"), "{instruction}");
}

#[test]
fn unlowered_intrinsics_are_refused_by_name() {
    use Opcode::*;
    for (op, data) in [(MatrixSparsityIndexLoad, 0), (IntersectBvhNode, 0), (Halt, 0)] {
        let (instruction, reason) = refusal(&cs(&call("w0", op, 0, data, "0", "0"), 1), &ags());
        assert!(instruction.contains(&format!("{op:?}")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::NotLowered(_)), "{reason}");
    }
    // Draw parameters: vertex shaders only.
    let (instruction, _) = refusal(&cs(&call("w0", DrawIndex, 0, 0, "0", "0"), 1), &ags());
    assert!(instruction.contains("DrawIndex"), "{instruction}");
}

/// The shared corpus's AGS shaders (vkd3d-proton's WMMA and float8 tests), with the
/// cooperative-matrix options: without `float8` the FP8/BF8 ones are refused naming
/// `VK_EXT_shader_float8`; everything else translates and validates (with `float8`: all
/// 25, matrices through loop PHIs and through allocas, element extract/fill, element-wise
/// arithmetic and B → accumulator use changes included).
#[test]
fn corpus_ags_shaders() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        assert!(std::env::var_os("CI").is_none(), "the shared corpus is required under CI");
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    let mut seen = 0;
    for float8 in [false, true] {
        let (mut fp8, mut translated) = (0, Vec::new());
        for path in &names {
            let bytes = std::fs::read(path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Err(untangle::Error::Translate(TranslateError::VendorExtension { .. })) =
                translate(&bytes, &Options::default())
            else {
                continue;
            };
            seen += 1;
            match translate(&bytes, &wmma_options(float8)) {
                Err(untangle::Error::Translate(TranslateError::VendorExtension { instruction, reason, .. })) => {
                    assert!(
                        instruction.contains("WaveMatrix") || instruction.contains("MatrixElementWise"),
                        "{name}: {instruction}: {reason}"
                    );
                    assert!(reason.to_string().contains("VK_EXT_shader_float8"), "{name}: {reason}");
                    assert!(!float8, "{name}: {reason}");
                    fp8 += 1;
                }
                Err(e) => panic!("{name}: {e}"),
                Ok(t) => {
                    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", &name);
                    translated.push(name.replace("sm_advanced.cs_", "").replace(".dxil", ""));
                }
            }
        }
        let expected: &[&str] = if float8 {
            &[
                "ags_float8_conversion.cs_6_6",
                "wmma_alloca.cs_6_6",
                "wmma_copy_transpose_fp16.cs_6_6",
                "wmma_element_wise.cs_6_6",
                "wmma_extract_insert.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_at.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_bt.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_ot.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_fp8.cs_6_0",
                "wmma_f32_16x16x16_fp8.cs_6_6",
                "wmma_f32_16x16x16_fp8_quant_f16.cs_6_6",
                "wmma_f32_16x16x16_fp8_quant_f16_strided.cs_6_6",
                "wmma_f32_16x16x16_fp8_quant_f16_strided_transpose.cs_6_6",
                "wmma_f32_16x16x16_fp8_quant_f32.cs_6_6",
                "wmma_fp16_fp8_conversions.cs_6_6",
                "wmma_fp32_fp8_conversions.cs_6_6",
                "wmma_fp32_fp8_special_conversions.cs_6_6",
                "wmma_fp8_fp32_conversions.cs_6_6",
                "wmma_layout_assumptions.cs_6_6",
                "wmma_lds_layout.cs_6_6",
                "wmma_lds_transpose.cs_6_6",
                "wmma_matrix_length.cs_6_6",
                "wmma_multi_matmul.cs_6_6",
                "wmma_special_conversions.cs_6_6",
            ]
        } else {
            &[
                "ags_float8_conversion.cs_6_6",
                "wmma_alloca.cs_6_6",
                "wmma_element_wise.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_at.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_bt.cs_6_6",
                "wmma_f32_16x16x16_f16_quant_f16_ot.cs_6_6",
                "wmma_layout_assumptions.cs_6_6",
                "wmma_lds_transpose.cs_6_6",
            ]
        };
        assert_eq!(translated, expected, "float8: {float8}");
        assert_eq!(translated.len() + fp8, 25);
        assert_eq!(fp8, if float8 { 0 } else { 16 }, "float8: {float8}");
    }
    assert_eq!(seen, 50, "the corpus's 25 AGS shaders, twice");
}

/// The eight float8 conversions of vkd3d-proton's `test_ags_float8_conversion`: emulated
/// without `Options::vendor.float8` (no float8 type declared), `OpFConvert` with it.
#[test]
fn float8_conversions_emulated_and_native() {
    let mut b = String::new();
    for (k, data) in [0x000u32, 0x001, 0x002, 0x003, 0x100, 0x101, 0x102, 0x103].into_iter().enumerate() {
        b += &call(&format!("w{k}"), Opcode::Float8Conversion, 0, data, "%x", "0");
    }
    let text = cs(&b, 8);
    let t = translate(text.as_bytes(), &ags()).expect("emulated");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "float8 emulated");
    let ops = opcodes(&t.words);
    assert_eq!(count(&ops, Op::FConvert), 0);
    // One Ldexp (GLSL.std.450 53) per decode, one SMax (42) per encode (the encoder's two
    // equal clamps are one instruction after the emitter's value numbering).
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let ext = |n: u32| {
        let insts = m.functions.iter().flat_map(|f| f.all_inst_iter());
        insts
            .filter(|i| i.class.opcode == Op::ExtInst)
            .filter(|i| matches!(i.operands.get(1), Some(rspirv::dr::Operand::LiteralExtInstInteger(k)) if *k == n))
            .count()
    };
    assert_eq!((ext(53), ext(42)), (4, 4));
    let mut o = ags();
    o.vendor.float8 = true;
    let t = translate(text.as_bytes(), &o).expect("native");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "float8 native");
    assert_eq!(count(&opcodes(&t.words), Op::FConvert), 8);
}

/// `FloatOpWithRoundMode` (3 operations × 4 modes) and `FloatConversion` (3 modes): an
/// exact emulation in integer arithmetic, so no float instruction at all (no `OpFAdd`,
/// `OpFMul`, `OpFConvert`, no float-controls execution mode); the product's 48 bits come
/// from `OpUMulExtended`. A mode or operation AGS does not define is a malformed stream
/// naming the instruction.
#[test]
fn rounded_float_operations_are_integer_emulations() {
    use untangle_testkit::ags::rounding_shader;
    let (b, n) = rounding_shader(64);
    let text = cs(&b, n);
    let t = translate(text.as_bytes(), &ags()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS rounded float operations");
    let ops = opcodes(&t.words);
    assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
    for float_op in [Op::FAdd, Op::FSub, Op::FMul, Op::FConvert, Op::ConvertUToF, Op::ExtInst] {
        let n = if float_op == Op::ExtInst { 0 } else { count(&ops, float_op) };
        assert_eq!(n, 0, "{float_op:?}");
    }
    assert!(count(&ops, Op::UMulExtended) >= 1, "the multiplications' exact products");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    assert!(m.execution_modes.iter().all(|i| i.operands.len() < 2
        || !matches!(
            i.operands[1],
            rspirv::dr::Operand::ExecutionMode(
                rspirv::spirv::ExecutionMode::RoundingModeRTE
                    | rspirv::spirv::ExecutionMode::RoundingModeRTZ
                    | rspirv::spirv::ExecutionMode::DenormPreserve
            )
        )));
    assert_eq!(translate(text.as_bytes(), &ags()).unwrap().words, t.words, "deterministic");
    for (op, data) in
        [(Opcode::FloatOpWithRoundMode, 0x04), (Opcode::FloatOpWithRoundMode, 0x30), (Opcode::FloatConversion, 0)]
    {
        let (instruction, reason) = refusal(&cs(&call("w0", op, 0, data, "%x", "%x"), 1), &ags());
        assert!(instruction.contains(&format!("0x{:08x}", untangle::dxil::ags::word(op, 0, data))), "{instruction}");
        assert!(matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
        assert!(reason.to_string().contains(&format!("{op:?}")), "{reason}");
    }
}

/// AGS's 64-bit atomic: the store between phases names the target and is not emitted;
/// phase 2 is one 64-bit `OpAtomicUMax` on the buffer's 64-bit view. Without the store
/// the stream is malformed.
#[test]
fn atomic_u64_becomes_a_64_bit_atomic() {
    let t = translate(cs(&atomic_max_u64(4096, true), 2).as_bytes(), &ags()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS 64-bit atomic");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let maxes: Vec<_> =
        m.functions.iter().flat_map(|f| f.all_inst_iter()).filter(|i| i.class.opcode == Op::AtomicUMax).collect();
    assert_eq!(maxes.len(), 1);
    let ty = maxes[0].result_type.unwrap();
    let int64 = m.types_global_values.iter().any(|i| {
        i.result_id == Some(ty)
            && i.class.opcode == Op::TypeInt
            && i.operands[0] == rspirv::dr::Operand::LiteralBit32(64)
    });
    assert!(int64, "a 64-bit atomic");
    // Only the two result stores reach `u` (the bounds-checked 32-bit store path is
    // `OpStore` of a u32 into the buffer): the target-naming store is gone.
    let stores = m.functions.iter().flat_map(|f| f.all_inst_iter()).filter(|i| i.class.opcode == Op::Store).count();
    assert_eq!(
        stores,
        2,
        "{}",
        untangle_spirv_tools::find_spirv_val().and_then(|v| v.disassemble(&t.words).ok()).unwrap_or_default()
    );
    let (instruction, reason) = refusal(&cs(&atomic_max_u64(4096, false), 2), &ags());
    assert!(
        instruction.contains("AtomicU64") && matches!(reason, VendorRefusal::Malformed(_)),
        "{instruction}: {reason}"
    );
}

/// A vertex shader writing `AGS draw parameter` `op` (as a float) to `SV_Position.x`.
fn vs_draw_parameter(op: Opcode) -> String {
    let w = untangle::dxil::ags::word(op, 0, 0) as i32;
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
entry:
  %ags = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %d = call i32 @dx.op.atomicCompareExchange.i32(i32 79, %dx.types.Handle %ags, i32 {w}, i32 undef, i32 undef, i32 0, i32 0)
  %f = uitofp i32 %d to float
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %f)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.atomicCompareExchange.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!5}}
!0 = !{{i32 1, i32 0}}
!1 = !{{!"vs", i32 6, i32 0}}
!2 = !{{null, !3, null, null}}
!3 = !{{!4}}
!4 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"AmdExtD3DShaderIntrinsicsUAV", i32 2147420894, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!5 = !{{void ()* @main, !"main", !6, !2, null}}
!6 = !{{null, !7, null}}
!7 = !{{!8}}
!8 = !{{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}}
!9 = !{{i32 0}}
"#
    )
}

/// Draw index, base vertex and base instance: vertex-shader built-ins under
/// `Options::vendor.draw_parameters`, a typed error naming it without.
#[test]
fn draw_parameters_in_vertex_shaders() {
    use rspirv::spirv::{BuiltIn, Decoration};
    for (op, builtin) in [
        (Opcode::DrawIndex, BuiltIn::DrawIndex),
        (Opcode::BaseVertex, BuiltIn::BaseVertex),
        (Opcode::BaseInstance, BuiltIn::BaseInstance),
    ] {
        let text = vs_draw_parameter(op);
        let (_, reason) = refusal(&text, &ags());
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: "draw_parameters", .. }), "{reason}");
        let mut o = ags();
        o.vendor.draw_parameters = true;
        let t = translate(text.as_bytes(), &o).expect("translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", &format!("{op:?}"));
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let decorated = m.annotations.iter().any(|i| {
            i.operands.get(1) == Some(&rspirv::dr::Operand::Decoration(Decoration::BuiltIn))
                && i.operands.get(2) == Some(&rspirv::dr::Operand::BuiltIn(builtin))
        });
        assert!(decorated, "{op:?} reads {builtin:?}");
    }
}

fn wmma_options(float8: bool) -> Options {
    let mut o = ags();
    o.vendor.cooperative_matrix = true;
    o.vendor.cooperative_matrix2 = true;
    o.vendor.float8 = float8;
    o
}

/// WMMA load, multiply-add and store: `OpCooperativeMatrixLoadKHR` (3: A, B, C, through the
/// buffer's byte view), one `OpCooperativeMatrixMulAddKHR`, one `StoreKHR`; the doorbells'
/// buffer loads are gone (only `cs`'s own load of `%x` and one store remain as plain
/// accesses) and nothing reaches the magic UAV. The B load is column major when its type
/// says so. Without `cooperative_matrix` the load is refused naming the option.
#[test]
fn wmma_load_mul_add_store() {
    for column_major in [false, true] {
        let text = cs(&untangle_testkit::ags::wmma_mul_add_shader(column_major), 1);
        let (instruction, reason) = refusal(&text, &ags());
        assert!(instruction.contains("WaveMatrixUavLoad"), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: "cooperative_matrix", .. }), "{reason}");
        let t = translate(text.as_bytes(), &wmma_options(false)).expect("translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA mul-add");
        let ops = opcodes(&t.words);
        assert_eq!(count(&ops, Op::CooperativeMatrixLoadKHR), 3);
        assert_eq!(count(&ops, Op::CooperativeMatrixMulAddKHR), 1);
        assert_eq!(count(&ops, Op::CooperativeMatrixStoreKHR), 1);
        assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let layouts: Vec<u32> = m
            .functions
            .iter()
            .flat_map(|f| f.all_inst_iter())
            .filter(|i| i.class.opcode == Op::CooperativeMatrixLoadKHR)
            .map(|i| {
                let id = i.operands[1].unwrap_id_ref();
                let k = m.types_global_values.iter().find(|c| c.result_id == Some(id)).unwrap();
                match k.operands[0] {
                    rspirv::dr::Operand::LiteralBit32(v) => v,
                    _ => panic!("layout is a constant"),
                }
            })
            .collect();
        assert_eq!(layouts, [0, u32::from(column_major), 0], "row major A and C, B as its type says");
        assert_eq!(translate(text.as_bytes(), &wmma_options(false)).unwrap().words, t.words, "deterministic");
    }
}

/// Malformed WMMA streams are typed errors naming the instruction: words passed out of
/// order, a load's type call without its buffer access, a matrix word into arithmetic.
#[test]
fn wmma_malformed_streams() {
    use untangle_testkit::ags::{wmma_load, wmma_type};
    let o = wmma_options(false);
    let swapped =
        cs(&untangle_testkit::ags::wmma_mul_add_shader(false).replace("i32 %a0, i32 %a1", "i32 %a1, i32 %a0"), 1);
    let (instruction, reason) = refusal(&swapped, &o);
    assert!(
        instruction.contains("WaveMatrixMulAcc") && reason.to_string().contains("words"),
        "{instruction}: {reason}"
    );
    let no_hook = call("d", Opcode::WaveMatrixUavLoad, 0, 0, "0", "32")
        + &call("t", Opcode::WaveMatrixUavLoad, 1, wmma_type(4, 0, false), "0", "0")
        + "  %w0 = add i32 0, 0\n";
    let (instruction, reason) = refusal(&cs(&no_hook, 1), &o);
    assert!(instruction.contains("WaveMatrixUavLoad") && matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
    let arith = wmma_load("a", wmma_type(4, 0, false), 0, 32) + "  %w0 = add i32 %a3, 1\n";
    let (instruction, reason) = refusal(&cs(&arith, 1), &o);
    assert!(instruction.contains("WaveMatrixUavLoad") && reason.to_string().contains("flows into"), "{reason}");
}

/// Result types of the instructions with opcode `op` that are cooperative matrices.
fn coopmat_results(words: &[u32], op: Op) -> usize {
    let m = rspirv::dr::load_words(words).unwrap();
    let coop: std::collections::HashSet<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeCooperativeMatrixKHR)
        .filter_map(|i| i.result_id)
        .collect();
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op && i.result_type.is_some_and(|t| coop.contains(&t)))
        .count()
}

/// WMMA element-wise arithmetic (f32 accumulators: one cooperative-matrix `OpFAdd`,
/// `OpFDiv`), element extract at a constant index (an `OpCompositeExtract` of the matrix),
/// and a B → accumulator use change (a round trip through groupshared scratch: a store
/// and a load more than the shader's own, no `OpCooperativeMatrixConvertNV`).
#[test]
fn wmma_element_wise_extract_and_use_change() {
    use untangle_testkit::ags::{wmma_convert, wmma_element_wise, wmma_extract, wmma_load, wmma_store, wmma_type};
    let acc = wmma_type(6, 2, false);
    let mut b = wmma_load("x", acc, 0, 64) + &wmma_load("y", acc, 1024, 64);
    b += &wmma_element_wise("s", 1, acc, "x", "y");
    b += &wmma_element_wise("q", 4, acc, "s", "y");
    b += &wmma_store("q", acc, 2048, 64);
    b += &wmma_extract("w0", acc, "q", "1");
    b += &wmma_load("bm", wmma_type(4, 1, false), 3072, 32);
    b += &wmma_convert("ba", "bm", wmma_type(4, 1, false), acc);
    b += &wmma_store("ba", acc, 4096, 64);
    // 16 threads: at most 16 subgroups, 16 KiB of scratch slots.
    let text = cs_threads(&b, 1, 16);
    let t = translate(text.as_bytes(), &wmma_options(false)).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA element-wise");
    let ops = opcodes(&t.words);
    assert_eq!((coopmat_results(&t.words, Op::FAdd), coopmat_results(&t.words, Op::FDiv)), (1, 1));
    assert_eq!(count(&ops, Op::CompositeExtract), 1 + count_extracts_of_resret(&t.words));
    assert_eq!(count(&ops, Op::CooperativeMatrixConvertNV), 0);
    assert_eq!(count(&ops, Op::CooperativeMatrixStoreKHR), 3, "two stores and the scratch round trip");
    assert_eq!(count(&ops, Op::CooperativeMatrixLoadKHR), 4, "three loads and the scratch round trip");
    assert_eq!(coopmat_results(&t.words, Op::FConvert), 1, "f16 → f32 before the use change");
    assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
    // A group of 64 threads and no `[WaveSize]` may have 64 subgroups: 64 KiB of slots,
    // refused.
    let big = text.replace("!{i32 16, i32 1, i32 1}", "!{i32 64, i32 1, i32 1}");
    let (instruction, reason) = refusal(&big, &wmma_options(false));
    assert!(instruction.contains("WaveMatrixCopy") && reason.to_string().contains("16 KiB"), "{instruction}: {reason}");
}

/// `OpCompositeExtract`s of non-matrix composites (`cs`'s own buffer load).
fn count_extracts_of_resret(words: &[u32]) -> usize {
    count(&opcodes(words), Op::CompositeExtract) - coopmat_sources(words, Op::CompositeExtract)
}

/// Instructions `op` whose first operand is a cooperative matrix.
fn coopmat_sources(words: &[u32], op: Op) -> usize {
    let m = rspirv::dr::load_words(words).unwrap();
    let coop: std::collections::HashSet<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeCooperativeMatrixKHR)
        .filter_map(|i| i.result_id)
        .collect();
    let typed: std::collections::HashMap<u32, u32> = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op)
        .filter(|i| {
            i.operands
                .first()
                .and_then(|o| o.id_ref_any())
                .and_then(|x| typed.get(&x))
                .is_some_and(|t| coop.contains(t))
        })
        .count()
}

/// A matrix through a loop's PHIs (as vkd3d-proton's `test_wmma_extract_insert` writes
/// it): each iteration extracts element `%i` (a dynamic index: through a `Function`
/// variable of the matrix type), flips its sign and fills it back; the loop runs
/// `WaveMatrixLength` times and the result is stored after it. The 8 word PHIs become
/// one matrix variable (stored on both edges, loaded once per entry), and the word check
/// still refuses a matrix word that reaches arithmetic through a PHI.
#[test]
fn wmma_matrix_through_loop_phis() {
    use untangle_testkit::ags::{wmma_extract, wmma_fill_element, wmma_load, wmma_store, wmma_type};
    let ta = wmma_type(4, 0, false);
    let mut b = wmma_load("a", ta, 0, 32);
    b += &call("len", Opcode::WaveMatrixLength, 0, ta, "0", "0");
    b += "  br label %loop\nloop:\n  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n";
    for k in 0..8 {
        b += &format!("  %p{k} = phi i32 [ %a{k}, %entry ], [ %f{k}, %loop ]\n");
    }
    b += &wmma_extract("e", ta, "p", "%i");
    b += "  %neg = xor i32 %e, 32768\n";
    b += &wmma_fill_element("f", ta, "p", "%i", "%neg");
    b += "  %i1 = add i32 %i, 1\n  %done = icmp eq i32 %i1, %len\n  br i1 %done, label %exit, label %loop\nexit:\n";
    for k in 0..8 {
        b += &format!("  %r{k} = phi i32 [ %f{k}, %loop ]\n");
    }
    b += &wmma_store("r", ta, 1024, 32);
    b += "  %w0 = add i32 %len, 0\n";
    let text = cs(&b, 1);
    let t = translate(text.as_bytes(), &wmma_options(false)).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA loop");
    let ops = opcodes(&t.words);
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let coop_ptrs: std::collections::HashSet<u32> = {
        let coop: Vec<u32> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypeCooperativeMatrixKHR)
            .filter_map(|i| i.result_id)
            .collect();
        m.types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypePointer && coop.contains(&i.operands[1].unwrap_id_ref()))
            .filter_map(|i| i.result_id)
            .collect()
    };
    let vars = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == Op::Variable && i.result_type.is_some_and(|t| coop_ptrs.contains(&t)))
        .count();
    // Two PHI groups (loop header, exit) and the two dynamic element accesses.
    assert_eq!(vars, 4, "matrix variables");
    assert_eq!(count(&ops, Op::CooperativeMatrixLengthKHR), 1);
    assert_eq!(count(&ops, Op::CooperativeMatrixStoreKHR), 1);
    assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
    assert_eq!(translate(text.as_bytes(), &wmma_options(false)).unwrap().words, t.words, "deterministic");
    // A PHI word that reaches arithmetic is still refused.
    let leak = text.replace("  %w0 = add i32 %len, 0\n", "  %w0 = add i32 %r3, 0\n");
    let (instruction, reason) = refusal(&leak, &wmma_options(false));
    assert!(reason.to_string().contains("flows into"), "{instruction}: {reason}");
}

/// `%{m}0..7` stored to words `8 slot + k` of alloca `%arr` (`slot`: a constant, or `%name`
/// for `add(k, mul(%name, 8))`), in `order`.
fn wmma_alloca_stores(m: &str, slot: &str, order: &[u32]) -> String {
    order
        .iter()
        .map(|&k| match slot.parse::<u32>() {
            Ok(c) => format!(
                "  %{m}_p{k} = getelementptr [16 x i32], [16 x i32]* %arr, i32 0, i32 {}\n  store i32 %{m}{k}, i32* %{m}_p{k}\n",
                8 * c + k
            ),
            Err(_) => format!(
                "  %{m}_i{k} = mul i32 {slot}, 8\n  %{m}_j{k} = add i32 {k}, %{m}_i{k}\n  %{m}_p{k} = getelementptr [16 x i32], [16 x i32]* %arr, i32 0, i32 %{m}_j{k}\n  store i32 %{m}{k}, i32* %{m}_p{k}\n"
            ),
        })
        .collect()
}

/// `%{m}0..7` loaded from words `8 slot + k` of `%arr` (`slot` as for the stores; a
/// dynamic one as `or(shl(%name, 3), k)`), in `order`.
fn wmma_alloca_loads(m: &str, slot: &str, order: &[u32]) -> String {
    order
        .iter()
        .map(|&k| match slot.parse::<u32>() {
            Ok(c) => format!(
                "  %{m}_q{k} = getelementptr [16 x i32], [16 x i32]* %arr, i32 0, i32 {}\n  %{m}{k} = load i32, i32* %{m}_q{k}\n",
                8 * c + k
            ),
            Err(_) => format!(
                "  %{m}_s{k} = shl i32 {slot}, 3\n  %{m}_t{k} = or i32 %{m}_s{k}, {k}\n  %{m}_q{k} = getelementptr [16 x i32], [16 x i32]* %arr, i32 0, i32 %{m}_t{k}\n  %{m}{k} = load i32, i32* %{m}_q{k}\n"
            ),
        })
        .collect()
}

/// Matrices through an alloca (as DXC writes vkd3d-proton's `test_wmma_alloca`: `WMMA_Matrix
/// m[2]` is an `alloca [16 x i32]`, word `k` of matrix `i` at `8 i + k`): a constant slot and
/// a dynamic one (`%tid & 1`) stored, the dynamic slot read back in another block with its
/// words loaded out of order, and the constant one read back. The alloca becomes one
/// `Function` variable of two cooperative matrices, stored and loaded whole (2 `OpStore`s,
/// 2 `OpLoad`s of matrices, no word access left). A partial store, an access between a
/// group's word stores, and a loaded word reaching arithmetic are refused, naming the
/// alloca.
#[test]
fn wmma_matrices_through_an_alloca() {
    use untangle_testkit::ags::{wmma_load, wmma_store, wmma_type};
    let ta = wmma_type(4, 0, false);
    let all: Vec<u32> = (0..8).collect();
    let shuffled = [1, 0, 3, 2, 5, 4, 7, 6];
    let mut b = "  %arr = alloca [16 x i32], align 4\n  %slot = and i32 %tid, 1\n".to_string();
    b += &wmma_load("a", ta, 0, 32);
    b += &wmma_load("b", ta, 1024, 32);
    b += &wmma_alloca_stores("a", "%slot", &all);
    let stores_b = wmma_alloca_stores("b", "1", &shuffled);
    b += &stores_b;
    b += "  br label %next\nnext:\n";
    b += &wmma_alloca_loads("c", "%slot", &shuffled);
    b += &wmma_store("c", ta, 2048, 32);
    b += &wmma_alloca_loads("d", "1", &all);
    b += &wmma_store("d", ta, 3072, 32);
    b += "  %w0 = add i32 %x, 0\n";
    let text = cs(&b, 1);
    let t = translate(text.as_bytes(), &wmma_options(false)).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA alloca");
    let ops = opcodes(&t.words);
    assert_eq!(coopmat_results(&t.words, Op::Load), 2, "each matrix loaded whole, once");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let coop: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeCooperativeMatrixKHR)
        .filter_map(|i| i.result_id)
        .collect();
    let arrays: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeArray && coop.contains(&i.operands[0].unwrap_id_ref()))
        .filter_map(|i| i.result_id)
        .collect();
    assert_eq!(arrays.len(), 1, "an array of matrices");
    let typed: std::collections::HashMap<u32, u32> = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let coop_stores = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == Op::Store)
        .filter(|i| typed.get(&i.operands[1].unwrap_id_ref()).is_some_and(|t| coop.contains(t)))
        .count();
    assert_eq!(coop_stores, 2, "each matrix stored whole, once");
    assert_eq!(count(&ops, Op::Store) - coop_stores, 1, "no word reaches memory: only `cs`'s output store");
    assert_eq!(count(&ops, Op::CooperativeMatrixLoadKHR), 2);
    assert_eq!(count(&ops, Op::CooperativeMatrixStoreKHR), 2);
    assert_eq!(translate(text.as_bytes(), &wmma_options(false)).unwrap().words, t.words, "deterministic");
    // Seven of eight words stored: refused, naming the store and why.
    let partial = text.replace(&stores_b, &wmma_alloca_stores("b", "1", &shuffled[..7]));
    let (instruction, reason) = refusal(&partial, &wmma_options(false));
    assert!(reason.to_string().contains("7 of a matrix's 8 words are stored"), "{instruction}: {reason}");
    // A load between a matrix's word stores.
    let between =
        text.replace("  store i32 %b7, i32* %b_p7\n", "  store i32 %b7, i32* %b_p7\n  %z = load i32, i32* %a_p0\n");
    let (instruction, reason) = refusal(&between, &wmma_options(false));
    assert!(reason.to_string().contains("between a matrix's word stores"), "{instruction}: {reason}");
    // A loaded word reaching arithmetic.
    let leak = text.replace("  %w0 = add i32 %x, 0\n", "  %w0 = add i32 %d3, 0\n");
    let (instruction, reason) = refusal(&leak, &wmma_options(false));
    assert!(reason.to_string().contains("flows into"), "{instruction}: {reason}");
}

/// An f32 accumulator copied to an f16 A matrix (FSR4's quantization step): with
/// `cooperative_matrix2` one `OpFConvert` and one `OpCooperativeMatrixConvertNV`; without
/// it (dxil-spirv's path without NV conversions) the format conversion in accumulator use,
/// then a groupshared round trip (a store and a load more than the shader's own), and no
/// NV instruction or extension.
#[test]
fn wmma_accumulator_to_a_with_and_without_nv_conversions() {
    use untangle_testkit::ags::{wmma_convert, wmma_load, wmma_store, wmma_type};
    let (acc, a) = (wmma_type(6, 2, false), wmma_type(4, 0, false));
    let mut b = wmma_load("c", acc, 0, 64);
    b += &wmma_convert("q", "c", acc, a);
    b += &wmma_store("q", a, 1024, 32);
    b += "  %w0 = add i32 0, 0\n";
    let text = cs_threads(&b, 1, 16);
    let with_nv = translate(text.as_bytes(), &wmma_options(false)).expect("translates with NV conversions");
    untangle_spirv_tools::assert_valid(&with_nv.words, "vulkan1.4", "accumulator → A, NV");
    let ops = opcodes(&with_nv.words);
    assert_eq!(count(&ops, Op::CooperativeMatrixConvertNV), 1);
    assert_eq!((count(&ops, Op::CooperativeMatrixLoadKHR), count(&ops, Op::CooperativeMatrixStoreKHR)), (1, 1));
    let mut o = wmma_options(false);
    o.vendor.cooperative_matrix2 = false;
    let t = translate(text.as_bytes(), &o).expect("translates through groupshared memory");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "accumulator → A, groupshared");
    let ops = opcodes(&t.words);
    assert_eq!(count(&ops, Op::CooperativeMatrixConvertNV), 0);
    assert_eq!(coopmat_results(&t.words, Op::FConvert), 1, "f32 → f16 in accumulator use");
    assert_eq!((count(&ops, Op::CooperativeMatrixLoadKHR), count(&ops, Op::CooperativeMatrixStoreKHR)), (2, 2));
    let m = rspirv::dr::load_words(&t.words).unwrap();
    assert!(m.extensions.iter().all(|e| !format!("{e:?}").contains("SPV_NV_cooperative_matrix2")));
    assert_eq!(translate(text.as_bytes(), &o).unwrap().words, t.words, "deterministic");
}

fn bda(mut o: Options) -> Options {
    o.vendor.buffer_device_address = true;
    o
}

/// The `Aligned` literal of each instruction with opcode `op` whose memory-access operands
/// start at operand `at` (`None`: no `Aligned` operand).
fn alignments(words: &[u32], op: Op, at: usize) -> Vec<Option<u32>> {
    use rspirv::dr::Operand;
    let m = rspirv::dr::load_words(words).unwrap();
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op)
        .map(|i| match (i.operands.get(at), i.operands.get(at + 1)) {
            (Some(Operand::MemoryAccess(a)), Some(Operand::LiteralBit32(n)))
                if a.contains(rspirv::spirv::MemoryAccess::ALIGNED) =>
            {
                Some(*n)
            }
            _ => None,
        })
        .collect()
}

/// `LoadDwAtAddr` (`LoadDwordAtAddr`, and `x4`: four of them at offsets +0..+12): without
/// `buffer_device_address` refused naming `bufferDeviceAddress`; with it one `OpLoad
/// Aligned 4` a dword through a `PhysicalStorageBuffer` pointer (`OpBitcast` of the
/// address words), the module in the `PhysicalStorageBuffer64` addressing model, no
/// `Int64`, and its device features list `bufferDeviceAddress`.
#[test]
fn load_dword_at_address() {
    use untangle_testkit::ags::load_dw_at_addr;
    let one = load_dw_at_addr("w0", "%x", "7", "%tid4");
    let four: String =
        (0..4).map(|k| load_dw_at_addr(&format!("w{k}"), "%x", "7", &format!("{}", 16 + 4 * k))).collect();
    for (body, n) in [(one, 1), (four, 4)] {
        let text = cs(&body, n);
        let (instruction, reason) = refusal(&text, &ags());
        assert!(instruction.contains("LoadDwAtAddr"), "{instruction}");
        match reason {
            VendorRefusal::MissingFeature { feature, option } => {
                assert_eq!(option, "buffer_device_address");
                assert!(feature.contains("bufferDeviceAddress"), "{feature}");
            }
            r => panic!("expected a missing feature, got {r}"),
        }
        let t = translate(text.as_bytes(), &bda(ags())).expect("translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS LoadDwAtAddr");
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let model = m.memory_model.as_ref().unwrap();
        assert_eq!(
            model.operands[0],
            rspirv::dr::Operand::AddressingModel(rspirv::spirv::AddressingModel::PhysicalStorageBuffer64)
        );
        let caps: Vec<_> = m.capabilities.iter().map(|c| c.operands[0].clone()).collect();
        assert!(
            caps.contains(&rspirv::dr::Operand::Capability(rspirv::spirv::Capability::PhysicalStorageBufferAddresses))
        );
        assert!(
            !caps.contains(&rspirv::dr::Operand::Capability(rspirv::spirv::Capability::Int64)),
            "32-bit address arithmetic"
        );
        let ops = opcodes(&t.words);
        assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
        assert_eq!(count(&ops, Op::Bitcast), n, "one pointer per load");
        let aligned: Vec<_> = alignments(&t.words, Op::Load, 1).into_iter().flatten().collect();
        assert_eq!(aligned, vec![4; n], "one dword load, Aligned 4, per LoadDwAtAddr");
        let features = t.device_features();
        assert!(
            features.iter().any(|r| r
                .any_of
                .iter()
                .any(|e| matches!(e, untangle::emit::features::Enable::Feature { member: "bufferDeviceAddress", .. }))),
            "the layout report lists bufferDeviceAddress"
        );
        assert_eq!(translate(text.as_bytes(), &bda(ags())).unwrap().words, t.words, "deterministic");
    }
    // Malformed: phase 1 without phase 0; phase 0 without phase 1 (the function ends).
    for body in [call("w0", Opcode::LoadDwAtAddr, 1, 0, "0", "0"), call("w0", Opcode::LoadDwAtAddr, 0, 0, "%x", "0")] {
        let (instruction, reason) = refusal(&cs(&body, 1), &bda(ags()));
        assert!(matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
        assert!(format!("{instruction} {reason}").contains("LoadDwAtAddr"), "{instruction}: {reason}");
    }
}

/// WMMA global loads and stores (`WaveMatrixGlobalLoad` / `GlobalStore`): the multiply-add
/// through raw GPU addresses becomes three `OpCooperativeMatrixLoadKHR` and one `StoreKHR`,
/// each `Aligned 16` through a `PhysicalStorageBuffer` byte pointer, B column major when its
/// type says so; without `buffer_device_address` refused naming `bufferDeviceAddress`; a
/// load's type phase without its offset phase is malformed, naming the instruction.
#[test]
fn wmma_global_load_and_store() {
    use untangle_testkit::ags::{wmma_global_mul_add_shader, wmma_type};
    for column_major in [false, true] {
        let text = cs(&wmma_global_mul_add_shader(column_major, 0), 1);
        let (instruction, reason) = refusal(&text, &wmma_options(false));
        assert!(instruction.contains("WaveMatrixGlobalLoad"), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: "buffer_device_address", .. }), "{reason}");
        let t = translate(text.as_bytes(), &bda(wmma_options(false))).expect("translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "WMMA global");
        let ops = opcodes(&t.words);
        assert_eq!(count(&ops, Op::AtomicCompareExchange), 0);
        assert_eq!(count(&ops, Op::CooperativeMatrixMulAddKHR), 1);
        assert_eq!(alignments(&t.words, Op::CooperativeMatrixLoadKHR, 3), [Some(16); 3]);
        assert_eq!(alignments(&t.words, Op::CooperativeMatrixStoreKHR, 4), [Some(16)]);
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let layouts: Vec<u32> = m
            .functions
            .iter()
            .flat_map(|f| f.all_inst_iter())
            .filter(|i| i.class.opcode == Op::CooperativeMatrixLoadKHR)
            .map(|i| {
                let id = i.operands[1].unwrap_id_ref();
                let k = m.types_global_values.iter().find(|c| c.result_id == Some(id)).unwrap();
                match k.operands[0] {
                    rspirv::dr::Operand::LiteralBit32(v) => v,
                    _ => panic!("layout is a constant"),
                }
            })
            .collect();
        assert_eq!(layouts, [0, u32::from(column_major), 0]);
        assert_eq!(translate(text.as_bytes(), &bda(wmma_options(false))).unwrap().words, t.words, "deterministic");
    }
    let no_offset =
        call("t", Opcode::WaveMatrixGlobalLoad, 1, wmma_type(4, 0, false), "%x", "0") + "  %w0 = add i32 0, 0\n";
    let (instruction, reason) = refusal(&cs(&no_offset, 1), &bda(wmma_options(false)));
    assert!(instruction.contains("WaveMatrixGlobalLoad") && matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
}

/// The result types of `op`'s instructions in `words`, as integer widths.
fn result_widths(words: &[u32], op: Op) -> Vec<u32> {
    let m = rspirv::dr::load_words(words).unwrap();
    let width = |ty| {
        m.types_global_values.iter().find(|i| i.result_id == Some(ty)).and_then(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::LiteralBit32(w)) if i.class.opcode == Op::TypeInt => Some(*w),
            _ => None,
        })
    };
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op)
        .map(|i| i.result_type.and_then(width).unwrap_or(0))
        .collect()
}

/// AGS's 64-bit compare-exchange (4 phases) is one 64-bit `OpAtomicCompareExchange` on the
/// buffer's 64-bit view; without the naming store, or cut after phase 2, it is malformed.
#[test]
fn atomic_u64_compare_exchange() {
    let t = translate(cs(&atomic_cmpxchg_u64(4096), 2).as_bytes(), &ags()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS 64-bit compare-exchange");
    assert_eq!(result_widths(&t.words, Op::AtomicCompareExchange), [64]);
    // Without phase 3 (the comparator's high word).
    let cut: String =
        atomic_cmpxchg_u64(4096).lines().filter(|l| !l.contains("%w1 =")).map(|l| format!("{l}\n")).collect();
    let (instruction, reason) = refusal(&cs(&cut, 1), &ags());
    assert!(
        instruction.contains("AtomicU64") && matches!(reason, VendorRefusal::Malformed(_)),
        "{instruction}: {reason}"
    );
    assert!(reason.to_string().contains("phase 3 is missing"), "{reason}");
}

/// AGS's 64-bit atomics on a texture or typed-buffer target (`RWTexture1D/2D/3D<uint2>`,
/// and a 2D array and an `RWBuffer<uint2>` written the same way): with
/// `image_int64_atomics`, one 64-bit `OpAtomicUMax` / `OpAtomicCompareExchange` through
/// an `OpImageTexelPointer` into the UAV's `R64ui` view, at the coordinates the phases
/// pass (as many as the texture has: 3 for the array's layer); the naming store is not
/// emitted. Without the option the atomic is refused naming `shaderImageInt64Atomics`.
#[test]
fn atomic_u64_on_textures() {
    use rspirv::dr::Operand;
    let options = Options {
        vendor: VendorFeatures { amd_ags: true, image_int64_atomics: true, ..Default::default() },
        ..Default::default()
    };
    let coords = ["%tid", "%x", "%tid4"];
    for (kind, n, typed_buffer) in [(1, 1, false), (2, 2, false), (4, 3, false), (7, 3, false), (10, 1, true)] {
        for cmpxchg in [false, true] {
            let text = cs_with_texture(&atomic_u64_texel(coords, cmpxchg, typed_buffer), 2, kind);
            let what = format!("kind {kind}, cmpxchg {cmpxchg}");
            let t = translate(text.as_bytes(), &options).unwrap_or_else(|e| panic!("{what}: {e}"));
            untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", &what);
            let atomic = if cmpxchg { Op::AtomicCompareExchange } else { Op::AtomicUMax };
            assert_eq!(result_widths(&t.words, atomic), [64], "{what}");
            let m = rspirv::dr::load_words(&t.words).unwrap();
            let insts: Vec<_> = m.functions.iter().flat_map(|f| f.all_inst_iter()).collect();
            let def =
                |id: u32| m.types_global_values.iter().chain(insts.iter().copied()).find(|i| i.result_id == Some(id));
            let pointers: Vec<_> = insts.iter().filter(|i| i.class.opcode == Op::ImageTexelPointer).collect();
            assert_eq!(pointers.len(), 1, "{what}");
            // The image: `R64ui` with a 64-bit sampled type.
            let Operand::IdRef(image) = pointers[0].operands[0] else { panic!("{what}: no image operand") };
            let var_ty = def(image).and_then(|v| v.result_type).expect("the image variable's type");
            let Some(Operand::IdRef(img_ty)) = def(var_ty).map(|p| p.operands[1].clone()) else { panic!("{what}") };
            let img = def(img_ty).expect("the image type");
            assert_eq!(img.operands[6], Operand::ImageFormat(rspirv::spirv::ImageFormat::R64ui), "{what}");
            let Operand::IdRef(sampled) = img.operands[0] else { panic!("{what}") };
            assert_eq!(def(sampled).unwrap().operands[0], Operand::LiteralBit32(64), "{what}");
            // The coordinates: `n` of the phases' sources.
            let Operand::IdRef(coord) = pointers[0].operands[1] else { panic!("{what}") };
            let c = def(coord).expect("the coordinate");
            let parts = if c.class.opcode == Op::CompositeConstruct { c.operands.len() } else { 1 };
            assert_eq!(parts, n, "{what}: {c:?}");
            assert_eq!(count(&opcodes(&t.words), Op::ImageWrite), 0, "{what}: the naming store is emitted");
            let features = format!("{:?}", t.device_features());
            assert!(features.contains("shaderImageInt64Atomics"), "{what}: the layout report: {features}");
            let (instruction, reason) = refusal(&text, &ags());
            assert!(instruction.contains("AtomicU64"), "{what}: {instruction}");
            assert!(
                matches!(reason, VendorRefusal::MissingFeature { option: "image_int64_atomics", .. })
                    && reason.to_string().contains("shaderImageInt64Atomics"),
                "{what}: {reason}"
            );
        }
    }
}

/// `BufferStoreByte` is a word `OpAtomicAnd` + `OpAtomicOr` (never a plain store of the
/// word: other threads write the neighbouring bytes); `BufferStoreShort` one 16-bit
/// element store through the 16-bit view. The naming store is not emitted as a word
/// store; `bufferStore` and `rawBufferStore` both name it.
#[test]
fn byte_and_short_stores() {
    for raw in [false, true] {
        let t = translate(cs(&sub_word_store(1, 512, raw, true), 0).as_bytes(), &ags()).expect("byte translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS BufferStoreByte");
        let ops = opcodes(&t.words);
        assert_eq!((count(&ops, Op::AtomicAnd), count(&ops, Op::AtomicOr)), (1, 1), "raw {raw}");
        assert_eq!(count(&ops, Op::Store), 0, "raw {raw}: no plain store");
        let t = translate(cs(&sub_word_store(2, 512, raw, true), 0).as_bytes(), &ags()).expect("short translates");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS BufferStoreShort");
        let ops = opcodes(&t.words);
        assert_eq!(count(&ops, Op::AtomicAnd) + count(&ops, Op::AtomicOr), 0, "raw {raw}");
        assert_eq!(count(&ops, Op::Store), 1, "raw {raw}: one 16-bit element");
        assert_eq!(result_widths(&t.words, Op::UConvert), [16]);
    }
    // Phase 1 without the naming store; phase 0 without phase 1.
    for op in [Opcode::BufferStoreByte, Opcode::BufferStoreShort] {
        let bytes = if op == Opcode::BufferStoreByte { 1 } else { 2 };
        let (instruction, reason) = refusal(&cs(&sub_word_store(bytes, 512, false, false), 0), &ags());
        assert!(instruction.contains(&format!("{op:?}")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
        let cut: String = sub_word_store(bytes, 512, false, true)
            .lines()
            .filter(|l| !l.contains("%w0 ="))
            .map(|l| format!("{l}\n"))
            .collect();
        let (instruction, reason) = refusal(&cs(&cut, 0), &ags());
        assert!(instruction.contains(&format!("{op:?}")), "{instruction}");
        assert!(reason.to_string().contains("phase 1 is missing"), "{reason}");
    }
}

/// `ShaderMarker` lowers to nothing; its result reads 0; a marker with a later phase is
/// malformed.
#[test]
fn shader_markers_lower_to_nothing() {
    let plain = translate(cs("  %w0 = add i32 0, 0\n", 1).as_bytes(), &ags()).expect("translates");
    let marked = call("m", Opcode::ShaderMarker, 0, 0, "%tid", "0") + &call("w0", Opcode::ShaderMarker, 0, 0, "7", "0");
    let t = translate(cs(&marked, 1).as_bytes(), &ags()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS ShaderMarker");
    assert_eq!(opcodes(&t.words), opcodes(&plain.words), "the same instructions as a store of 0");
    let (instruction, reason) = refusal(&cs(&call("w0", Opcode::ShaderMarker, 1, 0, "0", "0"), 1), &ags());
    assert!(
        reason.to_string().contains("ShaderMarker") && matches!(reason, VendorRefusal::Malformed(_)),
        "{instruction}: {reason}"
    );
}

fn barycentric() -> Options {
    let mut o = ags();
    o.vendor.fragment_shader_barycentric = true;
    o
}

/// The built-ins `words` declares, with their decorations' numbers.
fn decorations_of(words: &[u32], builtin: rspirv::spirv::BuiltIn) -> Vec<u32> {
    use rspirv::dr::Operand;
    let m = rspirv::dr::load_words(words).unwrap();
    let deco = |i: &rspirv::dr::Instruction| match i.operands.get(1) {
        Some(Operand::Decoration(d)) => Some(*d),
        _ => None,
    };
    let target = |i: &rspirv::dr::Instruction| match i.operands.first() {
        Some(Operand::IdRef(t)) => Some(*t),
        _ => None,
    };
    let vars: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| {
            deco(i) == Some(rspirv::spirv::Decoration::BuiltIn) && i.operands.get(2) == Some(&Operand::BuiltIn(builtin))
        })
        .filter_map(target)
        .collect();
    assert!(vars.len() <= 1, "one variable per built-in");
    m.annotations.iter().filter(|i| vars.contains(&target(i).unwrap_or(0))).filter_map(deco).map(|d| d as u32).collect()
}

/// AGS barycentrics: `(I, J)` are components 1 and 2 of `BaryCoordKHR` (perspective) or
/// `BaryCoordNoPerspKHR` (linear), decorated `Centroid` / `Sample` by mode; without
/// `fragment_shader_barycentric` refused naming it; the pull model, a second place for one
/// built-in, compute shaders and bad modes are typed errors.
#[test]
fn barycentrics_use_the_khr_built_ins() {
    use rspirv::spirv::{BuiltIn, Decoration};
    let bary = |mode: u32| {
        call("w0", Opcode::BaryCoord, 0, mode, "0", "0") + &call("w1", Opcode::BaryCoord, 1, mode, "%w0", "0")
    };
    for (mode, builtin, place) in [
        (1, BuiltIn::BaryCoordNoPerspKHR, None),
        (2, BuiltIn::BaryCoordNoPerspKHR, Some(Decoration::Centroid)),
        (3, BuiltIn::BaryCoordNoPerspKHR, Some(Decoration::Sample)),
        (4, BuiltIn::BaryCoordKHR, None),
        (5, BuiltIn::BaryCoordKHR, Some(Decoration::Centroid)),
        (6, BuiltIn::BaryCoordKHR, Some(Decoration::Sample)),
    ] {
        let text = ps(&bary(mode), 2, 2, true);
        let t = translate(text.as_bytes(), &barycentric()).unwrap_or_else(|e| panic!("mode {mode}: {e}"));
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS BaryCoord");
        let mut want = vec![Decoration::BuiltIn as u32];
        want.extend(place.map(|d| d as u32));
        assert_eq!(decorations_of(&t.words, builtin), want, "mode {mode}");
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let extracts: Vec<_> = m
            .functions
            .iter()
            .flat_map(|f| f.all_inst_iter())
            .filter(|i| i.class.opcode == Op::CompositeExtract)
            .map(|i| i.operands[1].clone())
            .collect();
        assert_eq!(extracts, [rspirv::dr::Operand::LiteralBit32(1), rspirv::dr::Operand::LiteralBit32(2)], "I, J");
        assert!(t.device_features().iter().any(|r| r.spirv == "FragmentBarycentricKHR"), "mode {mode}");
        // Without the feature.
        let (instruction, reason) = refusal(&text, &ags());
        assert!(instruction.contains("BaryCoord"), "{instruction}");
        assert!(
            matches!(reason, VendorRefusal::MissingFeature { option: "fragment_shader_barycentric", .. }),
            "{reason}"
        );
    }
    // The pull model (three phases); two places for one built-in; a compute shader; mode 8.
    let pull = call("w0", Opcode::BaryCoord, 0, 7, "0", "0")
        + &call("w1", Opcode::BaryCoord, 1, 7, "%w0", "0")
        + &call("w2", Opcode::BaryCoord, 2, 7, "%w1", "0");
    let (_, reason) = refusal(&ps(&pull, 3, 2, false), &barycentric());
    assert!(matches!(&reason, VendorRefusal::NotLowered(why) if why.contains("pull-model")), "{reason}");
    let two =
        bary(4) + &call("w2", Opcode::BaryCoord, 0, 5, "0", "0") + &call("w3", Opcode::BaryCoord, 1, 5, "%w2", "0");
    let (_, reason) = refusal(&ps(&two, 4, 2, false), &barycentric());
    assert!(matches!(&reason, VendorRefusal::NotLowered(why) if why.contains("two places")), "{reason}");
    let both =
        bary(4) + &call("w2", Opcode::BaryCoord, 0, 1, "0", "0") + &call("w3", Opcode::BaryCoord, 1, 1, "%w2", "0");
    let t = translate(ps(&both, 4, 2, false).as_bytes(), &barycentric()).expect("perspective and linear together");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS BaryCoord, both built-ins");
    let (instruction, _) = refusal(&cs(&bary(4), 2), &barycentric());
    assert!(instruction.contains("BaryCoord"), "{instruction}");
    let (_, reason) = refusal(&ps(&call("w0", Opcode::BaryCoord, 0, 8, "0", "0"), 1, 2, false), &barycentric());
    assert!(matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
}

/// AGS vertex parameters: `TEXCOORD` (input register 1) becomes a `PerVertexKHR` array
/// read at the vertex when it is `nointerpolation` or read no other way; an interpolated
/// element also read interpolated is refused, as is a register no varying holds.
#[test]
fn vertex_parameters_read_per_vertex_inputs() {
    let reads = call("w0", Opcode::VtxParam, 0, vertex_param(0, 1, 0), "0", "0")
        + &call("w1", Opcode::VtxParam, 0, vertex_param(2, 1, 3), "0", "0");
    for (interpolation, load) in [(1, true), (1, false), (2, false)] {
        let text = ps(&reads, 2, interpolation, load);
        let t = translate(text.as_bytes(), &barycentric())
            .unwrap_or_else(|e| panic!("interpolation {interpolation}, load {load}: {e}"));
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "AGS VtxParam");
        let dis = untangle_spirv_tools::find_spirv_val().and_then(|v| v.disassemble(&t.words).ok());
        if let Some(dis) = dis {
            assert!(dis.contains("PerVertexKHR"), "{dis}");
        }
        let (_, reason) = refusal(&text, &ags());
        assert!(
            matches!(reason, VendorRefusal::MissingFeature { option: "fragment_shader_barycentric", .. }),
            "{reason}"
        );
    }
    let (_, reason) = refusal(&ps(&reads, 2, 2, true), &barycentric());
    assert!(matches!(&reason, VendorRefusal::NotLowered(why) if why.contains("TEXCOORD")), "{reason}");
    let nowhere = call("w0", Opcode::VtxParam, 0, vertex_param(0, 5, 0), "0", "0");
    let (_, reason) = refusal(&ps(&nowhere, 1, 1, false), &barycentric());
    assert!(matches!(&reason, VendorRefusal::NotLowered(why) if why.contains("parameter 5")), "{reason}");
    let (_, reason) = refusal(&ps(&call("w0", Opcode::VtxParam, 0, 3 << 5, "0", "0"), 1, 1, false), &barycentric());
    assert!(matches!(reason, VendorRefusal::Malformed(_)), "{reason}");
}
