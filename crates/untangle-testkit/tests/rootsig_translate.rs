//! Root signatures end to end on the corpus: for every compute, vertex, hull, domain,
//! geometry and pixel shader of `../shared/corpus/dxil/vkd3d-proton` (218), the four generated root signatures of
//! `rootsig_gen` (tables; root parameters; mixed spaces with offsets; near the 64-DWORD
//! limit), each lowered under both binding models (`heap`, `direct`) and both push-constant
//! budgets (128 bytes, Vulkan's guarantee, and 256): the translation succeeds (but for the
//! 25 compute shaders calling AMD AGS intrinsics, typed `VendorExtension` errors), the module
//! passes `spirv-val --target-env vulkan1.3`, and it fits the layout its report describes
//! (`check::layout_match`: every descriptor variable at a binding of the report with the
//! right descriptor type and count, push-constant members at the report's offsets, the
//! root argument buffer's block within its size). Under `direct`, a shader with neither
//! unbounded ranges nor heap indexing must not need descriptor indexing (no
//! `RuntimeDescriptorArray`). Every generated signature passes the D3D12 validator and
//! round-trips through RTS0 and the string form.
//!
//! The budget: push constants never exceed it; under 256 nothing spills; near-limit
//! signatures always spill under 128; and a translation under 128 that spills nothing is
//! word for word the one under 256 (a layout that fits is the unbudgeted one).

use std::path::PathBuf;
use untangle::emit::translate::RootSignatureBinding;
use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
use untangle::{translate_module, Options};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::rootsig_gen::{covering, shader_facts, Variant};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn stage_of(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".dxil")?;
    stem.rsplit('.').next()?.split('_').next()
}

fn corpus() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(DIR) {
        Ok(d) => d
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| {
                        stage_of(&n.to_string_lossy()).map(|s| matches!(s, "cs" | "ps" | "vs" | "hs" | "ds" | "gs"))
                    })
                    .unwrap_or(false)
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    paths.sort();
    paths
}

#[test]
fn corpus_shaders_under_generated_root_signatures() {
    let paths = corpus();
    if paths.is_empty() {
        eprintln!("{DIR} not found: skipping");
        return;
    }
    let val = match find_spirv_val() {
        Some(v) => v,
        None => {
            assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
            eprintln!("spirv-val not found: skipping");
            return;
        }
    };
    let mut passed = 0;
    let mut signatures = 0;
    let mut spilled = 0;
    let mut vendor = 0;
    let mut failures = Vec::new();
    let models = [(BindingModel::Heap, RootDescriptors::Address), (BindingModel::Direct, RootDescriptors::Descriptor)];
    for p in &paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let loaded = untangle::front::load_path(p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let info = untangle::dxil::analyze(&loaded.module).unwrap();
        let ep = info.entry_points.iter().find(|e| e.function.is_some()).unwrap();
        let stage = info.shader_model.as_ref().unwrap().kind;
        let facts = shader_facts(&loaded.module);
        let heaps = facts.uses_heaps;
        let unbounded = ep.resources.iter().any(|r| r.range_size.is_none());
        for variant in Variant::ALL {
            let rs = covering(&ep.resources, stage, variant, &facts);
            // The generated signature is valid D3D12 and survives both spellings.
            if let Err(e) = untangle::rootsig::validate(&rs) {
                failures.push(format!("{name} [{}]: invalid root signature: {e}", variant.name()));
                continue;
            }
            let bytes = untangle::rootsig::to_rts0(&rs);
            assert_eq!(untangle::rootsig::parse_rts0(&bytes).as_ref(), Ok(&rs), "{name}: RTS0 round trip");
            let text = untangle::rootsig::to_hlsl(&rs);
            assert_eq!(
                untangle::rootsig::parse_hlsl(&text, rs.version).as_ref(),
                Ok(&rs),
                "{name}: string round trip of {text}"
            );
            signatures += 1;
            for (model, root_descriptors) in models {
                // The 256-byte translation first: the 128-byte one must equal it when it spills nothing.
                let mut wide: Option<Vec<u32>> = None;
                for max_push_constant_bytes in [256, 128] {
                    let layout = LayoutOptions { model, root_descriptors, max_push_constant_bytes };
                    let what = format!("{name} [{} / {model:?} / {max_push_constant_bytes}]", variant.name());
                    let options = Options {
                        root_signature: Some(RootSignatureBinding { signature: rs.clone(), layout }),
                        ..Options::default()
                    };
                    let t = match translate_module(&loaded.module, &options) {
                        Ok(t) => t,
                        // AMD AGS intrinsics (docs/dxil-semantics.md): refused whatever the layout.
                        Err(untangle::Error::Translate(untangle::TranslateError::VendorExtension { .. })) => {
                            vendor += 1;
                            continue;
                        }
                        Err(e) => {
                            failures.push(format!("{what}: {e}"));
                            continue;
                        }
                    };
                    if let Err(e) = val.validate(&t.words, "vulkan1.3") {
                        failures.push(format!("{what}: spirv-val: {}", e.lines().next().unwrap_or("")));
                        continue;
                    }
                    let report = t.layout.as_ref().expect("a root signature gives a layout report");
                    if let Err(e) = untangle_testkit::check::layout_match::check(&t.words, &report.layout) {
                        failures.push(format!("{what}: layout: {e}"));
                        continue;
                    }
                    if let Err(e) = places_match_members(report) {
                        failures.push(format!("{what}: {e}"));
                        continue;
                    }
                    let spill = &report.layout.root_argument_buffer;
                    if report.layout.push_constants.size > max_push_constant_bytes {
                        failures.push(format!("{what}: {} bytes of push constants", report.layout.push_constants.size));
                        continue;
                    }
                    match (max_push_constant_bytes, spill, &wide) {
                        (256, Some(_), _) => {
                            failures.push(format!("{what}: spills under 256 bytes"));
                            continue;
                        }
                        (256, None, _) => wide = Some(t.words.clone()),
                        (_, None, Some(w)) if *w != t.words => {
                            failures.push(format!("{what}: spills nothing but differs from the 256-byte translation"));
                            continue;
                        }
                        (_, None, _) if variant == Variant::NearLimit => {
                            failures.push(format!("{what}: a near-limit signature spills nothing under 128 bytes"));
                            continue;
                        }
                        (_, Some(_), _) => spilled += 1,
                        _ => {}
                    }
                    if layout.model == BindingModel::Direct && !heaps && !unbounded {
                        let m = rspirv::dr::load_words(&t.words).unwrap();
                        let runtime = m.capabilities.iter().any(|c| {
                            c.operands.first()
                                == Some(&rspirv::dr::Operand::Capability(
                                    rspirv::spirv::Capability::RuntimeDescriptorArray,
                                ))
                        });
                        if runtime {
                            failures.push(format!("{what}: direct model needs RuntimeDescriptorArray"));
                            continue;
                        }
                    }
                    passed += 1;
                }
            }
        }
    }
    for f in failures.iter().take(30) {
        eprintln!("FAIL {f}");
    }
    eprintln!("{passed} of {} translations pass; {spilled} spill under 128 bytes", paths.len() * 16);
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert_eq!(paths.len(), 218, "the cs/vs/hs/ds/gs/ps corpus changed");
    assert_eq!(signatures, 218 * 4);
    // The 25 compute shaders calling AMD AGS intrinsics are typed errors under every layout.
    assert_eq!(vendor, 25 * 16, "AGS shaders refused");
    assert_eq!(passed, (218 - 25) * 16);
    assert!(spilled >= (218 - 25) * 2, "every near-limit signature spills under both models");
}

/// Every root-argument place of the report names its parameter's member: the same store
/// (push constants or root argument buffer) and offset, and the parameter is in one store.
fn places_match_members(report: &untangle::emit::translate::LayoutReport) -> Result<(), String> {
    use untangle::rootsig::layout::ArgStore;
    use untangle::rootsig::resolve::Place;
    for r in &report.resources {
        let (store, offset) = match r.place {
            // Shader-record places have no member in the pipeline layout.
            Place::Descriptor { .. }
            | Place::HeapTable { store: ArgStore::ShaderRecord, .. }
            | Place::RootAddress { store: ArgStore::ShaderRecord, .. }
            | Place::RootConstants { store: ArgStore::ShaderRecord, .. } => continue,
            Place::RootAddress { store, offset } | Place::RootConstants { store, offset, .. } => (store, offset),
            Place::HeapTable { store, table_offset, .. } => (store, table_offset),
        };
        let parameter =
            r.parameter.ok_or_else(|| format!("{}: a root argument without a parameter", r.resource.register))?;
        let found = report.layout.root_argument(parameter).map(|(s, m)| (s, m.offset));
        if found != Some((store, offset)) {
            return Err(format!(
                "{}: placed at {store:?} {offset}, its parameter's member is {found:?}",
                r.resource.register
            ));
        }
    }
    Ok(())
}
