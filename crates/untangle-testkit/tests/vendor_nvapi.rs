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
use untangle_testkit::nvapi::{
    atomic, atomic_on, counter, cs, footprint, hit_shader, op, ray_query_shader, rt_hit_object_query, rt_query,
    single_lod, store, texture_shader, typed_uav_cs, wave_shader, Stage, Target, TypedUav, UavShape, SLOT,
};

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
        image_footprint: true,
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

/// The image formats the module's image types declare.
fn image_formats(words: &[u32]) -> Vec<rspirv::spirv::ImageFormat> {
    module(words)
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeImage)
        .filter_map(|i| match i.operands.last() {
            Some(rspirv::dr::Operand::ImageFormat(f)) => Some(*f),
            _ => None,
        })
        .collect()
}

#[test]
fn atomics_on_textures_and_typed_buffers() {
    use rspirv::spirv::ImageFormat;
    let shapes =
        [UavShape::Texture1D, UavShape::Texture2D, UavShape::Texture3D, UavShape::Texture2DArray, UavShape::Buffer];
    let coords = ["%tid", "%x", "3"];
    // (opcode, sub-operation, value words, float texels, SPIR-V, option, capability, format).
    type Case = (u32, u32, &'static [&'static str], bool, Op, &'static str, Capability, ImageFormat);
    let cases: [Case; 5] = [
        (
            20,
            3,
            &["%tid", "0"],
            false,
            Op::AtomicIAdd,
            "image_int64_atomics",
            Capability::Int64ImageEXT,
            ImageFormat::R64ui,
        ),
        (
            20,
            9,
            &["0", "0", "%tid", "1"],
            false,
            Op::AtomicCompareExchange,
            "image_int64_atomics",
            Capability::Int64ImageEXT,
            ImageFormat::R64ui,
        ),
        (
            13,
            3,
            &["%x"],
            true,
            Op::AtomicFAddEXT,
            "image_float32_atomic_add",
            Capability::AtomicFloat32AddEXT,
            ImageFormat::R32f,
        ),
        (
            12,
            3,
            &["%x"],
            true,
            Op::AtomicFAddEXT,
            "float16_vector_atomics",
            Capability::AtomicFloat16VectorNV,
            ImageFormat::Rg16f,
        ),
        (
            12,
            7,
            &["%x"],
            true,
            Op::AtomicFMinEXT,
            "float16_vector_atomics",
            Capability::AtomicFloat16VectorNV,
            ImageFormat::Rg16f,
        ),
    ];
    for shape in shapes {
        for (opcode, sub, value, float, spirv, option, cap, format) in cases {
            let uav = TypedUav { shape, float };
            let b = atomic_on("w", opcode, Some(Target::Typed(uav)), &coords[..uav.coords()], value, sub);
            let text = typed_uav_cs(&b, 2, 32, uav);
            let what = format!("atomic {opcode}/{sub} on {shape:?}");
            // The buffer forms' features do not cover images (fp16x2's covers both).
            let (instruction, reason) =
                refusal(&text, &nv(VendorFeatures { float16_vector_atomics: opcode != 12, ..all().vendor }));
            assert!(instruction.contains(&format!("({opcode})")), "{what}: {instruction}");
            assert!(
                matches!(reason, VendorRefusal::MissingFeature { option: o, .. } if o == option),
                "{what}: {reason}"
            );
            let options =
                nv(VendorFeatures { image_int64_atomics: true, image_float32_atomic_add: true, ..all().vendor });
            let words = valid(&text, &options, &what);
            let ops = opcodes(&words);
            assert_eq!(count(&ops, Op::ImageTexelPointer), 1, "{what}");
            assert_eq!(count(&ops, spirv), 1, "{what}");
            assert!(capabilities(&words).contains(&cap), "{what}");
            assert!(image_formats(&words).contains(&format), "{what}: {:?}", image_formats(&words));
            // u and the typed UAV (its view shares its binding; t is unused); the marking
            // store is dropped.
            assert_eq!(bindings(&words), 2, "{what}");
            assert_eq!(count(&ops, Op::Store), 2, "{what}: only the two results are stored");
        }
    }
}

#[test]
fn unlowered_opcodes_are_refused_by_name() {
    for (opcode, name) in [(30, "GET_SHADING_RATE"), (87, "RT"), (51, "VPRS_EVAL_ATTRIB"), (33, "SHFL_GENERIC")] {
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

/// Float bits of 0.25, 0.5, 0.75, 1.0, 2.0 (what `asuint` of a constant stores).
const F025: &str = "1048576000";
const F05: &str = "1056964608";
const F075: &str = "1061158912";
const F1: &str = "1065353216";
const F2: &str = "1073741824";

/// A footprint of texture register `tex` (type `ty`) into `%w0..%w3`, and its single-LOD
/// predicate into `%w4`.
fn footprint_body(opcode: u32, tex: &str, ty: u32, mode: &str, offset: [&str; 3]) -> String {
    let extra: &[&str] = match opcode {
        29 => &[F05],
        31 => &[F1],
        32 => &[F025, "0", "0", "0", F025, "0"],
        _ => &[],
    };
    footprint("w", opcode, tex, "0", ty, [F05, F075, F025], "1", mode, extra, offset) + &single_lod("w4")
}

/// [`footprint_body`] in a shader of `stage` (4 threads when compute) storing its 5 words.
fn footprint_shader(opcode: u32, tex: &str, ty: u32, mode: &str, offset: [&str; 3], stage: Stage) -> String {
    texture_shader(&footprint_body(opcode, tex, ty, mode, offset), 5, 4, stage)
}

/// The `OpImageSampleFootprintNV` instructions of a module.
fn footprints(words: &[u32]) -> Vec<rspirv::dr::Instruction> {
    module(words)
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter().cloned())
        .filter(|i| i.class.opcode == Op::ImageSampleFootprintNV)
        .collect()
}

#[test]
fn footprints_lower_to_image_footprint() {
    use rspirv::dr::Operand;
    use rspirv::spirv::ImageOperands as Io;
    // (opcode, texture register, type, mode, offset, stage, image operands).
    type Case<'a> = (u32, &'a str, u32, &'a str, [&'a str; 3], Stage, Io);
    let cases: [Case; 9] = [
        (28, "0", 4, "0", ["0", "0", "0"], Stage::Pixel, Io::NONE),
        (28, "1", 6, "1", ["0", "0", "0"], Stage::Pixel, Io::NONE),
        (29, "0", 4, "1", ["0", "0", "0"], Stage::Pixel, Io::BIAS),
        (29, "1", 6, "0", ["1", "-1", "2"], Stage::Pixel, Io::BIAS | Io::CONST_OFFSET),
        (31, "0", 4, "0", ["0", "0", "0"], Stage::Compute, Io::LOD),
        (31, "1", 6, "1", ["0", "0", "0"], Stage::Compute, Io::LOD),
        (32, "0", 4, "1", ["2", "3", "0"], Stage::Compute, Io::GRAD | Io::CONST_OFFSET),
        (32, "1", 6, "0", ["0", "0", "0"], Stage::Pixel, Io::GRAD),
        (28, "0", 4, "1", ["0", "0", "0"], Stage::Compute, Io::NONE),
    ];
    for (opcode, tex, ty, mode, offset, stage, io) in cases {
        let what = format!("footprint {opcode} type {ty} mode {mode} {stage:?}");
        let text = footprint_shader(opcode, tex, ty, mode, offset, stage);
        let words = valid(&text, &all(), &what);
        let fps = footprints(&words);
        assert_eq!(fps.len(), 1, "{what}");
        let ops = &fps[0].operands;
        // Sampled image, coordinate, granularity, coarse, then the image operands.
        let mask = match ops.get(4) {
            Some(Operand::ImageOperands(m)) => *m,
            None => Io::NONE,
            other => panic!("{what}: operand 4 {other:?}"),
        };
        assert_eq!(mask, io, "{what}");
        let m = module(&words);
        let konst = |id: u32| m.types_global_values.iter().find(|i| i.result_id == Some(id)).map(|i| i.class.opcode);
        let Operand::IdRef(coarse) = ops[3] else { panic!("{what}: coarse {:?}", ops[3]) };
        let want = if mode == "1" { Op::ConstantTrue } else { Op::ConstantFalse };
        assert_eq!(konst(coarse), Some(want), "{what}: coarse");
        // The result struct: bool, anchor and offset of the texture's dimension, mask, lod, granularity.
        let st = m.types_global_values.iter().find(|i| i.result_id == fps[0].result_type).expect("result type");
        assert_eq!(st.class.opcode, Op::TypeStruct, "{what}");
        assert_eq!(st.operands.len(), 6, "{what}");
        let Operand::IdRef(anchor) = st.operands[1] else { panic!() };
        let at = m.types_global_values.iter().find(|i| i.result_id == Some(anchor)).expect("anchor type");
        assert_eq!(at.operands[1], Operand::LiteralBit32(if ty == 6 { 3 } else { 2 }), "{what}: anchor");
        let all_ops = opcodes(&words);
        assert_eq!(count(&all_ops, Op::AtomicIAdd), 0, "{what}: no IncrementCounter survives");
        assert_eq!(count(&all_ops, Op::BitFieldInsert), if ty == 6 { 8 } else { 6 }, "{what}: the packing");
        let caps: Vec<_> = m.capabilities.iter().map(|i| i.operands[0].clone()).collect();
        assert!(caps.contains(&Operand::Capability(Capability::ImageFootprintNV)), "{what}");
        assert!(
            m.extensions
                .iter()
                .any(|i| i.operands[0] == Operand::LiteralString("SPV_NV_shader_image_footprint".into())),
            "{what}"
        );
        if stage == Stage::Compute && matches!(opcode, 28 | 29) {
            assert!(
                caps.iter().any(|c| matches!(c, Operand::Capability(Capability::ComputeDerivativeGroupLinearKHR))),
                "{what}"
            );
        }
    }
}

#[test]
fn the_single_lod_predicate_is_the_footprints_member_0() {
    use rspirv::dr::Operand;
    let words = valid(&footprint_shader(31, "0", 4, "0", ["0"; 3], Stage::Compute), &all(), "single-LOD predicate");
    let m = module(&words);
    let insts: Vec<_> = m.functions.iter().flat_map(|f| f.all_inst_iter().cloned()).collect();
    let fp = insts.iter().find(|i| i.class.opcode == Op::ImageSampleFootprintNV).expect("footprint");
    let member0 = insts
        .iter()
        .find(|i| {
            i.class.opcode == Op::CompositeExtract
                && i.operands == vec![Operand::IdRef(fp.result_id.unwrap()), Operand::LiteralBit32(0)]
        })
        .expect("member 0 extracted");
    assert!(
        insts
            .iter()
            .any(|i| i.class.opcode == Op::Select && i.operands[0] == Operand::IdRef(member0.result_id.unwrap())),
        "the predicate selects on member 0"
    );
}

#[test]
fn footprints_need_image_footprint() {
    let text = footprint_shader(28, "0", 4, "0", ["0"; 3], Stage::Pixel);
    let (instruction, reason) = refusal(&text, &nv(VendorFeatures::default()));
    assert!(instruction.contains("FOOTPRINT (28)"), "{instruction}");
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "image_footprint", .. }), "{reason}");
    // With it, the layout report names the device feature and extension the layer enables.
    use untangle::emit::features::Enable;
    let reqs = translate(text.as_bytes(), &all()).expect("translates").device_features();
    let feature = |e: &Enable| {
        matches!(
            e,
            Enable::Feature {
                structure: "VkPhysicalDeviceShaderImageFootprintFeaturesNV",
                member: "imageFootprint",
                ..
            }
        )
    };
    assert!(reqs.iter().any(|r| r.spirv == "ImageFootprintNV" && r.any_of.iter().any(feature)), "{reqs:?}");
    let ext = reqs.iter().find(|r| r.spirv == "SPV_NV_shader_image_footprint").expect("the extension");
    assert_eq!(ext.any_of, [Enable::Extension { extension: "VK_NV_shader_image_footprint" }]);
}

#[test]
fn malformed_or_unlowerable_footprints_are_typed_errors() {
    let px = |opcode, tex: &str, ty, body_extra: &str| {
        texture_shader(&(footprint_body(opcode, tex, ty, "0", ["0"; 3]) + body_extra), 5, 4, Stage::Pixel)
    };
    let nv_reason = |text: &str| {
        let (instruction, reason) = refusal(text, &all());
        (format!("{instruction}: {reason}"), reason)
    };
    // A texture type NVAPI does not define.
    let (t, r) = nv_reason(&px(28, "0", 9, ""));
    assert!(matches!(r, VendorRefusal::NvapiMalformed(_)) && t.contains("src3u.z = 9"), "{t}");
    // 2D arrays: no SPIR-V form.
    let (t, r) = nv_reason(&px(28, "2", 5, ""));
    assert!(matches!(r, VendorRefusal::NotLowered(_)) && t.contains("2D array"), "{t}");
    // A register no range holds.
    let (t, r) = nv_reason(&px(28, "5", 4, ""));
    assert!(matches!(r, VendorRefusal::NotLowered(_)) && t.contains("register 5 of space 0"), "{t}");
    // The type says 3D, the register holds a 2D texture.
    let (t, r) = nv_reason(&px(28, "0", 6, ""));
    assert!(matches!(r, VendorRefusal::NotLowered(_)) && t.contains("3D texture"), "{t}");
    // A non-constant offset.
    let b = footprint("w", 31, "0", "0", 4, [F05, F05, "0"], "1", "0", &[F2], ["%tid", "0", "0"]) + &single_lod("w4");
    let (t, r) = nv_reason(&texture_shader(&b, 5, 4, Stage::Compute));
    assert!(matches!(r, VendorRefusal::NotLowered(_)) && t.contains("non-constant texel offset"), "{t}");
    // A register known at run time in a space of several SRV ranges: which one is unknown.
    let b = footprint("w", 31, "%tid", "0", 4, [F05, F05, "0"], "1", "0", &[F2], ["0"; 3]) + &single_lod("w4");
    let (t, r) = nv_reason(&texture_shader(&b, 5, 4, Stage::Compute));
    assert!(matches!(r, VendorRefusal::NotLowered(_)) && t.contains("known at run time"), "{t}");
    // ... but in the only sampler range of its space it is that range, indexed non-uniformly.
    let b = footprint("w", 31, "0", "%tid", 4, [F05, F05, "0"], "1", "0", &[F2], ["0"; 3]) + &single_lod("w4");
    let words = valid(&texture_shader(&b, 5, 4, Stage::Compute), &all(), "run-time sampler register");
    assert_eq!(footprints(&words).len(), 1);
    let nonuniform = module(&words).annotations.iter().any(|i| {
        matches!(i.operands.get(1), Some(rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::NonUniform)))
    });
    assert!(nonuniform, "the sampler is loaded NonUniform");
    // The predicate read with no footprint before it.
    let b = single_lod("w0");
    let (t, r) = nv_reason(&texture_shader(&b, 1, 4, Stage::Compute));
    assert!(matches!(r, VendorRefusal::NvapiMalformed(_)) && t.contains("no NV_EXTN_OP_FOOTPRINT"), "{t}");
    // numOutputsForIncCounter never stored: the record is incomplete at the first result.
    let full = footprint("w", 28, "0", "0", 4, [F05, F05, "0"], "1", "0", &[], ["0"; 3]);
    let cut: String = full
        .lines()
        .filter(|l| !l.contains(&format!("i32 {},", field::NUM_OUTPUTS * 4)))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(cut, full);
    let (t, r) = nv_reason(&texture_shader(&(cut + "  %w4 = add i32 0, 0\n"), 5, 4, Stage::Pixel));
    assert!(matches!(r, VendorRefusal::NvapiMalformed(_)) && t.contains("numOutputsForIncCounter is missing"), "{t}");
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
// --- Ray-tracing queries (`NV_EXTN_OP_RT_*`) ---

fn rt_all() -> Options {
    nv(VendorFeatures {
        cluster_acceleration_structure: true,
        ray_tracing_position_fetch: true,
        spheres: true,
        linear_swept_spheres: true,
        ..Default::default()
    })
}

/// `(opcode, result words)` records on `%rq` (`rq`) or in a hit shader (`None`), their
/// results stored as `%w0..`: the body and the count.
fn rt_body(queries: &[(u32, usize)], rq: Option<&str>) -> (String, usize) {
    let mut b = String::new();
    let mut n = 0;
    for (k, &(opcode, results)) in queries.iter().enumerate() {
        let out = format!("r{k}_");
        b += &rt_query(&out, opcode, rq, results);
        for j in 0..results {
            b += &format!("  %w{n} = add i32 %{out}{j}, 0\n");
            n += 1;
        }
    }
    (b, n)
}

fn capabilities(words: &[u32]) -> Vec<Capability> {
    module(words)
        .capabilities
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::Capability(c)) => Some(*c),
            _ => None,
        })
        .collect()
}

fn builtins(words: &[u32]) -> Vec<rspirv::spirv::BuiltIn> {
    module(words)
        .annotations
        .iter()
        .filter_map(|i| match i.operands.get(2) {
            Some(rspirv::dr::Operand::BuiltIn(b)) => Some(*b),
            _ => None,
        })
        .collect()
}

/// The intersection operands (`0` candidate, `1` committed) of each `op` instruction.
fn intersections(words: &[u32], op: Op) -> Vec<u32> {
    let m = module(words);
    let consts: std::collections::HashMap<u32, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::LiteralBit32(v)) => Some((i.result_id?, *v)),
            _ => None,
        })
        .collect();
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op)
        .map(|i| match i.operands.get(1) {
            Some(rspirv::dr::Operand::IdRef(id)) => consts[id],
            other => panic!("{op:?}: intersection operand {other:?}"),
        })
        .collect()
}

#[test]
fn ray_query_cluster_ids_and_triangle_positions() {
    let (b, n) = rt_body(&[(94, 1), (95, 1), (97, 9), (98, 9)], Some("rq"));
    let text = ray_query_shader(&b, n, 32);
    let words = valid(&text, &rt_all(), "NvRtGet{Candidate,Committed}ClusterID, NvRt*TriangleObjectPositions");
    let ops = opcodes(&words);
    assert_eq!(intersections(&words, Op::RayQueryGetIntersectionClusterIdNV), [0, 1]);
    assert_eq!(intersections(&words, Op::RayQueryGetIntersectionTriangleVertexPositionsKHR), [0, 1]);
    assert_eq!(count(&ops, Op::RayQueryGetRayFlagsKHR), 4, "the RayFlags() calls stay (unused)");
    assert_eq!(count(&ops, Op::AtomicIAdd), 0, "no IncrementCounter survives");
    assert_eq!(bindings(&words), 1, "only u is declared");
    let caps = capabilities(&words);
    for c in [
        Capability::RayQueryKHR,
        Capability::RayTracingClusterAccelerationStructureNV,
        Capability::RayQueryPositionFetchKHR,
    ] {
        assert!(caps.contains(&c), "{c:?}: {caps:?}");
    }
    assert!(!caps.contains(&Capability::RayTracingPositionFetchKHR), "the ray-query capability only: {caps:?}");
    assert_eq!(translate(text.as_bytes(), &rt_all()).unwrap().words, words, "deterministic");
    // The layout report names the device features the layer enables.
    let reqs = translate(text.as_bytes(), &rt_all()).unwrap().device_features();
    for (spirv, member) in [
        ("RayTracingClusterAccelerationStructureNV", "clusterAccelerationStructure"),
        ("RayQueryPositionFetchKHR", "rayTracingPositionFetch"),
    ] {
        let named = reqs.iter().any(|r| {
            r.spirv == spirv
                && r.any_of
                    .iter()
                    .any(|e| matches!(e, untangle::emit::features::Enable::Feature { member: m, .. } if *m == member))
        });
        assert!(named, "{spirv} / {member}: {reqs:?}");
    }
    // Each needs its feature.
    for (opcode, option) in [(94, "cluster_acceleration_structure"), (98, "ray_tracing_position_fetch")] {
        let (b, n) = rt_body(&[(opcode, 1)], Some("rq"));
        let (instruction, reason) = refusal(&ray_query_shader(&b, n, 32), &nv(VendorFeatures::default()));
        assert!(instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: o, .. } if o == option), "{reason}");
    }
}

#[test]
fn ray_query_spheres_and_swept_spheres() {
    let queries = [(101, 4), (102, 4), (105, 8), (106, 8), (109, 1), (110, 1), (113, 1), (114, 1), (116, 1), (117, 1)];
    let (b, n) = rt_body(&queries, Some("rq"));
    assert_eq!(n, 30);
    let text = ray_query_shader(&b, n, 32);
    let words = valid(&text, &rt_all(), "NvRt sphere and LSS ray-query forms");
    for op in [
        Op::RayQueryGetIntersectionSpherePositionNV,
        Op::RayQueryGetIntersectionSphereRadiusNV,
        Op::RayQueryGetIntersectionLSSPositionsNV,
        Op::RayQueryGetIntersectionLSSRadiiNV,
        Op::RayQueryIsSphereHitNV,
        Op::RayQueryIsLSSHitNV,
        Op::RayQueryGetIntersectionLSSHitValueNV,
    ] {
        assert_eq!(intersections(&words, op), [0, 1], "{op:?}");
    }
    let caps = capabilities(&words);
    assert!(caps.contains(&Capability::RayTracingSpheresGeometryNV), "{caps:?}");
    assert!(caps.contains(&Capability::RayTracingLinearSweptSpheresGeometryNV), "{caps:?}");
    let reqs = translate(text.as_bytes(), &rt_all()).unwrap().device_features();
    for member in ["spheres", "linearSweptSpheres"] {
        let named = reqs.iter().any(|r| {
            r.any_of
                .iter()
                .any(|e| matches!(e, untangle::emit::features::Enable::Feature { member: m, .. } if *m == member))
        });
        assert!(named, "{member}: {reqs:?}");
    }
    // Spheres and swept spheres are separate device features.
    let spheres_only = nv(VendorFeatures { spheres: true, ..Default::default() });
    let (b, n) = rt_body(&[(101, 4)], Some("rq"));
    let words = valid(&ray_query_shader(&b, n, 32), &spheres_only, "spheres without LSS");
    assert!(!capabilities(&words).contains(&Capability::RayTracingLinearSweptSpheresGeometryNV));
    for opcode in [105, 113, 116] {
        let (b, n) = rt_body(&[(opcode, if opcode == 105 { 8 } else { 1 })], Some("rq"));
        let (instruction, reason) = refusal(&ray_query_shader(&b, n, 32), &spheres_only);
        assert!(instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: "linear_swept_spheres", .. }), "{reason}");
    }
    let (b, n) = rt_body(&[(110, 1)], Some("rq"));
    let (_, reason) = refusal(&ray_query_shader(&b, n, 32), &nv(VendorFeatures::default()));
    assert!(matches!(reason, VendorRefusal::MissingFeature { option: "spheres", .. }), "{reason}");
}

#[test]
fn hit_shader_queries_read_built_ins() {
    use rspirv::spirv::BuiltIn;
    let queries = [(93, 1), (86, 9), (100, 4), (104, 8), (108, 1), (112, 1)];
    let (b, n) = rt_body(&queries, None);
    for kind in [9, 10] {
        let text = hit_shader(&b, n, kind);
        let t = untangle::Shader::parse(text.as_bytes())
            .unwrap()
            .translate_entry("\u{1}?Hit@@YAXXZ", &rt_all())
            .unwrap_or_else(|e| panic!("kind {kind}: {e}"));
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "NVAPI hit-shader queries");
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", "NVAPI hit-shader queries");
        let found = builtins(&t.words);
        for b in [
            BuiltIn::ClusterIDNV,
            BuiltIn::HitTriangleVertexPositionsKHR,
            BuiltIn::HitSpherePositionNV,
            BuiltIn::HitSphereRadiusNV,
            BuiltIn::HitLSSPositionsNV,
            BuiltIn::HitLSSRadiiNV,
            BuiltIn::HitIsSphereNV,
            BuiltIn::HitIsLSSNV,
        ] {
            assert!(found.contains(&b), "kind {kind}: {b:?} in {found:?}");
        }
        let caps = capabilities(&t.words);
        assert!(caps.contains(&Capability::RayTracingPositionFetchKHR), "{caps:?}");
        assert_eq!(count(&opcodes(&t.words), Op::AtomicIAdd), 0, "no IncrementCounter survives");
    }
    // The built-ins exist only in any-hit and closest-hit shaders.
    let text = hit_shader(&b, n, 11);
    let e = untangle::Shader::parse(text.as_bytes()).unwrap().translate_entry("\u{1}?Hit@@YAXXZ", &rt_all());
    let Err(e) = e else { panic!("a miss shader translated") };
    let e = e.to_string();
    assert!(e.contains("RT_GET_CLUSTER_ID (93)") && e.contains("any-hit or closest-hit"), "{e}");
}

#[test]
fn unlowered_ray_tracing_opcodes_are_refused_by_name() {
    // (opcode, ray-query form, name, reason).
    for (opcode, rq, name, why) in [
        (87, None, "RT_MICRO_TRIANGLE_OBJECT_POSITIONS", "displacement micro-map"),
        (90, None, "RT_IS_BACK_FACING", "displacement micro-map"),
        (118, Some("rq"), "RT_CANDIDATE_BUILTIN_PRIMITIVE_RAY_T", "non-opaque sphere or LSS candidate to a ray query"),
        (
            119,
            Some("rq"),
            "RT_COMMIT_NONOPAQUE_BUILTIN_PRIMITIVE_HIT",
            "non-opaque sphere or LSS candidate to a ray query",
        ),
    ] {
        let (b, n) = rt_body(&[(opcode, 1)], rq);
        let (instruction, reason) = refusal(&ray_query_shader(&b, n, 32), &rt_all());
        assert!(instruction.contains(&format!("NV_EXTN_OP_{name} ({opcode})")), "{instruction}");
        assert!(matches!(&reason, VendorRefusal::NotLowered(r) if r.contains(why)), "{opcode}: {reason}");
    }
}

#[test]
fn malformed_ray_query_records_are_typed_errors() {
    let reason = |b: &str, n| {
        let (instruction, reason) = refusal(&ray_query_shader(b, n, 32), &rt_all());
        assert!(matches!(reason, VendorRefusal::NvapiMalformed(_)), "{instruction}: {reason}");
        format!("{instruction}: {reason}")
    };
    // src0u.x is not RayFlags() of a query.
    let b = counter("c_i")
        + &store("c_i", field::OPCODE, &["94"])
        + &store("c_i", field::SRC0U, &["%tid"])
        + &counter("w0");
    let r = reason(&b, 1);
    assert!(r.contains("RT_GET_CANDIDATE_CLUSTER_ID (94)") && r.contains("RayFlags()"), "{r}");
    // src0u.x never stored: the record is incomplete when its result is read.
    let b = counter("c_i") + &store("c_i", field::OPCODE, &["95"]) + &counter("w0");
    let r = reason(&b, 1);
    assert!(r.contains("src0u.x is missing"), "{r}");
}

// --- The hit-object forms of the ray-tracing queries (`NvHitObject::GetClusterID` ...) ---

/// `Gen` of the SER library with the hit-object queries `queries` (opcode, result words)
/// on its traced hit object `%hh`, their results folded into the word it stores.
fn ser_rt(queries: &[(u32, usize)]) -> String {
    let mut b = String::new();
    let mut acc = "iid".to_string();
    for (k, &(opcode, results)) in queries.iter().enumerate() {
        let out = format!("hq{k}_");
        b += &rt_hit_object_query(&out, opcode, "hh", results);
        for j in 0..results {
            b += &format!("  %hq{k}_a{j} = xor i32 %{acc}, %{out}{j}\n");
            acc = format!("hq{k}_a{j}");
        }
    }
    let at = "  ; NvReorderThread(hitObj, x, 2)\n";
    let (from, to) = ("%iz = mul i32 %iid, %hz", format!("%iz = mul i32 %{acc}, %hz"));
    assert!(SER.contains(at) && SER.contains(from));
    SER.replacen(at, &format!("{b}{at}"), 1).replacen(from, &to, 1)
}

fn ser_rt_all() -> Options {
    Options { vendor: VendorFeatures { invocation_reorder: true, ..rt_all().vendor }, ..Default::default() }
}

fn ext(options: Options) -> Options {
    Options { shader_invocation_reorder: untangle::ReorderExtension::Ext, ..options }
}

const GEN: &str = "\u{1}?Gen@@YAXXZ";

/// The `OpAccessChain` index of each hit-object pointer `op` takes first.
fn slot_indices(words: &[u32], op: Op) -> Vec<u32> {
    let m = module(words);
    let insts: Vec<_> = m.functions.iter().flat_map(|f| f.all_inst_iter()).collect();
    let id = |o: Option<&rspirv::dr::Operand>| match o {
        Some(rspirv::dr::Operand::IdRef(id)) => *id,
        other => panic!("{op:?}: operand {other:?}"),
    };
    insts
        .iter()
        .filter(|i| i.class.opcode == op)
        .map(|i| {
            let p = id(i.operands.first());
            let chain = insts.iter().find(|j| j.result_id == Some(p)).expect("the pointer is defined");
            assert_eq!(chain.class.opcode, Op::AccessChain, "{op:?}");
            id(chain.operands.get(1))
        })
        .collect()
}

#[test]
fn hit_object_queries_lower_to_hit_object_instructions() {
    let text = ser_rt(&[(96, 1), (103, 4), (107, 8), (111, 1), (115, 1)]);
    let words = ser_entry(&text, GEN, &ser_rt_all()).unwrap_or_else(|e| panic!("{e}"));
    untangle_spirv_tools::assert_valid(&words, "vulkan1.3", "hit-object queries");
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", "hit-object queries");
    let ops = opcodes(&words);
    let queries = [
        Op::HitObjectGetClusterIdNV,
        Op::HitObjectGetSpherePositionNV,
        Op::HitObjectGetSphereRadiusNV,
        Op::HitObjectGetLSSPositionsNV,
        Op::HitObjectGetLSSRadiiNV,
        Op::HitObjectIsSphereHitNV,
        Op::HitObjectIsLSSHitNV,
    ];
    for op in queries {
        assert_eq!(count(&ops, op), 1, "{op:?}");
    }
    // No built-in, no ray query, and the magic UAV untouched (scene and Out only).
    assert!(builtins(&words).iter().all(|b| format!("{b:?}").starts_with("LaunchId")), "{:?}", builtins(&words));
    assert_eq!(bindings(&words), 2);
    // Each reads the slot of the traced hit object (the handle `%hh` is its index).
    let traced = slot_indices(&words, Op::HitObjectTraceRayNV);
    assert_eq!(traced.len(), 1);
    for op in queries {
        assert_eq!(slot_indices(&words, op), traced, "{op:?}");
    }
    let caps = capabilities(&words);
    for c in [
        Capability::ShaderInvocationReorderNV,
        Capability::RayTracingClusterAccelerationStructureNV,
        Capability::RayTracingSpheresGeometryNV,
        Capability::RayTracingLinearSweptSpheresGeometryNV,
    ] {
        assert!(caps.contains(&c), "{c:?}: {caps:?}");
    }
    assert_eq!(words, ser_entry(&text, GEN, &ser_rt_all()).unwrap(), "deterministic");
    // SPV_EXT_shader_invocation_reorder has none of them: the NV instructions take NV hit objects.
    for opcode in [96, 103, 107, 111, 115] {
        let (instruction, reason) = ser_refusal(&ser_rt(&[(opcode, 1)]), GEN, &ext(ser_rt_all()));
        assert!(instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(
            matches!(&reason, VendorRefusal::NotLowered(r) if r.contains("NV hit objects only")),
            "{opcode}: {reason}"
        );
    }
}

#[test]
fn hit_object_triangle_positions_need_the_ext_hit_object() {
    let text = ser_rt(&[(99, 9)]);
    let words = ser_entry(&text, GEN, &ext(ser_rt_all())).unwrap_or_else(|e| panic!("{e}"));
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", "hit-object triangle positions");
    let ops = opcodes(&words);
    assert_eq!(count(&ops, Op::HitObjectGetIntersectionTriangleVertexPositionsEXT), 1);
    // Row by row: nine extracts of the 3 x vec3 array.
    assert!(count(&ops, Op::CompositeExtract) >= 9);
    assert_eq!(slot_indices(&words, Op::HitObjectGetIntersectionTriangleVertexPositionsEXT).len(), 1);
    assert_eq!(
        slot_indices(&words, Op::HitObjectGetIntersectionTriangleVertexPositionsEXT),
        slot_indices(&words, Op::HitObjectTraceRayEXT)
    );
    assert!(capabilities(&words).contains(&Capability::RayTracingPositionFetchKHR));
    // SPV_NV_shader_invocation_reorder has no such query.
    let (instruction, reason) = ser_refusal(&text, GEN, &ser_rt_all());
    assert!(instruction.contains("HIT_OBJECT_GET_TRIANGLE_OBJECT_POSITIONS (99)"), "{instruction}");
    assert!(
        matches!(&reason, VendorRefusal::NotLowered(r) if r.contains("OpHitObjectGetIntersectionTriangleVertexPositionsEXT")),
        "{reason}"
    );
}

#[test]
fn hit_object_queries_need_both_features() {
    let all = ser_rt_all().vendor;
    for (opcode, results, option, without) in [
        (96, 1, "cluster_acceleration_structure", VendorFeatures { cluster_acceleration_structure: false, ..all }),
        (99, 9, "ray_tracing_position_fetch", VendorFeatures { ray_tracing_position_fetch: false, ..all }),
        (103, 4, "spheres", VendorFeatures { spheres: false, ..all }),
        (111, 1, "spheres", VendorFeatures { spheres: false, ..all }),
        (107, 8, "linear_swept_spheres", VendorFeatures { linear_swept_spheres: false, ..all }),
        (115, 1, "linear_swept_spheres", VendorFeatures { linear_swept_spheres: false, ..all }),
    ] {
        let options = Options { vendor: without, ..Default::default() };
        let options = if opcode == 99 { ext(options) } else { options };
        let (instruction, reason) = ser_refusal(&ser_rt(&[(opcode, results)]), GEN, &options);
        assert!(instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: o, .. } if o == option), "{opcode}: {reason}");
        // Without invocation reordering the record itself names it (a shader making no
        // hit object, so that no other record is refused first).
        let b = rt_hit_object_query("q", opcode, "tid", results);
        let options = nv(VendorFeatures { invocation_reorder: false, ..all });
        let (instruction, reason) = refusal(&cs(&b, 0, 32), &options);
        assert!(instruction.contains(&format!("({opcode})")), "{instruction}");
        assert!(matches!(reason, VendorRefusal::MissingFeature { option: "invocation_reorder", .. }), "{reason}");
    }
}
