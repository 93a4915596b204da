//! Shader Model 6.9 (DXIL 1.9): the operation table's edge, native vectors of any length,
//! and the vector operations, on hand-written compute shaders written from DXC's
//! `docs/DXIL.rst` and `utils/hct/hctdb.py` (issue 34). Every translated module goes
//! through `spirv-val`; the tests also check what was emitted.

use untangle::{translate, Options};

/// A SM 6.9 compute shader (4 threads) around `body` with one `RWByteAddressBuffer` at u0
/// (`%buf`, from `createHandle`); `decls` adds declarations.
fn shader(body: &str, decls: &str) -> String {
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.Buf = type {{ i32 }}
%dx.types.HitObject = type {{ i8* }}
define void @main() {{
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
{body}
  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
{decls}
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 9}}
!2 = !{{!"cs", i32 6, i32 9}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.Buf* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 {flags}, i32 4, !8}}
!8 = !{{i32 4, i32 1, i32 1}}
"#,
        // `UseNativeLowPrecision` | `LowPrecisionPresent` | `EnableRawAndStructuredBuffers`.
        flags = (1u64 << 23) | (1 << 5) | (1 << 4),
    )
}

/// An opcode past DXIL 1.9 (312) or past the experimental table is valid DXIL of a newer
/// version: a typed `NewerOperation`, never "malformed".
#[test]
fn opcodes_past_the_table_are_newer_not_malformed() {
    for (opcode, printed) in [(312i64, "312"), (0x8000_0023, "-2147483613"), (0x8000_0000 + 0x7fff, "-2147450881")] {
        let text = shader(
            &format!("  %x = call i32 @dx.op.futureOp.i32(i32 {printed}, i32 %tid)"),
            "declare i32 @dx.op.futureOp.i32(i32, i32)",
        );
        let err = translate(text.as_bytes(), &Options::default()).expect_err("newer opcode");
        let untangle::Error::Translate(untangle::emit::Error::NewerOperation(e)) = &err else {
            panic!("{opcode}: {err:?}");
        };
        let untangle::dxil::Error::NewerOperation { opcode: got, .. } = **e else { panic!("{e:?}") };
        assert_eq!(i64::from(got), opcode);
        let message = err.to_string();
        assert!(message.contains("newer than DXIL 1.9") && !message.contains("malformed"), "{message}");
        assert!(message.contains("dx.op.futureOp.i32"), "{message}");
    }
    // A known DXIL 1.9 operation that is not lowered is refused as such, by name.
    let text = shader(
        "  %h = call %dx.types.HitObject @dx.op.hitObject_MakeNop(i32 266)",
        "declare %dx.types.HitObject @dx.op.hitObject_MakeNop(i32)",
    );
    let err = translate(text.as_bytes(), &Options::default()).expect_err("not in compute");
    assert!(err.to_string().contains("HitObject_MakeNop"), "{err}");
}

const STORE_F32: &str =
    "declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)";
const STORE_I32: &str =
    "declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";

/// `call rawBufferStore.<ty>` of `value` at byte `4 * tid`.
fn store(ty: &str, value: &str) -> String {
    let t = if ty == "f32" { "float" } else { "i32" };
    format!(
        "  %off.{value} = shl i32 %tid, 2\n  call void @dx.op.rawBufferStore.{ty}(i32 140, %dx.types.Handle %buf, i32 \
         %off.{value}, i32 undef, {t} %{value}, {t} undef, {t} undef, {t} undef, i8 1, i32 4)"
    )
}

/// A `<n x elem>` built from `seed` (a value of `elem`) varied per element, named `%name`.
fn build(name: &str, n: u32, elem: &str, seed: &str) -> String {
    let mut s = String::new();
    let mut prev = "undef".to_string();
    let float = matches!(elem, "float" | "half");
    for k in 0..n {
        let (op, kk) = if float { ("fadd", format!("{k}.0")) } else { ("add", k.to_string()) };
        s += &format!("  %{name}.e{k} = {op} {elem} %{seed}, {kk}\n");
        let next = if k + 1 == n { name.to_string() } else { format!("{name}.v{k}") };
        s += &format!("  %{next} = insertelement <{n} x {elem}> {prev}, {elem} %{name}.e{k}, i32 {k}\n");
        prev = format!("%{next}");
    }
    s
}

/// Translates `text`, runs `spirv-val`, and returns the disassembly (empty without
/// SPIRV-Tools).
fn translated(text: &str, what: &str) -> String {
    let t = translate(text.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", what);
    untangle_spirv_tools::find_spirv_val().and_then(|v| v.disassemble(&t.words).ok()).unwrap_or_default()
}

/// `FDot` (311) of `<N x float>` and `<N x half>`, N = 2..4: `OpDot`.
#[test]
fn fdot_is_op_dot() {
    for n in 2..=4 {
        for (elem, sfx) in [("float", "f32"), ("half", "f16")] {
            let mut body = String::from("  %f = uitofp i32 %tid to float\n");
            if elem == "half" {
                body += "  %s = fptrunc float %f to half\n";
            } else {
                body += "  %s = fadd float %f, 0.0\n";
            }
            body += &build("a", n, elem, "s");
            body += &build("b", n, elem, "s");
            body +=
                &format!("  %d = call {elem} @dx.op.dot.v{n}{sfx}(i32 311, <{n} x {elem}> %a, <{n} x {elem}> %b)\n");
            body += if elem == "half" { "  %r = fpext half %d to float\n" } else { "  %r = fadd float %d, 0.0\n" };
            body += &store("f32", "r");
            let decls =
                format!("{STORE_F32}\ndeclare {elem} @dx.op.dot.v{n}{sfx}(i32, <{n} x {elem}>, <{n} x {elem}>)");
            let dis = translated(&shader(&body, &decls), &format!("FDot <{n} x {elem}>"));
            assert!(dis.is_empty() || dis.contains("OpDot"), "{dis}");
        }
    }
}

/// `VectorReduceAnd`/`Or` (309/310): `OpAll`/`OpAny` on `i1` vectors, a fold of bitwise
/// operations on integer ones, N = 2..4.
#[test]
fn vector_reduce_folds_the_elements() {
    for n in 2..=4 {
        for (opcode, and) in [(309, true), (310, false)] {
            // Integers: i16 and i32.
            for (elem, sfx) in [("i32", "i32"), ("i16", "i16")] {
                let mut body = String::new();
                body += &if elem == "i16" {
                    "  %s = trunc i32 %tid to i16\n".to_string()
                } else {
                    "  %s = add i32 %tid, 0\n".into()
                };
                body += &build("a", n, elem, "s");
                body += &format!("  %d = call {elem} @dx.op.vectorReduce.v{n}{sfx}(i32 {opcode}, <{n} x {elem}> %a)\n");
                body += if elem == "i16" { "  %r = zext i16 %d to i32\n" } else { "  %r = add i32 %d, 0\n" };
                body += &store("i32", "r");
                let decls = format!("{STORE_I32}\ndeclare {elem} @dx.op.vectorReduce.v{n}{sfx}(i32, <{n} x {elem}>)");
                let dis = translated(&shader(&body, &decls), &format!("VectorReduce {opcode} <{n} x {elem}>"));
                let want = if and { "OpBitwiseAnd" } else { "OpBitwiseOr" };
                assert!(dis.is_empty() || dis.matches(want).count() >= (n - 1) as usize, "{dis}");
            }
            // Booleans.
            let mut body = String::new();
            for k in 0..n {
                body += &format!("  %b.e{k} = icmp ugt i32 %tid, {k}\n");
                let prev = if k == 0 { "undef".into() } else { format!("%b.v{}", k - 1) };
                let next = if k + 1 == n { "b".into() } else { format!("b.v{k}") };
                body += &format!("  %{next} = insertelement <{n} x i1> {prev}, i1 %b.e{k}, i32 {k}\n");
            }
            body += &format!("  %d = call i1 @dx.op.vectorReduce.v{n}i1(i32 {opcode}, <{n} x i1> %b)\n");
            body += "  %r = zext i1 %d to i32\n";
            body += &store("i32", "r");
            let decls = format!("{STORE_I32}\ndeclare i1 @dx.op.vectorReduce.v{n}i1(i32, <{n} x i1>)");
            let dis = translated(&shader(&body, &decls), &format!("VectorReduce {opcode} <{n} x i1>"));
            assert!(dis.is_empty() || dis.contains(if and { "OpAll" } else { "OpAny" }), "{dis}");
        }
    }
}

/// DXIL 1.9 vector overloads of existing operations (N = 2..4), and the 16-bit
/// `IsSpecialFloat` overloads, scalar and vector.
#[test]
fn vector_overloads_of_existing_operations() {
    for n in 2..=4 {
        let mut body = String::from("  %f = uitofp i32 %tid to float\n");
        body += &build("a", n, "float", "f");
        body += &format!("  %abs = call <{n} x float> @dx.op.unary.v{n}f32(i32 6, <{n} x float> %a)\n");
        body += &format!("  %r = extractelement <{n} x float> %abs, i32 {}\n", n - 1);
        body += &store("f32", "r");
        let decls = format!("{STORE_F32}\ndeclare <{n} x float> @dx.op.unary.v{n}f32(i32, <{n} x float>)");
        let dis = translated(&shader(&body, &decls), &format!("FAbs <{n} x float>"));
        assert!(dis.is_empty() || dis.contains("FAbs"), "{dis}");
    }
    // 16-bit IsNaN/IsInf/IsFinite/IsNormal, scalar.
    for (opcode, name) in [(8, "IsNaN"), (9, "IsInf"), (10, "IsFinite"), (11, "IsNormal")] {
        let body = format!(
            "  %f = uitofp i32 %tid to float\n  %h = fptrunc float %f to half\n  %c = call i1 \
             @dx.op.isSpecialFloat.f16(i32 {opcode}, half %h)\n  %r = zext i1 %c to i32\n{}",
            store("i32", "r")
        );
        let decls = format!("{STORE_I32}\ndeclare i1 @dx.op.isSpecialFloat.f16(i32, half)");
        translated(&shader(&body, &decls), &format!("{name} f16"));
        // And of <N x half> / <N x float> (a vector of i1 per lane).
        for n in 2..=4 {
            for (elem, sfx) in [("half", "f16"), ("float", "f32")] {
                let mut body = String::from("  %f = uitofp i32 %tid to float\n");
                body += &if elem == "half" {
                    "  %s = fptrunc float %f to half\n".to_string()
                } else {
                    "  %s = fadd float %f, 1.0\n".into()
                };
                body += &build("a", n, elem, "s");
                body += &format!(
                    "  %c = call <{n} x i1> @dx.op.isSpecialFloat.v{n}{sfx}(i32 {opcode}, <{n} x {elem}> %a)\n"
                );
                body += &format!("  %c1 = extractelement <{n} x i1> %c, i32 1\n  %r = zext i1 %c1 to i32\n");
                body += &store("i32", "r");
                let decls =
                    format!("{STORE_I32}\ndeclare <{n} x i1> @dx.op.isSpecialFloat.v{n}{sfx}(i32, <{n} x {elem}>)");
                translated(&shader(&body, &decls), &format!("{name} <{n} x {elem}>"));
            }
        }
    }
}

/// A SM 6.9 shader over `<n x float>`/`<n x i32>`: `rawBufferVectorLoad` (303) at byte
/// `4 * n * tid`, `fmul`, `FMad` (46) and `FMax` (35) vector overloads, `fcmp` + `select`,
/// `fptosi`, a PHI across a branch, `extractelement`/`insertelement` with constant and
/// dynamic lanes, a `shufflevector` and `rawBufferVectorStore` (304) of the result.
fn long_vector_shader(n: u32) -> String {
    let (vf, vi) = (format!("<{n} x float>"), format!("<{n} x i32>"));
    let body = format!(
        r#"  %off = mul i32 %tid, {stride}
  %ld = call %dx.types.ResRet.vf @dx.op.rawBufferVectorLoad.vf(i32 303, %dx.types.Handle %buf, i32 %off, i32 undef, i32 4)
  %a = extractvalue %dx.types.ResRet.vf %ld, 0
  %m = fmul fast {vf} %a, %a
  %mad = call {vf} @dx.op.tertiary.vf(i32 46, {vf} %m, {vf} %a, {vf} %a)
  %mx = call {vf} @dx.op.binary.vf(i32 35, {vf} %mad, {vf} %m)
  %c = fcmp olt {vf} %mx, %a
  %s = select <{n} x i1> %c, {vf} %mx, {vf} %a
  %i = fptosi {vf} %s to {vi}
  %cond = icmp eq i32 %tid, 0
  br i1 %cond, label %then, label %join
then:
  %i2 = add {vi} %i, %i
  br label %join
join:
  %p = phi {vi} [ %i, %0 ], [ %i2, %then ]
  %last = extractelement {vi} %p, i32 {last}
  %dyn = extractelement {vi} %p, i32 %tid
  %ins = insertelement {vi} %p, i32 %last, i32 %tid
  %ins2 = insertelement {vi} %ins, i32 %dyn, i32 0
  %sw = shufflevector {vi} %ins2, {vi} %p, <{n} x i32> <{mask}>
  %fl = sitofp {vi} %sw to {vf}
  call void @dx.op.rawBufferVectorStore.vf(i32 304, %dx.types.Handle %buf, i32 %off, i32 undef, {vf} %fl, i32 4)"#,
        stride = 4 * n,
        last = n - 1,
        mask = (0..n).map(|k| format!("i32 {}", 2 * n - 1 - k)).collect::<Vec<_>>().join(", "),
    );
    let decls = format!(
        "declare %dx.types.ResRet.vf @dx.op.rawBufferVectorLoad.vf(i32, %dx.types.Handle, i32, i32, i32)\n\
         declare void @dx.op.rawBufferVectorStore.vf(i32, %dx.types.Handle, i32, i32, {vf}, i32)\n\
         declare {vf} @dx.op.tertiary.vf(i32, {vf}, {vf}, {vf})\n\
         declare {vf} @dx.op.binary.vf(i32, {vf}, {vf})"
    );
    shader(&body, &decls)
        .replace(
            "%dx.types.HitObject = type { i8* }",
            &format!("%dx.types.HitObject = type {{ i8* }}\n%dx.types.ResRet.vf = type {{ {vf}, i32 }}"),
        )
        .replace(".vf", &format!(".v{n}f32"))
}

/// Vectors longer than 4 (the 5–16 and 17–1024 classes) are arrays of their lanes: every
/// instruction family above translates, validates, and works lane by lane.
#[test]
fn long_vectors_are_arrays_of_lanes() {
    for n in [5u32, 8, 16, 17, 64, 1024] {
        let text = long_vector_shader(n);
        let dis = translated(&text, &format!("<{n} x float>"));
        if dis.is_empty() {
            continue;
        }
        // An array of the lanes (the float one may be pruned once every lane is used
        // directly: the emitter's clean-ups forward the lanes of a just-built array).
        let array = format!(" %uint_{n}");
        assert!(dis.lines().any(|l| l.contains("OpTypeArray") && l.ends_with(&array)), "<{n}>: no array type\n{dis}");
        assert!(!dis.contains("OpVectorExtractDynamic") && !dis.contains("OpVectorShuffle"), "<{n}>");
        // `fmul` and `FMad`'s multiply, `FMax` and the conversions once per lane; the
        // dynamic lane through a Function variable.
        assert_eq!(dis.matches("OpFMul").count() as u32, 2 * n, "<{n}>");
        assert_eq!(dis.matches("OpConvertFToS").count() as u32, n, "<{n}>");
        assert_eq!(dis.matches("OpConvertSToF").count() as u32, n, "<{n}>");
        assert_eq!(dis.matches("OpSelect %float").count() as u32, n, "<{n}>");
        assert!(dis.contains("OpPhi %_arr_int_uint_") || dis.contains("OpPhi %_arr_uint_uint_"), "<{n}>: PHI");
        assert!(dis.contains("OpAccessChain %_ptr_Function_"), "<{n}>: dynamic lane");
    }
}

/// `FDot` on a long vector (an array of lanes, which `OpDot` does not take) is the lanes'
/// products summed; `Countbits`, `Bfrev` and `FirstbitHi` of vectors (short and long, 32-
/// and 64-bit lanes) work lane by lane, since Vulkan's bit instructions take 32-bit words
/// only. Each module validates, and the lane counts show in the emitted instructions.
#[test]
fn long_vector_dot_and_bit_operations_work_lane_by_lane() {
    let n = 8;
    let mut body = String::from("  %f = uitofp i32 %tid to float\n");
    body += &build("a", n, "float", "f");
    body += &format!("  %r = call float @dx.op.dot.v{n}f32(i32 311, <{n} x float> %a, <{n} x float> %a)\n");
    body += &store("f32", "r");
    let decls = format!("{STORE_F32}\ndeclare float @dx.op.dot.v{n}f32(i32, <{n} x float>, <{n} x float>)");
    let dis = translated(&shader(&body, &decls), "FDot <8 x float>");
    assert!(dis.is_empty() || (dis.matches("OpFMul").count() == n as usize && !dis.contains("OpDot")), "{dis}");
    for (n, elem, sfx) in [(3u32, "i32", "i32"), (8, "i32", "i32"), (5, "i64", "i64"), (2, "i16", "i16")] {
        for (opcode, name, ret) in [(31, "countBits", "i32"), (30, "bfrev", elem), (33, "firstbitHi", "i32")] {
            let mut body = String::from("  %s0 = add i32 %tid, 7\n");
            body += &match elem {
                "i32" => "  %s = add i32 %s0, 0\n".to_string(),
                "i64" => "  %s = zext i32 %s0 to i64\n".to_string(),
                _ => "  %s = trunc i32 %s0 to i16\n".to_string(),
            };
            body += &build("a", n, elem, "s");
            let rv = format!("<{n} x {ret}>");
            body += &format!("  %v = call {rv} @dx.op.{name}.v{n}{sfx}(i32 {opcode}, <{n} x {elem}> %a)\n");
            // Every lane reaches the store (lanes nobody reads are dead code).
            let mut acc = "0".to_string();
            for k in 0..n {
                body += &format!("  %e{k} = extractelement {rv} %v, i32 {k}\n");
                body += &match ret {
                    "i32" => format!("  %w{k} = add i32 %e{k}, 0\n"),
                    "i64" => format!("  %w{k} = trunc i64 %e{k} to i32\n"),
                    _ => format!("  %w{k} = zext i16 %e{k} to i32\n"),
                };
                body += &format!("  %acc{k} = add i32 {acc}, %w{k}\n");
                acc = format!("%acc{k}");
            }
            body += &format!("  %r = add i32 {acc}, 0\n");
            body += &store("i32", "r");
            let decls = format!("{STORE_I32}\ndeclare {rv} @dx.op.{name}.v{n}{sfx}(i32, <{n} x {elem}>)");
            let what = format!("{name} <{n} x {elem}>");
            let dis = translated(&shader(&body, &decls), &what);
            let inst = if opcode == 30 {
                "OpBitReverse"
            } else if opcode == 31 {
                "OpBitCount"
            } else {
                "FindUMsb"
            };
            let words = if elem == "i64" { 2 } else { 1 };
            assert!(dis.is_empty() || dis.matches(inst).count() == (n * words) as usize, "{what}:\n{dis}");
        }
    }
}

/// The shared corpus's DXC `.ll` tests with a vector longer than 4 or a raw-buffer vector
/// access: each translates to a module `spirv-val` accepts or is a typed error (printed
/// with `--nocapture`); at least [`MIN_LONG_VECTOR_FILES`] translate.
#[test]
fn corpus_long_vector_files() {
    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/ll/dxc-tests");
    let Ok(dir) = std::fs::read_dir(DIR) else {
        assert!(std::env::var_os("CI").is_none(), "{DIR} is required under CI");
        return;
    };
    let long = |text: &str| {
        text.contains("rawBufferVector")
            || text.split('<').skip(1).any(|s| {
                let mut it = s.splitn(2, " x ");
                let n = it.next().and_then(|n| n.parse::<u32>().ok());
                n.is_some_and(|n| n > 4) && it.next().is_some()
            })
    };
    let mut paths: Vec<_> =
        dir.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "ll")).collect();
    paths.sort();
    let mut translated = 0;
    for p in paths {
        let bytes = std::fs::read(&p).unwrap();
        if !long(&String::from_utf8_lossy(&bytes)) {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        match untangle::Shader::parse(&bytes).and_then(|s| s.translate(&Options::default())) {
            Ok(t) => {
                untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", &name);
                translated += 1;
                eprintln!("translates: {name}");
            }
            Err(e) => eprintln!("refused:    {name}: {}", e.to_string().lines().next().unwrap_or("")),
        }
    }
    assert!(translated >= MIN_LONG_VECTOR_FILES, "{translated} long-vector files translate");
}

const MIN_LONG_VECTOR_FILES: usize = 1;
