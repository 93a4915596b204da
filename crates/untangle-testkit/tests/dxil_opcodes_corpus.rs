//! Checks the DXIL operation table against DXC's own test files.
//!
//! The `.ll` files under `../shared/corpus/ll/dxc-tests/` come from DXC's
//! test suite and are mostly DXC's own output, so every `call ... @dx.op.<class>...(i32 N, ...)` in them
//! pairs an opcode with the class DXC spells for it: an oracle independent of
//! how `src/dxil/opcodes.rs` was written. A handful of files are validator
//! tests that break that pairing on purpose; they are listed in
//! [`KNOWN_MISMATCHES`] and must keep failing, so the list cannot go stale.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use untangle::dxil::opcodes::{decode_function_name, DxOp, ALL};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");

/// `(file, class in the call, opcode)` triples that are wrong on purpose.
const KNOWN_MISMATCHES: &[(&str, &str, i64)] = &[
    // Validator tests feeding an opcode to the wrong function.
    ("HLSLFileCheck.validation.abs2_m.ll", "loadInput", 3),
    ("LitDXILValidation.illegalDXILOp.ll", "annotateHandle", 3),
    ("LitDXILValidation.illegalDXILOp.ll", "annotateHandle2", 216),
    // Validator tests with opcodes outside every table.
    ("LitDXILValidation.illegalDXILOp.ll", "calculateLOD", 12345),
    ("LitDXILValidation.illegalDXILOp.ll", "calculateLOD", 65536),
    // Hand-written inputs for dxilconv's handle-normalizing pass, which never
    // reads the opcode: they say 69 (BufferStore) where 68 (BufferLoad) is meant.
    ("dxilconv.normalize_dxil.n00.ll", "bufferLoad", 69),
    ("dxilconv.normalize_dxil.n01.ll", "bufferLoad", 69),
    ("dxilconv.normalize_dxil.n02.ll", "bufferLoad", 69),
];

/// Opcodes with bit 31 set belong to DXC's experimental table (0x8000_xxxx),
/// which `.ll` text prints as a negative `i32`.
fn is_experimental(n: i64) -> bool {
    (-0x8000_0000..-0x7fff_0000).contains(&n)
}

/// Calls whose opcode is not a constant, `(file, class)`: invalid DXIL that
/// the validator must reject.
const KNOWN_NON_CONSTANT: &[(&str, &str)] = &[("LitDXILValidation.illegalDXILOp.ll", "storeOutput")];

struct Call<'a> {
    class: &'a str,
    /// The literal first argument; `None` when it is not an integer literal.
    opcode: Option<i64>,
}

/// The code part of a line: `.ll` comments run from `;` to the end of the
/// line, and DXC's tests put `CHECK:` lines (which quote calls, including ones
/// with `{{[0-9]+}}` patterns) in comments.
fn code_of(line: &str) -> &str {
    line.split(';').next().unwrap_or("")
}

/// The function name after `@` (quoted or not) and the text after its `(`.
fn callee_and_args(text: &str) -> Option<(&str, &str)> {
    let at = text.find("@dx.op.").or_else(|| text.find("@\"dx.op."))?;
    let rest = &text[at + 1..];
    let (name, rest) = if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        (&quoted[..end], &quoted[end + 1..])
    } else {
        let end = rest.find('(')?;
        (&rest[..end], &rest[end..])
    };
    Some((name, rest.strip_prefix('(')?))
}

/// `call ... @dx.op.X(i32 N, ...)`: the class of X and N.
fn parse_call(line: &str) -> Option<Call<'_>> {
    let code = code_of(line);
    let call_at = code.find("call ")?;
    let (name, args) = callee_and_args(&code[call_at..])?;
    let (class, _) = decode_function_name(name)?;
    let literal = args.trim_start().strip_prefix("i32 ")?;
    let end = literal.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(literal.len());
    let opcode = literal[..end].parse().ok();
    Some(Call { class, opcode })
}

/// `declare ... @dx.op.X(i32, ...)`: the class of X.
fn parse_declare(line: &str) -> Option<&str> {
    let code = code_of(line).trim_start();
    if !code.starts_with("declare ") {
        return None;
    }
    let (name, args) = callee_and_args(code)?;
    assert!(args.starts_with("i32"), "DXIL op declared without an i32 opcode: {line}");
    let (class, _) = decode_function_name(name).unwrap_or_else(|| panic!("undecodable dx.op name {name:?}"));
    Some(class)
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {} missing: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    files
}

#[test]
fn dxc_tests_agree_with_opcode_table() {
    let known_classes: BTreeSet<&str> = ALL.iter().map(|op| op.class()).collect();

    let mut checked = 0usize;
    let mut checked_ops = BTreeSet::new();
    let mut files_with_calls = 0usize;
    let mut beyond_table: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    let mut seen_known = BTreeSet::new();
    let mut declared = 0usize;
    let mut unknown_declared: BTreeSet<(String, String)> = BTreeSet::new();
    let mut unparsed = Vec::new();
    let mut seen_non_constant = BTreeSet::new();

    for path in corpus_files() {
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut calls_here = 0usize;
        // Classes a declaration may use without being in the table.
        let mut excused_classes_here = BTreeSet::new();
        let mut declared_here = Vec::new();

        for line in text.lines() {
            if let Some(class) = parse_declare(line) {
                declared += 1;
                declared_here.push(class.to_owned());
                continue;
            }
            let Some(Call { class, opcode }) = parse_call(line) else {
                // A call the scanner cannot read would silently escape the check.
                let code = code_of(line);
                if code.contains("call ") && code.contains("@dx.op.") {
                    unparsed.push(format!("{file}: {}", line.trim()));
                }
                continue;
            };
            calls_here += 1;
            let Some(opcode) = opcode else {
                let listed = KNOWN_NON_CONSTANT.iter().position(|&(f, c)| f == file && c == class);
                match listed {
                    Some(i) => {
                        seen_non_constant.insert(i);
                    }
                    None => unparsed.push(format!("{file}: {}", line.trim())),
                }
                continue;
            };
            let known = KNOWN_MISMATCHES.iter().position(|&(f, c, n)| f == file && c == class && n == opcode);
            // The `i32` operand as DXC numbers it: experimental opcodes print negative.
            let expected = i32::try_from(opcode).ok().and_then(|n| DxOp::from_u32(n as u32));
            match (expected, known) {
                (Some(op), None) if op.class() == class => {
                    checked += 1;
                    checked_ops.insert(op);
                }
                (None, None) if is_experimental(opcode) => {
                    // An experimental opcode past the table's (newer DXC previews).
                    *beyond_table.entry("experimental").or_default() += 1;
                    excused_classes_here.insert(class.to_owned());
                }
                (_, Some(i)) => {
                    // A listed mismatch must still be one: if the table came to
                    // agree with it, either the table or the list is wrong.
                    assert!(
                        expected.is_none_or(|op| op.class() != class),
                        "{file}: listed mismatch {class}({opcode}) now agrees with the table"
                    );
                    seen_known.insert(i);
                    excused_classes_here.insert(class.to_owned());
                }
                (expected, None) => mismatches.push(format!(
                    "{file}: @dx.op.{class}(i32 {opcode}) but table says {:?}",
                    expected.map(|op| (op.name(), op.class()))
                )),
            }
        }

        // Every declared class is either in the table or used in that file
        // only by operations beyond the table or by listed mismatches.
        for class in declared_here {
            if !known_classes.contains(class.as_str()) && !excused_classes_here.contains(&class) {
                unknown_declared.insert((file.clone(), class));
            }
        }
        if calls_here > 0 {
            files_with_calls += 1;
        }
    }

    println!("dx.op calls checked against the table: {checked} in {files_with_calls} files");
    println!("distinct ops seen: {}", checked_ops.len());
    println!("dx.op declarations seen: {declared}");
    println!("calls beyond the table (skipped): {beyond_table:?}");
    let newer = checked_ops.iter().filter(|op| op.number() >= 258).count();
    println!("distinct DXIL 1.9 / experimental ops seen: {newer}");
    println!("known mismatches (validator tests):");
    for &(f, c, n) in KNOWN_MISMATCHES {
        println!("  {f}: {c}({n})");
    }
    println!("known non-constant opcodes (validator tests): {KNOWN_NON_CONSTANT:?}");
    println!("declared classes outside the table: {unknown_declared:?}");

    assert!(unparsed.is_empty(), "unreadable dx.op calls:\n{}", unparsed.join("\n"));
    assert!(unknown_declared.is_empty(), "declared classes outside the table: {unknown_declared:?}");
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
    let unseen: Vec<_> =
        (0..KNOWN_MISMATCHES.len()).filter(|i| !seen_known.contains(i)).map(|i| KNOWN_MISMATCHES[i]).collect();
    assert!(unseen.is_empty(), "listed mismatches not found in the corpus: {unseen:?}");
    assert_eq!(seen_non_constant.len(), KNOWN_NON_CONSTANT.len(), "listed non-constant calls not found");
    assert!(checked >= 3000, "only {checked} calls checked; is the corpus there?");
    assert!(checked_ops.len() >= 100, "only {} distinct ops seen", checked_ops.len());
    // DXC's SM 6.9 and 6.10 validator tests call the new operations by their classes.
    assert!(newer >= 20, "only {newer} DXIL 1.9 / experimental ops checked");
}

#[test]
fn parser_reads_dxc_call_syntax() {
    let c = parse_call("  %1 = call i32 @dx.op.threadId.i32(i32 93, i32 0)  ; ThreadId(component)").unwrap();
    assert_eq!((c.class, c.opcode), ("threadId", Some(93)));
    let c = parse_call("call void @dx.op.bufferStore.f32(i32 69, %dx.types.Handle %h, i32 0)").unwrap();
    assert_eq!((c.class, c.opcode), ("bufferStore", Some(69)));
    let c = parse_call("  %x = call i32 @dx.op.linAlgMatrixLength(i32 -2147483632, ...)").unwrap();
    assert_eq!(c.opcode, Some(-2147483632));
    assert!(is_experimental(-2147483632));
    let c = parse_call("call void @dx.op.storeOutput.f32(i32 %I, i32 0)").unwrap();
    assert_eq!((c.class, c.opcode), ("storeOutput", None));
    // Quoted CHECK lines live in comments and are not calls.
    assert!(parse_call("; CHECK: call i32 @dx.op.threadId.i32(i32 93, i32 0)").is_none());
    assert!(parse_call("  call void @llvm.dbg.value(metadata i32 0)").is_none());
    assert_eq!(parse_declare("declare float @dx.op.unary.f32(i32, float) #0"), Some("unary"));
    assert_eq!(
        parse_declare("declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #1"),
        Some("createHandle")
    );
}
