//! `Options::ray_traversal_primitive_culling`: a `TraceRay` whose flags are not a constant
//! declares `RayTraversalPrimitiveCullingKHR` when the device has the feature (Vulkan
//! requires it before a driver honours `SKIP_TRIANGLES`/`SKIP_PROCEDURAL_PRIMITIVES`), and
//! never without it. On vkd3d-proton's `rt.default` ray-generation shader (the flags of
//! `test_raytracing`'s skip variants come from a constant buffer; `../shared/corpus`,
//! skipped without it outside CI).

use std::path::Path;
use untangle_testkit::check::spirv_val::find_spirv_val;

const FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton/rt.default.lib_6_3.dxil");

fn culling_declared(on: bool) -> Option<bool> {
    let path = Path::new(FILE);
    if !path.is_file() {
        assert!(std::env::var_os("CI").is_none(), "{FILE} is required under CI");
        return None;
    }
    let shader = untangle::Shader::parse(&std::fs::read(path).unwrap()).expect("parses");
    let options = untangle::Options { ray_traversal_primitive_culling: on, ..Default::default() };
    let t = shader.translate_entry("RayGen", &options).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    }
    let m = rspirv::dr::load_words(&t.words).expect("loads");
    Some(m.capabilities.iter().any(|i| {
        i.operands.first()
            == Some(&rspirv::dr::Operand::Capability(rspirv::spirv::Capability::RayTraversalPrimitiveCullingKHR))
    }))
}

#[test]
fn primitive_culling_follows_the_device_feature() {
    if let (Some(on), Some(off)) = (culling_declared(true), culling_declared(false)) {
        assert!(on, "dynamic ray flags with the feature: the capability");
        assert!(!off, "without the feature: never");
    }
}
