//! Derivative hoisting (`untangle::rewrite::derivative_hoisting`): explicit derivatives after
//! an early return move to the nearest quad-uniform block that dominates them, with their
//! speculatable operands; derivatives whose operand cannot move (a PHI), and derivatives
//! already in uniform control flow, stay. Checked on the IR, then on the SPIR-V, which must
//! validate; the vkd3d-proton shader whose NVIDIA run showed the problem is checked too.

use rspirv::spirv::Op;
use untangle::ir::{BlockId, Function};
use untangle::rewrite::derivative_hoisting;
use untangle_testkit::check::spirv_val::find_spirv_val;

/// A pixel shader: `entry` branches on `v` around `side` and reconverges at `mid`, which
/// every invocation runs; `mid` returns early for `u < 0.5`; `shade` takes `ddx_fine(u * 2)`
/// (the product computed in `shade`), `ddy_coarse(m)` (`m` computed in `mid`), then
/// `ddx_coarse` of a PHI in `join`; `done` (uniform again) takes `ddy_fine(v)`.
const SHADER: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
entry:
  %u = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %v = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %low = fcmp fast olt float %v, 2.500000e-01
  br i1 %low, label %side, label %mid
side:
  %sv = fmul fast float %v, 3.000000e+00
  br label %mid
mid:
  %m = fadd fast float %u, %v
  %skip = fcmp fast olt float %u, 5.000000e-01
  br i1 %skip, label %done, label %shade
shade:
  %su = fmul fast float %u, 2.000000e+00
  %dx = call float @dx.op.unary.f32(i32 85, float %su)
  %dy = call float @dx.op.unary.f32(i32 84, float %m)
  %left = fcmp fast olt float %v, 5.000000e-01
  br i1 %left, label %a, label %b
a:
  br label %join
b:
  %w = fadd fast float %v, 1.000000e+00
  br label %join
join:
  %p = phi float [ %u, %a ], [ %w, %b ]
  %dp = call float @dx.op.unary.f32(i32 83, float %p)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %dx)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %dy)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %dp)
  br label %done
done:
  %dd = call float @dx.op.unary.f32(i32 86, float %v)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %dd)
  ret void
}

declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare float @dx.op.unary.f32(i32, float)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"ps", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{!5, !9, null}
!5 = !{!6}
!6 = !{i32 0, !"TEXCOORD", i8 9, i8 0, !7, i8 2, i32 1, i8 2, i32 0, i8 0, !8}
!7 = !{i32 0}
!8 = !{i32 3, i32 3}
!9 = !{!10}
!10 = !{i32 0, !"SV_Target", i8 9, i8 16, !7, i8 0, i32 1, i8 4, i32 0, i8 0, !11}
!11 = !{i32 3, i32 15}
"#;

fn main_function(m: &untangle::ir::Module) -> &Function {
    m.functions.values().find(|f| f.name == "main").expect("main")
}

/// The names of `block`'s instructions, in order.
fn names(f: &Function, block: BlockId) -> Vec<&str> {
    f.blocks[block].insts.iter().map(|&i| f.insts[i].name.as_deref().unwrap_or("")).collect()
}

#[test]
fn derivatives_after_an_early_return_move_to_the_nearest_uniform_dominator() {
    let loaded = untangle::front::load_bytes(SHADER.as_bytes().to_vec(), "hoist.ll").expect("loads");
    let f = main_function(&loaded.module);
    let h = derivative_hoisting::run(&loaded.module, f).expect("something moves");
    assert_eq!((h.derivatives, h.operands), (2, 1));
    let g = &h.function;
    let block = |name: &str| g.block_by_name(name).expect(name);
    // `mid` (every invocation runs it) is the target, not `entry`: `%m` is defined there.
    // The product moves with its derivative, before it.
    assert_eq!(names(g, block("mid")), ["m", "skip", "su", "dx", "dy"]);
    assert_eq!(names(g, block("shade")), ["left"]);
    // A PHI cannot move, so its derivative stays; `done` is uniform already.
    assert_eq!(names(g, block("join")), ["p", "dp", "", "", ""]);
    assert_eq!(names(g, block("done")), ["dd", ""]);
    // Nothing else changed: same blocks, terminators and instructions.
    assert_eq!(g.layout, f.layout);
    assert_eq!(g.insts, f.insts);
    for &b in &f.layout {
        assert_eq!(g.blocks[b].terminator, f.blocks[b].terminator);
    }
}

#[test]
fn uniform_derivatives_leave_the_function_alone() {
    let uniform = SHADER
        .replace("br i1 %skip, label %done, label %shade", "br label %shade")
        .replace("  %left = fcmp fast olt float %v, 5.000000e-01\n  br i1 %left, label %a, label %b", "  br label %b");
    let uniform = uniform.replace("a:\n  br label %join\n", "").replace("[ %u, %a ], ", "");
    let loaded = untangle::front::load_bytes(uniform.into_bytes(), "uniform.ll").expect("loads");
    let f = main_function(&loaded.module);
    assert!(derivative_hoisting::run(&loaded.module, f).is_none(), "every derivative is in uniform control flow");
}

/// The SPIR-V blocks (label ids) holding each of `ops`, and whether that block ends in a
/// conditional branch.
fn blocks_of(words: &[u32], op: Op) -> Vec<(u32, bool)> {
    let m = rspirv::dr::load_words(words).expect("parses");
    let f = &m.functions[0];
    f.blocks
        .iter()
        .filter(|b| b.instructions.iter().any(|i| i.class.opcode == op))
        .map(|b| {
            let conditional = b.instructions.last().is_some_and(|i| i.class.opcode == Op::BranchConditional);
            (b.label_id().unwrap_or(0), conditional)
        })
        .collect()
}

fn validate(words: &[u32]) {
    if let Some(v) = find_spirv_val() {
        v.validate(words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(words).unwrap_or_default()));
    }
}

#[test]
fn hoisted_derivatives_sit_before_the_early_return_in_spirv() {
    let t = untangle::translate(SHADER.as_bytes(), &untangle::Options::default()).expect("translates");
    validate(&t.words);
    let fine_x = blocks_of(&t.words, Op::DPdxFine);
    let coarse_y = blocks_of(&t.words, Op::DPdyCoarse);
    let coarse_x = blocks_of(&t.words, Op::DPdxCoarse);
    assert_eq!(fine_x.len(), 1);
    assert_eq!(fine_x, coarse_y, "both hoisted derivatives are in one block");
    assert!(fine_x[0].1, "that block branches around the early return");
    assert_eq!(coarse_x.len(), 1);
    assert_ne!(coarse_x[0].0, fine_x[0].0, "the PHI's derivative stays in its block");
}

/// The shader of vkd3d-proton's derivative-hoisting test: `ddx_fine(uv.x)` and
/// `ddy_fine(uv.y)` after an early return move to the first block; the
/// `ddx_coarse`/`ddy_coarse` of a constant-buffer read in the branch, which hoisting cannot
/// move, are no derivatives at all (`untangle::rewrite::uniform_derivatives`): subtractions
/// of the value from itself, in the branch.
#[test]
fn vkd3d_proton_derivative_hoisting_shader() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/dxil/vkd3d-proton/shaders.ps_derivative_hoisting.ps_6_0.dxil"
    );
    let Ok(bytes) = std::fs::read(path) else {
        assert!(std::env::var_os("CI").is_none(), "{path} is missing under CI");
        eprintln!("{path} not found: skipping");
        return;
    };
    let t = untangle::translate(&bytes, &untangle::Options::default()).expect("translates");
    validate(&t.words);
    let fine_x = blocks_of(&t.words, Op::DPdxFine);
    assert_eq!(fine_x.len(), 1);
    assert_eq!(fine_x, blocks_of(&t.words, Op::DPdyFine));
    assert!(fine_x[0].1, "the fine derivatives are computed before the early return's branch");
    assert!(blocks_of(&t.words, Op::DPdxCoarse).is_empty() && blocks_of(&t.words, Op::DPdyCoarse).is_empty());
    let m = rspirv::dr::load_words(&t.words).expect("parses");
    let self_subtractions = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::FSub && i.operands.first() == i.operands.get(1))
        .count();
    assert_eq!(self_subtractions, 2, "the coarse derivatives of a constant-buffer read are x - x");
}
