//! Rasterizer-ordered views (`emit/rov.rs`): a pixel shader with a `RasterizerOrdered*` UAV
//! (the ROV flag of its resource metadata) gets an ordered fragment shader interlock, per
//! pixel or, when it runs per sample, per sample, and its entry function is one critical
//! section: `OpBeginInvocationInterlockEXT` once, first in the entry block, and
//! `OpEndInvocationInterlockEXT` immediately before every `OpReturn`, so that every
//! invocation runs each exactly once, in order, around all its ROV accesses, whatever the
//! control flow (vkd3d-proton's `test_rasterizer_ordered_views_dxil` read-modify-writes
//! raced without them). Checked without a device: the instructions and their places, the
//! execution modes and capabilities, and `spirv-val`.

use rspirv::dr::{Function, Operand};
use rspirv::spirv::{Capability, ExecutionMode, Op};
use untangle::{translate, Options};

/// A pixel shader: for `i` in `0..n` (`n` from the constant buffer), where bit `i` of the
/// coverage-like input is set, `u0[4 p] += i` (a read-modify-write of a
/// `RasterizerOrderedByteAddressBuffer` when `rov`); returns early where `p` is odd, after
/// the loop. `sample` makes the `TEXCOORD` input sample-interpolated (the shader runs per
/// sample).
fn ps(rov: bool, sample: bool) -> String {
    let interp = if sample { 6 } else { 2 };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.CBufRet.i32 = type {{ i32, i32, i32, i32 }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%struct.RWByteAddressBuffer = type {{ i32 }}
%C = type {{ i32 }}
define void @main() {{
entry:
  %u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %cb = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)
  %fx = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %t = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 undef)
  %p = fptoui float %fx to i32
  %mask = fptoui float %t to i32
  %cbl = call %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32 59, %dx.types.Handle %cb, i32 0)
  %n = extractvalue %dx.types.CBufRet.i32 %cbl, 0
  %addr = shl i32 %p, 2
  %any = icmp ne i32 %n, 0
  br i1 %any, label %loop, label %after
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %bit = shl i32 1, %i
  %has = and i32 %mask, %bit
  %set = icmp ne i32 %has, 0
  br i1 %set, label %rmw, label %latch
rmw:
  %l = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %u, i32 %addr, i32 undef, i8 1, i32 4)
  %old = extractvalue %dx.types.ResRet.i32 %l, 0
  %new = add i32 %old, %i
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %u, i32 %addr, i32 undef, i32 %new, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  br label %latch
latch:
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %n
  br i1 %more, label %loop, label %after
after:
  %odd = and i32 %p, 1
  %early = icmp ne i32 %odd, 0
  br i1 %early, label %out, label %last
last:
  %l2 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %u, i32 0, i32 undef, i8 1, i32 4)
  %o2 = extractvalue %dx.types.ResRet.i32 %l2, 0
  %n2 = add i32 %o2, 1
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %u, i32 0, i32 undef, i32 %n2, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void
out:
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32, %dx.types.Handle, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!10}}
!0 = !{{i32 1, i32 0}}
!1 = !{{!"ps", i32 6, i32 0}}
!2 = !{{null, !3, !5, null}}
!3 = !{{!4}}
!4 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 {rov}, null}}
!5 = !{{!6}}
!6 = !{{i32 0, %C* undef, !"C", i32 0, i32 0, i32 1, i32 4, null}}
!10 = !{{void ()* @main, !"main", !11, !2, null}}
!11 = !{{!12, null, null}}
!12 = !{{!13, !15}}
!13 = !{{i32 0, !"SV_Position", i8 9, i8 3, !14, i8 4, i32 1, i8 4, i32 0, i8 0, null}}
!14 = !{{i32 0}}
!15 = !{{i32 1, !"TEXCOORD", i8 9, i8 0, !14, i8 {interp}, i32 1, i8 1, i32 1, i8 0, null}}
"#
    )
}

fn validate(words: &[u32], what: &str) {
    untangle_spirv_tools::assert_valid(words, "vulkan1.3", what);
}

fn modes_and_caps(m: &rspirv::dr::Module) -> (Vec<ExecutionMode>, Vec<Capability>) {
    let modes = m
        .execution_modes
        .iter()
        .filter_map(|i| match i.operands[1] {
            Operand::ExecutionMode(e) => Some(e),
            _ => None,
        })
        .collect();
    let caps = m
        .capabilities
        .iter()
        .filter_map(|i| match i.operands[0] {
            Operand::Capability(c) => Some(c),
            _ => None,
        })
        .collect();
    (modes, caps)
}

/// A place in a function: the index of the block and of the instruction in it.
type Site = (usize, usize);

/// Where the interlock instructions of entry function `f` are (each begin, each end), and
/// the number of `OpReturn`s.
fn interlocks(f: &Function) -> (Vec<Site>, Vec<Site>, usize) {
    let (mut begins, mut ends, mut rets) = (Vec::new(), Vec::new(), 0);
    for (b, block) in f.blocks.iter().enumerate() {
        for (k, i) in block.instructions.iter().enumerate() {
            match i.class.opcode {
                Op::BeginInvocationInterlockEXT => begins.push((b, k)),
                Op::EndInvocationInterlockEXT => ends.push((b, k)),
                Op::Return => rets += 1,
                _ => {}
            }
        }
    }
    (begins, ends, rets)
}

/// The critical section spans the entry function: one begin, first after the variables of
/// the first block; an end right before each of the returns (the loop's ROV accesses and
/// the early return included); the pixel interlock, or the sample interlock when the
/// shader runs per sample.
#[test]
fn rov_shaders_interlock_the_whole_entry() {
    for sample in [false, true] {
        let what = if sample { "per sample" } else { "per pixel" };
        let t = translate(ps(true, sample).as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
        validate(&t.words, what);
        let m = rspirv::dr::load_words(&t.words).expect("parses");
        let f = &m.functions[0];
        let (begins, ends, rets) = interlocks(f);
        let first = &f.blocks[0].instructions;
        let vars = first.iter().take_while(|i| i.class.opcode == Op::Variable).count();
        assert_eq!(begins, vec![(0, vars)], "{what}: one begin, first after the variables");
        assert!(rets >= 1 && ends.len() == rets, "{what}: {} ends for {rets} returns", ends.len());
        for &(b, k) in &ends {
            let next = &f.blocks[b].instructions[k + 1..];
            assert_eq!(next.len(), 1, "{what}: the end is the last instruction before the return");
            assert_eq!(next[0].class.opcode, Op::Return, "{what}");
        }
        // Every ROV access lies after the begin (which is in the entry block, before any
        // branch) and so before an end: the entry block reaches every block.
        let (modes, caps) = modes_and_caps(&m);
        let (mode, cap) = if sample {
            (ExecutionMode::SampleInterlockOrderedEXT, Capability::FragmentShaderSampleInterlockEXT)
        } else {
            (ExecutionMode::PixelInterlockOrderedEXT, Capability::FragmentShaderPixelInterlockEXT)
        };
        assert!(modes.contains(&mode), "{what}: {modes:?}");
        assert!(caps.contains(&cap), "{what}: {caps:?}");
        let other = [
            ExecutionMode::PixelInterlockOrderedEXT,
            ExecutionMode::SampleInterlockOrderedEXT,
            ExecutionMode::PixelInterlockUnorderedEXT,
            ExecutionMode::SampleInterlockUnorderedEXT,
        ];
        assert_eq!(modes.iter().filter(|m| other.contains(m)).count(), 1, "{what}: one interlock mode");
        let coherent = m.annotations.iter().any(|i| {
            i.class.opcode == Op::Decorate && i.operands[1] == Operand::Decoration(rspirv::spirv::Decoration::Coherent)
        });
        assert!(coherent, "{what}: the ROV is coherent");
        assert!(
            m.extensions.iter().any(
                |e| matches!(&e.operands[0], Operand::LiteralString(s) if s == "SPV_EXT_fragment_shader_interlock")
            ),
            "{what}: the extension"
        );
    }
}

/// The device features such a module needs (`Translation::device_features`): the
/// fragment shader interlock feature of its granularity, and the extension that brings it.
#[test]
fn rov_shaders_need_the_interlock_feature() {
    use untangle::emit::features::Enable;
    for (sample, member) in [(false, "fragmentShaderPixelInterlock"), (true, "fragmentShaderSampleInterlock")] {
        let t = translate(ps(true, sample).as_bytes(), &Options::default()).expect("translates");
        let reqs = t.device_features();
        let interlock = |e: &Enable| matches!(e, Enable::Feature { structure: "VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT", member: m, .. } if *m == member);
        assert!(reqs.iter().any(|r| r.any_of.iter().any(interlock)), "{member}: {reqs:?}");
        let ext = reqs.iter().find(|r| r.spirv == "SPV_EXT_fragment_shader_interlock").expect("the extension");
        assert_eq!(ext.any_of, [Enable::Extension { extension: "VK_EXT_fragment_shader_interlock" }]);
    }
}

/// The same shader with a plain UAV gets no interlock.
#[test]
fn plain_uavs_get_no_interlock() {
    let t = translate(ps(false, false).as_bytes(), &Options::default()).expect("translates");
    validate(&t.words, "plain");
    let m = rspirv::dr::load_words(&t.words).expect("parses");
    let (begins, ends, _) = interlocks(&m.functions[0]);
    assert!(begins.is_empty() && ends.is_empty());
    let (modes, caps) = modes_and_caps(&m);
    assert!(!modes.contains(&ExecutionMode::PixelInterlockOrderedEXT));
    assert!(!caps.contains(&Capability::FragmentShaderPixelInterlockEXT));
    assert!(!m
        .annotations
        .iter()
        .any(|i| i.operands.get(1) == Some(&Operand::Decoration(rspirv::spirv::Decoration::Coherent))));
}

/// SM 6.6: a descriptor-heap handle annotated as a rasterizer-ordered UAV (resource
/// properties: raw buffer, UAV and ROV bits) interlocks the entry as well; the same handle
/// annotated as a plain UAV does not.
#[test]
fn heap_handles_annotated_rasterizer_ordered_interlock() {
    for (props, rov) in [(11 | 1 << 12 | 1 << 13, true), (11 | 1 << 12, false)] {
        let text = ps(false, false)
            .replace(
                "%u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)",
                &format!(
                    "%uh = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 0, i1 false, i1 false)
  %u = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %uh, %dx.types.ResourceProperties {{ i32 {props}, i32 0 }})"
                ),
            )
            .replace("%C = type { i32 }", "%C = type { i32 }\n%dx.types.ResourceProperties = type { i32, i32 }")
            .replace(
                "declare float @dx.op.loadInput.f32",
                "declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1)
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)
declare float @dx.op.loadInput.f32",
            )
            .replace(r#"!"ps", i32 6, i32 0"#, r#"!"ps", i32 6, i32 6"#)
            .replace("!0 = !{i32 1, i32 0}", "!0 = !{i32 1, i32 6}");
        let t = translate(text.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("props {props}: {e}"));
        validate(&t.words, "heap");
        let m = rspirv::dr::load_words(&t.words).expect("parses");
        let (begins, ends, rets) = interlocks(&m.functions[0]);
        assert_eq!((begins.len(), ends.len()), if rov { (1, rets) } else { (0, 0) }, "props {props}");
        let (modes, _) = modes_and_caps(&m);
        assert_eq!(modes.contains(&ExecutionMode::PixelInterlockOrderedEXT), rov, "props {props}");
    }
}
