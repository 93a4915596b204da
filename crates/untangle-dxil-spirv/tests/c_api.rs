//! The library through its C API, as vkd3d-proton uses it: `tests/c/driver.c` (parse,
//! reflect, create a converter, add options, set every callback, run, read the module and
//! the getters, free) built with the system C compiler against `include/dxil_spirv_c.h`,
//! linked with this crate's shared library (and once with its static library), over the
//! vkd3d-proton corpus (`../shared/corpus/dxil/vkd3d-proton`, DXIL) and DXBC shaders of
//! vkd3d-proton's own tests (read from the archive's `tests/shaders/*/headers/*.h`).
//!
//! - untangle route (default): every DXIL container parses; the reflection (stage, entry
//!   points, subobjects, work-graph nodes) is dxil-spirv's, line for line; every run
//!   translates but those refused by design (AMD AGS, work-graph nodes, a root-signature
//!   conflict), at least 80% of the corpus, and `spirv-val` accepts every module;
//! - with the delegate (the archive's dxil-spirv as a shared library, built by
//!   `tools/vkd3d-proton/build.sh delegate`; skipped without it outside CI): the reference
//!   mode gives, for every DXIL shader, the same printout and the same SPIR-V bytes as the
//!   driver linked with dxil-spirv itself; DXBC goes to the delegate by default, with the
//!   same result again; the stage-output callback (a capture, as vkd3d-proton's) is never
//!   asked twice about one semantic; the record and summary modes write what they promise;
//!   `spirv-val` accepts the modules (those dxil-spirv's own output fails are listed);
//! - the shadow mode (`UNTANGLE_DXIL_SPIRV_SHADOW=1`, with the delegate) changes nothing the
//!   driver sees (printout with every callback call, modules byte for byte) and its summary
//!   counts and times a shadow dxil-spirv run for every untangle-route run; without a
//!   loadable delegate it changes nothing either, and counts every shadow as failed;
//! - every function answers NULL arguments as the header says.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

enum Link {
    Shared,
    Static,
    /// The archive's dxil-spirv itself (the delegate library).
    Delegate(PathBuf),
}

fn build_driver(out: &Path, name: &str, link: Link) -> PathBuf {
    let exe = out.join(name);
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-g"])
        .arg("-I")
        .arg(Path::new(MANIFEST).join("include"))
        .arg(Path::new(MANIFEST).join("tests/c/driver.c"))
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Shared => {
            let lib = library_dir();
            cmd.arg(format!("-L{}", lib.display()))
                .arg("-luntangle_dxil_spirv")
                .arg(format!("-Wl,-rpath,{}", lib.display()));
        }
        Link::Static => {
            cmd.arg(library_dir().join("libuntangle_dxil_spirv.a")).args([
                "-lgcc_s",
                "-lutil",
                "-lrt",
                "-lpthread",
                "-lm",
                "-ldl",
                "-lc",
            ]);
            // A workspace-wide build unifies features: the testkit's `llvm` then reaches
            // untangle, and the static library needs LLVM's (shared) library too.
            if links_llvm() {
                let prefix = std::env::var("LLVM_SYS_140_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-14".into());
                cmd.arg(format!("-L{prefix}/lib")).arg("-lLLVM-14").arg(format!("-Wl,-rpath,{prefix}/lib"));
            }
        }
        Link::Delegate(so) => {
            let dir = so.parent().unwrap();
            cmd.arg(&so).arg(format!("-Wl,-rpath,{}", dir.display()));
        }
    }
    compile(cmd).unwrap();
    exe
}

/// Whether untangle was built with its LLVM front end (features unified across a
/// workspace-wide build): asking for the LLVM route then does not answer "missing".
fn links_llvm() -> bool {
    let route = untangle::front::load_bytes_with(b"; not DXIL".to_vec(), "probe", untangle::front::FrontEnd::Llvm);
    !matches!(route, Err(untangle::front::Error::FrontEndMissing(_)))
}

struct Run {
    stdout: String,
    stderr: String,
}

fn run(exe: &Path, args: &[&Path], outdir: Option<&Path>, env: &[(&str, &Path)]) -> Run {
    let mut cmd = c_command(exe);
    if let Some(o) = outdir {
        std::fs::create_dir_all(o).unwrap();
        cmd.arg("-o").arg(o);
    }
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let r = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(out.status.success(), "{} failed ({}):\n{}\n{}", exe.display(), out.status, r.stdout, tail(&r.stderr));
    r
}

/// The driver's printout without its callback counts.
fn without_calls(out: &str) -> String {
    out.lines().map(|l| l.split(" calls=").next().unwrap()).collect::<Vec<_>>().join("\n")
}

/// The callback counts of a `run` line (SRV, UAV, CBV, sampler, vertex input, stream
/// output, stage input, stage output).
fn calls(line: &str) -> Vec<u32> {
    let c = line.split(" calls=").nth(1).unwrap().split(' ').next().unwrap();
    c.split(',').map(|n| n.parse().unwrap()).collect()
}

/// Fails with the lines that differ (at most 20) when `got` is not `want`.
fn assert_same_lines(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let mut diff = Vec::new();
    for i in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(i).copied().unwrap_or("<none>"), w.get(i).copied().unwrap_or("<none>"));
        if a != b {
            diff.push(format!("  got:  {a}\n  want: {b}"));
        }
    }
    let n = diff.len();
    diff.truncate(20);
    panic!("{what}: {n} lines differ:\n{}", diff.join("\n"));
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// `file -> line` for the driver's lines of one kind (`reflect` or `run`).
fn lines<'a>(out: &'a str, kind: &str) -> BTreeMap<&'a str, &'a str> {
    out.lines()
        .filter_map(|l| {
            let (file, rest) = l.split_once(' ')?;
            rest.starts_with(kind).then_some((file, l))
        })
        .collect()
}

/// DXBC shaders (shader model 5) of vkd3d-proton's tests: the `*_code_dxbc[]` arrays of
/// the archive's `tests/shaders/*/headers/*.h`, written as files; at most `max`.
fn dxbc_shaders(dir: &Path, max: usize) -> Vec<PathBuf> {
    let Some(vkd3d) = unpack(&["tests/shaders"]) else { return Vec::new() };
    let mut headers: Vec<PathBuf> = std::fs::read_dir(vkd3d.join("tests/shaders"))
        .unwrap()
        .filter_map(|e| e.ok())
        .flat_map(|e| {
            std::fs::read_dir(e.path().join("headers")).into_iter().flatten().filter_map(|h| h.ok().map(|h| h.path()))
        })
        .collect();
    headers.sort();
    let mut out = Vec::new();
    for h in headers {
        let text = std::fs::read_to_string(&h).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("static const DWORD ") {
            rest = &rest[at + "static const DWORD ".len()..];
            let name = rest.split('[').next().unwrap().trim().to_string();
            let body = &rest[rest.find('{').unwrap() + 1..rest.find("};").unwrap()];
            let bytes: Vec<u8> = body
                .split(',')
                .filter_map(|w| u32::from_str_radix(w.trim().trim_start_matches("0x"), 16).ok())
                .flat_map(u32::to_le_bytes)
                .collect();
            let is_sm5 = bytes.windows(4).any(|w| w == b"SHEX" || w == b"SHDR");
            if name.ends_with("_code_dxbc") && is_sm5 {
                let p = dir.join(format!("{name}.dxbc"));
                std::fs::write(&p, &bytes).unwrap();
                out.push(p);
                if out.len() == max {
                    return out;
                }
            }
        }
    }
    out
}

fn corpus_or_skip() -> Option<Vec<PathBuf>> {
    let files = corpus_dxil();
    if files.is_empty() {
        assert!(!in_ci(), "no corpus at ../shared/corpus/dxil/vkd3d-proton");
        eprintln!("no corpus: skipping");
        return None;
    }
    Some(files)
}

fn delegate_or_skip() -> Option<PathBuf> {
    match delegate() {
        Some(d) => Some(d),
        None => {
            assert!(
                std::env::var_os("UNTANGLE_REQUIRE_DELEGATE").is_none(),
                "UNTANGLE_REQUIRE_DELEGATE is set but there is no delegate: run tools/vkd3d-proton/build.sh delegate target/vkd3d/delegate"
            );
            eprintln!(
                "no libdxil-spirv-c-shared.so (tools/vkd3d-proton/build.sh delegate target/vkd3d/delegate): skipping"
            );
            None
        }
    }
}

#[test]
fn null_arguments() {
    let dir = scratch("null");
    let exe = build_driver(&dir, "driver", Link::Shared);
    let r = run(&exe, &[Path::new("--null-checks")], None, &[]);
    assert!(r.stdout.contains("null checks: 0 failures"), "{}", r.stdout);
}

#[test]
fn untangle_route_translates() {
    let Some(files) = corpus_or_skip() else { return };
    let dir = scratch("untangle-route");
    let exe = build_driver(&dir, "driver", Link::Shared);
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let summary = dir.join("summary.jsonl");
    let out = dir.join("modules");
    let r = run(&exe, &args, Some(&out), &[("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary)]);
    let reflect = lines(&r.stdout, "reflect");
    let runs = lines(&r.stdout, "run");
    assert_eq!(reflect.len(), files.len());
    let mut by_design = 0;
    for (file, line) in &reflect {
        assert!(!line.contains("parse="), "{line}");
        assert!(!line.contains("out-of-range-output-accepted"), "{line}");
        assert!(!line.contains("out-of-range-entry-accepted"), "{line}");
        let run = runs.get(file).unwrap_or_else(|| panic!("no run line for {file}"));
        // Refused on purpose: the corpus's AMD AGS shaders (vendor intrinsics, by name: `ags`,
        // and the WMMA ones, which go through AGS too; issue 35: the float8 ones, as the
        // driver adds no FLOAT8_SUPPORT; tests/ags_wmma.rs checks which), work-graph nodes
        // (dxil-spirv's node interface is vkd3d-proton's runtime, `src/nodes.rs`), and
        // the library whose compute entry uses a register its global root-signature
        // subobject lacks (D3D rejects it; dxil-spirv refuses it too).
        let refused_by_design = file.contains("ags")
            || file.contains("_wmma_")
            || file.starts_with("workgraph.")
            || file.contains("root_signature_subobject_rt_conflict_mixed");
        assert!(run.contains("result=0") || run.contains("result=-") && refused_by_design, "{run}");
        // Most AGS shaders translate now (the library grants AGS and cooperative matrices;
        // issue 35): count only the refusals.
        by_design += (refused_by_design && !run.contains("result=0")) as usize;
    }
    // untangle's reflection is dxil-spirv's: stage, entry points (mangled and demangled, by
    // index and by name), stage per entry, work-graph node inputs and outputs (every field),
    // RDAT subobjects (payloads in the caller's buffer).
    if let Some(delegate) = delegate() {
        let stock = build_driver(&dir, "driver-stock", Link::Delegate(delegate));
        let want = run(&stock, &args, None, &[]);
        let reflection = |out: &str| lines(out, "reflect").values().copied().collect::<Vec<_>>().join("\n");
        assert_same_lines(
            &reflection(&r.stdout),
            &reflection(&want.stdout),
            "untangle's reflection against dxil-spirv's",
        );
        // The converter's setup calls answer as dxil-spirv's (local root tables begun twice,
        // ended empty, ...).
        let setup = |out: &str| lines(out, "setup").values().copied().collect::<Vec<_>>().join("\n");
        assert_same_lines(&setup(&r.stdout), &setup(&want.stdout), "the setup calls' codes");
    }
    let summary = std::fs::read_to_string(&summary).unwrap();
    let v: serde_json::Value = serde_json::from_str(summary.trim()).unwrap();
    let translated = runs.values().filter(|l| l.contains("result=0")).count();
    assert_eq!(v["dxil_untangle"], translated as u64, "{summary}");
    assert_eq!(v["dxil_refused"], (files.len() - translated) as u64, "{summary}");
    assert_eq!(translated + by_design, files.len(), "{translated} of {} translated", files.len());
    assert!(translated * 10 >= files.len() * 8, "{translated} of {} translated", files.len());
    // Every module validates.
    if let Some(val) = untangle_spirv_tools::find_spirv_val() {
        let mut rejected = Vec::new();
        for f in std::fs::read_dir(&out).unwrap() {
            let p = f.unwrap().path();
            let words: Vec<u32> = std::fs::read(&p)
                .unwrap()
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if let Err(e) = val.validate(&words, "vulkan1.3") {
                rejected.push(format!("{}: {}", p.display(), e.lines().next().unwrap_or("")));
            }
        }
        assert!(rejected.is_empty(), "spirv-val rejects {} modules:\n{}", rejected.len(), rejected.join("\n"));
    }
}

#[test]
fn static_library_links() {
    let Some(files) = corpus_or_skip() else { return };
    let dir = scratch("static");
    let exe = build_driver(&dir, "driver-static", Link::Static);
    let r = run(&exe, &[files[0].as_path()], None, &[]);
    assert!(r.stdout.contains(" reflect stage="), "{}", r.stdout);
}

#[test]
fn reference_mode_is_dxil_spirv() {
    let Some(files) = corpus_or_skip() else { return };
    let Some(delegate) = delegate_or_skip() else { return };
    let dir = scratch("reference");
    let ours = build_driver(&dir, "driver", Link::Shared);
    let stock = build_driver(&dir, "driver-stock", Link::Delegate(delegate.clone()));
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();

    let want = run(&stock, &args, Some(&dir.join("stock")), &[]);
    let record = dir.join("record");
    let summary = dir.join("summary.jsonl");
    let got = run(
        &ours,
        &args,
        Some(&dir.join("ours")),
        &[
            ("UNTANGLE_DXIL_SPIRV_REFERENCE", Path::new("1")),
            ("UNTANGLE_DXIL_SPIRV_DELEGATE", &delegate),
            ("UNTANGLE_DXIL_SPIRV_RECORD", &record),
            ("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary),
        ],
    );
    // The same printout but for callback counts: dxil-spirv asks some questions twice (the
    // same CBV, say), and the library answers repeats from its record.
    assert_same_lines(
        &without_calls(&got.stdout),
        &without_calls(&want.stdout),
        "the driver through untangle's library (reference mode) against dxil-spirv's",
    );
    let (mut fewer, mut asked) = (0, 0);
    for (file, theirs) in lines(&want.stdout, "run") {
        let (a, b) = (calls(lines(&got.stdout, "run")[file]), calls(theirs));
        assert!(
            a.iter().zip(&b).all(|(x, y)| x <= y),
            "{file}: more callback calls than dxil-spirv makes: {a:?} > {b:?}"
        );
        fewer += b.iter().sum::<u32>() - a.iter().sum::<u32>();
        asked += b.iter().sum::<u32>();
    }
    eprintln!("callbacks: dxil-spirv made {asked} calls, {fewer} of them repeats the library answered from its record");
    let mut modules = 0;
    for f in std::fs::read_dir(dir.join("stock")).unwrap() {
        let f = f.unwrap().path();
        let theirs = std::fs::read(&f).unwrap();
        let mine = std::fs::read(dir.join("ours").join(f.file_name().unwrap())).unwrap();
        assert!(theirs == mine, "{}: the module differs", f.display());
        modules += 1;
    }
    let ok = lines(&want.stdout, "run").values().filter(|l| l.contains("result=0")).count();
    assert_eq!(modules, ok);
    assert!(ok > files.len() / 2, "dxil-spirv translated only {ok} of {} shaders", files.len());
    // vkd3d-proton's stage-output capture fails on a second query for one semantic: the
    // library must not add any. (dxil-spirv itself asks twice about COLOR0 in
    // tessellation.line_tessellation_hs: as a control point output, then as a patch
    // constant; both are new questions, and both reach the callback.)
    let theirs = lines(&want.stdout, "run");
    for (file, l) in lines(&got.stdout, "run") {
        let dup = |l: &str| l.rsplit("duplicates=").next().unwrap().to_string();
        assert_eq!(dup(l), dup(theirs[file]), "{l}");
    }

    // The record: one JSON per DXIL run, the shader and the module beside.
    let records: Vec<serde_json::Value> = std::fs::read_dir(&record)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap())
        .collect();
    assert_eq!(records.len(), lines(&want.stdout, "run").values().filter(|l| !l.contains("create=")).count());
    let mut with_remaps = 0;
    for r in &records {
        assert_eq!(r["format"], "untangle-dxil-spirv-record/1");
        assert_eq!(r["route"], "delegate_dxil");
        let sha = r["shader_sha256"].as_str().unwrap();
        let shader = std::fs::read(record.join("shaders").join(format!("{sha}.dxil"))).unwrap();
        assert_eq!(untangle_dxil_spirv::sha256::hex(&shader), sha);
        assert!(
            r["options"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["type"] == "shader_demote_to_helper" && o["supported"] == true),
            "{r}"
        );
        assert!(r["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["type"] == "shader_source_file" && o["name"] == "driver.hlsl"));
        assert_eq!(r["root_constant_word_count"], 16);
        assert_eq!(r["meta_descriptors"][0]["kind"], "readonly_ssbo", "{r}");
        assert_eq!(r["root_parameter_mappings"].as_array().unwrap().len(), 2);
        if ["intersection", "closest_hit", "miss", "any_hit", "ray_generation", "callable"]
            .contains(&r["stage"].as_str().unwrap_or(""))
        {
            let local = r["local_root_parameters"].as_array().unwrap();
            assert_eq!(local.len(), 3, "{r}");
            assert_eq!(local[2]["entries"].as_array().unwrap().len(), 2, "{r}");
        }
        assert_eq!(r["root_descriptor_count"], 2);
        if r["result"] == "success" {
            let spirv =
                std::fs::read(record.join("spirv").join(format!("{}.spv", r["spirv_sha256"].as_str().unwrap())))
                    .unwrap();
            assert_eq!(spirv.len() as u64, r["spirv_size"].as_u64().unwrap());
            assert!(r["reflection"]["workgroup_size"].is_array());
        }
        if !r["remaps"].as_array().unwrap().is_empty() {
            with_remaps += 1;
            for e in r["remaps"].as_array().unwrap() {
                assert!(e["query"]["callback"].is_string() && e["answer"].is_object(), "{e}");
            }
        }
    }
    assert!(with_remaps > records.len() / 2, "only {with_remaps} records hold callback queries");

    let summary = std::fs::read_to_string(&summary).unwrap();
    let v: serde_json::Value = serde_json::from_str(summary.trim()).unwrap();
    assert_eq!(v["dxil_delegated"], ok as u64, "{summary}");
    assert_eq!(v["reference_mode"], true);

    // spirv-val: the modules are dxil-spirv's, byte for byte; report what it rejects.
    match untangle_spirv_tools::find_spirv_val() {
        Some(val) => {
            let mut rejected = Vec::new();
            for f in std::fs::read_dir(dir.join("ours")).unwrap() {
                let p = f.unwrap().path();
                // vkd3d-proton enables scalar block layout (the driver asks for it too).
                let mut cmd = Command::new(&val.val);
                cmd.args(["--target-env", "vulkan1.3", "--scalar-block-layout"]).arg(&p);
                if let Some(lib) = &val.lib_dir {
                    cmd.env("LD_LIBRARY_PATH", lib);
                }
                let out = cmd.output().unwrap();
                if !out.status.success() {
                    let msg = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
                    rejected.push(format!(
                        "{}: {}",
                        p.file_name().unwrap().to_string_lossy(),
                        msg.lines().next().unwrap_or("")
                    ));
                }
            }
            eprintln!(
                "spirv-val ({}) accepts {} of {modules} modules; rejects:\n{}",
                val.version(),
                modules - rejected.len(),
                rejected.join("\n")
            );
            assert!(rejected.len() * 10 < modules, "spirv-val rejects {} of {modules} modules", rejected.len());
        }
        None => assert!(!in_ci(), "no spirv-val"),
    }
}

#[test]
fn dxbc_goes_to_the_delegate() {
    let Some(delegate) = delegate_or_skip() else { return };
    let dir = scratch("dxbc");
    let shaders = dxbc_shaders(&dir, usize::MAX);
    if shaders.is_empty() {
        assert!(!in_ci(), "no DXBC shaders from the archive");
        return;
    }
    let ours = build_driver(&dir, "driver", Link::Shared);
    let stock = build_driver(&dir, "driver-stock", Link::Delegate(delegate.clone()));
    let args: Vec<&Path> = shaders.iter().map(PathBuf::as_path).collect();
    let want = run(&stock, &args, Some(&dir.join("stock")), &[]);
    let summary = dir.join("summary.jsonl");
    let record = dir.join("record");
    let got = run(
        &ours,
        &args,
        Some(&dir.join("ours")),
        &[
            ("UNTANGLE_DXIL_SPIRV_DELEGATE", &delegate),
            ("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary),
            ("UNTANGLE_DXIL_SPIRV_RECORD", &record),
        ],
    );
    assert_same_lines(&got.stdout, &want.stdout, "DXBC through untangle's library against dxil-spirv's");
    let ok = lines(&want.stdout, "run").values().filter(|l| l.contains("result=0")).count();
    assert!(ok * 10 > shaders.len() * 9, "dxil-spirv translated {ok} of {} DXBC shaders", shaders.len());
    for f in std::fs::read_dir(dir.join("stock")).unwrap() {
        let f = f.unwrap().path();
        assert!(std::fs::read(&f).unwrap() == std::fs::read(dir.join("ours").join(f.file_name().unwrap())).unwrap());
    }
    let v: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&summary).unwrap().trim()).unwrap();
    assert_eq!(v["dxbc_delegated"], ok as u64);
    assert_eq!(v["dxil_refused"], 0);
    // DXBC runs are not recorded.
    assert!(
        std::fs::read_dir(&record)
            .map_or(0, |d| d.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "json")).count())
            == 0
    );
    eprintln!("{ok} of {} DXBC shaders translated, the same as dxil-spirv's own", shaders.len());
}

#[test]
fn summary_lines_from_many_processes_do_not_interleave() {
    let Some(files) = corpus_or_skip() else { return };
    let dir = scratch("summary");
    let exe = build_driver(&dir, "driver", Link::Shared);
    let summary = dir.join("summary.jsonl");
    let children: Vec<_> =
        (0..8).map(|_| c_command(&exe).arg(&files[0]).env("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary).output()).collect();
    for c in children {
        assert!(c.unwrap().status.success());
    }
    let text = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(text.lines().count(), 8);
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["dxil_untangle"].as_u64().unwrap() + v["dxil_refused"].as_u64().unwrap(), 1, "{l}");
    }
}

/// The driver's log messages (its stderr's `log[...]` lines).
fn log_lines(stderr: &str) -> String {
    stderr.lines().filter(|l| l.starts_with("log[")).collect::<Vec<_>>().join("\n")
}

/// A summary line's number at `path` (`run_ms.untangle`), 0 when absent.
fn num(v: &serde_json::Value, path: &str) -> f64 {
    path.split('.').fold(v, |v, k| &v[k]).as_f64().unwrap_or(0.0)
}

#[test]
fn shadow_mode_changes_nothing_and_times_dxil_spirv() {
    let Some(files) = corpus_or_skip() else { return };
    let Some(delegate) = delegate_or_skip() else { return };
    let dir = scratch("shadow");
    let ours = build_driver(&dir, "driver", Link::Shared);
    let stock = build_driver(&dir, "driver-stock", Link::Delegate(delegate.clone()));
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();

    let plain_summary = dir.join("plain.jsonl");
    let plain = run(&ours, &args, Some(&dir.join("plain")), &[("UNTANGLE_DXIL_SPIRV_SUMMARY", &plain_summary)]);
    let summary = dir.join("shadow.jsonl");
    let shadowed = run(
        &ours,
        &args,
        Some(&dir.join("shadow")),
        &[
            ("UNTANGLE_DXIL_SPIRV_SHADOW", Path::new("1")),
            ("UNTANGLE_DXIL_SPIRV_DELEGATE", &delegate),
            ("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary),
        ],
    );
    let theirs = run(&stock, &args, None, &[]);

    // What the application sees: the same printout (results, getters, and the callback
    // calls and duplicate stage outputs of every shader: a shadow run never calls the
    // application), the same modules, byte for byte.
    assert_same_lines(&shadowed.stdout, &plain.stdout, "the driver with the shadow mode against without");
    // Nor does the application's log hear of the shadow (dxil-spirv's messages are dropped).
    assert_same_lines(&log_lines(&shadowed.stderr), &log_lines(&plain.stderr), "the log with the shadow mode");
    let mut modules = 0;
    for f in std::fs::read_dir(dir.join("plain")).unwrap() {
        let f = f.unwrap().path();
        let with_shadow = std::fs::read(dir.join("shadow").join(f.file_name().unwrap()));
        assert!(with_shadow.ok() == Some(std::fs::read(&f).unwrap()), "{}: the module differs", f.display());
        modules += 1;
    }
    assert_eq!(std::fs::read_dir(dir.join("shadow")).unwrap().count(), modules);

    // What dxil-spirv's own driver translates, and what it refuses because the driver's
    // stage-output capture refused a second query about one semantic (a shadow run gets
    // the recorded answer instead).
    let (plain_runs, stock_runs) = (lines(&plain.stdout, "run"), lines(&theirs.stdout, "run"));
    let stock_ok = stock_runs.values().filter(|l| l.contains("result=0")).count() as f64;
    let capture_refused =
        stock_runs.values().filter(|l| !l.contains("result=0") && !l.ends_with("duplicates=0")).count() as f64;
    let both =
        plain_runs.iter().filter(|(f, l)| l.contains("result=0") && stock_runs[*f].contains("result=0")).count() as f64;

    // The summaries.
    let read =
        |p: &Path| -> serde_json::Value { serde_json::from_str(std::fs::read_to_string(p).unwrap().trim()).unwrap() };
    let (off, on) = (read(&plain_summary), read(&summary));
    assert_eq!(off["shadow_mode"], false);
    assert_eq!((num(&off, "shadow_ok"), num(&off, "shadow_failed"), num(&off, "run_ms.shadow_dxil")), (0.0, 0.0, 0.0));
    assert_eq!(on["shadow_mode"], true);
    let untangle_runs = num(&on, "dxil_untangle") + num(&on, "dxil_refused");
    assert_eq!(untangle_runs, plain_runs.values().filter(|l| l.contains("result=")).count() as f64);
    let (shadow_ok, shadow_failed) = (num(&on, "shadow_ok"), num(&on, "shadow_failed"));
    assert!(shadow_ok > 0.0, "{on}");
    assert_eq!(shadow_ok + shadow_failed, untangle_runs, "a shadow per untangle-route run: {on}");
    assert!(num(&on, "run_ms.shadow_dxil") > 0.0, "{on}");
    let by_reason: f64 = on["shadow_failures"].as_object().unwrap().values().filter_map(|n| n.as_f64()).sum();
    assert_eq!(by_reason, shadow_failed, "every shadow failure has its reason: {on}");
    assert_eq!(num(&on, "run_count.untangle"), untangle_runs, "{on}");
    assert!(num(&on, "run_count.shadow_dxil") <= untangle_runs, "{on}");
    // The whole setup reaches the shadow: it translates what dxil-spirv's own driver does.
    assert!(
        stock_ok <= shadow_ok && shadow_ok <= stock_ok + capture_refused,
        "the shadow translated {shadow_ok}, dxil-spirv's driver {stock_ok} (+{capture_refused} refused by the capture): {on}"
    );
    let paired = num(&on, "shadow_paired.runs");
    assert!(both <= paired && paired <= both + capture_refused, "{both} both translate: {on}");

    let (u_ms, u_n) = (num(&on, "run_ms.untangle"), num(&on, "run_count.untangle"));
    let (s_ms, s_n) = (num(&on, "run_ms.shadow_dxil"), num(&on, "run_count.shadow_dxil"));
    let (pu, ps) = (num(&on, "shadow_paired.untangle_ms"), num(&on, "shadow_paired.shadow_dxil_ms"));
    // The application's callbacks are timed inside untangle's runs, never more than them.
    let callbacks = num(&on, "shadow_paired.untangle_callbacks_ms");
    assert!((0.0..=pu).contains(&callbacks), "callbacks {callbacks} ms of untangle's {pu} ms: {on}");
    eprintln!(
        "shadow: untangle {u_ms:.1} ms over {u_n} runs ({:.3} ms each), dxil-spirv {s_ms:.1} ms over {s_n} runs ({:.3} ms each); \
         both translated {paired} shaders: untangle {pu:.1} ms ({callbacks:.2} ms in the driver's callbacks), \
         dxil-spirv {ps:.1} ms, ratio {:.2}",
        u_ms / u_n.max(1.0),
        s_ms / s_n.max(1.0),
        pu / ps.max(f64::MIN_POSITIVE),
    );
}

#[test]
fn shadow_mode_without_a_delegate_changes_nothing() {
    let Some(files) = corpus_or_skip() else { return };
    let dir = scratch("shadow-no-delegate");
    let exe = build_driver(&dir, "driver", Link::Shared);
    let args: Vec<&Path> = files.iter().take(40).map(PathBuf::as_path).collect();
    let plain = run(&exe, &args, Some(&dir.join("plain")), &[]);
    let summary = dir.join("summary.jsonl");
    let missing = dir.join("no-such-dxil-spirv.so");
    let shadowed = run(
        &exe,
        &args,
        Some(&dir.join("shadow")),
        &[
            ("UNTANGLE_DXIL_SPIRV_SHADOW", Path::new("1")),
            ("UNTANGLE_DXIL_SPIRV_DELEGATE", &missing),
            ("UNTANGLE_DXIL_SPIRV_SUMMARY", &summary),
        ],
    );
    assert_same_lines(&shadowed.stdout, &plain.stdout, "the shadow mode without a delegate against no shadow mode");
    let mut modules = 0;
    for f in std::fs::read_dir(dir.join("plain")).unwrap() {
        let f = f.unwrap().path();
        let with_shadow = std::fs::read(dir.join("shadow").join(f.file_name().unwrap())).ok();
        assert!(with_shadow == Some(std::fs::read(&f).unwrap()), "{}: the module differs", f.display());
        modules += 1;
    }
    assert!(modules > 0);
    let v: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&summary).unwrap().trim()).unwrap();
    let runs = num(&v, "dxil_untangle") + num(&v, "dxil_refused");
    assert_eq!(runs, args.len() as f64, "{v}");
    assert_eq!((num(&v, "shadow_ok"), num(&v, "shadow_failed")), (0.0, runs), "{v}");
    assert_eq!(num(&v, "shadow_failures.dxil-spirv unavailable"), runs, "{v}");
    assert_eq!(num(&v, "run_count.shadow_dxil"), 0.0, "{v}");
}
