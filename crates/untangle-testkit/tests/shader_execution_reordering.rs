//! SM 6.9 shader execution reordering and `AllocateRayQuery2` (`corpus/lib_ser_ops.ll`):
//! every entry translates to `SPV_NV_shader_invocation_reorder` (the default) or
//! `SPV_EXT_shader_invocation_reorder` (`Options::shader_invocation_reorder`), passes
//! `spirv-val` (vulkan1.3 and vulkan1.4: untangle writes SPIR-V 1.6), and holds the instructions its operations lower
//! to; what NVIDIA's extension cannot express is a typed error naming the operation; a
//! HitObject PHI carries a slot index into the function's array of hit objects.

use rspirv::spirv::{Capability, Op};
use untangle::{ReorderExtension, Shader};

const LIB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/lib_ser_ops.ll");

fn shader() -> Shader {
    Shader::parse(&std::fs::read(LIB).unwrap()).unwrap()
}

fn options(r: ReorderExtension) -> untangle::Options {
    untangle::Options { shader_invocation_reorder: r, ..Default::default() }
}

/// The opcodes of the module's function bodies.
fn ops(words: &[u32]) -> Vec<Op> {
    let m = rspirv::dr::load_words(words).unwrap();
    m.functions.iter().flat_map(|f| &f.blocks).flat_map(|b| &b.instructions).map(|i| i.class.opcode).collect()
}

fn capabilities(words: &[u32]) -> Vec<Capability> {
    let m = rspirv::dr::load_words(words).unwrap();
    m.capabilities
        .iter()
        .filter_map(|i| match i.operands[0] {
            rspirv::dr::Operand::Capability(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn translate(entry: &str, r: ReorderExtension) -> Vec<u32> {
    let t = shader().translate_entry(entry, &options(r)).unwrap_or_else(|e| panic!("{entry} ({r:?}): {e}"));
    for env in ["vulkan1.3", "vulkan1.4"] {
        untangle_spirv_tools::assert_valid(&t.words, env, &format!("{entry} ({r:?}, {env})"));
    }
    t.words
}

#[test]
fn nv_lowering_of_raygen_closest_hit_and_miss() {
    let gen = ops(&translate("Gen", ReorderExtension::Nv));
    for op in [
        Op::HitObjectTraceRayNV,
        Op::HitObjectRecordMissNV,
        Op::HitObjectRecordEmptyNV,
        Op::HitObjectIsHitNV,
        Op::HitObjectGetShaderBindingTableRecordIndexNV,
        Op::ReorderThreadWithHitObjectNV,
        Op::ReorderThreadWithHintNV,
        Op::HitObjectExecuteShaderNV,
    ] {
        assert!(gen.contains(&op), "Gen: no {op:?}");
    }
    // The HitObject PHI: a PHI (or its demoted variable) of slot indices, then an access
    // chain into the slots for each consumer; never a load or store of a hit object.
    assert!(gen.contains(&Op::AccessChain));
    // Two reorders with the hit object: with hint and bits, and without (bits 0).
    assert_eq!(gen.iter().filter(|&&o| o == Op::ReorderThreadWithHitObjectNV).count(), 2);
    let hit = translate("Hit", ReorderExtension::Nv);
    let hit_ops = ops(&hit);
    for op in [
        Op::HitObjectIsMissNV,
        Op::HitObjectIsEmptyNV,
        Op::HitObjectGetRayTMinNV,
        Op::HitObjectGetRayTMaxNV,
        Op::HitObjectGetWorldRayOriginNV,
        Op::HitObjectGetWorldRayDirectionNV,
        Op::HitObjectGetObjectRayOriginNV,
        Op::HitObjectGetObjectRayDirectionNV,
        Op::HitObjectGetObjectToWorldNV,
        Op::HitObjectGetWorldToObjectNV,
        Op::HitObjectGetGeometryIndexNV,
        Op::HitObjectGetInstanceIdNV,
        Op::HitObjectGetInstanceCustomIndexNV,
        Op::HitObjectGetPrimitiveIndexNV,
        Op::HitObjectGetHitKindNV,
        Op::HitObjectGetShaderRecordBufferHandleNV,
        Op::HitObjectGetAttributesNV,
    ] {
        assert!(hit_ops.contains(&op), "Hit: no {op:?}");
    }
    assert!(capabilities(&hit).contains(&Capability::ShaderInvocationReorderNV));
    let sky = ops(&translate("Sky", ReorderExtension::Nv));
    assert!(sky.contains(&Op::HitObjectRecordMissNV) && sky.contains(&Op::HitObjectIsMissNV));
}

#[test]
fn what_nv_cannot_express_is_a_typed_error() {
    let err = shader().translate_entry("Ext", &options(ReorderExtension::Nv)).unwrap_err().to_string();
    assert!(err.contains("SPV_NV_shader_invocation_reorder has no"), "{err}");
    assert!(err.contains("HitObject_FromRayQuery"), "{err}");
}

#[test]
fn ext_lowering_and_opacity_micromap_flags() {
    let words = translate("Ext", ReorderExtension::Ext);
    let ext = ops(&words);
    for op in [
        Op::HitObjectRecordFromQueryEXT,
        Op::HitObjectRecordMissEXT,
        Op::HitObjectSetShaderBindingTableRecordIndexEXT,
        Op::HitObjectGetRayFlagsEXT,
        Op::HitObjectGetHitKindEXT,
        Op::HitObjectExecuteShaderEXT,
        Op::RayQueryInitializeKHR,
    ] {
        assert!(ext.contains(&op), "Ext: no {op:?}");
    }
    // A select of hit objects: a select of slot indices.
    assert!(ext.contains(&Op::Select));
    let caps = capabilities(&words);
    assert!(caps.contains(&Capability::ShaderInvocationReorderEXT), "{caps:?}");
    // RAY_FLAG_FORCE_OMM_2_STATE (0x400) in allocateRayQuery2's constant flags.
    assert!(caps.contains(&Capability::RayTracingOpacityMicromapEXT), "{caps:?}");
    // The other entries in the EXT form too.
    for entry in ["Gen", "Hit", "Sky"] {
        let o = ops(&translate(entry, ReorderExtension::Ext));
        assert!(!o.iter().any(|op| format!("{op:?}").ends_with("NV")), "{entry}: an NV instruction under EXT");
    }
}

/// `FromRayQueryWithAttrs` needs the hit-kind operand the installed validator lacks: a
/// typed error in either form.
#[test]
fn from_ray_query_with_attributes_is_a_typed_error() {
    let text = std::fs::read_to_string(LIB).unwrap().replace(
        "%hq = call %dx.types.HitObject @dx.op.hitObject_FromRayQuery(i32 263, i32 %q)",
        "%hq = call %dx.types.HitObject @dx.op.hitObject_FromRayQueryWithAttrs.struct.Attribs(i32 264, i32 %q, i32 16, \
         %struct.Attribs* nonnull %attrs)",
    );
    let shader = Shader::parse(text.as_bytes()).unwrap();
    for r in [ReorderExtension::Nv, ReorderExtension::Ext] {
        let err = shader.translate_entry("Ext", &options(r)).unwrap_err().to_string();
        assert!(err.contains("HitObject_FromRayQueryWithAttrs") && err.contains("2026 revision"), "{r:?}: {err}");
    }
}

/// A hit object made in a loop and carried around it: refused when the older value is read
/// after the loop made the next one (both share the call's variable), translated when it
/// is not.
#[test]
fn loop_carried_hit_objects() {
    let text = std::fs::read_to_string(LIB).unwrap();
    let phi = "join:\n  %h = phi %dx.types.HitObject [ %ht, %trace ], [ %hm, %miss ]";
    let miss =
        "call %dx.types.HitObject @dx.op.hitObject_MakeMiss(i32 265, i32 0, i32 1, float %fx, float 0.000000e+00, \
                float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, \
                float 1.000000e+02)";
    let is_miss = "call i1 @dx.op.hitObject_StateScalar.i1(i32 269, %dx.types.HitObject %h)";
    // `%h` read after `%hl` was made in the same iteration: `%h` may be the previous `%hl`.
    let bad = text.replace(
        phi,
        &format!(
            "join:\n  %h = phi %dx.types.HitObject [ %ht, %trace ], [ %hm, %miss ], [ %hl, %join ]\n  %hl = {miss}\n  \
             %again = {is_miss}\n  br i1 %again, label %join, label %tail\n\ntail:"
        ),
    );
    assert!(bad.contains("%tail"));
    let err = Shader::parse(bad.as_bytes()).unwrap().translate_entry("Gen", &Default::default()).unwrap_err();
    assert!(err.to_string().contains("inside a loop"), "{err}");
    // `%h` read before the loop body makes the next one: translated and valid.
    let good = text.replace(
        phi,
        &format!(
            "join:\n  %h = phi %dx.types.HitObject [ %ht, %trace ], [ %hm, %miss ], [ %hl, %body ]\n  \
             %again = {is_miss}\n  br i1 %again, label %body, label %tail\n\nbody:\n  %hl = {miss}\n  \
             br label %join\n\ntail:"
        ),
    );
    let t = Shader::parse(good.as_bytes()).unwrap().translate_entry("Gen", &Default::default()).unwrap();
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "Gen with a loop-carried hit object");
    assert!(ops(&t.words).contains(&Op::HitObjectRecordMissNV));
}

/// Hit objects passed to and returned from functions: calls are inlined before emission
/// (`passes::inline`), so the argument is the caller's slot index and the returned value a
/// PHI of indices.
#[test]
fn hit_objects_cross_calls() {
    let text = std::fs::read_to_string(LIB).unwrap();
    let invoke = "call void @dx.op.hitObject_Invoke.struct.Payload(i32 267, %dx.types.HitObject %h, %struct.Payload* nonnull %pl)";
    let nop = "%nop = call %dx.types.HitObject @dx.op.hitObject_MakeNop(i32 266)";
    assert!(text.contains(invoke) && text.contains(nop));
    let text = text
        .replace(invoke, "call void @invoke(%dx.types.HitObject %h, %struct.Payload* %pl)")
        .replace(nop, "%nop = call %dx.types.HitObject @make_nop(i32 %x)")
        + "\ndefine internal void @invoke(%dx.types.HitObject %o, %struct.Payload* %p) #0 {\n  \
           call void @dx.op.hitObject_Invoke.struct.Payload(i32 267, %dx.types.HitObject %o, %struct.Payload* %p)\n  \
           ret void\n}\n\ndefine internal %dx.types.HitObject @make_nop(i32 %k) #0 {\nentry:\n  \
           %z = icmp eq i32 %k, 0\n  br i1 %z, label %a, label %b\na:\n  \
           %n = call %dx.types.HitObject @dx.op.hitObject_MakeNop(i32 266)\n  ret %dx.types.HitObject %n\nb:\n  \
           %m = call %dx.types.HitObject @dx.op.hitObject_MakeNop(i32 266)\n  ret %dx.types.HitObject %m\n}\n";
    let t = Shader::parse(text.as_bytes()).unwrap().translate_entry("Gen", &Default::default()).unwrap();
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "Gen with hit-object calls");
    let o = ops(&t.words);
    assert!(o.contains(&Op::HitObjectExecuteShaderNV));
    assert_eq!(o.iter().filter(|&&x| x == Op::HitObjectRecordEmptyNV).count(), 2, "both returns of make_nop");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    assert_eq!(m.functions.len(), 1, "calls inlined");
}
