//! The container reader against real DXC output (`../shared/corpus/dxil/vkd3d-proton`,
//! 267 containers) and against truncated and mutated copies of it.
//!
//! Run with `--nocapture` to see the per-stage, per-chunk and per-outcome counts.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use untangle::front::container::{Container, ContainerError, ContainerSummary, FourCc, ShaderKind};
use untangle::front::detect::{detect, unwrap_bitcode, InputKind};
use untangle_testkit::fuzzing::mutate::{patch_container_size, Mutator};

const CONTAINER_COUNT: usize = 267;
const RAW_BITCODE_COUNT: usize = 6;
const MUTATIONS: usize = 10_000;

fn corpus(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(sub)
}

fn load(sub: &str, suffix: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus(sub);
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap()))
        .collect();
    files.sort();
    files
}

fn containers() -> Vec<(String, Vec<u8>)> {
    load("dxil/vkd3d-proton", ".dxil")
}

/// `name.<stage>_<major>_<minor>.dxil` → (stage, major, minor).
fn profile_of(name: &str) -> (&str, u8, u8) {
    let stem = name.strip_suffix(".dxil").unwrap();
    let profile = stem.rsplit('.').next().unwrap();
    let mut parts = profile.split('_');
    let stage = parts.next().unwrap();
    let major = parts.next().unwrap().parse().unwrap();
    let minor = parts.next().unwrap().parse().unwrap();
    (stage, major, minor)
}

#[test]
fn every_container_has_a_program_matching_its_file_name() {
    let files = containers();
    assert_eq!(files.len(), CONTAINER_COUNT);
    let mut stages: BTreeMap<String, usize> = BTreeMap::new();
    let mut chunks: BTreeMap<String, usize> = BTreeMap::new();
    let mut psv_versions: BTreeMap<u32, usize> = BTreeMap::new();
    let mut features: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, bytes) in &files {
        assert_eq!(detect(bytes), InputKind::Container, "{name}");
        let container = Container::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let program = container.dxil().unwrap_or_else(|e| panic!("{name}: {e}"));
        let (stage, major, minor) = profile_of(name);
        assert_eq!(program.fourcc, FourCc::DXIL, "{name}");
        assert_eq!(program.shader_kind.profile_prefix(), Some(stage), "{name}: {:?}", program.shader_kind);
        assert_eq!((program.major, program.minor), (major, minor), "{name}");
        assert_eq!(program.profile().as_deref(), Some(name.rsplit('.').nth(1).unwrap()), "{name}");
        assert!(program.bitcode.starts_with(b"BC\xc0\xde"), "{name}");
        assert_eq!(detect(program.bitcode), InputKind::Bitcode, "{name}");
        assert_eq!(program.dxil_major, 1, "{name}");

        let summary = ContainerSummary::new(&container);
        assert!(summary.errors.is_empty(), "{name}: {:?}", summary.errors);
        serde_json::to_string(&summary).unwrap();
        if let Some(psv) = &summary.psv0 {
            *psv_versions.entry(psv.runtime_info.version).or_default() += 1;
            if let Some(v1) = psv.runtime_info.v1 {
                assert_eq!(v1.shader_stage, program.shader_kind, "{name}");
            }
            assert_eq!(
                psv.expected_dependency_data_len(),
                Some(psv.dependency_data.len() as u64),
                "{name}: ViewID/dependency table size"
            );
            if psv.runtime_info.version >= 3 {
                assert!(!psv.runtime_info.entry_function_name.unwrap().is_empty(), "{name}");
            }
        }
        for name in summary.feature_info.iter().flat_map(|f| f.names()) {
            *features.entry(name).or_default() += 1;
        }
        *stages.entry(stage.to_owned()).or_default() += 1;
        for chunk in &container.chunks {
            *chunks.entry(chunk.fourcc.to_string()).or_default() += 1;
        }
    }
    println!("stages: {stages:?}");
    println!("chunks: {chunks:?}");
    println!("PSV0 runtime info versions: {psv_versions:?}");
    println!("feature flags: {features:?}");
    assert_eq!(chunks["DXIL"], CONTAINER_COUNT);
}

#[test]
fn raw_bitcode_files_are_detected_as_bitcode() {
    let files = load("dxil/dxil-spirv-asm", ".dxil");
    assert_eq!(files.len(), RAW_BITCODE_COUNT);
    for (name, bytes) in &files {
        assert_eq!(detect(bytes), InputKind::Bitcode, "{name}");
        assert_eq!(unwrap_bitcode(bytes).unwrap(), &bytes[..], "{name}");
        assert!(matches!(Container::parse(bytes), Err(ContainerError::BadMagic { .. })), "{name}");
    }
}

#[test]
fn llvm_text_corpus_is_detected_as_text() {
    let files = load("ll/dxc-tests", ".ll");
    assert!(!files.is_empty());
    for (name, bytes) in &files {
        assert_eq!(detect(bytes), InputKind::LlvmText, "{name}");
    }
}

/// ISG1/OSG1/PSG1 list one entry per row; PSV0 lists whole elements with a row count.
/// So the PSV0 rows of a signature must add up to the chunk's entry count.
#[test]
fn signatures_parse_and_agree_with_psv0() {
    let mut checked = 0;
    let mut mesh_quirks = 0;
    for (name, bytes) in &containers() {
        let container = Container::parse(bytes).unwrap();
        let kind = container.dxil().unwrap().shader_kind;
        let input = container.input_signature().unwrap_or_else(|e| panic!("{name}: {e}"));
        let output = container.output_signature().unwrap_or_else(|e| panic!("{name}: {e}"));
        let patch = container.patch_constant_signature().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(input.is_some(), container.has_chunk(FourCc::ISG1), "{name}");
        assert_eq!(output.is_some(), container.has_chunk(FourCc::OSG1), "{name}");
        let Some(psv) = container.psv0().unwrap() else {
            assert!(input.is_none() && output.is_none(), "{name}: signatures without PSV0");
            continue;
        };
        let Some(v1) = psv.runtime_info.v1 else {
            continue;
        };
        let pairs = [
            ("input", &input, &psv.input_elements, v1.sig_input_elements),
            ("output", &output, &psv.output_elements, v1.sig_output_elements),
            (
                "patch constant/primitive",
                &patch,
                &psv.patch_const_or_prim_elements,
                v1.sig_patch_const_or_prim_elements,
            ),
        ];
        for (what, signature, elements, count) in pairs {
            assert_eq!(elements.len(), usize::from(count), "{name} {what}");
            let entries = signature.as_ref().map_or(0, |s| s.len());
            let rows: usize = elements.iter().map(|e| usize::from(e.rows)).sum();
            if entries != rows {
                // Older DXC wrote a mesh shader's lone SV_Position once per output
                // vertex in OSG1; PSV0 has the single one-row element.
                let max_vertices = match psv.runtime_info.stage_info {
                    Some(untangle::front::container::psv0::StageInfo::Mesh { max_output_vertices, .. }) => {
                        usize::from(max_output_vertices)
                    }
                    _ => 0,
                };
                let sig = signature.as_ref().unwrap();
                let quirk = kind == ShaderKind::Mesh
                    && what == "output"
                    && entries == max_vertices
                    && rows == 1
                    && sig.elements.iter().all(|e| e.semantic_name == "SV_Position");
                assert!(quirk, "{name} {what}: {entries} signature entries, {rows} PSV0 rows");
                mesh_quirks += 1;
            }
            // Arbitrary semantics carry their name in both.
            if let Some(sig) = signature {
                for element in elements.iter().filter(|e| !e.semantic_name.is_empty()) {
                    for &index in &element.semantic_indexes {
                        assert!(
                            sig.elements.iter().any(|e| e.semantic_name.eq_ignore_ascii_case(element.semantic_name)
                                && e.semantic_index == index),
                            "{name} {what}: {}{index} missing from the signature chunk",
                            element.semantic_name
                        );
                    }
                }
            }
        }
        checked += 1;
    }
    println!("signatures checked against PSV0: {checked}; mesh SV_Position quirks: {mesh_quirks}");
    assert!(checked >= 230);
}

/// Runs the reader and every accessor; only typed errors may come out. Returns a label
/// for the outcome (`ok`, or the first error's variant).
fn exercise(bytes: &[u8]) -> String {
    let _ = detect(bytes);
    let _ = unwrap_bitcode(bytes).map(<[u8]>::len);
    let container = match Container::parse(bytes) {
        Ok(container) => container,
        Err(err) => return label(&err, "parse"),
    };
    for chunk in &container.chunks {
        assert_eq!(chunk.data.len(), chunk.size as usize);
    }
    let mut first_error = None;
    let mut note = |result: Result<(), ContainerError>, what: &str| {
        if let Err(err) = result {
            let _ = (err.to_string(), err.location());
            first_error.get_or_insert_with(|| label(&err, what));
        }
    };
    note(
        container.dxil().map(|p| {
            let _ = detect(p.bitcode);
        }),
        "dxil",
    );
    note(container.debug_dxil().map(drop), "ildb");
    note(container.sfi0().map(|f| drop(f.map(|f| f.names()))), "sfi0");
    note(container.hash().map(drop), "hash");
    note(container.compiler_version().map(drop), "vers");
    note(container.debug_name().map(drop), "ildn");
    note(container.input_signature().map(drop), "isg1");
    note(container.output_signature().map(drop), "osg1");
    note(container.patch_constant_signature().map(drop), "psg1");
    note(container.psv0().map(drop), "psv0");
    let _ = (container.rts0(), container.rdat());
    let summary = ContainerSummary::new(&container);
    serde_json::to_string(&summary).unwrap();
    first_error.unwrap_or_else(|| "ok".to_owned())
}

fn label(err: &ContainerError, what: &str) -> String {
    let debug = format!("{err:?}");
    let variant = debug.split([' ', '{', '(']).next().unwrap_or("");
    format!("{what}: {variant}")
}

fn run_guarded(inputs: impl Iterator<Item = (String, Vec<u8>)>) -> BTreeMap<String, usize> {
    let mut outcomes = BTreeMap::new();
    let mut panics = Vec::new();
    for (id, input) in inputs {
        match catch_unwind(AssertUnwindSafe(|| exercise(&input))) {
            Ok(outcome) => *outcomes.entry(outcome).or_default() += 1,
            Err(_) => {
                let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("container-panics");
                std::fs::create_dir_all(&dir).unwrap();
                let path = dir.join(format!("{}.bin", id.replace(['/', ' '], "_")));
                std::fs::write(&path, &input).unwrap();
                panics.push(format!("{id} (saved to {})", path.display()));
            }
        }
    }
    assert!(panics.is_empty(), "{} inputs panicked:\n{}", panics.len(), panics.join("\n"));
    outcomes
}

#[test]
fn every_prefix_of_three_containers_fails_cleanly() {
    let files = containers();
    let picks =
        ["tessellation.fork_phase_hs.hs_6_0.dxil", "workgraph.basic.lib_6_8.dxil", "pso.gs_mismatch_so_2.gs_6_0.dxil"];
    let mut inputs = Vec::new();
    for pick in picks {
        let (_, bytes) = files.iter().find(|(name, _)| name == pick).unwrap_or_else(|| panic!("{pick} missing"));
        for len in 0..=bytes.len() {
            inputs.push((format!("{pick} prefix {len}"), bytes[..len].to_vec()));
            // With the size field patched, truncation reaches the chunk table and chunks.
            let mut patched = bytes[..len].to_vec();
            patch_container_size(&mut patched);
            inputs.push((format!("{pick} prefix {len} patched"), patched));
        }
    }
    let total = inputs.len();
    let outcomes = run_guarded(inputs.into_iter());
    println!("{total} prefixes: {outcomes:#?}");
    // Only the three complete files are whole containers.
    assert_eq!(outcomes.get("ok"), Some(&6));
}

/// Every prefix of every chunk payload of the same three containers: the chunk's size
/// field shrinks and its tail becomes a gap, so each chunk reader sees each truncation.
#[test]
fn every_chunk_payload_prefix_fails_cleanly() {
    let files = containers();
    let picks =
        ["tessellation.fork_phase_hs.hs_6_0.dxil", "workgraph.basic.lib_6_8.dxil", "pso.gs_mismatch_so_2.gs_6_0.dxil"];
    // (input, chunk fourcc, the bytes the cut removed)
    let mut cases = Vec::new();
    for pick in picks {
        let (_, bytes) = files.iter().find(|(name, _)| name == pick).unwrap();
        let container = Container::parse(bytes).unwrap();
        for chunk in &container.chunks {
            let size_at = chunk.offset as usize + 4;
            for len in 0..chunk.size {
                let mut shrunk = bytes.clone();
                shrunk[size_at..size_at + 4].copy_from_slice(&len.to_le_bytes());
                cases.push((
                    format!("{pick} {} payload prefix {len}", chunk.fourcc),
                    shrunk,
                    chunk.fourcc,
                    &chunk.data[len as usize..],
                ));
            }
        }
    }
    let outcomes = run_guarded(cases.iter().map(|(id, input, ..)| (id.clone(), input.clone())));
    println!("{} chunk payload prefixes: {outcomes:#?}", cases.len());

    let mut accepted = BTreeMap::<String, usize>::new();
    for (id, input, fourcc, cut) in &cases {
        if exercise(input) != "ok" {
            continue;
        }
        // Undetectable truncations: the raw RDAT chunk, zero padding at the end of a
        // chunk, and PSV0's raw dependency tables (which then no longer have the size
        // the layout predicts).
        let psv_short = *fourcc == FourCc::PSV0 && {
            let psv = Container::parse(input).unwrap().psv0().unwrap().unwrap();
            psv.expected_dependency_data_len() != Some(psv.dependency_data.len() as u64)
        };
        let padding = cut.len() < 4 && cut.iter().all(|&b| b == 0);
        assert!(*fourcc == FourCc::RDAT || padding || psv_short, "{id} was accepted");
        *accepted.entry(fourcc.to_string()).or_default() += 1;
    }
    println!("accepted (raw data or padding cut): {accepted:?}");
}

#[test]
fn seeded_mutations_never_panic() {
    let files = containers();
    let seeds: Vec<&[u8]> = files.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    let inputs = (0..MUTATIONS).map(|i| {
        // One mutator per case, so case `i` can be replayed on its own.
        let mut mutator = Mutator::new(0xc0de_0000 ^ i as u64);
        let seed = seeds[i % seeds.len()];
        let mut input = mutator.mutate(seed, &seeds);
        if mutator.rng.chance(60) {
            patch_container_size(&mut input);
        }
        (format!("mutation {i} of {}", files[i % seeds.len()].0), input)
    });
    let outcomes = run_guarded(inputs);
    println!("{MUTATIONS} mutations: {outcomes:#?}");
    // The mutations must reach past the header often enough to test the chunk readers.
    let deep: usize = outcomes.iter().filter(|(k, _)| !k.starts_with("parse")).map(|(_, n)| n).sum();
    assert!(deep > MUTATIONS / 4, "only {deep} mutated inputs got past Container::parse");
}
