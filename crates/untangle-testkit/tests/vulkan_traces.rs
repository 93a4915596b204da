//! Shape-mode trace programs on a real Vulkan driver (lavapipe in CI): random CFGs and
//! every corpus CFG function, structurized, emitted in batch mode (one invocation per
//! decision stream) and run on the GPU; every trace slice must equal the original CFG's
//! (`check::gpu_trace`). A deliberately broken structurizer output must be caught.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1` (set by `tools/test.sh`, which installs lavapipe), when
//! they fail. `UNTANGLE_GPU_RANDOM=N` changes the number of random CFGs (default 500).

use std::path::{Path, PathBuf};
use std::time::Duration;
use untangle::ir::Types;
use untangle::passes::{structurize, Options, Term};
use untangle_testkit::check::gpu_trace::{random_case, TraceCase, DEFAULT_BATCH};
use untangle_testkit::fuzzing::structured_gen::{generate, ShapeGenConfig};
use untangle_testkit::vulkan::suite::{run_case, run_suite, CaseFailure, SuiteConfig};
use untangle_testkit::vulkan::Gpu;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/cfg");
/// Software drivers compile a shader in about a second per few hundred blocks.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Random CFGs are capped at this many blocks (the corpus brings larger ones).
const RANDOM_MAX_BLOCKS: usize = 60;

/// `n` device instances (pipelines compile in parallel, one per instance), or none.
fn gpus_or_skip(test: &str, n: usize) -> Option<Vec<Gpu>> {
    let mut gpus = vec![gpu_or_skip(test)?];
    while gpus.len() < n {
        gpus.push(Gpu::open().unwrap_or_else(|e| panic!("{test}: second instance: {e}")));
    }
    Some(gpus)
}

use untangle_testkit::vulkan::open_or_skip as gpu_or_skip;

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).min(4)
}

fn config() -> SuiteConfig {
    SuiteConfig { threads: cores(), timeout: TIMEOUT, progress_every: 0 }
}

/// After a hang a driver thread may spin on, and exit handlers may wait for it: report and
/// end the process at once, so a hang fails the run instead of stalling it.
fn abort_on_hang(stats: &untangle_testkit::vulkan::suite::SuiteStats, failures: &[String]) {
    if stats.hangs > 0 {
        eprintln!("{stats}\n{}", failures.join("\n"));
        std::process::abort();
    }
}

fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            ll_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ll") {
            out.push(p);
        }
    }
}

#[test]
fn random_cfgs_trace_like_the_original_on_the_gpu() {
    let Some(mut gpus) = gpus_or_skip("random CFGs", cores()) else { return };
    let count: usize = std::env::var("UNTANGLE_GPU_RANDOM").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let mut failures = Vec::new();
    let stats = run_suite(
        &mut gpus,
        count,
        config(),
        |i| {
            random_case(i as u64, DEFAULT_BATCH, 64, Some(RANDOM_MAX_BLOCKS))
                .map_err(|e| CaseFailure::Build { name: format!("random seed {i}"), message: e.to_string() })
        },
        |f| failures.push(f.to_string()),
    );
    println!("random CFGs: {stats}");
    abort_on_hang(&stats, &failures);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((stats.passed, stats.failed, stats.hangs), (count, 0, 0));
    assert_eq!(stats.streams, 64 * count as u64);
}

#[test]
fn corpus_cfg_functions_trace_like_the_original_on_the_gpu() {
    let Some(mut gpus) = gpus_or_skip("corpus CFG functions", cores()) else { return };
    let mut files = Vec::new();
    ll_files(Path::new(CORPUS), &mut files);
    files.sort();
    assert!(files.len() >= 250, "expected the csmith corpus under {CORPUS}, found {} files", files.len());
    let mut funcs = Vec::new();
    for f in &files {
        let loaded = untangle::front::load_path(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (_, func) in loaded.module.defined_functions() {
            funcs.push((format!("{}::{}", f.display(), func.name), func.clone()));
        }
    }
    let mut failures = Vec::new();
    let stats = run_suite(
        &mut gpus,
        funcs.len(),
        config(),
        |i| {
            let (name, func) = &funcs[i];
            TraceCase::new(name.clone(), func, DEFAULT_BATCH, 64, i as u64)
                .map_err(|e| CaseFailure::Build { name: name.clone(), message: e.to_string() })
        },
        |f| failures.push(f.to_string()),
    );
    println!("corpus CFG functions ({} files): {stats}", files.len());
    abort_on_hang(&stats, &failures);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((stats.passed, stats.failed, stats.hangs), (funcs.len(), 0, 0));
}

/// Swapping the targets of one original conditional branch in the structurized graph (a
/// structurizer bug that keeps the output well-formed) must show as a trace mismatch on
/// the GPU, while the unbroken graph of the same function passes.
#[test]
fn a_flipped_branch_is_caught_on_the_gpu() {
    let Some(mut gpu) = gpu_or_skip("flipped branch") else { return };
    let config = ShapeGenConfig { max_blocks: 30, ..ShapeGenConfig::default() };
    let mut caught = 0;
    for seed in 0..6u64 {
        let mut types = Types::default();
        let func = generate(seed, &config, &mut types);
        let good = structurize(&func, Options::default()).expect("structurizes");
        // The first conditional branch in layout order with two different targets.
        let Some(&victim) = good.scfg.layout.iter().find(|&&b| {
            matches!(&good.scfg.blocks[b].term, Term::Orig { succs, .. } if succs.len() == 2 && succs[0] != succs[1])
        }) else {
            continue;
        };
        let mut bad = good.clone();
        if let Term::Orig { succs, .. } = &mut bad.scfg.blocks[victim].term {
            succs.swap(0, 1);
        }
        let case = |s| TraceCase::from_structured(format!("seed {seed}"), &func, s, DEFAULT_BATCH, 64, seed).unwrap();
        run_case(&mut gpu, &case(&good), TIMEOUT).unwrap_or_else(|e| panic!("seed {seed}, unbroken: {e}"));
        match run_case(&mut gpu, &case(&bad), TIMEOUT) {
            Err(CaseFailure::Mismatch(m)) => {
                println!("seed {seed}: flipped branch caught:\n{m}");
                assert!(m.invocation.is_some());
                caught += 1;
            }
            Err(e) => panic!("seed {seed}: expected a trace mismatch, got {e}"),
            Ok(_) => panic!("seed {seed}: the flipped branch in {victim} went unnoticed"),
        }
    }
    assert!(caught >= 3, "only {caught} functions had a branch to flip");
}

/// A dispatch that never ends is a timeout, not a stuck run: `untangle-gpu hang-selftest`
/// dispatches an unguarded infinite loop with a 2 s limit, reports the hang and aborts
/// (a driver thread may still spin). Run as a child process, killed if it outlives 90 s.
#[test]
fn a_hanging_dispatch_times_out() {
    if gpu_or_skip("hang").is_none() {
        return;
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_untangle-gpu"))
        .args(["hang-selftest", "--timeout-ms", "2000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn untangle-gpu");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("untangle-gpu hang-selftest did not end within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!status.success(), "{status:?}");
    assert!(
        stdout.contains("hang detected") && stdout.contains("did not finish within 2s"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
