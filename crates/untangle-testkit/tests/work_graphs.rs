//! Work-graph nodes (`docs/work-graphs.md`): the library report's `node` objects of three
//! corpus libraries as snapshots, the shape of the modules (one `GLCompute` entry per node
//! with the node's group size and the `NodeDispatch` push constants), and typed errors for
//! malformed node metadata and for shapes the contract does not cover (synthesized LLVM
//! text, so these run without the shared corpus). The corpus count is
//! `translate_corpus.rs`'s.

use std::path::PathBuf;
use untangle::TranslateError;
use untangle::{Options, Shader};
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn corpus(name: &str) -> Option<Shader> {
    let bytes = std::fs::read(PathBuf::from(DIR).join(name)).ok()?;
    Some(Shader::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn node_reports_of_three_libraries() {
    for name in ["two_level_broadcast_node_array", "cross_group_sharing", "two_level_empty_node"] {
        let file = format!("workgraph.{name}.lib_6_8.dxil");
        let Some(shader) = corpus(&file) else {
            eprintln!("{DIR} not found: skipping");
            return;
        };
        let report = shader.library_report().unwrap_or_else(|e| panic!("{file}: {e}"));
        insta::assert_json_snapshot!(format!("library_report_{name}"), report);
    }
}

/// Every module of a corpus library: one `GLCompute` entry named after the node, its
/// `LocalSize` the node's `num_threads`, a 56-byte push-constant block, physical storage
/// buffer addressing.
#[test]
fn node_modules_are_compute_entries_with_the_contract_interface() {
    let Some(shader) = corpus("workgraph.two_level_thread_node_array.lib_6_8.dxil") else { return };
    let report = shader.library_report().unwrap();
    let translations = shader.translate_library(&Options::default()).unwrap();
    assert_eq!(translations.len(), report.entries.len());
    for (t, e) in translations.iter().zip(&report.entries) {
        assert_eq!(t.entry_point, e.name);
        assert_eq!(t.stage, untangle::ShaderKind::Node);
        let node = e.node.as_ref().expect("node entries report their node");
        let m = rspirv::dr::load_words(&t.words).expect("parses");
        assert_eq!(m.entry_points.len(), 1);
        let ep = &m.entry_points[0];
        assert_eq!(ep.operands[0], rspirv::dr::Operand::ExecutionModel(rspirv::spirv::ExecutionModel::GLCompute));
        let local_size: Vec<u32> = m
            .execution_modes
            .iter()
            .find(|i| i.operands[1] == rspirv::dr::Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSize))
            .map(|i| i.operands[2..].iter().map(|o| o.unwrap_literal_bit32()).collect())
            .expect("LocalSize");
        assert_eq!(local_size, node.num_threads, "{}", e.name);
        let model = m.memory_model.as_ref().expect("memory model");
        assert_eq!(
            model.operands[0],
            rspirv::dr::Operand::AddressingModel(rspirv::spirv::AddressingModel::PhysicalStorageBuffer64)
        );
        let push_blocks = push_constant_variables(&m);
        assert_eq!(push_blocks, 1, "{}", e.name);
        assert_eq!(node.push_constant_size, 64);
    }
}

/// A node library in LLVM text: entry `node01` with properties `props` (the tag/value list's
/// text) and extra metadata `extra` (nodes numbered from !20), body `body`.
fn node_library(props: &str, extra: &str, body: &str, decls: &str) -> String {
    format!(
        "target datalayout = \"e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64\"\n\
         target triple = \"dxil-ms-dx\"\n\n\
         %dx.types.NodeHandle = type {{ i8* }}\n\
         %dx.types.NodeRecordHandle = type {{ i8* }}\n\
         %dx.types.NodeInfo = type {{ i32, i32 }}\n\
         %dx.types.NodeRecordInfo = type {{ i32, i32 }}\n\
         %struct.R = type {{ i32, [2 x i16], i32 }}\n\n\
         define void @node01() {{\n{body}  ret void\n}}\n\n{decls}\n\
         !dx.version = !{{!1}}\n!dx.valver = !{{!1}}\n!dx.shaderModel = !{{!2}}\n!dx.entryPoints = !{{!7, !8}}\n\
         !1 = !{{i32 1, i32 8}}\n!2 = !{{!\"lib\", i32 6, i32 8}}\n\
         !7 = !{{null, !\"\", null, null, null}}\n\
         !8 = !{{void ()* @node01, !\"node01\", null, null, !9}}\n\
         !9 = !{{{props}}}\n!10 = !{{!\"node01\", i32 0}}\n!11 = !{{i32 8, i32 1, i32 1}}\n{extra}\n"
    )
}

/// A coalescing node reading `%struct.R` records (u16 fields) and writing one record per
/// group to an unbounded sparse array, whose shape the corpus does not have.
fn coalescing_node(input: &str, output: &str, body: &str) -> String {
    let props = "i32 8, i32 15, i32 13, i32 2, i32 15, !10, i32 20, !20, i32 21, !22, i32 4, !11";
    let extra = format!(
        "!20 = !{{!21}}\n!21 = !{{{input}}}\n!22 = !{{!23}}\n!23 = !{{{output}}}\n\
         !24 = !{{i32 0, i32 12, i32 2, i32 4}}\n!25 = !{{!\"Out\", i32 0}}"
    );
    let decls = "declare %dx.types.NodeRecordHandle @dx.op.createNodeInputRecordHandle(i32, i32)\n\
                 declare %dx.types.NodeRecordHandle @dx.op.annotateNodeRecordHandle(i32, %dx.types.NodeRecordHandle, %dx.types.NodeRecordInfo)\n\
                 declare %struct.R addrspace(6)* @dx.op.getNodeRecordPtr.struct.R(i32, %dx.types.NodeRecordHandle, i32)\n\
                 declare i32 @dx.op.getInputRecordCount(i32, %dx.types.NodeRecordHandle)\n\
                 declare %dx.types.NodeHandle @dx.op.createNodeOutputHandle(i32, i32)\n\
                 declare %dx.types.NodeHandle @dx.op.indexNodeHandle(i32, %dx.types.NodeHandle, i32)\n\
                 declare %dx.types.NodeHandle @dx.op.annotateNodeHandle(i32, %dx.types.NodeHandle, %dx.types.NodeInfo)\n\
                 declare %dx.types.NodeRecordHandle @dx.op.allocateNodeOutputRecords(i32, %dx.types.NodeHandle, i32, i1)\n\
                 declare i1 @dx.op.nodeOutputIsValid(i32, %dx.types.NodeHandle)\n\
                 declare void @dx.op.outputComplete(i32, %dx.types.NodeRecordHandle)\n";
    node_library(props, &extra, body, decls)
}

const INPUT: &str = "i32 1, i32 65, i32 2, !24, i32 3, i32 4";
const OUTPUT: &str = "i32 1, i32 22, i32 2, !24, i32 3, i32 1, i32 5, i32 -1, i32 6, i1 true, i32 0, !25";

/// Reads a 16-bit field of input record 1, checks `Out[7]` is valid and writes the sum of
/// the record count and the field to a record allocated per group.
const BODY: &str = "  %h = call %dx.types.NodeRecordHandle @dx.op.createNodeInputRecordHandle(i32 250, i32 0)\n\
  %ha = call %dx.types.NodeRecordHandle @dx.op.annotateNodeRecordHandle(i32 251, %dx.types.NodeRecordHandle %h, %dx.types.NodeRecordInfo { i32 65, i32 12 })\n\
  %n = call i32 @dx.op.getInputRecordCount(i32 242, %dx.types.NodeRecordHandle %ha)\n\
  %p = call %struct.R addrspace(6)* @dx.op.getNodeRecordPtr.struct.R(i32 239, %dx.types.NodeRecordHandle %ha, i32 1)\n\
  %f = getelementptr %struct.R, %struct.R addrspace(6)* %p, i32 0, i32 1, i32 1\n\
  %v16 = load i16, i16 addrspace(6)* %f, align 2\n\
  %v = zext i16 %v16 to i32\n\
  %o = call %dx.types.NodeHandle @dx.op.createNodeOutputHandle(i32 247, i32 0)\n\
  %oi = call %dx.types.NodeHandle @dx.op.indexNodeHandle(i32 248, %dx.types.NodeHandle %o, i32 7)\n\
  %oa = call %dx.types.NodeHandle @dx.op.annotateNodeHandle(i32 249, %dx.types.NodeHandle %oi, %dx.types.NodeInfo { i32 22, i32 12 })\n\
  %valid = call i1 @dx.op.nodeOutputIsValid(i32 252, %dx.types.NodeHandle %oa)\n\
  %k = select i1 %valid, i32 1, i32 0\n\
  %r = call %dx.types.NodeRecordHandle @dx.op.allocateNodeOutputRecords(i32 238, %dx.types.NodeHandle %oa, i32 %k, i1 false)\n\
  %q = call %struct.R addrspace(6)* @dx.op.getNodeRecordPtr.struct.R(i32 239, %dx.types.NodeRecordHandle %r, i32 0)\n\
  %s = add i32 %n, %v\n\
  %g = getelementptr %struct.R, %struct.R addrspace(6)* %q, i32 0, i32 2\n\
  store i32 %s, i32 addrspace(6)* %g, align 4\n\
  call void @dx.op.outputComplete(i32 241, %dx.types.NodeRecordHandle %r)\n";

#[test]
fn a_coalescing_node_with_an_unbounded_output_array_translates_and_validates() {
    let text = coalescing_node(INPUT, OUTPUT, BODY);
    let shader = Shader::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let t = shader.translate(&Options::default()).unwrap_or_else(|e| panic!("{e}"));
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    } else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let report = shader.library_report().unwrap();
    let node = report.entries[0].node.as_ref().unwrap();
    let json = serde_json::to_value(node).unwrap();
    assert_eq!(json["launch"], "coalescing");
    assert_eq!(json["input"]["max_records"], 4);
    assert_eq!(json["input"]["kind"], "group_node_input_records");
    let out = &json["outputs"][0];
    assert_eq!((out["unbounded"].as_bool(), out["array_size"].is_null()), (Some(true), true));
    assert_eq!((out["table_index"].as_u64(), json["output_table_entries"].as_u64()), (Some(0), Some(1)));
    assert_eq!(out["allow_sparse_nodes"], true);
    // The 16-bit field is read through 16-bit storage.
    let m = rspirv::dr::load_words(&t.words).unwrap();
    assert!(
        m.capabilities
            .iter()
            .any(|c| c.operands[0]
                == rspirv::dr::Operand::Capability(rspirv::spirv::Capability::StorageBuffer16BitAccess))
    );
}

fn translate_err(text: &str) -> untangle::Error {
    match Shader::parse(text.as_bytes()) {
        Err(e) => e,
        Ok(s) => s.translate(&Options::default()).map(|_| ()).expect_err("malformed node metadata must fail"),
    }
}

/// Malformed node metadata: every variant is a typed error that says what is wrong, never a
/// panic or an internal error.
#[test]
fn malformed_node_metadata_is_a_typed_error() {
    let props = "i32 8, i32 15, i32 13, i32 2, i32 15, !10, i32 20, !20, i32 21, !22, i32 4, !11";
    let cases: Vec<(String, &str)> = vec![
        (coalescing_node(INPUT, OUTPUT, BODY).replace("i32 13, i32 2", "i32 13, i32 7"), "launch type 7"),
        (coalescing_node(INPUT, OUTPUT, BODY).replace("i32 13, i32 2, ", ""), "no launch type"),
        (coalescing_node("i32 1, i32 65, i32 9, i32 1", OUTPUT, BODY), "unknown node IO tag 9"),
        (coalescing_node(INPUT, "i32 1, i32 22, i32 2, !24, i32 3, i32 1, i32 4, i32 0, i32 0, !25", BODY), "shares"),
        (coalescing_node(INPUT, "i32 1, i32 22, i32 2, !24", BODY), "no node id"),
        (coalescing_node(INPUT, "i32 1, i32 97, i32 2, !24, i32 0, !25", BODY), "not an output kind"),
        (coalescing_node(INPUT, "i32 1, i32 6, i32 0, !25", BODY), "no record type"),
        (
            coalescing_node(INPUT, OUTPUT, BODY)
                .replace("!24 = !{i32 0, i32 12, i32 2, i32 4}", "!24 = !{i32 0, i32 12, i32 2, i32 3}"),
            "alignment 3",
        ),
        (
            coalescing_node(INPUT, OUTPUT, BODY).replace(
                "!24 = !{i32 0, i32 12, i32 2, i32 4}",
                "!24 = !{i32 0, i32 12, i32 1, !26}\n!26 = !{i32 10, i32 5, i32 1}",
            ),
            "outside the 12-byte record",
        ),
        (
            coalescing_node(INPUT, OUTPUT, BODY).replace(
                "!24 = !{i32 0, i32 12, i32 2, i32 4}",
                "!24 = !{i32 0, i32 12, i32 1, !26}\n!26 = !{i32 0, i32 9, i32 1}",
            ),
            "component type 9",
        ),
        (coalescing_node(INPUT, OUTPUT, BODY).replace(props, &format!("{props}, i32 15")), "odd length"),
        (coalescing_node(INPUT, OUTPUT, BODY).replace("!20 = !{!21}", "!20 = !{!21, !21}"), "2 inputs"),
        (coalescing_node(INPUT, OUTPUT, BODY).replace("i32 15, !10,", "i32 15, i32 3,"), "expected a tuple"),
        (
            coalescing_node(INPUT, OUTPUT, BODY).replace("i32 13, i32 2,", "i32 13, i32 1, i32 22, !11,"),
            "SV_DispatchGrid",
        ),
        (
            coalescing_node(INPUT, OUTPUT, BODY)
                .replace("!11 = !{i32 8, i32 1, i32 1}", "!11 = !{i32 0, i32 1, i32 1}"),
            "numthreads",
        ),
        (
            coalescing_node(INPUT, OUTPUT, BODY)
                .replace("i32 13, i32 2,", "i32 13, i32 3,")
                .replace("!11 = !{i32 8, i32 1, i32 1}", "!11 = !{i32 2, i32 2, i32 1}"),
            "only x may exceed 1",
        ),
        (
            coalescing_node(INPUT, OUTPUT, BODY).replace("i32 247, i32 0)", "i32 247, i32 3)"),
            "output 3 of a node with 1",
        ),
        (coalescing_node(INPUT, OUTPUT, BODY).replace("i32 250, i32 0)", "i32 250, i32 1)"), "input 1"),
        (
            coalescing_node(INPUT, OUTPUT, BODY)
                .replace("i32 8, i32 15, i32 13, i32 2, i32 15, !10, i32 20, !20, i32 21, !22,", "i32 8, i32 15,"),
            "no node properties",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, want) in &cases {
        let e = translate_err(text);
        let internal = matches!(e, untangle::Error::Translate(TranslateError::Internal(_)));
        if internal || !e.to_string().contains(want) {
            wrong.push(format!("want `{want}`, got: {e}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Under a root signature lowered to push constants (a root UAV address and a root
/// constant: 12 bytes), the node's members follow in the same block from byte 16, and the
/// module validates.
#[test]
fn node_push_constants_follow_the_root_signatures() {
    let shader = Shader::parse(coalescing_node(INPUT, OUTPUT, BODY).as_bytes()).unwrap();
    let signature = untangle::rootsig::parse_hlsl(
        "UAV(u0), RootConstants(num32BitConstants=1, b0)",
        untangle::rootsig::Version::V1_1,
    )
    .expect("root signature");
    let options = Options {
        root_signature: Some(untangle::RootSignatureBinding { signature, layout: Default::default() }),
        ..Default::default()
    };
    let t = shader.translate(&options).unwrap_or_else(|e| panic!("{e}"));
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    }
    let layout = t.layout.as_ref().expect("a layout report");
    assert_eq!(layout.layout.push_constants.size, 12);
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let push_vars = push_constant_variables(&m);
    assert_eq!(push_vars, 1, "one push-constant block");
    let mut offsets: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| {
            i.class.opcode == rspirv::spirv::Op::MemberDecorate
                && i.operands[2] == rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Offset)
        })
        .map(|i| i.operands[3].unwrap_literal_bit32())
        .collect();
    offsets.sort();
    assert_eq!(offsets, [0, 8, 16, 24, 32, 40, 44, 48, 52, 56, 60, 64, 72]);
}

/// Shapes outside the contract are typed errors naming the node or the operation.
#[test]
fn unsupported_node_shapes_are_typed_errors() {
    let text = coalescing_node(INPUT, OUTPUT, BODY);
    // A node handle through a select.
    let body = BODY.replace(
        "%valid = call",
        "%o2 = call %dx.types.NodeHandle @dx.op.createNodeOutputHandle(i32 247, i32 0)\n  %sel = select i1 true, %dx.types.NodeHandle %oa, %dx.types.NodeHandle %o2\n  %valid = call",
    )
    .replace("@dx.op.nodeOutputIsValid(i32 252, %dx.types.NodeHandle %oa)", "@dx.op.nodeOutputIsValid(i32 252, %dx.types.NodeHandle %sel)");
    let e = translate_err(&coalescing_node(INPUT, OUTPUT, &body));
    assert!(!matches!(e, untangle::Error::Translate(TranslateError::Internal(_))), "{e}");
    assert!(e.to_string().contains("NodeOutputIsValid") || e.to_string().contains("select"), "{e}");
    // A node operation in a compute shader is DXIL's refusal, naming it.
    let e = translate_err(&text.replace("!\"lib\", i32 6, i32 8", "!\"cs\", i32 6, i32 8"));
    assert!(!matches!(e, untangle::Error::Translate(TranslateError::Internal(_))), "{e}");
}

/// The module's `PushConstant` variables.
fn push_constant_variables(m: &rspirv::dr::Module) -> usize {
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == rspirv::spirv::Op::Variable
                && i.operands[0] == rspirv::dr::Operand::StorageClass(rspirv::spirv::StorageClass::PushConstant)
        })
        .count()
}

/// A thread-launch node (D3D: one thread per group) is batched 32 threads to a workgroup,
/// and its group-sync barrier waits for no one (batched threads may have returned); with
/// groupshared memory in the library it keeps one thread per workgroup.
#[test]
fn thread_launch_nodes_batch_threads_without_control_barriers() {
    let props = "i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 4, !12";
    let extra = "!12 = !{i32 1, i32 1, i32 1}";
    let body = "  call void @dx.op.barrierByMemoryType(i32 244, i32 1, i32 1)\n";
    let decls = "declare void @dx.op.barrierByMemoryType(i32, i32, i32)\n";
    let text = node_library(props, extra, body, decls);
    let opcodes = |text: &str| -> (Vec<u32>, Vec<u32>, Vec<rspirv::spirv::Op>) {
        let shader = Shader::parse(text.as_bytes()).unwrap();
        let report = shader.library_report().unwrap();
        let t = shader.translate_library(&Options::default()).unwrap().remove(0);
        let val = untangle_spirv_tools::find_spirv_val().expect("spirv-val");
        val.validate(&t.words, "vulkan1.3").unwrap();
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let local: Vec<u32> = m.execution_modes[0].operands[2..].iter().map(|o| o.unwrap_literal_bit32()).collect();
        let ops = m.functions.iter().flat_map(|f| f.all_inst_iter()).map(|i| i.class.opcode).collect();
        (local, report.entries[0].node.as_ref().unwrap().num_threads.to_vec(), ops)
    };
    let (local, reported, ops) = opcodes(&text);
    assert_eq!(local, [32, 1, 1]);
    assert_eq!(reported, local);
    assert!(!ops.contains(&rspirv::spirv::Op::ControlBarrier));
    assert!(ops.contains(&rspirv::spirv::Op::MemoryBarrier), "the barrier still orders memory");

    // (A global after the triple; not spelled with the function, whose literal the native
    // text test would read as a module of its own.)
    let with_groupshared =
        text.replacen("\n\n", "\n\n@gs = internal addrspace(3) global [4 x i32] undef, align 4\n\n", 1);
    let (local, reported, _) = opcodes(&with_groupshared);
    assert_eq!(local, [1, 1, 1]);
    assert_eq!(reported, local);
}
