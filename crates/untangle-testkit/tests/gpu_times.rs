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
        // Six runs a side, three in each preparation order: a median a stall of lavapipe's
        // threads on a loaded machine cannot move (two runs, one an order, are a mean).
        .args(["--reps", "6", "--dispatches", dispatches, "--groups", "16", "--extent", "64", "--out"])
        .arg(&tsv)
        .output()
        .expect("run untangle-gpu");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{:?}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&tsv).expect("the TSV was written");
    (stdout, text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect())
}

/// Held by each test while it times: the timing assertions (twenty dispatches several times
/// one) do not hold while the other test loads the same CPU device.
static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn row<'a>(rows: &'a [Vec<String>], module: &str) -> &'a [String] {
    rows.iter().find(|r| r[0] == module).unwrap_or_else(|| panic!("no row for {module}: {rows:?}"))
}

#[test]
fn gpu_times_measures_both_sides_and_skips_mismatched_pairs() {
    let _device = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
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

/// Runs `untangle-gpu COMMAND --graphics --reference DIR` with a small workload; its stdout
/// (and the TSV rows of gpu-times).
fn graphics_times(command: &str, dir: &Path, dispatches: &str) -> (String, Vec<Vec<String>>) {
    let tsv = dir.join(format!("{command}-{dispatches}.tsv"));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_untangle-gpu"));
    cmd.args([command, "--graphics", "--corpus", CORPUS, "--reference"]).arg(dir).args(["--reps", "2"]);
    if command == "gpu-times" {
        cmd.args(["--dispatches", dispatches, "--extent", "64", "--out"]).arg(&tsv);
    }
    let out = cmd.output().expect("run untangle-gpu");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{:?}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&tsv).unwrap_or_default();
    (stdout, text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect())
}

/// `gpu-times --graphics` and `pipeline-times --graphics`: every graphics runner pipeline
/// against a "reference" that is untangle's own translation of each file with default
/// options (no case's stage options: a case that needs them to link is skipped as the real
/// reference's would be), one file replaced by a module of another stage.
#[test]
fn graphics_pipelines_are_timed_on_both_sides_and_unpaired_ones_skipped() {
    use untangle_testkit::vulkan::graphics_cases::cases;
    let _device = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpu) = open_or_skip("gpu_times graphics") else { return };
    let mesh = gpu.info().features.mesh_shader;
    drop(gpu);
    let dir: PathBuf = std::env::temp_dir().join(format!("untangle-gpu-times-graphics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let all = cases();
    for file in all.iter().flat_map(|c| c.files.iter()) {
        std::fs::write(dir.join(format!("{file}.spv")), translate(file)).unwrap();
    }
    // gs_points' geometry shader replaced by its vertex shader.
    let gs_points = all.iter().find(|c| c.name == "gs_points").unwrap();
    std::fs::write(dir.join(format!("{}.spv", gs_points.files[1])), translate(gs_points.files[0])).unwrap();

    let (stdout, rows) = graphics_times("gpu-times", &dir, "1");
    assert_eq!(rows[0], ["module", "stage", "untangle_us", "reference_us", "ratio", "status", "detail"]);
    assert_eq!(rows.len(), all.len() + 1, "one row per case: {rows:?}");
    let time = |r: &[String], i: usize| -> f64 { r[i].parse().unwrap_or_else(|_| panic!("{r:?}")) };
    // Targets scaled by a whole factor to at least 64 pixels (gs_topology's are 9 wide).
    for (case, stages, px) in [
        ("tess_control_point_phase", "vs+hs+ds+ps", 64),
        ("gs_topology_line", "vs+gs+ps", 72),
        ("gs_primitive_id", "vs+gs+ps", 64),
        ("vs_ps_export_coverage", "vs+ps", 64),
    ] {
        let r = row(&rows, case);
        assert_eq!((r[1].as_str(), r[5].as_str()), (stages, "ok"), "{r:?}");
        let (u, re, ratio) = (time(r, 2), time(r, 3), time(r, 4));
        assert!(u > 0.0 && re > 0.0 && (ratio - u / re).abs() < 1e-3 * ratio, "{r:?}");
        assert!(r[6].starts_with(&format!("1 x draw on {px}x{px} px")), "{r:?}");
    }
    // Both cases of the replaced file.
    for case in ["gs_points", "all_stages"] {
        let broken = row(&rows, case);
        assert_eq!(broken[5], "skipped", "{broken:?}");
        assert!(broken[6].contains("execution model 0"), "{broken:?}");
    }
    let multiview = row(&rows, "multiview_view_id");
    assert!(multiview[5] == "skipped" && multiview[6].contains("view instancing"), "{multiview:?}");
    if !mesh {
        let r = row(&rows, "as_ms_payload");
        assert!(r[5] == "skipped" && r[6].contains("VK_EXT_mesh_shader"), "{r:?}");
    }
    assert!(stdout.contains("pipelines (") && stdout.contains("| sum of medians |"), "{stdout}");
    assert!(stdout.contains("skipped: gs_points: the reference's"), "{stdout}");

    let (stdout, _) = graphics_times("pipeline-times", &dir, "1");
    assert!(stdout.contains("pipelines, median of 2 creations each"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("tess_control_point_phase") && l.contains("ratio")), "{stdout}");
    assert!(stdout.contains("skipped: gs_points: the reference's"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
