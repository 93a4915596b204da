//! `info` over the shared corpus: every DXIL container and bitcode file, every csmith CFG,
//! and every DXC `.ll` test (all of which LLVM 14 accepts) must load and be described.

use std::path::{Path, PathBuf};

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// (described, failures with their messages)
fn describe_all(paths: &[PathBuf]) -> (usize, Vec<String>) {
    let mut ok = 0;
    let mut failed = Vec::new();
    for p in paths {
        let result = untangle::front::load_path(p).map_err(untangle::Error::from).and_then(|l| {
            let c = l.container();
            untangle::info::Info::new(&l, c.as_ref()).map(|i| i.to_json())
        });
        match result {
            Ok(json) => {
                assert!(json.get("dxil").is_some());
                ok += 1
            }
            Err(e) => failed.push(format!("{}: {e}", p.display())),
        }
    }
    (ok, failed)
}

#[test]
fn all_dxil_files_describe() {
    let mut paths = files("dxil/vkd3d-proton", "dxil");
    paths.extend(files("dxil/dxil-spirv-asm", "dxil"));
    assert_eq!(paths.len(), 273);
    let (ok, failed) = describe_all(&paths);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(ok, 273);
}

#[test]
fn all_csmith_cfgs_describe() {
    let paths = files("cfg/csmith", "ll");
    assert_eq!(paths.len(), 257);
    let (ok, failed) = describe_all(&paths);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(ok, 257);
}

#[test]
fn all_dxc_ll_tests_describe() {
    let paths = files("ll/dxc-tests", "ll");
    assert_eq!(paths.len(), 285);
    let (ok, failed) = describe_all(&paths);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(ok, 285);
}

#[test]
fn dxil_modules_carry_a_shader_model_and_entry_point() {
    for p in files("dxil/vkd3d-proton", "dxil") {
        let l = untangle::front::load_path(&p).unwrap();
        let d = untangle::dxil::analyze(&l.module).unwrap();
        let sm = d.shader_model.unwrap_or_else(|| panic!("{}: no shader model", p.display()));
        // The file name ends in `.<stage>_<major>_<minor>.dxil`.
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let profile = stem.rsplit('.').next().unwrap();
        assert_eq!(profile, format!("{}_{}_{}", sm.profile, sm.major, sm.minor), "{}", p.display());
        assert!(!d.entry_points.is_empty(), "{}", p.display());
        if sm.profile == "cs" {
            let ep = d.entry_points.iter().find(|e| e.function.is_some()).unwrap();
            assert!(ep.properties.num_threads.is_some(), "{}: compute without numthreads", p.display());
        }
    }
}
