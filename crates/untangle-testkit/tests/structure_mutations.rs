//! Structure-aware mutants never panic the translator and never become invalid modules
//! (issue 33): IR mutants of corpus shaders through the LLVM text route and record mutants
//! through the bitcode route (see `untangle_testkit::fuzzing::structure`), every module
//! checked by `spirv-val --target-env vulkan1.3`. `UNTANGLE_STRUCTURE_MUTATIONS` sets the
//! number of cases (default 10,000); `examples/structure_mutations.rs` is the long run.

use std::path::Path;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::fuzzing::structure::{run_case, Route, Seeds, Validator};
use untangle_testkit::fuzzing::translate::Tally;

#[test]
fn structure_mutants_translate_to_valid_modules_or_typed_errors() {
    let count: u64 = std::env::var("UNTANGLE_STRUCTURE_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let seeds = Seeds::load(&corpus.join("dxil/vkd3d-proton"), &corpus.join("ll/dxc-tests"));
    if seeds.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", corpus.display());
        eprintln!("{} not found: skipping", corpus.display());
        return;
    }
    let val = find_spirv_val();
    if val.is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    }
    let mut val = Validator::new(val);
    let mut tallies = [Tally::default(), Tally::default()];
    for i in 0..count {
        let (route, outcome, took) = run_case(&seeds, 0, i, &mut val);
        tallies[usize::from(route == Route::Bitcode)].add(i, outcome, took);
    }
    for (route, t) in ["text", "bitcode"].iter().zip(&tallies) {
        eprintln!(
            "{route} route: {} mutants, {} rejected by the readers, {} typed translation errors {:?}, {} valid modules; slowest case {} ({:?})",
            t.cases,
            t.rejected,
            t.refused_total(),
            t.refused,
            t.valid,
            t.slowest.0,
            t.slowest.1
        );
        assert!(t.panics.is_empty(), "{route}: panics: {:?}", t.panics);
        assert!(t.invalid.is_empty(), "{route}: invalid modules (case, spirv-val):\n{:#?}", t.invalid);
        assert!(t.internal.is_empty(), "{route}: internal errors (case, message):\n{:#?}", t.internal);
        // The mutants must reach the translator: some translate, some are refused there.
        assert!(t.valid > t.cases / 10, "{route}: too few mutants translate");
        assert!(t.rejected + t.refused_total() > t.cases / 20, "{route}: the mutations must break things");
    }
    eprintln!("{} distinct modules validated", val.distinct());
}

/// The bitstream codec writes back what it reads: every corpus container's bitcode, read,
/// written unabbreviated and read again, gives the same records, and the rewritten
/// container translates to the same words.
#[test]
fn bitstream_round_trips_and_translates_alike() {
    use untangle_testkit::fuzzing::bitstream;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let corpus = untangle_testkit::fuzzing::translate::Seeds::load(&dir);
    let mut checked = 0;
    for (name, bytes) in corpus.names.iter().zip(&corpus.bytes).take(40) {
        let bc = untangle::front::bitcode_of(bytes).unwrap().unwrap();
        let blocks = bitstream::read(bc).unwrap_or_else(|| panic!("{name}: reads"));
        let written = bitstream::write(&blocks).unwrap();
        assert_eq!(bitstream::read(&written).as_ref(), Some(&blocks), "{name}");
        let again = bitstream::replace_program(bytes, &written).unwrap();
        let (a, b) =
            (untangle::translate(bytes, &Default::default()), untangle::translate(&again, &Default::default()));
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.words, b.words, "{name}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{name}: {:?} / {:?}", a.map(|_| ()), b.map(|_| ())),
        }
        checked += 1;
    }
    if corpus.names.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", dir.display());
    }
    eprintln!("{checked} containers round-trip");
}

/// Translates `body` (a compute shader's entry block, with `%out` and the raw-buffer store
/// declared) and asserts a typed error or a module `spirv-val` accepts; the module's words.
fn valid_or_typed(what: &str, body: &str) -> Option<Vec<u32>> {
    valid_or_typed_with(what, body, "")
}

/// [`valid_or_typed`] with `extra` (type definitions, declarations) after the declarations.
fn valid_or_typed_with(what: &str, body: &str, extra: &str) -> Option<Vec<u32>> {
    let decls =
        "declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)\n\
                 declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)\n\
                 declare i32 @dx.op.threadId.i32(i32, i32)\n";
    let text = untangle_testkit::dxil_ops::shell::Shell::new("cs").module(body, &format!("{decls}{extra}"));
    match untangle::translate(text.as_bytes(), &untangle::Options::default()) {
        Ok(t) => {
            untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", what);
            Some(t.words)
        }
        Err(e @ untangle::Error::Translate(untangle::TranslateError::Internal(_))) => panic!("{what}: {e}"),
        Err(e) => {
            eprintln!("{what}: typed error: {e}");
            None
        }
    }
}

/// Case 5257 of run 0 (bitcode route): a `getelementptr` index of type `i1`. LLVM
/// sign-extends it (true is -1); SPIR-V's `OpAccessChain` takes no bool, so the index
/// becomes the integer 0 or -1 (`spirv-val`: "Indexes passed to OpAccessChain must be of
/// type integer").
#[test]
fn boolean_gep_indices_become_integers() {
    let body = r#"  %a = alloca [4 x i32], align 4
  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %c = icmp eq i32 %t, 0
  %p = getelementptr inbounds [4 x i32], [4 x i32]* %a, i32 0, i1 %c
  store i32 1, i32* %p, align 4
  %q = getelementptr inbounds [4 x i32], [4 x i32]* %a, i32 0, i1 false
  %x = load i32, i32* %q, align 4
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %x, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    assert!(valid_or_typed("i1 GEP index", body).is_some(), "an i1 index translates");
}

/// Cases 14673 and 16778 of run 5: vectors of 4096 and 5 elements (a type-table length, a
/// ray-tracing attribute struct's `<5 x float>`). Vulkan's SPIR-V vectors have 2 to 4
/// components (`spirv-val`: "Illegal number of components"): a typed error, as for `<1 x T>`.
#[test]
fn vectors_of_other_widths_are_typed_errors() {
    for n in [5, 1, 4096] {
        let body = format!(
            r#"  %v = insertelement <{n} x i32> undef, i32 7, i32 0
  %x = extractelement <{n} x i32> %v, i32 0
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %x, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#
        );
        valid_or_typed(&format!("<{n} x i32>"), &body);
    }
}

/// Case 1581 of run 5: a node record field loaded with `align 1` (the corpus'
/// `workgraph.broadcast_custom_input_uint2` library, its record loads rewritten so). The
/// `Aligned` operand of a `PhysicalStorageBuffer` access must be at least the largest
/// scalar's size (`spirv-val`: VUID-StandaloneSpirv-PhysicalStorageBuffer64-06314): the
/// record's natural alignment is used.
#[test]
fn underaligned_node_record_accesses_use_the_natural_alignment() {
    let Some(text) = corpus_rewrite("workgraph.broadcast_custom_input_uint2.lib_6_8.dxil", |l| {
        if l.contains("addrspace(6)*") && l.contains("load ") {
            l.replace(", align 4", ", align 1")
        } else {
            l.to_string()
        }
    }) else {
        return;
    };
    assert!(text.contains("addrspace(6)*") && text.contains(", align 1"), "the rewrite applies");
    let shader = untangle::Shader::parse(text.as_bytes()).expect("parses");
    for t in shader.translate_library(&untangle::Options::default()).expect("translates") {
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "align 1 record load");
    }
}

/// The IR dump of corpus container `name` with `line` applied to each line; `None` (and
/// a skip) where the corpus is missing outside CI.
fn corpus_rewrite(name: &str, line: impl Fn(&str) -> String) -> Option<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton").join(name);
    let Ok(loaded) = untangle::front::load_path(&p) else {
        assert!(std::env::var_os("CI").is_none(), "{} is required under CI", p.display());
        return None;
    };
    Some(untangle::ir::dump::Dumper::new(&loaded.module).module().lines().map(|l| line(&readable(l)) + "\n").collect())
}

/// Works around two spellings of the IR dump that LLVM text does not accept (open defects
/// of `untangle::ir::dump`): a `float` constant in decimal that is not exactly the float
/// (LLVM wants such constants as the hexadecimal double), and `align 0` on a declared global.
fn readable(line: &str) -> String {
    let line = if line.starts_with('@') { line.replace(", align 0", ", align 4") } else { line.to_string() };
    if !line.contains("float") || line.contains("double") {
        return line;
    }
    let token = |t: &str| match t.trim_end_matches(',').parse::<f32>() {
        Ok(v) if t.contains('.') && (v as f64).to_string().parse::<f64>() != t.trim_end_matches(',').parse::<f64>() => {
            format!("0x{:016X}{}", (v as f64).to_bits(), if t.ends_with(',') { "," } else { "" })
        }
        _ => t.to_string(),
    };
    line.split(' ').map(token).collect::<Vec<_>>().join(" ")
}

/// Case 446 of run 5: `threadIdInGroup`'s opcode changed to 250 (`createNodeInputRecordHandle`)
/// in a node shader, so an `i32` result stands for a node record handle. The node operations'
/// handle and property operands and results are now checked against their DXIL signature
/// like every other operation's: a typed error, not the internal "value used where it is
/// not available".
#[test]
fn node_handle_results_of_the_wrong_type_are_typed_errors() {
    let Some(text) = corpus_rewrite("workgraph.coalesce_custom_input.lib_6_8.dxil", |l| {
        l.replace("@dx.op.threadIdInGroup.i32(i32 95,", "@dx.op.threadIdInGroup.i32(i32 250,")
    }) else {
        return;
    };
    assert!(text.contains("(i32 250,"), "the rewrite applies");
    let shader = untangle::Shader::parse(text.as_bytes()).expect("parses");
    match shader.translate_library(&untangle::Options::default()) {
        Err(untangle::Error::Translate(untangle::TranslateError::Invalid { .. })) => {}
        other => panic!("{:?}", other.map(|v| v.len())),
    }
}

/// Corpus library `name`'s dump with `from` replaced by `to` inside the function whose
/// `define` line contains `function` only; `None` where the corpus is missing.
fn rewrite_in_function(name: &str, function: &str, from: &str, to: &str) -> Option<String> {
    let inside = std::cell::Cell::new(false);
    let text = corpus_rewrite(name, |l| {
        if l.starts_with("define ") {
            inside.set(l.contains(function));
        }
        if inside.get() {
            l.replace(from, to)
        } else {
            l.to_string()
        }
    })?;
    assert!(text.contains(to), "the rewrite applies:\n{text}");
    Some(text)
}

/// Case 192493 of run 5 (bitcode route): a named struct whose body contains the struct
/// itself (an infinite type, which LLVM rejects). The type conversion recursed until the
/// stack overflowed; it is a typed error now.
#[test]
fn structs_containing_themselves_are_typed_errors() {
    let body = r#"  %v = insertvalue %rec undef, i32 7, 0
  %x = extractvalue %rec %v, 0
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %x, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    let decls = "%rec = type { i32, [2 x %rec] }";
    assert!(valid_or_typed_with("struct containing itself", body, decls).is_none(), "a typed error");
}

/// Cases 49373 and 69418 of run 5: a closest-hit shader stores into its attribute
/// parameter. Any-hit and closest-hit attributes are `HitAttributeKHR`, which only an
/// intersection shader may write (`spirv-val`: the entry point's call graph "cannot be used
/// with the current execution model"): a typed error.
#[test]
fn stores_to_hit_attributes_are_typed_errors() {
    let Some(text) = rewrite_in_function(
        "rt.embedded_subobject.lib_6_3.dxil",
        "RayClosestHitAABB",
        "store float %12, float* %13",
        "store float %12, float* %6",
    ) else {
        return;
    };
    let shader = untangle::Shader::parse(text.as_bytes()).expect("parses");
    let name = shader.entry_names().into_iter().find(|n| n.contains("RayClosestHitAABB")).expect("the entry");
    match shader.translate_entry(&name, &untangle::Options::default()) {
        Err(untangle::Error::Translate(untangle::TranslateError::Unsupported { message, .. })) => {
            assert!(message.contains("hit attributes"), "{message}")
        }
        other => panic!("{:?}", other.map(|t| t.words.len())),
    }
}

/// Case 74459 of run 5: a miss shader's `extractvalue` reads a field of a library's resource
/// object (the `load` of a constant buffer's global, which only `createHandleForLib` may
/// use) instead of a `cbufferLoadLegacy` result. That load makes no value: a typed error
/// naming it, not the internal "value used where it is not available".
#[test]
fn resource_objects_used_as_values_are_typed_errors() {
    let Some(text) = rewrite_in_function(
        "rt.default.lib_6_3.dxil",
        "RayMiss",
        "extractvalue %dx.types.CBufRet.f32 %5, 0",
        "extractvalue %LocalConstants %2, 0",
    ) else {
        return;
    };
    let shader = untangle::Shader::parse(text.as_bytes()).expect("parses");
    let name = shader.entry_names().into_iter().find(|n| n.contains("RayMiss")).expect("the entry");
    match shader.translate_entry(&name, &untangle::Options::default()) {
        Err(untangle::Error::Translate(untangle::TranslateError::Invalid { value, .. })) => {
            assert!(value.contains('2'), "{value}")
        }
        other => panic!("{:?}", other.map(|t| t.words.len())),
    }
}

/// Case 156529 of run 5: a mesh shader's `numthreads(16, 8, 1)` became `(0, 8, 1)`. The
/// quad shape was chosen from the declared sizes (2x2 quads) while `LocalSize` clamped X to
/// 1, which VUID-StandaloneSpirv-DerivativeGroupQuadsKHR-10151 forbids; a mesh or
/// amplification group outside D3D12's limits (1 to 128 threads, none zero) is refused.
#[test]
fn mesh_groups_with_a_zero_dimension_are_typed_errors() {
    let Some(text) = corpus_rewrite("mesh_shader.ms_derivatives.ms_6_6.dxil", |l| {
        l.replace("!{i32 16, i32 8, i32 1}", "!{i32 0, i32 8, i32 1}")
    }) else {
        return;
    };
    assert!(text.contains("!{i32 0, i32 8, i32 1}"), "the rewrite applies:\n{text}");
    match untangle::translate(text.as_bytes(), &untangle::Options::default()) {
        Err(untangle::Error::Translate(untangle::TranslateError::Malformed { message, .. })) => {
            assert!(message.contains("numthreads(0, 8, 1)"), "{message}")
        }
        other => panic!("{:?}", other.map(|t| t.words.len())),
    }
    // The unchanged shader still translates with 2x2 quads.
    let text = corpus_rewrite("mesh_shader.ms_derivatives.ms_6_6.dxil", str::to_string).unwrap();
    let t = untangle::translate(text.as_bytes(), &untangle::Options::default()).expect("translates");
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "ms_derivatives");
}
