//! Builds `tests/c/translate.c` with the system C compiler against `include/untangle.h` and
//! the shared library, runs it over the vkd3d-proton corpus (compute, pixel and vertex
//! shaders) and the repository's `corpus/*.ll`, and checks that every module it wrote is
//! word for word what the Rust API gives for the same options (default; a root-signature
//! string, with the layout JSON; remapping callbacks; stream output), that the error paths
//! return the right codes, that the program linked against the static library writes the
//! same, and, when the compiler has AddressSanitizer, that a run under it reports no invalid
//! access and no leak.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use untangle::rootsig::{self, LayoutOptions, Version};
use untangle::{
    IoLocation, IoRemap, Options, ResourceRemap, RootSignatureBinding, Shader, ShaderKind, StreamOutput,
    StreamOutputDeclaration, VkBinding,
};
use untangle_capi::{status_of, untangle_status_name};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The directory holding `libuntangle_capi.so` of this build: the test executable lives in
/// `<target>/<profile>/deps`, and cargo builds the library's cdylib there for the tests.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libuntangle_capi.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libuntangle_capi.so is neither in {} nor its parent", deps.display());
}

fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().join(format!("capi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A command running the C program. It finds the library through its run path: cargo's
/// `LD_LIBRARY_PATH` (which the loader searches first) may list a stale copy in
/// `<target>/<profile>`, one that `cargo test` does not refresh.
fn c_command(exe: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH");
    c
}

/// How the C program links the library.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Shared,
    Static,
}

/// Compiles the C program against the header and the library.
fn compile(out: &Path, extra: &[&str], link: Link) -> Result<PathBuf, String> {
    let lib = library_dir();
    let exe = out.join("translate");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut cmd = Command::new(&cc);
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"])
        .args(extra)
        .arg("-I")
        .arg(Path::new(MANIFEST).join("include"))
        .arg(Path::new(MANIFEST).join("tests/c/translate.c"))
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Shared => {
            cmd.arg(format!("-L{}", lib.display())).arg("-luntangle_capi").arg(format!("-Wl,-rpath,{}", lib.display()));
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

/// What the C program wrote for one shader and mode: the words, or the error's status.
fn c_outcome(dir: &Path, name: &str, mode: &str) -> Option<Result<Vec<u32>, String>> {
    if let Ok(bytes) = std::fs::read(dir.join(format!("{name}.{mode}.spv"))) {
        return Some(Ok(words_of(&bytes)));
    }
    let text = std::fs::read_to_string(dir.join(format!("{name}.{mode}.err"))).ok()?;
    Some(Err(text.lines().next().unwrap_or("").to_string()))
}

/// The Rust API's outcome in the same form.
fn rust_outcome(r: Result<untangle::Translation, untangle::Error>) -> Result<Vec<u32>, String> {
    r.map(|t| t.words).map_err(|e| name_of(status_of(&e)))
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

#[test]
fn c_program_matches_the_rust_api() {
    let out = scratch("translate");
    let exe = match compile(&out, &[], Link::Shared) {
        Ok(exe) => exe,
        Err(e) if !in_ci() && e.starts_with("cannot run") => {
            eprintln!("{e}: skipping");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let files = inputs();
    let run = c_command(&exe).arg(&out).args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the C program failed:\n{}\n{stdout}", String::from_utf8_lossy(&run.stderr));
    let val = untangle_spirv_tools::find_spirv_val();
    assert!(val.is_some() || !in_ci(), "spirv-val is required under CI");

    let mut same: BTreeMap<&str, usize> = BTreeMap::new();
    let mut translated_files = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let shader = match Shader::parse(&std::fs::read(path).unwrap()) {
            Ok(s) => s,
            Err(e) => {
                let c = c_outcome(&out, &name, "parse").unwrap_or_else(|| panic!("{name}: C parsed what Rust did not"));
                assert_eq!(c, Err(name_of(status_of(&e))), "{name}: parse");
                continue;
            }
        };
        let mut cases: Vec<(&str, Options)> = vec![("default", Options::default()), ("remap", remap_options())];
        if let Some(o) = xfb_options(&shader) {
            cases.push(("xfb", o));
        }
        // The root signature the C program built from its reflection.
        let rs_text = std::fs::read_to_string(out.join(format!("{name}.rootsig.txt")))
            .unwrap_or_else(|_| panic!("{name}: no root signature written"));
        match rootsig::parse_hlsl(&rs_text, Version::V1_1).and_then(|rs| rootsig::validate(&rs).map(|()| rs)) {
            Ok(signature) => cases.push((
                "rootsig",
                Options {
                    root_signature: Some(RootSignatureBinding { signature, layout: LayoutOptions::default() }),
                    ..Options::default()
                },
            )),
            Err(e) => {
                let c = c_outcome(&out, &name, "rootsig").unwrap();
                assert_eq!(c, Err(name_of(status_of(&e.into()))), "{name}: root signature `{rs_text}`");
            }
        }
        let mut any = false;
        for (mode, options) in cases {
            let rust = shader.translate(&options);
            if let (Ok(t), "rootsig") = (&rust, mode) {
                let json = std::fs::read_to_string(out.join(format!("{name}.layout.json"))).unwrap();
                assert_eq!(json, serde_json::to_string(t.layout.as_ref().unwrap()).unwrap(), "{name}: layout JSON");
            }
            let rust = rust_outcome(rust);
            let c = c_outcome(&out, &name, mode).unwrap_or_else(|| panic!("{name}: the C program wrote no {mode}"));
            assert!(
                c == rust,
                "{name} ({mode}): the C API's output differs from the Rust API's\nC: {:?}\nRust: {:?}",
                c.as_ref().map(|w| w.len()),
                rust.as_ref().map(|w| w.len())
            );
            if let (Ok(words), Some(v)) = (&c, &val) {
                v.validate(words, "vulkan1.3").unwrap_or_else(|e| panic!("{name} ({mode}): spirv-val: {e}"));
                *same.entry(mode).or_default() += 1;
                any = true;
            }
            if c.is_ok() && val.is_none() {
                *same.entry(mode).or_default() += 1;
                any = true;
            }
        }
        translated_files += usize::from(any);
    }
    eprintln!("{} inputs, {translated_files} translated; identical modules by mode: {same:?}", files.len());
    if files.len() > 10 {
        assert!(translated_files >= 20, "only {translated_files} shaders translated through the C API");
        for mode in ["default", "rootsig", "remap", "xfb"] {
            assert!(same.get(mode).copied().unwrap_or(0) >= 10, "mode {mode}: only {:?} modules", same.get(mode));
        }
    }
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

/// Whether the library was built with the LLVM front end: through this crate's `llvm`
/// feature or, with features unified across the workspace, another crate's.
fn links_llvm() -> bool {
    let route = untangle::load::load_bytes_with(NOT_DXIL.to_vec(), "probe", untangle::load::FrontEnd::Llvm);
    !matches!(route, Err(untangle::Error::FrontEndMissing(_)))
}

/// Linked against the static library, the program writes the same modules.
#[test]
fn c_program_links_statically() {
    let out = scratch("static");
    let exe = match compile(&out, &[], Link::Static) {
        Ok(exe) => exe,
        Err(e) if !in_ci() && e.starts_with("cannot run") => {
            eprintln!("{e}: skipping");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let files: Vec<PathBuf> = inputs().into_iter().filter(|p| !p.to_string_lossy().ends_with(".ll")).take(8).collect();
    let run = c_command(&exe).arg(&out).args(&files).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let shader = Shader::parse(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(
            c_outcome(&out, &name, "default"),
            Some(rust_outcome(shader.translate(&Options::default()))),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// translate.c's non-DXIL module: LLVM text without `dx.shaderModel`.
const NOT_DXIL: &[u8] = b"define void @main() {\nentry:\n  ret void\n}\n";

/// Checks the `--errors` output; `not_dxil` overrides the expected status of the LLVM-text
/// case.
fn check_error_lines(stdout: &str, not_dxil: Option<&str>) {
    // The library the C program links is built with this test's features.
    let not_dxil = match (not_dxil, Shader::parse(NOT_DXIL)) {
        (Some(status), _) => status.to_string(),
        (None, Ok(_)) => panic!("a module without dx.shaderModel parsed"),
        (None, Err(e)) => name_of(status_of(&e)),
    };
    assert!(
        ["UNTANGLE_NOT_A_SHADER", "UNTANGLE_UNSUPPORTED", "UNTANGLE_PARSE_ERROR"].contains(&not_dxil.as_str()),
        "non-DXIL LLVM text: {not_dxil}"
    );
    let expected = [
        ("truncated container", "UNTANGLE_PARSE_ERROR"),
        ("garbage", "UNTANGLE_PARSE_ERROR"),
        ("empty input", "UNTANGLE_PARSE_ERROR"),
        ("garbage without an error object", "UNTANGLE_PARSE_ERROR"),
        ("non-DXIL module", not_dxil.as_str()),
        ("container without DXIL", "UNTANGLE_NOT_A_SHADER"),
        ("NULL bytes", "UNTANGLE_INVALID_ARGUMENT"),
        ("NULL out-parameter", "UNTANGLE_INVALID_ARGUMENT"),
        ("parse", "UNTANGLE_OK"),
        ("resource out of range", "UNTANGLE_INVALID_ARGUMENT"),
        ("resource into NULL", "UNTANGLE_INVALID_ARGUMENT"),
        ("stage of NULL", "UNTANGLE_INVALID_ARGUMENT"),
        ("signature kind 9", "UNTANGLE_INVALID_ARGUMENT"),
        ("set narrow root signature", "UNTANGLE_OK"),
        ("uncovered register", "UNTANGLE_ROOT_SIGNATURE"),
        ("malformed root signature string", "UNTANGLE_ROOT_SIGNATURE"),
        ("root signature version 7", "UNTANGLE_INVALID_ARGUMENT"),
        ("malformed RTS0", "UNTANGLE_ROOT_SIGNATURE"),
        ("binding model 7", "UNTANGLE_INVALID_ARGUMENT"),
        ("root descriptors 7", "UNTANGLE_INVALID_ARGUMENT"),
        ("bad binding map", "UNTANGLE_BINDING_MAP"),
        ("binding map", "UNTANGLE_OK"),
        ("stream output slot 9", "UNTANGLE_STREAM_OUTPUT"),
        ("stream output NULL strides", "UNTANGLE_INVALID_ARGUMENT"),
        ("stream output", "UNTANGLE_OK"),
        ("stream output on this shader", "UNTANGLE_STREAM_OUTPUT"),
        ("stream output removed", "UNTANGLE_OK"),
        ("translate", "UNTANGLE_OK"),
        ("translate NULL shader", "UNTANGLE_INVALID_ARGUMENT"),
        ("translate into NULL", "UNTANGLE_INVALID_ARGUMENT"),
        ("options into NULL", "UNTANGLE_INVALID_ARGUMENT"),
        ("remap on NULL options", "UNTANGLE_INVALID_ARGUMENT"),
        ("error status of NULL", "UNTANGLE_INVALID_ARGUMENT"),
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
    // Messages name what went wrong.
    assert!(stdout.contains("uncovered register: UNTANGLE_ROOT_SIGNATURE: root signature:"), "{stdout}");
    assert!(stdout.contains("is not covered by any root parameter"), "{stdout}");
    assert!(
        stdout.contains("stream output slot 9: UNTANGLE_STREAM_OUTPUT: stream output: declaration 0 (SV_Position0)"),
        "{stdout}"
    );
    assert!(stdout.contains("translate NULL shader: UNTANGLE_INVALID_ARGUMENT: `shader` is NULL"), "{stdout}");
}

#[test]
fn c_program_error_paths() {
    let Some(shader) = error_case_shader() else { return };
    let out = scratch("errors");
    let exe = match compile(&out, &[], Link::Shared) {
        Ok(exe) => exe,
        Err(e) if !in_ci() && e.starts_with("cannot run") => {
            eprintln!("{e}: skipping");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let run = c_command(&exe).arg("--errors").arg(&shader).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&run.stderr));
    check_error_lines(&stdout, None);
    let _ = std::fs::remove_dir_all(&out);
}

/// The C program under AddressSanitizer (with LeakSanitizer): a few shaders of each stage
/// and every error path, no invalid access, no leak.
#[test]
fn c_program_under_address_sanitizer() {
    let out = scratch("asan");
    let exe = match compile(&out, &["-fsanitize=address", "-fno-omit-frame-pointer"], Link::Shared) {
        Ok(exe) => exe,
        Err(e) => {
            assert!(!in_ci(), "no AddressSanitizer under CI: {e}");
            eprintln!("AddressSanitizer unavailable: {e}\nskipping");
            return;
        }
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for stage in [".cs_", ".ps_", ".vs_", ".ll"] {
        files.extend(inputs().into_iter().filter(|p| p.to_string_lossy().contains(stage)).take(3));
    }
    let env = [("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:exitcode=86")];
    let run = c_command(&exe).arg(&out).args(&files).envs(env).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    if stderr.contains("LeakSanitizer does not work under ptrace") {
        eprintln!("LeakSanitizer cannot run here (ptrace); AddressSanitizer only");
    }
    assert!(run.status.success(), "under AddressSanitizer:\n{stderr}");
    assert!(!stderr.contains("ERROR: AddressSanitizer") && !stderr.contains("ERROR: LeakSanitizer"), "{stderr}");
    if let Some(shader) = error_case_shader() {
        let run = c_command(&exe).arg("--errors").arg(&shader).envs(env).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "under AddressSanitizer:\n{stderr}");
        assert!(!stderr.contains("ERROR: AddressSanitizer") && !stderr.contains("ERROR: LeakSanitizer"), "{stderr}");
        // LLVM text is read natively, in-process, with or without the LLVM front end.
        check_error_lines(&String::from_utf8_lossy(&run.stdout), None);
    }
    eprintln!("AddressSanitizer + LeakSanitizer: {} shaders and the error paths, clean", files.len());
    let _ = std::fs::remove_dir_all(&out);
}
