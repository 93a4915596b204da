//! Malformed DXIL never panics the translator and never becomes an invalid module: seeded
//! mutants of the vkd3d-proton corpus (container bytes, instruction operands, metadata
//! values; see `untangle_testkit::fuzzing::translate`) go through the whole translate path,
//! and every module that comes out must pass `spirv-val --target-env vulkan1.3`.
//! `UNTANGLE_TRANSLATE_MUTATIONS` sets the number of cases (default 10,000);
//! `examples/translate_mutations.rs` is the long, parallel run.

use std::path::Path;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::translate::{run_case, Seeds, Tally};

/// Cases past the default count that the long run found, kept so they stay fixed:
/// 33008, a resource record whose symbol is a groupshared variable (became an internal
/// error in emission; now a DXIL metadata error); 43817, an `i1` element of a built-in
/// that also has a varying copy (`SV_ShadingRate` out of a vertex shader: the
/// copy was a boolean `Location` variable, which spirv-val rejects).
const FOUND: [u64; 2] = [33_008, 43_817];

#[test]
fn mutants_translate_to_valid_modules_or_typed_errors() {
    let count: u64 = std::env::var("UNTANGLE_TRANSLATE_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let seeds = Seeds::load(&dir);
    if seeds.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", dir.display());
        eprintln!("{} not found: skipping", dir.display());
        return;
    }
    let val = find_spirv_val();
    if val.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let mut tally = Tally::default();
    for i in (0..count).chain(FOUND) {
        let (outcome, took) = run_case(&seeds, i, val.as_ref());
        tally.add(i, outcome, took);
    }
    eprintln!(
        "{} mutants: {} rejected before translation, {} typed translation errors {:?}, {} valid modules; slowest case {} ({:?})",
        tally.cases,
        tally.rejected,
        tally.refused_total(),
        tally.refused,
        tally.valid,
        tally.slowest.0,
        tally.slowest.1
    );
    assert!(tally.panics.is_empty(), "panics: {:?}", tally.panics);
    assert!(tally.invalid.is_empty(), "invalid modules (case, spirv-val):\n{:#?}", tally.invalid);
    assert!(tally.internal.is_empty(), "internal errors (case, message):\n{:#?}", tally.internal);
    assert!(tally.refused_total() > count / 10, "the mutations must reach the translator and break things");
    assert!(tally.valid > count / 10, "many mutants must still translate");
}
