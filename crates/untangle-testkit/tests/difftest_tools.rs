//! The differential harness's own tools, without a device: the reducer keeps its predicate
//! and leaves valid modules, the sabotages patch what they say and keep the module valid,
//! unbounded ranges get the size the harness binds, and the interpreter's fast-math rule.

use untangle::ir::{BinaryOp, InstKind, Module};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::difftest::inputs::{bound_elements, bound_unbounded_ranges, Budget};
use untangle_testkit::difftest::reduce::reduce;
use untangle_testkit::difftest::sabotage::Sabotage;
use untangle_testkit::fuzzing::shader_gen::generate;
use untangle_testkit::interp::float::{arith_fast, Fk};
use untangle_testkit::interp::value::{Acc, Scalar};

fn has_udiv(m: &Module) -> bool {
    m.defined_functions().any(|(_, f)| {
        f.layout
            .iter()
            .flat_map(|&b| &f.blocks[b].insts)
            .any(|&i| matches!(f.insts[i].kind, InstKind::Binary { op: BinaryOp::UDiv, .. }))
    })
}

fn translates(m: &Module) -> Option<Vec<u32>> {
    untangle::translate_module(m, &Default::default()).ok().map(|t| t.words)
}

#[test]
fn reducer_keeps_the_predicate_and_shrinks() {
    let m = (0..50).map(generate).find(has_udiv).expect("a generated program with a udiv");
    let keep = |c: &Module| has_udiv(c) && translates(c).is_some();
    let (r, stats) = reduce(&m, keep, 3000);
    assert!(keep(&r));
    assert!(stats.insts_after < stats.insts_before / 5, "{stats:?}");
    assert!(stats.insts_after <= 20, "{stats:?}");
    if let Some(val) = find_spirv_val() {
        val.validate(&translates(&r).expect("translates"), "vulkan1.3").expect("the reduced module validates");
    }
}

#[test]
fn sabotages_patch_the_module_and_keep_it_valid() {
    let val = find_spirv_val();
    for sabotage in Sabotage::ALL {
        let mut patched = 0;
        for seed in 0..10 {
            let words = translates(&generate(seed)).expect("translates");
            let mut broken = words.clone();
            if !sabotage.apply(&mut broken) {
                continue;
            }
            patched += 1;
            assert_eq!(words.len(), broken.len());
            if let Some(v) = &val {
                v.validate(&broken, "vulkan1.3").unwrap_or_else(|e| panic!("{} on gen-{seed}: {e}", sabotage.name()));
            }
        }
        assert!(patched >= 5, "{}: {patched} of 10 programs patched", sabotage.name());
    }
}

#[test]
fn unbounded_ranges_get_the_bound_size() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/dxil/vkd3d-proton/pso.descriptor_range_validation.cs_6_0.dxil");
    let mut m = untangle::front::load_path(&path).expect("corpus shader").module;
    let budget = Budget::default();
    assert_eq!(bound_unbounded_ranges(&mut m, budget), 1);
    let info = untangle::dxil::analyze(&m).expect("dxil");
    // Two ranges of storage buffers: [2] and the formerly unbounded one, which gets the rest
    // of lavapipe's 32.
    assert_eq!(info.resources.iter().map(|r| r.range_size).collect::<Vec<_>>(), vec![Some(2), Some(30)]);
    assert_eq!(bound_elements(&info.resources, budget), vec![2, 30]);
    assert_eq!(bound_unbounded_ranges(&mut m, budget), 0);
}

#[test]
fn fast_math_consumers_of_rounded_values_are_open() {
    let f = |x: f32| Scalar::exact(x.to_bits() as u64);
    // 2^24 + 1 rounds: the sum is exact bits, marked rounded.
    let big = arith_fast(f(16_777_216.0), f(1.0), Fk::F, '+', true);
    assert_eq!(big.acc, Acc::ROUNDED);
    assert_eq!(f32::from_bits(big.bits as u32), 16_777_216.0);
    // A fast operation reading it may be reassociated ((2^24 + 1) - 2^24 → 1): open.
    assert!(arith_fast(big, f(16_777_216.0), Fk::F, '-', true).acc.is_any());
    // A precise one may not: exact 0.
    let precise = arith_fast(big, f(16_777_216.0), Fk::F, '-', false);
    assert!(precise.acc.is_exact() && precise.bits == 0);
    // Exact arithmetic stays exact and unmarked.
    assert_eq!(arith_fast(f(1.5), f(2.25), Fk::F, '*', true).acc, Acc::EXACT);
}

/// Compute-shader derivatives (SM 6.6) in the interpreter: the three vkd3d-proton shaders
/// put each thread's texture coordinate at `(column, row) / 32` of its quad's 2×2 layout,
/// 1D (`numthreads(64, 1, 1)` and `(8, 9, 1)`: four consecutive threads) or 2D (`(8, 8,
/// 1)`), and store `ddx_fine(u)`, `ddy_fine(v)` in the G and B channels of the texel they
/// address: 1/32 in every texel (vkd3d-proton's expectation). The unclamped LOD in A is
/// open; R is the point sample of level 0.
#[test]
fn compute_derivatives_are_the_quads_differences() {
    use untangle::dxil::ResourceClass;
    use untangle_testkit::difftest::inputs::{inputs, to_interp};
    use untangle_testkit::interp::{Program, ResKind};
    for name in ["cs_derivative_1d", "cs_derivative_2d_aligned", "cs_derivative_2d_unaligned"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../../shared/corpus/dxil/vkd3d-proton/sm_advanced.{name}.cs_6_6.dxil"));
        let m = untangle::front::load_path(&path).expect("corpus shader").module;
        let p = Program::new(&m).unwrap_or_else(|e| panic!("{name}: {}", e.0));
        let ins = inputs(&p.info.resources, 3, Budget::default()).expect("inputs");
        let before = to_interp(&ins);
        let out = untangle_testkit::difftest::reference(&p, &before, 32, [1, 1, 1]).expect("runs");
        let uav = out.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
        let initial = before.list.iter().find(|r| r.class == ResourceClass::Uav).expect("u0");
        let ResKind::Texture { extent, .. } = uav.kind else { panic!("{name}: u0 is a texture") };
        let mut written = 0;
        for y in 0..u64::from(extent[1]) {
            for x in 0..u64::from(extent[0]) {
                let c = uav.load_typed([x, y, 0]).comps;
                if c == initial.load_typed([x, y, 0]).comps {
                    continue;
                }
                written += 1;
                for k in [1, 2] {
                    assert!(c[k].acc.is_exact(), "{name} ({x}, {y}) channel {k}: {:?}", c[k]);
                    assert_eq!(f32::from_bits(c[k].bits as u32), 1.0 / 32.0, "{name} ({x}, {y}) channel {k}");
                }
                assert!(c[3].acc.is_any(), "{name}: the unclamped LOD is open");
            }
        }
        // The harness's texture is smaller than the 16 × 4 or 8 × 8 texels the threads
        // address: writes past it are dropped.
        assert!(written >= 16, "{name}: {written} texels written");
    }
}
