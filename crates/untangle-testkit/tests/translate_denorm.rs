//! The 32-bit denormal mode DXC's `-denorm` gives an entry (`"fp32-denorm-mode"`), on
//! vkd3d-proton's `test_denorm_behavior_dxil` shaders (`../shared/corpus`; skipped without
//! it outside CI): `ftz` declares `DenormFlushToZero 32`, `preserve` declares
//! `DenormPreserve 32`, `any` neither; no mode for 16- or 64-bit floats.

use std::path::Path;
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// `(DenormFlushToZero, DenormPreserve)` execution modes, as their widths.
fn modes(name: &str) -> Option<(Vec<u32>, Vec<u32>)> {
    let path = Path::new(DIR).join(name);
    if !path.is_file() {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", path.display());
        return None;
    }
    let t = untangle::translate(&std::fs::read(&path).unwrap(), &untangle::Options::default()).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let m = rspirv::dr::load_words(&t.words).expect("loads");
    let widths = |mode: rspirv::spirv::ExecutionMode| -> Vec<u32> {
        m.execution_modes
            .iter()
            .filter(|i| i.operands.get(1) == Some(&rspirv::dr::Operand::ExecutionMode(mode)))
            .filter_map(|i| match i.operands.get(2) {
                Some(rspirv::dr::Operand::LiteralBit32(w)) => Some(*w),
                _ => None,
            })
            .collect()
    };
    Some((
        widths(rspirv::spirv::ExecutionMode::DenormFlushToZero),
        widths(rspirv::spirv::ExecutionMode::DenormPreserve),
    ))
}

#[test]
fn fp32_denorm_mode_follows_the_entry_attribute() {
    let cases = [
        ("sm_advanced.cs_denorm_fp64_fp32_ftz.cs_6_2.dxil", (vec![32], vec![])),
        ("sm_advanced.cs_denorm_fp16_fp64_fp32_preserve.cs_6_2.dxil", (vec![], vec![32])),
        ("sm_advanced.cs_denorm_fp16_fp32_ftz.cs_6_2.dxil", (vec![32], vec![])),
        ("sm_advanced.cs_denorm_fp64_fp32_any.cs_6_2.dxil", (vec![], vec![])),
    ];
    for (name, expected) in cases {
        if let Some(got) = modes(name) {
            assert_eq!(got, expected, "{name}");
        }
    }
}
