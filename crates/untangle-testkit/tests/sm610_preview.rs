//! SM 6.10 preview operations (issue 34, item 5) from hand-written inputs
//! (`corpus/cs_sm610_preview.ll`, `corpus/lib_sm610_preview.ll`): each lowered one emits
//! the built-in or instruction the mapping names and passes `spirv-val` (vulkan1.3 and
//! vulkan1.4), the device features follow from its capabilities, and what Vulkan cannot
//! express (or what is not lowered) is a typed error naming the operation and why.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, Op};
use untangle::emit::features::Enable;
use untangle::emit::support::{Refusal, Uncovered};
use untangle::{Error, ReorderExtension, Shader, TranslateError};

const CS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_sm610_preview.ll");
const LIB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/lib_sm610_preview.ll");

fn text(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn options(r: ReorderExtension) -> untangle::Options {
    untangle::Options { shader_invocation_reorder: r, ..Default::default() }
}

fn validated(words: &[u32], what: &str) -> Module {
    for env in ["vulkan1.3", "vulkan1.4"] {
        untangle_spirv_tools::assert_valid(words, env, &format!("{what} ({env})"));
    }
    rspirv::dr::load_words(words).unwrap()
}

fn translate_cs(src: &str) -> Result<Vec<u32>, Error> {
    Shader::parse(src.as_bytes()).unwrap().translate(&Default::default()).map(|t| t.words)
}

fn translate_entry(entry: &str, r: ReorderExtension) -> Result<Vec<u32>, Error> {
    Shader::parse(text(LIB).as_bytes()).unwrap().translate_entry(entry, &options(r)).map(|t| t.words)
}

fn body(m: &Module) -> Vec<&Instruction> {
    m.functions.iter().flat_map(|f| &f.blocks).flat_map(|b| &b.instructions).collect()
}

fn count(m: &Module, op: Op) -> usize {
    body(m).iter().filter(|i| i.class.opcode == op).count()
}

fn capabilities(m: &Module) -> Vec<Capability> {
    m.capabilities
        .iter()
        .filter_map(|i| match i.operands[0] {
            Operand::Capability(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn extensions(m: &Module) -> Vec<String> {
    m.extensions
        .iter()
        .filter_map(|i| match &i.operands[0] {
            Operand::LiteralString(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The built-ins the module decorates variables with.
fn builtins(m: &Module) -> Vec<BuiltIn> {
    m.annotations
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Decorate && i.operands.get(1) == Some(&Operand::Decoration(Decoration::BuiltIn))
        })
        .filter_map(|i| match i.operands.get(2) {
            Some(Operand::BuiltIn(b)) => Some(*b),
            _ => None,
        })
        .collect()
}

/// The calls of `NonSemantic.DebugBreak`'s `DebugBreak` (instruction 1) in the body.
fn debug_breaks(m: &Module) -> usize {
    let set = m
        .ext_inst_imports
        .iter()
        .find(|i| i.operands[0] == Operand::LiteralString("NonSemantic.DebugBreak".into()))
        .and_then(|i| i.result_id)
        .expect("no NonSemantic.DebugBreak import");
    body(m)
        .iter()
        .filter(|i| {
            i.class.opcode == Op::ExtInst
                && i.operands.first() == Some(&Operand::IdRef(set))
                && i.operands.get(1) == Some(&Operand::LiteralExtInstInteger(1))
        })
        .count()
}

/// The feature members a module's device requirements name.
fn feature_members(words: &[u32]) -> Vec<&'static str> {
    untangle::emit::features::requirements(words)
        .iter()
        .flat_map(|r| r.any_of.iter())
        .filter_map(|e| match e {
            Enable::Feature { member, .. } => Some(*member),
            _ => None,
        })
        .collect()
}

#[test]
fn group_waves_ray_query_clusters_positions_and_debugging_in_compute() {
    let words = translate_cs(&text(CS)).unwrap();
    let m = validated(&words, "cs_sm610_preview");
    let b = builtins(&m);
    assert!(b.contains(&BuiltIn::SubgroupId) && b.contains(&BuiltIn::NumSubgroups), "{b:?}");
    assert!(capabilities(&m).contains(&Capability::GroupNonUniform));
    // Candidate and committed, each through the NV cluster instruction and the KHR
    // position fetch.
    assert_eq!(count(&m, Op::RayQueryGetIntersectionClusterIdNV), 2);
    assert_eq!(count(&m, Op::RayQueryGetIntersectionTriangleVertexPositionsKHR), 2);
    let caps = capabilities(&m);
    assert!(caps.contains(&Capability::RayQueryPositionFetchKHR), "{caps:?}");
    assert!(caps.contains(&Capability::RayTracingClusterAccelerationStructureNV), "{caps:?}");
    let exts = extensions(&m);
    for e in ["SPV_KHR_ray_tracing_position_fetch", "SPV_NV_cluster_acceleration_structure"] {
        assert!(exts.iter().any(|x| x == e), "{e}: {exts:?}");
    }
    // debugBreak: NonSemantic.DebugBreak's DebugBreak, in the body.
    assert_eq!(debug_breaks(&m), 1);
    // isDebuggingEnabled is false: the branch to the break tests a constant false.
    let falses: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::ConstantFalse)
        .filter_map(|i| i.result_id)
        .collect();
    assert!(
        body(&m).iter().any(|i| i.class.opcode == Op::BranchConditional
            && matches!(i.operands[0], Operand::IdRef(c) if falses.contains(&c))),
        "no branch on false"
    );
    let members = feature_members(&words);
    for f in ["rayTracingPositionFetch", "clusterAccelerationStructure", "rayQuery"] {
        assert!(members.contains(&f), "{f}: {members:?}");
    }
}

#[test]
fn hit_shaders_read_cluster_ids_and_triangle_positions() {
    for entry in ["Hit", "Any"] {
        let words = translate_entry(entry, ReorderExtension::Nv).unwrap_or_else(|e| panic!("{entry}: {e}"));
        let m = validated(&words, entry);
        let b = builtins(&m);
        assert!(b.contains(&BuiltIn::ClusterIDNV) && b.contains(&BuiltIn::HitTriangleVertexPositionsKHR), "{b:?}");
        let caps = capabilities(&m);
        assert!(caps.contains(&Capability::RayTracingPositionFetchKHR), "{entry}: {caps:?}");
        assert!(caps.contains(&Capability::RayTracingClusterAccelerationStructureNV), "{entry}: {caps:?}");
        let members = feature_members(&words);
        assert!(members.contains(&"rayTracingPositionFetch") && members.contains(&"clusterAccelerationStructure"));
    }
    // The closest hit reads lanes 0, 4 and 8 of the <9 x float>: vertex 0's x, 1's y, 2's z.
    let m = rspirv::dr::load_words(translate_entry("Hit", ReorderExtension::Nv).unwrap()).unwrap();
    let lanes: Vec<(u32, u32)> = body(&m)
        .iter()
        .filter(|i| i.class.opcode == Op::CompositeExtract && i.operands.len() == 3)
        .filter_map(|i| match (&i.operands[1], &i.operands[2]) {
            (Operand::LiteralBit32(k), Operand::LiteralBit32(c)) => Some((*k, *c)),
            _ => None,
        })
        .collect();
    for want in [(0, 0), (1, 1), (2, 2)] {
        assert!(lanes.contains(&want), "vertex {}, component {}: {lanes:?}", want.0, want.1);
    }
}

#[test]
fn hit_object_cluster_id_under_nv_and_positions_under_ext() {
    let words = translate_entry("Gen", ReorderExtension::Nv).unwrap();
    let m = validated(&words, "Gen (Nv)");
    assert_eq!(count(&m, Op::HitObjectGetClusterIdNV), 1);
    // NVIDIA's cluster instruction takes NV hit objects only.
    let err = translate_entry("Gen", ReorderExtension::Ext).unwrap_err().to_string();
    assert!(err.contains("HitObject_ClusterID") && err.contains("NV hit objects only"), "{err}");
    let words = translate_entry("GenPos", ReorderExtension::Ext).unwrap();
    let m = validated(&words, "GenPos (Ext)");
    assert_eq!(count(&m, Op::HitObjectGetIntersectionTriangleVertexPositionsEXT), 1);
    assert!(feature_members(&words).contains(&"rayTracingPositionFetch"));
    assert_eq!(debug_breaks(&m), 1);
    let err = translate_entry("GenPos", ReorderExtension::Nv).unwrap_err().to_string();
    assert!(err.contains("HitObject_TriangleObjectPosition"), "{err}");
    assert!(err.contains("SPV_NV_shader_invocation_reorder has no"), "{err}");
}

/// The refusal of a call, from a translation error.
fn refusal(e: &Error) -> Option<(untangle::dxil::DxOp, Refusal)> {
    match e {
        Error::Translate(TranslateError::UnsupportedOp { op, reason, .. }) => Some((*op, *reason)),
        _ => None,
    }
}

#[test]
fn group_waves_outside_compute_like_stages_are_refused() {
    // The compute shader as a pixel shader: no thread id, and the wave index is DXIL's
    // stage error.
    let ps = text(CS)
        .replace("%id = call i32 @dx.op.threadId.i32(i32 93, i32 0)", "%id = add i32 0, 0")
        .replace("!{!\"cs\", i32 6, i32 10}", "!{!\"ps\", i32 6, i32 10}");
    let e = translate_cs(&ps).unwrap_err();
    assert_eq!(refusal(&e), Some((untangle::dxil::DxOp::GetGroupWaveIndex, Refusal::NotInStage)), "{e}");
}

/// A compute shader whose body is `calls` (with their declarations `decls`).
fn linalg_cs(calls: &str, decls: &str) -> String {
    format!(
        "target datalayout = \"e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64\"\n\
         target triple = \"dxil-ms-dx\"\n\
         %dx.types.LinAlgMatrixC9M16N16U2S1 = type {{ i8* }}\n\
         define void @main() {{\n{calls}\n  ret void\n}}\n{decls}\n\
         !dx.version = !{{!0}}\n!dx.valver = !{{!0}}\n!dx.shaderModel = !{{!1}}\n!dx.entryPoints = !{{!2}}\n\
         !0 = !{{i32 1, i32 10}}\n!1 = !{{!\"cs\", i32 6, i32 10}}\n\
         !2 = !{{void ()* @main, !\"main\", null, null, !3}}\n!3 = !{{i32 4, !4}}\n!4 = !{{i32 32, i32 1, i32 1}}\n"
    )
}

#[test]
fn linear_algebra_is_a_typed_error_naming_what_vulkan_lacks() {
    let cases = [(
        "  %k = call i32 @dx.op.linAlgMatrixQueryAccumulatorLayout(i32 -2147483626)",
        "declare i32 @dx.op.linAlgMatrixQueryAccumulatorLayout(i32)",
        untangle::dxil::DxOp::LinAlgMatrixQueryAccumulatorLayout,
        Refusal::NoVulkanFeature(Uncovered::LinAlgAccumulatorLayout),
        "MatrixAccumulatorKHR",
    )];
    for (calls, decls, op, reason, says) in cases {
        let e = translate_cs(&linalg_cs(calls, decls)).unwrap_err();
        assert_eq!(refusal(&e), Some((op, reason)), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // The reasons of the operations refused for a missing Vulkan feature.
    let coord = untangle::emit::support::support(
        untangle::dxil::DxOp::LinAlgMatrixGetCoordinate,
        untangle::ShaderKind::Compute,
    );
    assert_eq!(coord, untangle::emit::support::Support::Refused(Refusal::NoVulkanFeature(Uncovered::LinAlgCoordinate)));
    let acc = Refusal::NoVulkanFeature(Uncovered::LinAlgInterlockedAccumulate);
    assert!(acc.reason().contains("no atomic accumulating store of a wave or thread-group cooperative matrix"));
    assert_eq!(
        untangle::emit::support::support(
            untangle::dxil::DxOp::LinAlgMatrixAccumulateToMemory,
            untangle::ShaderKind::Compute
        ),
        untangle::emit::support::Support::Refused(acc)
    );
    // To a descriptor: a thread-scope outer product is lowered (tests/linalg.rs); other
    // scopes are refused for the same reason when the call is lowered.
    assert_eq!(
        untangle::emit::support::support(
            untangle::dxil::DxOp::LinAlgMatrixAccumulateToDescriptor,
            untangle::ShaderKind::Compute
        ),
        untangle::emit::support::Support::Lowered(untangle::emit::support::Family::LinearAlgebra)
    );
}

/// DXC's validator test of the wave index in a thread-launch node (its D3D thread group is
/// one thread; a SPIR-V workgroup holds many): a typed error naming the operation.
#[test]
fn group_waves_in_a_thread_launch_node_are_a_typed_error() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/ll/dxc-tests/LitDXILValidation.GroupWave.group-wave-invalid-node.ll"
    );
    let Ok(bytes) = std::fs::read(path) else {
        assert!(std::env::var_os("CI").is_none(), "{path} is required under CI");
        return;
    };
    let shader = Shader::parse(&bytes).unwrap();
    let e = shader.translate_library(&Default::default()).unwrap_err().to_string();
    assert!(e.contains("GetGroupWaveIndex") && e.contains("thread-launch node"), "{e}");
}
