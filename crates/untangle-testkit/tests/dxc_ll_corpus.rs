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
use untangle::emit::TranslateError;
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");

/// Files that translate today (all of them pass `spirv-val`).
const MIN_TRANSLATED: usize = 112;

fn kind(e: &untangle::Error) -> String {
    match e {
        untangle::Error::Translate(TranslateError::UnsupportedOp { name, .. }) => format!("unsupported op {name}"),
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
