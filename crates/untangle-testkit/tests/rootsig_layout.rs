//! The layout report (`--layout-json`, `Translation::layout`) as JSON snapshots for a few
//! corpus shaders under generated root signatures, the SPIR-V of a `heap` translation
//! (push-constant block, heap tables, a root descriptor through its address), the same
//! past the push-constant budget (root argument buffer in the report and in the SPIR-V),
//! and the typed errors of shaders that do not fit their root signature.

use untangle::emit::translate::RootSignatureBinding;
use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
use untangle::rootsig::*;
use untangle::{translate_module, Options};
use untangle_testkit::rootsig_gen::{covering, shader_facts, Variant};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn load(name: &str) -> Option<untangle::front::Loaded> {
    let p = std::path::Path::new(DIR).join(name);
    p.exists().then(|| untangle::front::load_path(&p).unwrap())
}

fn translate(
    m: &untangle::ir::Module,
    rs: RootSignature,
    model: BindingModel,
) -> untangle::Result<untangle::emit::Translation> {
    translate_budget(m, rs, model, LayoutOptions::default().max_push_constant_bytes)
}

fn translate_budget(
    m: &untangle::ir::Module,
    rs: RootSignature,
    model: BindingModel,
    max_push_constant_bytes: u32,
) -> untangle::Result<untangle::emit::Translation> {
    let layout = LayoutOptions { model, root_descriptors: RootDescriptors::Address, max_push_constant_bytes };
    translate_module(
        m,
        &Options { root_signature: Some(RootSignatureBinding { signature: rs, layout }), ..Options::default() },
    )
}

fn generated(l: &untangle::front::Loaded, variant: Variant) -> RootSignature {
    let info = untangle::dxil::analyze(&l.module).unwrap();
    let ep = info.entry_points.iter().find(|e| e.function.is_some()).unwrap();
    covering(&ep.resources, info.shader_model.unwrap().kind, variant, &shader_facts(&l.module))
}

#[test]
fn layout_reports() {
    let cases = [
        ("descriptors.typed_buffer_many_objects.cs_6_0.dxil", "typed_buffer_many_objects"),
        ("sm_advanced.cs_derivative_1d.cs_6_6.dxil", "cs_derivative_1d"),
        ("descriptors.update_root_descriptors.cs_6_0.dxil", "update_root_descriptors"),
    ];
    for (file, short) in cases {
        let Some(l) = load(file) else {
            eprintln!("{DIR} not found: skipping");
            return;
        };
        for (variant, model) in
            [(Variant::RootParameters, BindingModel::Heap), (Variant::MixedSpaces, BindingModel::Direct)]
        {
            let t = translate(&l.module, generated(&l, variant), model).unwrap();
            let json = serde_json::to_string_pretty(&t.layout.unwrap()).unwrap();
            insta::assert_snapshot!(format!("layout_{short}_{}_{:?}", variant.name(), model).to_lowercase(), json);
        }
    }
}

/// Near the 64-DWORD limit under the default 128-byte budget: what spills, where, and
/// (heap) the SPIR-V that reads it.
#[test]
fn spilled_layout_reports() {
    let Some(l) = load("descriptors.update_root_descriptors.cs_6_0.dxil") else { return };
    for model in [BindingModel::Heap, BindingModel::Direct] {
        let t = translate(&l.module, generated(&l, Variant::NearLimit), model).unwrap();
        let report = t.layout.as_ref().unwrap();
        assert!(report.layout.root_argument_buffer.is_some(), "{model:?}: nothing spilled");
        let json = serde_json::to_string_pretty(report).unwrap();
        insta::assert_snapshot!(
            format!("layout_update_root_descriptors_near-limit_{model:?}_128").to_lowercase(),
            json
        );
        // With room for everything: no root argument buffer.
        let wide = translate_budget(&l.module, generated(&l, Variant::NearLimit), model, 256).unwrap();
        assert!(wide.layout.as_ref().unwrap().layout.root_argument_buffer.is_none());
    }
    let Some(val) = untangle_testkit::check::spirv_val::find_spirv_val() else { return };
    let t = translate(&l.module, generated(&l, Variant::NearLimit), BindingModel::Heap).unwrap();
    insta::assert_snapshot!("spirv_update_root_descriptors_heap_near_limit_128", val.disassemble(&t.words).unwrap());
}

#[test]
fn impossible_budgets_are_typed_errors() {
    let Some(l) = load("descriptors.update_root_descriptors.cs_6_0.dxil") else { return };
    let e = translate_budget(&l.module, generated(&l, Variant::NearLimit), BindingModel::Heap, 130).unwrap_err();
    assert!(
        matches!(
            e,
            untangle::Error::Translate(untangle::TranslateError::RootSignature(
                untangle::rootsig::resolve::ResolveError::Layout(
                    untangle::rootsig::layout::LayoutError::PushConstantBudget { bytes: 130 }
                )
            ))
        ),
        "{e}"
    );
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    // Budget 0: every root argument in the buffer, still a valid module.
    let t = translate_budget(&l.module, generated(&l, Variant::NearLimit), BindingModel::Heap, 0).unwrap();
    assert_eq!(t.layout.unwrap().layout.push_constants.size, 0);
}

#[test]
fn heap_translation_disassembly() {
    let Some(l) = load("descriptors.update_root_descriptors.cs_6_0.dxil") else { return };
    let Some(val) = untangle_testkit::check::spirv_val::find_spirv_val() else { return };
    let t = translate(&l.module, generated(&l, Variant::RootParameters), BindingModel::Heap).unwrap();
    let text = val.disassemble(&t.words).unwrap();
    insta::assert_snapshot!("spirv_update_root_descriptors_heap_root_parameters", text);
}

fn first_resource_dropped(l: &untangle::front::Loaded) -> (RootSignature, String) {
    let mut rs = generated(l, Variant::Tables);
    let ParameterKind::Table(ranges) = &mut rs.parameters[0].kind else { panic!("a table first") };
    let gone = ranges.remove(0);
    (rs, format!("{}{}, space{}", gone.class.register_letter(), gone.base_register, gone.space))
}

#[test]
fn uncovered_register_is_a_typed_error_naming_it() {
    let Some(l) = load("sm_advanced.cs_derivative_1d.cs_6_6.dxil") else { return };
    for model in [BindingModel::Heap, BindingModel::Direct] {
        let (rs, named) = first_resource_dropped(&l);
        let e = translate(&l.module, rs, model).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, untangle::Error::Translate(untangle::TranslateError::RootSignature(_))), "{text}");
        assert!(text.contains(&named) && text.contains("not covered"), "{text}");
    }
}

#[test]
fn visibility_and_deny_flags_hide_parameters() {
    let Some(l) = load("sm_advanced.cs_derivative_1d.cs_6_6.dxil") else { return };
    // A compute shader sees only SHADER_VISIBILITY_ALL parameters.
    let mut rs = generated(&l, Variant::Tables);
    for p in &mut rs.parameters {
        p.visibility = Visibility::Pixel;
    }
    let e = translate(&l.module, rs, BindingModel::Heap).unwrap_err().to_string();
    assert!(e.contains("not covered by any root parameter visible to the compute stage"), "{e}");
}

#[test]
fn root_descriptor_of_a_texture_and_partial_ranges_are_rejected() {
    let Some(l) = load("sm_advanced.cs_derivative_1d.cs_6_6.dxil") else { return };
    // t0 is a Texture2D: a root SRV cannot hold it.
    let (mut rs, named) = first_resource_dropped(&l);
    assert_eq!(named, "t0, space0");
    rs.parameters.insert(
        0,
        RootParameter {
            visibility: Visibility::All,
            kind: ParameterKind::Descriptor(RootDescriptor {
                class: ResourceClass::Srv,
                register: 0,
                space: 0,
                flags: DescriptorFlags(0),
            }),
        },
    );
    let e = translate(&l.module, rs, BindingModel::Direct).unwrap_err().to_string();
    assert!(e.contains("t0, space0") && e.contains("root descriptor"), "{e}");

    // An unbounded declared range inside a bounded table range.
    let Some(l) = load("descriptors.typed_buffer_many_objects.cs_6_0.dxil") else { return };
    let mut rs = generated(&l, Variant::Tables);
    for p in &mut rs.parameters {
        if let ParameterKind::Table(ranges) = &mut p.kind {
            for r in ranges {
                r.count = r.count.or(Some(4));
            }
        }
    }
    let e = translate(&l.module, rs, BindingModel::Heap).unwrap_err().to_string();
    assert!(e.contains("only partly covered"), "{e}");
}

#[test]
fn heap_indexing_needs_the_flags() {
    // u0 becomes a root UAV and s0-s4 static samplers: no tables, so without the
    // heap-indexing flags there is no heap for ResourceDescriptorHeap[] to index.
    let Some(l) = load("sm_advanced.cs_integer_sampling.cs_6_7.dxil") else { return };
    let rs = generated(&l, Variant::RootParameters);
    assert!(rs.flags.contains(RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED));
    assert!(rs.parameters.iter().all(|p| !matches!(p.kind, ParameterKind::Table(_))));
    assert!(translate(&l.module, rs.clone(), BindingModel::Heap).is_ok());
    let mut bare = rs;
    bare.flags = RootFlags(0);
    for model in [BindingModel::Heap, BindingModel::Direct] {
        let e = translate(&l.module, bare.clone(), model).unwrap_err().to_string();
        assert!(e.contains("CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"), "{e}");
    }
}
