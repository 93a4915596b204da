//! The scaling benchmark (BENCHMARKS.md, "Scaling"): every stage of the shape path and
//! the DXIL translation, timed separately on generated shapes of about 10^3, 10^4 and
//! 10^5 blocks, with the exponent of each stage fitted over the sizes; and the csmith
//! corpus functions as they are (they cannot be scaled).
//!
//!     cargo run --release -p untangle-testkit --example scaling -- [--shapes diamonds,loops]
//!         [--sizes 1000,10000,100000] [--budget SECONDS] [--max-run SECONDS] [--no-csmith] [--no-dxil]
//!
//! Stages of the shape path (what `untangle translate --shape FILE` does):
//! - `parse`: LLVM text to IR (`load::load_bytes`: the native reader, `lltext`);
//! - `cfg analyses`: `cfg::Cfg::new` (orders, dominator and post-dominator trees,
//!   reducibility, loop forest), what `untangle cfg` and derivative hoisting use;
//! - `structurize setup`: the structurizer's input check (`Cfg::check`: well-formed and
//!   reducible, the part of `Cfg::new` it needs) plus building the working graph
//!   (`Scfg::from_function`);
//! - one row per structurizer pass (`loop_continue` … `mark`) and `phi` (SSA repair), timed
//!   between the pass manager's dump-hook calls;
//! - `emit shape`: the shape module's SPIR-V words, block and PHI names included;
//! - `shape path total`: parse + structurize + emit.
//!
//! DXIL rows: the same function wrapped as a compute shader (`shape_text::as_compute_shader`):
//! `dxil parse` and `dxil translate` (`emit::translate_module`: DXIL layer, structurizer,
//! emission, assembly).
//!
//! Each (shape, size) is measured in a child process of its own (this program, re-run with
//! `--one SHAPE:N`), which also reports its peak resident memory. It runs repeatedly until
//! `--budget` seconds (default 1) are spent, at least once and at most 20 times; every stage
//! keeps its fastest run. Times are the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), so
//! that other work on a shared machine does not add its waits to them. The exponent is the
//! least-squares slope of log(time) against log(blocks) over the sizes. A measurement that
//! takes longer than `--max-run` seconds (default 120) is stopped, and it and that shape's
//! larger sizes are shown as `–` (no exponent).

use std::time::Instant;

/// With the test kit's `mimalloc` feature, the allocator the command line uses.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use untangle::emit::shape::emit_shape_module;
use untangle::ir::Function;
use untangle::passes::{structurize, Options, Scfg};
use untangle_testkit::fuzzing::shape_text::{as_compute_shader, Shape};

const SHAPE_STAGES: [&str; 13] = [
    "parse",
    "cfg analyses",
    "structurize setup",
    "loop_continue",
    "loop_exit",
    "header_split",
    "selection",
    "edge_split",
    "loop_entry",
    "mark",
    "phi",
    "emit shape",
    "shape path total",
];
const DXIL_STAGES: [&str; 2] = ["dxil parse", "dxil translate"];

/// The structurizer's rows: its setup, then one per pass of `passes::PASSES` (`phi` last).
const STRUCTURIZE_STAGES: usize = 1 + untangle::passes::PASSES.len();
const _: () = assert!(SHAPE_STAGES.len() == STRUCTURIZE_STAGES + 4, "a row per structurizer stage");

/// Stage times of one run, in seconds, in `SHAPE_STAGES` then `DXIL_STAGES` order.
type Times = Vec<Option<f64>>;

fn stage_count() -> usize {
    SHAPE_STAGES.len() + DXIL_STAGES.len()
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): the stages run on one
/// thread, and on a shared machine its CPU time is what the code costs, while wall time
/// also counts the waits for a core.
#[derive(Clone, Copy)]
struct CpuTime(f64);

impl CpuTime {
    fn now() -> CpuTime {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant of libc.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
        CpuTime(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
    }

    /// Seconds from `earlier` to `self`.
    fn since(self, earlier: CpuTime) -> f64 {
        self.0 - earlier.0
    }

    fn elapsed(self) -> f64 {
        CpuTime::now().since(self)
    }
}

/// Times of the structurizer's stages for one function (setup, passes, phi).
fn structurize_times(func: &Function) -> Result<(Vec<f64>, untangle::passes::Structured), String> {
    let mut marks: Vec<CpuTime> = Vec::with_capacity(STRUCTURIZE_STAGES);
    let start = CpuTime::now();
    let result = {
        let mut hook = |_: usize, _: &str, _: &Scfg| marks.push(CpuTime::now());
        structurize(func, Options { dump: Some(&mut hook), ..Options::default() })
    };
    let structured = result.map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(STRUCTURIZE_STAGES);
    let mut prev = start;
    for m in &marks {
        times.push(m.since(prev));
        prev = *m;
    }
    Ok((times, structured))
}

/// One run of every stage on `text` (and `dxil`, its compute-shader form).
fn run_once(text: &str, dxil: Option<&str>) -> Result<(usize, Times), String> {
    let mut times: Times = vec![None; stage_count()];
    let t = CpuTime::now();
    let loaded = untangle::front::load_bytes(text.as_bytes().to_vec(), "shape.ll").map_err(|e| e.to_string())?;
    let parse = t.elapsed();
    times[0] = Some(parse);
    let funcs: Vec<&Function> = loaded.module.defined_functions().map(|(_, f)| f).collect();
    let blocks = funcs.iter().map(|f| f.layout.len()).sum();
    let t = CpuTime::now();
    for f in &funcs {
        untangle::cfg::Cfg::new(f).map_err(|e| e.to_string())?;
    }
    times[1] = Some(t.elapsed());
    let mut structured = Vec::new();
    let mut pass_times = [0.0f64; STRUCTURIZE_STAGES];
    let t_structurize = CpuTime::now();
    for f in &funcs {
        let (ts, s) = structurize_times(f)?;
        for (acc, x) in pass_times.iter_mut().zip(ts) {
            *acc += x;
        }
        structured.push((*f, s));
    }
    let structurize_total = t_structurize.elapsed();
    for (i, x) in pass_times.iter().enumerate() {
        times[2 + i] = Some(*x);
    }
    let pairs: Vec<_> = structured.iter().map(|(f, s)| (*f, s)).collect();
    let t = CpuTime::now();
    let words = emit_shape_module(&loaded.module, &pairs).map_err(|e| e.to_string())?;
    std::hint::black_box(words);
    let emit = t.elapsed();
    times[2 + STRUCTURIZE_STAGES] = Some(emit);
    times[3 + STRUCTURIZE_STAGES] = Some(parse + structurize_total + emit);
    if let Some(shader) = dxil {
        let t = CpuTime::now();
        let loaded = untangle::front::load_bytes(shader.as_bytes().to_vec(), "shader.ll").map_err(|e| e.to_string())?;
        times[SHAPE_STAGES.len()] = Some(t.elapsed());
        let t = CpuTime::now();
        match untangle::translate_module(&loaded.module, &untangle::Options::default()) {
            Ok(tr) => {
                std::hint::black_box(tr.words);
                times[SHAPE_STAGES.len() + 1] = Some(t.elapsed());
            }
            Err(e) => eprintln!("  dxil translate: {e}"),
        }
    }
    Ok((blocks, times))
}

/// The fastest of repeated runs, stage by stage.
fn measure(text: &str, dxil: Option<&str>, budget: f64) -> Result<(usize, Times), String> {
    let start = Instant::now();
    let (blocks, mut best) = run_once(text, dxil)?;
    let mut runs = 1;
    while runs < 20 && start.elapsed().as_secs_f64() < budget {
        let (_, t) = run_once(text, dxil)?;
        for (b, x) in best.iter_mut().zip(t) {
            *b = match (*b, x) {
                (Some(a), Some(c)) => Some(a.min(c)),
                (a, c) => a.or(c),
            };
        }
        runs += 1;
    }
    Ok((blocks, best))
}

/// Least-squares slope of log(y) on log(x).
fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points.iter().filter(|p| p.0 > 0.0 && p.1 > 0.0).map(|p| (p.0.ln(), p.1.ln())).collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn fmt_time(t: Option<f64>) -> String {
    match t {
        None => "–".into(),
        Some(t) if t >= 1.0 => format!("{t:.2} s"),
        Some(t) if t >= 1e-3 => format!("{:.2} ms", t * 1e3),
        Some(t) => format!("{:.1} µs", t * 1e6),
    }
}

fn csmith(budget: f64) -> Option<(usize, usize, Times)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/cfg/csmith");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).ok()?.flatten().map(|e| e.path()).collect();
    paths.retain(|p| p.extension().is_some_and(|x| x == "ll"));
    paths.sort();
    let mut total: Times = vec![Some(0.0); SHAPE_STAGES.len()];
    let (mut functions, mut blocks) = (0, 0);
    let per_file = budget / paths.len().max(1) as f64;
    for p in &paths {
        let text = std::fs::read_to_string(p).ok()?;
        let (b, t) = match measure(&text, None, per_file) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                continue;
            }
        };
        functions += text.matches("\ndefine ").count() + usize::from(text.starts_with("define "));
        blocks += b;
        for (acc, x) in total.iter_mut().zip(t) {
            *acc = Some(acc.unwrap_or(0.0) + x.unwrap_or(0.0));
        }
    }
    Some((functions, blocks, total))
}

/// Peak resident memory of this process so far, in KiB (Linux; `None` elsewhere).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A child's report: blocks, each stage's time (`-` for none), peak RSS in KiB.
fn report(blocks: usize, times: &Times) -> String {
    let cells: Vec<String> = times.iter().map(|t| t.map_or("-".to_string(), |x| format!("{x:e}"))).collect();
    format!("{blocks} {} {}", cells.join(" "), peak_rss_kib().unwrap_or(0))
}

fn parse_report(line: &str) -> Option<(usize, Times, u64)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let blocks = fields.first()?.parse().ok()?;
    let times = fields.get(1..fields.len() - 1)?.iter().map(|f| f.parse().ok()).collect();
    Some((blocks, times, fields.last()?.parse().ok()?))
}

/// Runs this program again with `args` (each measurement in a fresh process: LLVM's trial
/// parse forks, and a large parent makes that slow; and the peak memory is the run's own).
/// `None` also when the child runs past `limit` seconds (it is killed then).
fn in_child(args: &[String], limit: f64) -> Option<(usize, Times, u64)> {
    use std::io::Read;
    let exe = std::env::current_exe().ok()?;
    let mut child = std::process::Command::new(exe)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        if child.try_wait().ok()?.is_some() {
            break;
        }
        if started.elapsed().as_secs_f64() > limit {
            eprintln!("  stopped after {limit} s");
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    parse_report(out.lines().last()?)
}

fn fmt_kib(k: u64) -> String {
    format!("{:.0} MB", k as f64 * 1024.0 / 1e6)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let budget: f64 = value("--budget").map_or(1.0, |s| s.parse().expect("seconds"));
    let with_dxil = !args.iter().any(|a| a == "--no-dxil");
    // Child modes: one measurement, reported on stdout.
    if let Some(spec) = value("--one") {
        let (name, n) = spec.split_once(':').expect("SHAPE:N");
        let shape = Shape::from_name(name).expect("shape");
        let text = shape.text(n.parse().expect("count"));
        let dxil = if with_dxil { as_compute_shader(&text) } else { None };
        match measure(&text, dxil.as_deref(), budget) {
            Ok((blocks, times)) => println!("{}", report(blocks, &times)),
            Err(e) => eprintln!("{spec}: {e}"),
        }
        return;
    }
    if args.iter().any(|a| a == "--csmith-child") {
        if let Some((functions, blocks, times)) = csmith(budget) {
            eprintln!("csmith: {functions} functions");
            println!("{}", report(blocks, &times));
        }
        return;
    }
    let shapes: Vec<Shape> = match value("--shapes") {
        Some(list) => {
            list.split(',').map(|s| Shape::from_name(s).unwrap_or_else(|| panic!("unknown shape {s}"))).collect()
        }
        None => Shape::ALL.to_vec(),
    };
    let sizes: Vec<usize> = match value("--sizes") {
        Some(list) => list.split(',').map(|s| s.parse().expect("size")).collect(),
        None => vec![1_000, 10_000, 100_000],
    };
    let max_run: f64 = value("--max-run").map_or(120.0, |s| s.parse().expect("seconds"));
    let with_csmith = !args.iter().any(|a| a == "--no-csmith");
    let mut child_args = vec!["--budget".to_string(), budget.to_string()];
    if !with_dxil {
        child_args.push("--no-dxil".into());
    }

    println!(
        "| shape | stage | {} | exponent |",
        sizes.iter().map(|s| format!("~{s} blocks")).collect::<Vec<_>>().join(" | ")
    );
    println!("| --- | --- | {}--- |", "--- | ".repeat(sizes.len()));
    for shape in shapes {
        let mut rows: Vec<(usize, Times, u64)> = Vec::new();
        let mut too_slow = false;
        for &size in &sizes {
            let n = shape.count_for_blocks(size);
            if too_slow {
                rows.push((0, vec![None; stage_count()], 0));
                continue;
            }
            eprintln!("{} n={n} …", shape.name());
            let started = Instant::now();
            let mut a = child_args.clone();
            a.extend(["--one".to_string(), format!("{}:{n}", shape.name())]);
            match in_child(&a, max_run) {
                Some(r) => rows.push(r),
                None => {
                    eprintln!("{} n={n}: no result", shape.name());
                    rows.push((0, vec![None; stage_count()], 0));
                }
            }
            too_slow = started.elapsed().as_secs_f64() > max_run;
        }
        let stages: Vec<&str> =
            SHAPE_STAGES.iter().chain(if with_dxil { &DXIL_STAGES[..] } else { &[] }).copied().collect();
        let dash = |ok: bool, s: String| if ok { s } else { "–".to_string() };
        let block_counts: Vec<String> = rows.iter().map(|(b, _, _)| dash(*b > 0, b.to_string())).collect();
        println!("| **{}** ({}) | blocks | {} | |", shape.name(), shape.description(), block_counts.join(" | "));
        for (i, stage) in stages.iter().enumerate() {
            let cells: Vec<String> = rows.iter().map(|(_, t, _)| fmt_time(t.get(i).copied().flatten())).collect();
            let points: Vec<(f64, f64)> =
                rows.iter().filter_map(|(b, t, _)| t.get(i).copied().flatten().map(|x| (*b as f64, x))).collect();
            let exponent = if points.len() == rows.len() { fitted_exponent(&points) } else { None };
            let e = exponent.map_or("–".to_string(), |e| format!("{e:.2}"));
            println!("| | {stage} | {} | {e} |", cells.join(" | "));
        }
        let peaks: Vec<String> = rows.iter().map(|(b, _, k)| dash(*b > 0, fmt_kib(*k))).collect();
        println!("| | peak RSS (process) | {} | |", peaks.join(" | "));
    }
    if with_csmith {
        let mut a = child_args.clone();
        a[1] = (budget * 4.0).to_string();
        a.push("--csmith-child".into());
        if let Some((blocks, t, _)) = in_child(&a, f64::INFINITY) {
            println!();
            println!("csmith corpus, as is ({blocks} blocks), each file its fastest run:");
            println!();
            println!("| stage | all functions | per block |");
            println!("| --- | --- | --- |");
            for (i, stage) in SHAPE_STAGES.iter().enumerate() {
                let x = t.get(i).copied().flatten();
                let per_block = x.map(|x| format!("{:.2} µs", x * 1e6 / blocks.max(1) as f64));
                println!("| {stage} | {} | {} |", fmt_time(x), per_block.unwrap_or_default());
            }
        }
    }
}
