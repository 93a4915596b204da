//! Runs a structurized graph ([`Scfg`]) directly under the shape-mode contract, so the
//! structurizer can be checked against the original function without going through SPIR-V
//! (the SPIR-V path is checked separately by [`super::spirv_interp`]).
//!
//! Original blocks append their number and their PHI inputs exactly like
//! [`super::trace::original_trace`]; synthetic blocks append nothing. Using an undefined
//! value (a selector or PHI input no definition reached) is an error: it would be a
//! structurizer bug that a GPU could hide.

use super::trace::{Limits, Outcome, Trace, TraceBuffer};
use std::collections::HashMap;
use untangle::ir::Function;
use untangle::passes::scfg::{OrigKind, SBlock, Scfg, Term, Val};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScfgTraceError {
    #[error("block {block}: used an undefined value")]
    Undefined { block: String },
    #[error("block {block}: selector {value} out of range")]
    BadSelector { block: String, value: u32 },
    #[error("block {block}: entered from {pred}, which is not a PHI predecessor")]
    MissingPhiInput { block: String, pred: String },
    #[error("block {block}: entered with no value for a variable it reads")]
    MissingEntryValue { block: String },
    #[error("executed a synthetic unreachable block {block}")]
    ReachedUnreachable { block: String },
}

/// Runs `scfg` (structurized from `func`) with `decisions` and a `trace_len`-word buffer.
/// `limits.max_block_entries` counts entries of original blocks, as the original run does;
/// synthetic blocks may add at most `64 ×` that many more steps.
pub fn scfg_trace(
    func: &Function,
    scfg: &Scfg,
    decisions: &[u32],
    trace_len: usize,
    limits: &Limits,
) -> Result<Trace, ScfgTraceError> {
    let mut buffer = TraceBuffer::new(trace_len);
    let phi_counts: HashMap<untangle::ir::BlockId, usize> = func
        .layout
        .iter()
        .map(|&b| {
            let n = func.blocks[b].insts.iter().take_while(|&&i| func.insts[i].kind.is_phi()).count();
            (b, n)
        })
        .collect();
    let mut next_decision = 0usize;
    let mut read = || {
        let d = decisions.get(next_decision).copied().unwrap_or(0);
        next_decision = next_decision.saturating_add(1);
        d
    };
    let mut phi_values: HashMap<(SBlock, u32), Option<u32>> = HashMap::new();
    let eval = |v: Val, phi_values: &HashMap<(SBlock, u32), Option<u32>>| -> Option<u32> {
        match v {
            Val::Const(c) => Some(c),
            Val::Undef => None,
            Val::Phi { block, index } => phi_values.get(&(block, index)).copied().flatten(),
        }
    };
    let total_limit = limits.max_block_entries.saturating_mul(64).saturating_add(1024);
    let mut steps = 0u64;
    let mut total = 0u64;
    let mut current = scfg.entry;
    let mut from: Option<SBlock> = None;
    loop {
        let block = &scfg.blocks[current];
        total += 1;
        if total > total_limit {
            return Ok(Trace { buffer: buffer.words, outcome: Outcome::StepLimit, steps });
        }
        if block.original().is_some() {
            if steps >= limits.max_block_entries {
                return Ok(Trace { buffer: buffer.words, outcome: Outcome::StepLimit, steps });
            }
            steps += 1;
        }
        // PHIs, simultaneously.
        if let Some(p) = from {
            let mut new = Vec::with_capacity(block.phis.len());
            for (i, phi) in block.phis.iter().enumerate() {
                let Some(&(_, v)) = phi.incoming.iter().find(|(pb, _)| *pb == p) else {
                    return Err(ScfgTraceError::MissingPhiInput { block: scfg.label(current), pred: scfg.label(p) });
                };
                new.push(((current, i as u32), eval(v, &phi_values)));
            }
            for (k, v) in new {
                phi_values.insert(k, v);
            }
        }
        let value_of = |var, phi_values: &HashMap<(SBlock, u32), Option<u32>>| -> Result<Option<u32>, ScfgTraceError> {
            match block.entry_value(var) {
                Some(v) => Ok(eval(v, phi_values)),
                None => Err(ScfgTraceError::MissingEntryValue { block: scfg.label(current) }),
            }
        };
        if let Some(o) = block.original() {
            buffer.append(scfg.number_of(o));
            let n = phi_counts.get(&o).copied().unwrap_or(0);
            if n > 0 && from.is_some() {
                let var = scfg.incoming_var(o).expect("block with PHIs has an incoming variable");
                let Some(v) = value_of(var, &phi_values)? else {
                    return Err(ScfgTraceError::Undefined { block: scfg.label(current) });
                };
                for _ in 0..n {
                    buffer.append(v);
                }
            }
        }
        let next = match &block.term {
            Term::Goto(t) => *t,
            Term::Unreachable => return Err(ScfgTraceError::ReachedUnreachable { block: scfg.label(current) }),
            Term::Orig { block: o, succs } => match scfg.orig_kind(*o) {
                OrigKind::Exit => break,
                OrigKind::Br => succs[0],
                OrigKind::CondBr => {
                    if read() & 1 == 1 {
                        succs[0]
                    } else {
                        succs[1]
                    }
                }
                OrigKind::Switch => {
                    let k = read() as u64 % succs.len() as u64;
                    succs[k as usize]
                }
            },
            Term::Dispatch { var, targets } => {
                let Some(k) = value_of(*var, &phi_values)? else {
                    return Err(ScfgTraceError::Undefined { block: scfg.label(current) });
                };
                match targets.get(k as usize) {
                    Some(&t) => t,
                    None => return Err(ScfgTraceError::BadSelector { block: scfg.label(current), value: k }),
                }
            }
        };
        from = Some(current);
        current = next;
    }
    Ok(Trace { buffer: buffer.words, outcome: Outcome::Finished, steps })
}
