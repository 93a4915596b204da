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
    untangle::emit::translate::translate_module(m, &Default::default()).ok().map(|t| t.words)
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
    let mut m = untangle::load::load_path(&path).expect("corpus shader").module;
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
