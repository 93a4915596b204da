//! Decoding of `dx.op.*` calls.
//!
//! A DXIL operation is a call to a function named `dx.op.<class>[.<overload>]` whose first
//! argument is the opcode as an `i32` constant. The opcode must be a known one, so a
//! malformed call is reported where it is, not misread later; an opcode past the table
//! (DXIL 1.9 and the SM 6.10 experimental table) is [`Error::NewerOperation`], valid DXIL
//! of a newer version rather than malformed input.

use super::error::{Error, Result};
use super::opcodes::{decode_function_name, DxOp};
use crate::ir::{Function, InstId, InstKind, Module, Value};
use cranelift_entity::EntityRef;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct DxOpCall<'a> {
    pub op: DxOp,
    /// The overload suffix of the callee (`f32`, `i32`, ...), if any.
    pub overload: Option<&'a str>,
    /// Arguments after the opcode.
    pub args: &'a [Value],
}

/// Decode `inst` if it calls a `dx.op` function. `Ok(None)` for any other instruction.
pub fn decode_call<'a>(m: &'a Module, f: &'a Function, inst: InstId, block: &str) -> Result<Option<DxOpCall<'a>>> {
    decode_call_with(m, f, inst, || block.to_string())
}

/// [`decode_call`], the block's name for messages made by `block` only when there is an
/// error (emission decodes every call; naming its block each time cost an allocation).
pub fn decode_call_with<'a>(
    m: &'a Module,
    f: &'a Function,
    inst: InstId,
    block: impl Fn() -> String,
) -> Result<Option<DxOpCall<'a>>> {
    let InstKind::Call { callee: Value::Func(callee), args } = &f.insts[inst].kind else {
        return Ok(None);
    };
    let name = &m.functions[*callee].name;
    let Some((class, overload)) = decode_function_name(name) else {
        return Ok(None);
    };
    let err = |message: String| Error::Instruction { function: f.name.clone(), block: block(), message };
    let number = match args.first() {
        Some(Value::Const(c)) => m.constants.as_int(*c),
        _ => None,
    }
    .ok_or_else(|| err(format!("call to `{name}` has no constant opcode argument")))?;
    let op = opcode_u32(number)
        .ok_or_else(|| err(format!("call to `{name}` has opcode {number}, which does not fit the `i32` operand")))?;
    let op = DxOp::from_u32(op).ok_or_else(|| Error::NewerOperation {
        function: f.name.clone(),
        block: block(),
        callee: name.clone(),
        opcode: op,
        last_experimental: super::opcodes::EXPERIMENTAL_BASE + super::opcodes::EXPERIMENTAL_COUNT as u32 - 1,
    })?;
    // The opcode argument decides the operation, as it does for drivers and DXC's own
    // reader; hand-written DXIL sometimes names the function after the operation rather
    // than its class (`dx.op.bfi.i32` for class `quaternary`), so the class is not checked.
    let _ = class;
    Ok(Some(DxOpCall { op, overload, args: &args[1..] }))
}

/// The opcode operand as the 32-bit number DXC writes: the `i32` constant, whether the
/// reader kept it zero- or sign-extended (experimental opcodes have bit 31 set).
fn opcode_u32(number: u64) -> Option<u32> {
    let low = number as u32;
    (u64::from(low) == number || number as i64 == i64::from(low as i32)).then_some(low)
}

#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct OpUse {
    /// The operation's name, or `None` for an opcode past DXIL 1.9 and the experimental
    /// table (or an invalid one).
    pub op: Option<&'static str>,
    pub opcode: u64,
    /// The callee, for unknown opcodes (it usually names the operation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    pub count: usize,
}

/// How often each DXIL operation is called in the module, by opcode. Opcodes we do not
/// know (newer than DXIL 1.9, or invalid) are listed with their callee rather than
/// failing: describing a module is not translating it.
pub fn op_uses(m: &Module) -> Vec<OpUse> {
    // Counts by opcode (every known opcode is below `COUNT`) and a bit set of the opcodes
    // seen, so the answer is built from the few a shader uses: translation analyses every
    // module, so this allocates only for unknown opcodes and the answer.
    let mut known = [0u32; super::opcodes::COUNT];
    let mut seen = [0u64; super::opcodes::COUNT.div_ceil(64)];
    let mut unknown: BTreeMap<(u64, String), usize> = BTreeMap::new();
    // Which functions are `dx.op`s, decided once per function rather than once per call.
    let is_op: Vec<bool> = m.functions.values().map(|f| decode_function_name(&f.name).is_some()).collect();
    for (_, f) in m.defined_functions() {
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let InstKind::Call { callee: Value::Func(callee), args } = &f.insts[i].kind else { continue };
                if !is_op.get(callee.index()).copied().unwrap_or(false) {
                    continue;
                }
                let name = &m.functions[*callee].name;
                let number = match args.first() {
                    Some(Value::Const(c)) => m.constants.as_int(*c),
                    _ => None,
                };
                match number.and_then(opcode_u32).and_then(DxOp::from_u32) {
                    Some(op) => {
                        let n = op.index();
                        known[n] += 1;
                        seen[n / 64] |= 1 << (n % 64);
                    }
                    None => *unknown.entry((number.unwrap_or(u64::MAX), name.clone())).or_default() += 1,
                }
            }
        }
    }
    let mut out: Vec<OpUse> = Vec::with_capacity(seen.iter().map(|w| w.count_ones() as usize).sum());
    for (word, &bits) in seen.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let op = super::opcodes::ALL[word * 64 + bits.trailing_zeros() as usize];
            bits &= bits - 1;
            let count = known[op.index()] as usize;
            out.push(OpUse { op: Some(op.name()), opcode: op.number() as u64, function: None, count });
        }
    }
    out.extend(unknown.into_iter().map(|((opcode, function), count)| OpUse {
        op: None,
        opcode,
        function: Some(function),
        count,
    }));
    out
}
