//! Trace equivalence: the shape-mode SPIR-V of a function must write exactly the trace the
//! original function writes (see [`super::trace`] for the contract), for many decision
//! streams.
//!
//! [`check_trace_equivalence`] draws `streams` decision streams from a seed (lengths
//! `0..64`; values uniform, small `0..8`, all zero, all ones, alternating `0/1`, or a
//! per-value mix; trace lengths from 1 to 4096 words, so the capacity rule is exercised),
//! runs [`original_trace`] and the [`ShapeProgram`] on each, and compares the buffers.
//!
//! # Limits and infinite loops
//!
//! Infinite loops are legal inputs (decisions past the end read 0, so a loop that stays on
//! a 0 never exits), so both sides run under limits, and the comparison is arranged so it
//! stays exact:
//!
//! 1. The original runs with `N = max(2048, 2·trace_len + 16)` block entries.
//! 2. If it **finished** after `S` block entries, the SPIR-V side gets
//!    `64·(S + 16) + 1024 + 4·(its block count)` block entries (room for any reasonable
//!    number of structurizer blocks per original block) and must finish too, with a buffer
//!    equal to the original's *in every word*, the count `buffer[0]` included. Running
//!    into its limit is a [`MismatchKind::SpirvDidNotFinish`].
//! 3. If the original hit its limit, it appended at least `N ≥ trace_len` entries (every
//!    block entry appends one), so its buffer is full: every stored slot is final. The
//!    SPIR-V side runs with `64·(N + 16) + …` block entries and stops as soon as it stores
//!    a count `≥ trace_len` to `trace[0]` ([`SpirvLimits::stop_at_trace_count`]); by then
//!    every slot it can store is final too (this assumes, as the contract implies, that
//!    the count in `trace[0]` is updated at every append).
//!    * If it also stopped, it must have appended at least `trace_len − 1` entries (a
//!      full buffer; fewer is [`MismatchKind::SpirvStalled`]: it loops without appending),
//!      and then `buffer[1..]` must agree. **The count `buffer[0]` is not compared** in
//!      this case: the two sides stopped at different points of the same unbounded
//!      trace.
//!    * If it finished with count `C`, a correct original finishes within `C` block
//!      entries (each appends at least once), so the original is rerun with `C + 1` block
//!      entries: if it finishes, the whole buffers are compared; if not, the original's
//!      trace is longer than `C`: [`MismatchKind::OriginalDidNotFinish`].
//!
//! Every case compares every word either side can observe, and every run is bounded.
//!
//! [`naive_shape_module`] is a tiny unstructured shape emitter (one SPIR-V block per
//! original block, calls for the appends and decision reads) that the interpreter runs
//! although `spirv-val` would reject it for lack of structure. It is the known-good
//! counterpart for testing these checkers themselves.

use super::spirv_interp::{InterpError, ShapeProgram, SpirvLimits};
use super::trace::{block_numbers, original_trace, Limits, Outcome, Trace};
use crate::fuzzing::mutate::SplitMix64;
use cranelift_entity::EntityRef;
use std::fmt;
use untangle::ir::{BlockId, Function, Terminator};

/// The original's block-entry limit is at least this.
pub const ORIGINAL_MIN_LIMIT: u64 = 2048;
/// SPIR-V block entries allowed per original block entry.
pub const SPIRV_BLOCK_FACTOR: u64 = 64;
/// Extra SPIR-V block entries allowed, plus 4 per block of the module.
pub const SPIRV_BLOCK_SLACK: u64 = 1024;

/// Trace buffer lengths drawn for the streams (small ones exercise the capacity rule).
const TRACE_LENS: &[usize] = &[1, 2, 4, 4, 8, 16, 64, 4096, 4096];

/// What a successful check ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EquivStats {
    pub streams: usize,
    /// Both sides finished: whole buffers compared.
    pub finished: usize,
    /// Both sides stopped at a limit with full buffers: entries compared, count not.
    pub truncated: usize,
    /// Streams where the original was rerun with a larger limit.
    pub reruns: usize,
    pub original_block_entries: u64,
    pub spirv_block_entries: u64,
    /// The largest count the original wrote.
    pub max_count: u32,
}

/// How the two sides disagreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// Both finished; the buffers differ (count included).
    BuffersDiffer,
    /// Both stopped at their limits with full buffers; the stored entries differ.
    EntriesDiffer,
    /// The original finished; the SPIR-V side ran into its limits.
    SpirvDidNotFinish,
    /// The SPIR-V side finished with count `C`; the original did not finish within `C + 1`
    /// block entries.
    OriginalDidNotFinish,
    /// Both stopped at their limits, but the SPIR-V side appended fewer than
    /// `trace_len − 1` entries (it runs on without appending).
    SpirvStalled,
    /// The SPIR-V side failed.
    SpirvError(InterpError),
}

/// A decision stream on which the two sides disagree, with everything needed to replay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceMismatch {
    pub function: String,
    pub seed: u64,
    /// Index of the stream drawn from `seed`.
    pub stream: usize,
    pub decisions: Vec<u32>,
    pub trace_len: usize,
    pub kind: MismatchKind,
    /// The original's run (the rerun, where there was one).
    pub original: Trace,
    /// `None` when the SPIR-V side failed.
    pub spirv: Option<Trace>,
    /// The first buffer index that differs (among those compared), if any.
    pub first_difference: Option<usize>,
    /// Labels of the original blocks by number, for the display.
    pub block_labels: Vec<String>,
}

impl std::error::Error for TraceMismatch {}

impl TraceMismatch {
    fn label(&self, n: u32) -> String {
        match self.block_labels.get(n as usize) {
            Some(l) => format!("{n}:{l}"),
            None => format!("{n}"),
        }
    }

    /// Stored entries of `t` around `center` (a buffer index), as `[index]number:label`.
    fn entries_window(&self, t: &Trace, center: Option<usize>) -> String {
        let len = 1 + t.entries().len();
        let (from, to) = match center {
            Some(c) => (c.saturating_sub(8).max(1), (c + 9).min(len)),
            None => (1, len.min(33)),
        };
        let mut s = String::new();
        if from > 1 {
            s.push_str("… ");
        }
        for i in from..to {
            let mark = if Some(i) == center { ">" } else { "" };
            s.push_str(&format!("[{i}]{mark}{} ", self.label(t.buffer[i])));
        }
        if to < len {
            s.push('…');
        } else {
            s.push_str("(end)");
        }
        s
    }
}

impl fmt::Display for TraceMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.kind {
            MismatchKind::BuffersDiffer => "both finished; the trace buffers differ".to_string(),
            MismatchKind::EntriesDiffer => {
                "both ran into their limits with full buffers; the stored entries differ (the count is not compared)"
                    .to_string()
            }
            MismatchKind::SpirvDidNotFinish => "the original finished; the SPIR-V ran into its limits".to_string(),
            MismatchKind::OriginalDidNotFinish => {
                "the SPIR-V finished; the original needs more block entries than the SPIR-V's count".to_string()
            }
            MismatchKind::SpirvStalled => {
                "both ran into their limits, but the SPIR-V appended too few entries to fill its buffer".to_string()
            }
            MismatchKind::SpirvError(e) => format!("the SPIR-V failed: {e}"),
        };
        writeln!(f, "trace mismatch in @{} (seed {}, stream {}): {what}", self.function, self.seed, self.stream)?;
        writeln!(f, "  decisions ({}): {:?}", self.decisions.len(), self.decisions)?;
        writeln!(f, "  trace_len: {}", self.trace_len)?;
        if let Some(i) = self.first_difference {
            let o = self.original.buffer.get(i).copied();
            let s = self.spirv.as_ref().and_then(|t| t.buffer.get(i).copied());
            if i == 0 {
                writeln!(f, "  first difference: the count, original {o:?}, SPIR-V {s:?}")?;
            } else {
                let show = |v: Option<u32>| v.map(|v| self.label(v)).unwrap_or_else(|| "-".into());
                writeln!(
                    f,
                    "  first difference at buffer[{i}] (entry {}): original {}, SPIR-V {}",
                    i - 1,
                    show(o),
                    show(s)
                )?;
            }
        }
        let side = |f: &mut fmt::Formatter<'_>, name: &str, t: &Trace| {
            writeln!(
                f,
                "  {name}: {:?} after {} block entries, count {}: {}",
                t.outcome,
                t.steps,
                t.count(),
                self.entries_window(t, self.first_difference.filter(|&i| i > 0))
            )
        };
        side(f, "original", &self.original)?;
        match &self.spirv {
            Some(t) => side(f, "SPIR-V  ", t)?,
            None => writeln!(f, "  SPIR-V: no trace")?,
        }
        Ok(())
    }
}

fn first_difference(a: &[u32], b: &[u32], from: usize) -> Option<usize> {
    let common = a.len().min(b.len());
    (from..common).find(|&i| a[i] != b[i]).or(if a.len() != b.len() { Some(common.max(from)) } else { None })
}

/// One decision stream and trace length, drawn from `rng`; `kind` picks the distribution.
fn draw_stream(rng: &mut SplitMix64, kind: usize) -> (Vec<u32>, usize) {
    let len = rng.below(64);
    let decisions = decision_words(rng, kind, len);
    let trace_len = TRACE_LENS[rng.below(TRACE_LENS.len())];
    (decisions, trace_len)
}

/// `len` decisions of distribution `kind` (0: uniform words, 1: small values, 2: all zeros,
/// 3: all ones, 4: alternating bits from a random start, 5: a per-word mix of those). The
/// CPU oracle and the GPU trace cases draw their streams here.
pub(crate) fn decision_words(rng: &mut SplitMix64, kind: usize, len: usize) -> Vec<u32> {
    let start = rng.below(2) as u32;
    (0..len)
        .map(|i| {
            let k = if kind == 5 { rng.below(5) } else { kind };
            match k {
                0 => rng.next_u32(),
                1 => rng.below(8) as u32,
                2 => 0,
                3 => u32::MAX,
                _ => (i as u32 + start) & 1,
            }
        })
        .collect()
}

/// Checks that `program`'s entry point named like `func` writes the same trace as `func`
/// on `streams` decision streams drawn from `seed` (see the module docs for the limits).
/// The first disagreement is the error. A declaration (no body, so no entry point) passes
/// with empty statistics.
// The mismatch is large (two buffers, the stream) but only built on failure.
#[allow(clippy::result_large_err)]
pub fn check_trace_equivalence(
    func: &Function,
    program: &ShapeProgram,
    streams: usize,
    seed: u64,
) -> Result<EquivStats, TraceMismatch> {
    let mut stats = EquivStats::default();
    if func.is_declaration() {
        // No body, no entry point: nothing to compare.
        return Ok(stats);
    }
    let mut rng = SplitMix64::new(seed);
    let numbers = block_numbers(func);
    let mut block_labels = vec![String::new(); numbers.len()];
    for (i, &n) in numbers.iter().enumerate() {
        block_labels[n as usize] = func.block_label(BlockId::new(i));
    }
    let slack = SPIRV_BLOCK_SLACK + 4 * program.block_count() as u64;
    let spirv_limits = |original_entries: u64, stop: Option<u32>| {
        let blocks = SPIRV_BLOCK_FACTOR.saturating_mul(original_entries.saturating_add(16)).saturating_add(slack);
        SpirvLimits {
            max_block_entries: blocks,
            max_instructions: blocks.saturating_mul(program.max_block_len() + 1),
            stop_at_trace_count: stop,
        }
    };

    for stream in 0..streams {
        let (decisions, trace_len) = draw_stream(&mut rng, stream % 6);
        let trace_len = trace_len.max(1);
        let limit = ORIGINAL_MIN_LIMIT.max(2 * trace_len as u64 + 16);
        let mut original = original_trace(func, &decisions, trace_len, &Limits { max_block_entries: limit });
        stats.original_block_entries += original.steps;

        let mismatch =
            |kind: MismatchKind, original: Trace, spirv: Option<Trace>, first: Option<usize>| TraceMismatch {
                function: func.name.clone(),
                seed,
                stream,
                decisions: decisions.clone(),
                trace_len,
                kind,
                original,
                spirv,
                first_difference: first,
                block_labels: block_labels.clone(),
            };

        let limits = match original.outcome {
            Outcome::Finished => spirv_limits(original.steps, None),
            Outcome::StepLimit => spirv_limits(limit, Some(u32::try_from(trace_len).unwrap_or(u32::MAX))),
        };
        let spirv = match program.run(&func.name, &decisions, trace_len, &limits) {
            Ok(t) => t,
            Err(e) => return Err(mismatch(MismatchKind::SpirvError(e), original, None, None)),
        };
        stats.spirv_block_entries += spirv.steps;

        let full_compare = match (original.outcome, spirv.outcome) {
            (Outcome::Finished, Outcome::Finished) => true,
            (Outcome::Finished, Outcome::StepLimit) => {
                let first = first_difference(&original.buffer, &spirv.buffer, 0);
                return Err(mismatch(MismatchKind::SpirvDidNotFinish, original, Some(spirv), first));
            }
            (Outcome::StepLimit, Outcome::Finished) => {
                stats.reruns += 1;
                let rerun_limit = (spirv.count() as u64 + 1).min(1 << 24);
                original = original_trace(func, &decisions, trace_len, &Limits { max_block_entries: rerun_limit });
                stats.original_block_entries += original.steps;
                if original.outcome != Outcome::Finished {
                    let first = first_difference(&original.buffer, &spirv.buffer, 0);
                    return Err(mismatch(MismatchKind::OriginalDidNotFinish, original, Some(spirv), first));
                }
                true
            }
            (Outcome::StepLimit, Outcome::StepLimit) => {
                if (spirv.count() as usize) < trace_len - 1 {
                    let first = first_difference(&original.buffer, &spirv.buffer, 1);
                    return Err(mismatch(MismatchKind::SpirvStalled, original, Some(spirv), first));
                }
                false
            }
        };
        if full_compare {
            if let Some(i) = first_difference(&original.buffer, &spirv.buffer, 0) {
                return Err(mismatch(MismatchKind::BuffersDiffer, original, Some(spirv), Some(i)));
            }
            stats.finished += 1;
        } else {
            if let Some(i) = first_difference(&original.buffer, &spirv.buffer, 1) {
                return Err(mismatch(MismatchKind::EntriesDiffer, original, Some(spirv), Some(i)));
            }
            stats.truncated += 1;
        }
        stats.max_count = stats.max_count.max(original.count());
        stats.streams += 1;
    }
    Ok(stats)
}

/// A naive, unstructured shape module for `func` (see the module docs): entry point
/// `func.name`, one SPIR-V block per original block, appends through a helper function
/// `append(u32)`, decisions through `read() -> u32` (with the end-of-buffer check and an
/// `OpPhi`). Valid SPIR-V apart from the missing structure. PHIs in the entry block are
/// not supported (`Err`).
pub fn naive_shape_module(func: &Function) -> Result<Vec<u32>, String> {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{
        AddressingModel, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl, MemoryModel,
        SelectionControl, StorageClass,
    };
    use std::collections::HashMap;

    let err = |e: rspirv::dr::Error| format!("rspirv builder: {e}");
    let numbers = block_numbers(func);
    let mut order: Vec<usize> = (0..numbers.len()).collect();
    order.sort_by_key(|&i| numbers[i]);
    let phi_count = |b: usize| {
        func.blocks[BlockId::new(b)]
            .insts
            .iter()
            .take_while(|&&i| func.insts.get(i).is_some_and(|inst| inst.kind.is_phi()))
            .count()
    };
    let entry = func.entry().map(|b| b.index());
    if let Some(e) = entry {
        if phi_count(e) > 0 {
            return Err("PHIs in the entry block".into());
        }
    }

    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let boolt = b.type_bool();
    let u32t = b.type_int(32, 0);
    let rt = b.type_runtime_array(u32t);
    b.decorate(rt, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let st = b.type_struct([rt]);
    b.decorate(st, Decoration::Block, []);
    b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let p_st = b.type_pointer(None, StorageClass::StorageBuffer, st);
    let p_u = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let p_priv = b.type_pointer(None, StorageClass::Private, u32t);
    let mut consts: HashMap<u32, u32> = HashMap::new();
    let mut constant = |b: &mut Builder, v: u32| *consts.entry(v).or_insert_with(|| b.constant_bit32(u32t, v));
    let c0 = constant(&mut b, 0);
    let c1 = constant(&mut b, 1);
    let dec = b.variable(p_st, None, StorageClass::StorageBuffer, None);
    b.decorate(dec, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(dec, Decoration::Binding, [Operand::LiteralBit32(0)]);
    b.name(dec, "decisions");
    let tr = b.variable(p_st, None, StorageClass::StorageBuffer, None);
    b.decorate(tr, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(tr, Decoration::Binding, [Operand::LiteralBit32(1)]);
    b.name(tr, "trace");
    let counter = b.variable(p_priv, None, StorageClass::Private, Some(c0));
    b.name(counter, "next_decision");

    // append(v)
    let fn_append_ty = b.type_function(void, [u32t]);
    let append = b.begin_function(void, None, FunctionControl::NONE, fn_append_ty).map_err(err)?;
    b.name(append, "append");
    let v = b.function_parameter(u32t).map_err(err)?;
    b.begin_block(None).map_err(err)?;
    let p0 = b.access_chain(p_u, None, tr, [c0, c0]).map_err(err)?;
    let n = b.load(u32t, None, p0, None, []).map_err(err)?;
    let slot = b.i_add(u32t, None, n, c1).map_err(err)?;
    b.store(p0, slot, None, []).map_err(err)?;
    let len = b.array_length(u32t, None, tr, 0).map_err(err)?;
    let ok = b.u_less_than(boolt, None, slot, len).map_err(err)?;
    let (store_l, merge_l) = (b.id(), b.id());
    b.selection_merge(merge_l, SelectionControl::NONE).map_err(err)?;
    b.branch_conditional(ok, store_l, merge_l, []).map_err(err)?;
    b.begin_block(Some(store_l)).map_err(err)?;
    let p = b.access_chain(p_u, None, tr, [c0, slot]).map_err(err)?;
    b.store(p, v, None, []).map_err(err)?;
    b.branch(merge_l).map_err(err)?;
    b.begin_block(Some(merge_l)).map_err(err)?;
    b.ret().map_err(err)?;
    b.end_function().map_err(err)?;

    // read() -> u32
    let fn_read_ty = b.type_function(u32t, []);
    let read = b.begin_function(u32t, None, FunctionControl::NONE, fn_read_ty).map_err(err)?;
    b.name(read, "read");
    let first = b.begin_block(None).map_err(err)?;
    let c = b.load(u32t, None, counter, None, []).map_err(err)?;
    let next = b.i_add(u32t, None, c, c1).map_err(err)?;
    b.store(counter, next, None, []).map_err(err)?;
    let len = b.array_length(u32t, None, dec, 0).map_err(err)?;
    let inside = b.u_less_than(boolt, None, c, len).map_err(err)?;
    let (load_l, merge_l) = (b.id(), b.id());
    b.selection_merge(merge_l, SelectionControl::NONE).map_err(err)?;
    b.branch_conditional(inside, load_l, merge_l, []).map_err(err)?;
    b.begin_block(Some(load_l)).map_err(err)?;
    let p = b.access_chain(p_u, None, dec, [c0, c]).map_err(err)?;
    let d = b.load(u32t, None, p, None, []).map_err(err)?;
    b.branch(merge_l).map_err(err)?;
    b.begin_block(Some(merge_l)).map_err(err)?;
    let r = b.phi(u32t, None, [(d, load_l), (c0, first)]).map_err(err)?;
    b.ret_value(r).map_err(err)?;
    b.end_function().map_err(err)?;

    // The function itself.
    let fn_main_ty = b.type_function(void, []);
    let main = b.begin_function(void, None, FunctionControl::NONE, fn_main_ty).map_err(err)?;
    b.name(main, &func.name);
    let labels: Vec<u32> = (0..numbers.len()).map(|_| b.id()).collect();
    b.begin_block(None).map_err(err)?;
    match entry {
        Some(e) => b.branch(labels[e]).map_err(err)?,
        None => b.ret().map_err(err)?,
    }
    for &bi in &order {
        let block = &func.blocks[BlockId::new(bi)];
        b.begin_block(Some(labels[bi])).map_err(err)?;
        b.name(labels[bi], func.block_label(BlockId::new(bi)));
        let phis = phi_count(bi);
        let pred = if phis > 0 {
            let mut incoming = Vec::new();
            for &p in &order {
                if func.blocks[BlockId::new(p)].terminator.successors().iter().any(|s| s.index() == bi) {
                    incoming.push((constant(&mut b, numbers[p]), labels[p]));
                }
            }
            Some(b.phi(u32t, None, incoming).map_err(err)?)
        } else {
            None
        };
        let me = constant(&mut b, numbers[bi]);
        b.function_call(void, None, append, [me]).map_err(err)?;
        if let Some(pred) = pred {
            for _ in 0..phis {
                b.function_call(void, None, append, [pred]).map_err(err)?;
            }
        }
        match &block.terminator {
            Terminator::Ret { .. } | Terminator::Unreachable => b.ret().map_err(err)?,
            Terminator::Br { target } => b.branch(labels[target.index()]).map_err(err)?,
            Terminator::CondBr { if_true, if_false, .. } => {
                let d = b.function_call(u32t, None, read, []).map_err(err)?;
                let bit = b.bitwise_and(u32t, None, d, c1).map_err(err)?;
                let taken = b.i_equal(boolt, None, bit, c1).map_err(err)?;
                b.branch_conditional(taken, labels[if_true.index()], labels[if_false.index()], []).map_err(err)?;
            }
            Terminator::Switch { default, cases, .. } => {
                let d = b.function_call(u32t, None, read, []).map_err(err)?;
                let n = u32::try_from(cases.len() + 1).map_err(|_| "too many switch cases".to_string())?;
                let modulus = constant(&mut b, n);
                let k = b.u_mod(u32t, None, d, modulus).map_err(err)?;
                let targets: Vec<(Operand, u32)> = cases
                    .iter()
                    .enumerate()
                    .map(|(j, (_, t))| (Operand::LiteralBit32(j as u32 + 1), labels[t.index()]))
                    .collect();
                b.switch(k, labels[default.index()], targets).map_err(err)?;
            }
        }
    }
    b.end_function().map_err(err)?;
    b.entry_point(ExecutionModel::GLCompute, main, func.name.clone(), [dec, tr, counter]);
    b.execution_mode(main, ExecutionMode::LocalSize, [1, 1, 1]);
    Ok(b.module().assemble())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::cfg_gen::{random_function, CfgGenConfig};
    use crate::fuzzing::synthetic::{diamond_chain, from_adjacency, loop_nest, wide_switch};
    use untangle::ir::{Inst, InstKind, Type, Types, Value};

    fn adj(name: &str, blocks: &[(&str, &[&str])]) -> Function {
        let mut types = Types::default();
        from_adjacency(name, blocks, &mut types).unwrap()
    }

    fn program(f: &Function) -> ShapeProgram {
        ShapeProgram::parse(&naive_shape_module(f).unwrap()).unwrap()
    }

    fn check(f: &Function, streams: usize, seed: u64) -> EquivStats {
        let p = program(f);
        match check_trace_equivalence(f, &p, streams, seed) {
            Ok(stats) => stats,
            Err(m) => panic!("{m}"),
        }
    }

    #[test]
    fn naive_modules_agree_on_regular_shapes() {
        let mut types = Types::default();
        for f in [diamond_chain(30, &mut types), loop_nest(12, &mut types), wide_switch(9, &mut types)] {
            let stats = check(&f, 200, 1);
            assert_eq!(stats.streams, 200);
            assert_eq!(stats.finished + stats.truncated, 200);
            assert!(stats.spirv_block_entries > stats.original_block_entries);
        }
    }

    #[test]
    fn infinite_loops_compare_full_buffers_without_the_count() {
        // `h` loops while decisions are odd, and the body loops forever on zeros.
        let f = adj("spin", &[("e", &["h"]), ("h", &["b", "x"]), ("b", &["h", "b"]), ("x", &[])]);
        let stats = check(&f, 300, 2);
        assert!(stats.finished > 0, "{stats:?}");
        assert!(stats.truncated > 0, "{stats:?}");
        // A loop with no exit at all.
        let g = adj("forever", &[("e", &["l"]), ("l", &["l"])]);
        let stats = check(&g, 50, 3);
        assert_eq!(stats.truncated, 50);
    }

    #[test]
    fn phis_and_random_cfgs_agree() {
        let config = CfgGenConfig { max_blocks: 40, ..CfgGenConfig::default() };
        for seed in 0..40 {
            let mut types = Types::default();
            let mut f = random_function(seed, &config, &mut types);
            // PHIs in every non-entry block with a predecessor, 1 or 2 of them.
            let i32t = types.intern(Type::Int(32));
            let entry = f.entry().unwrap();
            for (k, &b) in f.layout.clone().iter().enumerate() {
                if b == entry || k % 3 == 0 {
                    continue;
                }
                for _ in 0..1 + k % 2 {
                    let id = f.insts.push(Inst {
                        name: None,
                        ty: i32t,
                        kind: InstKind::Phi { incoming: Default::default() },
                    });
                    f.blocks[b].insts.insert(0, id);
                }
            }
            let p = program(&f);
            if let Err(m) = check_trace_equivalence(&f, &p, 60, seed) {
                panic!("{m}");
            }
        }
    }

    #[test]
    fn deterministic_from_the_seed() {
        let f = adj("d", &[("a", &["b", "c"]), ("b", &["a2"]), ("c", &["a2"]), ("a2", &["a", "z"]), ("z", &[])]);
        // `a` is the entry and a loop header here: from_adjacency allows it.
        assert_eq!(check(&f, 100, 9), check(&f, 100, 9));
    }

    #[test]
    fn a_swapped_branch_is_caught() {
        let f = adj("f", &[("a", &["t", "e"]), ("t", &["j"]), ("e", &["j"]), ("j", &[])]);
        let mut wrong = f.clone();
        if let Terminator::CondBr { if_true, if_false, .. } = &mut wrong.blocks[BlockId::new(0)].terminator {
            std::mem::swap(if_true, if_false);
        }
        let p = program(&wrong);
        let m = check_trace_equivalence(&f, &p, 50, 4).unwrap_err();
        assert_eq!(m.kind, MismatchKind::BuffersDiffer);
        assert_eq!(m.first_difference, Some(2));
        let text = m.to_string();
        assert!(text.contains("decisions"), "{text}");
        assert!(text.contains("buffer[2]"), "{text}");
        assert!(text.contains(":t") && text.contains(":e"), "{text}");
        // The mismatch replays.
        let o = original_trace(&f, &m.decisions, m.trace_len, &Limits { max_block_entries: 100 });
        assert_eq!(o.buffer, m.original.buffer);
    }

    #[test]
    fn a_wrong_loop_is_caught_in_truncated_runs() {
        // The original spins in `l` forever; the SPIR-V spins through `l` and `m`.
        let f = adj("f", &[("e", &["l"]), ("l", &["l"]), ("m", &["l"])]);
        let wrong = adj("f", &[("e", &["l"]), ("l", &["m"]), ("m", &["l"])]);
        let m = check_trace_equivalence(&f, &program(&wrong), 50, 5).unwrap_err();
        assert_eq!(m.kind, MismatchKind::EntriesDiffer, "{m}");
        assert!(m.first_difference.unwrap() >= 1);
        assert_eq!(m.spirv.as_ref().unwrap().outcome, Outcome::StepLimit);
    }

    #[test]
    fn non_termination_on_either_side_is_caught() {
        let finishes = adj("f", &[("a", &["b"]), ("b", &[])]);
        let spins = adj("f", &[("a", &["b"]), ("b", &["b"])]);
        let m = check_trace_equivalence(&finishes, &program(&spins), 10, 6).unwrap_err();
        assert_eq!(m.kind, MismatchKind::SpirvDidNotFinish, "{m}");
        let m = check_trace_equivalence(&spins, &program(&finishes), 10, 6).unwrap_err();
        assert_eq!(m.kind, MismatchKind::OriginalDidNotFinish, "{m}");
        assert_eq!(m.spirv.as_ref().unwrap().outcome, Outcome::Finished);
    }

    #[test]
    fn a_loop_without_appends_is_stalled() {
        use rspirv::binary::Assemble;
        use rspirv::dr::{Builder, Operand};
        use rspirv::spirv::{
            AddressingModel, Capability, Decoration, ExecutionModel, FunctionControl, MemoryModel, StorageClass,
        };
        let spins = adj("f", &[("a", &["a2"]), ("a2", &["a2"])]);
        // A module whose `f` loops without touching the trace.
        let mut b = Builder::new();
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let u32t = b.type_int(32, 0);
        let rt = b.type_runtime_array(u32t);
        let st = b.type_struct([rt]);
        let p_st = b.type_pointer(None, StorageClass::StorageBuffer, st);
        let tr = b.variable(p_st, None, StorageClass::StorageBuffer, None);
        b.decorate(tr, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(tr, Decoration::Binding, [Operand::LiteralBit32(1)]);
        let fty = b.type_function(void, []);
        let main = b.begin_function(void, None, FunctionControl::NONE, fty).unwrap();
        b.entry_point(ExecutionModel::GLCompute, main, "f", [tr]);
        b.begin_block(None).unwrap();
        let l = b.id();
        b.branch(l).unwrap();
        b.begin_block(Some(l)).unwrap();
        b.branch(l).unwrap();
        b.end_function().unwrap();
        let p = ShapeProgram::parse(&b.module().assemble()).unwrap();
        let m = check_trace_equivalence(&spins, &p, 10, 7).unwrap_err();
        assert_eq!(m.kind, MismatchKind::SpirvStalled, "{m}");
    }

    #[test]
    fn spirv_errors_are_mismatches() {
        let f = adj("f", &[("a", &[])]);
        let other = adj("g", &[("a", &[])]);
        let m = check_trace_equivalence(&f, &program(&other), 10, 8).unwrap_err();
        assert_eq!(m.kind, MismatchKind::SpirvError(InterpError::NoEntryPoint("f".into())));
        assert!(m.spirv.is_none());
        assert!(m.to_string().contains("no GLCompute entry point"));
    }

    #[test]
    fn streams_cover_every_distribution_and_trace_length() {
        let mut rng = SplitMix64::new(11);
        let mut lens = std::collections::BTreeSet::new();
        let mut kinds = [false; 6];
        for i in 0..600 {
            let (d, len) = draw_stream(&mut rng, i % 6);
            assert!(d.len() < 64);
            lens.insert(len);
            kinds[i % 6] |= match i % 6 {
                2 => d.iter().all(|&x| x == 0),
                3 => d.iter().all(|&x| x == u32::MAX),
                4 => d.windows(2).all(|w| w[0] + w[1] == 1),
                1 => d.iter().all(|&x| x < 8),
                _ => true,
            };
        }
        assert_eq!(lens.into_iter().collect::<Vec<_>>(), vec![1, 2, 4, 8, 16, 64, 4096]);
        assert!(kinds.iter().all(|&k| k));
    }

    #[test]
    fn naive_module_rejects_entry_phis() {
        let mut types = Types::default();
        let mut f = from_adjacency("f", &[("a", &["a", "b"]), ("b", &[])], &mut types).unwrap();
        let i32t = types.intern(Type::Int(32));
        let phi = f.insts.push(Inst {
            name: None,
            ty: i32t,
            kind: InstKind::Phi { incoming: [(Value::Arg(0), BlockId::new(0))].into_iter().collect() },
        });
        f.blocks[BlockId::new(0)].insts.push(phi);
        assert!(naive_shape_module(&f).is_err());
    }
}
