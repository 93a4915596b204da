//! Properties of the translator on small hand-written shaders: values that the structurizer
//! leaves undominated still reach their uses, unsupported operations are typed errors that
//! name the operation, the binding map moves a resource, and the CLI's batch mode reports
//! failures with its exit code.

use untangle::emit::binding_model::BindingMap;
use untangle::{translate, Options, TranslateError};
use untangle_testkit::check::spirv_val::find_spirv_val;

/// A compute shader around `body` with one `RWByteAddressBuffer` at u0 (`%buf`).
fn shader(body: &str, decls: &str) -> String {
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
{body}
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
{decls}
!dx.version = !{{!0}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 0}}
!1 = !{{i32 1, i32 8}}
!2 = !{{!"cs", i32 6, i32 0}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 16, i32 4, !8}}
!8 = !{{i32 8, i32 1, i32 1}}
"#
    )
}

/// A loop left from three places; `%y` (defined in the body) is used after the loop, where
/// the structurizer's exit ladder no longer lets its definition dominate the use.
const MULTI_EXIT_LOOP: &str = r#"
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %a = shl i32 %i, 2
  %ld = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %buf, i32 %a, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %ld, 0
  %c1 = icmp eq i32 %x, 0
  br i1 %c1, label %exitA, label %body
body:
  %y = add i32 %x, %id
  %c2 = icmp eq i32 %y, 5
  br i1 %c2, label %exitB, label %latch
latch:
  %i1 = add i32 %i, 1
  %c3 = icmp ult i32 %i1, 10
  br i1 %c3, label %loop, label %exitC
exitA:
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 0, i32 undef, i32 %i, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
exitB:
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 4, i32 undef, i32 %y, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
exitC:
  %z = phi i32 [ %i1, %latch ]
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 8, i32 undef, i32 %z, i32 undef, i32 undef, i32 undef, i8 1)
  ret void"#;

#[test]
fn values_used_after_a_multi_exit_loop_validate() {
    let text = shader(MULTI_EXIT_LOOP, "");
    let t = translate(text.as_bytes(), &Options::default()).expect("translates");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let f = &m.functions[0];
    // The loop is structured and `%y` travels through a Function variable.
    let ops: Vec<_> = f.all_inst_iter().map(|i| i.class.opcode).collect();
    assert!(ops.contains(&rspirv::spirv::Op::LoopMerge));
    let vars = f.blocks[0].instructions.iter().filter(|i| i.class.opcode == rspirv::spirv::Op::Variable).count();
    assert!(vars >= 2, "PHIs and the undominated value need variables ({vars})");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
}

#[test]
fn unsupported_operations_name_the_opcode() {
    let body = r#"
  %m = call i32 @dx.op.gsInstanceID.i32(i32 100)
  ret void"#;
    let text = shader(body, "declare i32 @dx.op.gsInstanceID.i32(i32)");
    match translate(text.as_bytes(), &Options::default()) {
        Err(untangle::Error::Translate(TranslateError::UnsupportedOp { op, stage, reason, function, block })) => {
            assert_eq!((op.name(), op.number(), stage.as_str()), ("GSInstanceID", 100, "cs"));
            assert_eq!((function.as_str(), block.as_str()), ("main", "0"));
            assert_eq!(reason, untangle::emit::support::Refusal::NotInStage);
            assert!(reason.to_string().contains("does not allow it in this stage"), "{reason}");
        }
        other => panic!("expected UnsupportedOp, got {other:?}"),
    }
}

#[test]
fn binding_map_overrides_the_default_rule() {
    let text = shader(MULTI_EXIT_LOOP, "");
    let binding_of_buf = |options: &Options| -> (u32, u32) {
        let t = translate(text.as_bytes(), options).unwrap();
        let m = rspirv::dr::load_words(&t.words).unwrap();
        let mut set = None;
        let mut binding = None;
        for d in &m.annotations {
            use rspirv::dr::Operand;
            match (&d.operands[1], d.operands.get(2)) {
                (Operand::Decoration(rspirv::spirv::Decoration::DescriptorSet), Some(Operand::LiteralBit32(s))) => {
                    set = Some(*s)
                }
                (Operand::Decoration(rspirv::spirv::Decoration::Binding), Some(Operand::LiteralBit32(b))) => {
                    binding = Some(*b)
                }
                _ => {}
            }
        }
        (set.unwrap(), binding.unwrap())
    };
    assert_eq!(binding_of_buf(&Options::default()), (0, 2000));
    let map = BindingMap::parse(r#"[{"class":"UAV","space":0,"register":0,"set":3,"binding":7}]"#).unwrap();
    assert_eq!(binding_of_buf(&Options { binding_map: map, ..Options::default() }), (3, 7));
}

/// A vertex shader writing `SV_Position`, two clip distances (`float2`, row 1) and one cull
/// distance (row 1, column 2), the way DXC packs them.
const VS_CLIP: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
define void @main() {
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float 2.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 2, i32 0, i8 0, float 3.000000e+00)
  ret void
}
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!5}
!1 = !{i32 1, i32 0}
!2 = !{i32 1, i32 8}
!3 = !{!"vs", i32 6, i32 0}
!5 = !{void ()* @main, !"main", !6, null, null}
!6 = !{null, !7, null}
!7 = !{!8, !11, !12}
!8 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!9 = !{i32 0}
!11 = !{i32 1, !"SV_ClipDistance", i8 9, i8 6, !9, i8 2, i32 1, i8 2, i32 1, i8 0, null}
!12 = !{i32 2, !"SV_CullDistance", i8 9, i8 7, !9, i8 2, i32 1, i8 1, i32 1, i8 2, null}
"#;

#[test]
fn clip_and_cull_distances_are_float_arrays() {
    let t = translate(VS_CLIP.as_bytes(), &Options::default()).expect("translates");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    use rspirv::dr::Operand;
    use rspirv::spirv::{BuiltIn, Decoration};
    let builtins: Vec<BuiltIn> = m
        .annotations
        .iter()
        .filter_map(|d| match (&d.operands.get(1), &d.operands.get(2)) {
            (Some(Operand::Decoration(Decoration::BuiltIn)), Some(Operand::BuiltIn(b))) => Some(*b),
            _ => None,
        })
        .collect();
    for b in [BuiltIn::Position, BuiltIn::ClipDistance, BuiltIn::CullDistance] {
        assert!(builtins.contains(&b), "{b:?} missing in {builtins:?}");
    }
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
}

/// SM 6.7 programmable offsets: a `SampleLevel` whose texel offset is not a constant becomes
/// a switch over the offset's low 4 bits per component, each case with a `ConstOffset`
/// (Vulkan allows `Offset` on gathers only), and the module validates.
#[test]
fn dynamic_texture_offset_becomes_a_switch_and_validates() {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/dxil/vkd3d-proton/sm_advanced.cs_dynamic_texture_offset.cs_6_7.dxil"
    ));
    if !path.exists() {
        eprintln!("{} not found: skipping", path.display());
        return;
    }
    let loaded = untangle::front::load_path(path).expect("loads");
    let t = untangle::translate_module(&loaded.module, &Options::default()).expect("translates");
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let f = &m.functions[0];
    let switches: Vec<_> = f.all_inst_iter().filter(|i| i.class.opcode == rspirv::spirv::Op::Switch).collect();
    assert_eq!(switches.len(), 1, "one switch over the 2D offset");
    // Selector, default, then 255 (literal, label) pairs: 256 cases for 4 bits by 4 bits.
    assert_eq!(switches[0].operands.len(), 2 + 2 * 255);
    let samples = f
        .all_inst_iter()
        .filter(|i| i.class.opcode == rspirv::spirv::Op::ImageSampleExplicitLod)
        .filter(|i| {
            i.operands.iter().any(|o| matches!(o, rspirv::dr::Operand::ImageOperands(m) if m.contains(rspirv::spirv::ImageOperands::CONST_OFFSET)))
        })
        .count();
    assert_eq!(samples, 256);
    assert!(!f.all_inst_iter().any(|i| i.operands.iter().any(
        |o| matches!(o, rspirv::dr::Operand::ImageOperands(m) if m.contains(rspirv::spirv::ImageOperands::OFFSET))
    )));
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
}

/// Branches whose two labels are one block: SPIR-V 1.6 forbids `OpBranchConditional` with
/// the same label twice, so they become `OpBranch` (or a switch on a constant under a
/// selection merge). The random function is one where the structurizer left a header's
/// two slots on one block.
#[test]
fn two_way_branches_to_one_block_validate() {
    const SAME_TARGET: &str = r#"
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %c = icmp eq i32 %id, 0
  br i1 %c, label %a, label %a
a:
  %d = icmp eq i32 %id, 1
  br i1 %d, label %b, label %exit
b:
  br i1 %c, label %exit, label %exit
exit:
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 0, i32 undef, i32 %id, i32 undef, i32 undef, i32 undef, i8 1)
  ret void"#;
    use untangle_testkit::fuzzing::shape_text::{as_compute_shader, Shape};
    let random = Shape::Random.text(Shape::Random.count_for_blocks(1600));
    for (name, text) in [("same target", shader(SAME_TARGET, "")), ("random", as_compute_shader(&random).unwrap())] {
        let t = translate(text.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = rspirv::dr::load_words(&t.words).unwrap();
        for inst in m.functions.iter().flat_map(|f| f.all_inst_iter()) {
            if inst.class.opcode == rspirv::spirv::Op::BranchConditional {
                assert_ne!(inst.operands[1], inst.operands[2], "{name}: OpBranchConditional names one label twice");
            }
        }
        if let Some(v) = find_spirv_val() {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
