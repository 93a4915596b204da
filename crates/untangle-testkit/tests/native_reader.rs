//! The native bitcode reader against the LLVM front end, over every DXIL file of the shared
//! corpus: the IR dump (`untangle::ir::dump`) and `info --json` must be identical.
//!
//! Nothing is normalized. Both front ends number types, constants and metadata in the same
//! order (the native reader's canonical renumbering), unnamed values are numbered by the dump itself,
//! and the module name is the file name in both.
#![cfg(feature = "llvm")]

use std::path::{Path, PathBuf};
use untangle::front::{load_bytes_with, FrontEnd, Loaded};

fn dxil_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil");
    let mut v = Vec::new();
    for sub in ["vkd3d-proton", "dxil-spirv-asm"] {
        for e in std::fs::read_dir(root.join(sub)).expect("shared corpus") {
            let p = e.expect("dir entry").path();
            if p.extension().is_some_and(|x| x == "dxil") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn render(l: &Loaded) -> (String, String) {
    let dump = untangle::ir::dump::Dumper::new(&l.module).module();
    let c = l.container();
    let info = match untangle::info::Info::new(l, c.as_ref()) {
        Ok(i) => serde_json::to_string_pretty(&i.to_json()).unwrap_or_default(),
        Err(e) => format!("error: {e}"),
    };
    (dump, info)
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  native: {x}\n  llvm:   {y}", i + 1);
        }
    }
    format!("lengths differ: {} vs {} lines", a.lines().count(), b.lines().count())
}

#[test]
fn native_reader_matches_llvm_on_every_corpus_file() {
    let files = dxil_files();
    assert_eq!(files.len(), 273);
    let mut matched = 0;
    let mut failures = Vec::new();
    for p in &files {
        let bytes = std::fs::read(p).expect("corpus file");
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let native = match load_bytes_with(bytes.clone(), &name, FrontEnd::Native) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{name}: native reader failed: {e}"));
                continue;
            }
        };
        let llvm = load_bytes_with(bytes, &name, FrontEnd::Llvm).expect("LLVM reads the corpus");
        let (nd, ni) = render(&native);
        let (ld, li) = render(&llvm);
        if nd != ld {
            failures.push(format!("{name}: IR dump differs at {}", first_difference(&nd, &ld)));
        } else if ni != li {
            failures.push(format!("{name}: info --json differs at {}", first_difference(&ni, &li)));
        } else {
            matched += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), files.len(), failures.join("\n"));
    assert_eq!(matched, 273);
}
