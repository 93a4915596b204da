//! SM 6.10 LinAlg matrices (issue 34, item 5; hlsl-specs proposal 0035): thread-scope
//! matrix-vector products from a hand-written input (`corpus/cs_linalg_matvec.ll`) become
//! `OpCooperativeVectorMatrixMulNV` with the layout, interpretations and signedness the
//! mapping names, pass `spirv-val` (vulkan1.3 and 1.4) and ask for `cooperativeVector`;
//! what is not lowered or not expressible is a typed error naming the case; DXC's shared
//! LinAlgMatrix tests translate and validate or are refused with a typed error.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op};
use untangle::emit::features::Enable;
use untangle::emit::support::Refusal;
use untangle::{Error, Shader, TranslateError};

const CS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_linalg_matvec.ll");
const DXC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");

fn text() -> String {
    std::fs::read_to_string(CS).unwrap()
}

fn translate(src: &str) -> Result<Vec<u32>, Error> {
    Shader::parse(src.as_bytes()).unwrap().translate(&Default::default()).map(|t| t.words)
}

fn body(m: &Module) -> Vec<&Instruction> {
    m.functions.iter().flat_map(|f| &f.blocks).flat_map(|b| &b.instructions).collect()
}

/// The value of a 32-bit integer or boolean constant.
fn constant(m: &Module, id: u32) -> Option<u32> {
    m.types_global_values.iter().find(|i| i.result_id == Some(id)).and_then(|i| match i.class.opcode {
        Op::ConstantTrue => Some(1),
        Op::ConstantFalse => Some(0),
        Op::Constant => match i.operands[0] {
            Operand::LiteralBit32(v) => Some(v),
            _ => None,
        },
        _ => None,
    })
}

fn id(o: &Operand) -> u32 {
    o.unwrap_id_ref()
}

#[test]
fn thread_scope_products_become_cooperative_vector_products() {
    let words = translate(&text()).unwrap();
    for env in ["vulkan1.3", "vulkan1.4"] {
        untangle_spirv_tools::assert_valid(&words, env, &format!("cs_linalg_matvec ({env})"));
    }
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(m.capabilities.iter().any(|i| i.operands[0] == Operand::Capability(Capability::CooperativeVectorNV)));
    assert!(m.extensions.iter().any(|i| i.operands[0] == Operand::LiteralString("SPV_NV_cooperative_vector".into())));
    let products: Vec<&Instruction> =
        body(&m).into_iter().filter(|i| i.class.opcode == Op::CooperativeVectorMatrixMulNV).collect();
    assert_eq!(products.len(), 3, "MatVecMul, MatVecMulAdd, the packed int8 MatVecMul");
    // Operands: Input, InputInterpretation, Matrix, MatrixOffset, MatrixInterpretation, M,
    // K, MemoryLayout, Transpose, MatrixStride, [operands].
    let c = |p: &Instruction, k: usize| constant(&m, id(&p.operands[k]));
    for p in &products[..2] {
        // F16 input and matrix, 4x8, row major at byte 128 with 16-byte rows, not transposed.
        assert_eq!((c(p, 1), c(p, 3), c(p, 4)), (Some(0), Some(128), Some(0)), "{p:?}");
        assert_eq!((c(p, 5), c(p, 6), c(p, 7), c(p, 8), c(p, 9)), (Some(4), Some(8), Some(0), Some(0), Some(16)));
        assert_eq!(p.operands.len(), 10, "a float result takes no signedness operand");
    }
    let q = products[2];
    // Packed signed int8 input, I8 matrix, inferencing-optimal transposed at byte 256,
    // signed 32-bit result.
    assert_eq!((c(q, 1), c(q, 3), c(q, 4)), (Some(1000491000), Some(256), Some(3)));
    assert_eq!((c(q, 7), c(q, 8)), (Some(2), Some(1)));
    assert_eq!(
        q.operands[10],
        Operand::CooperativeMatrixOperands(
            rspirv::spirv::CooperativeMatrixOperands::MATRIX_RESULT_SIGNED_COMPONENTS_KHR
        )
    );
    // Training: the outer product accumulated in the training-optimal layout as F32 at
    // byte 512, the vector accumulated at byte 1024.
    let outer: Vec<&Instruction> =
        body(&m).into_iter().filter(|i| i.class.opcode == Op::CooperativeVectorOuterProductAccumulateNV).collect();
    assert_eq!(outer.len(), 1);
    assert_eq!((c(outer[0], 1), c(outer[0], 4), c(outer[0], 5)), (Some(512), Some(3), Some(1)));
    let reduce: Vec<&Instruction> =
        body(&m).into_iter().filter(|i| i.class.opcode == Op::CooperativeVectorReduceSumAccumulateNV).collect();
    assert_eq!(reduce.len(), 1);
    assert_eq!(c(reduce[0], 1), Some(1024));
    assert!(m
        .capabilities
        .iter()
        .any(|i| i.operands[0] == Operand::Capability(Capability::CooperativeVectorTrainingNV)));
    // The bias: four lane adds after the second product.
    assert!(body(&m).iter().filter(|i| i.class.opcode == Op::FAdd).count() >= 4);
    let features: Vec<&str> = untangle::emit::features::requirements(&words)
        .iter()
        .flat_map(|r| r.any_of.iter())
        .filter_map(|e| match e {
            Enable::Feature { member, .. } => Some(*member),
            _ => None,
        })
        .collect();
    assert!(features.contains(&"cooperativeVector") && features.contains(&"cooperativeVectorTraining"), "{features:?}");
}

fn form_message(e: Error) -> String {
    match e {
        Error::Translate(TranslateError::UnsupportedForm { message, .. }) => message,
        other => panic!("expected an unsupported form, got {other}"),
    }
}

#[test]
fn what_cooperative_vectors_cannot_express_is_a_typed_error() {
    // A BFloat16 matrix: the extension has no bfloat16 component type.
    let bf16 = text().replace("C8M4N8U0S0", "C23M4N8U0S0").replace("i32 8, i32 4, i32 8", "i32 23, i32 4, i32 8");
    assert!(form_message(translate(&bf16).unwrap_err()).contains("BFloat16"));
    // A wave-scope matrix used by a matrix-vector product: invalid (DXC's validator wants a
    // Thread-scope A matrix there).
    let wave = text().replace("C19M4N8U0S0", "C19M4N8U0S1");
    assert!(matches!(translate(&wave).unwrap_err(), Error::Translate(TranslateError::Invalid { .. })));
    // Accumulating a wave-scope matrix to a descriptor: Vulkan has no atomic accumulating
    // store of a cooperative matrix.
    let wave_acc = text()
        .replace(
            "@dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32 -2147483621, %dx.types.LinAlgMatrixC9M4N4U2S0 %op",
            "@dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S1(i32 -2147483621, %dx.types.LinAlgMatrixC9M4N4U2S1 undef",
        )
        .replace(
            "declare void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32, %dx.types.LinAlgMatrixC9M4N4U2S0,",
            "declare void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S1(i32, %dx.types.LinAlgMatrixC9M4N4U2S1,",
        )
        .replace("%dx.types.LinAlgMatrixC9M4N4U2S0 = type { i8* }", "%dx.types.LinAlgMatrixC9M4N4U2S0 = type { i8* }\n%dx.types.LinAlgMatrixC9M4N4U2S1 = type { i8* }");
    match translate(&wave_acc).unwrap_err() {
        Error::Translate(TranslateError::UnsupportedOp { reason, .. }) => {
            assert_eq!(
                reason,
                Refusal::NoVulkanFeature(untangle::emit::support::Uncovered::LinAlgInterlockedAccumulate)
            );
        }
        other => panic!("{other}"),
    }
    // An integer input vector with a float interpretation: DXIL keeps no signedness.
    // (Four lanes: K is at least 4, DXC's bound.)
    let int_float = text()
        .replace("<2 x i32> %pv, i32 17", "<2 x i32> %pv, i32 8")
        .replace("v2i32", "v4i32")
        .replace("<2 x i32>", "<4 x i32>")
        .replace("C19M4N8U0S0", "C19M4N4U0S0");
    assert!(form_message(translate(&int_float).unwrap_err()).contains("signed"));
    // A B matrix is invalid DXIL (DXC's validator: "does not match expected use A").
    let b = text().replace("C8M4N8U0S0", "C8M4N8U1S0");
    assert!(matches!(translate(&b).unwrap_err(), Error::Translate(TranslateError::Invalid { .. })));
}

/// DXC's LinAlgMatrix validator tests: each translates to a valid module or is a typed
/// refusal (never an internal error), and how many of each is pinned. Most are invalid on
/// purpose or use every operation, including those Vulkan cannot express
/// (`GetCoordinate`, `QueryAccumulatorLayout`, `AccumulateToMemory`).
#[test]
fn dxc_linalg_tests_translate_or_are_refused() {
    let Ok(dir) = std::fs::read_dir(DXC) else {
        assert!(std::env::var_os("CI").is_none(), "{DXC} is required under CI");
        return;
    };
    let mut names: Vec<_> = dir
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("LitDXILValidation.LinAlgMatrix."))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "{names:?}");
    let mut tally: std::collections::BTreeMap<String, usize> = Default::default();
    for name in &names {
        let bytes = std::fs::read(format!("{DXC}/{name}")).unwrap();
        let outcome = Shader::parse(&bytes).and_then(|s| s.translate(&Default::default()));
        // A valid module with an unused matrix slot (`alloca`) translates.
        if name.ends_with("type-allowed-in-dxil.ll") {
            assert!(outcome.is_ok(), "{name}: {:?}", outcome.err());
        }
        let key = match outcome {
            Ok(t) => {
                untangle_spirv_tools::assert_valid(&t.words, "vulkan1.4", name);
                "translates".to_string()
            }
            Err(Error::Translate(TranslateError::Internal(e))) => panic!("{name}: internal error {e}"),
            Err(e) => {
                println!("{name}: {e}");
                if name.contains("matvecmul") {
                    assert!(matches!(e, Error::Translate(TranslateError::Invalid { .. })), "{name}: {e}");
                }
                match e {
                    Error::Translate(TranslateError::UnsupportedOp { op, reason, .. }) => {
                        format!("refused {op:?}: {reason:?}")
                    }
                    Error::Translate(TranslateError::Invalid { .. }) => "invalid".to_string(),
                    Error::Translate(TranslateError::UnsupportedForm { .. }) => "unsupported form".to_string(),
                    other => format!("other: {other}"),
                }
            }
        };
        *tally.entry(key).or_default() += 1;
    }
    println!("{tally:#?}");
    let tally: Vec<(&str, usize)> = tally.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(tally, EXPECTED_DXC_TALLY, "DXC LinAlgMatrix tests: outcomes changed");
}

/// 26 tests: 1 translates (an unused matrix slot); 12 stage tests get past their
/// `LinAlgConvert` (`<16 x i32>` U32 → F8_E4M3FN, lowered since issue 34's last item) and
/// stop at `LinAlgMatrixAccumulate`: in the 11 non-compute stages DXC's validator rejects it
/// ("not valid in shader model", what those tests check), in the compute one Vulkan has no
/// use-to-accumulator conversion; 3 accumulate a wave or thread-group matrix into memory (no
/// Vulkan instruction: the two groupshared-vector tests get through their fills, loads and
/// stores first); the rest are invalid on purpose (DXC's validator rejects them: input
/// errors, or an unsupported form where the invalid part is one untangle cannot lower
/// anyway).
const EXPECTED_DXC_TALLY: &[(&str, usize)] = &[
    ("invalid", 9),
    ("refused LinAlgMatrixAccumulate: NoVulkanFeature(LinAlgUseToAccumulator)", 1),
    ("refused LinAlgMatrixAccumulate: NotInStage", 11),
    ("refused LinAlgMatrixAccumulateToDescriptor: NoVulkanFeature(LinAlgInterlockedAccumulate)", 1),
    ("refused LinAlgMatrixAccumulateToMemory: NoVulkanFeature(LinAlgInterlockedAccumulate)", 2),
    ("translates", 1),
    ("unsupported form", 1),
];

const WAVE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/linalg/cs_linalg_wave.ll");

fn wave_text() -> String {
    std::fs::read_to_string(WAVE).unwrap()
}

fn ops(m: &Module, op: Op) -> Vec<&Instruction> {
    body(m).into_iter().filter(|i| i.class.opcode == op).collect()
}

/// The `OpTypeCooperativeMatrixKHR` with result id `id`: (scope, rows, columns, use).
fn coop_type(m: &Module, id: u32) -> Option<[u32; 4]> {
    let t = m.types_global_values.iter().find(|i| i.result_id == Some(id))?;
    (t.class.opcode == Op::TypeCooperativeMatrixKHR).then(|| {
        let k = |j: usize| {
            let w = match t.operands[j] {
                Operand::IdScope(w) | Operand::IdRef(w) => w,
                ref o => panic!("{o:?}"),
            };
            constant(m, w).unwrap()
        };
        [k(1), k(2), k(3), k(4)]
    })
}

#[test]
fn wave_and_thread_group_matrices_become_cooperative_matrices() {
    let words = translate(&wave_text()).unwrap();
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", "cs_linalg_wave");
    let m = rspirv::dr::load_words(&words).unwrap();
    let cap = |c: Capability| m.capabilities.iter().any(|i| i.operands[0] == Operand::Capability(c));
    let ext = |e: &str| m.extensions.iter().any(|i| i.operands[0] == Operand::LiteralString(e.into()));
    assert!(cap(Capability::CooperativeMatrixKHR) && cap(Capability::CooperativeMatrixConversionsNV));
    assert!(ext("SPV_KHR_cooperative_matrix") && ext("SPV_NV_cooperative_matrix2"));
    // Subgroup (3) 16x16 and Workgroup (2) 32x32 accumulators.
    let scopes: Vec<[u32; 4]> = m.types_global_values.iter().filter_map(|i| coop_type(&m, i.result_id?)).collect();
    assert!(scopes.contains(&[3, 16, 16, 2]) && scopes.contains(&[3, 16, 16, 0]) && scopes.contains(&[3, 16, 16, 1]));
    assert!(scopes.contains(&[2, 32, 16, 0]) && scopes.contains(&[2, 16, 32, 1]) && scopes.contains(&[2, 32, 32, 2]));
    // Loads: A from the buffer (row major, stride 32 bytes = 8 words), B from groupshared
    // (column major, 16 halves = 8 words), the thread-group A (row major, 8 words).
    let loads = ops(&m, Op::CooperativeMatrixLoadKHR);
    assert_eq!(loads.len(), 3);
    let c = |i: &Instruction, k: usize| constant(&m, id(&i.operands[k]));
    assert_eq!((c(loads[0], 1), c(loads[1], 1), c(loads[2], 1)), (Some(0), Some(1), Some(0)));
    // Stores: 6 to the buffer, 1 to groupshared.
    let stores = ops(&m, Op::CooperativeMatrixStoreKHR);
    assert_eq!(stores.len(), 7);
    // Multiply (zero accumulator), MultiplyAccumulate, the thread-group product.
    assert_eq!(ops(&m, Op::CooperativeMatrixMulAddKHR).len(), 3);
    // Length, and the bounds checks of GetElement and SetElement.
    assert_eq!(ops(&m, Op::CooperativeMatrixLengthKHR).len(), 3);
    // CopyConvert: F32 → F16 accumulator and F32 accumulator → F16 A (OpFConvert, the
    // second with NV2's relaxed use), accumulator → A (ConvertNV), → B transposed.
    assert_eq!(ops(&m, Op::FConvert).iter().filter(|i| coop_type(&m, i.result_type.unwrap()).is_some()).count(), 2);
    assert_eq!(ops(&m, Op::CooperativeMatrixConvertNV).len(), 1);
    assert_eq!(ops(&m, Op::CooperativeMatrixTransposeNV).len(), 1);
    let features: Vec<&str> = untangle::emit::features::requirements(&words)
        .iter()
        .flat_map(|r| r.any_of.iter())
        .filter_map(|e| match e {
            Enable::Feature { member, .. } => Some(*member),
            _ => None,
        })
        .collect();
    assert!(
        features.contains(&"cooperativeMatrix") && features.contains(&"cooperativeMatrixConversions"),
        "{features:?}"
    );
    assert!(features.contains(&"cooperativeMatrixWorkgroupScope"), "{features:?}");
}

/// The wave input with `line` added before `ret void`, `decl` among the declarations and
/// `ty` among the types.
fn wave_with(line: &str, decl: &str, ty: &str) -> String {
    wave_text()
        .replace("  ret void\n", &format!("  {line}\n  ret void\n"))
        .replace("\n!dx.targetTypes", &format!("{decl}\n\n!dx.targetTypes"))
        .replace(
            "%struct.ByteAddressBuffer = type { i32 }\n",
            &format!("{ty}%struct.ByteAddressBuffer = type {{ i32 }}\n"),
        )
}

#[test]
fn what_cooperative_matrices_cannot_express_is_a_typed_error() {
    // The line is valid: it translates (the helper changes nothing else).
    let ok = wave_with(
        "%ok = call i32 @dx.op.linAlgMatrixLength.mC9M16N16U0S1(i32 -2147483632, %dx.types.LinAlgMatrixC9M16N16U0S1 %ca)",
        "declare i32 @dx.op.linAlgMatrixLength.mC9M16N16U0S1(i32, %dx.types.LinAlgMatrixC9M16N16U0S1)",
        "",
    );
    untangle_spirv_tools::assert_valid(&translate(&ok).unwrap(), "vulkan1.4", "wave_with");
    // Accumulate (an A matrix into an accumulator): no A → accumulator conversion.
    let acc = wave_with(
        "%acc = call %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixAccumulate.mC9M16N16U2S1.mC9M16N16U2S1.mC9M16N16U0S1(i32 -2147483624, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, %dx.types.LinAlgMatrixC9M16N16U0S1 %ca)",
        "declare %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixAccumulate.mC9M16N16U2S1.mC9M16N16U2S1.mC9M16N16U0S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, %dx.types.LinAlgMatrixC9M16N16U0S1)",
        "",
    );
    match translate(&acc).unwrap_err() {
        Error::Translate(TranslateError::UnsupportedOp { reason, op, .. }) => {
            assert_eq!(reason, Refusal::NoVulkanFeature(untangle::emit::support::Uncovered::LinAlgUseToAccumulator));
            assert_eq!(op, untangle::dxil::DxOp::LinAlgMatrixAccumulate);
        }
        other => panic!("{other}"),
    }
    // F32 → I32 (D3D rounds and saturates; SPIR-V truncates).
    let sat = wave_with(
        "%sat = call %dx.types.LinAlgMatrixC4M16N16U2S1 @dx.op.linAlgCopyConvertMatrix.mC4M16N16U2S1.mC9M16N16U2S1(i32 -2147483635, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, i1 false)",
        "declare %dx.types.LinAlgMatrixC4M16N16U2S1 @dx.op.linAlgCopyConvertMatrix.mC4M16N16U2S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i1)",
        "%dx.types.LinAlgMatrixC4M16N16U2S1 = type { i8* }\n",
    );
    assert!(form_message(translate(&sat).unwrap_err()).contains("saturat"));
    // A → B: SPIR-V converts only accumulators to another use.
    let ab = wave_with(
        "%ab = call %dx.types.LinAlgMatrixC8M16N16U1S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U1S1.mC8M16N16U0S1(i32 -2147483635, %dx.types.LinAlgMatrixC8M16N16U0S1 %a, i1 false)",
        "declare %dx.types.LinAlgMatrixC8M16N16U1S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U1S1.mC8M16N16U0S1(i32, %dx.types.LinAlgMatrixC8M16N16U0S1, i1)",
        "",
    );
    assert!(form_message(translate(&ab).unwrap_err()).contains("A or B"));
    // A wave matrix in the MulOptimal layout is invalid DXIL.
    let layout = wave_text().replace(
        "(i32 -2147483634, %dx.types.Handle %weights, i32 0, i32 32, i32 0, i32 128)",
        "(i32 -2147483634, %dx.types.Handle %weights, i32 0, i32 32, i32 2, i32 128)",
    );
    assert!(matches!(translate(&layout).unwrap_err(), Error::Translate(TranslateError::Invalid { .. })));
}

const CONVERT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/linalg/cs_linalg_convert.ll");

/// `linAlgConvert` of every interpretation class (float, signed and unsigned integer,
/// packed 8-bit integers, both float8 formats): plain SPIR-V that validates, unpacking
/// and packing bytes, the saturating clamps, `RoundEven` before float→integer; float8
/// emulated by default and `OpFConvert`s of `OpTypeFloat 8` with the saturation
/// decoration under `vendor.float8`. (tests/gpu_linalg_convert.rs runs it.)
#[test]
fn convert_lowers_every_interpretation_class() {
    let src = std::fs::read_to_string(CONVERT).unwrap();
    let words = translate(&src).unwrap();
    for env in ["vulkan1.3", "vulkan1.4"] {
        untangle_spirv_tools::assert_valid(&words, env, &format!("cs_linalg_convert ({env})"));
    }
    let m = rspirv::dr::load_words(&words).unwrap();
    let cap = |c: Capability| m.capabilities.iter().any(|i| i.operands[0] == Operand::Capability(c));
    assert!(!cap(Capability::CooperativeVectorNV) && !cap(Capability::Float8EXT), "no extension needed");
    let n = |op: Op| ops(&m, op).len();
    // Packed sources: 6 conversions × 4 bytes; signed only for PackedS8x32; the two
    // unsigned 8-bit ones of the same lane share their extracts.
    assert_eq!((n(Op::BitFieldSExtract), n(Op::BitFieldUExtract)), (4, 16));
    // Packed targets: 0, 1, 2, 5, 6, 9, 12 (4 bytes each) and 15 (2 bytes).
    assert_eq!(n(Op::BitFieldInsert), 7 * 4 + 2);
    // float → integer: f32 → packed s8, I32, U32, the 2-lane I8, and the E5M2 → I32
    // conversion, each with the two saturating selects and NaN → 0.
    assert_eq!(n(Op::ConvertFToS) + n(Op::ConvertFToU), 4 + 4 + 4 + 2 + 4);
    assert_eq!(n(Op::IsNan), 18);
    let glsl = |k: u32| {
        body(&m)
            .iter()
            .filter(|i| i.class.opcode == Op::ExtInst && i.operands[1] == Operand::LiteralExtInstInteger(k))
            .count()
    };
    assert_eq!(glsl(2), 18, "RoundEven before every float → integer conversion");
    // Saturation of integers: I32 → packed U8 (SMax 0, SMin 255 per lane), U32 → I32 and
    // packed U8 → I8 (UMin per lane); packed S8 → I32 needs none. The float8 encoder
    // (16 encodes: 8 to E4M3, 8 to E5M2) adds 2 SMax each, and 2 UMin per E4M3 encode
    // and 1 per E5M2 one.
    assert_eq!(glsl(42), 4 + 16 * 2, "SMax");
    assert_eq!(glsl(39), 4, "SMin");
    assert_eq!(glsl(38), 8 + 8 * 2 + 8, "UMin");

    // Native float8 conversions under vendor.float8.
    let o = untangle::Options {
        vendor: untangle::VendorFeatures { float8: true, ..Default::default() },
        ..Default::default()
    };
    let words = untangle::translate(src.as_bytes(), &o).unwrap().words;
    untangle_spirv_tools::assert_valid(&words, "vulkan1.4", "cs_linalg_convert (float8)");
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(m.capabilities.iter().any(|i| i.operands[0] == Operand::Capability(Capability::Float8EXT)));
    let sat = m
        .annotations
        .iter()
        .filter(|i| {
            i.operands[1] == Operand::Decoration(rspirv::spirv::Decoration::SaturatedToLargestFloat8NormalConversionEXT)
        })
        .count();
    // Encodes: f32 → E4M3 and E5M2 (4 each), i32 → E4M3 (4), E4M3 → E5M2 (4).
    assert_eq!(sat, 16, "every conversion to float8 saturates");
}

/// A compute shader converting `input` (`in_ty`, zero) from `from` to `to` (`out_ty`).
fn convert_cs(in_ty: &str, out_ty: &str, from: u32, to: u32) -> String {
    let mangle = |t: &str| {
        let t = t.trim_start_matches('<').trim_end_matches('>');
        let (n, e) = t.split_once(" x ").map_or(("", t), |(n, e)| (n, e));
        let e = match e {
            "float" => "f32",
            "half" => "f16",
            "double" => "f64",
            i => i,
        };
        if n.is_empty() {
            e.to_string()
        } else {
            format!("v{n}{e}")
        }
    };
    let f = format!("@dx.op.linAlgConvert.{}.{}", mangle(out_ty), mangle(in_ty));
    format!(
        "target datalayout = \"e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64\"\n\
         target triple = \"dxil-ms-dx\"\n\
         define void @main() {{\n  %v = call {out_ty} {f}(i32 -2147483618, {in_ty} zeroinitializer, i32 {from}, i32 {to})\n  ret void\n}}\n\
         declare {out_ty} {f}(i32, {in_ty}, i32, i32)\n\
         !dx.version = !{{!0}}\n!dx.valver = !{{!0}}\n!dx.shaderModel = !{{!1}}\n!dx.entryPoints = !{{!2}}\n\
         !0 = !{{i32 1, i32 10}}\n!1 = !{{!\"cs\", i32 6, i32 10}}\n\
         !2 = !{{void ()* @main, !\"main\", null, null, !3}}\n!3 = !{{i32 4, !4}}\n!4 = !{{i32 1, i32 1, i32 1}}\n"
    )
}

/// 16- and 64-bit lanes and every vector length class (2–4, 5–16, 17–1024 lanes):
/// each validates.
#[test]
fn convert_covers_every_width_and_length_class() {
    let cases = [
        ("<4 x half>", "<4 x i16>", 8, 2),     // F16 → I16
        ("<4 x half>", "<4 x i16>", 8, 3),     // F16 → U16
        ("<4 x double>", "<4 x i64>", 10, 7),  // F64 → U64
        ("<4 x i64>", "<4 x half>", 6, 8),     // I64 → F16
        ("<4 x i16>", "<4 x i64>", 2, 6),      // I16 → I64
        ("<4 x i64>", "<4 x i16>", 7, 2),      // U64 → I16
        ("<4 x i16>", "i32", 3, 19),           // U16 → I8
        ("<4 x half>", "i32", 8, 22),          // F16 → F8_E5M2
        ("<4 x double>", "i32", 10, 21),       // F64 → F8_E4M3FN
        ("i32", "<4 x double>", 22, 10),       // F8_E5M2 → F64
        ("i32", "<4 x half>", 21, 8),          // F8_E4M3FN → F16
        ("<4 x half>", "<4 x double>", 8, 10), // F16 → F64
        ("<4 x float>", "<4 x float>", 9, 9),  // identity
        ("<8 x float>", "<2 x i32>", 9, 19),   // 5–16 lanes
        ("<5 x i32>", "<20 x float>", 20, 9),  // U8 × 20
        ("<32 x i32>", "<128 x half>", 21, 8), // 17–1024 lanes
        ("<1024 x float>", "<256 x i32>", 9, 17),
    ];
    for (in_ty, out_ty, from, to) in cases {
        let what = format!("{in_ty} ({from}) → {out_ty} ({to})");
        let words = translate(&convert_cs(in_ty, out_ty, from, to)).unwrap_or_else(|e| panic!("{what}: {e}"));
        untangle_spirv_tools::assert_valid(&words, "vulkan1.4", &what);
    }
}

/// BFloat16 is refused naming the pair; a wrong result length, lanes of another type than
/// the interpretation's and a component type that is no LinAlg interpretation are input
/// errors.
#[test]
fn convert_refusals_are_typed() {
    let e = translate(&convert_cs("<4 x float>", "<2 x i32>", 9, 23)).unwrap_err();
    assert!(matches!(e, Error::Translate(TranslateError::UnsupportedForm { .. })), "{e}");
    assert!(e.to_string().contains("F32 → BFloat16"), "{e}");
    for (in_ty, out_ty, from, to, says) in [
        ("<4 x float>", "<2 x i32>", 9, 19, "2 lanes, but 4 lanes of F32 make 1 of I8"),
        ("<4 x i32>", "<4 x float>", 9, 9, "not of the interpretation's type"),
        ("<4 x i32>", "<4 x float>", 5, 13, "SNormF32 is not a LinAlg interpretation"),
    ] {
        let e = translate(&convert_cs(in_ty, out_ty, from, to)).unwrap_err();
        assert!(matches!(e, Error::Translate(TranslateError::Invalid { .. })), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
}
