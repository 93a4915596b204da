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
//! (`SPV_EXT_float8`) and emulated; and of the corpus's 25 AGS shaders the float8
//! conversion test translates while the 24 WMMA ones are refused naming the WMMA
//! instruction, not the UAV.

use rspirv::spirv::Op;
use untangle::dxil::ags::Opcode;
use untangle::{translate, Options, TranslateError, VendorFeatures, VendorRefusal};
use untangle_testkit::ags::{atomic_max_u64, call, cs, wave_shader};

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
    for (op, data) in [(WaveMatrixMulAcc, 0), (WaveMatrixUavLoad, 0), (AtomicU64, 8), (Halt, 0)] {
        let (instruction, reason) = refusal(&cs(&call("w0", op, 0, data, "0", "0"), 1), &ags());
        assert!(instruction.contains(&format!("{op:?}")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::NotLowered(_)), "{reason}");
    }
    // Draw parameters: vertex shaders only.
    let (instruction, _) = refusal(&cs(&call("w0", DrawIndex, 0, 0, "0", "0"), 1), &ags());
    assert!(instruction.contains("DrawIndex"), "{instruction}");
}

/// The shared corpus's AGS shaders (vkd3d-proton's WMMA and float8 tests): with the option
/// each is refused naming the WMMA or float8 instruction it starts with, never the UAV.
#[test]
fn corpus_ags_shaders_are_refused_by_instruction() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        assert!(std::env::var_os("CI").is_none(), "the shared corpus is required under CI");
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    let (mut seen, mut refused, mut translated) = (0, 0, Vec::new());
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Err(untangle::Error::Translate(TranslateError::VendorExtension { .. })) =
            translate(&bytes, &Options::default())
        else {
            continue;
        };
        seen += 1;
        match translate(&bytes, &ags()) {
            Err(untangle::Error::Translate(TranslateError::VendorExtension { instruction, reason, .. })) => {
                assert!(
                    instruction.contains("WaveMatrix") || instruction.contains("MatrixElementWise"),
                    "{name}: {instruction}: {reason}"
                );
                refused += 1;
            }
            Err(e) => panic!("{name}: {e}"),
            Ok(t) => {
                untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", &name);
                translated.push(name);
            }
        }
    }
    assert_eq!(seen, 25, "the corpus's AGS shaders");
    // Only the scalar float8 conversion test needs no cooperative matrix.
    assert_eq!(translated, ["sm_advanced.cs_ags_float8_conversion.cs_6_6.dxil"]);
    assert_eq!(refused, 24);
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
    // One Ldexp (GLSL.std.450 53) per decode, two SMax (42) per encode.
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let ext = |n: u32| {
        let insts = m.functions.iter().flat_map(|f| f.all_inst_iter());
        insts
            .filter(|i| i.class.opcode == Op::ExtInst)
            .filter(|i| matches!(i.operands.get(1), Some(rspirv::dr::Operand::LiteralExtInstInteger(k)) if *k == n))
            .count()
    };
    assert_eq!((ext(53), ext(42)), (4, 8));
    let mut o = ags();
    o.vendor.float8 = true;
    let t = translate(text.as_bytes(), &o).expect("native");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "float8 native");
    assert_eq!(count(&opcodes(&t.words), Op::FConvert), 8);
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
