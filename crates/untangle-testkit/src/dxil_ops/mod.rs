//! Test inputs for every DXIL operation the translator lowers: small modules in LLVM text,
//! run by `tests/dxil_ops.rs` (translate in every stage the operation is lowered in, then
//! `spirv-val`), `tests/gpu_ops.rs` (execute on a Vulkan device and compare with
//! [`reference`]) and the coverage table (`docs/dxil-coverage.md`, which names for each
//! lowered operation the cases that use it: what a case covers is read back from its module,
//! not declared).
//!
//! - [`shell`]: the module around a body (types, resources, signatures, entry point);
//! - [`synth`]: calls generated from the operation signature table, for every overload of
//!   every operation whose operands are plain values;
//! - [`cases`]: hand-written cases for the operations on resources, stage I/O and barriers,
//!   in every operand form (immediate and dynamic offsets, status outputs, clamps, LODs,
//!   16/32/64-bit overloads);
//! - [`reference`]: the CPU semantics the GPU tests compare with.

pub mod cases;
pub mod reference;
pub mod shell;
pub mod synth;

use shell::Shell;
use synth::{Body, Scalar};
use untangle::dxil::DxOp;
use untangle::emit::{support, Family, Support};
use untangle::ShaderKind;

/// The stages the translator handles, by profile.
pub const PROFILES: [(&str, ShaderKind); 8] = [
    ("cs", ShaderKind::Compute),
    ("ps", ShaderKind::Pixel),
    ("vs", ShaderKind::Vertex),
    ("gs", ShaderKind::Geometry),
    ("hs", ShaderKind::Hull),
    ("ds", ShaderKind::Domain),
    ("ms", ShaderKind::Mesh),
    ("as", ShaderKind::Amplification),
];

/// One test input: a body in a shell, for some profiles.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub profiles: Vec<&'static str>,
    pub shell: Shell,
    /// Instructions after the handles, to the function's end.
    pub body: String,
    pub decls: String,
}

impl Case {
    /// The module for `profile`.
    pub fn module(&self, profile: &'static str) -> String {
        let mut shell = self.shell.clone();
        shell.profile = profile;
        shell.module(&self.body, &self.decls)
    }
}

/// A module calling `op` once with operands synthesized from its signature (its first
/// overload and first immediate combination), for any operation, refused ones included:
/// what the refusal tests, `Shader::unsupported_operations` tests and the CLI tests use.
pub fn synthesized(op: DxOp, profile: &'static str) -> String {
    let (at, combos) = synth::immediate_choices(op);
    let o = synth::overloads(op)[0];
    let mut b = Body::default();
    b.line("%tid = add i32 0, 0");
    b.load_inputs("%tid");
    synth::call(&mut b, op, o, &at, &combos[0]);
    b.store_outputs("%tid");
    b.line("ret void");
    Shell::new(profile).module(&b.text(), &b.decls.iter().cloned().collect::<Vec<_>>().join("\n"))
}

/// `%tid`: the thread id x in compute shaders, 0 elsewhere.
pub fn tid_line(body: &mut Body, profile: &str) {
    if profile == "cs" {
        body.declare("declare i32 @dx.op.threadId.i32(i32, i32)");
        body.line("%tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)");
    } else {
        body.line("%tid = add i32 0, 0");
    }
}

/// Operations whose operands are all plain values (scalars and immediates): the synthesizer
/// writes their cases.
pub fn synthesizable(op: DxOp) -> bool {
    use untangle::dxil::op_facts::ParamTy::*;
    let sig = untangle::dxil::op_facts::signature(op);
    let value = |p| matches!(p, Overload | I1 | I8 | I16 | I32 | I64 | F16 | F32 | F64);
    let family = PROFILES.iter().find_map(|&(_, s)| match support(op, s) {
        Support::Lowered(f) => Some(f),
        _ => None,
    });
    matches!(
        family,
        Some(
            Family::FloatMath
                | Family::IntegerMath
                | Family::Conversions
                | Family::Wave
                | Family::ComputeIds
                | Family::SystemValues
                | Family::StageIo
                | Family::Debugging
        )
    ) && sig.params.iter().all(|&p| value(p))
        // Vector-only operations (DXIL 1.9 `vectorReduce*`, `dot`) have no scalar overload.
        && !sig.overloads.is_empty()
        && !matches!(op, DxOp::LoadInput | DxOp::StoreOutput | DxOp::Discard)
}

/// The profiles `op` is lowered in.
pub fn lowered_profiles(op: DxOp) -> Vec<&'static str> {
    PROFILES.iter().filter(|&&(_, s)| support(op, s).is_lowered()).map(|&(p, _)| p).collect()
}

/// One synthesized call: its name, operation, overload and immediates.
#[derive(Clone, Debug)]
pub struct SynthCall {
    pub op: DxOp,
    pub overload: Scalar,
    pub at: Vec<usize>,
    pub imm: Vec<u64>,
}

impl SynthCall {
    pub fn name(&self) -> String {
        let mut n = format!("{}.{}", self.op.name(), self.overload.suffix());
        for i in &self.imm {
            n.push_str(&format!(".{i}"));
        }
        n
    }

    /// The body for `profile`: load the inputs, call, store the results.
    pub fn body(&self, profile: &str) -> (String, String) {
        let mut b = Body::default();
        tid_line(&mut b, profile);
        b.load_inputs("%tid");
        synth::call(&mut b, self.op, self.overload, &self.at, &self.imm);
        b.store_outputs("%tid");
        b.line("ret void");
        (b.text(), b.decls.iter().cloned().collect::<Vec<_>>().join("\n"))
    }

    /// The scalar types of the non-immediate operands, in order.
    pub fn operand_types(&self) -> Vec<Scalar> {
        let sig = untangle::dxil::op_facts::signature(self.op);
        sig.params
            .iter()
            .enumerate()
            .filter(|(k, _)| !self.at.contains(k))
            .map(|(_, &p)| synth::slot_type(p, self.overload).1[0])
            .collect()
    }
}

/// Every synthesized call: each synthesizable operation in each overload and immediate
/// combination.
pub fn synth_calls() -> Vec<SynthCall> {
    let mut out = Vec::new();
    for &op in untangle::dxil::opcodes::ALL {
        if !synthesizable(op) {
            continue;
        }
        let (at, combos) = synth::immediate_choices(op);
        for o in synth::overloads(op) {
            for imm in &combos {
                if synth::combination_valid(op, o, imm) {
                    out.push(SynthCall { op, overload: o, at: at.clone(), imm: imm.clone() });
                }
            }
        }
    }
    out
}

/// Every case: the synthesized calls, then the hand-written ones.
pub fn all_cases() -> Vec<Case> {
    let mut out: Vec<Case> = synth_calls()
        .into_iter()
        .map(|s| {
            let profiles = lowered_profiles(s.op);
            // The body differs per profile only in `%tid`; the compute one is kept and the
            // others get theirs from `Case::module`'s shell via a profile-neutral body.
            let (body, decls) = s.body("any");
            Case { name: s.name(), profiles, shell: Shell::new("cs"), body, decls }
        })
        .collect();
    out.extend(cases::hand_written());
    out
}

/// Synthesized calls with a CPU reference ([`reference::compute`]): `tests/gpu_ops.rs`
/// executes each and compares every result word.
pub fn gpu_calls() -> Vec<SynthCall> {
    synth_calls()
        .into_iter()
        .filter(|c| {
            let args = reference::operands(&c.operand_types(), &[0; synth::INPUT_WORDS]);
            reference::compute(c.op, c.overload, &c.imm, &args).is_some()
        })
        .collect()
}

/// Operations `tests/gpu_ops.rs` checks with hand-written kernels.
pub const GPU_HAND_WRITTEN: &[DxOp] = &[DxOp::CBufferLoad, DxOp::CBufferLoadLegacy, DxOp::CycleCounterLegacy];

/// Whether the GPU tests check `op`'s results.
pub fn gpu_checked(op: DxOp) -> bool {
    GPU_HAND_WRITTEN.contains(&op) || gpu_calls().iter().any(|c| c.op == op)
}
