//! Shape mode end to end: structurize the sample shaders, emit, validate with spirv-val
//! (skipped with a message when it is not installed; `tools/test.sh` installs it), and the
//! `translate` command's contract.

use std::process::Command;
use untangle::passes::{structurize, Options, Structured};
use untangle_testkit::check::spirv_val::find_spirv_val;

/// The workspace root: the command runs there, and sample paths are relative to it.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn untangle(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_untangle")).args(args).current_dir(ROOT).output().expect("run untangle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("untangle-shape-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Structurizes every function of a corpus file and emits the shape module.
fn shape_of(path: &str) -> Vec<u32> {
    let loaded = untangle::front::load_path(&std::path::Path::new(ROOT).join(path)).expect("loads");
    let structured: Vec<(&untangle::ir::Function, Structured)> = loaded
        .module
        .defined_functions()
        .map(|(_, f)| (f, structurize(f, Options::default()).expect("structurizes")))
        .collect();
    let pairs: Vec<_> = structured.iter().map(|(f, s)| (*f, s)).collect();
    untangle::emit::shape::emit_shape_module(&loaded.module, &pairs).expect("emits")
}

#[test]
fn corpus_shapes_validate_and_trace_like_the_input() {
    for path in ["corpus/cs_nested_ifs_loop.ll", "corpus/ps_textured.ll"] {
        let words = shape_of(path);
        assert_eq!(words, shape_of(path), "{path}: not deterministic");
        let program = untangle_testkit::check::spirv_interp::ShapeProgram::parse(&words).expect("interpreter reads it");
        let loaded = untangle::front::load_path(&std::path::Path::new(ROOT).join(path)).unwrap();
        for (_, f) in loaded.module.defined_functions() {
            if let Err(e) = untangle_testkit::check::trace_equiv::check_trace_equivalence(f, &program, 500, 7) {
                panic!("{path}: {}: {e:?}", f.name);
            }
        }
        let Some(v) = find_spirv_val() else {
            eprintln!("spirv-val not found; skipping validation of {path}");
            continue;
        };
        if let Err(e) = v.validate(&words, "vulkan1.1") {
            panic!("{path}: spirv-val: {e}\n{}", v.disassemble(&words).unwrap_or_default());
        }
    }
}

#[test]
fn translate_shape_writes_a_valid_module() {
    let dir = temp_dir("cli");
    let out = dir.join("out.spv");
    let dump = dir.join("dump");
    let (code, _, err) = untangle(&[
        "translate",
        "--shape",
        "corpus/cs_nested_ifs_loop.ll",
        "-o",
        out.to_str().unwrap(),
        "--dump-cfg",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len() % 4, 0);
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(words[0], 0x0723_0203);
    let dumps: Vec<_> = std::fs::read_dir(&dump).unwrap().filter_map(|e| e.ok()).collect();
    assert!(dumps.iter().any(|e| e.file_name().to_string_lossy().ends_with(".dot")), "no DOT dump in {dump:?}");
    if let Some(v) = find_spirv_val() {
        v.validate(&words, "vulkan1.1").unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn translate_without_shape_is_the_full_translation() {
    let dir = temp_dir("full");
    let out = dir.join("out.spv");
    let (code, out_text, err) = untangle(&["translate", "corpus/cs_nested_ifs_loop.ll", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out_text.is_empty());
    let bytes = std::fs::read(&out).unwrap();
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(words[0], 0x0723_0203);
    if let Some(v) = find_spirv_val() {
        v.validate(&words, "vulkan1.3").unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn translate_usage_errors_exit_2() {
    // No output file.
    let (code, _, _) = untangle(&["translate", "--shape", "corpus/cs_nested_ifs_loop.ll"]);
    assert_eq!(code, 2);
}

#[test]
fn translate_bad_input_is_one_line_and_exit_1() {
    let dir = temp_dir("bad");
    let input = dir.join("garbage.bin");
    std::fs::write(&input, b"\x00\x01 not a shader").unwrap();
    let out = dir.join("out.spv");
    let (code, _, err) = untangle(&["translate", "--shape", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("garbage.bin"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--shape-batch N`: LocalSize N, the per-invocation layout, still valid; the default
/// output stays the single-invocation module; the batch flags need `--shape`/each other.
#[test]
fn translate_shape_batch_writes_a_valid_batch_module() {
    let dir = temp_dir("batch");
    let read = |p: &std::path::Path| -> Vec<u32> {
        std::fs::read(p).unwrap().chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    };
    let (plain, batch) = (dir.join("plain.spv"), dir.join("batch.spv"));
    let input = "corpus/cs_nested_ifs_loop.ll";
    let (code, _, err) = untangle(&["translate", "--shape", input, "-o", plain.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let args =
        ["translate", "--shape", "--shape-batch", "16", "--trace-stride", "128", input, "-o", batch.to_str().unwrap()];
    let (code, _, err) = untangle(&args);
    assert_eq!(code, 0, "{err}");
    let (plain, batch) = (read(&plain), read(&batch));
    assert_ne!(plain, batch);
    let module = rspirv::dr::load_words(&batch).unwrap();
    let local: Vec<_> = module.execution_modes.iter().map(|i| i.operands[2].clone()).collect();
    assert!(!local.is_empty());
    assert!(local.iter().all(|o| *o == rspirv::dr::Operand::LiteralBit32(16)), "{local:?}");
    if let Some(v) = find_spirv_val() {
        v.validate(&batch, "vulkan1.1").unwrap();
    }
    // A trace stride below 2 is a one-line error; batch flags without --shape are usage errors.
    let bad = dir.join("bad.spv");
    let (code, _, err) = untangle(&[
        "translate",
        "--shape",
        "--shape-batch",
        "4",
        "--trace-stride",
        "1",
        input,
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("trace_stride"), "{err}");
    let (code, _, _) = untangle(&["translate", "--shape-batch", "4", input, "-o", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    std::fs::remove_dir_all(&dir).ok();
}
