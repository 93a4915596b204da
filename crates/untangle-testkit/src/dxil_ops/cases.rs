//! Hand-written cases: operations on resources, stage I/O, barriers and the hull, domain and
//! geometry shader operations, in the operand forms
//! DXIL allows (immediate and dynamic offsets and indices, status outputs, clamp and LOD
//! operands, every overload of the operation and the resource kinds it takes). Each case is
//! a body over the shell's resources; dynamic operands come from the input words.

use super::shell::{El, Res, Shell};
use super::synth::{Body, Scalar};
use super::Case;
use untangle::dxil::{ComponentType as C, ResourceClass as RC, ResourceKind as K};

const ALL: &[&str] = &["cs", "ps", "vs", "gs", "hs", "ds", "ms", "as"];
/// Stages with implicit derivatives (compute, mesh and amplification through derivative
/// groups).
const DERIV: &[&str] = &["cs", "ps", "ms", "as"];
/// Stages with thread groups and groupshared memory.
const GROUPS: &[&str] = &["cs", "ms", "as"];

fn case(name: impl Into<String>, profiles: &[&'static str], resources: Vec<Res>, f: impl FnOnce(&mut Body)) -> Case {
    let mut b = Body::default();
    b.line("%tid = add i32 0, 0");
    b.load_inputs("%tid");
    f(&mut b);
    b.store_outputs("%tid");
    b.line("ret void");
    let mut shell = Shell::new("cs");
    shell.resources = resources;
    Case {
        name: name.into(),
        profiles: profiles.to_vec(),
        shell,
        body: b.text(),
        decls: b.decls.iter().cloned().collect::<Vec<_>>().join("\n"),
    }
}

/// Stores every field of struct value `v` of type `ty` whose fields are `fields`.
fn keep(b: &mut Body, ty: &str, v: &str, fields: &[Scalar]) {
    for (k, &f) in fields.iter().enumerate() {
        let x = b.fresh();
        b.line(format!("{x} = extractvalue {ty} {v}, {k}"));
        b.output(f, &x);
    }
}

fn scalar_of(e: C) -> Scalar {
    match e {
        C::I32 | C::U32 => Scalar::I32,
        C::I16 | C::U16 => Scalar::I16,
        C::F16 | C::SNormF16 | C::UNormF16 => Scalar::F16,
        _ => Scalar::F32,
    }
}

pub fn hand_written() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(handles());
    v.extend(constant_buffers());
    v.extend(buffers());
    v.extend(atomics());
    v.extend(texture_loads_and_stores());
    v.extend(dimensions());
    v.extend(sampling());
    v.extend(gathers());
    v.extend(barriers());
    v.extend(stage_io());
    v.extend(graphics_stages());
    v.extend(interpolation());
    v.extend(system_values());
    v.extend(mesh_stages());
    v.extend(ray_queries());
    v.extend(vector_operations());
    v.extend(linalg_operations());
    v.extend(linalg_register_operations());
    v
}

/// `<n x ty>` from `n` input words of scalar `t` (a fresh name).
fn vector_of(b: &mut Body, t: Scalar, n: u32) -> String {
    let ty = t.llvm();
    let mut prev = "undef".to_string();
    for k in 0..n {
        let x = b.input(t);
        let v = b.fresh();
        b.line(format!("{v} = insertelement <{n} x {ty}> {prev}, {ty} {x}, i32 {k}"));
        prev = v;
    }
    prev
}

/// SM 6.10 LinAlg thread-scope matrices (`SPV_NV_cooperative_vector`): a 4x4 F32 A matrix
/// loaded row major from a raw SRV multiplies a vector (and adds a bias); the outer product
/// of two vectors and a vector accumulate into a raw UAV. `tests/linalg.rs` checks the
/// instructions' operands. And `linAlgConvert` (plain arithmetic).
fn linalg_operations() -> Vec<Case> {
    let a = "%dx.types.LinAlgMatrixC9M4N4U0S0";
    let acc = "%dx.types.LinAlgMatrixC9M4N4U2S0";
    vec![
        case(
            "linalg.thread_scope",
            ALL,
            vec![Res::new("raw", RC::Srv, K::RawBuffer, 0), Res::new("rw", RC::Uav, K::RawBuffer, 1)],
            move |b| {
                b.declare(format!("{a} = type {{ i8* }}"));
                b.declare(format!("{acc} = type {{ i8* }}"));
                b.declare(format!(
                "declare {a} @dx.op.linAlgMatrixLoadFromDescriptor.mC9M4N4U0S0(i32, %dx.types.Handle, i32, i32, i32, i32)"
            ));
                b.declare(format!(
                "declare <4 x float> @dx.op.linAlgMatVecMul.v4f32.mC9M4N4U0S0.v4f32(i32, {a}, i1, <4 x float>, i32)"
            ));
                b.declare(format!(
                "declare <4 x float> @dx.op.linAlgMatVecMulAdd.v4f32.mC9M4N4U0S0.v4f32.v4f32(i32, {a}, i1, <4 x float>, i32, <4 x float>)"
            ));
                b.declare(format!(
                "declare {acc} @dx.op.linAlgMatrixOuterProduct.mC9M4N4U2S0.v4f32.v4f32(i32, <4 x float>, <4 x float>)"
            ));
                b.declare(format!(
                "declare void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32, {acc}, %dx.types.Handle, i32, i32, i32, i32)"
            ));
                b.declare("declare void @dx.op.linAlgVectorAccumulateToDescriptor.v4f32(i32, %dx.types.Handle, i32, i32, <4 x float>)");
                let x = vector_of(b, Scalar::F32, 4);
                let m = b.fresh();
                b.line(format!(
                "{m} = call {a} @dx.op.linAlgMatrixLoadFromDescriptor.mC9M4N4U0S0(i32 -2147483634, %dx.types.Handle %raw, i32 0, i32 16, i32 0, i32 128)"
            ));
                let y = b.fresh();
                b.line(format!(
                "{y} = call <4 x float> @dx.op.linAlgMatVecMul.v4f32.mC9M4N4U0S0.v4f32(i32 -2147483623, {a} {m}, i1 true, <4 x float> {x}, i32 9)"
            ));
                let z = b.fresh();
                b.line(format!(
                "{z} = call <4 x float> @dx.op.linAlgMatVecMulAdd.v4f32.mC9M4N4U0S0.v4f32.v4f32(i32 -2147483622, {a} {m}, i1 true, <4 x float> {y}, i32 9, <4 x float> {x})"
            ));
                let o = b.fresh();
                b.line(format!(
                "{o} = call {acc} @dx.op.linAlgMatrixOuterProduct.mC9M4N4U2S0.v4f32.v4f32(i32 -2147483619, <4 x float> {x}, <4 x float> {z})"
            ));
                b.line(format!(
                "call void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32 -2147483621, {acc} {o}, %dx.types.Handle %rw, i32 0, i32 0, i32 4, i32 128)"
            ));
                b.line(format!(
                "call void @dx.op.linAlgVectorAccumulateToDescriptor.v4f32(i32 -2147483617, %dx.types.Handle %rw, i32 256, i32 64, <4 x float> {z})"
            ));
                let e = b.fresh();
                b.line(format!("{e} = extractelement <4 x float> {z}, i32 3"));
                b.output(Scalar::F32, &e);
            },
        ),
        // `linAlgConvert`: F32 lanes to packed F8_E4M3FN and back (`tests/linalg.rs` covers every
        // interpretation class, `tests/gpu_linalg_convert.rs` runs them).
        case("linalg.convert", ALL, vec![], |b| {
            b.declare("declare i32 @dx.op.linAlgConvert.i32.v4f32(i32, <4 x float>, i32, i32)");
            b.declare("declare <4 x float> @dx.op.linAlgConvert.v4f32.i32(i32, i32, i32, i32)");
            let x = vector_of(b, Scalar::F32, 4);
            let p = b.fresh();
            b.line(format!(
                "{p} = call i32 @dx.op.linAlgConvert.i32.v4f32(i32 -2147483618, <4 x float> {x}, i32 9, i32 21)"
            ));
            let y = b.fresh();
            b.line(format!(
                "{y} = call <4 x float> @dx.op.linAlgConvert.v4f32.i32(i32 -2147483618, i32 {p}, i32 21, i32 9)"
            ));
            let e = b.fresh();
            b.line(format!("{e} = extractelement <4 x float> {y}, i32 2"));
            b.output(Scalar::F32, &e);
        }),
    ]
}

/// SM 6.10 LinAlg wave and thread-group matrices (cooperative matrices): a 16x16 F16 A
/// matrix loaded row major from a raw SRV, a B matrix and an F32 accumulator filled, their
/// product (with and without the accumulator), the length, an element read and written
/// back, the accumulator converted to an F16 A matrix, the result stored to a raw UAV; and
/// a thread-group (workgroup-scope) product with groupshared loads and stores. DXIL allows
/// these operations in compute shaders only (hctdb). `tests/linalg.rs` checks the
/// instructions.
fn linalg_register_operations() -> Vec<Case> {
    let a = "%dx.types.LinAlgMatrixC8M16N16U0S1";
    let bm = "%dx.types.LinAlgMatrixC8M16N16U1S1";
    let acc = "%dx.types.LinAlgMatrixC9M16N16U2S1";
    let wave = case(
        "linalg.wave_scope",
        &["cs"],
        vec![Res::new("raw", RC::Srv, K::RawBuffer, 0), Res::new("rw", RC::Uav, K::RawBuffer, 1)],
        move |b| {
            for t in [a, bm, acc] {
                b.declare(format!("{t} = type {{ i8* }}"));
            }
            for d in [
                format!("declare {a} @dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S1(i32, %dx.types.Handle, i32, i32, i32, i32)"),
                format!("declare {bm} @dx.op.linAlgFillMatrix.mC8M16N16U1S1.f32(i32, float)"),
                format!("declare {acc} @dx.op.linAlgFillMatrix.mC9M16N16U2S1.f32(i32, float)"),
                format!("declare {acc} @dx.op.linAlgMatrixMultiply.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1(i32, {a}, {bm})"),
                format!("declare {acc} @dx.op.linAlgMatrixMultiplyAccumulate.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1.mC9M16N16U2S1(i32, {a}, {bm}, {acc})"),
                format!("declare i32 @dx.op.linAlgMatrixLength.mC9M16N16U2S1(i32, {acc})"),
                format!("declare float @dx.op.linAlgMatrixGetElement.f32.mC9M16N16U2S1(i32, {acc}, i32)"),
                format!("declare {acc} @dx.op.linAlgMatrixSetElement.mC9M16N16U2S1.mC9M16N16U2S1.f32(i32, {acc}, i32, float)"),
                format!("declare {a} @dx.op.linAlgCopyConvertMatrix.mC8M16N16U0S1.mC9M16N16U2S1(i32, {acc}, i1)"),
                format!("declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S1(i32, {acc}, %dx.types.Handle, i32, i32, i32, i32)"),
                format!("declare void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U0S1(i32, {a}, %dx.types.Handle, i32, i32, i32, i32)"),
            ] {
                b.declare(d);
            }
            let x = b.input(Scalar::F32);
            let i = b.input(Scalar::I32);
            let (ma, mb, mc, p, q, n, e, r, h) =
                (b.fresh(), b.fresh(), b.fresh(), b.fresh(), b.fresh(), b.fresh(), b.fresh(), b.fresh(), b.fresh());
            b.line(format!("{ma} = call {a} @dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S1(i32 -2147483634, %dx.types.Handle %raw, i32 0, i32 32, i32 0, i32 128)"));
            b.line(format!("{mb} = call {bm} @dx.op.linAlgFillMatrix.mC8M16N16U1S1.f32(i32 -2147483636, float {x})"));
            b.line(format!("{mc} = call {acc} @dx.op.linAlgFillMatrix.mC9M16N16U2S1.f32(i32 -2147483636, float {x})"));
            b.line(format!("{p} = call {acc} @dx.op.linAlgMatrixMultiply.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1(i32 -2147483625, {a} {ma}, {bm} {mb})"));
            b.line(format!("{q} = call {acc} @dx.op.linAlgMatrixMultiplyAccumulate.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1.mC9M16N16U2S1(i32 -2147483637, {a} {ma}, {bm} {mb}, {acc} {p})"));
            b.line(format!("{n} = call i32 @dx.op.linAlgMatrixLength.mC9M16N16U2S1(i32 -2147483632, {acc} {q})"));
            b.line(format!(
                "{e} = call float @dx.op.linAlgMatrixGetElement.f32.mC9M16N16U2S1(i32 -2147483630, {acc} {q}, i32 {i})"
            ));
            b.line(format!("{r} = call {acc} @dx.op.linAlgMatrixSetElement.mC9M16N16U2S1.mC9M16N16U2S1.f32(i32 -2147483629, {acc} {q}, i32 {n}, float {e})"));
            b.line(format!("{h} = call {a} @dx.op.linAlgCopyConvertMatrix.mC8M16N16U0S1.mC9M16N16U2S1(i32 -2147483635, {acc} {r}, i1 false)"));
            b.line(format!("call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S1(i32 -2147483628, {acc} {r}, %dx.types.Handle %rw, i32 0, i32 64, i32 0, i32 128)"));
            b.line(format!("call void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U0S1(i32 -2147483628, {a} {h}, %dx.types.Handle %rw, i32 1024, i32 32, i32 1, i32 128)"));
            b.output(Scalar::F32, &e);
            b.output(Scalar::I32, &n);
        },
    );
    let ta = "%dx.types.LinAlgMatrixC8M16N16U0S2";
    let tb = "%dx.types.LinAlgMatrixC8M16N16U1S2";
    let tc = "%dx.types.LinAlgMatrixC9M16N16U2S2";
    let group = case("linalg.thread_group_scope", &["cs"], vec![Res::new("rw", RC::Uav, K::RawBuffer, 1)], move |b| {
        for t in [ta, tb, tc] {
            b.declare(format!("{t} = type {{ i8* }}"));
        }
        b.declare("@linalg_gs = external addrspace(3) global [512 x i32], align 4");
        let gs = "i32 addrspace(3)* getelementptr inbounds ([512 x i32], [512 x i32] addrspace(3)* @linalg_gs, i32 0, i32 0)";
        for d in [
                format!("declare {ta} @dx.op.linAlgMatrixLoadFromMemory.mC8M16N16U0S2.i32(i32, i32 addrspace(3)*, i32, i32, i32)"),
                format!("declare {tb} @dx.op.linAlgFillMatrix.mC8M16N16U1S2.i32(i32, i32)"),
                format!("declare {tc} @dx.op.linAlgMatrixMultiply.mC9M16N16U2S2.mC8M16N16U0S2.mC8M16N16U1S2(i32, {ta}, {tb})"),
                format!("declare void @dx.op.linAlgMatrixStoreToMemory.mC9M16N16U2S2.i32(i32, {tc}, i32 addrspace(3)*, i32, i32, i32)"),
                format!("declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S2(i32, {tc}, %dx.types.Handle, i32, i32, i32, i32)"),
            ] {
                b.declare(d);
            }
        let (ma, mb, mc) = (b.fresh(), b.fresh(), b.fresh());
        b.line(format!("{ma} = call {ta} @dx.op.linAlgMatrixLoadFromMemory.mC8M16N16U0S2.i32(i32 -2147483633, {gs}, i32 8, i32 16, i32 1)"));
        b.line(format!("{mb} = call {tb} @dx.op.linAlgFillMatrix.mC8M16N16U1S2.i32(i32 -2147483636, i32 2)"));
        b.line(format!("{mc} = call {tc} @dx.op.linAlgMatrixMultiply.mC9M16N16U2S2.mC8M16N16U0S2.mC8M16N16U1S2(i32 -2147483625, {ta} {ma}, {tb} {mb})"));
        b.line(format!("call void @dx.op.linAlgMatrixStoreToMemory.mC9M16N16U2S2.i32(i32 -2147483627, {tc} {mc}, {gs}, i32 256, i32 16, i32 0)"));
        b.line(format!("call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S2(i32 -2147483628, {tc} {mc}, %dx.types.Handle %rw, i32 0, i32 64, i32 0, i32 128)"));
    });
    vec![wave, group]
}

/// DXIL 1.9's vector operations on native vectors: `FDot` (311), `VectorReduceAnd`/`Or`
/// (309/310) on integer and `i1` vectors. `tests/sm69_vectors.rs` covers every length 2–4
/// and the 16-bit overloads.
fn vector_operations() -> Vec<Case> {
    let mut v = Vec::new();
    // `rawBufferVectorLoad`/`Store` (303/304) of long vectors (6 and 17 lanes, DXIL 1.9):
    // a raw buffer at a dynamic address, a structured one at an element offset.
    for (t, n) in [(Scalar::F32, 6u32), (Scalar::I32, 17)] {
        let (ty, sfx) = (t.llvm(), format!("v{n}{}", t.suffix()));
        let rr = format!("%dx.types.ResRet.{sfx}");
        v.push(case(
            format!("vector.raw_buffer.{sfx}"),
            ALL,
            vec![Res::new("raw", RC::Srv, K::RawBuffer, 0), Res::new("ust", RC::Uav, K::StructuredBuffer, 1).extra(4 * n)],
            move |b| {
                b.declare(format!("declare {rr} @dx.op.rawBufferVectorLoad.{sfx}(i32, %dx.types.Handle, i32, i32, i32)"));
                b.declare(format!(
                    "declare void @dx.op.rawBufferVectorStore.{sfx}(i32, %dx.types.Handle, i32, i32, <{n} x {ty}>, i32)"
                ));
                let i = b.input(Scalar::I32);
                let a = b.fresh();
                b.line(format!("{a} = shl i32 {i}, 2"));
                let r = b.fresh();
                b.line(format!("{r} = call {rr} @dx.op.rawBufferVectorLoad.{sfx}(i32 303, %dx.types.Handle %raw, i32 {a}, i32 undef, i32 4)"));
                let x = b.fresh();
                b.line(format!("{x} = extractvalue {rr} {r}, 0"));
                b.line(format!("call void @dx.op.rawBufferVectorStore.{sfx}(i32 304, %dx.types.Handle %ust, i32 {i}, i32 0, <{n} x {ty}> {x}, i32 4)"));
                let e = b.fresh();
                b.line(format!("{e} = extractelement <{n} x {ty}> {x}, i32 {}", n - 1));
                b.output(t, &e);
            },
        ));
    }
    v.push(case("vector.fdot", ALL, vec![], |b| {
        b.declare("declare float @dx.op.dot.v3f32(i32, <3 x float>, <3 x float>)");
        let x = vector_of(b, Scalar::F32, 3);
        let y = vector_of(b, Scalar::F32, 3);
        let d = b.fresh();
        b.line(format!("{d} = call float @dx.op.dot.v3f32(i32 311, <3 x float> {x}, <3 x float> {y})"));
        b.output(Scalar::F32, &d);
    }));
    for (name, opcode) in [("and", 309), ("or", 310)] {
        v.push(case(format!("vector.reduce_{name}"), ALL, vec![], |b| {
            b.declare("declare i32 @dx.op.vectorReduce.v4i32(i32, <4 x i32>)");
            b.declare("declare i1 @dx.op.vectorReduce.v2i1(i32, <2 x i1>)");
            let x = vector_of(b, Scalar::I32, 4);
            let r = b.fresh();
            b.line(format!("{r} = call i32 @dx.op.vectorReduce.v4i32(i32 {opcode}, <4 x i32> {x})"));
            b.output(Scalar::I32, &r);
            let y = vector_of(b, Scalar::I32, 2);
            let c = b.fresh();
            b.line(format!("{c} = icmp ne <2 x i32> {y}, zeroinitializer"));
            let r = b.fresh();
            b.line(format!("{r} = call i1 @dx.op.vectorReduce.v2i1(i32 {opcode}, <2 x i1> {c})"));
            let w = b.fresh();
            b.line(format!("{w} = zext i1 {r} to i32"));
            b.output(Scalar::I32, &w);
        }));
    }
    v
}

fn handles() -> Vec<Case> {
    let mut v = Vec::new();
    v.push(case("handles.from_binding_and_annotate", ALL, vec![Res::new("raw", RC::Srv, K::RawBuffer, 1)], |b| {
        b.declare("declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1)");
        b.declare("declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)");
        b.declare("declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)");
        b.line("%hb = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 1, i32 1, i32 0, i8 0 }, i32 1, i1 false)");
        b.line("%ha = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %hb, %dx.types.ResourceProperties { i32 11, i32 0 })");
        b.line("%hr = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %ha, i32 0, i32 undef, i8 1, i32 4)");
        keep(b, "%dx.types.ResRet.i32", "%hr", &[Scalar::I32]);
    }));
    v.push(case("handles.from_heap", ALL, vec![], |b| {
        let i = b.input(Scalar::I32);
        b.declare("declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1)");
        b.declare("declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)");
        b.declare("declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)");
        b.line(format!("%hh = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 {i}, i1 false, i1 true)"));
        b.line("%hu = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %hh, %dx.types.ResourceProperties { i32 4107, i32 0 })");
        b.line(format!("call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %hu, i32 0, i32 undef, i32 {i}, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"));
    }));
    v.push(case(
        "handles.heap_texture_and_sampler",
        DERIV,
        vec![],
        |b| {
            let (i, s) = (b.input(Scalar::I32), b.input(Scalar::I32));
            let (x, y) = (b.input(Scalar::F32), b.input(Scalar::F32));
            b.declare("declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1)");
            b.declare("declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)");
            b.declare("declare %dx.types.ResRet.f32 @dx.op.sample.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)");
            b.line(format!("%ht = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 {i}, i1 false, i1 false)"));
            b.line("%hta = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %ht, %dx.types.ResourceProperties { i32 2, i32 1033 })");
            b.line(format!("%hs = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 {s}, i1 true, i1 false)"));
            b.line("%hsa = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %hs, %dx.types.ResourceProperties { i32 14, i32 0 })");
            b.line(format!("%hv = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %hta, %dx.types.Handle %hsa, float {x}, float {y}, float undef, float undef, i32 0, i32 0, i32 undef, float undef)"));
            keep(b, "%dx.types.ResRet.f32", "%hv", &[Scalar::F32; 4]);
        },
    ));
    v.push(case("handles.dynamic_index_into_range", ALL, vec![Res::new("arr", RC::Uav, K::RawBuffer, 1).count(4)], |b| {
        let i = b.input(Scalar::I32);
        b.declare("declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)");
        b.line(format!("%m = and i32 {i}, 3"));
        b.line("%reg = add i32 %m, 1");
        b.line("%hd = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 1, i32 %reg, i1 true)");
        b.line(format!("call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %hd, i32 0, i32 undef, i32 {i}, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"));
    }));
    v
}

fn constant_buffers() -> Vec<Case> {
    let mut v = Vec::new();
    let cb = || vec![Res::new("cb", RC::Cbv, K::CBuffer, 0).extra(256)];
    // cbufferLoadLegacy: every overload (16-bit rows of 8 values, and of 4 under minimum
    // precision), a constant row, a dynamic row, and a constant row past the end (reads 0).
    let legacy: &[(&str, Scalar, usize, &str)] = &[
        ("f32", Scalar::F32, 4, "%dx.types.CBufRet.f32"),
        ("i32", Scalar::I32, 4, "%dx.types.CBufRet.i32"),
        ("f16", Scalar::F16, 8, "%dx.types.CBufRet.f16.8"),
        ("i16", Scalar::I16, 8, "%dx.types.CBufRet.i16.8"),
        ("f16.minprecision", Scalar::F16, 4, "%dx.types.CBufRet.f16"),
        ("i16.minprecision", Scalar::I16, 4, "%dx.types.CBufRet.i16"),
        ("f64", Scalar::F64, 2, "%dx.types.CBufRet.f64"),
        ("i64", Scalar::I64, 2, "%dx.types.CBufRet.i64"),
    ];
    for &(name, s, n, ty) in legacy {
        v.push(case(format!("cbuffer_load_legacy.{name}"), ALL, cb(), |b| {
            // Minimum precision and native 16-bit rows share the name; the row type differs.
            let fname = format!("dx.op.cbufferLoadLegacy.{}", s.suffix());
            b.declare(format!("declare {ty} @{fname}(i32, %dx.types.Handle, i32)"));
            let d = b.input(Scalar::I32);
            b.line(format!("%row = and i32 {d}, 15"));
            for (k, row) in ["3", "%row", "99"].iter().enumerate() {
                b.line(format!("%c{k} = call {ty} @{fname}(i32 59, %dx.types.Handle %cb, i32 {row})"));
                keep(b, ty, &format!("%c{k}"), &vec![s; n][..n.min(if k == 0 { n } else { 1 })]);
            }
        }));
    }
    // cbufferLoad: every overload, constant and dynamic byte offsets.
    for s in [Scalar::F16, Scalar::F32, Scalar::F64, Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64] {
        v.push(case(format!("cbuffer_load.{}", s.suffix()), ALL, cb(), |b| {
            let fname = format!("dx.op.cbufferLoad.{}", s.suffix());
            b.declare(format!("declare {} @{fname}(i32, %dx.types.Handle, i32, i32)", s.llvm()));
            let d = b.input(Scalar::I32);
            let size = s.bits().max(8) / 8;
            b.line(format!("%off = and i32 {d}, 240"));
            for (k, off) in [format!("{}", 3 * size), "%off".to_string(), "4000".to_string()].iter().enumerate() {
                b.line(format!(
                    "%l{k} = call {} @{fname}(i32 58, %dx.types.Handle %cb, i32 {off}, i32 {size})",
                    s.llvm()
                ));
                b.output(s, &format!("%l{k}"));
            }
        }));
    }
    v
}

fn buffers() -> Vec<Case> {
    let mut v = Vec::new();
    // Typed buffers: SRV and UAV loads with the status, UAV stores.
    for (e, name) in [(C::F32, "f32"), (C::I32, "i32"), (C::U32, "u32"), (C::F16, "f16"), (C::U16, "u16")] {
        let s = scalar_of(e);
        let rr = format!("%dx.types.ResRet.{}", s.suffix());
        v.push(case(
            format!("typed_buffer.{name}"),
            ALL,
            vec![
                Res::new("tb", RC::Srv, K::TypedBuffer, 0).typed(e),
                Res::new("ub", RC::Uav, K::TypedBuffer, 1).typed(e),
            ],
            |b| {
                let i = b.input(Scalar::I32);
                b.declare(format!("declare {rr} @dx.op.bufferLoad.{}(i32, %dx.types.Handle, i32, i32)", s.suffix()));
                b.declare(format!(
                    "declare void @dx.op.bufferStore.{0}(i32, %dx.types.Handle, i32, i32, {1}, {1}, {1}, {1}, i8)",
                    s.suffix(),
                    s.llvm()
                ));
                b.declare("declare i1 @dx.op.checkAccessFullyMapped.i32(i32, i32)");
                for (k, h) in ["%tb", "%ub"].iter().enumerate() {
                    b.line(format!("%t{k} = call {rr} @dx.op.bufferLoad.{}(i32 68, %dx.types.Handle {h}, i32 {i}, i32 undef)", s.suffix()));
                    keep(b, &rr, &format!("%t{k}"), &[s, s, s, s]);
                    b.line(format!("%st{k} = extractvalue {rr} %t{k}, 4"));
                    b.line(format!("%m{k} = call i1 @dx.op.checkAccessFullyMapped.i32(i32 71, i32 %st{k})"));
                    b.output(Scalar::I1, &format!("%m{k}"));
                }
                let x = b.input(s);
                b.line(format!(
                    "call void @dx.op.bufferStore.{0}(i32 69, %dx.types.Handle %ub, i32 {i}, i32 undef, {1} {x}, {1} {x}, {1} {x}, {1} {x}, i8 15)",
                    s.suffix(),
                    s.llvm()
                ));
            },
        ));
    }
    // Raw and structured buffers: every overload, masks, immediate and dynamic offsets.
    for s in [Scalar::I16, Scalar::I32, Scalar::I64, Scalar::F16, Scalar::F32, Scalar::F64] {
        let rr = format!("%dx.types.ResRet.{}", s.suffix());
        v.push(case(
            format!("raw_buffer.{}", s.suffix()),
            ALL,
            vec![
                Res::new("raw", RC::Srv, K::RawBuffer, 0),
                Res::new("st", RC::Srv, K::StructuredBuffer, 1).extra(48),
                Res::new("ust", RC::Uav, K::StructuredBuffer, 1).extra(48),
            ],
            |b| {
                let i = b.input(Scalar::I32);
                b.declare(format!(
                    "declare {rr} @dx.op.rawBufferLoad.{}(i32, %dx.types.Handle, i32, i32, i8, i32)",
                    s.suffix()
                ));
                b.declare(format!(
                    "declare void @dx.op.rawBufferStore.{0}(i32, %dx.types.Handle, i32, i32, {1}, {1}, {1}, {1}, i8, i32)",
                    s.suffix(),
                    s.llvm()
                ));
                let align = s.bits() / 8;
                b.line(format!("%a4 = shl i32 {i}, 4"));
                b.line(format!("%r0 = call {rr} @dx.op.rawBufferLoad.{}(i32 139, %dx.types.Handle %raw, i32 %a4, i32 undef, i8 15, i32 {align})", s.suffix()));
                keep(b, &rr, "%r0", &[s, s, s, s, Scalar::I32]);
                b.line(format!("%r1 = call {rr} @dx.op.rawBufferLoad.{}(i32 139, %dx.types.Handle %st, i32 {i}, i32 8, i8 5, i32 {align})", s.suffix()));
                keep(b, &rr, "%r1", &[s, s, s]);
                b.line(format!("%r2 = call {rr} @dx.op.rawBufferLoad.{}(i32 139, %dx.types.Handle %st, i32 {i}, i32 {i}, i8 1, i32 {align})", s.suffix()));
                keep(b, &rr, "%r2", &[s]);
                let x = b.input(s);
                let y = b.input(s);
                b.line(format!(
                    "call void @dx.op.rawBufferStore.{0}(i32 140, %dx.types.Handle %out, i32 %a4, i32 undef, {1} {x}, {1} {y}, {1} {x}, {1} {y}, i8 15, i32 {align})",
                    s.suffix(),
                    s.llvm()
                ));
                b.line(format!(
                    "call void @dx.op.rawBufferStore.{0}(i32 140, %dx.types.Handle %ust, i32 {i}, i32 16, {1} {x}, {1} undef, {1} {y}, {1} undef, i8 5, i32 {align})",
                    s.suffix(),
                    s.llvm()
                ));
            },
        ));
    }
    v.push(case(
        "buffer_counter",
        ALL,
        vec![Res::new("cnt", RC::Uav, K::StructuredBuffer, 1).extra(4).counter()],
        |b| {
            b.declare("declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8)");
            b.line("%inc = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %cnt, i8 1)");
            b.line("%dec = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %cnt, i8 -1)");
            b.output(Scalar::I32, "%inc");
            b.output(Scalar::I32, "%dec");
        },
    ));
    v
}

fn atomics() -> Vec<Case> {
    let mut v = Vec::new();
    for (s, name) in [(Scalar::I32, "i32"), (Scalar::I64, "i64")] {
        let t = s.llvm();
        v.push(case(
            format!("atomics.raw.{name}"),
            ALL,
            vec![Res::new("img", RC::Uav, K::Texture2D, 1).typed(C::U32), Res::new("tbuf", RC::Uav, K::TypedBuffer, 2).typed(C::I32)],
            |b| {
                let i = b.input(Scalar::I32);
                let x = b.input(s);
                b.declare(format!("declare {t} @dx.op.atomicBinOp.{name}(i32, %dx.types.Handle, i32, i32, i32, i32, {t})"));
                b.declare(format!("declare {t} @dx.op.atomicCompareExchange.{name}(i32, %dx.types.Handle, i32, i32, i32, {t}, {t})"));
                b.line(format!("%aa = and i32 {i}, 1020"));
                for op in 0..9 {
                    b.line(format!("%ab{op} = call {t} @dx.op.atomicBinOp.{name}(i32 78, %dx.types.Handle %out, i32 {op}, i32 %aa, i32 undef, i32 undef, {t} {x})"));
                    if op < 4 {
                        b.output(s, &format!("%ab{op}"));
                    }
                }
                b.line(format!("%cx = call {t} @dx.op.atomicCompareExchange.{name}(i32 79, %dx.types.Handle %out, i32 %aa, i32 undef, i32 undef, {t} {x}, {t} 7)"));
                b.output(s, "%cx");
                if s == Scalar::I32 {
                    for (h, coords) in [("%img", format!("i32 {i}, i32 {i}, i32 undef")), ("%tbuf", format!("i32 {i}, i32 undef, i32 undef"))] {
                        let n = b.fresh();
                        b.line(format!("{n} = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle {h}, i32 0, {coords}, i32 {x})"));
                        b.output(s, &n);
                        let m = b.fresh();
                        b.line(format!("{m} = call i32 @dx.op.atomicCompareExchange.i32(i32 79, %dx.types.Handle {h}, {coords}, i32 {x}, i32 3)"));
                        b.output(s, &m);
                    }
                }
            },
        ));
    }
    v
}

/// (kind, coordinates, offsets it takes, name)
const TEXTURE_KINDS: &[(K, u32, u32, &str)] = &[
    (K::Texture1D, 1, 1, "1d"),
    (K::Texture1DArray, 2, 1, "1darray"),
    (K::Texture2D, 2, 2, "2d"),
    (K::Texture2DArray, 3, 2, "2darray"),
    (K::Texture3D, 3, 3, "3d"),
];

/// `n` coordinates of type `t` from the inputs, padded with `undef` to the operation's 3
/// (integer) or 4 (float) coordinate operands.
fn coords(b: &mut Body, n: u32, t: Scalar) -> String {
    let slots = if t == Scalar::F32 { 4 } else { 3 };
    let mut cs: Vec<String> = (0..n).map(|_| format!("{} {}", t.llvm(), b.input(t))).collect();
    while cs.len() < slots {
        cs.push(format!("{} undef", t.llvm()));
    }
    cs.join(", ")
}

fn texture_loads_and_stores() -> Vec<Case> {
    let mut v = Vec::new();
    for &(kind, n, offs, kname) in TEXTURE_KINDS {
        for e in [C::F32, C::I32, C::F16, C::U16] {
            let s = scalar_of(e);
            let rr = format!("%dx.types.ResRet.{}", s.suffix());
            v.push(case(
                format!("texture.load_store.{kname}.{}", s.suffix()),
                ALL,
                vec![Res::new("t", RC::Srv, kind, 0).typed(e), Res::new("u", RC::Uav, kind, 1).typed(e)],
                |b| {
                    b.declare(format!(
                        "declare {rr} @dx.op.textureLoad.{}(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32)",
                        s.suffix()
                    ));
                    b.declare(format!(
                        "declare void @dx.op.textureStore.{0}(i32, %dx.types.Handle, i32, i32, i32, {1}, {1}, {1}, {1}, i8)",
                        s.suffix(),
                        s.llvm()
                    ));
                    let c = coords(b, n, Scalar::I32);
                    let mip = b.input(Scalar::I32);
                    let const_off: Vec<String> =
                        (0..3).map(|k| if k < offs { format!("i32 {}", [1, -2, 3][k as usize]) } else { "i32 undef".into() }).collect();
                    let dyn_off: Vec<String> =
                        (0..3).map(|k| if k < offs { format!("i32 {}", mip) } else { "i32 undef".into() }).collect();
                    for (k, (m, o)) in [
                        ("i32 0".to_string(), "i32 undef, i32 undef, i32 undef".to_string()),
                        (format!("i32 {mip}"), const_off.join(", ")),
                        ("i32 1".to_string(), dyn_off.join(", ")),
                    ]
                    .iter()
                    .enumerate()
                    {
                        b.line(format!("%tl{k} = call {rr} @dx.op.textureLoad.{}(i32 66, %dx.types.Handle %t, {m}, {c}, {o})", s.suffix()));
                        keep(b, &rr, &format!("%tl{k}"), &[s, s, s, s, Scalar::I32]);
                    }
                    b.line(format!("%tu = call {rr} @dx.op.textureLoad.{}(i32 66, %dx.types.Handle %u, i32 undef, {c}, i32 undef, i32 undef, i32 undef)", s.suffix()));
                    keep(b, &rr, "%tu", &[s, s, s, s]);
                    let x = b.input(s);
                    b.line(format!(
                        "call void @dx.op.textureStore.{0}(i32 67, %dx.types.Handle %u, {c}, {1} {x}, {1} {x}, {1} {x}, {1} {x}, i8 15)",
                        s.suffix(),
                        s.llvm()
                    ));
                },
            ));
        }
    }
    for (kind, kname, n) in [(K::Texture2DMS, "2dms", 2), (K::Texture2DMSArray, "2dmsarray", 3)] {
        v.push(case(
            format!("texture.multisampled.{kname}"),
            ALL,
            vec![Res::new("t", RC::Srv, kind, 0).typed(C::F32).samples(4), Res::new("u", RC::Uav, kind, 1).typed(C::F32)],
            |b| {
                b.declare("declare %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32)");
                b.declare("declare void @dx.op.textureStoreSample.f32(i32, %dx.types.Handle, i32, i32, i32, float, float, float, float, i8, i32)");
                b.declare("declare %dx.types.SamplePos @dx.op.texture2DMSGetSamplePosition(i32, %dx.types.Handle, i32)");
                let c = coords(b, n, Scalar::I32);
                let smp = b.input(Scalar::I32);
                b.line(format!("%ml = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %t, i32 {smp}, {c}, i32 undef, i32 undef, i32 undef)"));
                keep(b, "%dx.types.ResRet.f32", "%ml", &[Scalar::F32; 4]);
                b.line(format!("%mp = call %dx.types.SamplePos @dx.op.texture2DMSGetSamplePosition(i32 75, %dx.types.Handle %t, i32 {smp})"));
                keep(b, "%dx.types.SamplePos", "%mp", &[Scalar::F32; 2]);
                let x = b.input(Scalar::F32);
                b.line(format!("call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %u, {c}, float {x}, float {x}, float {x}, float {x}, i8 15, i32 {smp})"));
            },
        ));
    }
    v
}

fn dimensions() -> Vec<Case> {
    let mut res = vec![
        Res::new("t1", RC::Srv, K::Texture1D, 0).typed(C::F32),
        Res::new("t1a", RC::Srv, K::Texture1DArray, 1).typed(C::F32),
        Res::new("t2", RC::Srv, K::Texture2D, 2).typed(C::F32),
        Res::new("t2a", RC::Srv, K::Texture2DArray, 3).typed(C::F32),
        Res::new("t3", RC::Srv, K::Texture3D, 4).typed(C::F32),
        Res::new("tc", RC::Srv, K::TextureCube, 5).typed(C::F32),
        Res::new("tca", RC::Srv, K::TextureCubeArray, 6).typed(C::F32),
        Res::new("tms", RC::Srv, K::Texture2DMS, 7).typed(C::F32).samples(4),
        Res::new("tmsa", RC::Srv, K::Texture2DMSArray, 8).typed(C::F32).samples(4),
        Res::new("tb", RC::Srv, K::TypedBuffer, 9).typed(C::F32),
        Res::new("raw", RC::Srv, K::RawBuffer, 10),
        Res::new("st", RC::Srv, K::StructuredBuffer, 11).extra(12),
        Res::new("u2", RC::Uav, K::Texture2D, 1).typed(C::F32),
        Res::new("u2a", RC::Uav, K::Texture2DArray, 2).typed(C::F32),
        Res::new("u3", RC::Uav, K::Texture3D, 3).typed(C::F32),
        Res::new("ub", RC::Uav, K::TypedBuffer, 4).typed(C::U32),
    ];
    res.push(Res::new("ust", RC::Uav, K::StructuredBuffer, 5).extra(20));
    let names: Vec<&'static str> = res.iter().map(|r| r.name).collect();
    vec![case("get_dimensions.every_kind", ALL, res, |b| {
        b.declare("declare %dx.types.Dimensions @dx.op.getDimensions(i32, %dx.types.Handle, i32)");
        let mip = b.input(Scalar::I32);
        for (k, h) in names.iter().enumerate() {
            let m = if k % 2 == 0 { mip.as_str() } else { "0" };
            b.line(format!(
                "%gd{k} = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %{h}, i32 {m})"
            ));
            keep(b, "%dx.types.Dimensions", &format!("%gd{k}"), &[Scalar::I32; 4]);
        }
    })]
}

/// Sampled kinds: (kind, coordinates, offsets, gradient components, name).
const SAMPLED: &[(K, u32, u32, u32, &str)] = &[
    (K::Texture1D, 1, 1, 1, "1d"),
    (K::Texture1DArray, 2, 1, 1, "1darray"),
    (K::Texture2D, 2, 2, 2, "2d"),
    (K::Texture2DArray, 3, 2, 2, "2darray"),
    (K::Texture3D, 3, 3, 3, "3d"),
    (K::TextureCube, 3, 0, 3, "cube"),
    (K::TextureCubeArray, 4, 0, 3, "cubearray"),
];

fn sampling() -> Vec<Case> {
    let mut v = Vec::new();
    for &(kind, n, offs, grads, kname) in SAMPLED {
        for s in [Scalar::F32, Scalar::F16] {
            let rr = format!("%dx.types.ResRet.{}", s.suffix());
            let sfx = s.suffix();
            let t = s.llvm();
            // Implicit-derivative samples (pixel and compute shaders).
            let resources = || {
                vec![
                    Res::new("t", RC::Srv, kind, 0).typed(C::F32),
                    Res::new("smp", RC::Sampler, K::Sampler, 0),
                    Res::new("cmp", RC::Sampler, K::Sampler, 1).extra(1),
                ]
            };
            let comparison = kind != K::Texture3D;
            v.push(case(format!("sample.implicit.{kname}.{sfx}"), DERIV, resources(), |b| {
                let c = coords(b, n, Scalar::F32);
                let o: Vec<String> =
                    (0..3).map(|k| if k < offs { format!("i32 {}", [1, -1, 2][k as usize]) } else { "i32 undef".into() }).collect();
                let o = o.join(", ");
                let (bias, clamp, dref) = (b.input(Scalar::F32), b.input(Scalar::F32), b.input(Scalar::F32));
                b.declare(format!("declare {rr} @dx.op.sample.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)"));
                b.declare(format!("declare {rr} @dx.op.sampleBias.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float)"));
                b.line(format!("%s0 = call {rr} @dx.op.sample.{sfx}(i32 60, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, float undef)"));
                b.line(format!("%s1 = call {rr} @dx.op.sample.{sfx}(i32 60, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, float {clamp})"));
                b.line(format!("%s2 = call {rr} @dx.op.sampleBias.{sfx}(i32 61, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, float {bias}, float {clamp})"));
                for k in 0..3 {
                    keep(b, &rr, &format!("%s{k}"), &[s, s, s, s]);
                }
                if comparison {
                    b.declare(format!("declare {rr} @dx.op.sampleCmp.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float)"));
                    b.declare(format!("declare {rr} @dx.op.sampleCmpBias.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float, float)"));
                    b.line(format!("%s3 = call {rr} @dx.op.sampleCmp.{sfx}(i32 64, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, float {dref}, float {clamp})"));
                    b.line(format!("%s4 = call {rr} @dx.op.sampleCmpBias.{sfx}(i32 255, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, float {dref}, float {bias}, float undef)"));
                    keep(b, &rr, "%s3", &[s]);
                    keep(b, &rr, "%s4", &[s]);
                }
                if kind != K::Texture3D {
                    b.declare("declare float @dx.op.calculateLOD.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, i1)");
                    let cl: Vec<String> = c.split(", ").take(3).map(str::to_string).collect();
                    let cl = if matches!(kind, K::Texture1DArray | K::Texture2DArray | K::TextureCubeArray) {
                        // CalculateLOD takes no array layer.
                        let mut v: Vec<String> = cl[..(n as usize - 1).min(3)].to_vec();
                        while v.len() < 3 {
                            v.push("float undef".into());
                        }
                        v.join(", ")
                    } else {
                        cl.join(", ")
                    };
                    for (k, clamped) in ["true", "false"].iter().enumerate() {
                        b.line(format!("%lod{k} = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %t, %dx.types.Handle %smp, {cl}, i1 {clamped})"));
                        b.output(Scalar::F32, &format!("%lod{k}"));
                    }
                }
            }));
            // Explicit LOD and gradients (every stage), constant and dynamic offsets.
            v.push(case(format!("sample.explicit.{kname}.{sfx}"), ALL, resources(), |b| {
                let c = coords(b, n, Scalar::F32);
                let d = b.input(Scalar::I32);
                let offsets: Vec<String> = (0..2)
                    .map(|form| {
                        (0..3)
                            .map(|k| {
                                if k >= offs {
                                    "i32 undef".to_string()
                                } else if form == 0 {
                                    format!("i32 {}", [-3, 2, 1][k as usize])
                                } else {
                                    format!("i32 {d}")
                                }
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .collect();
                // Dynamic offsets switch over 16^n cases: 1D and 2D only (see textures.rs).
                let forms = if offs == 3 { 1 } else { 2 };
                let (lod, dref, clamp) = (b.input(Scalar::F32), b.input(Scalar::F32), b.input(Scalar::F32));
                let g: Vec<String> =
                    (0..3).map(|k| if k < grads { format!("float {lod}") } else { "float undef".into() }).collect();
                let g = g.join(", ");
                b.declare(format!("declare {rr} @dx.op.sampleLevel.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)"));
                b.declare(format!("declare {rr} @dx.op.sampleGrad.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float, float, float, float, float, float)"));
                for (f, o) in offsets.iter().take(forms).enumerate() {
                    b.line(format!("%e{f}0 = call {rr} @dx.op.sampleLevel.{sfx}(i32 62, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, float {lod})"));
                    b.line(format!("%e{f}1 = call {rr} @dx.op.sampleGrad.{sfx}(i32 63, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, {g}, {g}, float {clamp})"));
                    keep(b, &rr, &format!("%e{f}0"), &[s, s, s, s]);
                    keep(b, &rr, &format!("%e{f}1"), &[s, s, s, s]);
                    if comparison {
                        b.declare(format!("declare {rr} @dx.op.sampleCmpLevelZero.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)"));
                        b.declare(format!("declare {rr} @dx.op.sampleCmpLevel.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float)"));
                        b.declare(format!("declare {rr} @dx.op.sampleCmpGrad.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float, float, float, float, float, float, float)"));
                        b.line(format!("%e{f}2 = call {rr} @dx.op.sampleCmpLevelZero.{sfx}(i32 65, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, float {dref})"));
                        b.line(format!("%e{f}3 = call {rr} @dx.op.sampleCmpLevel.{sfx}(i32 224, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, float {dref}, float {lod})"));
                        b.line(format!("%e{f}4 = call {rr} @dx.op.sampleCmpGrad.{sfx}(i32 254, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, float {dref}, {g}, {g}, float {clamp})"));
                        for k in 2..5 {
                            keep(b, &rr, &format!("%e{f}{k}"), &[s]);
                        }
                    }
                }
                let _ = t;
            }));
        }
    }
    v
}

fn gathers() -> Vec<Case> {
    let mut v = Vec::new();
    for (kind, n, offs, kname) in [
        (K::Texture2D, 2, 2, "2d"),
        (K::Texture2DArray, 3, 2, "2darray"),
        (K::TextureCube, 3, 0, "cube"),
        (K::TextureCubeArray, 4, 0, "cubearray"),
    ] {
        for (e, s) in [(C::F32, Scalar::F32), (C::I32, Scalar::I32), (C::F16, Scalar::F16)] {
            let rr = format!("%dx.types.ResRet.{}", s.suffix());
            let sfx = s.suffix();
            v.push(case(
                format!("gather.{kname}.{sfx}"),
                ALL,
                vec![
                    Res::new("t", RC::Srv, kind, 0).typed(e),
                    Res::new("smp", RC::Sampler, K::Sampler, 0),
                    Res::new("cmp", RC::Sampler, K::Sampler, 1).extra(1),
                ],
                |b| {
                    let c = coords(b, n, Scalar::F32);
                    let d = b.input(Scalar::I32);
                    let dref = b.input(Scalar::F32);
                    b.declare(format!("declare {rr} @dx.op.textureGather.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32)"));
                    b.declare(format!("declare {rr} @dx.op.textureGatherCmp.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)"));
                    let forms: Vec<String> = if offs == 0 {
                        vec!["i32 undef, i32 undef".into()]
                    } else {
                        vec!["i32 undef, i32 undef".into(), "i32 -2, i32 3".into(), format!("i32 {d}, i32 {d}")]
                    };
                    for (f, o) in forms.iter().enumerate() {
                        for ch in 0..4 {
                            b.line(format!("%g{f}{ch} = call {rr} @dx.op.textureGather.{sfx}(i32 73, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o}, i32 {ch})"));
                            keep(b, &rr, &format!("%g{f}{ch}"), &[s]);
                        }
                        if s != Scalar::I32 {
                            b.line(format!("%gc{f} = call {rr} @dx.op.textureGatherCmp.{sfx}(i32 74, %dx.types.Handle %t, %dx.types.Handle %cmp, {c}, {o}, i32 0, float {dref})"));
                            keep(b, &rr, &format!("%gc{f}"), &[s, s, s, s, Scalar::I32]);
                        }
                    }
                },
            ));
        }
    }
    // Raw gathers (SM 6.7): the first channel's bits of 16- and 32-bit integer textures.
    for (e, s) in [(C::U16, Scalar::I16), (C::U32, Scalar::I32)] {
        let rr = format!("%dx.types.ResRet.{}", s.suffix());
        let sfx = s.suffix();
        v.push(case(
            format!("gather.raw.{sfx}"),
            ALL,
            vec![Res::new("t", RC::Srv, K::Texture2D, 0).typed(e), Res::new("smp", RC::Sampler, K::Sampler, 0)],
            |b| {
                let c = coords(b, 2, Scalar::F32);
                let d = b.input(Scalar::I32);
                b.declare(format!("declare {rr} @dx.op.textureGatherRaw.{sfx}(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32)"));
                for (f, o) in ["i32 undef, i32 undef".to_string(), "i32 1, i32 -1".into(), format!("i32 {d}, i32 0")].iter().enumerate() {
                    b.line(format!("%gr{f} = call {rr} @dx.op.textureGatherRaw.{sfx}(i32 223, %dx.types.Handle %t, %dx.types.Handle %smp, {c}, {o})"));
                    keep(b, &rr, &format!("%gr{f}"), &[s, s, s, s]);
                }
            },
        ));
    }
    v
}

fn barriers() -> Vec<Case> {
    let mut v = Vec::new();
    // barrier(mode): every mode in compute; the device-wide UAV fence everywhere.
    v.push(case("barrier.modes.compute", GROUPS, vec![], |b| {
        b.declare("declare void @dx.op.barrier(i32, i32)");
        for mode in [1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15] {
            b.line(format!("call void @dx.op.barrier(i32 80, i32 {mode})"));
        }
    }));
    v.push(case("barrier.modes.graphics", ALL, vec![], |b| {
        b.declare("declare void @dx.op.barrier(i32, i32)");
        b.line("call void @dx.op.barrier(i32 80, i32 2)");
    }));
    v.push(case("barrier.by_memory.compute", GROUPS, vec![], |b| {
        b.declare("declare void @dx.op.barrierByMemoryType(i32, i32, i32)");
        b.declare("declare void @dx.op.barrierByMemoryHandle(i32, %dx.types.Handle, i32)");
        for (m, s) in [(0, 1), (1, 4), (1, 5), (1, 2), (1, 3), (2, 2), (2, 3), (3, 7), (3, 4), (1, 0), (2, 0)] {
            b.line(format!("call void @dx.op.barrierByMemoryType(i32 244, i32 {m}, i32 {s})"));
        }
        for s in [0, 1, 2, 3, 4, 5, 7] {
            b.line(format!("call void @dx.op.barrierByMemoryHandle(i32 245, %dx.types.Handle %out, i32 {s})"));
        }
    }));
    v.push(case("barrier.by_memory.graphics", ALL, vec![], |b| {
        b.declare("declare void @dx.op.barrierByMemoryType(i32, i32, i32)");
        b.declare("declare void @dx.op.barrierByMemoryHandle(i32, %dx.types.Handle, i32)");
        b.line("call void @dx.op.barrierByMemoryType(i32 244, i32 1, i32 4)");
        b.line("call void @dx.op.barrierByMemoryType(i32 244, i32 1, i32 0)");
        b.line("call void @dx.op.barrierByMemoryHandle(i32 245, %dx.types.Handle %out, i32 4)");
    }));
    v
}

fn el(name: &'static str, component: C, system_value: u32, rows: u32, cols: u32, start: Option<(u32, u32)>) -> El {
    El { name, component, system_value, interpolation: if component == C::F32 { 2 } else { 1 }, rows, cols, start }
}

fn stage_io() -> Vec<Case> {
    let mut v = Vec::new();
    let mut ps = case("io.pixel", &["ps"], vec![], |b| {
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)");
        b.declare("declare half @dx.op.loadInput.f16(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
        b.declare("declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.discard(i32, i1)");
        for col in 0..4 {
            b.line(format!("%pos{col} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 undef)"));
            b.output(Scalar::F32, &format!("%pos{col}"));
        }
        let r = b.input(Scalar::I32);
        b.line(format!("%row = and i32 {r}, 1"));
        b.line("%uv = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 %row, i8 1, i32 undef)");
        b.line("%uvh = call half @dx.op.loadInput.f16(i32 4, i32 1, i32 1, i8 0, i32 undef)");
        b.line("%id = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 undef)");
        b.line("%ff = call i32 @dx.op.loadInput.i32(i32 4, i32 3, i32 0, i8 0, i32 undef)");
        b.output(Scalar::F32, "%uv");
        b.output(Scalar::F16, "%uvh");
        b.output(Scalar::I32, "%id");
        b.output(Scalar::I32, "%ff");
        let c = b.input(Scalar::I1);
        b.line(format!("call void @dx.op.discard(i32 82, i1 {c})"));
        b.line("call void @dx.op.discard(i32 82, i1 false)");
        for col in 0..4 {
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %uv)"));
        }
        b.line("call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 0, i8 0, i32 %id)");
        b.line("call void @dx.op.storeOutput.f32(i32 5, i32 2, i32 0, i8 0, float %uv)");
    });
    ps.shell.inputs = vec![
        el("SV_Position", C::F32, 3, 1, 4, Some((0, 0))),
        el("TEXCOORD", C::F32, 0, 2, 2, Some((1, 0))),
        el("ID", C::U32, 0, 1, 1, Some((3, 0))),
        el("SV_IsFrontFace", C::U32, 13, 1, 1, None),
    ];
    ps.shell.outputs = vec![
        el("SV_Target", C::F32, 16, 1, 4, Some((0, 0))),
        el("SV_Target", C::U32, 16, 1, 1, Some((1, 0))),
        el("SV_Depth", C::F32, 17, 1, 1, None),
    ];
    v.push(ps);
    let mut vs = case("io.vertex", &["vs"], vec![], |b| {
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
        b.declare("declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)");
        for col in 0..4 {
            b.line(format!("%p{col} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 undef)"));
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %p{col})"));
        }
        b.line("%vid = call i32 @dx.op.loadInput.i32(i32 4, i32 1, i32 0, i8 0, i32 undef)");
        b.line("%a = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 1, i32 undef)");
        b.line("call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 0, i8 0, i32 %vid)");
        b.line("call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 1, i8 0, i32 %a)");
        b.line("call void @dx.op.storeOutput.f32(i32 5, i32 2, i32 0, i8 0, float %p0)");
        b.output(Scalar::I32, "%a");
    });
    vs.shell.inputs = vec![
        el("POSITION", C::F32, 0, 1, 4, Some((0, 0))),
        el("SV_VertexID", C::U32, 1, 1, 1, None),
        el("ATTR", C::U32, 0, 1, 2, Some((1, 0))),
    ];
    vs.shell.outputs = vec![
        el("SV_Position", C::F32, 3, 1, 4, Some((0, 0))),
        el("TEXCOORD", C::U32, 0, 2, 1, Some((1, 0))),
        el("SV_ClipDistance", C::F32, 6, 1, 1, Some((3, 0))),
    ];
    v.push(vs);
    v
}

/// The mesh and amplification shader operations: output counts, indices, vertex and
/// primitive outputs (dynamic indices and rows), the payload in both stages.
fn mesh_stages() -> Vec<Case> {
    let mut v = Vec::new();
    let mut ms = case("stage.mesh", &["ms"], vec![], |b| {
        b.declare("declare { i32, float }* @dx.op.getMeshPayload.struct.P(i32)");
        b.declare("declare void @dx.op.setMeshOutputCounts(i32, i32, i32)");
        b.declare("declare void @dx.op.emitIndices(i32, i32, i32, i32, i32)");
        b.declare("declare void @dx.op.storeVertexOutput.f32(i32, i32, i32, i8, float, i32)");
        b.declare("declare void @dx.op.storeVertexOutput.i32(i32, i32, i32, i8, i32, i32)");
        b.declare("declare void @dx.op.storePrimitiveOutput.i32(i32, i32, i32, i8, i32, i32)");
        b.declare("declare void @dx.op.storePrimitiveOutput.f32(i32, i32, i32, i8, float, i32)");
        b.line("%pl = call { i32, float }* @dx.op.getMeshPayload.struct.P(i32 170)");
        b.line("%plp = getelementptr inbounds { i32, float }, { i32, float }* %pl, i32 0, i32 0");
        b.line("%plv = load i32, i32* %plp, align 4");
        b.output(Scalar::I32, "%plv");
        let n = b.input(Scalar::I32);
        b.line(format!("%nv = urem i32 {n}, 4"));
        b.line("call void @dx.op.setMeshOutputCounts(i32 168, i32 %nv, i32 1)");
        b.line(format!("%vx = urem i32 {n}, 3"));
        b.line("call void @dx.op.emitIndices(i32 169, i32 0, i32 0, i32 1, i32 %vx)");
        let x = b.input(Scalar::F32);
        for col in 0..4 {
            b.line(format!(
                "call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 {col}, float {x}, i32 %vx)"
            ));
        }
        let r = b.input(Scalar::I32);
        b.line(format!("%row = urem i32 {r}, 2"));
        b.line("call void @dx.op.storeVertexOutput.i32(i32 171, i32 1, i32 %row, i8 1, i32 %plv, i32 2)");
        b.line("call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 0, i32 0, i8 0, i32 %plv, i32 0)");
        b.line("call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 1, i32 0, i8 0, i32 %vx, i32 0)");
        b.line("call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 2, i32 0, i8 0, i32 %vx, i32 0)");
        // SV_CullPrimitive is a bool element stored as an i32 (as DXC writes it).
        b.line("%cull = icmp eq i32 %vx, 1");
        b.line("%culli = zext i1 %cull to i32");
        b.line("call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 3, i32 0, i8 0, i32 %culli, i32 0)");
        b.line("call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 4, i32 0, i8 0, i32 5, i32 0)");
        b.line(format!("call void @dx.op.storePrimitiveOutput.f32(i32 172, i32 5, i32 0, i8 2, float {x}, i32 0)"));
    });
    ms.shell.outputs =
        vec![el("SV_Position", C::F32, 3, 1, 4, Some((0, 0))), el("DATA", C::U32, 0, 2, 2, Some((1, 0)))];
    ms.shell.patch_constants = vec![
        el("SV_PrimitiveID", C::U32, 10, 1, 1, Some((0, 0))),
        el("SV_RenderTargetArrayIndex", C::U32, 4, 1, 1, Some((0, 1))),
        el("SV_ViewportArrayIndex", C::U32, 5, 1, 1, Some((0, 2))),
        el("SV_CullPrimitive", C::I1, 30, 1, 1, None),
        el("SV_ShadingRate", C::U32, 29, 1, 1, Some((0, 3))),
        el("COLOR", C::F32, 0, 1, 4, Some((1, 0))),
    ];
    ms.shell.threads = [4, 1, 1];
    v.push(ms);
    let mut amp = case("stage.amplification", &["as"], vec![], |b| {
        b.declare("declare void @dx.op.dispatchMesh.struct.P(i32, i32, i32, i32, { i32, float }*)");
        b.line("%pl = alloca { i32, float }, align 4");
        let w = b.input(Scalar::I32);
        b.line("%plp = getelementptr inbounds { i32, float }, { i32, float }* %pl, i32 0, i32 0");
        b.line(format!("store i32 {w}, i32* %plp, align 4"));
        b.line(format!("%gx = urem i32 {w}, 8"));
        b.line("call void @dx.op.dispatchMesh.struct.P(i32 173, i32 %gx, i32 1, i32 1, { i32, float }* %pl)");
    });
    amp.shell.threads = [4, 1, 1];
    v.push(amp);
    v
}

/// The hull, domain and geometry shader operations, with per-vertex inputs indexed by a
/// constant and by a dynamic control point.
fn graphics_stages() -> Vec<Case> {
    let position = || el("SV_Position", C::F32, 3, 1, 4, Some((0, 0)));
    let factors = || {
        vec![
            El { interpolation: 0, ..el("SV_TessFactor", C::F32, 25, 3, 1, Some((0, 3))) },
            El { interpolation: 0, ..el("SV_InsideTessFactor", C::F32, 26, 1, 1, Some((3, 0))) },
            El { interpolation: 0, ..el("CENTER", C::F32, 0, 1, 2, Some((0, 0))) },
        ]
    };
    let mut v = Vec::new();
    let mut gs = case("stage.geometry", &["gs"], vec![], |b| {
        b.declare("declare i32 @dx.op.gsInstanceID.i32(i32)");
        b.declare("declare i32 @dx.op.primitiveID.i32(i32)");
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
        b.declare("declare void @dx.op.emitStream(i32, i8)");
        b.declare("declare void @dx.op.cutStream(i32, i8)");
        b.declare("declare void @dx.op.emitThenCutStream(i32, i8)");
        b.line("%inst = call i32 @dx.op.gsInstanceID.i32(i32 100)");
        b.line("%prim = call i32 @dx.op.primitiveID.i32(i32 108)");
        b.output(Scalar::I32, "%inst");
        b.output(Scalar::I32, "%prim");
        let w = b.input(Scalar::I32);
        b.line(format!("%v = urem i32 {w}, 3"));
        for col in 0..4 {
            b.line(format!("%p{col} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 %v)"));
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %p{col})"));
        }
        b.line("call void @dx.op.emitStream(i32 97, i8 0)");
        b.line("call void @dx.op.cutStream(i32 98, i8 0)");
        for col in 0..4 {
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %p{col})"));
        }
        b.line("call void @dx.op.emitThenCutStream(i32 99, i8 0)");
    });
    gs.shell.inputs = vec![position()];
    gs.shell.outputs = vec![position()];
    v.push(gs);
    let mut hs = case("stage.hull", &["hs"], vec![], |b| {
        b.declare("declare i32 @dx.op.outputControlPointID.i32(i32)");
        b.declare("declare i32 @dx.op.primitiveID.i32(i32)");
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
        b.declare("declare float @dx.op.loadOutputControlPoint.f32(i32, i32, i32, i8, i32)");
        b.declare("declare void @dx.op.storePatchConstant.f32(i32, i32, i32, i8, float)");
        b.declare("declare float @dx.op.loadPatchConstant.f32(i32, i32, i32, i8)");
        b.line("%cp = call i32 @dx.op.outputControlPointID.i32(i32 107)");
        b.output(Scalar::I32, "%cp");
        for col in 0..4 {
            b.line(format!("%p{col} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 %cp)"));
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %p{col})"));
        }
    });
    hs.shell.inputs = vec![position()];
    hs.shell.outputs = vec![position()];
    hs.shell.patch_constants = factors();
    // The patch-constant function: every output control point, the primitive id, the
    // factors, and a patch constant read back (as DXC's DXBC converter writes it).
    let mut pc = vec!["  %prim = call i32 @dx.op.primitiveID.i32(i32 108)".to_string()];
    pc.push("  %f = uitofp i32 %prim to float".into());
    for k in 0..3 {
        pc.push(format!(
            "  %x{k} = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 0, i32 0, i8 0, i32 {k})"
        ));
        pc.push(format!("  %e{k} = fadd fast float %x{k}, %f"));
        pc.push(format!("  call void @dx.op.storePatchConstant.f32(i32 106, i32 0, i32 {k}, i8 0, float %e{k})"));
    }
    pc.push("  call void @dx.op.storePatchConstant.f32(i32 106, i32 1, i32 0, i8 0, float %f)".into());
    pc.push("  call void @dx.op.storePatchConstant.f32(i32 106, i32 2, i32 0, i8 0, float %x0)".into());
    pc.push("  %back = call float @dx.op.loadPatchConstant.f32(i32 104, i32 2, i32 0, i8 0)".into());
    pc.push("  call void @dx.op.storePatchConstant.f32(i32 106, i32 2, i32 0, i8 1, float %back)".into());
    pc.push("  ret void".into());
    hs.shell.patch_body = Some(pc.join("\n"));
    v.push(hs);
    let mut ds = case("stage.domain", &["ds"], vec![], |b| {
        b.declare("declare float @dx.op.domainLocation.f32(i32, i8)");
        b.declare("declare i32 @dx.op.primitiveID.i32(i32)");
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare float @dx.op.loadPatchConstant.f32(i32, i32, i32, i8)");
        b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
        for c in 0..3 {
            b.line(format!("%uvw{c} = call float @dx.op.domainLocation.f32(i32 105, i8 {c})"));
            b.output(Scalar::F32, &format!("%uvw{c}"));
        }
        b.line("%prim = call i32 @dx.op.primitiveID.i32(i32 108)");
        b.output(Scalar::I32, "%prim");
        let w = b.input(Scalar::I32);
        b.line(format!("%cp = urem i32 {w}, 3"));
        for col in 0..4 {
            b.line(format!("%p{col} = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 %cp)"));
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float %p{col})"));
        }
        b.declare("declare float @dx.op.loadOutputControlPoint.f32(i32, i32, i32, i8, i32)");
        b.line("%same = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 0, i32 0, i8 1, i32 %cp)");
        b.output(Scalar::F32, "%same");
        b.line("%edge = call float @dx.op.loadPatchConstant.f32(i32 104, i32 0, i32 2, i8 0)");
        b.line("%inside = call float @dx.op.loadPatchConstant.f32(i32 104, i32 1, i32 0, i8 0)");
        b.line("%center = call float @dx.op.loadPatchConstant.f32(i32 104, i32 2, i32 0, i8 1)");
        b.output(Scalar::F32, "%edge");
        b.output(Scalar::F32, "%inside");
        b.output(Scalar::F32, "%center");
    });
    ds.shell.inputs = vec![position()];
    ds.shell.outputs = vec![position()];
    ds.shell.patch_constants = factors();
    v.push(ds);
    v
}

/// Pixel-shader pull-model interpolation, per-vertex attributes and render-target sample
/// queries: every overload, constant and dynamic rows, a `loadInput` of a per-vertex element.
fn interpolation() -> Vec<Case> {
    let mut ps = case("interpolation.pixel", &["ps"], vec![], |b| {
        b.declare("declare float @dx.op.evalCentroid.f32(i32, i32, i32, i8)");
        b.declare("declare half @dx.op.evalCentroid.f16(i32, i32, i32, i8)");
        b.declare("declare float @dx.op.evalSampleIndex.f32(i32, i32, i32, i8, i32)");
        b.declare("declare half @dx.op.evalSampleIndex.f16(i32, i32, i32, i8, i32)");
        b.declare("declare float @dx.op.evalSnapped.f32(i32, i32, i32, i8, i32, i32)");
        b.declare("declare half @dx.op.evalSnapped.f16(i32, i32, i32, i8, i32, i32)");
        b.declare("declare float @dx.op.attributeAtVertex.f32(i32, i32, i32, i8, i8)");
        b.declare("declare half @dx.op.attributeAtVertex.f16(i32, i32, i32, i8, i8)");
        b.declare("declare i32 @dx.op.attributeAtVertex.i32(i32, i32, i32, i8, i8)");
        b.declare("declare i16 @dx.op.attributeAtVertex.i16(i32, i32, i32, i8, i8)");
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        b.declare("declare i32 @dx.op.renderTargetGetSampleCount(i32)");
        b.declare("declare %dx.types.SamplePos @dx.op.renderTargetGetSamplePosition(i32, i32)");
        let (r, sample, ox, oy, vx) = (
            b.input(Scalar::I32),
            b.input(Scalar::I32),
            b.input(Scalar::I32),
            b.input(Scalar::I32),
            b.input(Scalar::I32),
        );
        b.line(format!("%row = and i32 {r}, 1"));
        // Element 1: TEXCOORD, 2 rows of 2, linear; 2: NORMAL, noperspective; 3: HALF, linear min16float.
        b.line("%c0 = call float @dx.op.evalCentroid.f32(i32 89, i32 1, i32 0, i8 1)");
        b.line("%c1 = call float @dx.op.evalCentroid.f32(i32 89, i32 2, i32 0, i8 2)");
        b.line("%c2 = call half @dx.op.evalCentroid.f16(i32 89, i32 3, i32 0, i8 0)");
        b.line(format!("%s0 = call float @dx.op.evalSampleIndex.f32(i32 88, i32 1, i32 %row, i8 0, i32 {sample})"));
        b.line(format!("%s1 = call half @dx.op.evalSampleIndex.f16(i32 88, i32 3, i32 0, i8 0, i32 {sample})"));
        b.line(format!("%o0 = call float @dx.op.evalSnapped.f32(i32 87, i32 1, i32 1, i8 1, i32 {ox}, i32 {oy})"));
        b.line("%o1 = call float @dx.op.evalSnapped.f32(i32 87, i32 2, i32 0, i8 0, i32 -8, i32 7)");
        b.line(format!("%o2 = call half @dx.op.evalSnapped.f16(i32 87, i32 3, i32 0, i8 0, i32 {ox}, i32 0)"));
        for x in ["%c0", "%c1", "%s0", "%o0", "%o1"] {
            b.output(Scalar::F32, x);
        }
        for x in ["%c2", "%s1", "%o2"] {
            b.output(Scalar::F16, x);
        }
        // Element 4: COLOR, nointerpolation float4; 5: ID, nointerpolation uint; 6: SMALL, nointerpolation half and i16.
        b.line("%a0 = call float @dx.op.attributeAtVertex.f32(i32 137, i32 4, i32 0, i8 3, i8 1)");
        b.line(format!("%vtx8 = trunc i32 {vx} to i8"));
        b.line("%a1 = call i32 @dx.op.attributeAtVertex.i32(i32 137, i32 5, i32 0, i8 0, i8 %vtx8)");
        b.line("%a2 = call half @dx.op.attributeAtVertex.f16(i32 137, i32 6, i32 0, i8 0, i8 2)");
        b.line("%a3 = call i16 @dx.op.attributeAtVertex.i16(i32 137, i32 7, i32 0, i8 0, i8 0)");
        b.line("%l0 = call float @dx.op.loadInput.f32(i32 4, i32 4, i32 0, i8 2, i32 undef)");
        b.output(Scalar::F32, "%a0");
        b.output(Scalar::I32, "%a1");
        b.output(Scalar::F16, "%a2");
        b.output(Scalar::I16, "%a3");
        b.output(Scalar::F32, "%l0");
        b.line("%n = call i32 @dx.op.renderTargetGetSampleCount(i32 77)");
        b.output(Scalar::I32, "%n");
        b.line(format!("%sp = call %dx.types.SamplePos @dx.op.renderTargetGetSamplePosition(i32 76, i32 {sample})"));
        keep(b, "%dx.types.SamplePos", "%sp", &[Scalar::F32, Scalar::F32]);
    });
    let with = |e: El, interpolation: u32| El { interpolation, ..e };
    ps.shell.inputs = vec![
        el("SV_Position", C::F32, 3, 1, 4, Some((0, 0))),
        el("TEXCOORD", C::F32, 0, 2, 2, Some((1, 0))),
        with(el("NORMAL", C::F32, 0, 1, 3, Some((3, 0))), 4),
        with(el("HALF", C::F16, 0, 1, 1, Some((3, 3))), 2),
        with(el("COLOR", C::F32, 0, 1, 4, Some((4, 0))), 1),
        el("ID", C::U32, 0, 1, 1, Some((5, 0))),
        with(el("SMALL", C::F16, 0, 1, 1, Some((5, 1))), 1),
        el("SMALLI", C::I16, 0, 1, 1, Some((5, 2))),
    ];
    vec![ps]
}

/// System values of the graphics stages as signature elements: pixel inputs (primitive id,
/// layer, viewport, shading rate, sample index, barycentrics, coverage-interpolated and
/// sample-interpolated inputs), pixel outputs (stencil reference, conservative depth,
/// coverage), pre-rasterization outputs (layer, viewport, shading rate) and
/// `[earlydepthstencil]`.
fn system_values() -> Vec<Case> {
    let mut v = Vec::new();
    let with = |e: El, interpolation: u32| El { interpolation, ..e };
    let inputs = |b: &mut Body, n: usize| {
        b.declare("declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)");
        b.declare("declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)");
        for k in 0..n {
            b.line(format!("%in{k} = call i32 @dx.op.loadInput.i32(i32 4, i32 {k}, i32 0, i8 0, i32 undef)"));
            b.output(Scalar::I32, &format!("%in{k}"));
        }
    };
    let mut ps = case("system_values.pixel_inputs", &["ps"], vec![], |b| {
        inputs(b, 5);
        for c in 0..3 {
            b.line(format!("%bary{c} = call float @dx.op.loadInput.f32(i32 4, i32 5, i32 0, i8 {c}, i32 undef)"));
            b.line(format!("%nbary{c} = call float @dx.op.loadInput.f32(i32 4, i32 6, i32 0, i8 {c}, i32 undef)"));
            b.output(Scalar::F32, &format!("%bary{c}"));
            b.output(Scalar::F32, &format!("%nbary{c}"));
        }
        b.line("%smp = call float @dx.op.loadInput.f32(i32 4, i32 7, i32 0, i8 0, i32 undef)");
        b.line("%cen = call float @dx.op.loadInput.f32(i32 4, i32 8, i32 0, i8 0, i32 undef)");
        b.output(Scalar::F32, "%smp");
        b.output(Scalar::F32, "%cen");
    });
    ps.shell.inputs = vec![
        el("SV_PrimitiveID", C::U32, 10, 1, 1, None),
        el("SV_RenderTargetArrayIndex", C::U32, 4, 1, 1, None),
        el("SV_ViewportArrayIndex", C::U32, 5, 1, 1, None),
        el("SV_ShadingRate", C::U32, 29, 1, 1, None),
        el("SV_SampleIndex", C::U32, 12, 1, 1, None),
        el("SV_Barycentrics", C::F32, 28, 1, 3, Some((0, 0))),
        with(el("SV_Barycentrics", C::F32, 28, 1, 3, Some((1, 0))), 4),
        with(el("SAMPLED", C::F32, 0, 1, 1, Some((2, 0))), 6),
        with(el("CENTROID", C::F32, 0, 1, 1, Some((3, 0))), 3),
    ];
    v.push(ps);
    for (name, sv, flags) in [("depth_greater_equal", 19, 0u64), ("depth_less_equal", 18, 8)] {
        let mut ps = case(format!("system_values.pixel_outputs_{name}"), &["ps"], vec![], |b| {
            b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
            b.declare("declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)");
            let (d, s) = (b.input(Scalar::F32), b.input(Scalar::I32));
            b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float {d})"));
            b.line(format!("call void @dx.op.storeOutput.i32(i32 5, i32 1, i32 0, i8 0, i32 {s})"));
            b.line(format!("call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 {s})"));
        });
        ps.shell.outputs = vec![
            el(if sv == 19 { "SV_DepthGreaterEqual" } else { "SV_DepthLessEqual" }, C::F32, sv, 1, 1, None),
            el("SV_StencilRef", C::U32, 20, 1, 1, None),
            el("SV_Coverage", C::U32, 14, 1, 1, None),
        ];
        ps.shell.shader_flags = flags;
        v.push(ps);
    }
    // Layer, viewport and shading rate from every pre-rasterization stage that may write
    // them (vertex and geometry: all three; domain: layer and viewport).
    for (profile, rate) in [("vs", true), ("gs", true), ("ds", false)] {
        let mut c = case(format!("system_values.{profile}_outputs"), &[profile], vec![], |b| {
            b.declare("declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)");
            b.declare("declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)");
            let x = b.input(Scalar::I32);
            for col in 0..4 {
                b.line(format!("call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {col}, float 1.0)"));
            }
            for k in 1..if rate { 4 } else { 3 } {
                b.line(format!("call void @dx.op.storeOutput.i32(i32 5, i32 {k}, i32 0, i8 0, i32 {x})"));
            }
            if profile == "gs" {
                b.declare("declare void @dx.op.emitStream(i32, i8)");
                b.line("call void @dx.op.emitStream(i32 97, i8 0)");
            }
        });
        let mut outputs = vec![
            el("SV_Position", C::F32, 3, 1, 4, Some((0, 0))),
            el("SV_RenderTargetArrayIndex", C::U32, 4, 1, 1, Some((1, 0))),
            el("SV_ViewportArrayIndex", C::U32, 5, 1, 1, Some((1, 1))),
        ];
        if rate {
            outputs.push(el("SV_ShadingRate", C::U32, 29, 1, 1, Some((1, 2))));
        }
        c.shell.outputs = outputs;
        if profile != "vs" {
            c.shell.inputs = vec![el("SV_Position", C::F32, 3, 1, 4, Some((0, 0)))];
        }
        if profile == "ds" {
            c.shell.patch_constants = vec![
                El { interpolation: 0, ..el("SV_TessFactor", C::F32, 25, 3, 1, Some((0, 3))) },
                El { interpolation: 0, ..el("SV_InsideTessFactor", C::F32, 26, 1, 1, Some((3, 0))) },
            ];
        }
        v.push(c);
    }
    v
}

/// Inline ray queries in every stage: one query through every operation, with immediate
/// components and a committed procedural hit; a second query without constant flags.
fn ray_queries() -> Vec<Case> {
    let accel = || vec![Res::new("bvh", RC::Srv, K::RTAccelerationStructure, 0)];
    // SM 6.9's `allocateRayQuery2`: constant ray flags (`RAY_FLAG_FORCE_OPAQUE`) and the
    // ray-query flag `RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS`.
    let flags2 = case("ray_query.allocate_ray_query2", ALL, accel(), |b| {
        let x = b.input(Scalar::F32);
        b.declare("declare i32 @dx.op.allocateRayQuery2(i32, i32, i32)");
        b.declare("declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)");
        b.declare("declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)");
        b.line("%rq = call i32 @dx.op.allocateRayQuery2(i32 258, i32 1, i32 1)");
        b.line(format!("call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %rq, %dx.types.Handle %bvh, i32 0, i32 255, float {x}, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 1.0, float 10.0)"));
        b.line("%go = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %rq)");
        b.output(Scalar::I1, "%go");
    });
    // SM 6.10's cluster ids and triangle positions of the candidate and committed hits.
    let sm610 = case("ray_query.sm610_cluster_ids_and_positions", ALL, accel(), |b| {
        let x = b.input(Scalar::F32);
        b.declare("declare i32 @dx.op.allocateRayQuery(i32, i32)");
        b.declare("declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)");
        b.declare("declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)");
        b.declare("declare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)");
        b.declare("declare <9 x float> @dx.op.rayQuery_CandidateTriangleObjectPosition.f32(i32, i32)");
        b.declare("declare <9 x float> @dx.op.rayQuery_CommittedTriangleObjectPosition.f32(i32, i32)");
        b.line("%rq = call i32 @dx.op.allocateRayQuery(i32 178, i32 0)");
        b.line(format!("call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %rq, %dx.types.Handle %bvh, i32 0, i32 255, float {x}, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 1.0, float 10.0)"));
        b.line("%go = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %rq)");
        b.output(Scalar::I1, "%go");
        for op in [-2147483644i32, -2147483643] {
            let v = b.fresh();
            b.line(format!("{v} = call i32 @dx.op.rayQuery_StateScalar.i32(i32 {op}, i32 %rq)"));
            b.output(Scalar::I32, &v);
        }
        for (op, which) in [(-2147483640i32, "Candidate"), (-2147483639, "Committed")] {
            let p = b.fresh();
            b.line(format!(
                "{p} = call <9 x float> @dx.op.rayQuery_{which}TriangleObjectPosition.f32(i32 {op}, i32 %rq)"
            ));
            for lane in [0, 4, 8] {
                let v = b.fresh();
                b.line(format!("{v} = extractelement <9 x float> {p}, i32 {lane}"));
                b.output(Scalar::F32, &v);
            }
        }
    });
    vec![
        flags2,
        sm610,
        case("ray_query.every_operation", ALL, accel(), |b| {
            let (x, t) = (b.input(Scalar::F32), b.input(Scalar::F32));
            b.declare("declare i32 @dx.op.allocateRayQuery(i32, i32)");
            b.declare("declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)");
            b.declare("declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)");
            b.declare("declare void @dx.op.rayQuery_Abort(i32, i32)");
            b.declare("declare void @dx.op.rayQuery_CommitNonOpaqueTriangleHit(i32, i32)");
            b.declare("declare void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32, i32, float)");
            b.declare("declare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)");
            b.declare("declare i1 @dx.op.rayQuery_StateScalar.i1(i32, i32)");
            b.declare("declare float @dx.op.rayQuery_StateScalar.f32(i32, i32)");
            b.declare("declare float @dx.op.rayQuery_StateVector.f32(i32, i32, i8)");
            b.declare("declare float @dx.op.rayQuery_StateMatrix.f32(i32, i32, i32, i8)");
            b.line("%rq = call i32 @dx.op.allocateRayQuery(i32 178, i32 1)");
            b.line("%rq2 = call i32 @dx.op.allocateRayQuery(i32 178, i32 0)");
            b.line(format!("call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %rq, %dx.types.Handle %bvh, i32 0, i32 255, float {x}, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 1.0, float {t})"));
            b.line(format!("call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %rq2, %dx.types.Handle %bvh, i32 4, i32 1, float 0.0, float {x}, float 0.0, float 0.5, float 1.0, float 0.0, float 0.0, float 100.0)"));
            b.line("%go = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %rq)");
            b.output(Scalar::I1, "%go");
            b.line("call void @dx.op.rayQuery_CommitNonOpaqueTriangleHit(i32 182, i32 %rq)");
            b.line(format!("call void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32 183, i32 %rq, float {t})"));
            for (op, ty, scalar) in [
                (184, "i32", Scalar::I32),
                (185, "i32", Scalar::I32),
                (190, "i1", Scalar::I1),
                (191, "i1", Scalar::I1),
                (192, "i1", Scalar::I1),
                (195, "i32", Scalar::I32),
                (198, "f32", Scalar::F32),
                (199, "f32", Scalar::F32),
                (200, "f32", Scalar::F32),
                (201, "i32", Scalar::I32),
                (202, "i32", Scalar::I32),
                (203, "i32", Scalar::I32),
                (204, "i32", Scalar::I32),
                (207, "i32", Scalar::I32),
                (208, "i32", Scalar::I32),
                (209, "i32", Scalar::I32),
                (210, "i32", Scalar::I32),
                (214, "i32", Scalar::I32),
                (215, "i32", Scalar::I32),
            ] {
                let v = b.fresh();
                let lt = if ty == "f32" { "float" } else { ty };
                b.line(format!("{v} = call {lt} @dx.op.rayQuery_StateScalar.{ty}(i32 {op}, i32 %rq)"));
                b.output(scalar, &v);
            }
            for (op, n) in [(193, 2), (194, 2), (196, 3), (197, 3), (205, 3), (206, 3), (211, 3), (212, 3)] {
                for k in 0..n {
                    let v = b.fresh();
                    b.line(format!("{v} = call float @dx.op.rayQuery_StateVector.f32(i32 {op}, i32 %rq, i8 {k})"));
                    b.output(Scalar::F32, &v);
                }
            }
            for op in 186..=189 {
                for (row, col) in [(0, 0), (1, 2), (2, 3)] {
                    let v = b.fresh();
                    b.line(format!(
                        "{v} = call float @dx.op.rayQuery_StateMatrix.f32(i32 {op}, i32 %rq, i32 {row}, i8 {col})"
                    ));
                    b.output(Scalar::F32, &v);
                }
            }
            b.line("call void @dx.op.rayQuery_Abort(i32 181, i32 %rq2)");
        }),
    ]
}
