//! Two wave-operation rules vkd3d-proton's SM 6.5/6.6 tests check, without a device (the
//! differential runs in `gpu_differential.rs` check them on one):
//!
//! - `WaveMultiPrefix*` ANDs each lane's partition mask with the active lanes before
//!   partitioning (`test_shader_sm65_wave_intrinsics`, tests 3 and 4: masks that differ only
//!   in bits of lanes that do not run are one partition). The translation takes the ballot
//!   of the participating lanes before the partition loop and compares masked keys; the
//!   interpreter, the reference of the differential runs, gives vkd3d-proton's numbers.
//! - From SM 6.6, quad operations in compute shaders use the quads of compute derivatives:
//!   2×2 threads when the group's X and Y are even, else four consecutive threads
//!   (`test_shader_sm66_quad_op_semantics`). The translation declares the derivative group
//!   layout for them; before SM 6.6, or in a group whose size is not a multiple of 4, none.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, ExecutionMode, Op};
use std::collections::HashMap;
use untangle::dxil::ResourceClass;
use untangle::{translate, Options};
use untangle_testkit::difftest::inputs::{inputs, to_interp, Budget};
use untangle_testkit::interp::Program;

fn corpus(file: &str) -> Option<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton/");
    match std::fs::read(format!("{dir}{file}")) {
        Ok(b) => Some(b),
        Err(_) => {
            assert!(std::env::var_os("CI").is_none(), "{file} is missing under CI");
            println!("{file} not found: skipping");
            None
        }
    }
}

fn validate(words: &[u32], what: &str) {
    untangle_spirv_tools::assert_valid(words, "vulkan1.3", what);
}

fn defs(m: &Module) -> HashMap<u32, Instruction> {
    m.all_inst_iter().filter_map(|i| i.result_id.map(|r| (r, i.clone()))).collect()
}

fn id(o: &Operand) -> u32 {
    o.unwrap_id_ref()
}

/// The key each `OpGroupNonUniformBroadcastFirst` of a partition loop compares: whether it
/// is a mask word ANDed with a word of `OpGroupNonUniformBallot(true)`.
fn masked_keys(words: &[u32]) -> Vec<bool> {
    let m = rspirv::dr::load_words(words).expect("parses");
    let d = defs(&m);
    let is_true = |x: u32| d.get(&x).is_some_and(|i| i.class.opcode == Op::ConstantTrue);
    let is_active_word = |x: u32| {
        let Some(e) = d.get(&x).filter(|i| i.class.opcode == Op::CompositeExtract) else { return false };
        let Some(b) = d.get(&id(&e.operands[0])) else { return false };
        b.class.opcode == Op::GroupNonUniformBallot && is_true(id(&b.operands[1]))
    };
    m.all_inst_iter()
        .filter(|i| i.class.opcode == Op::GroupNonUniformBroadcastFirst)
        .map(|i| {
            let key = id(&i.operands[1]);
            d.get(&key).is_some_and(|k| {
                k.class.opcode == Op::BitwiseAnd
                    && (is_active_word(id(&k.operands[0])) || is_active_word(id(&k.operands[1])))
            })
        })
        .collect()
}

/// vkd3d-proton's multi-prefix shader: all six operations compare masked keys (4 words
/// each); `WaveMatch` partitions by value and masks nothing.
#[test]
fn multi_prefix_masks_are_anded_with_the_active_lanes() {
    let Some(bytes) = corpus("sm_advanced.cs_wave_multi_prefix.cs_6_5.dxil") else { return };
    let t = translate(&bytes, &Options::default()).expect("translates");
    validate(&t.words, "multi-prefix");
    let keys = masked_keys(&t.words);
    assert_eq!(keys.len(), 6 * 4, "six partition loops of four mask words");
    assert!(keys.iter().all(|&k| k), "every mask word is ANDed with the active lanes: {keys:?}");
    let Some(bytes) = corpus("sm_advanced.cs_wave_match.cs_6_5.dxil") else { return };
    let t = translate(&bytes, &Options::default()).expect("translates");
    validate(&t.words, "match");
    let keys = masked_keys(&t.words);
    assert!(!keys.is_empty() && keys.iter().all(|&k| !k), "WaveMatch compares values: {keys:?}");
}

/// The interpreter on vkd3d-proton's multi-prefix shader with the test's inputs (tests 1 to
/// 5 of `test_shader_sm65_wave_intrinsics`) at a wave of 32 lanes, 16 of them running:
/// the test's expected outputs, word for word. Masks with bits of the 16 lanes that do not
/// run (0xffff against ~0, 0x8000ffff, 0x800802) must be partitioned as if those bits
/// were clear.
#[test]
fn interpreter_multi_prefix_gives_vkd3d_protons_results() {
    let Some(bytes) = corpus("sm_advanced.cs_wave_multi_prefix.cs_6_5.dxil") else { return };
    let m = untangle::front::load_bytes(bytes, "multi-prefix").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    const N: u32 = !0;
    let same = |v: [u32; 16]| v;
    // (input masks, six rows of 16 expected words), from the test.
    let all_same_out: [[u32; 16]; 6] = [
        [0, 0x1, 0x3, 0x6, 0xa, 0xf, 0x15, 0x1c, 0x24, 0x2d, 0x37, 0x42, 0x4e, 0x5b, 0x69, 0x78],
        [
            0x1, 0x1, 0x2, 0x6, 0x18, 0x78, 0x2d0, 0x13b0, 0x9d80, 0x58980, 0x375f00, 0x2611500, 0x1c8cfc00,
            0x7328cc00, 0x4c3b2800, 0x77775800,
        ],
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [N, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 3, 3, 7, 7, 7, 7, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf],
        [0, 1, 3, 0, 4, 1, 7, 0, 8, 1, 0xb, 0, 0xc, 0x1, 0xf, 0],
    ];
    let real_out: [[u32; 16]; 6] = [
        [0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 2, 3, 7, 0, 0],
        [1, 1, 1, 1, 1, 1, 1, 6, 1, 1, 0x30, 0x2, 0x3, 0x7, 0x1, 0x1],
        [0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 3, 1, 0, 1, 0, 0],
        [N, N, N, N, N, 1, N, 0, N, N, 0, 2, 3, 7, N, N],
        [0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 0x2, 0x3, 0x7, 0, 0],
        [0, 0, 0, 0, 0, 1, 0, 7, 0, 0, 0xf, 0x2, 0x3, 0x7, 0, 0],
    ];
    let cases: [([u32; 16], [[u32; 16]; 6]); 4] = [
        (same([N; 16]), all_same_out),
        (same([N, N, N, 0xffff, N, 0x1ffff, N, N, N, 0x8000ffff, N, N, N, N, N, N]), all_same_out),
        (
            [
                0x4a1, 0x802, 0x1004, 0x8, 0x10, 0x4a1, 0x2040, 0x4a1, 0x100, 0x200, 0x4a1, 0x802, 0x1004, 0x2040,
                0x4000, 0x8000,
            ],
            real_out,
        ),
        (
            [
                0x4a1, 0x800802, 0x1004, 0x8, 0x10, 0x4a1, 0x8002040, 0x4a1, 0x100, 0x200, 0x4a1, 0x802, 0x1004,
                0x2040, 0x4000, 0x8000,
            ],
            real_out,
        ),
    ];
    for (n, (masks, want)) in cases.iter().enumerate() {
        let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
        for i in &mut ins {
            let words: Vec<u32> = if i.class == ResourceClass::Srv { masks.to_vec() } else { vec![0; 96] };
            i.bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        }
        let out = untangle_testkit::difftest::reference(&p, &to_interp(&ins), 32, [1, 1, 1]).expect("runs");
        let u = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
        for (row, want_row) in want.iter().enumerate() {
            for (j, &w) in want_row.iter().enumerate() {
                let v = u.mem.read(4 * (16 * row + j) as i64, 4).expect("in bounds");
                assert!(v.acc.is_exact(), "case {n}: instance {row}, index {j} undefined");
                assert_eq!(v.bits as u32, w, "case {n}: instance {row}, index {j}");
            }
        }
    }
}

/// A compute shader of `threads` at shader model 6.`minor`: `u0[flat] = QuadReadAcrossX(flat)
/// | QuadReadAcrossY(flat) << 8 | QuadReadAcrossDiagonal(flat) << 16 | QuadReadLaneAt(flat,
/// 3) << 24` (`RWByteAddressBuffer`).
fn quad_shader(minor: u32, threads: [u32; 3]) -> String {
    let [x, y, z] = threads;
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
entry:
  %u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %f = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %qx = call i32 @dx.op.quadOp.i32(i32 123, i32 %f, i8 0)
  %qy = call i32 @dx.op.quadOp.i32(i32 123, i32 %f, i8 1)
  %qd = call i32 @dx.op.quadOp.i32(i32 123, i32 %f, i8 2)
  %q3 = call i32 @dx.op.quadReadLaneAt.i32(i32 122, i32 %f, i32 3)
  %sy = shl i32 %qy, 8
  %sd = shl i32 %qd, 16
  %s3 = shl i32 %q3, 24
  %o1 = or i32 %qx, %sy
  %o2 = or i32 %o1, %sd
  %r = or i32 %o2, %s3
  %a = shl i32 %f, 2
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %u, i32 %a, i32 undef, i32 %r, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare i32 @dx.op.quadOp.i32(i32, i32, i8)
declare i32 @dx.op.quadReadLaneAt.i32(i32, i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!5}}
!0 = !{{i32 1, i32 {minor}}}
!1 = !{{!"cs", i32 6, i32 {minor}}}
!2 = !{{null, !3, null, null}}
!3 = !{{!4}}
!4 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!5 = !{{void ()* @main, !"main", null, !2, !6}}
!6 = !{{i32 4, !7}}
!7 = !{{i32 {x}, i32 {y}, i32 {z}}}
"#
    )
}

fn modes(words: &[u32]) -> (Vec<ExecutionMode>, Vec<Capability>) {
    let m = rspirv::dr::load_words(words).expect("parses");
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

/// The derivative group layout quad operations get: 2×2 quads for an SM 6.6 group with even
/// X and Y, linear for other SM 6.6 groups of a multiple of 4 threads, none before SM 6.6
/// or for groups that form no quads (which translate, unlike derivatives there).
#[test]
fn sm66_compute_quad_ops_declare_the_derivative_layout() {
    use ExecutionMode::{DerivativeGroupLinearKHR as Linear, DerivativeGroupQuadsKHR as Quads};
    let cases: [(u32, [u32; 3], Option<ExecutionMode>); 7] = [
        (6, [8, 8, 1], Some(Quads)),
        (6, [2, 2, 1], Some(Quads)),
        (6, [8, 9, 1], Some(Linear)),
        (6, [64, 1, 1], Some(Linear)),
        (6, [3, 1, 1], None),
        (0, [8, 8, 1], None),
        (5, [8, 8, 1], None),
    ];
    for (minor, threads, want) in cases {
        let what = format!("6.{minor} {threads:?}");
        let t = translate(quad_shader(minor, threads).as_bytes(), &Options::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        validate(&t.words, &what);
        let (modes, caps) = modes(&t.words);
        let got: Vec<ExecutionMode> = modes.into_iter().filter(|&m| m == Quads || m == Linear).collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "{what}");
        let cap = match want {
            Some(Quads) => Some(Capability::ComputeDerivativeGroupQuadsKHR),
            Some(_) => Some(Capability::ComputeDerivativeGroupLinearKHR),
            None => None,
        };
        let got_caps: Vec<Capability> = caps
            .into_iter()
            .filter(|c| {
                matches!(c, Capability::ComputeDerivativeGroupQuadsKHR | Capability::ComputeDerivativeGroupLinearKHR)
            })
            .collect();
        assert_eq!(got_caps, cap.into_iter().collect::<Vec<_>>(), "{what}");
    }
}

/// The interpreter's quads for quad operations: 2×2 threads for an SM 6.6 group of 8×8
/// (vkd3d-proton's `quad_swap_is_2d`), four consecutive threads for 8×9 (SM 6.6) and for
/// 8×8 before SM 6.6 (lanes, which are the flattened thread index here).
#[test]
fn interpreter_quads_follow_the_shader_model_and_the_group() {
    for (minor, threads, two_d) in [(6, [8, 8, 1], true), (6, [8, 9, 1], false), (0, [8, 8, 1], false)] {
        let what = format!("6.{minor} {threads:?}");
        let text = quad_shader(minor, threads);
        let m = untangle::front::load_bytes(text.into_bytes(), "quads.ll").expect("loads").module;
        let p = Program::new(&m).unwrap_or_else(|e| panic!("{what}: {}", e.0));
        let n = threads[0] * threads[1];
        let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
        for i in &mut ins {
            i.bytes = vec![0; 4 * n as usize];
        }
        // A wave holds whole rows of 8 threads, so that every 2×2 quad is in one wave.
        let out = untangle_testkit::difftest::reference(&p, &to_interp(&ins), 32, [1, 1, 1]).expect("runs");
        let u = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
        for f in 0..n {
            let (x, y) = (f % 8, f / 8);
            let at = |dx: u32, dy: u32| if two_d { (y ^ dy) * 8 + (x ^ dx) } else { f ^ (dx | dy << 1) };
            let lane3 = if two_d { (y | 1) * 8 + (x | 1) } else { f | 3 };
            let want = at(1, 0) | at(0, 1) << 8 | at(1, 1) << 16 | lane3 << 24;
            let v = u.mem.read(4 * i64::from(f), 4).expect("in bounds");
            assert!(v.acc.is_exact(), "{what}: thread {f} undefined");
            assert_eq!(v.bits as u32, want, "{what}: thread {f} ({x}, {y})");
        }
    }
}

/// An SM 6.7 group of 16 threads (quads of four consecutive threads: the group's Y is odd):
/// every thread but 12 votes on bit `flat` of 0x17f0 and writes `QuadAny | QuadAll << 1`.
const QUAD_VOTE: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { i8* }
%struct.RWByteAddressBuffer = type { i32 }
define void @main() {
entry:
  %u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %f = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %sh = lshr i32 6128, %f
  %b = and i32 %sh, 1
  %c = icmp ne i32 %b, 0
  %skip = icmp eq i32 %f, 12
  br i1 %skip, label %done, label %vote
vote:
  %any = call i1 @dx.op.quadVote.i1(i32 222, i1 %c, i8 0)
  %all = call i1 @dx.op.quadVote.i1(i32 222, i1 %c, i8 1)
  %za = zext i1 %any to i32
  %zl = zext i1 %all to i32
  %s = shl i32 %zl, 1
  %r = or i32 %za, %s
  %a = shl i32 %f, 2
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %u, i32 %a, i32 undef, i32 %r, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  br label %done
done:
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare i1 @dx.op.quadVote.i1(i32, i1, i8)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!5}
!0 = !{i32 1, i32 7}
!1 = !{!"cs", i32 6, i32 7}
!2 = !{null, !3, null, null}
!3 = !{!4}
!4 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!5 = !{void ()* @main, !"main", null, !2, !6}
!6 = !{i32 4, !7}
!7 = !{i32 16, i32 1, i32 1}
"#;

/// `QuadVote` in the interpreter (hand-computed): quad 0 has no true lane (0), quad 1 only
/// true ones (any and all: 3), quad 2 three of four (any: 1); in quad 3 only thread 12's
/// condition is true and thread 12 does not run, so the three that vote see none (0). The
/// shader translates to valid SPIR-V.
#[test]
fn interpreter_quad_vote_counts_the_active_lanes_of_the_quad() {
    let m = untangle::front::load_bytes(QUAD_VOTE.as_bytes().to_vec(), "quad_vote.ll").expect("loads").module;
    let p = Program::new(&m).unwrap_or_else(|e| panic!("{}", e.0));
    let mut ins = inputs(&p.info.resources, 1, Budget::default()).expect("inputs");
    for i in &mut ins {
        i.bytes = vec![0; 64];
    }
    for wave in [4, 16, 32] {
        let out = untangle_testkit::difftest::reference(&p, &to_interp(&ins), wave, [1, 1, 1]).expect("runs");
        let u = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
        let want = [0, 0, 0, 0, 3, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0];
        for (f, &w) in want.iter().enumerate() {
            let v = u.mem.read(4 * f as i64, 4).expect("in bounds");
            assert!(v.acc.is_exact(), "wave {wave}: thread {f} undefined");
            assert_eq!(v.bits as u32, w, "wave {wave}: thread {f}");
        }
    }
    let t = translate(QUAD_VOTE.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("translates: {e}"));
    validate(&t.words, "quad vote");
}
