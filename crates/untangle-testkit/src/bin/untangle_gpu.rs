//! `untangle-gpu`: shape-mode trace programs on a real Vulkan driver (feature `vulkan`).
//!
//! ```text
//! untangle-gpu run [--random N] [--first-seed S] [--cases DIR] [--corpus DIR]
//!                  [--invocations K] [--threads T] [--timeout-ms MS] [--max-blocks M]
//!                  [--gpus G] [--progress EVERY] [--out-of-line-helpers]
//! untangle-gpu export --corpus DIR --out DIR
//! untangle-gpu corpus-shaders [--corpus DIR] [--timeout-ms MS] [--root-signatures]
//! untangle-gpu graphics [--corpus DIR]
//! untangle-gpu pipeline-times|gpu-times --ours DIR --reference DIR [--reps N] ...
//! ```
//!
//! `run` builds N random CFGs (`fuzzing::structured_gen`, seeds S..S+N, size classes as
//! the long CPU run, capped at M blocks if given), every exported
//! case of `--cases DIR` and every function of the `.ll` files under
//! `--corpus DIR`; structurizes each, emits its batch-mode shape module and runs it with K
//! decision streams (one invocation each) on the device picked by `UNTANGLE_VK_DEVICE`;
//! every trace slice must equal the original CFG's. T CPU threads build cases; G device
//! instances (threads) dispatch them, compiling pipelines in parallel. Prints the device and driver, each
//! failure, and a closing `N passed, M failed` line; exits 1 on any failure, 2 on a usage
//! or device error.
//!
//! `corpus-shaders` runs every case of `untangle_testkit::vulkan::corpus` (vkd3d-proton compute
//! shaders with CPU-derived expected outputs; `--corpus` is the folder holding their
//! `.dxil` files, default `../shared/corpus/dxil/vkd3d-proton`) on the device, with the
//! default binding-model placement, and prints a pass/fail/skip table with wall times;
//! with `--root-signatures` the cases run again through each generated root signature
//! (tables, root parameters, mixed spaces, near the 64-DWORD limit) under the `direct` and
//! `heap` binding models, each with push-constant budgets of 128 and 256 bytes (under 128
//! the near-limit signatures spill to the root argument buffer), bound from the layout
//! report (`untangle_testkit::vulkan::root_placement`); exits 1 if a case fails.
//!
//! `graphics` runs every graphics pipeline of `untangle_testkit::vulkan::graphics_cases`
//! (vkd3d-proton vs/hs/ds/gs/ps and as/ms/ps shaders translated one at a time, drawn
//! offscreen, pixels compared with expectations derived from the shaders; `--corpus` as for
//! `corpus-shaders`) and prints a pass/fail/skip table (mesh pipelines are skipped, saying
//! so, on a device without `VK_EXT_mesh_shader`), then reruns every passing pipeline with
//! one expected word changed, which must fail; exits 1 if a pipeline fails or a changed
//! expectation is not caught (docs/graphics-runner.md).
//!
//! `diff-corpus [--corpus DIR] [--seeds N]` runs every corpus compute shader differentially
//! (`untangle_testkit::difftest`): the DXIL interpreter against the translated SPIR-V on
//! the device, N seeds each (default 20), one line per shader and a summary table;
//! `diff-gen [--random N] [--first-seed S] [--seeds K]` does the same for N generated
//! programs (`fuzzing::shader_gen`, default 10,000) on K inputs each (default 2). Both
//! exit 1 on an unexplained mismatch. `--sabotage swap-sub|unsigned` breaks every
//! translation on purpose (`difftest::sabotage`): the runs must then fail.
//!
//! `diff-show (--first-seed S [--long-vectors] | --shader FILE) [--seeds K] [--spv MODULE]...` prints the
//! program (generated program S, or a shader file in any input format), its SPIR-V and
//! every word that differs on inputs 0..K, then does the same with each `--spv` module run
//! in place of the translation (hand-edited modules, to test what a driver does with a
//! construct); `diff-reduce (--first-seed S [--long-vectors] | --shader FILE) [--input K] [--budget N] [--out
//! DIR]` shrinks the program (`difftest::reduce`) while the device still differs from the
//! interpreter on input K, at most N device runs (default 2000), prints the reduced program,
//! both results of every differing word, and its SPIR-V, and with `--out` writes it to
//! `DIR/reduced.ll` (which `--shader` reads back) and its module to `DIR/reduced.spv`.
//!
//! `pipeline-times --ours DIR --reference DIR [--reps N]` times the driver's pipeline
//! creation (`vkCreateShaderModule` + `vkCreate*Pipelines`, no cache, a fresh nonce per
//! creation: `untangle_testkit::vulkan::pipeline_times`) for every `.spv` file present in
//! both folders, N creations each (default 5), alternating the two sides; prints one line
//! per module (median µs of each side) and a markdown summary (sums of medians, median of
//! the per-module ratios, creations that failed). Turns NVIDIA's disk cache off first.
//!
//! `gpu-times --ours DIR --reference DIR [--reps N] [--dispatches K] [--groups G] [--extent E]
//! [--vertices V] [--out FILE]` measures GPU execution time
//! (`untangle_testkit::vulkan::gpu_times`) of the same module pairs: each side's pipeline is
//! created once with zero-filled resources for its bindings, then one submission runs K
//! dispatches of G × 1 × 1 workgroups (compute, default 10 × 1024), K full-screen triangles
//! on an E × E target (fragment, default 1024) or K draws of V vertices under an empty
//! fragment shader (vertex, default 2^20) between two timestamp queries. The two sides' benches
//! are made in both orders in turn (untangle's first, then the reference's first: which is
//! made first is not neutral), each time one untimed run of each side, then ⌈N/2⌉ timed runs
//! each (N default 5), alternating which side goes first, the median of all of a side's runs
//! kept; prints one line per pair (median µs of each side, ratio, the workload, `bindings differ` where the
//! two reflections differ), each skipped pair with its reason (a stage, invocations per
//! workgroup or render-target count that differ between the sides, descriptors past the
//! device's per-stage limits, a capability the device or runner lacks, a resource kind not
//! bound), and a markdown summary (sums of medians, median and largest per-pair ratio);
//! `--out FILE` writes the rows as TSV (`module stage untangle_us reference_us ratio status
//! detail`; `tools/gpu-times-table.py` turns it into BENCHMARKS.md tables). Refuses a queue
//! whose `timestampValidBits` is 0.
//!
//! `gpu-times --graphics --reference DIR [--corpus DIR] [--reps N] [--dispatches K]
//! [--extent E] [--out FILE]` does the same for the graphics runner's pipelines
//! (`untangle_testkit::vulkan::graphics_times`): each case's stages as the runner
//! translates them against the reference's modules of the same files in DIR
//! (`tools/bench-reference.py --pipeline-modules OUT` writes them to `OUT/graphics/r`), the
//! case's own draw and buffers on targets scaled to E pixels wide (default 1024), K draws per
//! timed submission; one row per case (`module` the case, `stage` its stage list), skipped
//! cases with their reason (a device feature the case needs, a reference module missing or
//! of another stage, stages that do not link, bindings the case does not make).
//! `pipeline-times --graphics --reference DIR [--reps N]` times the creation of the same
//! pipelines (every stage's shader module and the graphics pipeline).
//!
//! `export` is the host half for a machine without LLVM: for every corpus function it
//! writes `NNNNN.spv` (the batch module, default layout) and `NNNNN.json` (name, entry,
//! layout and the CFG's [`CfgShape`] for the oracle).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use untangle::emit::shape::ShapeBatch;
use untangle_testkit::check::gpu_trace::{random_case, CfgShape, TraceCase, DEFAULT_BATCH};
use untangle_testkit::vulkan::suite::{run_suite, CaseFailure, SuiteConfig};
use untangle_testkit::vulkan::Gpu;

/// One exported corpus case (`NNNNN.json` beside `NNNNN.spv`).
#[derive(serde::Serialize, serde::Deserialize)]
struct Exported {
    name: String,
    local_size: u32,
    decision_stride: u32,
    trace_stride: u32,
    #[serde(default)]
    out_of_line_helpers: bool,
    cfg: CfgShape,
}

struct Args {
    command: String,
    random: usize,
    first_seed: u64,
    /// `diff-show`/`diff-reduce`: generated programs with SM 6.9 long vectors
    /// (`shader_gen::Config::long_vectors`).
    long_vectors: bool,
    cases: Option<PathBuf>,
    corpus: Option<PathBuf>,
    out: Option<PathBuf>,
    invocations: u32,
    /// `diff-corpus`/`diff-gen`: inputs per shader or program.
    seeds: Option<u64>,
    threads: usize,
    gpus: usize,
    progress: usize,
    max_blocks: Option<usize>,
    out_of_line: bool,
    root_signatures: bool,
    /// `diff-reduce`/`diff-show`: a shader file instead of a generated program.
    shader: Option<PathBuf>,
    /// `diff-show`: SPIR-V modules run in place of the translation (experiments on a
    /// driver: a hand-edited module against the same interpreter results).
    spv: Vec<PathBuf>,
    /// `diff-reduce`: the input seed whose mismatch is kept.
    input: u64,
    /// `diff-reduce`: most device runs.
    budget: usize,
    /// `diff-corpus`/`diff-gen`: break the translation on purpose (`difftest::sabotage`).
    sabotage: Option<untangle_testkit::difftest::sabotage::Sabotage>,
    timeout: Duration,
    /// `pipeline-times`: the two module folders and the creations per module.
    ours: Option<PathBuf>,
    reference: Option<PathBuf>,
    reps: usize,
    /// `pipeline-times`/`gpu-times`: the graphics runner's pipelines instead of module pairs.
    graphics: bool,
    /// `gpu-times`: dispatches or draws per timed submission, compute workgroups per
    /// dispatch, fragment target side, vertices per draw (its timeout is `timeout`).
    workload: untangle_testkit::vulkan::gpu_times::Workload,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let command = it.next().ok_or("usage: untangle-gpu run|export [options] (see the source's docs)")?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut a = Args {
        command,
        random: 0,
        first_seed: 0,
        long_vectors: false,
        cases: None,
        corpus: None,
        out: None,
        invocations: 64,
        seeds: None,
        threads,
        gpus: 1,
        progress: 0,
        max_blocks: None,
        out_of_line: false,
        root_signatures: false,
        shader: None,
        spv: Vec::new(),
        input: 0,
        budget: 2000,
        sabotage: None,
        timeout: Duration::from_secs(20),
        ours: None,
        reference: None,
        reps: 5,
        graphics: false,
        workload: Default::default(),
    };
    while let Some(flag) = it.next() {
        if flag == "--out-of-line-helpers" {
            a.out_of_line = true;
            continue;
        }
        if flag == "--root-signatures" {
            a.root_signatures = true;
            continue;
        }
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |v: String| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--random" => a.random = num(value()?)? as usize,
            "--first-seed" => a.first_seed = num(value()?)?,
            "--long-vectors" => a.long_vectors = true,
            "--graphics" => a.graphics = true,
            "--cases" => a.cases = Some(value()?.into()),
            "--corpus" => a.corpus = Some(value()?.into()),
            "--out" => a.out = Some(value()?.into()),
            "--ours" => a.ours = Some(value()?.into()),
            "--reference" => a.reference = Some(value()?.into()),
            "--reps" => a.reps = num(value()?)?.clamp(1, 1000) as usize,
            "--dispatches" => a.workload.dispatches = num(value()?)?.clamp(1, 10_000) as u32,
            "--groups" => a.workload.groups = num(value()?)?.clamp(1, 65_535) as u32,
            "--extent" => a.workload.extent = num(value()?)?.clamp(1, 8192) as u32,
            "--vertices" => a.workload.vertices = num(value()?)?.clamp(1, 1 << 26) as u32,
            "--seeds" => a.seeds = Some(num(value()?)?.max(1)),
            "--shader" => a.shader = Some(value()?.into()),
            "--spv" => a.spv.push(value()?.into()),
            "--input" => a.input = num(value()?)?,
            "--budget" => a.budget = num(value()?)? as usize,
            "--sabotage" => {
                let v = value()?;
                a.sabotage = Some(
                    untangle_testkit::difftest::sabotage::Sabotage::parse(&v)
                        .ok_or(format!("--sabotage {v}: swap-sub or unsigned"))?,
                );
            }
            "--invocations" => a.invocations = num(value()?)?.clamp(1, 1 << 16) as u32,
            "--max-blocks" => a.max_blocks = Some(num(value()?)? as usize),
            "--gpus" => a.gpus = num(value()?)?.clamp(1, 64) as usize,
            "--progress" => a.progress = num(value()?)? as usize,
            "--threads" => a.threads = num(value()?)?.max(1) as usize,
            "--timeout-ms" => a.timeout = Duration::from_millis(num(value()?)?),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(a)
}

/// Every `.ll` file under `dir`, sorted.
fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            ll_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "ll") {
            out.push(p);
        }
    }
    out.sort();
    Ok(())
}

/// The suites' batch layout; `out_of_line`: with the `DontInline` hint on the helpers.
fn batch(out_of_line: bool) -> ShapeBatch {
    ShapeBatch { out_of_line_helpers: out_of_line, ..DEFAULT_BATCH }
}

/// One source of cases, indexed `0..len`.
enum Source {
    Random { first: u64, count: usize, max_blocks: Option<usize>, out_of_line: bool },
    Exported(Vec<PathBuf>),
    Corpus(Vec<(String, untangle::ir::Function)>),
}

impl Source {
    fn len(&self) -> usize {
        match self {
            Source::Random { count, .. } => *count,
            Source::Exported(v) => v.len(),
            Source::Corpus(v) => v.len(),
        }
    }

    fn build(&self, i: usize, invocations: u32) -> Result<TraceCase, CaseFailure> {
        let build_err = |name: String, message: String| CaseFailure::Build { name, message };
        match self {
            Source::Random { first, max_blocks, out_of_line, .. } => {
                let seed = first + i as u64;
                random_case(seed, batch(*out_of_line), invocations, *max_blocks)
                    .map_err(|e| build_err(format!("random seed {seed}"), e.to_string()))
            }
            Source::Exported(jsons) => {
                let json = &jsons[i];
                let name = json.display().to_string();
                let text = std::fs::read_to_string(json).map_err(|e| build_err(name.clone(), e.to_string()))?;
                let ex: Exported = serde_json::from_str(&text).map_err(|e| build_err(name.clone(), e.to_string()))?;
                let bytes =
                    std::fs::read(json.with_extension("spv")).map_err(|e| build_err(name.clone(), e.to_string()))?;
                let words = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                let mut types = untangle::ir::Types::default();
                let func = ex.cfg.to_function(&mut types).map_err(|e| build_err(ex.name.clone(), e))?;
                let batch = ShapeBatch {
                    local_size: ex.local_size,
                    decision_stride: ex.decision_stride,
                    trace_stride: ex.trace_stride,
                    out_of_line_helpers: ex.out_of_line_helpers,
                };
                TraceCase::from_words(ex.name.clone(), &func, words, batch, invocations, i as u64)
                    .map_err(|e| build_err(ex.name, e.to_string()))
            }
            Source::Corpus(funcs) => {
                let (name, func) = &funcs[i];
                TraceCase::new(name.clone(), func, DEFAULT_BATCH, invocations, i as u64)
                    .map_err(|e| build_err(name.clone(), e.to_string()))
            }
        }
    }
}

fn corpus_functions(dir: &Path) -> Result<Vec<(String, untangle::ir::Function)>, String> {
    let mut files = Vec::new();
    ll_files(dir, &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for f in files {
        let loaded = untangle::front::load_path(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        for (_, func) in loaded.module.defined_functions() {
            out.push((format!("{}::{}", f.display(), func.name), func.clone()));
        }
    }
    Ok(out)
}

fn export(a: &Args) -> Result<usize, String> {
    let (Some(corpus), Some(out)) = (&a.corpus, &a.out) else {
        return Err("export needs --corpus DIR and --out DIR".into());
    };
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let funcs = corpus_functions(corpus)?;
    for (i, (name, func)) in funcs.iter().enumerate() {
        let s = untangle::passes::structurize(func, untangle::passes::Options::default())
            .map_err(|e| format!("{name}: {e}"))?;
        let options = untangle::emit::shape::ShapeOptions { batch: Some(DEFAULT_BATCH) };
        let words =
            untangle::emit::shape::emit_shape_module_with(&untangle::ir::Module::default(), &[(func, &s)], &options)
                .map_err(|e| format!("{name}: {e}"))?;
        let ex = Exported {
            name: name.clone(),
            local_size: DEFAULT_BATCH.local_size,
            decision_stride: DEFAULT_BATCH.decision_stride,
            trace_stride: DEFAULT_BATCH.trace_stride,
            out_of_line_helpers: DEFAULT_BATCH.out_of_line_helpers,
            cfg: CfgShape::of(func),
        };
        let base = out.join(format!("{i:05}"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(base.with_extension("spv"), bytes).map_err(|e| e.to_string())?;
        std::fs::write(base.with_extension("json"), serde_json::to_string(&ex).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    Ok(funcs.len())
}

fn run(a: &Args) -> Result<bool, String> {
    let mut sources = Vec::new();
    if let Some(dir) = &a.cases {
        let mut jsons: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        jsons.sort();
        sources.push(("exported corpus functions", Source::Exported(jsons)));
    }
    if let Some(dir) = &a.corpus {
        let funcs = corpus_functions(dir)?;
        sources.push(("corpus functions", Source::Corpus(funcs)));
    }
    // Random CFGs last: the corpus is the smaller, fixed part of a time-limited run.
    if a.random > 0 {
        sources.push((
            "random CFGs",
            Source::Random {
                first: a.first_seed,
                count: a.random,
                max_blocks: a.max_blocks,
                out_of_line: a.out_of_line,
            },
        ));
    }
    let mut gpus = Vec::new();
    for _ in 0..a.gpus {
        gpus.push(Gpu::open().map_err(|e| e.to_string())?);
    }
    println!("Vulkan: {} ({} instance(s))", gpus[0].info(), gpus.len());
    let config = SuiteConfig { threads: a.threads, timeout: a.timeout, progress_every: a.progress };
    let mut all_ok = true;
    let (mut passed, mut failed, mut hangs) = (0, 0, 0);
    for (what, source) in &sources {
        let stats = run_suite(
            &mut gpus,
            source.len(),
            config,
            |i| source.build(i, a.invocations),
            |f| {
                eprintln!("FAIL {f}");
            },
        );
        println!("{what}: {stats}");
        passed += stats.passed;
        failed += stats.failed;
        hangs += stats.hangs;
        all_ok &= stats.failed == 0;
    }
    println!("{passed} passed, {failed} failed");
    if hangs > 0 {
        // A hung dispatch may keep a driver thread spinning, and exit handlers may wait
        // for it: end at once.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::abort();
    }
    Ok(all_ok)
}

/// Dispatches [`untangle_testkit::vulkan::spin_module`] over 65,535² workgroups, which does not
/// end in any reasonable time, and expects the
/// runner's timeout, then a poisoned runner; then aborts, since a driver thread may still
/// spin and exit handlers could wait for it. Used by `tests/vulkan_traces.rs`.
fn hang_selftest(a: &Args) -> Result<bool, String> {
    let words = untangle_testkit::vulkan::spin_module();
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("Vulkan: {}", gpu.info());
    let dispatch = untangle_testkit::vulkan::Dispatch {
        spirv: &words,
        entry: "spin",
        bindings: vec![untangle_testkit::vulkan::Binding::new(
            0,
            0,
            untangle_testkit::vulkan::Resource::words(&[0, 0]),
        )],
        // Drivers that cap loop iterations (llvmpipe stops after 65,535) still take hours
        // over 2^32 workgroups.
        groups: [65_535, 65_535, 1],
        timeout: a.timeout,
        ..Default::default()
    };
    let outcome = gpu.dispatch(&dispatch);
    let again = gpu.dispatch(&dispatch);
    match (outcome, again) {
        (
            Err(e @ untangle_testkit::vulkan::VkError::Timeout { .. }),
            Err(untangle_testkit::vulkan::VkError::Poisoned),
        ) => {
            println!("hang detected: {e}; the runner is poisoned afterwards");
            use std::io::Write;
            let _ = std::io::stdout().flush();
            std::process::abort()
        }
        (first, second) => Err(format!("expected a timeout, then a poisoned runner; got {first:?}, then {second:?}")),
    }
}

/// The module pairs of `--ours DIR --reference DIR` (`tools/bench-reference.py
/// --pipeline-modules`): the `.spv` names present in both folders, sorted, and a reader of
/// the pair `name` (ours, the reference's).
#[allow(clippy::type_complexity)]
fn module_pairs(a: &Args) -> Result<(Vec<String>, impl Fn(&str) -> Result<[Vec<u32>; 2], String> + '_), String> {
    let (Some(ours), Some(reference)) = (&a.ours, &a.reference) else {
        return Err(format!("{} needs --ours DIR and --reference DIR", a.command));
    };
    let read = |p: &Path| -> Result<Vec<u32>, String> {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    };
    let mut names: Vec<String> = std::fs::read_dir(ours)
        .map_err(|e| format!("{}: {e}", ours.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".spv") && reference.join(n).exists())
        .collect();
    names.sort();
    Ok((names, move |name: &str| Ok([read(&ours.join(name))?, read(&reference.join(name))?])))
}

/// The median of `v` (the upper one of an even count); `v` is not empty.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn stage_name(stage: untangle_testkit::vulkan::pipeline_times::Stage) -> &'static str {
    use untangle_testkit::vulkan::pipeline_times::Stage;
    match stage {
        Stage::Compute => "cs",
        Stage::Vertex => "vs",
        Stage::Fragment => "ps",
    }
}

/// `pipeline-times`: driver pipeline creation of every module pair, a table, sums.
fn pipeline_times(a: &Args) -> Result<bool, String> {
    use untangle_testkit::vulkan::pipeline_times::{position_only_vertex_shader, reflect, with_nonce};
    // Before the driver loads: NVIDIA's on-disk shader cache would answer repeated creations.
    std::env::set_var("__GL_SHADER_DISK_CACHE", "0");
    if a.graphics {
        return pipeline_times_graphics(a);
    }
    let (names, read) = module_pairs(a)?;
    let gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("Vulkan: {}", gpu.info());
    let vertex = position_only_vertex_shader();
    let mut nonce = 0u64;
    let (mut rows, mut failed) = (Vec::new(), Vec::new());
    let mut by_stage: std::collections::BTreeMap<&str, usize> = Default::default();
    for name in &names {
        let modules = read(name)?;
        let (Some(ro), Some(rr)) = (reflect(&modules[0]), reflect(&modules[1])) else {
            failed.push(format!("{name}: not a vertex, fragment or compute module"));
            continue;
        };
        let mut times = [Vec::new(), Vec::new()];
        let mut error = None;
        for rep in 0..a.reps {
            // Alternate which side goes first.
            for k in [rep % 2, 1 - rep % 2] {
                nonce += 1;
                let words = with_nonce(&modules[k], nonce);
                match gpu.time_pipeline_creation(if k == 0 { &ro } else { &rr }, &words, &vertex) {
                    Ok(d) => times[k].push(d.as_secs_f64() * 1e6),
                    Err(e) => error = Some(format!("{name} ({}): {e}", ["untangle", "reference"][k])),
                }
            }
        }
        if let Some(e) = error {
            failed.push(e);
            continue;
        }
        let stage = stage_name(ro.stage);
        *by_stage.entry(stage).or_default() += 1;
        let [tu, tr] = times;
        let (mu, mr) = (median(tu), median(tr));
        println!("{name:<70} {stage} untangle {mu:>9.0} µs  reference {mr:>9.0} µs  ratio {:.2}", mu / mr);
        rows.push((mu, mr));
    }
    if rows.is_empty() {
        creation_summary(&rows, "", "module", a.reps, &failed);
        return Err("no module pair created on both sides".into());
    }
    let what = format!(
        "{} module pairs ({})",
        rows.len(),
        by_stage.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
    );
    creation_summary(&rows, &what, "module", a.reps, &failed);
    Ok(failed.is_empty())
}

/// The rows of a `gpu-times` run: measured pairs (printed as they come), skipped ones
/// with their reasons, the TSV (`--out`).
struct TimedPairs {
    tsv: String,
    rows: Vec<(f64, f64)>,
    skipped: Vec<(String, String, String)>,
    by_stage: std::collections::BTreeMap<String, usize>,
}

impl TimedPairs {
    fn new() -> Self {
        TimedPairs {
            tsv: String::from("module\tstage\tuntangle_us\treference_us\tratio\tstatus\tdetail\n"),
            rows: Vec::new(),
            skipped: Vec::new(),
            by_stage: Default::default(),
        }
    }

    fn measured(&mut self, name: &str, stage: &str, [mu, mr]: [f64; 2], detail: &str) {
        *self.by_stage.entry(stage.to_string()).or_default() += 1;
        println!(
            "{name:<70} {stage} untangle {mu:>10.1} µs  reference {mr:>10.1} µs  ratio {:.2}  ({detail})",
            mu / mr
        );
        self.tsv.push_str(&format!("{name}\t{stage}\t{mu:.3}\t{mr:.3}\t{:.4}\tok\t{detail}\n", mu / mr));
        self.rows.push((mu, mr));
    }

    fn skip(&mut self, name: &str, stage: &str, why: String) {
        self.skipped.push((name.to_string(), stage.to_string(), why));
    }

    /// Prints the skipped pairs and the summary (`what`: "module pairs" or "pipelines";
    /// `per_run`: the work of one timed submission), writes the TSV.
    fn finish(mut self, a: &Args, what: &str, per_run: &str) -> Result<bool, String> {
        for (name, stage, why) in &self.skipped {
            println!("skipped: {name}: {why}");
            self.tsv.push_str(&format!("{name}\t{stage}\t\t\t\tskipped\t{}\n", why.replace(['\t', '\n'], " ")));
        }
        if let Some(out) = &a.out {
            std::fs::write(out, &self.tsv).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        let rows = &self.rows;
        if rows.is_empty() {
            return Err(format!("no {what} ran on both sides"));
        }
        let (su, sr): (f64, f64) = rows.iter().fold((0.0, 0.0), |(a, b), &(u, r)| (a + u, b + r));
        let ratios: Vec<f64> = rows.iter().map(|&(u, r)| u / r).collect();
        let worst = ratios.iter().copied().fold(0.0, f64::max);
        println!();
        println!(
            "{} {what} ({}), median of {} timed submissions each ({per_run} per submission), alternating:",
            rows.len(),
            self.by_stage.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", "),
            2 * a.reps.div_ceil(2),
        );
        println!();
        println!("| | untangle | reference | untangle / reference |");
        println!("| --- | --- | --- | --- |");
        println!("| sum of medians | {:.1} µs | {:.1} µs | **{:.2}** |", su, sr, su / sr);
        let (unit, skipped) = if what == "pipelines" { ("pipeline", "pipelines") } else { ("module", "pairs") };
        println!(
            "| median {unit} | {:.1} µs | {:.1} µs | per-{unit} ratio: median **{:.2}**, largest {worst:.2} |",
            median(rows.iter().map(|r| r.0).collect()),
            median(rows.iter().map(|r| r.1).collect()),
            median(ratios)
        );
        println!("skipped {skipped}: {}", self.skipped.len());
        Ok(true)
    }
}

type BenchResult = Result<untangle_testkit::vulkan::gpu_times::Bench, untangle_testkit::vulkan::VkError>;

/// Times the two sides (untangle's, the reference's: `prepare(gpu, k)` makes side `k`'s
/// bench) in both preparation orders: the benches made untangle's first, [`alternate`]d
/// for half the `reps`, released, then made the reference's first for the other half; the
/// medians over both halves, in µs.
///
/// Why both orders: which side's bench is made first is not neutral. Timing a module
/// against an identical copy of itself in one order gave per-module ratios from 0.88 to
/// 1.08 for the launch-bound compute dispatches (the same modules each time, whichever
/// translator wrote them), and +4.5 µs a run in sum for the side made first (issue 36's
/// sixth pass, BENCHMARKS.md); with both orders, each side gets each slot for half its
/// runs.
fn alternate_both_orders(
    gpu: &mut Gpu,
    mut prepare: impl FnMut(&mut Gpu, usize) -> BenchResult,
    reps: usize,
) -> Result<[f64; 2], (String, bool)> {
    let mut times = [Vec::new(), Vec::new()];
    for first in 0..2 {
        let benches = if first == 0 {
            let untangle = prepare(gpu, 0);
            [untangle, prepare(gpu, 1)]
        } else {
            let reference = prepare(gpu, 1);
            [prepare(gpu, 0), reference]
        };
        let [tu, tr] = alternate(gpu, benches, reps.div_ceil(2))?;
        times[0].extend(tu);
        times[1].extend(tr);
    }
    let [tu, tr] = times;
    Ok([median(tu), median(tr)])
}

/// Runs the two sides' benches (untangle's, the reference's) alternately: one untimed run
/// of each (first-submission costs), then `reps` timed runs each, alternating which side
/// goes first; the times in µs. Releases both benches.
fn alternate(gpu: &mut Gpu, benches: [BenchResult; 2], reps: usize) -> Result<[Vec<f64>; 2], (String, bool)> {
    let mut ready = Vec::new();
    let mut error = None;
    for (k, b) in benches.into_iter().enumerate() {
        match b {
            Ok(b) => ready.push(b),
            Err(e) => error = error.or(Some(side_error(k, e))),
        }
    }
    let mut times = [Vec::new(), Vec::new()];
    if error.is_none() {
        'reps: for rep in 0..=reps {
            for k in [rep % 2, 1 - rep % 2] {
                match gpu.run_bench(&mut ready[k]) {
                    Ok(d) if rep > 0 => times[k].push(d.as_secs_f64() * 1e6),
                    Ok(_) => {}
                    Err(e) => {
                        error = Some(side_error(k, e));
                        break 'reps;
                    }
                }
            }
        }
    }
    for b in ready {
        gpu.release_bench(b);
    }
    match error {
        Some(e) => Err(e),
        None => Ok(times),
    }
}

/// Opens the device for `gpu-times`, printing its timestamp properties; refuses a queue
/// without timestamps.
fn open_for_gpu_times() -> Result<Gpu, String> {
    let gpu = Gpu::open().map_err(|e| e.to_string())?;
    let ts = gpu.timestamps();
    println!(
        "Vulkan: {}; timestampValidBits {}, timestampPeriod {} ns, timestampComputeAndGraphics {}",
        gpu.info(),
        ts.valid_bits,
        ts.period_ns,
        ts.compute_and_graphics
    );
    if ts.valid_bits == 0 {
        return Err("the runner's queue has no timestamps (timestampValidBits 0)".into());
    }
    Ok(gpu)
}

/// `gpu-times`: GPU execution time of every module pair (`untangle_testkit::vulkan::gpu_times`),
/// alternating the sides, medians, a table, sums; `--out FILE` writes it as TSV. With
/// `--graphics`, of the graphics runner's pipelines instead ([`gpu_times_graphics`]).
fn gpu_times(a: &Args) -> Result<bool, String> {
    use untangle_testkit::vulkan::gpu_times::Workload;
    use untangle_testkit::vulkan::pipeline_times::{reflect, Reflection};
    if a.graphics {
        return gpu_times_graphics(a);
    }
    let (names, read) = module_pairs(a)?;
    let mut gpu = open_for_gpu_times()?;
    let w = Workload { timeout: a.timeout, ..a.workload.clone() };
    let mut out = TimedPairs::new();
    for name in &names {
        let modules = read(name)?;
        let (Some(ro), Some(rr)) = (reflect(&modules[0]), reflect(&modules[1])) else {
            out.skip(name, "-", "not a vertex, fragment or compute module".to_string());
            continue;
        };
        let stage = stage_name(ro.stage);
        // Identical work: the same stage, invocations per workgroup (the shape may differ:
        // the reference reshapes derivative groups) and render targets.
        let shape = |r: &Reflection| (r.stage, r.local_size.iter().product::<u32>(), r.color_outputs);
        if shape(&ro) != shape(&rr) {
            let show = |r: &Reflection| {
                let [x, y, z] = r.local_size;
                format!("{} {x}x{y}x{z}, {} targets", stage_name(r.stage), r.color_outputs)
            };
            out.skip(name, stage, format!("the sides differ: untangle {}, reference {}", show(&ro), show(&rr)));
            continue;
        }
        let mut detail = w.describe(&ro);
        if ro.sets != rr.sets || ro.images != rr.images || ro.push_constants != rr.push_constants {
            detail.push_str("; bindings differ");
        }
        let reflections = [&ro, &rr];
        let prepare = |gpu: &mut Gpu, k: usize| gpu.prepare_bench(reflections[k], &modules[k], &w);
        match alternate_both_orders(&mut gpu, prepare, a.reps) {
            Ok(t) => out.measured(name, stage, t, &detail),
            Err((e, poisoned)) => {
                out.skip(name, stage, e);
                if poisoned {
                    println!("{name}: a hang or a lost device; the runner is poisoned, stopping");
                    break;
                }
            }
        }
    }
    out.finish(a, "module pairs", &format!("{} dispatches or draws", w.dispatches))
}

/// The graphics runner's cases paired with the reference's modules of `--reference DIR`
/// (`untangle_testkit::vulkan::graphics_times::pair_case`), each with its stage list and
/// either its two draws or why it has none (a device feature it lacks, no pair).
#[allow(clippy::type_complexity)]
fn graphics_pairs(
    a: &Args,
    gpu: &Gpu,
) -> Result<Vec<(&'static str, String, Result<[untangle_testkit::vulkan::graphics::Draw; 2], String>)>, String> {
    use untangle_testkit::vulkan::graphics_cases::{cases, stage_list};
    use untangle_testkit::vulkan::graphics_times::{pair_case, Skip};
    let Some(reference) = &a.reference else {
        return Err(format!("{} --graphics needs --reference DIR (bench-reference.py's graphics/r)", a.command));
    };
    let corpus = a.corpus.clone().unwrap_or_else(|| PathBuf::from("../shared/corpus/dxil/vkd3d-proton"));
    let features = &gpu.info().features;
    Ok(cases()
        .iter()
        .map(|case| {
            let pair = match case.needs.missing(features) {
                Some(why) => Err(format!("needs {why}")),
                None => pair_case(case, &corpus, reference, a.workload.extent).map_err(|Skip(why)| why),
            };
            (case.name, stage_list(case), pair)
        })
        .collect())
}

/// `gpu-times --graphics`: GPU execution time of every graphics runner pipeline, untangle's
/// stages against the reference's (`untangle_testkit::vulkan::graphics_times`), K draws per
/// timed submission on targets scaled to `--extent`.
fn gpu_times_graphics(a: &Args) -> Result<bool, String> {
    let mut gpu = open_for_gpu_times()?;
    let k = a.workload.dispatches;
    let mut out = TimedPairs::new();
    for (name, stages, pair) in graphics_pairs(a, &gpu)? {
        let draws = match pair {
            Ok(d) => d,
            Err(why) => {
                out.skip(name, &stages, why);
                continue;
            }
        };
        let d = &draws[0];
        let detail = format!("{k} x draw on {}x{} px, {} targets", d.width, d.height, d.targets.len());
        let prepare = |gpu: &mut Gpu, side: usize| gpu.prepare_draw_bench(&draws[side], k, a.timeout);
        match alternate_both_orders(&mut gpu, prepare, a.reps) {
            Ok(t) => out.measured(name, &stages, t, &detail),
            Err((e, poisoned)) => {
                out.skip(name, &stages, e);
                if poisoned {
                    println!("{name}: a hang or a lost device; the runner is poisoned, stopping");
                    break;
                }
            }
        }
    }
    out.finish(a, "pipelines", &format!("{k} draws"))
}

/// `pipeline-times --graphics`: creation time of every graphics runner pipeline, untangle's
/// stages against the reference's, `--reps` creations each, alternating, a fresh nonce per
/// creation.
fn pipeline_times_graphics(a: &Args) -> Result<bool, String> {
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("Vulkan: {}", gpu.info());
    let mut nonce = 0u64;
    let (mut rows, mut failed, mut skipped) = (Vec::new(), Vec::new(), 0);
    for (name, stages, pair) in graphics_pairs(a, &gpu)? {
        let draws = match pair {
            Ok(d) => d,
            Err(why) => {
                println!("skipped: {name}: {why}");
                skipped += 1;
                continue;
            }
        };
        let mut times = [Vec::new(), Vec::new()];
        let mut error = None;
        for rep in 0..a.reps {
            for k in [rep % 2, 1 - rep % 2] {
                nonce += 1;
                match gpu.time_draw_pipeline_creation(&draws[k], nonce) {
                    Ok(d) => times[k].push(d.as_secs_f64() * 1e6),
                    Err(e) => error = Some(format!("{name} ({}): {e}", ["untangle", "reference"][k])),
                }
            }
        }
        if let Some(e) = error {
            failed.push(e);
            continue;
        }
        let [tu, tr] = times;
        let (mu, mr) = (median(tu), median(tr));
        println!("{name:<40} {stages:<16} untangle {mu:>9.0} µs  reference {mr:>9.0} µs  ratio {:.2}", mu / mr);
        rows.push((mu, mr));
    }
    creation_summary(&rows, &format!("{} pipelines", rows.len()), "pipeline", a.reps, &failed);
    println!("skipped pipelines: {skipped}");
    Ok(failed.is_empty())
}

/// The markdown summary of a pipeline-creation run (`what`: "N module pairs (…)"; `unit`:
/// what one row is, "module" or "pipeline").
fn creation_summary(rows: &[(f64, f64)], what: &str, unit: &str, reps: usize, failed: &[String]) {
    for f in failed {
        println!("failed: {f}");
    }
    if rows.is_empty() {
        println!("failed creations: {}", failed.len());
        return;
    }
    let (su, sr): (f64, f64) = rows.iter().fold((0.0, 0.0), |(a, b), &(u, r)| (a + u, b + r));
    let med_ratio = median(rows.iter().map(|&(u, r)| u / r).collect());
    println!();
    println!("{what}, median of {reps} creations each, no pipeline cache, NVIDIA disk cache off:");
    println!();
    println!("| | untangle | reference | untangle / reference |");
    println!("| --- | --- | --- | --- |");
    println!("| sum of medians | {:.1} ms | {:.1} ms | **{:.2}** |", su / 1e3, sr / 1e3, su / sr);
    println!(
        "| median {unit} | {:.0} µs | {:.0} µs | per-{unit} ratio: median **{med_ratio:.2}** |",
        median(rows.iter().map(|r| r.0).collect()),
        median(rows.iter().map(|r| r.1).collect())
    );
    println!("failed creations: {}", failed.len());
}

/// A `gpu-times` error of side `k` (0 untangle, 1 the reference), and whether it left the
/// runner unusable (a hang or a lost device).
fn side_error(k: usize, e: untangle_testkit::vulkan::VkError) -> (String, bool) {
    use untangle_testkit::vulkan::VkError;
    let poisoned = matches!(e, VkError::Timeout { .. } | VkError::DeviceLost { .. } | VkError::Poisoned);
    (format!("{}: {e}", ["untangle", "reference"][k]), poisoned)
}

fn corpus_shaders(a: &Args) -> Result<bool, String> {
    use untangle_testkit::vulkan::corpus::{cases, run_case, DefaultPlacement, Outcome};
    let dir = a.corpus.clone().unwrap_or_else(|| PathBuf::from("../shared/corpus/dxil/vkd3d-proton"));
    let start = std::time::Instant::now();
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("Vulkan: {}", gpu.info());
    println!("features: {:?}", gpu.info().features);
    use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
    use untangle_testkit::rootsig_gen::Variant;
    use untangle_testkit::vulkan::corpus::Placement;
    use untangle_testkit::vulkan::root_placement::RootSignaturePlacement;
    let mut placements: Vec<(String, Box<dyn Placement>)> = vec![("default".into(), Box::new(DefaultPlacement))];
    if a.root_signatures {
        let f = &gpu.info().features;
        let heap_ok = f.descriptor_indexing && f.buffer_device_address;
        if !heap_ok {
            println!("heap binding model: skipped (the device lacks descriptor indexing or buffer device addresses)");
        }
        for model in [BindingModel::Direct, BindingModel::Heap] {
            if model == BindingModel::Heap && !heap_ok {
                continue;
            }
            for variant in Variant::ALL {
                for max_push_constant_bytes in [128, 256] {
                    let layout =
                        LayoutOptions { model, root_descriptors: RootDescriptors::Address, max_push_constant_bytes };
                    placements.push((
                        format!("{model:?}/{}/{max_push_constant_bytes}", variant.name()).to_lowercase(),
                        Box::new(RootSignaturePlacement { variant, layout }),
                    ));
                }
            }
        }
    }
    let (mut passed, mut skipped, mut failed) = (0, 0, 0);
    println!("{:<42} {:<28} {:<7} {:>10}  detail", "case", "binding", "result", "wall");
    for (label, placement) in &placements {
        for case in cases() {
            let r = run_case(&mut gpu, &case, &dir, placement.as_ref(), a.timeout);
            let (word, detail) = match &r.outcome {
                Outcome::Pass => {
                    passed += 1;
                    ("pass", String::new())
                }
                Outcome::Skipped(why) => {
                    skipped += 1;
                    ("skip", why.clone())
                }
                Outcome::Fail(e) => {
                    failed += 1;
                    ("FAIL", e.replace('\n', "\n    "))
                }
            };
            println!("{:<42} {label:<28} {:<7} {:>10.1?}  {detail}", r.name, word, r.wall);
        }
    }
    println!("corpus-shaders: {passed} passed, {skipped} skipped, {failed} failed; wall {:.2?}", start.elapsed());
    Ok(failed == 0)
}

fn diff_corpus(a: &Args) -> Result<bool, String> {
    use untangle_testkit::difftest::gpu::{corpus_files, outcome_line, run_corpus, Outcome};
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("{}", gpu.info());
    let dir = a.corpus.clone().unwrap_or_else(|| PathBuf::from("../shared/corpus/dxil/vkd3d-proton"));
    let files = corpus_files(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let seeds = a.seeds.unwrap_or(20);
    let results =
        run_corpus(&mut gpu, &files, 0..seeds, a.timeout, a.sabotage, |n, o| println!("{}", outcome_line(n, o)));
    let (mut pass, mut known, mut fail, mut left) = (0, 0, 0, 0);
    // Shaders that compared at least one input (the others were indeterminate throughout).
    let compared = results.iter().filter(|(_, o)| matches!(o, Outcome::Ran(r) if r.seeds > 0)).count();
    for (name, o) in &results {
        match o {
            Outcome::LeftOut(_) => left += 1,
            Outcome::Ran(r) if r.passed() => pass += 1,
            Outcome::Ran(_) if untangle_testkit::difftest::known::known_mismatch(name).is_some() => known += 1,
            Outcome::Ran(_) => fail += 1,
        }
    }
    println!("| shaders | ran | compared | pass | known | fail | left out | seeds |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| {} | {} | {compared} | {pass} | {known} | {fail} | {left} | {seeds} |",
        files.len(),
        pass + known + fail
    );
    println!("{} passed, {fail} failed", pass + known);
    Ok(fail == 0)
}

fn diff_gen(a: &Args) -> Result<bool, String> {
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("{}", gpu.info());
    let f = &gpu.info().features;
    println!("maximal reconvergence: {}, float controls 2: {}", f.maximal_reconvergence, f.float_controls2);
    let n = if a.random > 0 { a.random as u64 } else { 10_000 };
    let inputs = a.seeds.unwrap_or(2);
    let s = untangle_testkit::difftest::gpu::run_generated(
        &mut gpu,
        a.first_seed..a.first_seed + n,
        inputs,
        a.timeout,
        a.sabotage,
        |seed, line| {
            if !line.starts_with("pass") || (a.progress > 0 && seed % a.progress as u64 == 0) {
                println!("{line}");
            }
        },
    );
    println!("| programs | passed | indeterminate | untranslated | interpreter left out | failed | words compared |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| {} | {} | {} | {} | {} | {} | {} |",
        s.programs,
        s.passed,
        s.indeterminate,
        s.untranslated.len(),
        s.left_out.len(),
        s.failed.len(),
        s.words_compared
    );
    println!("{} passed, {} failed", s.passed, s.failed.len() + s.untranslated.len());
    Ok(s.failed.is_empty() && s.untranslated.is_empty())
}

/// `diff-show (--first-seed S | --shader FILE) [--seeds K] [--spv MODULE]...`: the program,
/// its IR, its SPIR-V and every word that differs on input seeds 0..K (default 1), for the
/// translation and for each `--spv` module in its place.
fn diff_show(a: &Args) -> Result<bool, String> {
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("{}", gpu.info());
    let f = &gpu.info().features;
    println!("maximal reconvergence: {}, float controls 2: {}", f.maximal_reconvergence, f.float_controls2);
    let m = program(a)?;
    println!("{}", untangle_testkit::fuzzing::shader_gen::dump(&m));
    let options = untangle::Options {
        maximal_reconvergence: gpu.info().features.maximal_reconvergence,
        float_controls2: gpu.info().features.float_controls2,
        ..Default::default()
    };
    let tr = untangle::translate_module(&m, &options).map_err(|e| e.to_string())?;
    if let Some(v) = untangle_testkit::check::spirv_val::find_spirv_val() {
        println!("{}", v.disassemble(&tr.words).unwrap_or_else(|e| e));
    }
    // The translation, then each `--spv` module in its place.
    let mut variants = vec![("translation".to_string(), tr.clone())];
    for path in &a.spv {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() % 4 != 0 {
            return Err(format!("{}: not a whole number of words", path.display()));
        }
        let mut variant = tr.clone();
        variant.words = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        variants.push((path.display().to_string(), variant));
    }
    let placement = untangle_testkit::vulkan::corpus::DefaultPlacement;
    let mut clean = true;
    for (name, tr) in &variants {
        for seed in 0..a.seeds.unwrap_or(1) {
            match untangle_testkit::difftest::gpu::all_mismatches(
                &mut gpu,
                &m,
                tr,
                &placement,
                seed,
                [1, 1, 1],
                a.timeout,
            ) {
                Ok((bad, counts)) => {
                    println!(
                        "{name}, input {seed}: {} compared, {} open, {} differ",
                        counts.compared,
                        counts.skipped,
                        bad.len()
                    );
                    clean &= bad.is_empty();
                    for m in bad {
                        println!("  {m}");
                    }
                }
                Err(e) => println!("{name}, input {seed}: {e}"),
            }
        }
    }
    Ok(clean)
}

/// Generated program `--first-seed`, with long vectors under `--long-vectors`.
fn generated(a: &Args) -> untangle::ir::Module {
    use untangle_testkit::fuzzing::shader_gen::{generate_with, Config};
    generate_with(a.first_seed, Config { long_vectors: a.long_vectors })
}

/// The program `diff-show` runs: `--shader FILE` (any input format), else generated
/// program `--first-seed`.
fn program(a: &Args) -> Result<untangle::ir::Module, String> {
    match &a.shader {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(untangle::front::load_bytes(bytes, "shader").map_err(|e| e.to_string())?.module)
        }
        None => Ok(generated(a)),
    }
}

/// `diff-reduce (--first-seed S | --shader FILE) [--input K] [--budget N]`: shrinks generated
/// program S (or a corpus shader) while the device still differs from the interpreter on
/// input K, and prints the reduced program with both results.
fn diff_reduce(a: &Args) -> Result<bool, String> {
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("{}", gpu.info());
    let f = &gpu.info().features;
    println!("maximal reconvergence: {}, float controls 2: {}", f.maximal_reconvergence, f.float_controls2);
    let placement = untangle_testkit::vulkan::corpus::DefaultPlacement;
    let (m, mut options, groups) = match &a.shader {
        Some(path) => {
            use untangle_testkit::vulkan::corpus::Placement;
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let loaded = untangle::front::load_bytes(bytes.clone(), "shader").map_err(|e| e.to_string())?;
            (loaded.module, placement.options(&bytes)?, untangle_testkit::difftest::gpu::GROUPS)
        }
        None => (generated(a), Default::default(), [1, 1, 1]),
    };
    // As the differential runs translate (difftest::gpu).
    options.maximal_reconvergence = gpu.info().features.maximal_reconvergence;
    options.float_controls2 = gpu.info().features.float_controls2;
    let input = a.input;
    match untangle_testkit::difftest::gpu::reduce_mismatch(
        &mut gpu, &m, &options, &placement, input, groups, a.timeout, a.sabotage, a.budget,
    ) {
        Some(r) => {
            print!("{}", r.report());
            let mut tr = untangle::translate_module(&r.module, &options).map_err(|e| e.to_string())?;
            if let Some(s) = a.sabotage {
                s.apply(&mut tr.words);
            }
            // The reduced program as text (`diff-show --shader` reads it back) and its
            // module, for experiments on machines without the SPIR-V tools.
            if let Some(dir) = &a.out {
                let write = |name: &str, bytes: &[u8]| {
                    std::fs::create_dir_all(dir)
                        .and_then(|()| std::fs::write(dir.join(name), bytes))
                        .map_err(|e| format!("{}: {e}", dir.join(name).display()))
                };
                write("reduced.ll", untangle::ir::dump::Dumper::new(&r.module).module().as_bytes())?;
                let bytes: Vec<u8> = tr.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                write("reduced.spv", &bytes)?;
            }
            if let Some(v) = untangle_testkit::check::spirv_val::find_spirv_val() {
                println!("{}", v.disassemble(&tr.words).unwrap_or_else(|e| e));
            }
            Ok(false)
        }
        None => {
            println!("no mismatch on input {input}");
            Ok(true)
        }
    }
}

/// `graphics`: every corpus graphics pipeline on the device, a table, totals.
fn graphics(a: &Args) -> Result<bool, String> {
    use untangle_testkit::vulkan::graphics_cases::{cases, run_case, Outcome, Tweak};
    let dir = a.corpus.clone().unwrap_or_else(|| PathBuf::from("../shared/corpus/dxil/vkd3d-proton"));
    let mut gpu = Gpu::open().map_err(|e| e.to_string())?;
    println!("Vulkan: {}", gpu.info());
    let start = std::time::Instant::now();
    let (mut passed, mut skipped, mut known, mut failed) = (0, 0, 0, 0);
    let mut passing = Vec::new();
    println!("| pipeline | stages | checks | result |");
    println!("| --- | --- | --- | --- |");
    for case in cases() {
        let r = run_case(&mut gpu, &case, &dir, &Tweak::default());
        let result = match &r.outcome {
            Outcome::Pass => {
                passed += 1;
                "pass".to_string()
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                format!("skip: {why}")
            }
            Outcome::KnownFailure(e) => {
                known += 1;
                format!("known failure: {e}")
            }
            Outcome::Fail(e) => {
                failed += 1;
                format!("FAIL: {e}")
            }
        };
        println!("| {} | {} | {} | {result} |", r.name, r.stages, case.checks);
        if r.outcome == Outcome::Pass {
            passing.push(case);
        }
    }
    println!(
        "graphics: {passed} passed, {skipped} skipped, {known} known failures, {failed} failed; wall {:.2?}",
        start.elapsed()
    );
    // Self-check on this device: every passing case must fail once one expected word (its
    // first probe's, else its first UAV word) is changed.
    let mut missed = 0;
    for case in &passing {
        let tweak = Tweak { perturb_expectation: true, ..Default::default() };
        match run_case(&mut gpu, case, &dir, &tweak).outcome {
            Outcome::Fail(e) if e.contains("mismatch") => {
                println!(
                    "self-check {}: a wrong expected value is caught ({})",
                    case.name,
                    e.chars().take(120).collect::<String>()
                )
            }
            other => {
                missed += 1;
                println!("self-check {}: NOT caught: a wrong expected value gave {other:?}", case.name);
            }
        }
    }
    println!(
        "graphics self-check: {} of {} passing pipelines catch a wrong expected value",
        passing.len() - missed,
        passing.len()
    );
    Ok(failed == 0 && missed == 0)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("untangle-gpu: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match args.command.as_str() {
        "run" => run(&args),
        "export" => export(&args).map(|n| {
            println!("exported {n} functions");
            true
        }),
        "hang-selftest" => hang_selftest(&args),
        "corpus-shaders" => corpus_shaders(&args),
        "graphics" => graphics(&args),
        "diff-corpus" => diff_corpus(&args),
        "diff-gen" => diff_gen(&args),
        "pipeline-times" => pipeline_times(&args),
        "gpu-times" => gpu_times(&args),
        "diff-show" => diff_show(&args),
        "diff-reduce" => diff_reduce(&args),
        other => Err(format!(
            "unknown command {other:?} (run, export, hang-selftest, corpus-shaders, graphics, diff-corpus, diff-gen, diff-show, diff-reduce, pipeline-times, gpu-times)"
        )),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("untangle-gpu: {e}");
            ExitCode::from(2)
        }
    }
}
