//! Every DXIL 1.8 operation, in every stage the translator handles: what
//! `untangle::emit::support` says is what happens.
//!
//! - Lowered operations: every case of `untangle_testkit::dxil_ops` (every overload and
//!   operand form) translates in each of its stages and passes `spirv-val --target-env
//!   vulkan1.3`; which operations a case covers is read from its module.
//! - Refused operations: a call synthesized from the operation's signature is a typed
//!   `UnsupportedOp` error with the refusal's reason, in every stage; untranslated stages
//!   are `UnsupportedStage` errors.
//! - The coverage table `docs/dxil-coverage.md` is generated from both and must match the
//!   file (`UNTANGLE_BLESS=1` rewrites it).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use untangle::dxil::opcodes::ALL;
use untangle::dxil::DxOp;
use untangle::emit::support::{coverage, stage_support, TABLE_STAGES};
use untangle::emit::{support, Support};
use untangle::TranslateError;
use untangle::{Options, Shader};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::Shell;
use untangle_testkit::dxil_ops::{all_cases, synthesized, PROFILES};

/// Runs every case; returns the cases covering each (operation, stage).
fn run_cases() -> BTreeMap<(DxOp, &'static str), Vec<String>> {
    let val = find_spirv_val();
    if val.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let mut covered: BTreeMap<(DxOp, &'static str), Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let cases = all_cases();
    let mut runs = 0;
    for case in &cases {
        for &profile in &case.profiles {
            runs += 1;
            let text = case.module(profile);
            let what = format!("{} ({profile})", case.name);
            let shader = match Shader::parse(text.as_bytes()) {
                Ok(s) => s,
                Err(e) => {
                    failures.push(format!("{what}: does not parse: {e}"));
                    continue;
                }
            };
            let unsupported = shader.unsupported_operations();
            if !unsupported.is_empty() {
                failures.push(format!("{what}: unsupported_operations says {unsupported:?}"));
            }
            match shader.translate(&Options::default()) {
                Err(e) => failures.push(format!("{what}: {e}")),
                Ok(t) => {
                    if let Some(v) = &val {
                        if let Err(msg) = v.validate(&t.words, "vulkan1.3") {
                            let first = msg.lines().next().unwrap_or("").to_string();
                            failures.push(format!("{what}: spirv-val: {first}"));
                            continue;
                        }
                    }
                    for u in shader.dxil().ops.iter().flatten() {
                        if let Some(op) = u.op.and_then(DxOp::from_name) {
                            covered.entry((op, profile)).or_default().push(case.name.clone());
                        }
                    }
                }
            }
        }
    }
    eprintln!("{} cases, {runs} translations", cases.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    covered
}

#[test]
fn every_case_translates_and_validates() {
    let covered = run_cases();
    // Every lowered (operation, stage) is covered by some case.
    let mut missing = Vec::new();
    for &op in ALL {
        for &(profile, stage) in &PROFILES {
            if support(op, stage).is_lowered() && !covered.contains_key(&(op, profile)) {
                missing.push(format!("{} in {profile}", op.name()));
            }
        }
    }
    assert!(missing.is_empty(), "lowered but no case covers: {missing:?}");
}

#[test]
fn refused_operations_are_typed_errors_with_their_reason() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for &op in ALL {
        for &(profile, stage) in &PROFILES {
            let Support::Refused(r) = support(op, stage) else { continue };
            checked += 1;
            let text = synthesized(op, profile);
            // The library answers up front what translating answers.
            match Shader::parse(text.as_bytes()).map(|s| s.unsupported_operations()) {
                Ok(u) if u.len() == 1 && u[0].op == op && u[0].refusal == r && u[0].calls == 1 => {}
                other => wrong.push(format!("{} in {profile}: unsupported_operations: {other:?}", op.name())),
            }
            match untangle::translate(text.as_bytes(), &Options::default()) {
                Err(untangle::Error::Translate(TranslateError::UnsupportedOp { op: o, stage, reason, .. }))
                    if o == op && stage == profile && reason == r => {}
                other => wrong.push(format!("{} in {profile}: {:?}", op.name(), other.map(|_| "translated"))),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 300, "{checked}");
    // Stages not translated: the whole shader is refused.
    for stage in TABLE_STAGES {
        let Some(family) = stage_support(stage) else { continue };
        let profile = stage.profile_prefix().expect("table stages have profiles");
        let text = Shell::new(profile).module("  ret void", "");
        match untangle::translate(text.as_bytes(), &Options::default()) {
            Err(untangle::Error::Translate(TranslateError::UnsupportedStage { stage: s })) => assert_eq!(s, profile),
            other => panic!("{profile} ({}): {other:?}", family.name()),
        }
    }
}

/// One cell of the table, from a [`StageCoverage`] status.
fn cell(status: &str) -> &'static str {
    match status {
        "lowered" => "✓",
        "not_in_stage" => "·",
        "stage_not_translated" => "s",
        "reserved" => "r",
        _ => "✗",
    }
}

fn render(covered: &BTreeMap<(DxOp, &'static str), Vec<String>>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# DXIL 1.9 and SM 6.10 experimental operation coverage\n\n\
         Generated by `crates/untangle-testkit/tests/dxil_ops.rs` from `untangle::emit::support` (the\n\
         function the translator dispatches through) and the test cases that exercise each operation;\n\
         the test fails when this file is stale (`UNTANGLE_BLESS=1 cargo test --release -p untangle-testkit\n\
         --test dxil_ops` rewrites it). `untangle info --ops` prints the same support data.\n"
    );
    let _ = writeln!(
        s,
        "Cells: ✓ lowered and tested (translated and `spirv-val`-clean in that stage); ✗ refused\n\
         with the reason given (a typed `UnsupportedOp` error); · not allowed in that stage by DXIL\n\
         (DXC's validator rejects the call); s the stage is not translated yet (its family below);\n\
         r reserved opcode slot. Stages: cs compute, ps pixel, vs vertex, gs geometry, hs hull, ds\n\
         domain, ms mesh, as amplification, lib libraries (ray tracing and node shaders).\n\n\
         Operations: DXIL 1.0–1.9 (opcodes 0–311) and the SM 6.10 experimental table (FeatureID\n\
         0x8000, opcode `0x8000_0000 | index`, printed in hex), as DXC's `utils/hct/hctdb.py` lists\n\
         them (`tools/gen-dxil-op-facts.py`). A call with any other opcode is refused as newer than\n\
         DXIL 1.9 (`NewerOperation`), not as malformed input.\n\n\
         DXIL 1.9 native vectors of more than 4 lanes (up to 1024) are SPIR-V arrays of their\n\
         lanes, operated on lane by lane (`emit/long_vector.rs`); an operation without a\n\
         lane-by-lane form (`FDot`'s `OpDot`) on one is a typed error. `SPV_EXT_long_vector` is\n\
         not used: the validator the project checks against (SPIRV-Tools v2025.5) does not know it.\n"
    );
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for &op in ALL {
        let lowered = TABLE_STAGES.iter().any(|&st| support(op, st).is_lowered());
        let key = if op.is_reserved() {
            "reserved"
        } else if lowered {
            "lowered in at least one stage"
        } else {
            "refused in every stage"
        };
        *counts.entry(key).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(s, "Summary: {} operations: {}.\n", ALL.len(), summary.join(", "));
    let _ = writeln!(s, "Stages not translated yet:\n");
    for st in TABLE_STAGES {
        if let Some(f) = stage_support(st) {
            let _ = writeln!(s, "- `{}`: {} ({}).", st.profile_prefix().unwrap_or("?"), f.reason(), f.name());
        }
    }
    s.push('\n');
    let head: Vec<&str> = TABLE_STAGES.iter().map(|st| st.profile_prefix().unwrap_or("?")).collect();
    let _ = writeln!(s, "| # | operation | SM | {} | lowering / reason | tests |", head.join(" | "));
    let _ = writeln!(s, "|---|---|---|{}---|---|", "---|".repeat(head.len()));
    // The rows `untangle info --ops` prints, from the same library call.
    for (row, &op) in coverage().iter().zip(ALL) {
        assert_eq!(row.opcode, op.number());
        let cells: Vec<&str> = row.stages.iter().map(|c| cell(c.status)).collect();
        let how = match row.stages.iter().find_map(|c| c.module) {
            Some(m) => format!("`emit/dxop/{m}`"),
            None => {
                let reasons: BTreeSet<&str> = row
                    .stages
                    .iter()
                    .filter(|c| matches!(c.status, "refused" | "reserved"))
                    .filter_map(|c| c.reason.as_deref())
                    .collect();
                reasons.into_iter().collect::<Vec<_>>().join("; ")
            }
        };
        let mut tests: BTreeSet<String> = BTreeSet::new();
        for &(profile, _) in &PROFILES {
            for name in covered.get(&(op, profile)).into_iter().flatten() {
                tests.insert(name.clone());
            }
        }
        let tests = summarize(op, &tests);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {how} | {tests} |",
            op.opcode_text(),
            row.name,
            row.shader_model,
            cells.join(" | ")
        );
    }
    vendor_table(&mut s);
    nvapi_table(&mut s);
    s
}

/// The vendor-intrinsics section: every AMD AGS opcode and how it is translated
/// (`untangle::emit::support::ags_support`, which `emit/dxop/ags.rs` follows).
fn vendor_table(s: &mut String) {
    use untangle::dxil::ags::Opcode;
    use untangle::emit::support::{ags_support, VendorSupport};
    let _ = writeln!(
        s,
        "\n## Vendor intrinsics: AMD AGS\n\n\
         AGS (`ags_shader_intrinsics_dx12.hlsl`) encodes each intrinsic as `atomicCompareExchange`\n\
         calls on its magic UAV (`u0, space2147420894`), one a phase; `untangle::dxil::ags` decodes\n\
         them (a malformed stream is a typed error naming the instruction) and `emit/dxop/ags.rs`\n\
         lowers them when `Options::vendor.amd_ags` (CLI `--vendor amd-ags`) says the layer exposes\n\
         AGS; otherwise the magic UAV is refused naming the option. A lowering that needs a device\n\
         feature names its `Options::vendor` field, and is refused naming the Vulkan feature without\n\
         it. Tests: `vendor_ags` (translation, `spirv-val` at Vulkan 1.4, refusals, the corpus's 25\n\
         AGS shaders), `gpu_ags` (wave and lane intrinsics, float8 conversions, 64-bit atomics and\n\
         compare-exchange on buffers and, with `shaderImageInt64Atomics`, on an `R64_UINT` texture,\n\
         byte and short stores beside other threads' bytes, dword loads from a raw\n\
         GPU address, rounded float operations, with `fragmentShaderBarycentric` barycentrics and\n\
         vertex parameters of a drawn triangle against host-computed weights and, with\n\
         `VK_KHR_cooperative_matrix`, a WMMA\n\
         multiply-add through a buffer and through a raw GPU address run on a device), `gpu_ags_corpus` (the\n\
         corpus's eight non-FP8 WMMA shaders run on a device with the inputs and expected values of\n\
         vkd3d-proton's tests, each also failing with one expected value changed; the FP8 ones refused\n\
         without `float8`). With `amd_ags` the magic UAV has no row in the bindings table. WMMA matrices travel\n\
         as 8 opaque words; they may pass through PHIs (one `Function` variable a matrix) and\n\
         through `i32` allocas at `8 i + k`, stored and loaded whole (a `Function` array of\n\
         matrices; other memory is refused). An element index means the invocation's elements, whose\n\
         positions in the matrix are implementation-dependent in both APIs.\n"
    );
    let _ = writeln!(s, "| opcode | intrinsic | lowering / reason | needs |");
    let _ = writeln!(s, "|---|---|---|---|");
    for op in Opcode::all() {
        let (how, needs) = match ags_support(op) {
            VendorSupport::Lowered { spirv, feature } => {
                (format!("✓ {spirv}"), feature.map(|f| format!("`{f}`")).unwrap_or_default())
            }
            VendorSupport::Refused(why) => (format!("✗ {why}"), String::new()),
        };
        let _ = writeln!(s, "| 0x{:02x} | {op:?} | {how} | {needs} |", op.number());
    }
}

/// The vendor-intrinsics section for NVIDIA NVAPI: every opcode group and how it is
/// translated (`untangle::emit::support::nvapi_support`, which `emit/dxop/nvapi.rs` follows).
fn nvapi_table(s: &mut String) {
    use untangle::dxil::nvapi::Opcode;
    use untangle::emit::support::{nvapi_support, VendorSupport};
    let _ = writeln!(
        s,
        "\n## Vendor intrinsics: NVIDIA NVAPI\n\n\
         NVAPI (`nvHLSLExtns.h`) writes each intrinsic as a 256-byte `NvShaderExtnStruct` record to\n\
         its magic UAV (`RWStructuredBuffer g_NvidiaExt` at the register the application names):\n\
         `IncrementCounter` opens a record, stores fill its operands and opcode, and a further\n\
         `IncrementCounter` or a load of `dst0u` reads the result; atomics name their UAV with a\n\
         marking record (`markUavRef`). `untangle::dxil::nvapi` follows the records (a malformed\n\
         sequence is a typed error naming the call) and `emit/dxop/nvapi.rs` lowers them when\n\
         `Options::vendor.nvapi` (CLI `--nvapi REGISTER SPACE`; dxil-spirv's `NVAPI` option) names the\n\
         register; without it the UAV is an ordinary structured buffer, as on a driver without the\n\
         extension. A lowering that needs a device feature names its `Options::vendor` field. Tests:\n\
         `vendor_nvapi` (translation, `spirv-val` at Vulkan 1.3 and 1.4, refusals, malformed\n\
         records, texture footprints, hit objects), `gpu_nvapi` (shuffles, votes, lane masks,\n\
         footprints run on a device),\n\
         `gpu_ray_tracing` (an NVAPI hit object traced, reordered and invoked). Hit objects\n\
         (`NV_EXTN_OP_HIT_OBJECT_*`) take the SM 6.9 hit-object slots (`emit/dxop/nvapi_hit.rs`);\n\
         `TRACE_RAY`, `MAKE_HIT*`, `INVOKE` and `GET_ATTRIBUTES` complete at the `TraceRay` or\n\
         `CallShader` that takes their token. vkd3d-proton's tests hold no NVAPI shader.\n"
    );
    let _ = writeln!(s, "| opcode | intrinsic | lowering / reason | needs |");
    let _ = writeln!(s, "|---|---|---|---|");
    let mut seen = Vec::new();
    for n in 0..=119 {
        let Some(op) = Opcode::from_number(n) else { continue };
        // One row a family of opcodes that share a name.
        let name = op.to_string();
        let name = name.split(" (").next().unwrap_or_default().to_string();
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let same: Vec<u32> = (n..=119)
            .filter(|&k| Opcode::from_number(k).is_some_and(|o| o.to_string().starts_with(&format!("{name} ("))))
            .collect();
        let numbers = match same.as_slice() {
            [a, .., b] if same.len() > 4 => format!("{a}..{b}"),
            _ => same.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
        };
        let (how, needs) = match nvapi_support(op) {
            VendorSupport::Lowered { spirv, feature } => {
                (format!("✓ {spirv}"), feature.map(|f| format!("`{f}`")).unwrap_or_default())
            }
            VendorSupport::Refused(why) => (format!("✗ {why}"), String::new()),
        };
        let _ = writeln!(s, "| {numbers} | {name} | {how} | {needs} |");
    }
}

/// The cases that cover an operation, shortened: its synthesized cases (named
/// `Op.overload...`) as the overloads covered, hand-written ones (lower-case names) by name,
/// at most four and then a count. Other operations' synthesized cases only load and store.
fn summarize(op: DxOp, names: &BTreeSet<String>) -> String {
    let prefix = format!("{}.", op.name());
    let mut overloads: BTreeSet<&str> = BTreeSet::new();
    let mut others: Vec<&str> = Vec::new();
    for n in names {
        if let Some(rest) = n.strip_prefix(&prefix) {
            overloads.insert(rest.split('.').next().unwrap_or(rest));
        } else if n.starts_with(|c: char| c.is_ascii_lowercase()) {
            others.push(n);
        }
    }
    let mut parts = Vec::new();
    if !overloads.is_empty() {
        parts.push(format!("synthesized {}", overloads.into_iter().collect::<Vec<_>>().join("/")));
    }
    if !others.is_empty() {
        let shown: Vec<String> = others.iter().take(4).map(|n| format!("`{n}`")).collect();
        let more = if others.len() > 4 { format!(" +{}", others.len() - 4) } else { String::new() };
        parts.push(format!("{}{more}", shown.join(", ")));
    }
    if parts.is_empty() && !names.is_empty() {
        parts.push(format!("{} synthesized cases", names.len()));
    }
    if untangle_testkit::dxil_ops::gpu_checked(op) {
        parts.push("GPU: `gpu_ops`".into());
    }
    parts.join("; ")
}

#[test]
fn coverage_table_is_current() {
    let covered = run_cases();
    let table = render(&covered);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dxil-coverage.md");
    if std::env::var("UNTANGLE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &table).expect("write the table");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == table,
        "docs/dxil-coverage.md is stale: run `UNTANGLE_BLESS=1 cargo test --release -p untangle-testkit --test dxil_ops`"
    );
}
