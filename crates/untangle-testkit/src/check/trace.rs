//! The reference interpreter of shape mode: what the trace program of an original LLVM
//! function must write, read straight off the function's CFG.
//!
//! The contract (the shape emitter implements it in SPIR-V; [`super::spirv_interp`] runs
//! that SPIR-V): blocks are numbered `0..` in [`Function::layout`] order. On entering block
//! `b`, append `b` to the trace; then, for each PHI of `b` (the leading `phi` instructions),
//! append the number of the block control came from. Then the terminator: `ret` and
//! `unreachable` end the invocation; `br label` goes on; a conditional `br` reads the next
//! decision `d` (`decisions[c]`, `c += 1`; reads past the end give 0) and takes the true
//! target iff `d & 1 == 1`; a `switch` with `n` case values reads `d`, computes
//! `k = d % (n + 1)` and takes the default for `k == 0`, else the target of case `k − 1`
//! (source order).
//!
//! Appending: `trace[0]` counts entries (wrapping `u32`); entry `i` is stored at
//! `trace[1 + i]` only if `1 + i < trace.len()`.
//!
//! Two corner cases the contract leaves open, decided here:
//! * PHIs of the entry block (LLVM forbids them) append nothing on the initial entry,
//!   since no block precedes it; on later entries through an edge they append normally.
//! * A branch to a block missing from `layout` (not produced by any front end): such
//!   blocks are numbered after the layout blocks, in `BlockId` order.

use cranelift_entity::EntityRef;
use untangle::ir::{BlockId, Function, Terminator};

/// Bounds of a run of [`original_trace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The number of block entries allowed; the run stops (with [`Outcome::StepLimit`])
    /// instead of making one more, before that entry appends anything.
    pub max_block_entries: u64,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `ret` or `unreachable` ended the invocation.
    Finished,
    /// A limit stopped the run; the buffer holds what was written until then.
    StepLimit,
}

/// The result of one run, original or SPIR-V.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The trace buffer (`trace_len` words, zeroed before the run) as it is afterwards:
    /// `buffer[0]` is the number of entries appended (wrapping), then the stored entries.
    pub buffer: Vec<u32>,
    pub outcome: Outcome,
    /// Blocks entered (for SPIR-V: every `OpLabel` entered, structurizer blocks included).
    pub steps: u64,
}

impl Trace {
    /// `buffer[0]`, or 0 for an empty buffer.
    pub fn count(&self) -> u32 {
        self.buffer.first().copied().unwrap_or(0)
    }

    /// The stored entries (`buffer[1..]`, as far as the count reached).
    pub fn entries(&self) -> &[u32] {
        let stored = (self.count() as usize).min(self.buffer.len().saturating_sub(1));
        &self.buffer[1..1 + stored]
    }
}

/// The trace buffer and the append rule of the contract.
#[derive(Clone, Debug)]
pub(crate) struct TraceBuffer {
    pub(crate) words: Vec<u32>,
}

impl TraceBuffer {
    pub(crate) fn new(len: usize) -> Self {
        TraceBuffer { words: vec![0; len] }
    }

    pub(crate) fn append(&mut self, value: u32) {
        let Some(count) = self.words.first().copied() else {
            return;
        };
        self.words[0] = count.wrapping_add(1);
        let slot = 1 + count as usize;
        if slot < self.words.len() {
            self.words[slot] = value;
        }
    }
}

/// Layout numbers of every block: layout blocks first, then the rest in id order.
pub(crate) fn block_numbers(func: &Function) -> Vec<u32> {
    let mut number = vec![u32::MAX; func.blocks.len()];
    let mut next = 0u32;
    for &b in &func.layout {
        if let Some(slot) = number.get_mut(b.index()) {
            if *slot == u32::MAX {
                *slot = next;
                next += 1;
            }
        }
    }
    for slot in number.iter_mut() {
        if *slot == u32::MAX {
            *slot = next;
            next += 1;
        }
    }
    number
}

/// Runs `func` under the shape-mode contract (see the module docs) with the given
/// decisions and a trace buffer of `trace_len` words. A declaration (no blocks) finishes at
/// once with a zeroed buffer.
pub fn original_trace(func: &Function, decisions: &[u32], trace_len: usize, limits: &Limits) -> Trace {
    let mut buffer = TraceBuffer::new(trace_len);
    let Some(entry) = func.entry() else {
        return Trace { buffer: buffer.words, outcome: Outcome::Finished, steps: 0 };
    };
    let number = block_numbers(func);
    let phi_count: Vec<u32> = func
        .blocks
        .values()
        .map(|block| {
            block.insts.iter().take_while(|&&i| func.insts.get(i).is_some_and(|inst| inst.kind.is_phi())).count() as u32
        })
        .collect();
    let mut next_decision = 0usize;
    let mut read = || {
        let d = decisions.get(next_decision).copied().unwrap_or(0);
        next_decision = next_decision.saturating_add(1);
        d
    };

    let mut steps = 0u64;
    let mut current: BlockId = entry;
    let mut from: Option<BlockId> = None;
    loop {
        if steps >= limits.max_block_entries {
            return Trace { buffer: buffer.words, outcome: Outcome::StepLimit, steps };
        }
        steps += 1;
        let Some(block) = func.blocks.get(current) else {
            // Not reachable for a well-formed function (every target is a block); treat a
            // dangling target like `unreachable`.
            break;
        };
        buffer.append(number[current.index()]);
        if let Some(pred) = from {
            for _ in 0..phi_count[current.index()] {
                buffer.append(number[pred.index()]);
            }
        }
        let next = match &block.terminator {
            Terminator::Ret { .. } | Terminator::Unreachable => break,
            Terminator::Br { target } => *target,
            Terminator::CondBr { if_true, if_false, .. } => {
                if read() & 1 == 1 {
                    *if_true
                } else {
                    *if_false
                }
            }
            Terminator::Switch { default, cases, .. } => {
                let k = read() as u64 % (cases.len() as u64 + 1);
                if k == 0 {
                    *default
                } else {
                    cases[(k - 1) as usize].1
                }
            }
        };
        from = Some(current);
        current = next;
    }
    Trace { buffer: buffer.words, outcome: Outcome::Finished, steps }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::synthetic::from_adjacency;
    use untangle::ir::{Inst, InstKind, Type, Types, Value};

    const BIG: Limits = Limits { max_block_entries: 10_000 };

    fn func(blocks: &[(&str, &[&str])]) -> Function {
        let mut types = Types::default();
        from_adjacency("f", blocks, &mut types).unwrap()
    }

    /// Buffer from a count and the stored entries, padded with zeros to `len`.
    fn buf(count: u32, entries: &[u32], len: usize) -> Vec<u32> {
        let mut v = vec![count];
        v.extend_from_slice(entries);
        v.resize(len, 0);
        v
    }

    /// Adds `n` PHIs at the start of block `block` (their incoming values do not matter).
    fn add_phis(f: &mut Function, types: &mut Types, block: usize, n: usize) {
        let i32t = types.intern(Type::Int(32));
        let preds: Vec<BlockId> = f.layout.clone();
        for _ in 0..n {
            let id = f.insts.push(Inst {
                name: None,
                ty: i32t,
                kind: InstKind::Phi { incoming: preds.iter().map(|&p| (Value::Arg(0), p)).collect() },
            });
            f.blocks[BlockId::new(block)].insts.insert(0, id);
        }
    }

    #[test]
    fn if_else() {
        let f = func(&[("a", &["t", "e"]), ("t", &["j"]), ("e", &["j"]), ("j", &[])]);
        let t = original_trace(&f, &[1], 8, &BIG);
        assert_eq!(t.buffer, buf(3, &[0, 1, 3], 8));
        assert_eq!(t.outcome, Outcome::Finished);
        assert_eq!(t.steps, 3);
        // Only bit 0 matters.
        let e = original_trace(&f, &[0xffff_fffe], 8, &BIG);
        assert_eq!(e.buffer, buf(3, &[0, 2, 3], 8));
        // Past the end reads 0: the false arm.
        let e = original_trace(&f, &[], 8, &BIG);
        assert_eq!(e.buffer, buf(3, &[0, 2, 3], 8));
    }

    #[test]
    fn loop_until_decision_clear() {
        // h: true → body, false → exit.
        let f = func(&[("entry", &["h"]), ("h", &["body", "exit"]), ("body", &["h"]), ("exit", &[])]);
        let t = original_trace(&f, &[1, 3, 5, 0, 1], 16, &BIG);
        assert_eq!(t.buffer, buf(9, &[0, 1, 2, 1, 2, 1, 2, 1, 3], 16));
        assert_eq!(t.outcome, Outcome::Finished);
        assert_eq!(t.entries(), &[0, 1, 2, 1, 2, 1, 2, 1, 3]);
    }

    #[test]
    fn switch_selects_by_modulo() {
        // Three cases: k = d % 4; 0 → default.
        let f = func(&[
            ("s", &["d", "c0", "c1", "c2"]),
            ("d", &["x"]),
            ("c0", &["x"]),
            ("c1", &["x"]),
            ("c2", &["x"]),
            ("x", &[]),
        ]);
        for (d, target) in [(0u32, 1u32), (1, 2), (2, 3), (3, 4), (4, 1), (7, 4), (u32::MAX, 4)] {
            let t = original_trace(&f, &[d], 8, &BIG);
            assert_eq!(t.buffer, buf(3, &[0, target, 5], 8), "decision {d}");
        }
    }

    #[test]
    fn phis_append_the_predecessor() {
        let mut types = Types::default();
        let mut f = from_adjacency("f", &[("a", &["t", "j"]), ("t", &["j"]), ("j", &[])], &mut types).unwrap();
        add_phis(&mut f, &mut types, 2, 2);
        let t = original_trace(&f, &[1], 16, &BIG);
        assert_eq!(t.buffer, buf(5, &[0, 1, 2, 1, 1], 16));
        let e = original_trace(&f, &[0], 16, &BIG);
        assert_eq!(e.buffer, buf(4, &[0, 2, 0, 0], 16));
    }

    #[test]
    fn entry_phis_append_only_through_an_edge() {
        let mut types = Types::default();
        let mut f = from_adjacency("f", &[("a", &["b", "x"]), ("b", &["a"]), ("x", &[])], &mut types).unwrap();
        add_phis(&mut f, &mut types, 0, 1);
        let t = original_trace(&f, &[1, 0], 16, &BIG);
        assert_eq!(t.buffer, buf(5, &[0, 1, 0, 1, 2], 16));
    }

    #[test]
    fn capacity_rule_keeps_counting() {
        let f = func(&[("entry", &["h"]), ("h", &["h", "exit"]), ("exit", &[])]);
        let t = original_trace(&f, &[1, 1, 1, 1, 1], 4, &BIG);
        // entry, h ×6, exit = 8 entries; only the first 3 fit.
        assert_eq!(t.buffer, vec![8, 0, 1, 1]);
        assert_eq!(t.entries(), &[0, 1, 1]);
        let one = original_trace(&f, &[1], 1, &BIG);
        assert_eq!(one.buffer, vec![4]);
        let none = original_trace(&f, &[1], 0, &BIG);
        assert!(none.buffer.is_empty());
        assert_eq!(none.outcome, Outcome::Finished);
    }

    #[test]
    fn infinite_loop_hits_the_limit() {
        let f = func(&[("entry", &["h"]), ("h", &["h"])]);
        let t = original_trace(&f, &[], 8, &Limits { max_block_entries: 5 });
        assert_eq!(t.outcome, Outcome::StepLimit);
        assert_eq!(t.steps, 5);
        assert_eq!(t.buffer, buf(5, &[0, 1, 1, 1, 1], 8));
        let z = original_trace(&f, &[], 8, &Limits { max_block_entries: 0 });
        assert_eq!(z.outcome, Outcome::StepLimit);
        assert_eq!(z.buffer, vec![0; 8]);
        // Exactly enough entries: the run finishes.
        let g = func(&[("a", &["b"]), ("b", &[])]);
        let t = original_trace(&g, &[], 8, &Limits { max_block_entries: 2 });
        assert_eq!(t.outcome, Outcome::Finished);
    }

    #[test]
    fn unreachable_ends_the_invocation() {
        let mut f = func(&[("a", &["b"]), ("b", &[])]);
        f.blocks[BlockId::new(0)].terminator = Terminator::Unreachable;
        let t = original_trace(&f, &[], 4, &BIG);
        assert_eq!(t.buffer, vec![1, 0, 0, 0]);
        assert_eq!(t.outcome, Outcome::Finished);
    }

    #[test]
    fn numbering_follows_layout_order() {
        let mut f = func(&[("a", &["b"]), ("b", &["c"]), ("c", &[])]);
        // Layout a, c, b: b is number 2, c number 1.
        f.layout = vec![BlockId::new(0), BlockId::new(2), BlockId::new(1)];
        let t = original_trace(&f, &[], 4, &BIG);
        assert_eq!(t.buffer, vec![3, 0, 2, 1]);
    }

    #[test]
    fn declarations_finish_at_once() {
        let mut f = func(&[("a", &[])]);
        f.layout.clear();
        let t = original_trace(&f, &[], 3, &BIG);
        assert_eq!(t.buffer, vec![0, 0, 0]);
        assert_eq!(t.outcome, Outcome::Finished);
    }

    #[test]
    fn switch_cases_keep_source_order_with_shared_targets() {
        let mut f = func(&[("s", &["d", "a", "b"]), ("d", &[]), ("a", &[]), ("b", &[])]);
        f.blocks[BlockId::new(0)].terminator = Terminator::Switch {
            value: Value::Arg(0),
            default: BlockId::new(1),
            cases: vec![(9, BlockId::new(3)), (2, BlockId::new(2)), (5, BlockId::new(3))],
        };
        let got: Vec<u32> = (0..4).map(|d| original_trace(&f, &[d], 3, &BIG).buffer[2]).collect();
        assert_eq!(got, vec![1, 3, 2, 3]);
    }
}
