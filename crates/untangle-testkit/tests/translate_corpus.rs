//! Full translation of every compute, vertex, hull, domain, geometry, pixel, mesh and
//! amplification shader of the vkd3d-proton corpus (`../shared/corpus/dxil/vkd3d-proton`,
//! 238 files), each output checked by `spirv-val --target-env vulkan1.3`. Prints per-stage
//! counts and a histogram of the remaining failures (the work list), and asserts the number
//! of files and of passing files per stage: all of them but the compute shaders that call
//! AMD AGS driver intrinsics (the `sm_advanced.cs_ags_*` / `cs_wmma_*` tests), which must be
//! typed `VendorExtension` errors. The 16 work-graph libraries translate node by node
//! (`docs/work-graphs.md`), every module passing `spirv-val`; ray-tracing libraries are
//! `ray_tracing.rs`'s. The validator is required under CI (`CI` set).

use std::collections::BTreeMap;
use std::path::PathBuf;
use untangle::{translate_module, Options, TranslateError};
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// Files per stage in the corpus, every one of which translates and validates but the AGS
/// shaders.
const EXPECTED: &[(&str, usize)] =
    &[("as", 3), ("cs", 113), ("ds", 11), ("gs", 9), ("hs", 14), ("ms", 17), ("ps", 47), ("vs", 24)];

/// Compute shaders of the corpus that bind AMD AGS's magic UAV (u0, space 0x7FFF0ADE).
const AGS_SHADERS: usize = 25;

fn stage_of(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".dxil")?;
    let profile = stem.rsplit('.').next()?;
    profile.split('_').next()
}

/// A short key for the histogram: the failing opcode, or the message with numbers erased.
fn key(e: &untangle::Error) -> String {
    match e {
        untangle::Error::Translate(TranslateError::UnsupportedOp { op, .. }) => format!("op {}", op.name()),
        other => {
            let s = other.to_string();
            let s: String = s.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
            s.chars().take(110).collect()
        }
    }
}

#[test]
fn vkd3d_proton_graphics_and_compute_stages_translate_and_validate() {
    stages_translate_and_validate(&Options::default());
}

/// The same with [`Options::cleanups`] off: every module is valid without the clean-ups
/// too (no emitter relies on one for validity), and the clean-ups make the corpus's
/// modules smaller in sum.
#[test]
fn vkd3d_proton_stages_validate_without_the_cleanups() {
    let Some(raw) = stages_translate_and_validate(&Options { cleanups: false, ..Options::default() }) else { return };
    let cleaned = stages_translate_and_validate(&Options::default()).expect("ran once");
    eprintln!("words over the corpus: {cleaned} with the clean-ups, {raw} without");
    assert!(cleaned < raw, "the clean-ups must make the modules smaller: {cleaned} words against {raw}");
}

/// Translates every file of the supported stages with `options`, checks each module with
/// `spirv-val` and the per-stage counts; returns the words of all modules (`None` when the
/// corpus or the validator is missing outside CI).
fn stages_translate_and_validate(options: &Options) -> Option<usize> {
    let validator = find_spirv_val();
    if validator.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        eprintln!("spirv-val not found: skipping");
        return None;
    }
    let val = validator.unwrap();
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(DIR) {
        Ok(d) => d.flatten().map(|e| e.path()).collect(),
        Err(_) => {
            eprintln!("{DIR} not found: skipping");
            return None;
        }
    };
    let mut words = 0;
    paths.sort();
    let mut counts: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut histogram: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut ags = 0;
    for p in &paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(stage) = stage_of(&name) else { continue };
        let loaded = untangle::front::load_path(p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let result = translate_module(&loaded.module, options);
        if stage == "lib" {
            // Libraries translate by entry: tests/ray_tracing.rs.
            continue;
        }
        let supported = EXPECTED.iter().any(|(s, _)| *s == stage);
        if !supported {
            assert!(
                matches!(result, Err(untangle::Error::Translate(TranslateError::UnsupportedStage { .. }))),
                "{name}: other stages must report UnsupportedStage"
            );
            continue;
        }
        let c = counts.entry(stage.to_string()).or_default();
        c.0 += 1;
        if name.starts_with("sm_advanced.cs_ags_") || name.starts_with("sm_advanced.cs_wmma_") {
            assert!(
                matches!(
                    result,
                    Err(untangle::Error::Translate(TranslateError::VendorExtension { vendor: "AMD AGS", .. }))
                ),
                "{name}: AGS intrinsics must be a VendorExtension error"
            );
            ags += 1;
            continue;
        }
        match result {
            Err(e) => histogram.entry(key(&e)).or_default().push(name.clone()),
            Ok(t) => {
                c.1 += 1;
                words += t.words.len();
                match val.validate(&t.words, "vulkan1.3") {
                    Ok(()) => c.2 += 1,
                    Err(msg) => {
                        let first = msg.lines().find(|l| l.contains("error")).unwrap_or("").to_string();
                        let first: String =
                            first.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).take(110).collect();
                        histogram.entry(format!("spirv-val: {first}")).or_default().push(name.clone());
                    }
                }
            }
        }
    }
    let mut sorted: Vec<_> = histogram.iter().collect();
    sorted.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), (*k).clone()));
    eprintln!("remaining failures:");
    for (k, v) in sorted {
        eprintln!("{:4}  {k}   e.g. {}", v.len(), v[0]);
    }
    let mut total = 0;
    for (stage, (files, translated, valid)) in &counts {
        eprintln!("{stage}: {files} files, {translated} translated, {valid} pass spirv-val vulkan1.3");
        total += valid;
    }
    eprintln!("total passing: {total} of {}", counts.values().map(|c| c.0).sum::<usize>());
    for (stage, want) in EXPECTED {
        let (files, _, valid) = counts.get(*stage).copied().unwrap_or_default();
        assert_eq!(files, *want, "{stage}: {files} files in the corpus, expected {want}");
        let refused = if *stage == "cs" { AGS_SHADERS } else { 0 };
        assert_eq!(valid, *want - refused, "{stage}: {valid} of {files} shaders translate and validate");
    }
    assert_eq!(ags, AGS_SHADERS, "AGS shaders refused");
    Some(words)
}

/// Each work-graph library of the corpus and its number of nodes.
const WORK_GRAPHS: &[(&str, usize)] = &[
    ("basic", 1),
    ("basic_recursion", 2),
    ("broadcast_custom_input", 1),
    ("broadcast_custom_input_u16_2", 1),
    ("broadcast_custom_input_uint", 1),
    ("broadcast_custom_input_uint2", 1),
    ("coalesce_custom_input", 1),
    ("cross_group_sharing", 3),
    ("local_root_signature", 3),
    ("shared_inputs", 3),
    ("thread_custom_input", 1),
    ("two_level_broadcast", 3),
    ("two_level_broadcast_node_array", 3),
    ("two_level_empty_node", 15),
    ("two_level_thread", 3),
    ("two_level_thread_node_array", 3),
];

/// Every work-graph library (`workgraph.*.lib_6_8.dxil`) translates with no options, one
/// compute module per node, each passing `spirv-val --target-env vulkan1.3`; the library
/// report describes every node.
#[test]
fn vkd3d_proton_work_graph_libraries_translate_node_by_node_and_validate() {
    let Ok(dir) = std::fs::read_dir(DIR) else {
        eprintln!("{DIR} not found: skipping");
        return;
    };
    let validator = find_spirv_val();
    if validator.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let mut names: Vec<String> = dir
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("workgraph."))
        .collect();
    names.sort();
    let want: Vec<String> = WORK_GRAPHS.iter().map(|(n, _)| format!("workgraph.{n}.lib_6_8.dxil")).collect();
    assert_eq!(names, want, "work-graph libraries in the corpus");
    let (mut libraries, mut modules) = (0, 0);
    for (name, nodes) in WORK_GRAPHS {
        let file = format!("workgraph.{name}.lib_6_8.dxil");
        let bytes = std::fs::read(PathBuf::from(DIR).join(&file)).unwrap();
        let shader = untangle::Shader::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let translations = shader.translate_library(&Options::default()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(translations.len(), *nodes, "{file}: one module per node");
        let report = shader.library_report().unwrap_or_else(|e| panic!("{file}: {e}"));
        for t in &translations {
            assert_eq!(t.stage, untangle::ShaderKind::Node, "{file} {}", t.entry_point);
            let entry = report.entries.iter().find(|e| e.name == t.entry_point).expect("reported");
            assert!(entry.stage == "node" && entry.node.is_some(), "{file} {}", t.entry_point);
            if let Some(v) = &validator {
                v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{file} {}: {e}", t.entry_point));
            }
            modules += 1;
        }
        libraries += 1;
    }
    eprintln!("{libraries} work-graph libraries, {modules} node modules translate and validate");
    assert_eq!((libraries, modules), (16, 45));
}

/// DXC's own `.ll` tests of hull, domain, geometry, mesh and amplification shaders
/// (`../shared/corpus/ll/dxc-tests`):
/// each translates to a module that passes `spirv-val`, or fails with a typed error that is
/// not an internal one (the validation tests among them are invalid DXIL on purpose).
#[test]
fn dxc_tests_of_the_tessellation_geometry_and_mesh_stages() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("{dir} not found: skipping");
        return;
    };
    let val = find_spirv_val();
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let (mut valid, mut refused) = (Vec::new(), Vec::new());
    for p in paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Ok(shader) = std::fs::read(&p).map_err(|_| ()).and_then(|b| untangle::Shader::parse(&b).map_err(|_| ()))
        else {
            continue;
        };
        use untangle::ShaderKind::*;
        if !matches!(shader.stage(), Hull | Domain | Geometry | Mesh | Amplification) {
            continue;
        }
        match shader.translate(&Options::default()) {
            Ok(t) => {
                if let Some(v) = &val {
                    v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{name}: {e}"));
                }
                valid.push(name);
            }
            Err(e) => {
                assert!(
                    !matches!(e, untangle::Error::Translate(TranslateError::Internal(_))),
                    "{name}: internal error {e}"
                );
                refused.push(format!("{name}: {e}"));
            }
        }
    }
    eprintln!("translate and validate: {valid:#?}\ntyped errors: {refused:#?}");
    // dxbc2dxil conversions of a domain, a geometry and a hull shader (fork/join phases,
    // loadPatchConstant) translate.
    for want in ["dxilconv.dxbc2dxil.ds1.ref.ll", "dxilconv.dxbc2dxil.gs1.ref.ll", "dxilconv.dxbc2dxil.hs2.ref.ll"] {
        assert!(valid.iter().any(|v| v == want), "{want} must translate: {refused:#?}");
    }
    // The corpus's two mesh and amplification tests are validator tests of SM 6.10's
    // experimental linear-algebra operations: a typed error naming the operation, which the
    // table knows (SM 6.10 experimental) and which DXIL does not allow in these stages.
    for name in ["linalgmatrix-stage-as.ll", "linalgmatrix-stage-ms.ll"] {
        let name = format!("LitDXILValidation.LinAlgMatrix.{name}");
        assert!(
            refused.iter().any(|r| r.starts_with(&name) && r.contains("LinAlg") && !r.contains("malformed")),
            "{name}: {refused:#?}"
        );
    }
}
