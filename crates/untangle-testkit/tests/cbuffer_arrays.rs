//! Local arrays copied from constant-buffer words (`untangle::rewrite::cbuffer_array`): a
//! dynamically indexed `alloca [N x float]` whose elements are stored from one constant
//! buffer at words `base + k·stride` is read from the constant buffer (no `Function`
//! variable, a `Uniform` access chain to a 32-bit word with a dynamic index), in every address shape (within one
//! row, whole rows, across rows, `cbufferLoad` sources, lifetime markers); the variants that
//! must stay memory (a store after a load, a store of another value, words that are not
//! evenly spaced, two constant buffers, a whole-array read, an element left unwritten)
//! keep their variable. Every module must validate. Their results on a device:
//! `device::copied_elements_read_the_words_they_were_copied_from`; the corpus shader that
//! showed the pattern is checked too.

use rspirv::dr::Operand;
use rspirv::spirv::{Op, StorageClass};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

/// A compute shader: stores element `k` of `[n x float] %arr` from the value `store(k)`
/// names (lines of its own first; no store for an empty name), runs `extra` after the stores, then loads element
/// `%tid % n` and writes it to `out`.
pub fn shader(n: u32, store: &dyn Fn(u32) -> (String, String), extra: &str) -> String {
    let mut body = String::new();
    body.push_str("  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)\n");
    body.push_str(&format!("  %arr = alloca [{n} x float], align 4\n"));
    for k in 0..n {
        let (lines, value) = store(k);
        body.push_str(&lines);
        if value.is_empty() {
            continue;
        }
        body.push_str(&format!(
            "  %p{k} = getelementptr inbounds [{n} x float], [{n} x float]* %arr, i32 0, i32 {k}\n  store float {value}, float* %p{k}, align 4\n"
        ));
    }
    body.push_str(&format!(
        "  %idx = urem i32 %tid, {n}\n  %pl = getelementptr inbounds [{n} x float], [{n} x float]* %arr, i32 0, i32 %idx\n  %x = load float, float* %pl, align 4\n"
    ));
    body.push_str(extra);
    body.push_str(
        "  %xi = bitcast float %x to i32\n  %a = shl i32 %tid, 2\n  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 %a, i32 undef, i32 %xi, i32 %xi, i32 %xi, i32 %xi, i8 1)\n  ret void",
    );
    let decls = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32, %dx.types.Handle, i32)
declare float @dx.op.cbufferLoad.f32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare void @llvm.lifetime.start(i64, i8*)
declare void @llvm.lifetime.end(i64, i8*)";
    let mut shell = Shell::new("cs");
    shell.threads = [16, 1, 1];
    shell.resources = vec![
        Res::new("cb", untangle::dxil::ResourceClass::Cbv, untangle::dxil::ResourceKind::CBuffer, 0).extra(256),
        Res::new("cb2", untangle::dxil::ResourceClass::Cbv, untangle::dxil::ResourceKind::CBuffer, 1).extra(256),
    ];
    shell.module(&body, decls)
}

/// Element `k` from word `word(k)` of `%cb`, through `cbufferLoadLegacy` and `extractvalue`.
pub fn legacy(word: impl Fn(u32) -> u32) -> impl Fn(u32) -> (String, String) {
    move |k| {
        let w = word(k);
        (
            format!(
                "  %r{k} = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %cb, i32 {})\n  %v{k} = extractvalue %dx.types.CBufRet.f32 %r{k}, {}\n",
                w / 4,
                w % 4
            ),
            format!("%v{k}"),
        )
    }
}

/// An address shape: name, elements, the word of element k.
pub type ArrayShape = (&'static str, u32, fn(u32) -> u32);

/// The address shapes that are read from the constant buffer.
pub const SHAPES: &[ArrayShape] = &[
    ("one row", 4, |k| 4 + k),
    ("one row, offset", 2, |k| 9 + k),
    ("whole rows", 5, |k| 8 + 4 * k + 1),
    ("across rows", 6, |k| 14 + k),
    ("stride 2", 5, |k| 3 + 2 * k),
    ("one element", 1, |_| 7),
];

struct Shape {
    function_vars: usize,
    /// Access chains to a 32-bit word of a `Uniform` block with a dynamic index.
    uniform_word_chains: usize,
}

fn translate(text: &str, what: &str) -> Shape {
    let t = untangle::translate(text.as_bytes(), &Options::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
    let m = rspirv::dr::load_words(&t.words).expect("parse");
    let uint: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        })
        .filter_map(|i| i.result_id)
        .collect();
    let uniform_uint: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypePointer
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Uniform))
                && matches!(i.operands.get(1), Some(Operand::IdRef(t)) if uint.contains(t))
        })
        .filter_map(|i| i.result_id)
        .collect();
    let constants: Vec<u32> =
        m.types_global_values.iter().filter(|i| i.class.opcode == Op::Constant).filter_map(|i| i.result_id).collect();
    let insts = || m.functions.iter().flat_map(|f| f.blocks.iter()).flat_map(|b| b.instructions.iter());
    let function_vars = insts()
        .filter(|i| {
            i.class.opcode == Op::Variable && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Function))
        })
        .count();
    let uniform_word_chains = insts()
        .filter(|i| i.class.opcode == Op::AccessChain && i.result_type.is_some_and(|t| uniform_uint.contains(&t)))
        .filter(|i| i.operands[1..].iter().any(|o| matches!(o, Operand::IdRef(x) if !constants.contains(x))))
        .count();
    Shape { function_vars, uniform_word_chains }
}

#[test]
fn copies_of_constant_buffer_words_are_read_from_the_constant_buffer() {
    for &(name, n, word) in SHAPES {
        let s = translate(&shader(n, &legacy(word), ""), name);
        assert_eq!(s.function_vars, 0, "{name}: a Function variable is left");
        assert_eq!(s.uniform_word_chains, 1, "{name}: one access chain to a constant-buffer word");
    }
}

#[test]
fn cbuffer_load_sources_and_lifetime_markers_are_accepted() {
    // `cbufferLoad` at byte offsets 16·k + 4 (stride: one row).
    let scalar = |k: u32| {
        (
            format!(
                "  %v{k} = call float @dx.op.cbufferLoad.f32(i32 58, %dx.types.Handle %cb, i32 {}, i32 4)\n",
                16 * k + 4
            ),
            format!("%v{k}"),
        )
    };
    let s = translate(&shader(3, &scalar, ""), "cbufferLoad");
    assert_eq!((s.function_vars, s.uniform_word_chains), (0, 1), "cbufferLoad");
    let marked = |k: u32| {
        let (mut lines, v) = legacy(|k| k)(k);
        if k == 0 {
            lines.insert_str(
                0,
                "  %raw = bitcast [4 x float]* %arr to i8*\n  call void @llvm.lifetime.start(i64 16, i8* %raw)\n",
            );
        }
        (lines, v)
    };
    let s = translate(&shader(4, &marked, "  call void @llvm.lifetime.end(i64 16, i8* %raw)\n"), "lifetime");
    assert_eq!((s.function_vars, s.uniform_word_chains), (0, 1), "lifetime markers");
}

#[test]
fn arrays_that_are_not_plain_copies_stay_memory() {
    let one_row = legacy(|k| 4 + k);
    let other_value = |k: u32| if k == 2 { (String::new(), "1.000000e+00".to_string()) } else { one_row(k) };
    let uneven = legacy(|k| [4, 5, 7, 8][k as usize]);
    let other_buffer = |k: u32| {
        let (lines, v) = one_row(k);
        (if k == 3 { lines.replace("%cb,", "%cb2,") } else { lines }, v)
    };
    let unwritten = |k: u32| if k == 1 { (String::new(), String::new()) } else { one_row(k) };
    let variants: Vec<(&str, String)> = vec![
        (
            "a store after the load",
            shader(4, &one_row, "  store float %v0, float* %p0, align 4\n  %x2 = load float, float* %pl, align 4\n"),
        ),
        ("a store of another value", shader(4, &other_value, "")),
        ("words not evenly spaced", shader(4, &uneven, "")),
        ("two constant buffers", shader(4, &other_buffer, "")),
        (
            "a whole-array read",
            shader(
                4,
                &one_row,
                "  %all = load [4 x float], [4 x float]* %arr, align 4\n  %e0 = extractvalue [4 x float] %all, 0\n",
            ),
        ),
        ("an element never written", shader(4, &unwritten, "")),
    ];
    for (what, text) in variants {
        let s = translate(&text, what);
        assert_eq!(s.function_vars, 1, "{what}: the array must stay a Function variable");
        assert_eq!(s.uniform_word_chains, 0, "{what}: no constant-buffer word read");
    }
}

/// The vkd3d-proton shader whose module showed the pattern (a constant-buffer row copied
/// into `float[4]` and indexed by the pixel's quad position): no `Function` variable left.
#[test]
fn derivative_hoisting_shader_reads_its_array_from_the_constant_buffer() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/dxil/vkd3d-proton/shaders.ps_derivative_hoisting.ps_6_0.dxil"
    );
    let Ok(bytes) = std::fs::read(path) else {
        assert!(std::env::var_os("CI").is_none(), "corpus missing: {path}");
        println!("skipped: no corpus at {path}");
        return;
    };
    let t = untangle::translate(&bytes, &Options::default()).expect("translate");
    let m = rspirv::dr::load_words(&t.words).expect("parse");
    let vars = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::Variable)
        .count();
    assert_eq!(vars, 0, "the float[4] copy of the constant buffer row is still a Function variable");
}

#[cfg(feature = "vulkan")]
mod device {
    use super::*;
    use std::time::Duration;
    use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

    /// Each shape on a device: invocation `t` (of 16) reads element `t % n`, which must be
    /// the constant-buffer word it was copied from.
    #[test]
    fn copied_elements_read_the_words_they_were_copied_from() {
        let Some(mut gpu) = open_or_skip("copied_elements_read_the_words_they_were_copied_from") else { return };
        // Distinct normal floats: word k holds k + 1.
        let words: Vec<u32> = (0..64u32).map(|k| (k as f32 + 1.0).to_bits()).collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for &(name, n, word) in SHAPES {
            let text = shader(n, &legacy(word), "");
            let t = untangle::translate(text.as_bytes(), &Options::default()).expect("translates");
            let place = |name: &str| {
                let r = t.bindings.iter().find(|r| r.name == name).expect("bound");
                (r.set, r.binding)
            };
            let (os, ob) = place("out");
            let (cs, cb) = place("cb");
            let d = Dispatch {
                spirv: &t.words,
                entry: &t.entry_point,
                bindings: vec![
                    Binding::new(os, ob, Resource::words(&[0u32; 16])),
                    Binding::new(cs, cb, Resource::UniformBuffer(bytes.clone())),
                ],
                groups: [1, 1, 1],
                timeout: Duration::from_secs(60),
                ..Default::default()
            };
            let out = gpu.dispatch(&d).expect("dispatches").words(0).expect("out");
            let want: Vec<u32> = (0..16u32).map(|t| words[word(t % n) as usize]).collect();
            assert_eq!(&out[..16], &want[..], "{name}");
        }
    }
}
