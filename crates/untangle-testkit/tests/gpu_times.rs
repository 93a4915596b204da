//! `untangle-gpu gpu-times` on the device (lavapipe in CI): GPU execution time of module
//! pairs, measured with timestamp queries. The pairs here are untangle's translations of
//! two corpus shaders (compute, and fragment with one render target) on both sides, and a
//! pair whose sides differ in stage, which must be skipped with its reason. Checks the
//! table, the TSV (`--out`) and that the timestamps bracket the work: twenty dispatches
//! or draws take several times as long as one.

use std::path::{Path, PathBuf};
use untangle::Options;
use untangle_testkit::vulkan::open_or_skip;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
const CS: &str = "command.cbv_hoisting.cs_6_0.dxil";
const PS: &str = "sm_advanced.ps_fp16_nonnative.ps_6_2.dxil";

fn translate(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(Path::new(CORPUS).join(name)).expect("corpus shader");
    let t = untangle::translate(&bytes, &Options::default()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", name);
    t.words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs `gpu-times` over `dir`/u and `dir`/r; its stdout and TSV rows (split on tabs).
fn gpu_times(dir: &Path, dispatches: &str) -> (String, Vec<Vec<String>>) {
    let tsv = dir.join(format!("times-{dispatches}.tsv"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_untangle-gpu"))
        .arg("gpu-times")
        .arg("--ours")
        .arg(dir.join("u"))
        .arg("--reference")
        .arg(dir.join("r"))
        .args(["--reps", "2", "--dispatches", dispatches, "--groups", "16", "--extent", "64", "--out"])
        .arg(&tsv)
        .output()
        .expect("run untangle-gpu");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{:?}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&tsv).expect("the TSV was written");
    (stdout, text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect())
}

fn row<'a>(rows: &'a [Vec<String>], module: &str) -> &'a [String] {
    rows.iter().find(|r| r[0] == module).unwrap_or_else(|| panic!("no row for {module}: {rows:?}"))
}

#[test]
fn gpu_times_measures_both_sides_and_skips_mismatched_pairs() {
    let Some(gpu) = open_or_skip("gpu_times") else { return };
    drop(gpu);
    let dir: PathBuf = std::env::temp_dir().join(format!("untangle-gpu-times-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (cs, ps) = (translate(CS), translate(PS));
    for side in ["u", "r"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        std::fs::write(dir.join(side).join("a-cs.spv"), &cs).unwrap();
        std::fs::write(dir.join(side).join("b-ps.spv"), &ps).unwrap();
    }
    // A pair that cannot be the same work: compute against fragment.
    std::fs::write(dir.join("u").join("c-mixed.spv"), &cs).unwrap();
    std::fs::write(dir.join("r").join("c-mixed.spv"), &ps).unwrap();

    let (stdout, rows) = gpu_times(&dir, "1");
    assert_eq!(rows[0], ["module", "stage", "untangle_us", "reference_us", "ratio", "status", "detail"]);
    assert_eq!(rows.len(), 4, "{rows:?}");
    let time = |r: &[String], i: usize| -> f64 { r[i].parse().unwrap_or_else(|_| panic!("{r:?}")) };
    for (module, stage) in [("a-cs.spv", "cs"), ("b-ps.spv", "ps")] {
        let r = row(&rows, module);
        assert_eq!((r[1].as_str(), r[5].as_str()), (stage, "ok"), "{r:?}");
        let (u, re, ratio) = (time(r, 2), time(r, 3), time(r, 4));
        assert!(u > 0.0 && re > 0.0, "{r:?}");
        assert!((ratio - u / re).abs() < 1e-3 * ratio, "{r:?}");
    }
    assert!(row(&rows, "a-cs.spv")[6].contains("1 x 16 groups of"), "{rows:?}");
    assert!(row(&rows, "b-ps.spv")[6].contains("64x64 px, 1 targets"), "{rows:?}");
    let mixed = row(&rows, "c-mixed.spv");
    assert_eq!(mixed[5], "skipped", "{mixed:?}");
    assert!(mixed[6].contains("the sides differ"), "{mixed:?}");
    assert!(stdout.contains("2 module pairs (1 cs, 1 ps)") && stdout.contains("| sum of medians |"), "{stdout}");
    assert!(stdout.contains("skipped: c-mixed.spv: the sides differ"), "{stdout}");

    // The timestamps bracket the work: twenty dispatches or draws take several times as
    // long as one (lavapipe's timestamps do not see vertex work: no vertex pair here).
    let (_, twenty) = gpu_times(&dir, "20");
    for module in ["a-cs.spv", "b-ps.spv"] {
        let (one, many) = (time(row(&rows, module), 2), time(row(&twenty, module), 2));
        assert!(many > 4.0 * one, "{module}: 1 dispatch or draw {one} µs, 20 of them {many} µs");
    }
    assert!(row(&twenty, "a-cs.spv")[6].starts_with("20 x 16 groups"), "{twenty:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
