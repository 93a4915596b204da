//! Derivatives of draw-uniform values (`untangle::rewrite::uniform_derivatives`): an explicit
//! derivative of a constant, of a constant-buffer value read at a uniform address, of math
//! and selects on such values, or of another such derivative becomes `fsub x, x`; one of an
//! input, of a constant-buffer read at a varying address, of `undef` or of a PHI stays a
//! derivative. Checked on the IR, then on the SPIR-V (which must validate), for a pixel and
//! a compute shader; the vkd3d-proton shader whose coarse derivatives of constant-buffer
//! values motivated the pass is checked in `derivative_hoisting.rs`. What the folded
//! derivatives compute on a device: the graphics runner's `vs_ps_derivatives` case (lavapipe
//! in CI, the H200), and vkd3d-proton's `test_derivative_hoisting_dxil`.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op};
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};
use untangle::ir::{BinaryOp, Function, InstKind};
use untangle::rewrite::uniform_derivatives;
use untangle::MinPrecision;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{El, Res, Shell};

/// The derivatives, by result name, and whether each must become a subtraction.
const CASES: &[(&str, bool)] = &[
    ("d_const", true),
    ("d_cb", true),
    ("d_math", true),
    ("d_select", true),
    ("d_of_d", true),
    ("d_heap", true),
    ("d_input", false),
    ("d_varying_row", false),
    ("d_undef", false),
    ("d_phi", false),
    ("d_varying_select", false),
];

/// `input` defines the float `%u` and the integer `%row` from the invocation's input;
/// `entry` reads the constant buffer at row 1 (uniform) and at `%row` (varying), branches
/// on `%u` to `a` or `b`, and `join` takes every derivative of [`CASES`] and stores their
/// sum. `derivative` is the `dx.op` for all of them (83–86).
fn body(derivative: u32, input: &str) -> String {
    format!(
        r#"{input}
  %r1 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %cb, i32 1)
  %x = extractvalue %dx.types.CBufRet.f32 %r1, 0
  %y = extractvalue %dx.types.CBufRet.f32 %r1, 1
  %rv = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %cb, i32 %row)
  %xv = extractvalue %dx.types.CBufRet.f32 %rv, 2
  %hb = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind {{ i32 1, i32 1, i32 0, i8 2 }}, i32 1, i1 false)
  %ha = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %hb, %dx.types.ResourceProperties {{ i32 13, i32 64 }})
  %rh = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %ha, i32 0)
  %xh = extractvalue %dx.types.CBufRet.f32 %rh, 3
  %s = call float @dx.op.unary.f32(i32 13, float %x)
  %m = fmul fast float %s, 3.000000e+00
  %pos = fcmp fast ogt float %y, 0.000000e+00
  %sel = select i1 %pos, float %m, float 1.000000e+00
  %vpos = fcmp fast ogt float %u, 0.000000e+00
  %vsel = select i1 %vpos, float %x, float %y
  %split = fcmp fast olt float %u, 5.000000e-01
  br i1 %split, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %p = phi float [ %x, %a ], [ %y, %b ]
  %d_const = call float @dx.op.unary.f32(i32 {derivative}, float 2.000000e+00)
  %d_cb = call float @dx.op.unary.f32(i32 {derivative}, float %x)
  %d_math = call float @dx.op.unary.f32(i32 {derivative}, float %m)
  %d_select = call float @dx.op.unary.f32(i32 {derivative}, float %sel)
  %d_of_d = call float @dx.op.unary.f32(i32 {derivative}, float %d_cb)
  %d_heap = call float @dx.op.unary.f32(i32 {derivative}, float %xh)
  %d_input = call float @dx.op.unary.f32(i32 {derivative}, float %u)
  %d_varying_row = call float @dx.op.unary.f32(i32 {derivative}, float %xv)
  %d_undef = call float @dx.op.unary.f32(i32 {derivative}, float undef)
  %d_phi = call float @dx.op.unary.f32(i32 {derivative}, float %p)
  %d_varying_select = call float @dx.op.unary.f32(i32 {derivative}, float %vsel)
  %t1 = fadd fast float %d_const, %d_cb
  %t2 = fadd fast float %t1, %d_math
  %t3 = fadd fast float %t2, %d_select
  %t4 = fadd fast float %t3, %d_of_d
  %t5 = fadd fast float %t4, %d_heap
  %t6 = fadd fast float %t5, %d_input
  %t7 = fadd fast float %t6, %d_varying_row
  %t8 = fadd fast float %t7, %d_undef
  %t9 = fadd fast float %t8, %d_phi
  %t10 = fadd fast float %t9, %d_varying_select
  %bits = bitcast float %t10 to i32
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 0, i32 undef, i32 %bits, i32 %bits, i32 %bits, i32 %bits, i8 1)
  ret void"#
    )
}

const DECLS: &str = "declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare i32 @dx.op.threadId.i32(i32, i32)
declare float @dx.op.unary.f32(i32, float)
declare %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32, %dx.types.Handle, i32)
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1)
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)";

fn cbuffers() -> Vec<Res> {
    vec![
        Res::new("cb", ResourceClass::Cbv, ResourceKind::CBuffer, 0).extra(256),
        Res::new("cb1", ResourceClass::Cbv, ResourceKind::CBuffer, 1).extra(64),
    ]
}

/// A pixel shader: the input is `TEXCOORD.x`, interpolated linearly.
fn pixel(derivative: u32) -> String {
    let mut shell = Shell::new("ps");
    shell.resources = cbuffers();
    shell.inputs = vec![El {
        name: "TEXCOORD",
        component: ComponentType::F32,
        system_value: 0,
        interpolation: 2,
        rows: 1,
        cols: 2,
        start: Some((0, 0)),
    }];
    let input = "  %u = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %row = fptoui float %u to i32";
    shell.module(&body(derivative, input), DECLS)
}

/// A compute shader with derivatives (SM 6.6): the input is the thread id.
fn compute(derivative: u32) -> String {
    let mut shell = Shell::new("cs");
    shell.resources = cbuffers();
    shell.threads = [8, 8, 1];
    let input = "  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %u = uitofp i32 %tid to float
  %row = and i32 %tid, 7";
    shell.module(&body(derivative, input), DECLS)
}

fn main_function(m: &untangle::ir::Module) -> &Function {
    m.functions.values().find(|f| f.name == "main").expect("main")
}

/// Checks the IR rewrite of `text`: the derivatives [`CASES`] marks become `fsub x, x` of
/// their own operand, the others are untouched, and nothing else changed.
fn check_ir(text: &str, what: &str) {
    let loaded = untangle::front::load_bytes(text.as_bytes().to_vec(), "uniform.ll").expect(what);
    let f = main_function(&loaded.module);
    let folded = uniform_derivatives::run(&loaded.module, f).unwrap_or_else(|| panic!("{what}: nothing folded"));
    let g = &folded.function;
    assert_eq!(folded.derivatives, CASES.iter().filter(|c| c.1).count(), "{what}");
    for &(name, fold) in CASES {
        let i = f.insts.iter().find(|(_, inst)| inst.name.as_deref() == Some(name)).map(|(i, _)| i).expect(name);
        let InstKind::Call { args, .. } = &f.insts[i].kind else { panic!("{what}: {name} is a call") };
        let operand = args[1];
        if fold {
            assert_eq!(
                g.insts[i].kind,
                InstKind::Binary { op: BinaryOp::FSub, lhs: operand, rhs: operand, fast: true },
                "{what}: {name} becomes x - x"
            );
        } else {
            assert_eq!(g.insts[i].kind, f.insts[i].kind, "{what}: {name} stays a derivative");
        }
        assert_eq!(g.insts[i].ty, f.insts[i].ty);
    }
    // Only the folded derivatives changed: same blocks, layout and other instructions.
    assert_eq!(g.layout, f.layout);
    for &b in &f.layout {
        assert_eq!(g.blocks[b].insts, f.blocks[b].insts);
        assert_eq!(g.blocks[b].terminator, f.blocks[b].terminator);
    }
    let changed = f.insts.iter().filter(|&(i, inst)| g.insts[i] != *inst).count();
    assert_eq!(changed, folded.derivatives, "{what}");
}

/// Translates `text`, validates it, and counts its derivative instructions.
fn spirv_derivatives(text: &str, what: &str) -> usize {
    spirv_derivatives_with(text, &untangle::Options::default(), what).0
}

/// [`spirv_derivatives`] with `options`, and the module.
fn spirv_derivatives_with(text: &str, options: &untangle::Options, what: &str) -> (usize, rspirv::dr::Module) {
    let t = untangle::translate(text.as_bytes(), options).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
    let m = rspirv::dr::load_words(&t.words).expect("parses");
    let count = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::DPdx | Op::DPdy | Op::DPdxCoarse | Op::DPdyCoarse | Op::DPdxFine | Op::DPdyFine | Op::Fwidth
            )
        })
        .count();
    (count, m)
}

#[test]
fn derivatives_of_uniform_values_become_subtractions_in_pixel_shaders() {
    for derivative in 83..=86 {
        check_ir(&pixel(derivative), &format!("ps, op {derivative}"));
    }
}

#[test]
fn derivatives_of_uniform_values_become_subtractions_in_compute_shaders() {
    for derivative in 83..=86 {
        check_ir(&compute(derivative), &format!("cs, op {derivative}"));
    }
}

#[test]
fn only_the_varying_derivatives_reach_spirv() {
    let varying = CASES.iter().filter(|c| !c.1).count();
    for derivative in 83..=86 {
        assert_eq!(spirv_derivatives(&pixel(derivative), "ps"), varying, "ps, op {derivative}");
        assert_eq!(spirv_derivatives(&compute(derivative), "cs"), varying, "cs, op {derivative}");
    }
}

#[test]
fn a_function_without_uniform_derivatives_is_left_alone() {
    let mut text = pixel(83);
    for &(name, fold) in CASES {
        if fold {
            // Point the uniform cases at the input instead.
            let start = text.find(&format!("%{name} = call")).expect(name);
            let end = start + text[start..].find('\n').expect("line end");
            text.replace_range(start..end, &format!("%{name} = call float @dx.op.unary.f32(i32 83, float %u)"));
        }
    }
    let loaded = untangle::front::load_bytes(text.into_bytes(), "varying.ll").expect("loads");
    assert!(uniform_derivatives::run(&loaded.module, main_function(&loaded.module)).is_none());
}

/// A `half` derivative of a constant-buffer value folds too, and the subtraction has the
/// derivative's type whether `half` is 32-bit in the module (minimum precision translated
/// with `MinPrecision::Float32`) or 16-bit (the default, or shader flag
/// `UseNativeLowPrecision`): the module validates each way, without a derivative.
#[test]
fn half_derivatives_fold_at_either_precision() {
    let body = "  %r1 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %cb, i32 1)
  %x = extractvalue %dx.types.CBufRet.f32 %r1, 0
  %h = fptrunc float %x to half
  %d = call half @dx.op.unary.f16(i32 84, half %h)
  %e = fpext half %d to float
  %bits = bitcast float %e to i32
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 0, i32 undef, i32 %bits, i32 %bits, i32 %bits, i32 %bits, i8 1)
  ret void";
    let decls = format!("{DECLS}\ndeclare half @dx.op.unary.f16(i32, half)");
    for (precision, flags, float16) in [
        (MinPrecision::Float32, 0, false),
        (MinPrecision::Float32, 1 << 23, true),
        (MinPrecision::Native16Bit, 0, true),
    ] {
        let mut shell = Shell::new("ps");
        shell.resources = cbuffers();
        shell.shader_flags = flags;
        let text = shell.module(body, &decls);
        let what = format!("{precision:?}, shader flags {flags:#x}");
        let loaded = untangle::front::load_bytes(text.as_bytes().to_vec(), "half.ll").expect("loads");
        let folded = uniform_derivatives::run(&loaded.module, main_function(&loaded.module)).expect("folds");
        assert_eq!(folded.derivatives, 1, "{what}");
        let options = untangle::Options { min_precision: precision, ..Default::default() };
        let (count, m) = spirv_derivatives_with(&text, &options, &what);
        assert_eq!(count, 0, "{what}");
        let declares = m.capabilities.iter().any(|c| c.operands == [Operand::Capability(Capability::Float16)]);
        assert_eq!(declares, float16, "{what}: whether half is 16-bit");
    }
}
