//! Builds `tests/c/translate.c` with the system C compiler against `include/untangle.h` and
//! the library (shared and static), runs it over the vkd3d-proton corpus (compute, pixel
//! and vertex shaders) and the repository's `corpus/*.ll`, and checks that what it wrote
//! under every option set (translate.c's header lists them: default; root signatures as
//! strings and RTS0 bytes, heap and direct models, push-constant budgets 128, 16 and 0;
//! remapping callbacks; stream output) is byte for byte what the Rust API gives for the
//! same options: the SPIR-V words, the layout report JSON, the root arguments, or the error
//! status. The RTS0 bytes translate.c encodes must read back as the signature its string
//! says; its translations on four threads at once must match its sequential ones. The error
//! paths (corrupt input, NULL pointers, bad values) return the right codes and messages;
//! the README's C snippet compiles and runs; and, when the compiler has AddressSanitizer,
//! a run under it reports no invalid access and no leak.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use untangle::rootsig::layout::{PipelineLayout, PushKind};
use untangle::rootsig::{self, BindingModel, LayoutOptions, RootDescriptors, RootSignature, Version};
use untangle::{
    IoLocation, IoRemap, Options, ResourceRemap, RootSignatureBinding, Shader, ShaderKind, StreamOutput,
    StreamOutputDeclaration, VkBinding,
};
use untangle_capi::{status_of, untangle_status_name};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// Threads translate.c translates each shader on at once.
const THREADS: usize = 4;

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The directory holding `libuntangle_capi.so` of this build: the test executable lives in
/// `<target>/<profile>/deps`, and cargo builds the library's cdylib there for the tests.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libuntangle_capi.so").exists() && dir.join("libuntangle_capi.a").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libuntangle_capi.so and .a are neither in {} nor its parent", deps.display());
}

fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().join(format!("capi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A command running a C program. It finds the library through its run path: cargo's
/// `LD_LIBRARY_PATH` (which the loader searches first) may list a stale copy in
/// `<target>/<profile>`, one that `cargo test` does not refresh.
fn c_command(exe: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH");
    c
}

/// How a C program links the library.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Shared,
    Static,
}

/// Compiles C sources against the header and the library into `out/exe`.
fn compile(out: &Path, exe: &str, sources: &[PathBuf], extra: &[&str], link: Link) -> Result<PathBuf, String> {
    let lib = library_dir();
    let exe = out.join(exe);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut cmd = Command::new(&cc);
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-pthread"])
        .args(extra)
        .arg("-I")
        .arg(Path::new(MANIFEST).join("include"))
        .args(sources)
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Shared => {
            // The program records the library's SONAME, `libuntangle_capi.so.<ABI>`: an
            // installation links that name to the file (here, in the program's directory).
            let soname = format!("libuntangle_capi.so.{}", untangle_capi::UNTANGLE_ABI_VERSION);
            match std::os::unix::fs::symlink(lib.join("libuntangle_capi.so"), out.join(&soname)) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("{soname}: {e}"),
                _ => {}
            }
            cmd.arg(format!("-L{}", lib.display())).arg("-luntangle_capi").arg(format!("-Wl,-rpath,{}", out.display()));
        }
        Link::Static => {
            // The system libraries of a Rust staticlib on Linux (`--print native-static-libs`),
            // and LLVM's when this build has the LLVM front end (linked dynamically).
            cmd.arg(lib.join("libuntangle_capi.a")).args([
                "-lgcc_s",
                "-lutil",
                "-lrt",
                "-lpthread",
                "-lm",
                "-ldl",
                "-lc",
            ]);
            if links_llvm() {
                let prefix = std::env::var("LLVM_SYS_140_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-14".into());
                cmd.arg(format!("-L{prefix}/lib")).arg("-lLLVM-14").arg(format!("-Wl,-rpath,{prefix}/lib"));
            }
        }
    }
    let output = cmd.output().map_err(|e| format!("cannot run `{cc}`: {e}"))?;
    if !output.status.success() {
        return Err(format!("{cc} failed:\n{}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(exe)
}

/// Whether the library was built with the LLVM front end: through this crate's `llvm`
/// feature or, with features unified across the workspace, another crate's.
fn links_llvm() -> bool {
    let route = untangle::front::load_bytes_with(NOT_DXIL.to_vec(), "probe", untangle::front::FrontEnd::Llvm)
        .map_err(untangle::Error::from);
    !matches!(route, Err(untangle::Error::FrontEndMissing(_)))
}

/// translate.c compiled; `None` (skip) only outside CI when there is no C compiler.
fn compile_translate(out: &Path, extra: &[&str], link: Link) -> Option<PathBuf> {
    match compile(out, "translate", &[Path::new(MANIFEST).join("tests/c/translate.c")], extra, link) {
        Ok(exe) => Some(exe),
        Err(e) if !in_ci() && e.starts_with("cannot run") => {
            eprintln!("{e}: skipping");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn inputs() -> Vec<PathBuf> {
    let shared = Path::new(MANIFEST).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&shared) {
        Ok(dir) => dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                n.ends_with(".dxil") && [".cs_", ".ps_", ".vs_"].iter().any(|s| n.contains(s))
            })
            .collect(),
        Err(_) => {
            assert!(!in_ci(), "{} is missing under CI", shared.display());
            eprintln!("{} not found: the repository's samples only", shared.display());
            Vec::new()
        }
    };
    for e in std::fs::read_dir(Path::new(MANIFEST).join("../../corpus")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ll") {
            files.push(p);
        }
    }
    files.sort();
    files
}

fn name_of(status: untangle_capi::untangle_status) -> String {
    // SAFETY: untangle_status_name returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(untangle_status_name(status as i32)) }.to_string_lossy().into_owned()
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// What a translation gave, as the C program writes it and as the Rust API returns it:
/// the words, the layout JSON and the root-argument lines (with a root signature); or the
/// error's status name.
#[derive(PartialEq, Debug)]
struct Outcome {
    words: Vec<u32>,
    layout_json: Option<String>,
    root_arguments: Option<String>,
}

/// What the C program wrote for one shader and mode.
fn c_outcome(dir: &Path, name: &str, mode: &str) -> Option<Result<Outcome, String>> {
    let file = |ext: &str| dir.join(format!("{name}.{mode}.{ext}"));
    if let Ok(bytes) = std::fs::read(file("spv")) {
        return Some(Ok(Outcome {
            words: words_of(&bytes),
            layout_json: std::fs::read_to_string(file("layout.json")).ok(),
            root_arguments: std::fs::read_to_string(file("args.txt")).ok(),
        }));
    }
    let text = std::fs::read_to_string(file("err")).ok()?;
    Some(Err(text.lines().next().unwrap_or("").to_string()))
}

/// The root arguments of a layout as translate.c writes them from
/// `untangle_result_root_arguments` / `untangle_result_root_argument`.
fn root_argument_lines(l: &PipelineLayout) -> String {
    let mut s = format!("push_constants {}\n", l.push_constants.size);
    if let Some(b) = &l.root_argument_buffer {
        s += &format!("root_argument_buffer set {} binding {} size {}\n", b.set, b.binding, b.size);
    }
    let spilled = l.root_argument_buffer.iter().flat_map(|b| b.members.iter().map(|m| ("buffer", m)));
    for (store, m) in l.push_constants.members.iter().map(|m| ("push", m)).chain(spilled) {
        let kind = match m.kind {
            PushKind::TableOffset { .. } => "table_offset",
            PushKind::RootDescriptorAddress { .. } => "descriptor_address",
            PushKind::RootConstants { .. } => "constants",
        };
        s += &format!("parameter {} {store} offset {} size {} {kind}\n", m.parameter, m.offset, m.size);
    }
    s
}

/// The Rust API's outcome in the same form.
fn rust_outcome(r: Result<untangle::Translation, untangle::Error>) -> Result<Outcome, String> {
    match r {
        Ok(t) => Ok(Outcome {
            layout_json: t.layout.as_ref().map(|l| serde_json::to_string(l).unwrap()),
            root_arguments: t.layout.as_ref().map(|l| root_argument_lines(&l.layout)),
            words: t.words,
        }),
        Err(e) => Err(name_of(status_of(&e))),
    }
}

/// The remapping rules of translate.c.
fn remap_options() -> Options {
    Options {
        resource_remap: Some(ResourceRemap::new(|q| {
            let r = q.resource;
            if r.class == untangle::dxil::ResourceClass::Cbv {
                return None;
            }
            Some(VkBinding {
                set: 7u32.wrapping_add(r.space),
                binding: (r.class.index().wrapping_mul(100)).wrapping_add(r.lower_bound).wrapping_add(if q.counter {
                    50
                } else {
                    0
                }),
            })
        })),
        io_remap: Some(IoRemap::new(|q| {
            let row = q.element.start_row?;
            Some(IoLocation {
                location: row.wrapping_add(if q.output { 2 } else { 1 }),
                component: q.element.start_col.unwrap_or(0),
            })
        })),
        ..Options::default()
    }
}

/// translate.c's stream output: every output row whole to slot 0, then a one-component gap.
fn xfb_options(shader: &Shader) -> Option<Options> {
    let outputs = &shader.signatures()?.outputs;
    if shader.stage() != ShaderKind::Vertex || outputs.is_empty() {
        return None;
    }
    let mut declarations = Vec::new();
    for e in outputs {
        let indices = if e.semantic_indices.is_empty() { vec![0] } else { e.semantic_indices.clone() };
        for k in indices {
            declarations.push(StreamOutputDeclaration::new(&e.semantic, k, 0, e.cols, 0));
        }
    }
    declarations.push(StreamOutputDeclaration::gap(1, 0));
    let stride = declarations.iter().map(|d| 4 * d.component_count).sum();
    Some(Options {
        stream_output: Some(StreamOutput { declarations, buffer_strides: vec![stride], rasterized_stream: Some(0) }),
        ..Options::default()
    })
}

/// The root signature a string of translate.c's says (parsed as 1.1 and validated).
fn signature_of_string(dir: &Path, name: &str, which: &str) -> Result<RootSignature, untangle::Error> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.{which}.txt")))
        .unwrap_or_else(|_| panic!("{name}: no {which} root signature written"));
    let rs = rootsig::parse_hlsl(&text, Version::V1_1)?;
    rootsig::validate(&rs)?;
    Ok(rs)
}

/// translate.c's option sets as Rust options: the mode's name and its options, or the
/// status setting them up fails with.
fn rust_modes(dir: &Path, name: &str, shader: &Shader) -> Vec<(&'static str, Result<Options, String>)> {
    let tables = signature_of_string(dir, name, "tables");
    let rootargs = signature_of_string(dir, name, "rootargs");
    let rts0 = rootsig::parse_rts0_file(&std::fs::read(dir.join(format!("{name}.rootargs.rts0"))).unwrap());
    // translate.c's RTS0 encoder and its string say the same signature.
    match (&rootargs, &rts0) {
        (Ok(from_string), Ok(from_bytes)) => assert_eq!(from_string, from_bytes, "{name}: RTS0 bytes ≠ string"),
        (Ok(_), Err(e)) => panic!("{name}: translate.c's RTS0 bytes do not read: {e}"),
        _ => {}
    }
    let with = |signature: &Result<RootSignature, untangle::Error>,
                model: BindingModel,
                root_descriptors: RootDescriptors,
                max_push_constant_bytes: u32| {
        match signature {
            Ok(signature) => Ok(Options {
                root_signature: Some(RootSignatureBinding {
                    signature: signature.clone(),
                    layout: LayoutOptions { model, root_descriptors, max_push_constant_bytes },
                }),
                ..Options::default()
            }),
            Err(e) => Err(name_of(status_of(e))),
        }
    };
    let rts0 = rts0.map_err(untangle::Error::from);
    let address = RootDescriptors::Address;
    let mut modes = vec![
        ("default", Ok(Options::default())),
        ("heap", with(&tables, BindingModel::Heap, address, 128)),
        ("direct", with(&tables, BindingModel::Direct, address, 128)),
        ("rootargs", with(&rootargs, BindingModel::Heap, address, 128)),
        ("rts0", with(&rts0, BindingModel::Heap, address, 128)),
        ("spill", with(&rts0, BindingModel::Heap, address, 0)),
        ("spill_direct", with(&rootargs, BindingModel::Direct, RootDescriptors::Descriptor, 16)),
        ("remap", Ok(remap_options())),
    ];
    if let Some(o) = xfb_options(shader) {
        modes.push(("xfb", Ok(o)));
    }
    modes
}

/// What comparing the C program's output with the Rust API's found.
#[derive(Default)]
struct Comparison {
    shaders: usize,
    /// (shader, option set) pairs compared, errors included.
    compared: usize,
    /// Translations (not option setups) compared: translate.c repeats each on every thread.
    translations: usize,
    /// Identical successful modules by mode.
    modules: BTreeMap<&'static str, usize>,
    /// Identical failures by mode.
    failures: BTreeMap<&'static str, usize>,
}

/// Compares everything translate.c wrote in `out` for `files` with the Rust API's output.
fn compare_with_rust(out: &Path, files: &[PathBuf]) -> Comparison {
    let val = untangle_spirv_tools::find_spirv_val();
    assert!(val.is_some() || !in_ci(), "spirv-val is required under CI");
    let mut validated: HashSet<Vec<u32>> = HashSet::new();
    let mut cmp = Comparison::default();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let shader = match Shader::parse(&std::fs::read(path).unwrap()) {
            Ok(s) => s,
            Err(e) => {
                let c = c_outcome(out, &name, "parse").unwrap_or_else(|| panic!("{name}: C parsed what Rust did not"));
                assert_eq!(c.map(|_| ()), Err(name_of(status_of(&e))), "{name}: parse");
                continue;
            }
        };
        cmp.shaders += 1;
        let mut by_mode: BTreeMap<&str, Result<Outcome, String>> = BTreeMap::new();
        for (mode, options) in rust_modes(out, &name, &shader) {
            let c = c_outcome(out, &name, mode).unwrap_or_else(|| panic!("{name}: the C program wrote no {mode}"));
            let rust = match options {
                Ok(options) => {
                    cmp.translations += 1;
                    rust_outcome(shader.translate(&options))
                }
                Err(status) => Err(status),
            };
            match (&c, &rust) {
                (Ok(c), Ok(r)) => {
                    assert!(c.words == r.words, "{name} ({mode}): the C API's module differs from the Rust API's");
                    assert_eq!(c.layout_json, r.layout_json, "{name} ({mode}): layout report");
                    assert_eq!(c.root_arguments, r.root_arguments, "{name} ({mode}): root arguments");
                    if let Some(v) = &val {
                        if validated.insert(c.words.clone()) {
                            v.validate(&c.words, "vulkan1.3")
                                .unwrap_or_else(|e| panic!("{name} ({mode}): spirv-val: {e}"));
                        }
                    }
                    *cmp.modules.entry(mode).or_default() += 1;
                }
                _ => {
                    assert_eq!(c.as_ref().map(|_| ()), rust.as_ref().map(|_| ()), "{name} ({mode}): outcome");
                    *cmp.failures.entry(mode).or_default() += 1;
                }
            }
            cmp.compared += 1;
            by_mode.insert(mode, c);
        }
        // The same signature as bytes and as a string gives the same module and report.
        if let (Some(Ok(string)), Some(Ok(bytes))) = (by_mode.get("rootargs"), by_mode.get("rts0")) {
            assert_eq!(string, bytes, "{name}: RTS0 bytes and string translate differently");
        }
        // A budget of 0 puts every root argument (at least the root constants) in the buffer.
        if let Some(Ok(spill)) = by_mode.get("spill") {
            let args = spill.root_arguments.as_deref().unwrap_or_default();
            assert!(args.starts_with("push_constants 0\nroot_argument_buffer "), "{name} (spill): {args}");
            assert!(!args.contains(" push offset"), "{name} (spill): {args}");
        }
    }
    cmp
}

#[test]
fn c_program_matches_the_rust_api() {
    let out = scratch("translate");
    let Some(exe) = compile_translate(&out, &[], Link::Shared) else { return };
    let files = inputs();
    let run = c_command(&exe).arg("--threads").arg(THREADS.to_string()).arg(&out).args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the C program failed:\n{}\n{stdout}", String::from_utf8_lossy(&run.stderr));
    let cmp = compare_with_rust(&out, &files);
    eprintln!(
        "{} inputs, {} shaders x their option sets = {} comparisons with the Rust API \
         ({} translations); identical modules by option set: {:?}; identical failures: {:?}",
        files.len(),
        cmp.shaders,
        cmp.compared,
        cmp.translations,
        cmp.modules,
        cmp.failures
    );
    // Every translation again on THREADS threads at once, each matching the sequential one.
    let threads_line = format!("threads: {} translations on {THREADS} threads matched", THREADS * cmp.translations);
    assert!(
        stdout.lines().any(|l| l == threads_line),
        "expected `{threads_line}`:\n{}",
        stdout.lines().last().unwrap()
    );
    if files.len() > 10 {
        assert!(cmp.shaders >= 150, "only {} shaders parsed", cmp.shaders);
        for mode in ["default", "heap", "direct", "rootargs", "rts0", "spill", "spill_direct", "remap", "xfb"] {
            let n = cmp.modules.get(mode).copied().unwrap_or(0);
            assert!(n >= 20, "option set {mode}: only {n} modules");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// Linked against the static library, the program writes the same as the Rust API, for
/// every option set over a few shaders of each stage.
#[test]
fn c_program_links_statically() {
    let out = scratch("static");
    let Some(exe) = compile_translate(&out, &[], Link::Static) else { return };
    let mut files: Vec<PathBuf> = Vec::new();
    for stage in [".cs_", ".ps_", ".vs_", ".ll"] {
        files.extend(inputs().into_iter().filter(|p| p.to_string_lossy().contains(stage)).take(4));
    }
    let run = c_command(&exe).arg(&out).args(&files).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let cmp = compare_with_rust(&out, &files);
    assert_eq!(cmp.shaders, files.len());
    assert!(cmp.modules.values().sum::<usize>() >= files.len() * 4, "{:?}", cmp.modules);
    let _ = std::fs::remove_dir_all(&out);
}

/// A compute shader with resources, for the error cases.
fn error_case_shader() -> Option<PathBuf> {
    let p = Path::new(MANIFEST)
        .join("../../../shared/corpus/dxil/vkd3d-proton/descriptors.update_root_descriptors.cs_6_0.dxil");
    if p.exists() {
        return Some(p);
    }
    assert!(!in_ci(), "{} is missing under CI", p.display());
    None
}

/// translate.c's non-DXIL module: LLVM text without `dx.shaderModel`.
const NOT_DXIL: &[u8] = b"define void @main() {\nentry:\n  ret void\n}\n";

/// The status the Rust API gives `bytes` when parsing fails.
fn parse_status(bytes: &[u8]) -> String {
    match Shader::parse(bytes) {
        Ok(_) => panic!("parsed"),
        Err(e) => name_of(status_of(&e)),
    }
}

/// Checks the `--errors` output for `shader` (the bytes the program was given).
fn check_error_lines(stdout: &str, shader: &[u8]) {
    let truncated = parse_status(&shader[..shader.len() / 2]);
    let mut corrupt = shader.to_vec();
    for i in (corrupt.len() / 2..corrupt.len()).step_by(4) {
        corrupt[i] ^= 0x5a;
    }
    let corrupt = parse_status(&corrupt);
    let not_dxil = parse_status(NOT_DXIL);
    assert_eq!(truncated, "UNTANGLE_PARSE_ERROR");
    assert!(["UNTANGLE_PARSE_ERROR", "UNTANGLE_MALFORMED"].contains(&corrupt.as_str()), "corrupt: {corrupt}");
    assert_eq!(not_dxil, "UNTANGLE_NOT_A_SHADER");
    let invalid = "UNTANGLE_INVALID_ARGUMENT";
    let expected = [
        ("truncated container", truncated.as_str()),
        ("corrupt container", corrupt.as_str()),
        ("garbage", "UNTANGLE_PARSE_ERROR"),
        ("empty input", "UNTANGLE_PARSE_ERROR"),
        ("garbage without an error object", "UNTANGLE_PARSE_ERROR"),
        ("non-DXIL module", not_dxil.as_str()),
        ("container without DXIL", "UNTANGLE_NOT_A_SHADER"),
        ("NULL bytes", invalid),
        ("NULL out-parameter", invalid),
        ("parse", "UNTANGLE_OK"),
        ("resource out of range", invalid),
        ("resource into NULL", invalid),
        ("stage of NULL", invalid),
        ("signature kind 9", invalid),
        ("entry point of NULL", invalid),
        ("set narrow root signature", "UNTANGLE_OK"),
        ("uncovered register", "UNTANGLE_ROOT_SIGNATURE"),
        ("malformed root signature string", "UNTANGLE_ROOT_SIGNATURE"),
        ("root signature version 7", invalid),
        ("NULL root signature string", invalid),
        ("malformed RTS0", "UNTANGLE_ROOT_SIGNATURE"),
        ("NULL RTS0", invalid),
        ("binding model 7", invalid),
        ("root descriptors 7", invalid),
        ("push-constant budget 126", invalid),
        ("push-constant budget on NULL options", invalid),
        ("bad binding map", "UNTANGLE_BINDING_MAP"),
        ("binding map", "UNTANGLE_OK"),
        ("stream output slot 9", "UNTANGLE_STREAM_OUTPUT"),
        ("stream output NULL strides", invalid),
        ("stream output", "UNTANGLE_OK"),
        ("stream output on this shader", "UNTANGLE_STREAM_OUTPUT"),
        ("stream output removed", "UNTANGLE_OK"),
        ("translate", "UNTANGLE_OK"),
        ("root arguments without a root signature", "UNTANGLE_OK"),
        ("root arguments into NULL", invalid),
        ("root arguments of NULL", invalid),
        ("SPIR-V of NULL", invalid),
        ("translate NULL shader", invalid),
        ("translate into NULL", invalid),
        ("options into NULL", invalid),
        ("remap on NULL options", invalid),
        ("error status of NULL", invalid),
        ("version", "UNTANGLE_OK"),
        ("version into NULLs", "UNTANGLE_OK"),
    ];
    let got: BTreeMap<&str, &str> = stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(case, rest)| (case, rest.split(": ").next().unwrap_or(rest)))
        .collect();
    for (case, status) in expected {
        assert_eq!(got.get(case).copied(), Some(status), "case `{case}`\n{stdout}");
    }
    assert_eq!(got.len(), expected.len(), "unexpected cases:\n{stdout}");
    // Failures with an error object carry a message naming what went wrong.
    for needle in [
        "truncated container: UNTANGLE_PARSE_ERROR: ",
        "corrupt container: UNTANGLE_",
        "uncovered register: UNTANGLE_ROOT_SIGNATURE: root signature:",
        "is not covered by any root parameter",
        "malformed root signature string: UNTANGLE_ROOT_SIGNATURE: ",
        "push-constant budget 126: UNTANGLE_INVALID_ARGUMENT: push-constant budget of 126 bytes: it must be a multiple of 4",
        "push-constant budget on NULL options: UNTANGLE_INVALID_ARGUMENT: `options` is NULL",
        "NULL bytes: UNTANGLE_INVALID_ARGUMENT: `bytes` is NULL",
        "NULL out-parameter: UNTANGLE_INVALID_ARGUMENT: `shader` is NULL",
        "stream output slot 9: UNTANGLE_STREAM_OUTPUT: stream output: declaration 0 (SV_Position0)",
        "translate NULL shader: UNTANGLE_INVALID_ARGUMENT: `shader` is NULL",
    ] {
        assert!(stdout.contains(needle), "no `{needle}` in\n{stdout}");
    }
}

#[test]
fn c_program_error_paths() {
    let Some(shader) = error_case_shader() else { return };
    let out = scratch("errors");
    let Some(exe) = compile_translate(&out, &[], Link::Shared) else { return };
    let run = c_command(&exe).arg("--errors").arg(&shader).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&run.stderr));
    check_error_lines(&stdout, &std::fs::read(&shader).unwrap());
    let _ = std::fs::remove_dir_all(&out);
}

/// The C code block of the README's "C API" section, made a program: its `#include`
/// lines at the top, the rest the body of a function given a shader's bytes, and a `main`
/// that reads the file named on the command line.
fn readme_snippet_program() -> String {
    let readme = std::fs::read_to_string(Path::new(MANIFEST).join("../../README.md")).unwrap();
    let section = readme.split("\n## C API\n").nth(1).expect("README has a `## C API` section");
    let block = section.split("```c\n").nth(1).and_then(|b| b.split("\n```").next()).expect("a ```c block");
    let (includes, body): (Vec<&str>, Vec<&str>) = block.lines().partition(|l| l.starts_with("#include"));
    format!(
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n{}\n\
         static void snippet(const uint8_t *bytes, size_t len) {{\n{}\n}}\n\
         int main(int argc, char **argv) {{\n\
         \x20   if (argc != 2) return 2;\n\
         \x20   FILE *f = fopen(argv[1], \"rb\");\n\
         \x20   if (!f) return 2;\n\
         \x20   static uint8_t buf[1 << 22];\n\
         \x20   size_t len = fread(buf, 1, sizeof buf, f);\n\
         \x20   fclose(f);\n\
         \x20   snippet(buf, len);\n\
         \x20   return 0;\n\
         }}\n",
        includes.join("\n"),
        body.join("\n")
    )
}

/// The README's C snippet compiles without warnings, links and runs on a shader.
#[test]
fn readme_c_snippet_compiles_and_runs() {
    let Some(shader) = error_case_shader() else { return };
    let out = scratch("readme");
    let source = out.join("readme.c");
    std::fs::write(&source, readme_snippet_program()).unwrap();
    let exe = match compile(&out, "readme", &[source], &[], Link::Shared) {
        Ok(exe) => exe,
        Err(e) if !in_ci() && e.starts_with("cannot run") => return eprintln!("{e}: skipping"),
        Err(e) => panic!("the README's C snippet:\n{e}\n{}", readme_snippet_program()),
    };
    let run = c_command(&exe).arg(&shader).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // The snippet's root signature does not cover this shader: it reports why.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.starts_with("UNTANGLE_ROOT_SIGNATURE: root signature:"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The C program under AddressSanitizer (with LeakSanitizer): a few shaders of each stage,
/// every option set, two threads, and every error path: no invalid access, no leak.
#[test]
fn c_program_under_address_sanitizer() {
    let out = scratch("asan");
    let exe = match compile(
        &out,
        "translate",
        &[Path::new(MANIFEST).join("tests/c/translate.c")],
        &["-fsanitize=address", "-fno-omit-frame-pointer"],
        Link::Shared,
    ) {
        Ok(exe) => exe,
        Err(e) => {
            assert!(!in_ci(), "no AddressSanitizer under CI: {e}");
            eprintln!("AddressSanitizer unavailable: {e}\nskipping");
            return;
        }
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for stage in [".cs_", ".ps_", ".vs_", ".ll"] {
        files.extend(inputs().into_iter().filter(|p| p.to_string_lossy().contains(stage)).take(2));
    }
    let env = [("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:exitcode=86")];
    let run = c_command(&exe).args(["--threads", "2"]).arg(&out).args(&files).envs(env).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    if stderr.contains("LeakSanitizer does not work under ptrace") {
        eprintln!("LeakSanitizer cannot run here (ptrace); AddressSanitizer only");
    }
    assert!(run.status.success(), "under AddressSanitizer:\n{stderr}");
    assert!(!stderr.contains("ERROR: AddressSanitizer") && !stderr.contains("ERROR: LeakSanitizer"), "{stderr}");
    compare_with_rust(&out, &files);
    if let Some(shader) = error_case_shader() {
        let run = c_command(&exe).arg("--errors").arg(&shader).envs(env).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "under AddressSanitizer:\n{stderr}");
        assert!(!stderr.contains("ERROR: AddressSanitizer") && !stderr.contains("ERROR: LeakSanitizer"), "{stderr}");
        check_error_lines(&String::from_utf8_lossy(&run.stdout), &std::fs::read(&shader).unwrap());
    }
    eprintln!("AddressSanitizer + LeakSanitizer: {} shaders, every option set and the error paths, clean", files.len());
    let _ = std::fs::remove_dir_all(&out);
}
