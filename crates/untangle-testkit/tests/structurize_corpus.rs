//! The structurizer on every function of the shared corpus: `../shared/corpus/cfg/csmith`
//! (257 optimizer-shaped C programs) and the 273 DXIL shaders under `../shared/corpus/dxil`.
//! Each function must pass the structured-rules checker and trace like its input on 200
//! random decision streams (graph level and through the emitted SPIR-V), and each file's
//! shape module must pass `spirv-val` (vulkan1.1). The validator is required under CI
//! (`CI` set); elsewhere its absence is reported and validation skipped.

use std::path::{Path, PathBuf};
use untangle_testkit::check::shape_check::{check_module, ShapeSummary};
use untangle_testkit::check::spirv_val::find_spirv_val;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
const STREAMS: usize = 200;

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

fn run(dir: &str, ext: &str) -> (usize, usize, ShapeSummary, Vec<String>) {
    let validator = find_spirv_val();
    if validator.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI (tools/test.sh installs it)");
        eprintln!("spirv-val not found: modules are not validated");
    }
    let mut paths = Vec::new();
    files(&Path::new(CORPUS).join(dir), ext, &mut paths);
    paths.sort();
    let mut total = ShapeSummary::default();
    let mut failures = Vec::new();
    let mut validated = 0;
    for p in &paths {
        let loaded = untangle::front::load_path(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        match check_module(&loaded.module, STREAMS, 0x5eed, validator.as_ref()) {
            Ok(s) => {
                total.functions += s.functions;
                validated += s.validated as usize;
                untangle_testkit::check::shape_check::add_stats(&mut total.stats, &s.stats);
            }
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    (paths.len(), validated, total, failures)
}

#[test]
fn csmith_functions_structurize_validate_and_trace() {
    let (files, validated, total, failures) = run("cfg/csmith", "ll");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(files, 257);
    assert_eq!(total.functions, 257);
    if find_spirv_val().is_some() {
        assert_eq!(validated, 257);
    }
    eprintln!("csmith: {total:?}");
}

#[test]
fn dxil_functions_structurize_validate_and_trace() {
    let (files, validated, total, failures) = run("dxil", "dxil");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(files, 273);
    if find_spirv_val().is_some() {
        assert_eq!(validated, 273);
    }
    eprintln!("dxil: {total:?}");
}
