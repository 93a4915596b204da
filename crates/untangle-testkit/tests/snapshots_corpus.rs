//! Snapshots (insta) of `info` and `ir` on the shaders in `corpus/`. A change to the IR
//! dump format, the front end or the DXIL layer shows up here as a reviewed diff.

use std::path::{Path, PathBuf};

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

#[test]
fn ir_dumps() {
    for p in corpus_files() {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let loaded = untangle::front::load_path(&p).unwrap();
        let dump = untangle::ir::dump::Dumper::new(&loaded.module).module();
        insta::assert_snapshot!(format!("ir_{name}"), dump);
    }
}

#[test]
fn info_json() {
    for p in corpus_files() {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let loaded = untangle::front::load_path(&p).unwrap();
        let info = untangle::info::Info::new(&loaded, None).unwrap();
        insta::assert_json_snapshot!(format!("info_{name}"), info.to_json());
        insta::assert_snapshot!(format!("info_text_{name}"), info.render_text());
    }
}

#[test]
fn info_json_of_a_container() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/dxil/vkd3d-proton/bindless.bindless_cbv.cs_6_0.dxil");
    let loaded = untangle::front::load_path(&p).unwrap();
    let c = loaded.container();
    let info = untangle::info::Info::new(&loaded, c.as_ref()).unwrap();
    insta::assert_json_snapshot!("info_bindless_cbv_container", info.to_json());
}
