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
                    for u in &shader.dxil().ops {
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
         DXIL 1.9 (`NewerOperation`), not as malformed input.\n"
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
    s
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
