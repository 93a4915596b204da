//! NVIDIA NVAPI intrinsics (`dxil/nvapi.rs` follows the records, `emit/dxop/nvapi.rs`
//! lowers): compute shaders of our own that write `NvShaderExtnStruct` records to the magic
//! UAV as `nvHLSLExtns.h` does (`untangle_testkit::nvapi`). vkd3d-proton's tests and the
//! shared corpus hold no NVAPI shader, so these are the NVAPI inputs.
//!
//! Checked: without `Options::vendor.nvapi` the magic UAV is an ordinary structured buffer
//! (declared, stored to); with it each intrinsic translates, validates (`spirv-val`, Vulkan
//! 1.3 and 1.4), becomes the operation it means and never touches the magic UAV; features
//! a lowering needs are typed errors naming them when absent; unlowered opcodes are refused
//! by name; malformed record sequences are typed errors naming the call.

use rspirv::spirv::{Capability, Op};
use untangle::dxil::nvapi::field;
use untangle::{translate, Options, TranslateError, VendorFeatures, VendorRefusal};
use untangle_testkit::nvapi::{atomic, counter, cs, op, store, wave_shader, SLOT};

fn nv(features: VendorFeatures) -> Options {
    Options { vendor: VendorFeatures { nvapi: Some(SLOT), ..features }, ..Default::default() }
}

fn all() -> Options {
    nv(VendorFeatures {
        shader_clock: true,
        int64_atomics: true,
        float32_atomic_add: true,
        float16_vector_atomics: true,
        subgroup_partitioned: true,
        ..Default::default()
    })
}

fn module(words: &[u32]) -> rspirv::dr::Module {
    rspirv::dr::load_words(words).expect("the module parses")
}

fn opcodes(words: &[u32]) -> Vec<Op> {
    module(words).functions.iter().flat_map(|f| f.all_inst_iter().map(|i| i.class.opcode)).collect()
}

fn count(ops: &[Op], op: Op) -> usize {
    ops.iter().filter(|&&o| o == op).count()
}

/// The distinct binding numbers declared (views of one buffer share theirs).
fn bindings(words: &[u32]) -> usize {
    module(words)
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(|i| {
            matches!(i.operands.get(1), Some(rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Binding)))
        })
        .filter_map(|i| match i.operands.get(2) {
            Some(rspirv::dr::Operand::LiteralBit32(b)) => Some(*b),
            _ => None,
        })
        .collect::<std::collections::BTreeSet<u32>>()
        .len()
}

/// Translates and validates at Vulkan 1.3 and 1.4.
fn valid(text: &str, options: &Options, what: &str) -> Vec<u32> {
    let t = translate(text.as_bytes(), options).unwrap_or_else(|e| panic!("{what}: {e}"));
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", what);
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", what);
    t.words
}

fn refusal(text: &str, options: &Options) -> (String, VendorRefusal) {
    match translate(text.as_bytes(), options) {
        Err(untangle::Error::Translate(TranslateError::VendorExtension {
            vendor: "NVIDIA NVAPI",
            instruction,
            reason,
        })) => (instruction, reason),
        Err(e) => panic!("expected an NVAPI refusal, got {e}"),
        Ok(_) => panic!("expected an NVAPI refusal, got a module"),
    }
}

#[test]
fn without_the_option_the_magic_uav_is_an_ordinary_buffer() {
    let (b, n) = wave_shader();
    let words = valid(&cs(&b, n, 64), &Options::default(), "NVAPI shader without the option");
    let ops = opcodes(&words);
    assert_eq!(count(&ops, Op::GroupNonUniformShuffle), 0);
    assert!(count(&ops, Op::AtomicIAdd) >= 10, "the IncrementCounters are counter atomics");
    assert_eq!(bindings(&words), 2 + 1, "u, g_NvidiaExt and its counter (t is unused)");
}

#[test]
fn wave_intrinsics_lower_to_subgroup_operations() {
    let (b, n) = wave_shader();
    let text = cs(&b, n, 64);
    let words = valid(&text, &nv(VendorFeatures::default()), "NVAPI wave intrinsics");
    let ops = opcodes(&words);
    assert_eq!(count(&ops, Op::GroupNonUniformShuffle), 5, "four shuffle modes, one twice");
    assert_eq!(count(&ops, Op::SGreaterThanEqual), 1, "the up shuffle's signed bound");
    assert_eq!(count(&ops, Op::GroupNonUniformAny), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformAll), 1);
    assert_eq!(count(&ops, Op::GroupNonUniformBallot), 1);
    assert_eq!(count(&ops, Op::AtomicIAdd), 0, "no IncrementCounter survives");
    assert_eq!(bindings(&words), 1, "only u is declared: the magic UAV has no variable");
    assert_eq!(translate(text.as_bytes(), &nv(VendorFeatures::default())).unwrap().words, words, "deterministic");
}

#[test]
fn match_and_timers_need_their_features() {
    let m = op("w0", 21, &[(field::SRC0U, &["%tid", "%x"]), (field::SRC1U, &["2"])]);
    let (instruction, reason) = refusal(&cs(&m, 1, 32), &nv(VendorFeatures::default()));
    assert!(instruction.contains("MATCH_ANY"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "subgroup_partitioned", .. }), "{reason}");
    let words = valid(&cs(&m, 1, 32), &all(), "NvWaveMatch(uint2)");
    let ops = opcodes(&words);
    assert_eq!(count(&ops, Op::GroupNonUniformPartitionNV), 1);

    let t = op("w0", 19, &[(field::SRC0U, &["9"])]) + &op("w1", 19, &[(field::SRC0U, &["10"])]);
    let (instruction, reason) = refusal(&cs(&t, 2, 32), &nv(VendorFeatures::default()));
    assert!(instruction.contains("GET_SPECIAL"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "shader_clock", .. }), "{reason}");
    let ops = opcodes(&valid(&cs(&t, 2, 32), &all(), "global timer"));
    assert_eq!(count(&ops, Op::ReadClockKHR), 2);
}

#[test]
fn atomics_on_byte_address_buffers() {
    // (opcode, sub-operation, value words, SPIR-V, option).
    let cases: [(u32, u32, &[&str], Op, &str); 10] = [
        (20, 3, &["%tid", "0"], Op::AtomicIAdd, "int64_atomics"),
        (20, 6, &["%tid", "1"], Op::AtomicUMax, "int64_atomics"),
        (20, 7, &["%tid", "1"], Op::AtomicUMin, "int64_atomics"),
        (20, 0, &["%tid", "1"], Op::AtomicAnd, "int64_atomics"),
        (20, 2, &["%tid", "1"], Op::AtomicXor, "int64_atomics"),
        (20, 8, &["%tid", "1"], Op::AtomicExchange, "int64_atomics"),
        (20, 9, &["0", "0", "%tid", "1"], Op::AtomicCompareExchange, "int64_atomics"),
        (13, 3, &["%x"], Op::AtomicFAddEXT, "float32_atomic_add"),
        (12, 3, &["%x"], Op::AtomicFAddEXT, "float16_vector_atomics"),
        (12, 6, &["%x"], Op::AtomicFMaxEXT, "float16_vector_atomics"),
    ];
    for (opcode, sub, value, spirv, option) in cases {
        let b = "  %a = shl i32 %tid, 3\n".to_string() + &atomic("w", opcode, "%a", value, sub, true);
        let text = cs(&b, 2, 32);
        let what = format!("atomic {opcode}/{sub}");
        let (instruction, reason) = refusal(&text, &nv(VendorFeatures::default()));
        assert!(instruction.contains(&format!("({opcode})")), "{what}: {instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: o, .. } if o == option), "{what}: {reason}");
        let words = valid(&text, &all(), &what);
        let ops = opcodes(&words);
        assert_eq!(count(&ops, spirv), 1, "{what}");
        let m = module(&words);
        let caps: Vec<_> = m
            .capabilities
            .iter()
            .filter_map(|i| match i.operands[0] {
                rspirv::dr::Operand::Capability(c) => Some(c),
                _ => None,
            })
            .collect();
        let cap = match opcode {
            20 => Capability::Int64Atomics,
            13 => Capability::AtomicFloat32AddEXT,
            _ => Capability::AtomicFloat16VectorNV,
        };
        assert!(caps.contains(&cap), "{what}: {caps:?}");
        // u and t (t's view of the atomic's element type shares its binding); the marking
        // store is dropped.
        assert_eq!(bindings(&words), 2, "{what}");
        assert_eq!(count(&ops, Op::Store), 2, "{what}: only the two results are stored");
    }
}

#[test]
fn unlowered_opcodes_are_refused_by_name() {
    for (opcode, name) in [(30, "GET_SHADING_RATE"), (86, "RT"), (28, "FOOTPRINT"), (33, "SHFL_GENERIC")] {
        let b = op("w0", opcode, &[]);
        let (instruction, reason) = refusal(&cs(&b, 1, 32), &all());
        assert!(instruction.contains(name) && instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::NotLowered(_)), "{reason}");
    }
}

#[test]
fn malformed_records_name_the_call() {
    let cases: Vec<(String, &str)> = vec![
        // A store before any IncrementCounter.
        (store("tid", field::OPCODE, &["8"]) + "  %w0 = add i32 0, 0\n", "outside an open record"),
        // Operands missing when the result is read.
        (
            counter("i") + &store("i", field::SRC0U, &["%tid"]) + &store("i", field::OPCODE, &["1"]) + &counter("w0"),
            "src0u.y is missing",
        ),
        // An opcode NVAPI does not define.
        (counter("i") + &store("i", field::OPCODE, &["9"]) + &counter("w0"), "opcode 9 is not an NVAPI opcode"),
        // A non-constant opcode.
        (counter("i") + &store("i", field::OPCODE, &["%tid"]) + &counter("w0"), "not a constant"),
        // A misaligned field.
        (
            counter("i") + "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %i, i32 6, i32 1, i32 undef, i32 undef, i32 undef, i8 1)\n" + &counter("w0"),
            "byte offset 6",
        ),
        // An atomic without its marking record.
        (atomic("w", 20, "%tid", &["1", "0"], 3, false), "marking record"),
        // A record left open at the end of the function.
        (counter("i") + &store("i", field::SRC0U, &["%tid"]) + "  %w0 = add i32 0, 0\n", "the function ends"),
    ];
    for (b, needle) in cases {
        let (instruction, reason) = refusal(&cs(&b, 1, 32), &all());
        let text = format!("{instruction}: {reason}");
        assert!(
            matches!(reason, VendorRefusal::NvapiMalformed(_)) && text.contains(needle),
            "want `{needle}` in: {text}"
        );
    }
    // Another kind of access to the magic UAV.
    let b = "  %r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %nv, i32 0, i32 0)\n  %w0 = extractvalue %dx.types.ResRet.i32 %r, 0\n";
    let (instruction, _) = refusal(&cs(b, 1, 32), &all());
    assert!(instruction.contains("BufferLoad"), "{instruction}");
}

/// NVAPI shader execution reordering (`tests/nvapi/lib_nvapi_ser.ll`, the records of
/// `nvHLSLExtns.h`'s `NvHitObject` functions in a library).
const SER: &str = include_str!("nvapi/lib_nvapi_ser.ll");

fn ser(invocation_reorder: bool) -> Options {
    nv(VendorFeatures { invocation_reorder, ..Default::default() })
}

fn ser_entry(text: &str, entry: &str, options: &Options) -> Result<Vec<u32>, untangle::Error> {
    let shader = untangle::Shader::parse(text.as_bytes())?;
    shader.translate_entry(entry, options).map(|t| t.words)
}

fn ser_valid(entry: &str, options: &Options, resources: usize) -> Vec<Op> {
    let words = ser_entry(SER, entry, options).unwrap_or_else(|e| panic!("{entry}: {e}"));
    untangle_spirv_tools::assert_valid(&words, "vulkan1.3", entry);
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", entry);
    let m = module(&words);
    let exts: Vec<String> = m.extensions.iter().map(|i| format!("{:?}", i.operands[0])).collect();
    assert!(exts.iter().any(|e| e.contains("SPV_NV_shader_invocation_reorder")), "{entry}: {exts:?}");
    assert_eq!(bindings(&words), resources, "{entry}: the magic UAV is not declared");
    opcodes(&words)
}

#[test]
fn hit_objects_lower_to_invocation_reorder() {
    let options = ser(true);
    let ops = ser_valid("\u{1}?Gen@@YAXXZ", &options, 2);
    for (op, n) in [
        (Op::HitObjectTraceRayNV, 1),
        (Op::HitObjectIsHitNV, 1),
        (Op::HitObjectGetInstanceCustomIndexNV, 1),
        (Op::ReorderThreadWithHitObjectNV, 1),
        (Op::HitObjectExecuteShaderNV, 1),
        (Op::TraceRayKHR, 0),
        (Op::AtomicIAdd, 0),
    ] {
        assert_eq!(count(&ops, op), n, "Gen: {op:?}");
    }
    let ops = ser_valid("\u{1}?All@@YAXXZ", &options, 2);
    for (op, n) in [
        (Op::HitObjectRecordMissNV, 1),
        (Op::HitObjectRecordEmptyNV, 1),
        (Op::HitObjectRecordHitNV, 1),
        (Op::HitObjectRecordHitWithIndexNV, 1),
        (Op::HitObjectIsMissNV, 1),
        (Op::HitObjectIsEmptyNV, 1),
        (Op::HitObjectIsHitNV, 1),
        (Op::HitObjectGetInstanceIdNV, 1),
        (Op::HitObjectGetPrimitiveIndexNV, 1),
        (Op::HitObjectGetGeometryIndexNV, 1),
        (Op::HitObjectGetHitKindNV, 1),
        (Op::HitObjectGetShaderBindingTableRecordIndexNV, 1),
        (Op::HitObjectGetRayTMinNV, 1),
        (Op::HitObjectGetRayTMaxNV, 1),
        (Op::HitObjectGetWorldRayOriginNV, 1),
        (Op::HitObjectGetWorldRayDirectionNV, 1),
        (Op::HitObjectGetAttributesNV, 1),
        (Op::HitObjectGetShaderRecordBufferHandleNV, 1),
        (Op::ReorderThreadWithHintNV, 1),
        (Op::TraceRayKHR, 0),
        (Op::ExecuteCallableKHR, 0),
    ] {
        assert_eq!(count(&ops, op), n, "All: {op:?}");
    }
    let ops = ser_valid("\u{1}?Probe@@YAXUPayload@@UAttribs@@@Z", &options, 0);
    assert_eq!(count(&ops, Op::HitObjectRecordMissNV), 1, "closest hit: MakeMiss");
    assert_eq!(count(&ops, Op::HitObjectIsMissNV), 1, "closest hit: IsMiss");
    let a = ser_entry(SER, "\u{1}?All@@YAXXZ", &options).unwrap();
    assert_eq!(a, ser_entry(SER, "\u{1}?All@@YAXXZ", &options).unwrap(), "deterministic");
}

fn ser_refusal(text: &str, entry: &str, options: &Options) -> (String, VendorRefusal) {
    match ser_entry(text, entry, options) {
        Err(untangle::Error::Translate(TranslateError::VendorExtension {
            vendor: "NVIDIA NVAPI",
            instruction,
            reason,
        })) => (instruction, reason),
        Err(e) => panic!("{entry}: expected an NVAPI refusal, got {e}"),
        Ok(_) => panic!("{entry}: expected an NVAPI refusal, got a module"),
    }
}

#[test]
fn hit_objects_need_the_invocation_reorder_feature() {
    let (instruction, reason) = ser_refusal(SER, "\u{1}?Gen@@YAXXZ", &ser(false));
    assert!(instruction.contains("NV_EXTN_OP_HIT_OBJECT_TRACE_RAY (67)"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "invocation_reorder", .. }), "{reason}");
    // The cross-vendor extension has no hit object made from its parts.
    let ext = Options { shader_invocation_reorder: untangle::ReorderExtension::Ext, ..ser(true) };
    let (instruction, reason) = ser_refusal(SER, "\u{1}?All@@YAXXZ", &ext);
    assert!(instruction.contains("MAKE_HIT (68)"), "{instruction}");
    assert!(reason.to_string().contains("OpHitObjectRecordHit"), "{reason}");
    let words = ser_entry(SER, "\u{1}?Gen@@YAXXZ", &ext).unwrap();
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", "Gen, EXT");
    assert_eq!(count(&opcodes(&words), Op::HitObjectExecuteShaderEXT), 1);
}

#[test]
fn malformed_hit_object_sequences_are_typed_errors() {
    let gen = "\u{1}?Gen@@YAXXZ";
    let cases: [(&str, &str, &str); 4] = [
        // The invoke's TraceRay gone: the record waits at the end of the function.
        (
            "  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 0, i32 0, i32 0, i32 0, i32 %tk4,",
            "  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 0, i32 0, i32 0, i32 0, i32 0,",
            "the function ends",
        ),
        // GET_ATTRIBUTES's token taken by a TraceRay instead of a CallShader.
        ("i32 %t4, i32 0, i32 72,", "i32 %t4, i32 0, i32 80,", "waits for a CallShader"),
        // numOutputsForIncCounter other than 2.
        ("i32 %t0, i32 144, i32 2,", "i32 %t0, i32 144, i32 3,", "numOutputsForIncCounter = 3"),
        // REORDER_THREAD's selector neither 0 nor 1.
        ("i32 %t3, i32 76, i32 1,", "i32 %t3, i32 76, i32 5,", "src0u.x = 5"),
    ];
    for (from, to, needle) in cases {
        assert!(SER.contains(from), "{from}");
        let text = SER.replacen(from, to, 1);
        match ser_entry(&text, gen, &ser(true)) {
            Err(untangle::Error::Translate(TranslateError::VendorExtension { reason, instruction, .. })) => {
                let msg = format!("{instruction}: {reason}");
                assert!(
                    matches!(reason, VendorRefusal::NvapiMalformed(_)) && msg.contains(needle),
                    "want `{needle}`: {msg}"
                );
            }
            other => panic!("want `{needle}`, got {:?}", other.map(|_| ())),
        }
    }
}
