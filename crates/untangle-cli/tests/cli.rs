//! The command line's contract: exit 0 on success, 1 with a one-line message naming the
//! file on bad input, 2 on usage errors.

use std::process::Command;
use untangle::rootsig::{parse_hlsl, to_hlsl, to_rts0, to_rts0_container, Version};

fn untangle(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_untangle"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run untangle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_on_the_readme_sample() {
    let (code, out, _) = untangle(&["info", "corpus/cs_nested_ifs_loop.ll"]);
    assert_eq!(code, 0);
    assert!(out.contains("shader model: cs_6_0"), "{out}");
    assert!(out.contains("numthreads(64, 1, 1)"), "{out}");
    assert!(out.contains("UAV u0, space0"), "{out}");
}

#[test]
fn info_json_is_json() {
    let (code, out, _) = untangle(&["info", "--json", "corpus/ps_textured.ll"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dxil"]["shader_model"]["profile"], "ps");
    assert_eq!(v["dxil"]["entry_points"][0]["signatures"]["inputs"][1]["semantic"], "TEXCOORD");
}

#[test]
fn info_ops_prints_the_coverage_table_of_the_library() {
    use untangle::emit::support::coverage;
    let (code, out, err) = untangle(&["info", "--ops", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["operations"], serde_json::to_value(coverage()).unwrap());
    assert_eq!(v["operations"].as_array().map(Vec::len), Some(untangle::dxil::opcodes::COUNT));
    assert_eq!(v["stages"][0], "cs");
    let (code, text, _) = untangle(&["info", "--ops"]);
    assert_eq!(code, 0);
    // One line per operation between the header and the summary.
    assert_eq!(text.lines().count(), untangle::dxil::opcodes::COUNT + 4, "{text}");
    let umul = text.lines().find(|l| l.split_whitespace().nth(1) == Some("UMul")).unwrap();
    assert!(umul.contains("+  +  +") && umul.ends_with("emit/dxop/integer.rs"), "{umul}");
    let feedback = text.lines().find(|l| l.split_whitespace().nth(1) == Some("WriteSamplerFeedback")).unwrap();
    assert!(feedback.contains("Vulkan has no sampler feedback"), "{feedback}");
}

#[test]
fn info_ops_on_a_file_says_which_calls_its_stage_refuses() {
    use untangle::dxil::DxOp;
    let dir = temp("ops");
    let file = dir.join("feedback.ll");
    std::fs::write(&file, untangle_testkit::dxil_ops::synthesized(DxOp::WriteSamplerFeedback, "ps")).unwrap();
    let (code, out, err) = untangle(&["info", "--ops", "--json", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["profile"], "ps_6_8");
    let ops = v["operations"].as_array().unwrap();
    let refused: Vec<&serde_json::Value> = ops.iter().filter(|o| o["status"] != "lowered").collect();
    assert_eq!(refused.len(), 1, "{v}");
    assert_eq!(refused[0]["name"], "WriteSamplerFeedback");
    assert_eq!(refused[0]["opcode"], 174);
    assert!(refused[0]["reason"].as_str().unwrap().contains("sampler feedback"));
    assert!(ops.iter().any(|o| o["name"] == "BufferLoad" && o["module"] == "buffers.rs"), "{v}");
    // Translating it is refused with the same reason.
    let (code, _, err) = untangle(&[file.to_str().unwrap(), "-o", dir.join("x.spv").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("sampler feedback"), "{err}");
    let (code, text, _) = untangle(&["info", "--ops", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.starts_with("ps_6_8: ") && text.contains("1 refused"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_one_line_naming_the_file_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("untangle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8]); 3] = [
        ("garbage.bin", b"\x00\x01\x02 not a shader"),
        ("short.dxil", b"DXBC\x00\x00\x00"),
        ("bad.ll", b"define void @f() {\n  br label %nowhere\n}\n"),
    ];
    for (name, bytes) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let (code, out, err) = untangle(&["info", p.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name), "{err}");
    }
    let (code, _, err) = untangle(&["info", "no/such/file.dxil"]);
    assert_eq!(code, 1);
    assert!(err.contains("no/such/file.dxil"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(untangle(&[]).0, 2);
    assert_eq!(untangle(&["info"]).0, 2);
    assert_eq!(untangle(&["info", "--json"]).0, 2);
    assert_eq!(untangle(&["frobnicate", "x"]).0, 2);
}

/// `bytes` (a DXBC container) with one more part appended: `fourcc` holding `data`. The
/// hash is left as it was (the reader does not check it).
fn with_part(bytes: &[u8], fourcc: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let count = u32_at(28) as usize;
    let offsets: Vec<usize> = (0..count).map(|k| u32_at(32 + 4 * k) as usize).collect();
    let shift = 4; // one more offset in the header
    let mut out = bytes[..28].to_vec();
    out.extend(((count + 1) as u32).to_le_bytes());
    for o in &offsets {
        out.extend(((o + shift) as u32).to_le_bytes());
    }
    let new_offset = bytes.len() + shift;
    out.extend((new_offset as u32).to_le_bytes());
    out.extend(&bytes[32 + 4 * count..]);
    out.extend(fourcc);
    out.extend((data.len() as u32).to_le_bytes());
    out.extend(data);
    let total = out.len() as u32;
    out[24..28].copy_from_slice(&total.to_le_bytes());
    out
}

#[test]
fn root_signatures_from_a_string_a_file_or_the_container_give_a_layout_report() {
    let shader = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/dxil/vkd3d-proton/sm_advanced.cs_derivative_1d.cs_6_6.dxil"
    );
    let Ok(bytes) = std::fs::read(shader) else { return };
    let dir = std::env::temp_dir().join(format!("untangle-cli-rs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let sig = "DescriptorTable(SRV(t0), UAV(u0)), StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_POINT), RootConstants(num32BitConstants = 2, b7)";

    // A string, heap model: table offset and root constants in push constants.
    let (code, _, err) =
        untangle(&[shader, "-o", &path("a.spv"), "--root-signature-string", sig, "--layout-json", &path("a.json")]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path("a.json")).unwrap()).unwrap();
    assert_eq!(report["schema"], "untangle-layout/1");
    assert_eq!(report["binding_model"], "heap");
    assert_eq!(report["push_constants"]["size"], 12);
    assert_eq!(report["resources"][0]["place"]["kind"], "heap_table");

    // The same signature as an RTS0 file, direct model.
    let (code, _, err) = untangle(&["rootsig", "--string", sig, "-o", &path("rs.rts0")]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = untangle(&[
        shader,
        "-o",
        &path("b.spv"),
        "--root-signature",
        &path("rs.rts0"),
        "--binding-model",
        "direct",
        "--layout-json",
        &path("b.json"),
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path("b.json")).unwrap()).unwrap();
    assert_eq!(report["binding_model"], "direct");
    assert_eq!(report["resources"][0]["place"]["kind"], "descriptor");

    // Embedded in the shader's own container: used without any flag.
    let rts0 = std::fs::read(path("rs.rts0")).unwrap();
    std::fs::write(path("with_rts0.dxil"), with_part(&bytes, b"RTS0", &rts0)).unwrap();
    let (code, _, err) = untangle(&[&path("with_rts0.dxil"), "-o", &path("c.spv"), "--layout-json", &path("c.json")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(path("c.json")).unwrap(), std::fs::read(path("a.json")).unwrap());

    // Uncovered u0: one line naming the register and space.
    let (code, _, err) = untangle(&[
        shader,
        "-o",
        &path("d.spv"),
        "--root-signature-string",
        "DescriptorTable(SRV(t0)), StaticSampler(s0)",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("u0, space0") && err.contains("not covered"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    // A report needs a root signature.
    let (code, _, err) = untangle(&[shader, "-o", &path("e.spv"), "--layout-json", &path("e.json")]);
    assert_eq!(code, 1);
    assert!(err.contains("--layout-json needs a root signature"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_push_constant_bytes_spills_to_the_root_argument_buffer() {
    let shader = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/dxil/vkd3d-proton/sm_advanced.cs_derivative_1d.cs_6_6.dxil"
    );
    if !std::path::Path::new(shader).exists() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("untangle-cli-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    // 128 bytes of root constants, then the table's 4-byte offset.
    let sig = "RootConstants(num32BitConstants = 32, b9), DescriptorTable(SRV(t0), UAV(u0)), \
               StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_POINT)";
    let report = |budget: Option<&str>, json: &str| {
        let mut args = vec![shader, "-o", "-", "--root-signature-string", sig];
        if let Some(b) = budget {
            args.extend(["--max-push-constant-bytes", b]);
        }
        let json = path(json);
        args.extend(["--layout-json", &json]);
        let (code, _, err) = untangle(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&json).unwrap()).unwrap()
    };
    let spilled = report(None, "default.json");
    assert_eq!(spilled["push_constants"]["size"], 128);
    assert_eq!(spilled["root_argument_buffer"]["size"], 16);
    assert_eq!(spilled["root_argument_buffer"]["members"][0]["kind"], "table_offset");
    assert_eq!(spilled["resources"][0]["place"]["kind"], "spilled_heap_table");
    // What the module needs of the device (docs/layout-json.md, "Device features").
    let features = spilled["device_features"].as_array().expect("device_features");
    let shader_cap = features.iter().find(|f| f["spirv"] == "Shader").expect("the Shader capability");
    assert_eq!((&shader_cap["item"], &shader_cap["any_of"][0]["kind"]), (&"capability".into(), &"version".into()));
    let derivatives = features.iter().find(|f| f["spirv"] == "ComputeDerivativeGroupLinearKHR").expect("derivatives");
    assert!(derivatives["any_of"].as_array().unwrap().iter().any(|e| e["member"] == "computeDerivativeGroupLinear"));
    let wide = report(Some("256"), "wide.json");
    assert_eq!(wide["push_constants"]["size"], 132);
    assert!(wide.get("root_argument_buffer").is_none());
    assert_eq!(wide["resources"][0]["place"]["kind"], "heap_table");
    // A budget that is no whole number of words: one line, exit 1.
    let (code, _, err) =
        untangle(&[shader, "-o", &path("x.spv"), "--root-signature-string", sig, "--max-push-constant-bytes", "130"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("multiple of 4"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_reads_strings_and_binaries_and_writes_rts0() {
    let exe = env!("CARGO_BIN_EXE_untangle");
    let dir = std::env::temp_dir().join(format!("untangle-rootsig-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("rs.rts0");
    // Every element kind, flags of version 1.2, an unbounded range and a static sampler.
    let version = Version::V1_2;
    let text = "StaticSampler(s0, maxLOD=12, flags = UINT_BORDER_COLOR, borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT, \
                comparisonFunc = COMPARISON_GREATER, filter = FILTER_COMPARISON_MIN_MAG_MIP_LINEAR), \
                RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), RootConstants(space = 1, b0, num32BitConstants = 8), \
                CBV(flags = DATA_STATIC, b1), SRV(t9, space = 3), UAV(u3, space = 2), \
                DescriptorTable(visibility = SHADER_VISIBILITY_PIXEL, SRV(t1, numDescriptors = unbounded, flags = DESCRIPTORS_VOLATILE), \
                CBV(b0, offset = 3)), DescriptorTable(Sampler(s0, numDescriptors = 16, space = 1))";
    let run = |args: &[&str]| std::process::Command::new(exe).args(args).output().unwrap();
    let r = run(&["rootsig", "--string", text, "--version", version.name(), "-o", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rs = parse_hlsl(text, version).unwrap();
    assert_eq!(String::from_utf8_lossy(&r.stdout).trim_end(), to_hlsl(&rs));
    assert_eq!(std::fs::read(&out).unwrap(), to_rts0(&rs));
    // The binary back, as a bare part and inside a container; JSON.
    let container = dir.join("rs.dxbc");
    std::fs::write(&container, to_rts0_container(&rs)).unwrap();
    for file in [&out, &container] {
        let r = run(&["rootsig", file.to_str().unwrap(), "--json"]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        // Compared as text: f32 fields do not survive a trip through f64 JSON numbers.
        let expected = serde_json::to_string_pretty(&untangle::rootsig::json::to_json(&rs)).unwrap();
        assert_eq!(String::from_utf8_lossy(&r.stdout).trim_end(), expected);
    }
    // Invalid input: exit 1 with the typed error on stderr.
    let r = run(&["rootsig", "--string", "DescriptorTable(SRV(t0), Sampler(s0))"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("cannot mix samplers"));
    let r = run(&["rootsig", out.to_str().unwrap(), "--version", "1.0"]);
    assert_eq!(r.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batch_mode_translates_a_directory_and_fails_on_a_bad_input() {
    let dir = std::env::temp_dir().join(format!("untangle-batch-{}", std::process::id()));
    let (inp, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&inp).unwrap();
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_nested_ifs_loop.ll"), inp.join("good.ll"))
        .unwrap();
    let run = |args: &[&std::path::Path]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_untangle")).args(args).arg("-o").arg(&out).output().unwrap()
    };
    let ok = run(&[&inp]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(out.join("good.spv").exists());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("Compute"));
    std::fs::write(inp.join("bad.ll"), "define void @f() {\n  ret void\n}\n").unwrap();
    let bad = run(&[&inp]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad.ll"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs the binary with `stdin` as standard input; exit code, stdout bytes, stderr.
fn untangle_piped(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_untangle"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run untangle");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn temp(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("untangle-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn standard_input_and_output_and_the_output_form_follows_the_extension() {
    let sample = "corpus/cs_nested_ifs_loop.ll";
    let dir = temp("stdio");
    let file = dir.join("a.spv");
    let (code, _, err) = untangle(&[sample, "-o", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let binary = std::fs::read(&file).unwrap();
    assert_eq!(&binary[..4], &0x0723_0203u32.to_le_bytes());

    // `-` in and out: the same module.
    let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_nested_ifs_loop.ll")).unwrap();
    let (code, out, err) = untangle_piped(&["-", "-o", "-"], &text);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, binary);

    // `.spvasm` writes assembly, as does `--asm` on standard output.
    let asm = dir.join("a.spvasm");
    let (code, _, err) = untangle(&[sample, "-o", asm.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let asm_text = std::fs::read_to_string(&asm).unwrap();
    assert!(asm_text.contains("OpEntryPoint GLCompute"), "{asm_text}");
    let (code, out, err) = untangle_piped(&["-", "-o", "-", "--asm"], &text);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), asm_text);

    // Bad standard input: one line naming it, exit 1.
    let (code, out, err) = untangle_piped(&["-", "-o", "-"], b"not a shader");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("-:") || err.contains("<stdin>"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn version_names_the_commit() {
    let (code, out, _) = untangle(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with(concat!("untangle ", env!("CARGO_PKG_VERSION"), " (commit ")), "{out}");
    let commit = out.split("(commit ").nth(1).unwrap().trim_end().trim_end_matches(')');
    // A hash (possibly -dirty) in a checkout; `unknown` only outside one.
    let hash = commit.trim_end_matches("-dirty");
    assert!(hash == "unknown" || (hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit())), "{out}");
}

#[test]
fn batch_mode_is_deterministic_whatever_the_thread_count() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
    if !std::path::Path::new(corpus).is_dir() {
        eprintln!("{corpus} not found: skipping");
        return;
    }
    let dir = temp("jobs");
    let run = |jobs: &str| {
        let out = dir.join(format!("out{jobs}"));
        let (code, stdout, err) = untangle(&[corpus, "-o", out.to_str().unwrap(), "-j", jobs]);
        (code, stdout, err, out)
    };
    let (code1, sum1, err1, out1) = run("1");
    let (code2, sum2, err2, out2) = run("2");
    assert_eq!(code1, code2);
    assert_eq!(sum1, sum2, "the summary depends on the thread count");
    let out_name = |p: &std::path::Path| p.to_string_lossy().into_owned();
    assert_eq!(
        err1.replace(&out_name(&out1), "OUT"),
        err2.replace(&out_name(&out2), "OUT"),
        "the failure list depends on the thread count"
    );
    assert!(sum1.contains("Compute"), "{sum1}");
    let files = outputs(&out1);
    assert!(files.len() > 100, "{} outputs", files.len());
    assert_eq!(files, outputs(&out2));
    for f in &files {
        assert_eq!(std::fs::read(out1.join(f)).unwrap(), std::fs::read(out2.join(f)).unwrap(), "{f:?}");
    }
    // Libraries of several entries: every entry at `OUT/LIBRARY/ENTRY.spv` (vkd3d-proton's
    // `rt.default` has six), none refused for having several.
    let lib = out1.join("rt.default.lib_6_3");
    let mut entries: Vec<_> = std::fs::read_dir(&lib).unwrap().flatten().map(|e| e.file_name()).collect();
    entries.sort();
    assert_eq!(
        entries,
        ["RayAnyAABB.spv", "RayAnyTriangle.spv", "RayClosest.spv", "RayGen.spv", "RayIntersect.spv", "RayMiss.spv"]
    );
    assert!(!err1.contains("translate one by name"), "{err1}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every file below `dir`, as paths relative to it, sorted.
fn outputs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                files.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn batch_outputs_keep_directory_structure_and_collisions_are_refused() {
    let dir = temp("tree");
    let src = dir.join("in");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_nested_ifs_loop.ll");
    std::fs::copy(sample, src.join("a.ll")).unwrap();
    std::fs::copy(sample, src.join("sub/a.ll")).unwrap();
    let out = dir.join("out");
    let (code, _, err) = untangle(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("a.spv").is_file() && out.join("sub/a.spv").is_file());
    // The same name from two places given as files would overwrite: refused up front.
    let (code, _, err) = untangle(&[
        src.join("a.ll").to_str().unwrap(),
        src.join("sub/a.ll").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("a.spv"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
