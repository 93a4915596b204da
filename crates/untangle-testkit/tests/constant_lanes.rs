//! Constant vector lanes past the end (issue 33's mutants: `extractelement <2 x float> %v,
//! i32 10` and `i32 -14` from one corrupted byte): LLVM gives poison, untangle an undefined
//! value, and the module stays valid (`spirv-val`); no `OpCompositeExtract` or
//! `OpCompositeInsert` names a lane the vector lacks. Lanes in range translate as before.

use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::Shell;

/// Thread 0 stores lane `lane` of `<2 x float> (1.0, 2.0)` (and of the vector with lane
/// `lane` replaced by 5.0, lane 0) to `out`.
fn module(lane: &str) -> String {
    let body = format!(
        r#"  %v0 = insertelement <2 x float> undef, float 1.0, i32 0
  %v = insertelement <2 x float> %v0, float 2.0, i32 1
  %x = extractelement <2 x float> %v, i32 {lane}
  %w = insertelement <2 x float> %v, float 5.0, i32 {lane}
  %y = extractelement <2 x float> %w, i32 0
  %xi = bitcast float %x to i32
  %yi = bitcast float %y to i32
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %xi, i32 %yi, i32 undef, i32 undef, i8 3, i32 4)
  ret void"#
    );
    let decls = "declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
    Shell::new("cs").module(&body, decls)
}

/// The largest literal lane of any `OpCompositeExtract`/`OpCompositeInsert` on a 2-vector.
fn lanes(words: &[u32]) -> Vec<u32> {
    use rspirv::spirv::Op;
    let m = rspirv::dr::load_words(words).expect("loads");
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter_map(|i| match i.class.opcode {
            Op::CompositeExtract => i.operands.get(1),
            Op::CompositeInsert => i.operands.get(2),
            _ => None,
        })
        .filter_map(|o| match o {
            rspirv::dr::Operand::LiteralBit32(k) => Some(*k),
            _ => None,
        })
        .collect()
}

#[test]
fn lanes_past_the_end_are_undefined_and_the_module_valid() {
    for lane in ["10", "-14", "2", "1"] {
        let t = untangle::translate(module(lane).as_bytes(), &untangle::Options::default())
            .unwrap_or_else(|e| panic!("lane {lane}: {e}"));
        if let Some(v) = find_spirv_val() {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("lane {lane}: {e}"));
        }
        let found = lanes(&t.words);
        assert!(found.iter().all(|&k| k < 2), "lane {lane}: {found:?}");
        if lane == "1" {
            assert!(found.contains(&1), "an in-range lane still translates: {found:?}");
        }
    }
}

/// The same for a constant element past the end of a local array (`getelementptr [4 x
/// float]` with index 10): a valid module.
#[test]
fn array_elements_past_the_end_keep_the_module_valid() {
    let body = r#"  %a = alloca [4 x float], align 4
  %p = getelementptr inbounds [4 x float], [4 x float]* %a, i32 0, i32 10
  store float 1.0, float* %p, align 4
  %q = getelementptr inbounds [4 x float], [4 x float]* %a, i32 0, i32 1
  store float 2.0, float* %q, align 4
  %x = load float, float* %p, align 4
  %xi = bitcast float %x to i32
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %xi, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    let decls = "declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
    let text = Shell::new("cs").module(body, decls);
    match untangle::translate(text.as_bytes(), &untangle::Options::default()) {
        Ok(t) => {
            if let Some(v) = find_spirv_val() {
                v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
            }
        }
        Err(e) => println!("typed error: {e}"),
    }
}
