//! Tiled-resource residency: a load, sample or gather whose status (`ResRet` field 4) the
//! program reads becomes the `OpImageSparse*` form of its access (capability
//! `SparseResidency`), and `checkAccessFullyMapped(status)` is `OpImageSparseTexelsResident`
//! of exactly that access's residency code (followed here through the result struct's
//! construct/extract and, for a sample with a programmable offset, the offset switch's phi).
//! A status nobody reads leaves the plain access. A raw or structured buffer load reads a
//! storage buffer, which Vulkan cannot query: the check of its status is `true` (D3D's
//! answer for resources that are not tiled; dxil-spirv refuses such a shader). Every module
//! passes `spirv-val`. (vkd3d-proton's
//! `test_texture_feedback_instructions_dxil`, `test_buffer_feedback_instructions_dxil` and
//! `test_sparse_default_mapping` read these statuses on tiled resources.)

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op};
use std::collections::HashMap;
use untangle::dxil::{ComponentType as C, ResourceClass as RC, ResourceKind as K};
use untangle_testkit::dxil_ops::shell::{Res, Shell};

const STORE: &str =
    "declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
const CHECK: &str = "declare i1 @dx.op.checkAccessFullyMapped.i32(i32, i32)";

/// One access `call` (defining `%r` of type `rr`), then, when `status`, the status through
/// `checkAccessFullyMapped` to `out`, and component 0 to `out` in any case.
fn module(profile: &'static str, resources: Vec<Res>, decl: &str, rr: &str, call: &str, status: bool) -> String {
    let mut body = format!("  %r = {call}\n  %x = extractvalue {rr} %r, 0\n");
    if rr.ends_with("f32") {
        body.push_str("  %xi = bitcast float %x to i32\n");
    } else if rr.ends_with("i64") {
        body.push_str("  %xi = trunc i64 %x to i32\n");
    } else {
        body.push_str("  %xi = add i32 %x, 0\n");
    }
    body.push_str("  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %xi, i32 undef, i32 undef, i32 undef, i8 1, i32 4)\n");
    if status {
        body.push_str(&format!("  %st = extractvalue {rr} %r, 4\n"));
        body.push_str("  %m = call i1 @dx.op.checkAccessFullyMapped.i32(i32 71, i32 %st)\n");
        body.push_str("  %mi = zext i1 %m to i32\n");
        body.push_str("  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 4, i32 undef, i32 %mi, i32 undef, i32 undef, i32 undef, i8 1, i32 4)\n");
    }
    body.push_str("  ret void");
    let mut shell = Shell::new(profile);
    shell.resources = resources;
    shell.module(&body, &format!("{decl}\n{STORE}\n{CHECK}"))
}

fn translate(text: &str) -> Result<Module, untangle::Error> {
    let t = untangle::translate(text.as_bytes(), &untangle::Options::default())?;
    untangle_spirv_tools::assert_valid(&t.words, "vulkan1.3", text);
    Ok(rspirv::dr::load_words(&t.words).expect("loads"))
}

fn is_sparse_access(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleExplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageSparseSampleDrefExplicitLod
            | Op::ImageSparseFetch
            | Op::ImageSparseRead
            | Op::ImageSparseGather
            | Op::ImageSparseDrefGather
    )
}

fn id(o: &Operand) -> Option<u32> {
    match o {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

fn literal(o: &Operand) -> Option<u32> {
    match o {
        Operand::LiteralBit32(w) => Some(*w),
        _ => None,
    }
}

/// The sparse accesses whose residency code member `path` (outermost index first) of the
/// value `v` is: follows `OpCompositeExtract` into `OpCompositeConstruct` and `OpPhi`;
/// `None` when some part of the value is not such a code.
fn code_sources(defs: &HashMap<u32, &Instruction>, v: u32, path: &mut Vec<u32>, out: &mut Vec<Op>) -> Option<()> {
    let i = defs.get(&v)?;
    match i.class.opcode {
        Op::CompositeExtract => {
            let base = id(&i.operands[0])?;
            let mut p: Vec<u32> = i.operands[1..].iter().map(literal).collect::<Option<_>>()?;
            p.append(path);
            code_sources(defs, base, &mut p, out)
        }
        Op::CompositeConstruct => {
            let k = *path.first()?;
            let part = id(i.operands.get(k as usize)?)?;
            let mut rest = path[1..].to_vec();
            code_sources(defs, part, &mut rest, out)
        }
        Op::Phi => {
            for pair in i.operands.chunks(2) {
                code_sources(defs, id(&pair[0])?, &mut path.clone(), out)?;
            }
            Some(())
        }
        op if is_sparse_access(op) && path.as_slice() == [0] => {
            out.push(op);
            Some(())
        }
        _ => None,
    }
}

/// For each `OpImageSparseTexelsResident`: the sparse accesses its code comes from.
fn residency_checks(m: &Module, name: &str) -> Vec<Vec<Op>> {
    let insts: Vec<&Instruction> = m.functions.iter().flat_map(|f| f.all_inst_iter()).collect();
    let defs: HashMap<u32, &Instruction> = insts.iter().filter_map(|i| i.result_id.map(|r| (r, *i))).collect();
    insts
        .iter()
        .filter(|i| i.class.opcode == Op::ImageSparseTexelsResident)
        .map(|i| {
            let mut out = Vec::new();
            let code = id(&i.operands[0]).expect("an id");
            code_sources(&defs, code, &mut Vec::new(), &mut out)
                .unwrap_or_else(|| panic!("{name}: the code %{code} is not a sparse access's residency code"));
            out
        })
        .collect()
}

fn ops(m: &Module) -> Vec<Op> {
    m.functions.iter().flat_map(|f| f.all_inst_iter()).map(|i| i.class.opcode).collect()
}

fn declares_sparse(m: &Module) -> bool {
    m.capabilities.iter().any(|i| i.operands.first() == Some(&Operand::Capability(Capability::SparseResidency)))
}

struct Case {
    name: &'static str,
    profile: &'static str,
    resources: Vec<Res>,
    decl: &'static str,
    rr: &'static str,
    call: &'static str,
    /// The access with the status read, and without.
    sparse: Op,
    plain: Op,
}

fn tex() -> Res {
    Res::new("t", RC::Srv, K::Texture2D, 0).typed(C::F32)
}
fn smp() -> Res {
    Res::new("smp", RC::Sampler, K::Sampler, 0)
}
fn cmp() -> Res {
    Res::new("cmp", RC::Sampler, K::Sampler, 1).extra(1)
}

const SAMPLE: &str = "declare %dx.types.ResRet.f32 @dx.op.sample.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)";
const SAMPLE_LEVEL: &str = "declare %dx.types.ResRet.f32 @dx.op.sampleLevel.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)";
const SAMPLE_CMP: &str = "declare %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float)";
const SAMPLE_CMP_LZ: &str = "declare %dx.types.ResRet.f32 @dx.op.sampleCmpLevelZero.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)";
const GATHER: &str = "declare %dx.types.ResRet.f32 @dx.op.textureGather.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32)";
const GATHER_CMP: &str = "declare %dx.types.ResRet.f32 @dx.op.textureGatherCmp.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float)";
const GATHER_RAW64: &str = "declare %dx.types.ResRet.i64 @dx.op.textureGatherRaw.i64(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32)";
const LOAD: &str =
    "declare %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32)";
const BUFFER_LOAD: &str = "declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)";

fn cases() -> Vec<Case> {
    let f32 = "%dx.types.ResRet.f32";
    vec![
        Case {
            name: "sample",
            profile: "ps",
            resources: vec![tex(), smp()],
            decl: SAMPLE,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %t, %dx.types.Handle %smp, float 0.5, float 0.5, float undef, float undef, i32 0, i32 0, i32 undef, float undef)",
            sparse: Op::ImageSparseSampleImplicitLod,
            plain: Op::ImageSampleImplicitLod,
        },
        Case {
            name: "sample_level",
            profile: "cs",
            resources: vec![tex(), smp()],
            decl: SAMPLE_LEVEL,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.sampleLevel.f32(i32 62, %dx.types.Handle %t, %dx.types.Handle %smp, float 0.5, float 0.5, float undef, float undef, i32 1, i32 -1, i32 undef, float 2.0)",
            sparse: Op::ImageSparseSampleExplicitLod,
            plain: Op::ImageSampleExplicitLod,
        },
        Case {
            // A programmable offset: the offset switch's cases all sample sparsely.
            name: "sample_level_dynamic_offset",
            profile: "cs",
            resources: vec![tex(), smp()],
            decl: SAMPLE_LEVEL,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.sampleLevel.f32(i32 62, %dx.types.Handle %t, %dx.types.Handle %smp, float 0.5, float 0.5, float undef, float undef, i32 %dyn, i32 0, i32 undef, float 2.0)",
            sparse: Op::ImageSparseSampleExplicitLod,
            plain: Op::ImageSampleExplicitLod,
        },
        Case {
            name: "sample_cmp",
            profile: "ps",
            resources: vec![tex(), cmp()],
            decl: SAMPLE_CMP,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32 64, %dx.types.Handle %t, %dx.types.Handle %cmp, float 0.5, float 0.5, float undef, float undef, i32 0, i32 0, i32 undef, float 0.25, float undef)",
            sparse: Op::ImageSparseSampleDrefImplicitLod,
            plain: Op::ImageSampleDrefImplicitLod,
        },
        Case {
            name: "sample_cmp_level_zero",
            profile: "cs",
            resources: vec![tex(), cmp()],
            decl: SAMPLE_CMP_LZ,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.sampleCmpLevelZero.f32(i32 65, %dx.types.Handle %t, %dx.types.Handle %cmp, float 0.5, float 0.5, float undef, float undef, i32 0, i32 0, i32 undef, float 0.25)",
            sparse: Op::ImageSparseSampleDrefExplicitLod,
            plain: Op::ImageSampleDrefExplicitLod,
        },
        Case {
            name: "gather",
            profile: "cs",
            resources: vec![tex(), smp()],
            decl: GATHER,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.textureGather.f32(i32 73, %dx.types.Handle %t, %dx.types.Handle %smp, float 0.5, float 0.5, float undef, float undef, i32 %dyn, i32 1, i32 2)",
            sparse: Op::ImageSparseGather,
            plain: Op::ImageGather,
        },
        Case {
            name: "gather_cmp",
            profile: "cs",
            resources: vec![tex(), cmp()],
            decl: GATHER_CMP,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.textureGatherCmp.f32(i32 74, %dx.types.Handle %t, %dx.types.Handle %cmp, float 0.5, float 0.5, float undef, float undef, i32 0, i32 0, i32 0, float 0.25)",
            sparse: Op::ImageSparseDrefGather,
            plain: Op::ImageDrefGather,
        },
        Case {
            // Two gathers (low and high words): the first one's code is the status.
            name: "gather_raw_64",
            profile: "cs",
            resources: vec![Res::new("t", RC::Srv, K::Texture2D, 0).typed(C::U32), smp()],
            decl: GATHER_RAW64,
            rr: "%dx.types.ResRet.i64",
            call: "call %dx.types.ResRet.i64 @dx.op.textureGatherRaw.i64(i32 223, %dx.types.Handle %t, %dx.types.Handle %smp, float 0.5, float 0.5, float undef, float undef, i32 0, i32 0)",
            sparse: Op::ImageSparseGather,
            plain: Op::ImageGather,
        },
        Case {
            name: "texture_load",
            profile: "cs",
            resources: vec![tex()],
            decl: LOAD,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %t, i32 1, i32 3, i32 4, i32 undef, i32 0, i32 0, i32 undef)",
            sparse: Op::ImageSparseFetch,
            plain: Op::ImageFetch,
        },
        Case {
            name: "texture_load_uav",
            profile: "cs",
            resources: vec![Res::new("t", RC::Uav, K::Texture2D, 1).typed(C::F32)],
            decl: LOAD,
            rr: f32,
            call: "call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %t, i32 undef, i32 3, i32 4, i32 undef, i32 undef, i32 undef, i32 undef)",
            sparse: Op::ImageSparseRead,
            plain: Op::ImageRead,
        },
        Case {
            name: "typed_buffer_load",
            profile: "cs",
            resources: vec![Res::new("t", RC::Srv, K::TypedBuffer, 0).typed(C::U32)],
            decl: BUFFER_LOAD,
            rr: "%dx.types.ResRet.i32",
            call: "call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %t, i32 %dyn, i32 undef)",
            sparse: Op::ImageSparseFetch,
            plain: Op::ImageFetch,
        },
        Case {
            name: "typed_buffer_load_uav",
            profile: "cs",
            resources: vec![Res::new("t", RC::Uav, K::TypedBuffer, 1).typed(C::U32)],
            decl: BUFFER_LOAD,
            rr: "%dx.types.ResRet.i32",
            call: "call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %t, i32 %dyn, i32 undef)",
            sparse: Op::ImageSparseRead,
            plain: Op::ImageRead,
        },
    ]
}

/// The module of `c`, with `%dyn` (a word read from `out`, not a constant) defined after
/// the handles.
fn case_module(c: &Case, status: bool) -> String {
    let text = module(c.profile, c.resources.clone(), c.decl, c.rr, c.call, status);
    let at = text.rfind("@dx.op.createHandle(i32 57").expect("handles");
    let eol = at + text[at..].find('\n').expect("line end") + 1;
    let load = "  %dynr = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %out, i32 8, i32 undef, i8 1, i32 4)\n  %dyn = extractvalue %dx.types.ResRet.i32 %dynr, 0\n";
    let mut s = format!("{}{load}{}", &text[..eol], &text[eol..]);
    s.push_str("declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)\n");
    s
}

#[test]
fn a_read_status_makes_the_access_sparse_and_the_check_tests_its_code() {
    for c in cases() {
        let m = translate(&case_module(&c, true)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(declares_sparse(&m), "{}: no SparseResidency", c.name);
        let all = ops(&m);
        assert!(all.contains(&c.sparse), "{}: no Op{:?} in {all:?}", c.name, c.sparse);
        let checks = residency_checks(&m, c.name);
        assert_eq!(checks.len(), 1, "{}: one OpImageSparseTexelsResident", c.name);
        assert!(!checks[0].is_empty() && checks[0].iter().all(|&o| o == c.sparse), "{}: {:?}", c.name, checks[0]);
        if c.name == "sample_level_dynamic_offset" {
            assert!(checks[0].len() > 1, "{}: the switch's cases all feed the status", c.name);
            assert!(!all.contains(&c.plain), "{}: a case sampled without residency", c.name);
        }
        if c.name == "gather_raw_64" {
            let n = all.iter().filter(|&&o| o == c.plain || o == c.sparse).count();
            assert_eq!(n, 2, "{}: two gathers", c.name);
        }
    }
}

#[test]
fn an_unread_status_leaves_the_plain_access() {
    for c in cases() {
        let m = translate(&case_module(&c, false)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(!declares_sparse(&m), "{}: SparseResidency without a status read", c.name);
        let all = ops(&m);
        assert!(all.contains(&c.plain), "{}: no Op{:?}", c.name, c.plain);
        assert!(!all.iter().any(|&o| is_sparse_access(o)), "{}: a sparse access", c.name);
    }
}

#[test]
fn storage_buffer_statuses_read_as_mapped() {
    let decl = "declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)";
    for (name, res, offset) in [
        ("raw", Res::new("b", RC::Srv, K::RawBuffer, 0), "i32 undef"),
        ("structured", Res::new("b", RC::Srv, K::StructuredBuffer, 0).extra(16), "i32 4"),
    ] {
        let call = format!(
            "call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %b, i32 16, {offset}, i8 1, i32 4)"
        );
        let m = translate(&module("cs", vec![res], decl, "%dx.types.ResRet.i32", &call, true))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let all = ops(&m);
        assert!(!all.contains(&Op::ImageSparseTexelsResident), "{name}: a residency test of no residency code");
        assert!(!declares_sparse(&m), "{name}: SparseResidency");
        // The check is `true`: the stored word (`zext`) selects on the constant.
        let trues: Vec<u32> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::ConstantTrue)
            .filter_map(|i| i.result_id)
            .collect();
        let selects: Vec<&Instruction> =
            m.functions.iter().flat_map(|f| f.all_inst_iter()).filter(|i| i.class.opcode == Op::Select).collect();
        assert!(
            selects.iter().any(|i| id(&i.operands[0]).is_some_and(|w| trues.contains(&w))),
            "{name}: the check is not the constant true"
        );
    }
}
