//! Stream output (`Options::stream_output`) lowered to transform feedback: every vertex,
//! domain and geometry shader of the vkd3d-proton corpus with descriptions derived from its
//! output signature (all elements, partial components, two buffers with duplicates, gaps)
//! passes spirv-val, and the captured bytes of each buffer are exactly the ones the
//! declarations name; a geometry shader writing two streams captures each stream's
//! elements with their `Stream`, copied before each emit; one case's decorations are
//! snapshotted; bad declarations are typed errors naming them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use untangle::{
    Error, Options, Shader, StreamOutput, StreamOutputDeclaration as Decl, StreamOutputError, TranslateError,
};
use untangle_testkit::check::spirv_val::find_spirv_val;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// The shaders that can be a pipeline's last pre-rasterization stage.
fn last_stage_shaders() -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(SHARED) else { return Vec::new() };
    let mut v: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                (n.contains(".vs_") || n.contains(".ds_") || n.contains(".gs_")) && n.ends_with(".dxil")
            })
        })
        .collect();
    v.sort();
    v
}

fn shared(name: &str) -> Option<Shader> {
    let p = Path::new(SHARED).join(name);
    if !p.exists() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing under CI", p.display());
        eprintln!("{} not found: skipping", p.display());
        return None;
    }
    Some(Shader::parse(&std::fs::read(p).unwrap()).unwrap())
}

/// The rows of every output element of stream 0: (semantic, semantic index, columns).
fn output_rows(shader: &Shader) -> Vec<(String, u32, u32)> {
    let mut rows = Vec::new();
    for e in shader.signatures().unwrap().outputs.iter().filter(|e| e.output_stream.unwrap_or(0) == 0) {
        let indices = if e.semantic_indices.is_empty() { vec![0] } else { e.semantic_indices.clone() };
        for k in indices {
            rows.push((e.semantic.clone(), k, e.cols.max(1)));
        }
    }
    rows
}

/// Strides covering each slot's declarations, plus `pad` bytes.
fn with_strides(declarations: Vec<Decl>, pad: u32) -> StreamOutput {
    let mut strides = vec![0u32; 4];
    for d in &declarations {
        strides[d.output_slot as usize] += 4 * d.component_count;
    }
    let used = strides.iter().rposition(|&s| s > 0).map_or(0, |k| k + 1);
    strides.truncate(used);
    for s in &mut strides {
        *s += pad;
    }
    StreamOutput { declarations, buffer_strides: strides, rasterized_stream: Some(0) }
}

/// The descriptions a vertex shader is tried with, by name.
fn descriptions(shader: &Shader) -> Vec<(&'static str, StreamOutput)> {
    let rows = output_rows(shader);
    let all: Vec<Decl> = rows.iter().map(|(s, k, cols)| Decl::new(s, *k, 0, *cols, 0)).collect();
    let partial: Vec<Decl> = rows
        .iter()
        .map(|(s, k, cols)| if *cols > 1 { Decl::new(s, *k, 1, cols - 1, 0) } else { Decl::new(s, *k, 0, 1, 0) })
        .collect();
    // Rows alternate between slots 0 and 1; wide rows are cut across both; the first row
    // also goes whole to the other slot (one element, two buffers).
    let mut two = Vec::new();
    for (n, (s, k, cols)) in rows.iter().enumerate() {
        let slot = (n % 2) as u32;
        if *cols >= 2 {
            two.push(Decl::new(s, *k, 0, cols / 2, slot));
            two.push(Decl::new(s, *k, cols / 2, cols - cols / 2, 1 - slot));
        } else {
            two.push(Decl::new(s, *k, 0, *cols, slot));
        }
    }
    if let Some((s, k, cols)) = rows.first() {
        two.push(Decl::new(s, *k, 0, *cols, 1));
    }
    // A gap before each row and after the last.
    let mut gaps = Vec::new();
    for (n, (s, k, cols)) in rows.iter().enumerate() {
        gaps.push(Decl::gap(1 + (n as u32 % 3), 0));
        gaps.push(Decl::new(s, *k, 0, *cols, 0));
    }
    gaps.push(Decl::gap(2, 0));
    vec![
        ("all", with_strides(all, 0)),
        ("partial", with_strides(partial, 0)),
        ("two buffers", with_strides(two, 8)),
        ("gaps", with_strides(gaps, 4)),
    ]
}

/// The dwords each declaration should capture: (buffer, dword) → (semantic, index, component).
fn expected_dwords(so: &StreamOutput) -> BTreeMap<(u32, u32), (String, u32, u32)> {
    let mut at = [0u32; 4];
    let mut out = BTreeMap::new();
    for d in &so.declarations {
        let slot = d.output_slot as usize;
        if let Some(s) = &d.semantic {
            for c in 0..d.component_count {
                out.insert((d.output_slot, at[slot] + c), (s.clone(), d.semantic_index, d.start_component + c));
            }
        }
        at[slot] += d.component_count;
    }
    out
}

/// What a module captures: (buffer, dword) → how many variables write it; and each
/// buffer's stride.
fn captured_dwords(words: &[u32]) -> (BTreeMap<(u32, u32), u32>, BTreeMap<u32, u32>) {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Decoration, Op};
    let m = rspirv::dr::load_words(words).unwrap();
    let mut deco: BTreeMap<u32, BTreeMap<Decoration, u32>> = BTreeMap::new();
    for d in &m.annotations {
        if let (Some(Operand::IdRef(t)), Some(Operand::Decoration(k)), Some(Operand::LiteralBit32(v))) =
            (d.operands.first(), d.operands.get(1), d.operands.get(2))
        {
            deco.entry(*t).or_default().insert(*k, *v);
        }
    }
    // Component counts of pointer types' pointees (scalars and vectors of 32-bit values).
    let mut comps: BTreeMap<u32, u32> = BTreeMap::new();
    let mut pointee: BTreeMap<u32, u32> = BTreeMap::new();
    for t in &m.types_global_values {
        let Some(id) = t.result_id else { continue };
        match t.class.opcode {
            Op::TypeFloat | Op::TypeInt => {
                comps.insert(id, 1);
            }
            Op::TypeVector => {
                if let Some(Operand::LiteralBit32(n)) = t.operands.get(1) {
                    comps.insert(id, *n);
                }
            }
            Op::TypePointer => {
                if let Some(Operand::IdRef(p)) = t.operands.get(1) {
                    pointee.insert(id, *p);
                }
            }
            _ => {}
        }
    }
    let mut dwords = BTreeMap::new();
    let mut strides = BTreeMap::new();
    for t in &m.types_global_values {
        if t.class.opcode != Op::Variable {
            continue;
        }
        let (Some(id), Some(ty)) = (t.result_id, t.result_type) else { continue };
        let Some(d) = deco.get(&id) else { continue };
        let Some(&offset) = d.get(&Decoration::Offset) else { continue };
        let buffer = d[&Decoration::XfbBuffer];
        let stride = d[&Decoration::XfbStride];
        assert_eq!(*strides.entry(buffer).or_insert(stride), stride, "buffer {buffer}: two strides");
        assert_eq!(offset % 4, 0);
        let n = comps.get(&pointee[&ty]).copied().unwrap_or_else(|| panic!("captured variable %{id}: not a vector"));
        assert!(offset + 4 * n <= stride, "%{id}: offset {offset} + {n} components past stride {stride}");
        for c in 0..n {
            *dwords.entry((buffer, offset / 4 + c)).or_insert(0) += 1;
        }
    }
    (dwords, strides)
}

fn translate_so(shader: &Shader, so: &StreamOutput) -> Result<Vec<u32>, Error> {
    Ok(shader.translate(&Options { stream_output: Some(so.clone()), ..Options::default() })?.words)
}

#[test]
fn corpus_last_stage_shaders_capture_what_they_declare() {
    let files = last_stage_shaders();
    if files.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "the shared corpus is missing under CI");
        eprintln!("{SHARED} not found: skipping");
        return;
    }
    let val = find_spirv_val();
    assert!(val.is_some() || std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    let mut checked = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        let shader = Shader::parse(&std::fs::read(path).unwrap()).unwrap();
        for (case, so) in descriptions(&shader) {
            let words = translate_so(&shader, &so).unwrap_or_else(|e| panic!("{name} ({case}): {e}"));
            if let Some(v) = &val {
                if let Err(e) = v.validate(&words, "vulkan1.3") {
                    panic!("{name} ({case}): spirv-val: {e}\n{}", v.disassemble(&words).unwrap_or_default());
                }
            }
            let (dwords, strides) = captured_dwords(&words);
            let expected = expected_dwords(&so);
            assert_eq!(
                dwords.keys().collect::<Vec<_>>(),
                expected.keys().collect::<Vec<_>>(),
                "{name} ({case}): captured dwords"
            );
            assert!(dwords.values().all(|&n| n == 1), "{name} ({case}): a dword captured twice");
            for (b, s) in strides {
                assert_eq!(s, so.buffer_strides[b as usize], "{name} ({case}): stride of buffer {b}");
            }
            // Deterministic.
            assert_eq!(translate_so(&shader, &so).unwrap(), words, "{name} ({case})");
            checked += 1;
        }
    }
    assert!(checked >= 4 * (24 + 11 + 9), "only {checked} cases ran");
}

/// `pso.vs_mismatch`: SV_Position, ARG0 (float3), ARG1 (float2), ARG2 (uint4).
fn mixed_description() -> StreamOutput {
    StreamOutput {
        declarations: vec![
            Decl::new("SV_Position", 0, 0, 4, 0), // whole built-in: in place
            Decl::new("arg", 0, 1, 2, 0),         // ARG0.yz: split (names compare case-insensitively)
            Decl::gap(1, 0),
            Decl::new("ARG", 2, 0, 2, 0),         // ARG2.xy to slot 0 ...
            Decl::new("ARG", 2, 2, 2, 1),         // ... and .zw to slot 1
            Decl::new("ARG", 0, 0, 3, 1),         // ARG0 whole again: .yz are a duplicate
            Decl::new("SV_Position", 0, 0, 2, 1), // part of a built-in: an extra
        ],
        buffer_strides: vec![36, 32],
        rasterized_stream: Some(0),
    }
}

#[test]
fn decorations_snapshot() {
    let Some(shader) = shared("pso.vs_mismatch.vs_6_0.dxil") else { return };
    let so = mixed_description();
    let words = translate_so(&shader, &so).unwrap();
    let (dwords, _) = captured_dwords(&words);
    assert_eq!(dwords.keys().collect::<Vec<_>>(), expected_dwords(&so).keys().collect::<Vec<_>>());
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return;
    };
    val.validate(&words, "vulkan1.3").unwrap();
    if val.dis.is_none() {
        eprintln!("spirv-dis not found: skipping the snapshot");
        return;
    }
    let text = val.disassemble(&words).unwrap();
    let wanted = ["OpCapability", "OpExecutionMode", "OpDecorate", "OpEntryPoint"];
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| wanted.iter().any(|w| l.trim_start().starts_with(w) || l.contains(&format!("= {w}"))))
        .collect();
    let vars: Vec<&str> = text.lines().filter(|l| l.contains("OpVariable") && !l.contains("Function")).collect();
    insta::assert_snapshot!("stream_output_vs_mismatch", format!("{}\n\n{}", lines.join("\n"), vars.join("\n")));
}

fn so_error(shader: &Shader, so: StreamOutput) -> StreamOutputError {
    match shader.translate(&Options { stream_output: Some(so), ..Options::default() }) {
        Err(Error::Translate(TranslateError::StreamOutput(e))) => e,
        other => panic!("expected a stream-output error, got {:?}", other.map(|t| t.words.len())),
    }
}

#[test]
fn bad_declarations_are_typed_errors_naming_them() {
    let Some(vs) = shared("pso.vs_mismatch.vs_6_0.dxil") else { return };
    let one = |d: Decl, strides: Vec<u32>| StreamOutput {
        declarations: vec![Decl::new("SV_Position", 0, 0, 4, 0), d],
        buffer_strides: strides,
        rasterized_stream: Some(0),
    };
    let e = so_error(&vs, one(Decl::new("TEXCOORD", 0, 0, 4, 0), vec![32]));
    assert!(
        matches!(&e, StreamOutputError::UnknownSemantic { declaration: 1, name, stream: 0 } if name == "TEXCOORD0"),
        "{e:?}"
    );
    assert!(e.to_string().contains("declaration 1 (TEXCOORD0)"), "{e}");
    // ARG1 is a float2.
    let e = so_error(&vs, one(Decl::new("ARG", 1, 1, 2, 0), vec![32]));
    assert!(matches!(e, StreamOutputError::OutsideElement { declaration: 1, cols: 2, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 3, 2, 0), vec![32]));
    assert!(matches!(e, StreamOutputError::Components { declaration: 1, start: 3, count: 2, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 0, 0), vec![32]));
    assert!(matches!(e, StreamOutputError::Components { declaration: 1, count: 0, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::gap(0, 0), vec![32]));
    assert!(matches!(&e, StreamOutputError::Components { declaration: 1, name, .. } if name == "gap"), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 4), vec![32]));
    assert!(matches!(e, StreamOutputError::Slot { declaration: 1, slot: 4, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 0).on_stream(4), vec![32]));
    assert!(matches!(e, StreamOutputError::Stream { declaration: 1, stream: 4, .. }), "{e:?}");
    // A vertex shader writes stream 0 only.
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 1).on_stream(1), vec![32, 32]));
    assert!(matches!(e, StreamOutputError::UnknownSemantic { declaration: 1, stream: 1, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 0).on_stream(1), vec![32]));
    assert!(matches!(e, StreamOutputError::SlotStreams { declaration: 1, slot: 0, other: 0, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 1), vec![32]));
    assert!(matches!(e, StreamOutputError::MissingStride { declaration: 1, slot: 1, given: 1, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 0), vec![20]));
    assert!(matches!(e, StreamOutputError::StrideTooSmall { declaration: 1, end: 24, stride: 20, .. }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 0), vec![30]));
    assert!(matches!(e, StreamOutputError::BadStride { slot: 0, stride: 30 }), "{e:?}");
    let e = so_error(&vs, one(Decl::new("ARG", 1, 0, 2, 0), vec![4096]));
    assert!(matches!(e, StreamOutputError::BadStride { slot: 0, stride: 4096 }), "{e:?}");
    let e = so_error(&vs, StreamOutput { rasterized_stream: Some(1), ..one(Decl::gap(1, 0), vec![32]) });
    assert!(matches!(e, StreamOutputError::RasterizedStream { stream: 1, .. }), "{e:?}");
    let e = so_error(&vs, StreamOutput { rasterized_stream: Some(7), ..one(Decl::gap(1, 0), vec![32]) });
    assert!(matches!(e, StreamOutputError::RasterizedStream { stream: 7, .. }), "{e:?}");
    let e = so_error(&vs, StreamOutput::default());
    assert_eq!(e, StreamOutputError::NoDeclarations);
    // No rasterized stream is fine.
    let ok = StreamOutput { rasterized_stream: None, ..one(Decl::new("ARG", 1, 0, 2, 0), vec![24]) };
    assert!(ok.validate().is_ok());
    translate_so(&vs, &ok).unwrap();

    // Stream output is for pre-rasterization stages.
    let ps =
        Shader::parse(&std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/ps_textured.ll")).unwrap());
    if let Ok(ps) = ps {
        let e = so_error(&ps, one(Decl::gap(1, 0), vec![32]));
        assert!(matches!(&e, StreamOutputError::Stage { stage } if stage == "pixel"), "{e:?}");
    }
}

#[test]
fn multi_row_elements_and_builtins() {
    // FROG is a float4[4] (semantic indices 0-3): capture rows 3 and 1, in that order, in part.
    if let Some(vs) = shared("tessellation.dcl_index_range_vs_complex.vs_6_0.dxil") {
        let so = StreamOutput {
            declarations: vec![
                Decl::new("FROG", 3, 1, 3, 0),
                Decl::new("FROG", 1, 0, 1, 0),
                Decl::new("PRIM", 0, 0, 1, 1),
            ],
            buffer_strides: vec![16, 4],
            rasterized_stream: None,
        };
        let words = translate_so(&vs, &so).unwrap();
        if let Some(v) = find_spirv_val() {
            v.validate(&words, "vulkan1.3").unwrap();
        }
        assert_eq!(
            captured_dwords(&words).0.keys().collect::<Vec<_>>(),
            expected_dwords(&so).keys().collect::<Vec<_>>()
        );
        let e = so_error(&vs, StreamOutput { declarations: vec![Decl::new("FROG", 4, 0, 4, 0)], ..so.clone() });
        assert!(matches!(e, StreamOutputError::UnknownSemantic { declaration: 0, .. }), "{e:?}");
    }
    // Layer and viewport index are built-ins; captured whole they are decorated in place.
    if let Some(vs) = shared("pso.vs_multiview_export_layer_viewport.vs_6_1.dxil") {
        let so = StreamOutput {
            declarations: vec![
                Decl::new("SV_RenderTargetArrayIndex", 0, 0, 1, 0),
                Decl::new("SV_ViewportArrayIndex", 0, 0, 1, 0),
                Decl::new("SV_Position", 0, 2, 2, 0),
            ],
            buffer_strides: vec![16],
            rasterized_stream: Some(0),
        };
        let words = translate_so(&vs, &so).unwrap();
        if let Some(v) = find_spirv_val() {
            v.validate(&words, "vulkan1.3").unwrap();
        }
        assert_eq!(
            captured_dwords(&words).0.keys().collect::<Vec<_>>(),
            expected_dwords(&so).keys().collect::<Vec<_>>()
        );
    }
}

/// The hand-written geometry shader (`corpus/pipeline/gs.ll`) writes two streams: stream 0
/// (SV_Position, NORMAL, SV_RenderTargetArrayIndex) in a loop of three emits, stream 1
/// (DATA) once. Each capture carries its element's stream; split pieces and extras are
/// written before each emit of their stream, not at the return.
#[test]
fn geometry_streams_capture_before_each_emit() {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Decoration, Op};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/pipeline/gs.ll");
    let gs = Shader::parse(&std::fs::read(path).unwrap()).unwrap();
    let so = StreamOutput {
        declarations: vec![
            Decl::new("SV_Position", 0, 0, 4, 0),       // whole built-in
            Decl::new("NORMAL", 0, 1, 2, 0),            // .yz: split
            Decl::new("DATA", 0, 0, 4, 1).on_stream(1), // whole varying on stream 1
            Decl::new("DATA", 0, 0, 1, 2).on_stream(1), // .x again: an extra
            Decl::new("SV_Position", 0, 3, 1, 3),       // part of a built-in: an extra
        ],
        buffer_strides: vec![24, 16, 4, 4],
        rasterized_stream: Some(0),
    };
    let words = translate_so(&gs, &so).unwrap();
    if let Some(v) = find_spirv_val() {
        if let Err(e) = v.validate(&words, "vulkan1.3") {
            panic!("{e}\n{}", v.disassemble(&words).unwrap_or_default());
        }
    }
    assert_eq!(captured_dwords(&words).0.keys().collect::<Vec<_>>(), expected_dwords(&so).keys().collect::<Vec<_>>());
    let m = rspirv::dr::load_words(&words).unwrap();
    let mut deco: BTreeMap<u32, BTreeMap<Decoration, u32>> = BTreeMap::new();
    for d in &m.annotations {
        if let (Some(Operand::IdRef(t)), Some(Operand::Decoration(k)), Some(Operand::LiteralBit32(v))) =
            (d.operands.first(), d.operands.get(1), d.operands.get(2))
        {
            deco.entry(*t).or_default().insert(*k, *v);
        }
    }
    // Buffers 1 and 2 receive stream 1: their variables are decorated Stream 1; the
    // variables of buffers 0 and 3 are on stream 0.
    let mut copies = BTreeMap::new();
    for (var, d) in &deco {
        if let Some(&buffer) = d.get(&Decoration::XfbBuffer) {
            let stream = d.get(&Decoration::Stream).copied().unwrap_or(0);
            assert_eq!(stream, u32::from(buffer == 1 || buffer == 2), "%{var} in buffer {buffer}");
            copies.insert(*var, buffer);
        }
    }
    // Copies (stores to captured variables the shader does not write itself: split pieces
    // and extras) sit before emits, in the same block, and none before the return.
    let f = m
        .functions
        .iter()
        .find(|f| f.blocks.iter().any(|b| b.instructions.iter().any(|i| i.class.opcode == Op::EmitStreamVertex)))
        .unwrap();
    let mut copied_before_emit = 0;
    for b in &f.blocks {
        let mut pending = 0;
        for i in &b.instructions {
            match i.class.opcode {
                Op::Store => {
                    if let Some(Operand::IdRef(p)) = i.operands.first() {
                        if copies.contains_key(p) {
                            pending += 1;
                        }
                    }
                }
                Op::EmitStreamVertex => {
                    copied_before_emit += pending;
                    pending = 0;
                }
                _ => {}
            }
        }
        assert_eq!(pending, 0, "captured copies after the last emit of a block");
    }
    // Stream 0's emit copies NORMAL's .x, .yz pieces and the Position extra; stream 1's the
    // DATA extra.
    assert!(copied_before_emit >= 3, "{copied_before_emit} copies before emits");
}
