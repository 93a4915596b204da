//! The scaling benchmark's shapes (`fuzzing::shape_text`, BENCHMARKS.md "Scaling") at two
//! sizes, eight times apart: what the translator *produces* must grow linearly with the
//! input, and the larger output must still be valid.
//!
//! This is the structural half of the linear-cost requirement, checked without timing (the
//! times and their fitted exponents are in BENCHMARKS.md): a pass that adds blocks, PHI
//! inputs, edge definitions or SPIR-V words per block in proportion to the function's size
//! (a ladder rung per pair of loops, a PHI per variable per block on a long walk) fails
//! here. Per shape and size: blocks of the structurized graph, PHIs and their inputs, edge
//! definitions, and the words of the shape module and of the full DXIL translation of the
//! same function wrapped as a compute shader. The larger graph also passes the structured
//! checker, and its modules pass spirv-val (the loop nest's smaller ones: see below).
//!
//! `Shape::Random` is left out: a random function of 8n blocks is not eight random functions
//! of n blocks (its loops nest deeper and break to more targets), so its output is not
//! expected to be proportional; the benchmark reports it.

use untangle::emit::shape::emit_shape_module;
use untangle::passes::{structurize, Options};
use untangle_testkit::check::spirv_val::{find_spirv_val, SpirvVal};
use untangle_testkit::check::structured::check_structured;
use untangle_testkit::fuzzing::shape_text::{as_compute_shader, Shape};

/// Blocks of the two sizes.
const SMALL: usize = 200;
const LARGE: usize = 1600;

/// What one function's translation produced.
#[derive(Debug, Clone, Copy)]
struct Output {
    input_blocks: usize,
    structurized_blocks: usize,
    phis: usize,
    phi_inputs: usize,
    edge_definitions: usize,
    shape_words: usize,
    translation_words: usize,
}

impl Output {
    fn measures(&self) -> [(&'static str, usize); 6] {
        [
            ("structurized blocks", self.structurized_blocks),
            ("PHIs", self.phis),
            ("PHI inputs", self.phi_inputs),
            ("edge definitions", self.edge_definitions),
            ("shape module words", self.shape_words),
            ("translation words", self.translation_words),
        ]
    }
}

fn translate(shape: Shape, blocks: usize, validate: Option<&SpirvVal>) -> Output {
    let text = shape.text(shape.count_for_blocks(blocks));
    let loaded = untangle::front::load_bytes(text.clone().into_bytes(), "shape.ll").expect("shape text parses");
    let (_, func) = loaded.module.defined_functions().next().expect("one function");
    let structured = structurize(func, Options::default()).expect("structurizes");
    let scfg = &structured.scfg;
    if let Err(v) = check_structured(scfg) {
        panic!("{} ({} blocks): structured checker: {v:?}", shape.name(), func.layout.len());
    }
    let words = emit_shape_module(&loaded.module, &[(func, &structured)]).expect("shape module");
    if let Some(val) = validate {
        if let Err(e) = val.validate(&words, "vulkan1.1") {
            panic!("{} ({} blocks): shape module fails spirv-val: {e}", shape.name(), func.layout.len());
        }
    }
    let shader = as_compute_shader(&text).expect("compute-shader form");
    let shader = untangle::front::load_bytes(shader.into_bytes(), "shader.ll").expect("shader text parses");
    let translation = untangle::translate_module(&shader.module, &untangle::Options::default()).expect("translates");
    if let Some(val) = validate {
        if let Err(e) = val.validate(&translation.words, "vulkan1.3") {
            panic!("{} ({} blocks): translation fails spirv-val: {e}", shape.name(), func.layout.len());
        }
    }
    let blocks_of = |b| &scfg.blocks[b];
    Output {
        input_blocks: func.layout.len(),
        structurized_blocks: scfg.layout.len(),
        phis: structured.stats.phis,
        phi_inputs: scfg
            .layout
            .iter()
            .map(|&b| blocks_of(b).phis.iter().map(|p| p.incoming.len()).sum::<usize>())
            .sum(),
        edge_definitions: scfg.layout.iter().map(|&b| blocks_of(b).edge_defs.len()).sum(),
        shape_words: words.len(),
        translation_words: translation.words.len(),
    }
}

#[test]
fn output_grows_linearly_on_every_shape() {
    let val = find_spirv_val();
    if val.is_none() {
        eprintln!("spirv-val not found: the large shape modules are not validated");
    }
    for shape in [Shape::Diamonds, Shape::Loops, Shape::Switch, Shape::Unrolled] {
        // spirv-val's time grows with the square of the nesting depth (minutes at 800 loops
        // deep): the loop nest is validated at the small size.
        let (val_small, val_large) = if shape == Shape::Loops { (val.as_ref(), None) } else { (None, val.as_ref()) };
        let small = translate(shape, SMALL, val_small);
        let large = translate(shape, LARGE, val_large);
        let growth = large.input_blocks as f64 / small.input_blocks as f64;
        assert!(growth > 6.0, "{}: sizes {} and {} blocks", shape.name(), small.input_blocks, large.input_blocks);
        for ((what, s), (_, l)) in small.measures().into_iter().zip(large.measures()) {
            // Linear: at most 10% more per input block than at the small size, plus a
            // constant (the module's fixed header, types and entry point).
            let bound = (s as f64 * growth * 1.1) as usize + 256;
            assert!(
                l <= bound,
                "{}: {what} grew from {s} to {l} while the input grew {growth:.1}× ({} → {} blocks): \
                 superlinear output",
                shape.name(),
                small.input_blocks,
                large.input_blocks
            );
        }
    }
}
