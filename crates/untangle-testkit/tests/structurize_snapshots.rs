//! Snapshots (insta) of the structured output of the named cases in
//! `corpus/structurizer/` (if-else ladders, nested ifs, loops with breaks and continues,
//! triple break, switch fall-through, infinite loop with return, unrolled interleaved
//! breaks, ...): the nested pseudo-code and the block listing. Each case is also checked
//! (rules, traces, spirv-val when installed), so a snapshot never records a wrong answer.

use std::path::{Path, PathBuf};
use untangle::passes::text::{render_listing, render_structured};
use untangle::passes::{structurize, Options};
use untangle_testkit::check::shape_check::check_module;
use untangle_testkit::check::spirv_val::find_spirv_val;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/structurizer");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    v.sort();
    assert!(v.len() >= 20, "expected the ~20 named cases, found {}", v.len());
    v
}

#[test]
fn structured_output_of_named_cases() {
    let validator = find_spirv_val();
    for p in cases() {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let loaded = untangle::front::load_path(&p).unwrap();
        check_module(&loaded.module, 200, 1, validator.as_ref()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut text = String::new();
        for (_, f) in loaded.module.defined_functions() {
            let s = structurize(f, Options::default()).unwrap();
            text.push_str(&format!("; {} blocks, {:?}\n", f.layout.len(), s.stats));
            text.push_str(&render_structured(&s.scfg, Some(f)));
            text.push_str("\n; listing\n");
            text.push_str(&render_listing(&s.scfg, Some(f)));
        }
        insta::assert_snapshot!(format!("structured_{name}"), text);
    }
}
