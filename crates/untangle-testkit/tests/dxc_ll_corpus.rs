//! Every DXC test file in LLVM text (`../shared/corpus/ll/dxc-tests`, 285 files: DXC's own
//! output, validator tests that break DXIL rules on purpose, DXBC-converter output) either
//! translates to a module that passes `spirv-val --target-env vulkan1.3`, or is a typed error.
//! An invalid module is never the answer, however malformed the input.
//!
//! Prints the refusals by kind (the work list) and asserts that at least [`MIN_TRANSLATED`]
//! files translate, so a regression that turns translations into errors is caught too. The
//! validator is required under CI (`CI` set).

use std::collections::BTreeMap;
use std::path::PathBuf;
use untangle::Options;
use untangle::TranslateError;
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");

/// Files that translate today (all of them pass `spirv-val`).
const MIN_TRANSLATED: usize = 112;

fn kind(e: &untangle::Error) -> String {
    match e {
        untangle::Error::Translate(TranslateError::UnsupportedOp { op, .. }) => format!("unsupported op {}", op.name()),
        untangle::Error::Translate(TranslateError::UnsupportedStage { stage }) => format!("unsupported stage {stage}"),
        untangle::Error::Translate(TranslateError::Invalid { message, .. }) => format!("invalid: {message}"),
        other => {
            let s = other.to_string();
            s.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).take(100).collect()
        }
    }
}

#[test]
fn dxc_tests_translate_to_valid_modules_or_typed_errors() {
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        eprintln!("spirv-val not found: skipping");
        return;
    };
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(DIR) {
        Ok(d) => d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "ll")).collect(),
        Err(_) => {
            assert!(std::env::var_os("CI").is_none(), "{DIR} is required under CI");
            eprintln!("{DIR} not found: skipping");
            return;
        }
    };
    paths.sort();
    let (mut translated, mut invalid) = (0, Vec::new());
    let mut refused: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in &paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(p).unwrap();
        let result = untangle::Shader::parse(&bytes).and_then(|s| s.translate(&Options::default()));
        match result {
            Ok(t) => {
                translated += 1;
                if let Err(msg) = val.validate(&t.words, "vulkan1.3") {
                    invalid.push(format!("{name}: {}", msg.lines().next().unwrap_or("")));
                }
            }
            Err(e) => refused.entry(kind(&e)).or_default().push(name),
        }
    }
    let mut sorted: Vec<_> = refused.iter().collect();
    sorted.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), (*k).clone()));
    eprintln!("typed errors by kind:");
    for (k, v) in sorted {
        eprintln!("{:4}  {k}   e.g. {}", v.len(), v[0]);
    }
    eprintln!("{} files: {translated} translate, {} invalid modules", paths.len(), invalid.len());
    assert!(invalid.is_empty(), "modules that fail spirv-val:\n{}", invalid.join("\n"));
    assert!(translated >= MIN_TRANSLATED, "only {translated} files translate, expected at least {MIN_TRANSLATED}");
}

/// Why a DXC `.ll` test of a graphics stage does not translate. Each is a property of the
/// input, not a gap: none of them is DXIL 1.8 that a D3D12 driver would be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NotTranslated {
    /// Not finished DXIL: the input of one of DXC's passes (high-level `dx.hl.*` calls,
    /// entry points with parameters, calls to other functions, `i25`, pointer arithmetic,
    /// DXBC-converter labels and pointer bitcasts between sizes, `tempReg*` / `minPrecXReg*`
    /// intermediates). Every LLVM-level `Unsupported` error lands here: the counts per stage
    /// pin which files they are (the list was checked file by file).
    PassInput,
    /// Invalid DXIL: a validator test that breaks a rule on purpose (an operation outside its
    /// stage, an element row past its rows, an unbound register, ...), or an operation of
    /// DXIL 1.9 (opcodes past DXIL 1.8's 258).
    InvalidOrNewer,
}

fn not_translated(e: &untangle::Error) -> Option<NotTranslated> {
    use untangle::emit::support::Refusal;
    use untangle::Error::Translate;
    Some(match e {
        Translate(TranslateError::Unsupported { .. }) => NotTranslated::PassInput,
        Translate(TranslateError::UnsupportedOp { reason: Refusal::DxbcConverterOnly, .. }) => NotTranslated::PassInput,
        // DXC's validator tests of operations outside their stages: invalid input.
        Translate(TranslateError::UnsupportedOp { reason: Refusal::NotInStage, .. }) => NotTranslated::InvalidOrNewer,
        Translate(TranslateError::Malformed { .. } | TranslateError::Invalid { .. }) => NotTranslated::InvalidOrNewer,
        _ => return None,
    })
}

/// Every DXC `.ll` test of a vertex, hull, domain, geometry or pixel shader: it translates
/// and passes `spirv-val`, or is refused for one of the [`NotTranslated`] reasons (never an
/// operation of these stages refused, never an internal error). Asserts the counts per
/// stage (files, translated, each reason) and prints the list (file → outcome).
#[test]
fn dxc_tests_of_the_graphics_stages_per_stage() {
    let Ok(entries) = std::fs::read_dir(DIR) else {
        assert!(std::env::var_os("CI").is_none(), "{DIR} is required under CI");
        return;
    };
    let val = find_spirv_val();
    if val.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let mut paths: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "ll")).collect();
    paths.sort();
    // stage → (files, translated, pass inputs, invalid or newer, ray queries)
    let mut counts: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut translated = Vec::new();
    for p in &paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Ok(shader) = untangle::Shader::parse(&std::fs::read(p).unwrap()) else { continue };
        use untangle::ShaderKind::*;
        let stage = match shader.stage() {
            Vertex => "vs",
            Hull => "hs",
            Domain => "ds",
            Geometry => "gs",
            Pixel => "ps",
            _ => continue,
        };
        let c = counts.entry(stage).or_default();
        c[0] += 1;
        let outcome = match shader.translate(&Options::default()) {
            Ok(t) => match val.as_ref().map(|v| v.validate(&t.words, "vulkan1.3")) {
                Some(Err(msg)) => {
                    wrong.push(format!("{name}: spirv-val: {}", msg.lines().next().unwrap_or("")));
                    continue;
                }
                _ => {
                    c[1] += 1;
                    translated.push(name.clone());
                    "translates, spirv-val clean".to_string()
                }
            },
            Err(e) => match not_translated(&e) {
                Some(why) => {
                    c[2 + why as usize] += 1;
                    format!("{why:?}: {e}")
                }
                None => {
                    wrong.push(format!("{name}: {e}"));
                    continue;
                }
            },
        };
        println!("{stage}  {name}  →  {}", outcome.chars().take(160).collect::<String>());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (stage, c) in &counts {
        println!("{stage}: {} files, {} translate, {} pass inputs, {} invalid or DXIL 1.9", c[0], c[1], c[2], c[3]);
    }
    let expected: BTreeMap<&str, [usize; 4]> = [
        ("ds", [3, 1, 0, 2]),
        ("gs", [3, 1, 0, 2]),
        ("hs", [4, 2, 0, 2]),
        ("ps", [133, 105, 20, 8]),
        ("vs", [19, 9, 5, 5]),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    // DXBC-converter output using evalCentroid/evalSampleIndex/evalSnapped (dynamic rows)
    // and renderTargetGetSampleCount.
    for want in ["dxilconv.dxbc2dxil.eval.ref.ll", "dxilconv.dxbc2dxil.samplecount.ref.ll"] {
        assert!(translated.iter().any(|t| t == want), "{want} must translate");
    }
}

/// A library may hold entries of any stage since DXIL 1.8 (DXC's long-vector pass test has a
/// vertex entry that names its resources with `createHandleForLib`): the entry translates as
/// a vertex shader and validates, and a library entry whose kind tag names no stage is
/// malformed input.
#[test]
fn library_entry_of_a_graphics_stage_translates_as_that_stage() {
    let path = PathBuf::from(DIR).join("CodeGenDXIL.passes.longvec-load-stores-scalarizevecintrinsics.ll");
    let Ok(bytes) = std::fs::read(&path) else {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", path.display());
        return;
    };
    let t = untangle::Shader::parse(&bytes).and_then(|s| s.translate(&Options::default())).expect("translates");
    // OpEntryPoint (15) with execution model Vertex (0).
    assert!(
        t.words[5..].windows(2).any(|w| w[0] & 0xffff == 15 && w[0] >> 16 >= 4 && w[1] == 0),
        "not a vertex module"
    );
    if let Some(val) = find_spirv_val() {
        val.validate(&t.words, "vulkan1.3").expect("valid module");
    }
    // Kind tag 6 (library) on the entry: no stage to translate it as.
    let text = String::from_utf8(bytes).unwrap().replace("!24 = !{i32 8, i32 1,", "!24 = !{i32 8, i32 6,");
    let e = untangle::Shader::parse(text.as_bytes()).and_then(|s| s.translate(&Options::default())).unwrap_err();
    assert!(e.to_string().contains("names no stage"), "{e}");
}
