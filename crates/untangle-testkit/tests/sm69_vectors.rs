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
