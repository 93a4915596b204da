//! Ray-tracing libraries (`lib_6_x` shaders of `../shared/corpus/dxil/vkd3d-proton` that are
//! not work graphs): every entry translates to its own module through the library API
//! (`Shader::translate_library`, no options) and passes `spirv-val --target-env vulkan1.3`;
//! the entries per library are asserted. The one library whose compute entry disagrees
//! with its global root-signature subobject fails with the typed conflict error. Work-graph
//! libraries are `translate_corpus.rs`'s and `work_graphs.rs`'s.
//! The validator is required under CI (`CI` set).

use std::path::PathBuf;
use untangle::Shader;
use untangle::TranslateError;
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// Each ray-tracing library and the entries it exports, in `dx.entryPoints` order.
const LIBRARIES: &[(&str, &[&str])] = &[
    ("rt.collection_handle_invariance.lib_6_3.dxil", &["Miss1", "Miss2", "RayGen"]),
    ("rt.default.lib_6_3.dxil", &["RayAnyAABB", "RayAnyTriangle", "RayClosest", "RayGen", "RayIntersect", "RayMiss"]),
    ("rt.default_assignment_bindings_rt.lib_6_3.dxil", &["Entry1", "Entry2", "Entry3", "Entry4"]),
    ("rt.dummy_raygen.lib_6_3.dxil", &["main"]),
    ("rt.embedded_root_signature_subobject_rt.lib_6_3.dxil", &["main"]),
    ("rt.embedded_root_signature_subobject_rt_conflict.lib_6_3.dxil", &["main"]),
    ("rt.embedded_subobject.lib_6_3.dxil", &["RayClosestHit", "RayClosestHitAABB", "RayGen", "RayIntersect"]),
    ("rt.embedded_subobject_dupe.lib_6_3.dxil", &["RayGen"]),
    ("rt.misfire.lib_6_3.dxil", &["GenShader", "MissShader"]),
    ("rt.multi_rs.lib_6_3.dxil", &["RayGen", "RayGenCol"]),
    ("rt.omm.lib_6_8.dxil", &["AnyHit", "ClosestHit", "GenShader", "MissShader"]),
    ("rt.static_sampler_rt_lib.lib_6_3.dxil", &["RayClosest1", "RayClosest2", "RayGen", "RayMiss"]),
];

const CONFLICT: &str = "rt.embedded_root_signature_subobject_rt_conflict_mixed.lib_6_3.dxil";

fn libraries() -> Option<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(DIR)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains(".lib_")))
        .collect();
    paths.sort();
    Some(paths)
}

fn parse(name: &str) -> Shader {
    let bytes = std::fs::read(PathBuf::from(DIR).join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Shader::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn ray_tracing_libraries_translate_entry_by_entry_and_validate() {
    let Some(paths) = libraries() else {
        eprintln!("{DIR} not found: skipping");
        return;
    };
    let validator = find_spirv_val();
    if validator.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        eprintln!("spirv-val not found: skipping");
        return;
    }
    let val = validator.unwrap();
    let rt: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .filter(|n| !n.starts_with("workgraph."))
        .collect();
    assert_eq!(rt.len(), LIBRARIES.len() + 1, "ray-tracing libraries in the corpus: {rt:?}");
    let mut modules = 0;
    for (name, entries) in LIBRARIES {
        let shader = parse(name);
        assert_eq!(shader.entry_names(), *entries, "{name}");
        let translations = shader.translate_library(&Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<&str> = translations.iter().map(|t| t.entry_point.as_str()).collect();
        assert_eq!(got, *entries, "{name}: one module per entry");
        for t in &translations {
            val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name} {}: {e}", t.entry_point));
            // Each module holds its one entry point.
            let m = rspirv::dr::load_words(&t.words).expect("parses");
            assert_eq!(m.entry_points.len(), 1, "{name} {}", t.entry_point);
            modules += 1;
        }
        // One entry by name gives the same module.
        let first = shader.translate_entry(entries[0], &Default::default()).unwrap();
        assert_eq!(first.words, translations[0].words, "{name}");
    }
    assert_eq!(modules, 33);
    let err = parse(CONFLICT).translate_library(&Default::default()).expect_err("conflicting root signatures");
    assert!(
        matches!(err, untangle::Error::Translate(TranslateError::RootSignatureConflict { ref entry, .. }) if entry == "main"),
        "{err}"
    );
    assert!(err.to_string().contains("`grs`"), "{err}");
}

#[test]
fn library_entry_selection_is_typed() {
    if libraries().is_none() {
        return;
    }
    let shader = parse("rt.default.lib_6_3.dxil");
    let err = shader.translate(&Default::default()).expect_err("six entries, none chosen");
    assert!(matches!(err, untangle::Error::Translate(TranslateError::LibraryEntry(_))), "{err}");
    let err = shader.translate_entry("NoSuchEntry", &Default::default()).expect_err("not exported");
    assert!(err.to_string().contains("RayGen"), "the message lists the entries: {err}");
    // A library with a single entry translates without naming it.
    let t = parse("rt.dummy_raygen.lib_6_3.dxil").translate(&Default::default()).unwrap();
    assert_eq!((t.entry_point.as_str(), t.stage), ("main", untangle::ShaderKind::RayGeneration));
}

/// DXC's `.ll` tests that call ray-tracing or ray-query operations
/// (`../shared/corpus/ll/dxc-tests`): none is valid DXIL 1.8 (they use SM 6.9+ operations
/// or break a validation rule on purpose), and each is a typed error naming the operation,
/// never an internal one, nor malformed input for an opcode of DXIL 1.9 or the experimental
/// table.
#[test]
fn dxc_ray_tests_are_typed_errors() {
    const LL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");
    const FILES: &[(&str, &str)] = &[
        ("DXILValidation.allocateRayQuery.ll", "AllocateRayQuery: must be an immediate constant"),
        ("DXILValidation.allocateRayQuery2.ll", "AllocateRayQuery2"),
        ("LitDXILValidation.clusterid-validation.ll", "ClusterID"),
        ("LitDXILValidation.ser_hitobject_fromrayquery_failing.ll", "HitObject_FromRayQuery"),
        ("LitDXILValidation.ser_hitobject_fromrayquery_passing.ll", "HitObject_FromRayQuery"),
        ("LitDXILValidation.triangle_position_passing.ll", "TriangleObjectPosition"),
        ("LitDXILValidation.triangle_positions-validation.ll", "RayQuery_CandidateTriangleObjectPosition"),
    ];
    for (name, says) in FILES {
        let Ok(bytes) = std::fs::read(PathBuf::from(LL).join(name)) else {
            eprintln!("{LL} not found: skipping");
            return;
        };
        let err = Shader::parse(&bytes)
            .and_then(|s| s.translate_library(&Default::default()))
            .expect_err("not valid DXIL 1.8");
        assert!(!matches!(err, untangle::Error::Translate(TranslateError::Internal(_))), "{name}: {err}");
        assert!(err.to_string().contains(says), "{name}: {err}");
    }
}

/// The library report: the RDAT subobjects, and which of them apply to each entry (DXR's
/// association rules), as `--layout-json` writes them for a library.
#[test]
fn library_report_lists_subobjects_and_their_associations() {
    if libraries().is_none() {
        return;
    }
    let report = parse("rt.embedded_subobject.lib_6_3.dxil").library_report().unwrap();
    let entry = |n: &str| report.entries.iter().find(|e| e.name == n).unwrap_or_else(|| panic!("{n}"));
    let raygen = entry("RayGen");
    assert_eq!(
        (raygen.stage, raygen.local_root_signatures.as_slice()),
        ("raygeneration", &["lrs_raygen".to_string()][..])
    );
    assert_eq!(raygen.global_root_signatures, ["grs"]);
    let chit = entry("RayClosestHit");
    assert_eq!(
        (chit.hit_groups.as_slice(), chit.local_root_signatures.as_slice()),
        (&["thg".to_string()][..], &["lrs_other1".to_string()][..])
    );
    assert_eq!((chit.payload_size_in_bytes, chit.attribute_size_in_bytes), (Some(4), Some(8)));
    assert_eq!(entry("RayIntersect").hit_groups, ["phg"]);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["schema"], "untangle-library/1");
    let subobject = |n: &str| json["subobjects"].as_array().unwrap().iter().find(|s| s["name"] == n).unwrap().clone();
    assert_eq!(subobject("lrs_raygen")["kind"], "local_root_signature");
    assert!(subobject("lrs_raygen")["root_signature"].as_str().unwrap().contains("UAV(u1)"));
    let phg = subobject("phg");
    assert_eq!(
        (phg["hit_group_type"].as_str(), phg["intersection"].as_str()),
        (Some("procedural_primitive"), Some("RayIntersect"))
    );
    assert_eq!(subobject("pconfig")["max_trace_recursion_depth"], 1);
    assert_eq!(subobject("config")["max_payload_size_in_bytes"], 4);
    // Libraries without an RDAT subobject table report none.
    assert!(parse("rt.dummy_raygen.lib_6_3.dxil").library_report().unwrap().subobjects.is_empty());
}

/// Local root signatures: the resources they cover are read from the shader record
/// (`ShaderRecordBufferKHR`) at D3D's local root argument offsets; the rest bind through
/// the global root signature (acceleration structures as root SRVs by device address).
#[test]
fn local_root_signatures_bind_through_the_shader_record() {
    use untangle::rootsig::layout::ArgStore;
    use untangle::rootsig::resolve::Place;
    use untangle::rootsig::{parse_hlsl, BindingModel, LayoutOptions, Version};
    if libraries().is_none() {
        return;
    }
    let val = find_spirv_val();
    let global = |text: &str| untangle::Options {
        root_signature: Some(untangle::RootSignatureBinding {
            signature: parse_hlsl(text, Version::V1_1).unwrap(),
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        ..Default::default()
    };
    let shader = parse("rt.default.lib_6_3.dxil");
    let options = global("SRV(t0), SRV(t1), UAV(u0), RootConstants(num32BitConstants=1, b0)");
    let place = |t: &untangle::Translation, register: &str, space: u32| {
        let layout = t.layout.as_ref().expect("bound through a root signature");
        layout.resources.iter().find(|r| r.resource.register == register && r.resource.space == space).map(|r| r.place)
    };
    for (local, constants, second) in [
        (
            "RootConstants(num32BitConstants=1, b0, space=1), CBV(b1, space=1)",
            Place::RootConstants { store: ArgStore::ShaderRecord, offset: 0, num_values: 1 },
            Place::RootAddress { store: ArgStore::ShaderRecord, offset: 8 },
        ),
        (
            "RootConstants(num32BitConstants=3, b0, space=1), DescriptorTable(CBV(b1, space=1))",
            Place::RootConstants { store: ArgStore::ShaderRecord, offset: 0, num_values: 3 },
            Place::HeapTable { store: ArgStore::ShaderRecord, table_offset: 16, offset_in_table: 0, base_register: 1 },
        ),
    ] {
        let local = parse_hlsl(local, Version::V1_1).unwrap();
        for entry in ["RayMiss", "RayClosest"] {
            let t = shader.translate_entry_with_local_root_signature(entry, &options, &local).unwrap();
            assert_eq!(place(&t, "b0", 1), Some(constants), "{entry}");
            assert_eq!(place(&t, "b1", 1), Some(second), "{entry}");
            let record = t.layout.as_ref().unwrap().shader_record.as_ref().expect("a shader record");
            assert_eq!(record.size % 8, 0);
            let m = rspirv::dr::load_words(&t.words).unwrap();
            let uses_record = m.types_global_values.iter().any(|i| {
                i.class.opcode == rspirv::spirv::Op::Variable
                    && i.operands.first()
                        == Some(&rspirv::dr::Operand::StorageClass(rspirv::spirv::StorageClass::ShaderRecordBufferKHR))
            });
            assert!(uses_record, "{entry}: a ShaderRecordBufferKHR block");
            if let Some(v) = &val {
                v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{entry}: {e}"));
            }
        }
    }
    // The raygen shader traces through a root-SRV acceleration structure.
    let t = shader.translate_entry("RayGen", &options).unwrap();
    assert_eq!(place(&t, "t0", 0), Some(Place::RootAddress { store: ArgStore::PushConstants, offset: 0 }));
    let m = rspirv::dr::load_words(&t.words).unwrap();
    let converts = m.functions.iter().flat_map(|f| &f.blocks).flat_map(|b| &b.instructions);
    assert!(converts.clone().any(|i| i.class.opcode == rspirv::spirv::Op::ConvertUToAccelerationStructureKHR));
    if let Some(v) = &val {
        v.validate(&t.words, "vulkan1.3").unwrap();
    }
    // A library's local root-signature subobjects apply by themselves once bound through a
    // global root signature.
    let lib = parse("rt.embedded_subobject.lib_6_3.dxil");
    for t in lib.translate_library(&global("UAV(u0)")).unwrap() {
        let register = match t.entry_point.as_str() {
            "RayGen" => "u1",
            "RayClosestHit" => "u2",
            _ => "u3",
        };
        assert_eq!(
            place(&t, register, 0),
            Some(Place::RootAddress { store: ArgStore::ShaderRecord, offset: 0 }),
            "{}",
            t.entry_point
        );
        if let Some(v) = &val {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{}: {e}", t.entry_point));
        }
    }
}

/// Functions a library's entries share are inlined into each entry's module: both entries
/// of `corpus/lib_shared_functions.ll` call `shade` (payload pointer, branch, result) and
/// `store` (a resource write); each module has one function and validates. A recursive
/// call is a typed error.
#[test]
fn functions_called_from_several_entries_are_inlined_per_entry() {
    const LIB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/lib_shared_functions.ll");
    let text = std::fs::read_to_string(LIB).unwrap();
    let shader = Shader::parse(text.as_bytes()).unwrap();
    let val = find_spirv_val();
    let translations = shader.translate_library(&Default::default()).unwrap();
    assert_eq!(translations.iter().map(|t| t.entry_point.as_str()).collect::<Vec<_>>(), ["Gen", "Miss"]);
    for t in &translations {
        let m = rspirv::dr::load_words(&t.words).unwrap();
        assert_eq!(m.functions.len(), 1, "{}: the callees are inlined", t.entry_point);
        let ops: Vec<_> = m.functions[0].blocks.iter().flat_map(|b| &b.instructions).map(|i| i.class.opcode).collect();
        assert!(!ops.contains(&rspirv::spirv::Op::FunctionCall));
        // shade's branch and store's write reached both entries.
        assert!(ops.contains(&rspirv::spirv::Op::FOrdGreaterThan), "{}", t.entry_point);
        assert!(t.bindings.iter().any(|b| b.name == "Out"), "{}: binds the buffer store writes", t.entry_point);
        if let Some(v) = &val {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{}: {e}", t.entry_point));
        }
    }
    // `shade` calling itself is recursion: a typed error, not a hang.
    let recursive = text.replace(
        "  %y = add i32 %x, 1\n",
        "  %y = call i32 @\"\\01?shade@@YAIAIAUPayload@@I@Z\"(%struct.Payload* %p, i32 %x)\n",
    );
    assert_ne!(recursive, text);
    let err = Shader::parse(recursive.as_bytes()).unwrap().translate_entry("Gen", &Default::default()).unwrap_err();
    assert!(err.to_string().contains("recursively"), "{err}");
}

/// Every ray-tracing operation, in each stage that allows it (`corpus/lib_ray_ops.ll`):
/// each entry translates in its execution model, validates, and holds the SPIR-V its
/// operations lower to.
#[test]
fn every_ray_tracing_operation_lowers_in_its_stages() {
    use rspirv::spirv::{BuiltIn, ExecutionModel as M, Op};
    const LIB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/lib_ray_ops.ll");
    let shader = Shader::parse(&std::fs::read(LIB).unwrap()).unwrap();
    let val = find_spirv_val();
    let expected: &[(&str, M, &[Op], &[BuiltIn])] = &[
        (
            "Gen",
            M::RayGenerationKHR,
            &[Op::TraceRayKHR, Op::ExecuteCallableKHR],
            &[BuiltIn::LaunchIdKHR, BuiltIn::LaunchSizeKHR],
        ),
        (
            "Hit",
            M::ClosestHitKHR,
            &[Op::TraceRayKHR],
            &[
                BuiltIn::WorldRayOriginKHR,
                BuiltIn::WorldRayDirectionKHR,
                BuiltIn::ObjectRayOriginKHR,
                BuiltIn::ObjectRayDirectionKHR,
                BuiltIn::ObjectToWorldKHR,
                BuiltIn::WorldToObjectKHR,
                BuiltIn::RayTminKHR,
                BuiltIn::RayTmaxKHR,
                BuiltIn::HitKindKHR,
                BuiltIn::IncomingRayFlagsKHR,
                BuiltIn::InstanceCustomIndexKHR,
                BuiltIn::InstanceId,
                BuiltIn::PrimitiveId,
                BuiltIn::RayGeometryIndexKHR,
            ],
        ),
        (
            "Any",
            M::AnyHitKHR,
            &[Op::TerminateRayKHR, Op::IgnoreIntersectionKHR],
            &[BuiltIn::HitKindKHR, BuiltIn::PrimitiveId],
        ),
        ("Box", M::IntersectionKHR, &[Op::ReportIntersectionKHR], &[BuiltIn::RayTminKHR, BuiltIn::ObjectRayOriginKHR]),
        ("Sky", M::MissKHR, &[], &[BuiltIn::WorldRayDirectionKHR, BuiltIn::RayTmaxKHR, BuiltIn::IncomingRayFlagsKHR]),
        ("Fn", M::CallableKHR, &[], &[BuiltIn::LaunchIdKHR]),
    ];
    let translations = shader.translate_library(&Default::default()).unwrap();
    assert_eq!(translations.len(), expected.len());
    for (t, (name, model, ops, builtins)) in translations.iter().zip(expected) {
        assert_eq!(t.entry_point, *name);
        let m = rspirv::dr::load_words(&t.words).unwrap();
        assert_eq!(m.entry_points[0].operands[0], rspirv::dr::Operand::ExecutionModel(*model), "{name}");
        let used: Vec<Op> =
            m.functions[0].blocks.iter().flat_map(|b| &b.instructions).map(|i| i.class.opcode).collect();
        for op in *ops {
            assert!(used.contains(op), "{name}: no {op:?}");
        }
        let decorated: Vec<&rspirv::dr::Operand> = m
            .annotations
            .iter()
            .filter(|i| i.operands.get(1) == Some(&rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::BuiltIn)))
            .filter_map(|i| i.operands.get(2))
            .collect();
        for b in *builtins {
            assert!(decorated.contains(&&rspirv::dr::Operand::BuiltIn(*b)), "{name}: no {b:?}");
        }
        if let Some(v) = &val {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
