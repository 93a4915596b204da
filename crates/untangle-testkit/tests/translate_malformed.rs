//! Malformed DXIL that once became an invalid module or a panic (found by the mutation
//! runs of `tests/translate_robustness.rs` and `examples/translate_mutations.rs`), each
//! rebuilt by hand: it must be a typed error naming what is wrong, and the well-formed
//! variant beside it must translate to a module `spirv-val` accepts, so each check refuses
//! exactly the damage.

use untangle::dxil::ComponentType;
use untangle::dxil::{ResourceClass, ResourceKind};
use untangle::ir::{ConstId, InstKind, Module, Value};
use untangle::{translate_module, Options, TranslateError};
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{El, Res, Shell};

/// Translates `text`; `Ok` only for a module `spirv-val` accepts (or when it is missing).
fn translate(text: &str) -> Result<(), TranslateError> {
    let loaded = untangle::front::load_bytes(text.as_bytes().to_vec(), "case.ll").expect("the text parses");
    translate_loaded(&loaded.module)
}

fn translate_loaded(m: &Module) -> Result<(), TranslateError> {
    match translate_module(m, &Options::default()) {
        Ok(t) => {
            let val = find_spirv_val();
            assert!(val.is_some() || std::env::var_os("CI").is_none(), "spirv-val is required under CI");
            if let Some(val) = val {
                if let Err(e) = val.validate(&t.words, "vulkan1.3") {
                    panic!("an invalid module: {e}");
                }
            }
            Ok(())
        }
        Err(untangle::Error::Translate(e)) => Err(e),
        Err(e) => panic!("not a translation error: {e}"),
    }
}

/// `Err(Malformed)` whose message contains `needle`.
fn assert_malformed(r: Result<(), TranslateError>, needle: &str) {
    match r {
        Err(TranslateError::Malformed { message, .. }) => assert!(message.contains(needle), "{message}"),
        other => panic!("expected a Malformed error about {needle:?}, got {other:?}"),
    }
}

fn el(name: &'static str, component: ComponentType, system_value: u32, cols: u32, start: Option<(u32, u32)>) -> El {
    El { name, component, system_value, interpolation: 0, rows: 1, cols, start }
}

/// A pixel shader writing `SV_Coverage` (system value 14) declared with `cols` columns.
fn coverage_output(cols: u32) -> String {
    let mut shell = Shell::new("ps");
    shell.outputs = vec![el("SV_Coverage", ComponentType::U32, 14, cols, None)];
    shell.module(
        "  call void @dx.op.storeOutput.i32(i32 5, i32 0, i32 0, i8 0, i32 1)\n  ret void",
        "declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)",
    )
}

#[test]
fn a_system_value_of_the_wrong_shape_is_refused() {
    // Case 10046 of the mutation run: SV_Coverage with three columns indexed the scalar
    // SampleMask built-in as if it were a vector.
    translate(&coverage_output(1)).expect("a scalar SV_Coverage translates");
    assert_malformed(translate(&coverage_output(3)), "system value Coverage of 1x3 components");
}

/// A pixel shader reading input `TEXCOORD` of `cols` columns from register component `col`.
fn input_at(col: u32, cols: u32) -> String {
    let mut shell = Shell::new("ps");
    shell.inputs = vec![el("TEXCOORD", ComponentType::F32, 0, cols, Some((0, col)))];
    shell.outputs = vec![el("SV_Target", ComponentType::F32, 16, 1, Some((0, 0)))];
    shell.module(
        "  %x = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)\n  \
         call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %x)\n  ret void",
        "declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)\n\
         declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)",
    )
}

#[test]
fn an_element_past_the_register_is_refused() {
    // The issue's `Component` decoration above 3.
    translate(&input_at(2, 2)).expect("columns 2..4 translate");
    assert_malformed(translate(&input_at(3, 2)), "2 columns from component 3 leave the register");
    assert_malformed(translate(&input_at(5, 1)), "from component 5");
}

/// A vertex shader with input element 0 of system value `sv` and type `ty`.
fn vertex_input(sv: u32, ty: ComponentType) -> String {
    let mut shell = Shell::new("vs");
    shell.inputs = vec![el("IN", ty, sv, 1, if sv == 0 { Some((0, 0)) } else { None })];
    let (t, s) = if ty == ComponentType::I1 { ("i1", "i1") } else { ("i32", "i32") };
    shell.module(
        &format!(
            "  %x = call {t} @dx.op.loadInput.{s}(i32 4, i32 0, i32 0, i8 0, i32 undef)\n  \
             %w = zext {t} %x to i32\n  \
             call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 0, i32 undef, i32 %w, i32 %w, i32 %w, i32 %w, i8 1)\n  \
             ret void"
        ),
        &format!(
            "declare {t} @dx.op.loadInput.{s}(i32, i32, i32, i8, i32)\n\
             declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)"
        ),
    )
    .replace("zext i32 %x to i32", "add i32 %x, 0")
}

#[test]
fn a_system_value_outside_its_stage_is_refused() {
    // The issue's `bool` Input variable without a BuiltIn: SV_IsFrontFace (13) read by a
    // vertex shader, where it is no built-in.
    translate(&vertex_input(1, ComponentType::U32)).expect("SV_VertexID translates");
    assert_malformed(translate(&vertex_input(13, ComponentType::I1)), "system value IsFrontFace");
}

fn compute(threads: [u32; 3]) -> String {
    let mut shell = Shell::new("cs");
    shell.threads = threads;
    shell.module("  ret void", "")
}

#[test]
fn thread_groups_outside_d3d12_limits_are_refused() {
    translate(&compute([1024, 1, 1])).expect("1024 threads translate");
    translate(&compute([1, 1, 64])).expect("z = 64 translates");
    // [u32::MAX; 3] overflowed the thread count (a panic in debug builds).
    for t in [[0, 1, 1], [1025, 1, 1], [1, 1, 65], [64, 32, 1], [u32::MAX, u32::MAX, u32::MAX]] {
        assert_malformed(translate(&compute(t)), "outside D3D12's limits");
    }
}

/// A compute shader computing `fabs` of a loaded float (`%v`) and storing its bits.
fn fabs_module() -> Module {
    let shell = Shell::new("cs");
    let text = shell.module(
        "  %ld = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %out, i32 0, i32 undef, i8 1, i32 4)\n  \
         %v = extractvalue %dx.types.ResRet.f32 %ld, 0\n  \
         %a = call float @dx.op.unary.f32(i32 6, float %v)\n  \
         %m = fmul float %a, %v\n  \
         call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, float %m, float undef, float undef, float undef, i8 1, i32 4)\n  \
         ret void",
        "declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)\n\
         declare float @dx.op.unary.f32(i32, float)\n\
         declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)",
    );
    untangle::front::load_bytes(text.into_bytes(), "fabs.ll").expect("parses").module
}

/// A constant of `m` whose type is `i32` (the reader interns the opcodes' constants).
fn some_i32(m: &Module) -> ConstId {
    let i32t = m.types.lookup(&untangle::ir::Type::Int(32)).expect("an i32 type");
    (0..m.constants.len() as u32)
        .map(ConstId::from_u32)
        .find(|&c| m.constants.get(c).ty == i32t)
        .expect("an i32 constant")
}

/// `Err(Invalid)` naming function `main`, block `entry`, a value containing `value` and a
/// message containing `message`.
fn assert_invalid(r: Result<(), TranslateError>, value: &str, message: &str) {
    match r {
        Err(TranslateError::Invalid { function, block, value: v, message: m }) => {
            assert_eq!((function.as_str(), block.as_str()), ("main", "entry"));
            assert!(v.contains(value), "{v}");
            assert!(m.contains(message), "{m}");
        }
        other => panic!("expected an Invalid error about {value}: {message}, got {other:?}"),
    }
}

#[test]
fn operands_of_the_wrong_type_are_refused() {
    let good = fabs_module();
    translate_loaded(&good).expect("the well-typed module translates");
    let c = some_i32(&good);
    let (fid, _) = good.defined_functions().next().unwrap();
    // The issue's `FAbs` with mismatched operand types: its float operand replaced by an i32
    // (what the bitcode reader accepts from a damaged file).
    let mut m = good.clone();
    let f = &mut m.functions[fid];
    let fabs = f
        .insts
        .keys()
        .find(|&i| matches!(&f.insts[i].kind, InstKind::Call { args, .. } if args.len() == 2))
        .expect("the fabs call");
    let InstKind::Call { args, .. } = &mut f.insts[fabs].kind else { unreachable!() };
    args[1] = Value::Const(c);
    assert_invalid(translate_loaded(&m), "operand 0 of %a = FAbs", "type i32 does not fit Overload (overload float)");
    // An `fmul` of an i32.
    let mut m = good.clone();
    let f = &mut m.functions[fid];
    let fmul = f.insts.keys().find(|&i| matches!(f.insts[i].kind, InstKind::Binary { .. })).expect("the fmul");
    let InstKind::Binary { rhs, .. } = &mut f.insts[fmul].kind else { unreachable!() };
    *rhs = Value::Const(c);
    assert_invalid(translate_loaded(&m), "%m", "operands must both be of the result type float");
}

#[test]
fn a_value_used_where_its_definition_does_not_dominate_is_refused() {
    // Case 92430 of the mutation run: damaged bitcode made an atomic's operand the atomic
    // itself, and the emitter met a value it had not emitted (an internal error).
    let good = fabs_module();
    let (fid, _) = good.defined_functions().next().unwrap();
    let mut m = good.clone();
    let f = &mut m.functions[fid];
    let fmul = f.insts.keys().find(|&i| matches!(f.insts[i].kind, InstKind::Binary { .. })).expect("the fmul");
    let InstKind::Binary { rhs, .. } = &mut f.insts[fmul].kind else { unreachable!() };
    *rhs = Value::Inst(fmul);
    assert_invalid(translate_loaded(&m), "%m", "uses a value defined at or after it in its block");
}

/// A compute shader loading twice through one `rawBufferLoad.f32` declaration (the second
/// load's mask `mask`) and storing the sum of `fabs` of each.
fn two_loads(mask: &str) -> String {
    Shell::new("cs").module(
        &format!(
            "  %l0 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %out, i32 0, i32 undef, i8 1, i32 4)\n  \
             %v0 = extractvalue %dx.types.ResRet.f32 %l0, 0\n  \
             %bits = bitcast float %v0 to i32\n  \
             %t = trunc i32 %bits to i8\n  \
             %l1 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %out, i32 16, i32 undef, i8 {mask}, i32 4)\n  \
             %v1 = extractvalue %dx.types.ResRet.f32 %l1, 0\n  \
             %a = call float @dx.op.unary.f32(i32 6, float %v0)\n  \
             %b = call float @dx.op.unary.f32(i32 6, float %v1)\n  \
             %m = fadd float %a, %b\n  \
             call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, float %m, float undef, float undef, float undef, i8 1, i32 4)\n  \
             ret void"
        ),
        "declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)\n\
         declare float @dx.op.unary.f32(i32, float)\n\
         declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)",
    )
}

/// The signature check runs fully once per `dx.op` declaration and operation; a later call
/// through the same declaration is still refused for what is its own: an operand of
/// another type than the declaration's, or a computed value where an immediate belongs.
#[test]
fn a_later_call_of_a_checked_declaration_is_still_checked() {
    translate(&two_loads("1")).expect("the well-formed module translates");
    assert_invalid(translate(&two_loads("%t")), "operand 3 of %l1 = RawBufferLoad", "must be an immediate constant");
    // The second `fabs` given an i32 (as damaged bitcode can): not the declared `float`.
    let good = untangle::front::load_bytes(two_loads("1").into_bytes(), "two.ll").expect("parses").module;
    let c = some_i32(&good);
    let (fid, _) = good.defined_functions().next().unwrap();
    let mut m = good.clone();
    let f = &mut m.functions[fid];
    let second = f
        .insts
        .keys()
        .filter(|&i| matches!(&f.insts[i].kind, InstKind::Call { args, .. } if args.len() == 2))
        .nth(1)
        .expect("the second fabs");
    let InstKind::Call { args, .. } = &mut f.insts[second].kind else { unreachable!() };
    args[1] = Value::Const(c);
    assert_invalid(translate_loaded(&m), "operand 0 of %b = FAbs", "type i32 does not fit Overload (overload float)");
}

/// A compute shader storing 1 to member 0 of groupshared `@p` (a one-member struct),
/// through a constant `getelementptr` (`constant`) or an instruction.
fn struct_member_store(constant: bool) -> Module {
    let gep = "getelementptr inbounds (%struct.Payload, %struct.Payload addrspace(3)* @p, i32 0, i32 0)";
    let body = if constant {
        format!("  store i32 1, i32 addrspace(3)* {gep}, align 4\n  ret void")
    } else {
        "  %m = getelementptr inbounds %struct.Payload, %struct.Payload addrspace(3)* @p, i32 0, i32 0\n  \
         store i32 1, i32 addrspace(3)* %m, align 4\n  ret void"
            .into()
    };
    let text = Shell::new("cs").module(&body, "").replace(
        "define void @main()",
        "@p = addrspace(3) global %struct.Payload undef, align 4\n\ndefine void @main()",
    );
    untangle::front::load_bytes(text.into_bytes(), "gep.ll").expect("parses").module
}

#[test]
fn a_struct_index_past_the_last_member_is_refused() {
    // Case 807997 of the structure-aware run (seed 5): a record mutant of a task shader's
    // bitcode made the constant `getelementptr (%struct.Payload, ..., i32 0, i32 0)` of a
    // store index member 6 of the one-member payload. The bitcode reader does not check
    // constant expressions, and `OpAccessChain` with index 6 into a one-member struct is
    // invalid SPIR-V.
    for constant in [true, false] {
        let good = struct_member_store(constant);
        translate_loaded(&good).expect("member 0 translates");
        let mut m = good.clone();
        let i32t = m.types.lookup(&untangle::ir::Type::Int(32)).expect("i32");
        let six = m.constants.intern(untangle::ir::Constant { ty: i32t, kind: untangle::ir::ConstKind::Int(6) });
        let (fid, _) = m.defined_functions().next().unwrap();
        if constant {
            let (k, c) = m
                .constants
                .iter()
                .find(|(_, c)| matches!(c.kind, untangle::ir::ConstKind::Expr { .. }))
                .map(|(k, c)| (k, c.clone()))
                .expect("the constant getelementptr");
            let untangle::ir::ConstKind::Expr { op, mut operands, source_ty } = c.kind else { unreachable!() };
            operands[2] = six;
            let bad = m.constants.intern(untangle::ir::Constant {
                ty: c.ty,
                kind: untangle::ir::ConstKind::Expr { op, operands, source_ty },
            });
            let f = &mut m.functions[fid];
            for i in f.insts.values_mut() {
                if let InstKind::Store { ptr, .. } = &mut i.kind {
                    assert_eq!(*ptr, Value::Const(k));
                    *ptr = Value::Const(bad);
                }
            }
            assert_invalid(
                translate_loaded(&m),
                "void instruction",
                "constant getelementptr: struct index 6 into %struct.Payload, a struct of 1 members",
            );
        } else {
            let f = &mut m.functions[fid];
            for i in f.insts.values_mut() {
                if let InstKind::GetElementPtr { indices, .. } = &mut i.kind {
                    indices[1] = Value::Const(six);
                }
            }
            assert_invalid(
                translate_loaded(&m),
                "%m",
                "getelementptr: struct index 6 into %struct.Payload, a struct of 1 members",
            );
        }
    }
}

/// A compute shader adding 5 to texel (1, 2) of a `RWTexture2D<uint>`: a descriptor-heap
/// one (`heap`) or UAV u1.
fn typed_atomic(heap: bool) -> String {
    let atomic = "  %r = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %u, i32 0, i32 1, i32 2, i32 undef, i32 5)\n  ret void";
    let decl = "declare i32 @dx.op.atomicBinOp.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)";
    if heap {
        // Properties: Texture2D (2), UAV (bit 12); uint (5), one component.
        let body = format!(
            "  %uh = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 3, i1 false, i1 false)\n  \
             %u = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %uh, %dx.types.ResourceProperties {{ i32 4098, i32 261 }})\n{atomic}"
        );
        Shell::new("cs").module(
            &body,
            &format!(
                "declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1)\n\
                 declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)\n{decl}"
            ),
        )
    } else {
        let mut shell = Shell::new("cs");
        shell.resources = vec![Res::new("u", ResourceClass::Uav, ResourceKind::Texture2D, 1).typed(ComponentType::U32)];
        shell.module(atomic, decl)
    }
}

#[test]
fn typed_uav_atomics_declare_a_32_bit_format() {
    // Case 799086 of the structure-aware run (seed 5): an atomic on a typed UAV whose image
    // type declared no format; Vulkan requires R32ui/R32i/R32f (or 64-bit) under an
    // `OpImageTexelPointer` an atomic uses (VUID-StandaloneSpirv-OpImageTexelPointer-04658).
    // Descriptor-heap UAVs (SM 6.6) had no atomic form at all.
    for heap in [false, true] {
        let text = typed_atomic(heap);
        let loaded = untangle::front::load_bytes(text.into_bytes(), "atomic.ll").expect("parses");
        let t = translate_module(&loaded.module, &Options::default()).unwrap_or_else(|e| panic!("heap {heap}: {e}"));
        untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", "typed atomic");
        let m = rspirv::dr::load_words(&t.words).expect("parses");
        let formats: Vec<_> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == rspirv::spirv::Op::TypeImage)
            .map(|i| i.operands[6].clone())
            .collect();
        assert!(
            formats.contains(&rspirv::dr::Operand::ImageFormat(rspirv::spirv::ImageFormat::R32ui)),
            "heap {heap}: {formats:?}"
        );
    }
}
