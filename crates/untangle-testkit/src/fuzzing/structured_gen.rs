//! Random reducible CFGs that stress a structurizer, deterministic from a seed.
//!
//! [`generate`] builds a random *structured program* and lowers it to blocks on the fly,
//! then "unstructures" it with jumps that keep the graph reducible:
//!
//! * statements: sequences, `if` / `if … else`, `if … else if … else` ladders (optionally
//!   with a shared tail block some arms jump to), `while`, `do … while`, endless loops
//!   left only by `break`, *infinite* loops that have no exit edge at all (left only by a
//!   `return`, or never), `switch` with fall-through (a case block branching into the next
//!   case's block), several case values sharing one block, cases whose target is the
//!   default's, cases that go straight to the merge, and the unrolled-loop pattern DXC
//!   emits for `[unroll]` loops with breaks (see [`unrolled_interleaved_breaks`]);
//! * jumps: multi-level `break` (to the exit of any enclosing loop), multi-level `continue`
//!   (to the latch or straight to the header of any enclosing loop: back edges only ever
//!   go to headers, so several back edges into one header appear), `return` and
//!   `unreachable` inside loops, selections whose two arms leave to two different outer
//!   targets, dead code after a jump (unreachable blocks);
//! * a final pass adds forward `goto`s (a `br` becomes a conditional branch whose other
//!   target is a later block, in fill order, that lies in no loop the source is not in, so
//!   no loop gains a second entry) and conditional branches with both targets equal.
//!
//! Blocks then get instructions, LLVM-valid so that [`to_llvm_text`] output passes
//! `llvm-as`: every conditional branch and switch reads a *distinct* value (a fresh `icmp`
//! on the `i32` arguments or on values computed earlier, placed in the branching block or
//! in a block dominating it, or an `i1` PHI; a switch reads a fresh `add`/`xor` or a
//! `trunc` to `i8`/`i16`); merge blocks, loop headers and loop exits get `i32` PHIs (some
//! single-predecessor, LCSSA-style) whose incoming values are arguments or values defined in
//! blocks dominating the predecessor (so loop-carried values appear), with the incoming
//! order sometimes shuffled. PHIs follow LLVM's rule: one entry per incoming *edge*, so a
//! predecessor with two parallel edges (a `br` with equal targets, switch cases sharing a
//! block) appears twice, with the same value. Constants live in a module, which this
//! generator does not have, so values are arguments and instructions.
//!
//! The functions are `define void|i32 @name(i32 %c, i32 %d, i32 %e, i1 %p)`.
//! [`GenStats`] counts what a function contains; the tests check that every feature occurs.

use super::mutate::SplitMix64;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;
use std::collections::HashMap;
use untangle::cfg::Cfg;
use untangle::ir::Inst;
use untangle::ir::{
    BinaryOp, Block, BlockId, CastOp, Function, InstId, InstKind, IntPredicate, Module, Param, Terminator, Type,
    TypeId, Types, Value,
};

/// Relative weights of the statement kinds (0 turns a kind off).
#[derive(Clone, Debug)]
pub struct StmtWeights {
    /// `if` with or without `else`.
    pub if_stmt: u32,
    /// `if … else if … else` ladders.
    pub if_ladder: u32,
    /// Inside a loop: an `if` whose arms both leave, to two different outer targets.
    pub escape_if: u32,
    pub loop_stmt: u32,
    pub switch: u32,
    /// An unrolled loop with interleaved breaks.
    pub unrolled: u32,
    pub break_stmt: u32,
    pub continue_stmt: u32,
    /// `return` (not generated at the top level, where the function returns at the end).
    pub return_stmt: u32,
    pub unreachable: u32,
    /// A plain block boundary (`br` to the next block).
    pub straight: u32,
    /// Nothing (keeps the current block).
    pub empty: u32,
}

impl Default for StmtWeights {
    fn default() -> Self {
        StmtWeights {
            if_stmt: 20,
            if_ladder: 4,
            escape_if: 3,
            loop_stmt: 16,
            switch: 8,
            unrolled: 2,
            break_stmt: 8,
            continue_stmt: 6,
            return_stmt: 4,
            unreachable: 1,
            straight: 18,
            empty: 14,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ShapeGenConfig {
    /// Upper bound on the number of blocks; each function aims at a random size up to it.
    pub max_blocks: usize,
    /// Deepest loop nesting.
    pub max_depth: usize,
    /// Deepest nesting of if/switch/loop statements (keeps the recursion shallow).
    pub max_stmt_depth: usize,
    /// Most `case`s in one switch (plus the default).
    pub max_switch_cases: usize,
    /// Most iterations of an unrolled loop.
    pub max_unroll: usize,
    pub weights: StmtWeights,
    /// Chance (percent) that an `if` has an `else`.
    pub else_percent: u32,
    /// Chance that a loop is infinite: no exit edge, left only by `return` (or never).
    pub infinite_loop_percent: u32,
    /// Chance that an infinite loop has no `return` inside at all.
    pub truly_infinite_percent: u32,
    /// Chance that a loop's `continue`s branch straight to its header.
    pub direct_continue_percent: u32,
    /// Chance that a switch case's body falls through into the next case's body.
    pub fallthrough_percent: u32,
    /// Chance that a case value shares the previous case's block.
    pub shared_case_percent: u32,
    /// Chance that a case's target is the default's block.
    pub case_default_percent: u32,
    /// Chance that a case (or the default) goes straight to the merge.
    pub case_merge_percent: u32,
    /// Chance that a ladder has a shared tail block.
    pub ladder_tail_percent: u32,
    /// Chance that a block ending in `br` gets an extra forward `goto`.
    pub goto_percent: u32,
    /// Chance that a block ending in `br` becomes a conditional branch with equal targets.
    pub same_target_percent: u32,
    /// Chance that code follows a jump (an unreachable block).
    pub dead_code_percent: u32,
    /// Chance that a block with several predecessors gets PHIs.
    pub phi_percent: u32,
    /// Chance that a block with one predecessor gets a PHI (LCSSA style).
    pub single_pred_phi_percent: u32,
    /// Chance that a PHI's incoming entries are shuffled.
    pub shuffle_phi_percent: u32,
    /// Chance that a block computes a value (`add`, `xor`, …) PHIs and conditions may read.
    pub value_percent: u32,
    /// Chance that a branch condition is computed in a dominating block.
    pub dominating_cond_percent: u32,
    /// Chance that a branch condition is an `i1` PHI.
    pub phi_cond_percent: u32,
    /// Chance that the function returns `i32` instead of `void`.
    pub ret_value_percent: u32,
}

impl Default for ShapeGenConfig {
    fn default() -> Self {
        ShapeGenConfig {
            max_blocks: 200,
            max_depth: 5,
            max_stmt_depth: 10,
            max_switch_cases: 5,
            max_unroll: 4,
            weights: StmtWeights::default(),
            else_percent: 60,
            infinite_loop_percent: 8,
            truly_infinite_percent: 15,
            direct_continue_percent: 30,
            fallthrough_percent: 25,
            shared_case_percent: 15,
            case_default_percent: 10,
            case_merge_percent: 15,
            ladder_tail_percent: 35,
            goto_percent: 6,
            same_target_percent: 3,
            dead_code_percent: 3,
            phi_percent: 50,
            single_pred_phi_percent: 8,
            shuffle_phi_percent: 30,
            value_percent: 35,
            dominating_cond_percent: 15,
            phi_cond_percent: 8,
            ret_value_percent: 30,
        }
    }
}

impl ShapeGenConfig {
    /// A config derived from arbitrary bytes (for fuzz targets): sizes and every weight and
    /// chance vary; missing bytes keep the defaults. `max_blocks` stays within 4..=259.
    pub fn from_bytes(bytes: &[u8]) -> ShapeGenConfig {
        let mut c = ShapeGenConfig::default();
        let mut it = bytes.iter().copied();
        let mut next = |d: u32, m: u32| it.next().map_or(d, |b| b as u32 % (m + 1));
        c.max_blocks = 4 + next(196, 255) as usize;
        c.max_depth = 1 + next(4, 7) as usize;
        c.max_stmt_depth = 2 + next(8, 12) as usize;
        c.max_switch_cases = 1 + next(4, 7) as usize;
        c.max_unroll = 2 + next(2, 6) as usize;
        let w = &mut c.weights;
        for field in [
            &mut w.if_stmt,
            &mut w.if_ladder,
            &mut w.escape_if,
            &mut w.loop_stmt,
            &mut w.switch,
            &mut w.unrolled,
            &mut w.break_stmt,
            &mut w.continue_stmt,
            &mut w.return_stmt,
            &mut w.unreachable,
            &mut w.straight,
            &mut w.empty,
        ] {
            *field = next(*field, 31);
        }
        for field in [
            &mut c.else_percent,
            &mut c.infinite_loop_percent,
            &mut c.truly_infinite_percent,
            &mut c.direct_continue_percent,
            &mut c.fallthrough_percent,
            &mut c.shared_case_percent,
            &mut c.case_default_percent,
            &mut c.case_merge_percent,
            &mut c.ladder_tail_percent,
            &mut c.goto_percent,
            &mut c.same_target_percent,
            &mut c.dead_code_percent,
            &mut c.phi_percent,
            &mut c.single_pred_phi_percent,
            &mut c.shuffle_phi_percent,
            &mut c.value_percent,
            &mut c.dominating_cond_percent,
            &mut c.phi_cond_percent,
            &mut c.ret_value_percent,
        ] {
            *field = next(*field, 100);
        }
        c
    }
}

/// What one generated function contains (counts of constructs and rewrites).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenStats {
    pub blocks: usize,
    pub if_then: usize,
    pub if_else: usize,
    pub if_ladders: usize,
    pub ladder_shared_tails: usize,
    /// Selections whose two arms leave to two different outer targets.
    pub selections_exited_twice: usize,
    pub while_loops: usize,
    pub do_while_loops: usize,
    /// `loop { … }` left by `break` (or not at all, when no break was generated).
    pub endless_loops: usize,
    /// Loops built without any exit edge.
    pub infinite_loops: usize,
    /// Infinite loops with a `return` inside.
    pub infinite_loops_with_return: usize,
    pub breaks: usize,
    /// Breaks out of two or more loops at once.
    pub multi_level_breaks: usize,
    pub continues: usize,
    /// Continues of an outer loop from an inner one.
    pub multi_level_continues: usize,
    /// Continues that branch straight to the header (not through a latch block).
    pub direct_continues: usize,
    pub returns_in_loops: usize,
    pub unreachables_in_loops: usize,
    pub switches: usize,
    pub switch_fallthroughs: usize,
    /// Case values sharing the previous case's block.
    pub switch_shared_targets: usize,
    /// Cases whose target is the default's block.
    pub switch_case_is_default: usize,
    pub switch_case_to_merge: usize,
    /// Unrolled loops with interleaved breaks.
    pub unrolled_loops: usize,
    pub forward_gotos: usize,
    pub cond_br_same_target: usize,
    pub phi_blocks: usize,
    pub phis: usize,
    pub shuffled_phis: usize,
    pub loop_header_phis: usize,
    /// PHIs in blocks with a single predecessor.
    pub single_pred_phis: usize,
    /// PHIs with two entries for one predecessor (parallel edges).
    pub duplicate_entry_phis: usize,
    pub i1_phi_conditions: usize,
    /// Conditions computed in a block that strictly dominates the branch.
    pub dominating_conditions: usize,
    /// Switches on an `i8` or `i16` value.
    pub narrow_switches: usize,
    pub returns_with_value: usize,
    pub unreachable_blocks: usize,
    /// Loops (by the CFG analysis) with two or more back edges.
    pub multi_latch_loops: usize,
    /// Loops (by the CFG analysis) without exit blocks.
    pub exitless_loops: usize,
    /// Loops (by the CFG analysis) with two or more exit blocks.
    pub multi_exit_loops: usize,
    pub max_loop_depth: usize,
}

impl GenStats {
    /// Every feature counter by name (`blocks` and `max_loop_depth` excluded).
    pub fn features(&self) -> Vec<(&'static str, usize)> {
        vec![
            ("if_then", self.if_then),
            ("if_else", self.if_else),
            ("if_ladders", self.if_ladders),
            ("ladder_shared_tails", self.ladder_shared_tails),
            ("selections_exited_twice", self.selections_exited_twice),
            ("while_loops", self.while_loops),
            ("do_while_loops", self.do_while_loops),
            ("endless_loops", self.endless_loops),
            ("infinite_loops", self.infinite_loops),
            ("infinite_loops_with_return", self.infinite_loops_with_return),
            ("breaks", self.breaks),
            ("multi_level_breaks", self.multi_level_breaks),
            ("continues", self.continues),
            ("multi_level_continues", self.multi_level_continues),
            ("direct_continues", self.direct_continues),
            ("returns_in_loops", self.returns_in_loops),
            ("unreachables_in_loops", self.unreachables_in_loops),
            ("switches", self.switches),
            ("switch_fallthroughs", self.switch_fallthroughs),
            ("switch_shared_targets", self.switch_shared_targets),
            ("switch_case_is_default", self.switch_case_is_default),
            ("switch_case_to_merge", self.switch_case_to_merge),
            ("unrolled_loops", self.unrolled_loops),
            ("forward_gotos", self.forward_gotos),
            ("cond_br_same_target", self.cond_br_same_target),
            ("phi_blocks", self.phi_blocks),
            ("phis", self.phis),
            ("shuffled_phis", self.shuffled_phis),
            ("loop_header_phis", self.loop_header_phis),
            ("single_pred_phis", self.single_pred_phis),
            ("duplicate_entry_phis", self.duplicate_entry_phis),
            ("i1_phi_conditions", self.i1_phi_conditions),
            ("dominating_conditions", self.dominating_conditions),
            ("narrow_switches", self.narrow_switches),
            ("returns_with_value", self.returns_with_value),
            ("unreachable_blocks", self.unreachable_blocks),
            ("multi_latch_loops", self.multi_latch_loops),
            ("exitless_loops", self.exitless_loops),
            ("multi_exit_loops", self.multi_exit_loops),
        ]
    }

    /// Adds `other`'s counts (maxima for `max_loop_depth`).
    pub fn accumulate(&mut self, other: &GenStats) {
        let depth = self.max_loop_depth.max(other.max_loop_depth);
        let blocks = self.blocks + other.blocks;
        let mut sums: HashMap<&'static str, usize> = self.features().into_iter().collect();
        for (k, v) in other.features() {
            *sums.get_mut(k).expect("same keys") += v;
        }
        *self = GenStats::from_features(&sums);
        self.blocks = blocks;
        self.max_loop_depth = depth;
    }

    fn from_features(m: &HashMap<&'static str, usize>) -> GenStats {
        let g = |k: &str| m[k];
        GenStats {
            blocks: 0,
            if_then: g("if_then"),
            if_else: g("if_else"),
            if_ladders: g("if_ladders"),
            ladder_shared_tails: g("ladder_shared_tails"),
            selections_exited_twice: g("selections_exited_twice"),
            while_loops: g("while_loops"),
            do_while_loops: g("do_while_loops"),
            endless_loops: g("endless_loops"),
            infinite_loops: g("infinite_loops"),
            infinite_loops_with_return: g("infinite_loops_with_return"),
            breaks: g("breaks"),
            multi_level_breaks: g("multi_level_breaks"),
            continues: g("continues"),
            multi_level_continues: g("multi_level_continues"),
            direct_continues: g("direct_continues"),
            returns_in_loops: g("returns_in_loops"),
            unreachables_in_loops: g("unreachables_in_loops"),
            switches: g("switches"),
            switch_fallthroughs: g("switch_fallthroughs"),
            switch_shared_targets: g("switch_shared_targets"),
            switch_case_is_default: g("switch_case_is_default"),
            switch_case_to_merge: g("switch_case_to_merge"),
            unrolled_loops: g("unrolled_loops"),
            forward_gotos: g("forward_gotos"),
            cond_br_same_target: g("cond_br_same_target"),
            phi_blocks: g("phi_blocks"),
            phis: g("phis"),
            shuffled_phis: g("shuffled_phis"),
            loop_header_phis: g("loop_header_phis"),
            single_pred_phis: g("single_pred_phis"),
            duplicate_entry_phis: g("duplicate_entry_phis"),
            i1_phi_conditions: g("i1_phi_conditions"),
            dominating_conditions: g("dominating_conditions"),
            narrow_switches: g("narrow_switches"),
            returns_with_value: g("returns_with_value"),
            unreachable_blocks: g("unreachable_blocks"),
            multi_latch_loops: g("multi_latch_loops"),
            exitless_loops: g("exitless_loops"),
            multi_exit_loops: g("multi_exit_loops"),
            max_loop_depth: 0,
        }
    }
}

/// Number of `i32` parameters (`%c`, `%d`, `%e`); the `i1` parameter `%p` follows them.
const I32_PARAMS: u32 = 3;
const BOOL_PARAM: u32 = 3;

/// Placeholder condition until [`Gen::finish`] gives each branch its own value.
const PLACEHOLDER: Value = Value::Arg(0);

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LoopKind {
    While,
    DoWhile,
    Endless,
    Infinite,
}

struct LoopCtx {
    id: u32,
    header: BlockId,
    latch: Option<BlockId>,
    direct_continue: bool,
    exit: Option<BlockId>,
    /// No edge may leave this loop (an infinite loop): breaks of it or of loops around it,
    /// and continues of loops around it, are not generated inside it.
    sealed: bool,
}

/// One step of an unrolled iteration (see [`unrolled_interleaved_breaks`]).
#[derive(Copy, Clone, Debug)]
enum Site {
    /// `if (x) { work; break }` through shared break block `k`.
    WorkBreak(usize),
    /// `if (x) { if (y) work; break }` through shared break block `k`.
    NestedBreak(usize),
    /// `if (x) continue` (to the next iteration; the last one's goes to the exit).
    Continue,
    /// A per-iteration `if (x) work`.
    If,
    /// `if (x) break` straight to the exit.
    BreakToExit,
    /// `if (x) break/continue` of the enclosing loop `level` (counted from the innermost).
    Outer { level: usize, is_break: bool },
}

impl Site {
    /// Blocks one site adds to an iteration.
    fn cost(self) -> usize {
        match self {
            Site::WorkBreak(_) => 2,
            Site::NestedBreak(_) => 4,
            Site::Continue | Site::BreakToExit | Site::Outer { .. } => 1,
            Site::If => 2,
        }
    }
}

/// Instructions of one block, by section, until they are concatenated.
#[derive(Clone, Default)]
struct Parts {
    phis: Vec<InstId>,
    body: Vec<InstId>,
    late: Vec<InstId>,
    cond: Vec<InstId>,
    /// `i32` values defined here (PHIs and body), in definition order.
    values: Vec<Value>,
}

struct Gen<'a> {
    rng: SplitMix64,
    config: &'a ShapeGenConfig,
    blocks: PrimaryMap<BlockId, Block>,
    layout: Vec<BlockId>,
    /// Blocks still to be created, counting reservations.
    budget: usize,
    loops: Vec<LoopCtx>,
    next_loop: u32,
    /// Ids of the loops enclosing each block when it was filled.
    loop_path: SecondaryMap<BlockId, Vec<u32>>,
    fill_index: SecondaryMap<BlockId, u32>,
    started: SecondaryMap<BlockId, bool>,
    /// Ids of the sealed (infinite) loops.
    sealed: Vec<u32>,
    ret_i32: bool,
    stats: GenStats,
}

impl<'a> Gen<'a> {
    fn new(rng: SplitMix64, config: &'a ShapeGenConfig, budget: usize) -> Gen<'a> {
        Gen {
            rng,
            config,
            blocks: PrimaryMap::new(),
            layout: Vec::new(),
            budget,
            loops: Vec::new(),
            next_loop: 0,
            loop_path: SecondaryMap::new(),
            fill_index: SecondaryMap::new(),
            started: SecondaryMap::new(),
            sealed: Vec::new(),
            ret_i32: false,
            stats: GenStats::default(),
        }
    }

    fn block(&mut self, tag: &str) -> BlockId {
        let id = self.blocks.next_key();
        self.blocks.push(Block {
            name: Some(format!("{tag}.{}", id.index())),
            insts: Vec::new(),
            terminator: Terminator::Unreachable,
        })
    }

    fn reserve(&mut self, n: usize) -> bool {
        if self.budget >= n {
            self.budget -= n;
            true
        } else {
            false
        }
    }

    fn refund(&mut self, n: usize) {
        self.budget += n;
    }

    /// Makes `b` the block being filled: it joins the layout here.
    fn start(&mut self, b: BlockId) {
        debug_assert!(!self.started[b]);
        self.started[b] = true;
        self.fill_index[b] = self.layout.len() as u32;
        self.layout.push(b);
        self.loop_path[b] = self.loops.iter().map(|l| l.id).collect();
    }

    fn set(&mut self, b: BlockId, t: Terminator) {
        self.blocks[b].terminator = t;
    }

    fn cond_br(&mut self, b: BlockId, if_true: BlockId, if_false: BlockId) {
        self.set(b, Terminator::CondBr { cond: PLACEHOLDER, if_true, if_false });
    }

    /// Loop `level` counted from the innermost (0).
    fn ctx(&mut self, level: usize) -> &mut LoopCtx {
        let i = self.loops.len() - 1 - level;
        &mut self.loops[i]
    }

    /// How many levels may be broken out of (the loops inside the innermost sealed one).
    fn breakable_levels(&self) -> usize {
        self.loops.iter().rev().position(|l| l.sealed).unwrap_or(self.loops.len())
    }

    /// How many levels may be continued (up to and including the innermost sealed loop).
    fn continuable_levels(&self) -> usize {
        self.loops.iter().rev().position(|l| l.sealed).map_or(self.loops.len(), |p| p + 1)
    }

    /// Level 0 half the time, else any allowed level.
    fn pick_level(&mut self, n: usize) -> usize {
        if n <= 1 || self.rng.chance(50) {
            0
        } else {
            1 + self.rng.below(n - 1)
        }
    }

    fn break_target(&mut self, level: usize) -> BlockId {
        if let Some(e) = self.ctx(level).exit {
            return e;
        }
        // Exits are reserved when the loop starts.
        let e = self.block("loop.exit");
        self.ctx(level).exit = Some(e);
        e
    }

    fn continue_target(&mut self, level: usize) -> BlockId {
        let c = self.ctx(level);
        if c.direct_continue {
            return c.header;
        }
        if let Some(l) = c.latch {
            return l;
        }
        let l = self.block("loop.latch");
        self.ctx(level).latch = Some(l);
        l
    }

    /// A `break` of `level`, counted.
    fn jump_break(&mut self, level: usize) -> BlockId {
        self.stats.breaks += 1;
        if level > 0 {
            self.stats.multi_level_breaks += 1;
        }
        self.break_target(level)
    }

    /// A `continue` of `level`, counted.
    fn jump_continue(&mut self, level: usize) -> BlockId {
        self.stats.continues += 1;
        if level > 0 {
            self.stats.multi_level_continues += 1;
        }
        if self.ctx(level).direct_continue {
            self.stats.direct_continues += 1;
        }
        self.continue_target(level)
    }

    fn ret(&mut self, b: BlockId) {
        if !self.loops.is_empty() {
            self.stats.returns_in_loops += 1;
        }
        self.set(b, Terminator::Ret { value: None });
    }

    /// A sequence of statements from `cur`; the open block at its end, if control falls
    /// through.
    fn seq(&mut self, mut cur: BlockId, depth: usize, min_len: usize) -> Option<BlockId> {
        let len = min_len.max(1 + self.rng.below(4));
        let cap = 64 + len + 4 * self.config.max_blocks;
        let mut i = 0;
        while i < len || (depth == 0 && self.budget > 0) {
            i += 1;
            if i > cap {
                break;
            }
            match self.stmt(cur, depth) {
                Some(next) => cur = next,
                None => {
                    if self.rng.chance(self.config.dead_code_percent) && self.reserve(1) {
                        cur = self.block("dead");
                        self.start(cur);
                    } else {
                        return None;
                    }
                }
            }
        }
        Some(cur)
    }

    fn stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        #[derive(Copy, Clone)]
        enum K {
            If,
            Ladder,
            EscapeIf,
            Loop,
            Switch,
            Unrolled,
            Break,
            Continue,
            Return,
            Unreachable,
            Straight,
            Empty,
        }
        let w = &self.config.weights;
        let deep = depth >= self.config.max_stmt_depth;
        let top = depth == 0;
        let nest = |x: u32| if deep { 0 } else { x };
        let breakable = self.breakable_levels();
        let continuable = self.continuable_levels();
        let choices = [
            (K::If, nest(w.if_stmt)),
            (K::Ladder, nest(w.if_ladder)),
            (K::EscapeIf, if continuable > 0 { nest(w.escape_if) } else { 0 }),
            (K::Loop, if self.loops.len() < self.config.max_depth { nest(w.loop_stmt) } else { 0 }),
            (K::Switch, nest(w.switch)),
            (K::Unrolled, nest(w.unrolled)),
            (K::Break, if breakable > 0 { w.break_stmt } else { 0 }),
            (K::Continue, if continuable > 0 { w.continue_stmt } else { 0 }),
            (K::Return, if top { 0 } else { w.return_stmt }),
            (K::Unreachable, if top { 0 } else { w.unreachable }),
            (K::Straight, w.straight),
            (K::Empty, w.empty),
        ];
        let total: u32 = choices.iter().map(|c| c.1).sum();
        if total == 0 {
            return Some(cur);
        }
        let mut roll = self.rng.below(total as usize) as u32;
        let mut kind = K::Empty;
        for (k, wt) in choices {
            if roll < wt {
                kind = k;
                break;
            }
            roll -= wt;
        }
        match kind {
            K::If => self.if_stmt(cur, depth),
            K::Ladder => self.ladder_stmt(cur, depth),
            K::EscapeIf => self.escape_if(cur, depth),
            K::Loop => self.loop_stmt(cur, depth),
            K::Switch => self.switch_stmt(cur, depth),
            K::Unrolled => self.unrolled_stmt(cur),
            K::Break => {
                let level = self.pick_level(breakable);
                let target = self.jump_break(level);
                self.set(cur, Terminator::Br { target });
                None
            }
            K::Continue => {
                let level = self.pick_level(continuable);
                let target = self.jump_continue(level);
                self.set(cur, Terminator::Br { target });
                None
            }
            K::Return => {
                self.ret(cur);
                None
            }
            K::Unreachable => {
                if !self.loops.is_empty() {
                    self.stats.unreachables_in_loops += 1;
                }
                self.set(cur, Terminator::Unreachable);
                None
            }
            K::Straight => {
                if !self.reserve(1) {
                    return Some(cur);
                }
                let next = self.block("b");
                self.set(cur, Terminator::Br { target: next });
                self.start(next);
                Some(next)
            }
            K::Empty => Some(cur),
        }
    }

    fn if_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let has_else = self.rng.chance(self.config.else_percent);
        if !self.reserve(if has_else { 3 } else { 2 }) {
            return Some(cur);
        }
        if has_else {
            self.stats.if_else += 1;
        } else {
            self.stats.if_then += 1;
        }
        let then_b = self.block("if.then");
        let else_b = has_else.then(|| self.block("if.else"));
        self.start(then_b);
        let then_end = self.seq(then_b, depth + 1, 1);
        let else_end = match else_b {
            Some(e) => {
                self.start(e);
                self.seq(e, depth + 1, 1)
            }
            None => None,
        };
        let join_needed = then_end.is_some() || else_end.is_some() || else_b.is_none();
        let join = if join_needed {
            Some(self.block("if.end"))
        } else {
            self.refund(1);
            None
        };
        let if_false = else_b.or(join).unwrap_or(then_b);
        // Half the time the `then` arm is the false edge (`br %c, %else, %then`).
        if self.rng.chance(25) {
            self.cond_br(cur, if_false, then_b);
        } else {
            self.cond_br(cur, then_b, if_false);
        }
        let join = join?;
        for end in [then_end, else_end].into_iter().flatten() {
            self.set(end, Terminator::Br { target: join });
        }
        self.start(join);
        Some(join)
    }

    /// `if (a) … else if (b) … else …`, arms optionally ending in a shared tail block.
    fn ladder_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let k = 2 + self.rng.below(3);
        let tail = self.rng.chance(self.config.ladder_tail_percent);
        // tests 2..k, k + 1 arms, merge, tail
        let need = (k - 1) + (k + 1) + 1 + usize::from(tail);
        if !self.reserve(need) {
            return Some(cur);
        }
        self.stats.if_ladders += 1;
        let mut ends = Vec::new();
        let mut test = cur;
        for i in 0..k {
            let arm = self.block("ladder.arm");
            let last = i + 1 == k;
            let next = self.block(if last { "ladder.else" } else { "ladder.test" });
            self.cond_br(test, arm, next);
            self.start(arm);
            if let Some(e) = self.seq(arm, depth + 1, 1) {
                ends.push(e);
            }
            self.start(next);
            if last {
                if let Some(e) = self.seq(next, depth + 1, 1) {
                    ends.push(e);
                }
            } else {
                test = next;
            }
        }
        let mut used = (k - 1) + (k + 1);
        let tail_b = if tail && ends.len() >= 2 {
            used += 1;
            self.stats.ladder_shared_tails += 1;
            Some(self.block("ladder.tail"))
        } else {
            None
        };
        let merge = if ends.is_empty() {
            None
        } else {
            used += 1;
            Some(self.block("ladder.end"))
        };
        self.refund(need - used);
        let merge = merge?;
        let n = ends.len();
        for (i, e) in ends.into_iter().enumerate() {
            let to_tail = tail_b.is_some() && (i == 0 || (i + 1 < n && self.rng.chance(50)));
            let target = if to_tail { tail_b.unwrap() } else { merge };
            self.set(e, Terminator::Br { target });
        }
        if let Some(t) = tail_b {
            self.start(t);
            self.set(t, Terminator::Br { target: merge });
        }
        self.start(merge);
        Some(merge)
    }

    /// `if (x) { …; jump A } else { …; jump B }` with A ≠ B outer targets.
    fn escape_if(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        if !self.reserve(2) {
            return Some(cur);
        }
        let breakable = self.breakable_levels();
        let continuable = self.continuable_levels();
        // Candidate targets: breaks, continues, return.
        let pick = |g: &mut Self| -> (u8, usize) {
            loop {
                match g.rng.below(3) {
                    0 if breakable > 0 => return (0, g.pick_level(breakable)),
                    1 if continuable > 0 => return (1, g.pick_level(continuable)),
                    2 => return (2, 0),
                    _ => {}
                }
            }
        };
        let a = pick(self);
        let mut b = pick(self);
        for _ in 0..8 {
            if b != a {
                break;
            }
            b = pick(self);
        }
        let then_b = self.block("esc.then");
        let else_b = self.block("esc.else");
        self.cond_br(cur, then_b, else_b);
        let mut outs = Vec::new();
        for (arm, jump) in [(then_b, a), (else_b, b)] {
            self.start(arm);
            let end = self.seq(arm, depth + 1, 1);
            if let Some(end) = end {
                let t = match jump {
                    (0, l) => Some(self.jump_break(l)),
                    (1, l) => Some(self.jump_continue(l)),
                    _ => {
                        self.ret(end);
                        None
                    }
                };
                if let Some(t) = t {
                    self.set(end, Terminator::Br { target: t });
                }
                outs.push(t);
            }
        }
        if outs.len() == 2 && outs[0] != outs[1] {
            self.stats.selections_exited_twice += 1;
        }
        None
    }

    fn loop_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let kind = if self.rng.chance(self.config.infinite_loop_percent) {
            LoopKind::Infinite
        } else {
            match self.rng.below(10) {
                0..=4 => LoopKind::While,
                5..=7 => LoopKind::DoWhile,
                _ => LoopKind::Endless,
            }
        };
        let with_return = kind == LoopKind::Infinite && !self.rng.chance(self.config.truly_infinite_percent);
        // header, latch, exit, plus a body block (while) or return + body blocks
        let need = match kind {
            LoopKind::While => 4,
            LoopKind::Infinite if with_return => 4,
            LoopKind::Infinite => 2,
            _ => 3,
        };
        if !self.reserve(need) {
            return Some(cur);
        }
        match kind {
            LoopKind::While => self.stats.while_loops += 1,
            LoopKind::DoWhile => self.stats.do_while_loops += 1,
            LoopKind::Endless => self.stats.endless_loops += 1,
            LoopKind::Infinite => {
                self.stats.infinite_loops += 1;
                if with_return {
                    self.stats.infinite_loops_with_return += 1;
                }
            }
        }
        let direct_continue = kind != LoopKind::DoWhile && self.rng.chance(self.config.direct_continue_percent);
        let header = self.block("loop.head");
        self.set(cur, Terminator::Br { target: header });
        let id = self.next_loop;
        self.next_loop += 1;
        let sealed = kind == LoopKind::Infinite;
        if sealed {
            self.sealed.push(id);
        }
        self.loops.push(LoopCtx { id, header, latch: None, direct_continue, exit: None, sealed });
        self.stats.max_loop_depth = self.stats.max_loop_depth.max(self.loops.len());
        self.start(header);
        let mut used = 1;
        let body_end = match kind {
            LoopKind::While => {
                used += 1;
                let body = self.block("loop.body");
                let exit = self.break_target(0);
                self.cond_br(header, body, exit);
                self.start(body);
                self.seq(body, depth + 1, 1)
            }
            LoopKind::Infinite if with_return => {
                used += 2;
                let ret_b = self.block("loop.ret");
                let body = self.block("loop.body");
                if self.rng.chance(50) {
                    self.cond_br(header, ret_b, body);
                } else {
                    self.cond_br(header, body, ret_b);
                }
                self.start(ret_b);
                self.ret(ret_b);
                self.start(body);
                self.seq(body, depth + 1, 1)
            }
            _ => self.seq(header, depth + 1, 1),
        };
        if let Some(end) = body_end {
            let target = self.continue_target(0);
            self.set(end, Terminator::Br { target });
        }
        if let Some(latch) = self.ctx(0).latch {
            used += 1;
            self.start(latch);
            if kind == LoopKind::DoWhile {
                let exit = self.break_target(0);
                self.cond_br(latch, header, exit);
            } else {
                self.set(latch, Terminator::Br { target: header });
            }
        }
        let ctx = self.loops.pop().expect("pushed above");
        if ctx.exit.is_some() {
            used += 1;
        }
        self.refund(need - used);
        let exit = ctx.exit?;
        self.start(exit);
        Some(exit)
    }

    fn switch_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let cases = 1 + self.rng.below(self.config.max_switch_cases.max(1));
        // One block per case and the default, plus the merge.
        if !self.reserve(cases + 2) {
            return Some(cur);
        }
        self.stats.switches += 1;
        // Target of the default (0) and each case: None = straight to the merge.
        let mut targets: Vec<Option<BlockId>> = Vec::new();
        let mut bodies: Vec<BlockId> = Vec::new();
        for i in 0..=cases {
            let c = self.config;
            let t = if self.rng.chance(c.case_merge_percent) {
                None
            } else if i > 0 && self.rng.chance(c.shared_case_percent) {
                targets[i - 1]
            } else if i > 1 && self.rng.chance(c.case_default_percent) {
                targets[0]
            } else {
                let b = self.block("sw.case");
                bodies.push(b);
                Some(b)
            };
            if i > 0 {
                if t.is_none() {
                    self.stats.switch_case_to_merge += 1;
                } else if t == targets[i - 1] {
                    self.stats.switch_shared_targets += 1;
                } else if t == targets[0] {
                    self.stats.switch_case_is_default += 1;
                }
            }
            targets.push(t);
        }
        let mut ends: Vec<BlockId> = Vec::new();
        for (k, &b) in bodies.iter().enumerate() {
            self.start(b);
            if let Some(end) = self.seq(b, depth + 1, 1) {
                match bodies.get(k + 1) {
                    Some(&next) if self.rng.chance(self.config.fallthrough_percent) => {
                        self.stats.switch_fallthroughs += 1;
                        self.set(end, Terminator::Br { target: next })
                    }
                    _ => ends.push(end),
                }
            }
        }
        let needs_merge = !ends.is_empty() || targets.iter().any(|t| t.is_none());
        let merge = if needs_merge { Some(self.block("sw.end")) } else { None };
        self.refund(cases + 2 - bodies.len() - usize::from(needs_merge));
        let resolve = |t: Option<BlockId>| t.or(merge).expect("a target or a merge");
        let default = resolve(targets[0]);
        // Distinct case values below 100 (they fit an i8 switch value).
        let mut values: Vec<u64> = Vec::new();
        while values.len() < cases {
            let v = self.rng.below(100) as u64;
            if !values.contains(&v) {
                values.push(v);
            }
        }
        let case_list = (1..=cases).map(|i| (values[i - 1], resolve(targets[i]))).collect();
        self.set(cur, Terminator::Switch { value: PLACEHOLDER, default, cases: case_list });
        let merge = merge?;
        for end in ends {
            self.set(end, Terminator::Br { target: merge });
        }
        self.start(merge);
        Some(merge)
    }

    /// A random unrolled loop with interleaved breaks (see [`unrolled_interleaved_breaks`]).
    fn unrolled_stmt(&mut self, cur: BlockId) -> Option<BlockId> {
        let n = 2 + self.rng.below(self.config.max_unroll.max(2) - 1);
        let n_sites = 1 + self.rng.below(4);
        let n_brk = 1 + self.rng.below(2);
        let breakable = self.breakable_levels();
        let continuable = self.continuable_levels();
        let mut sites = Vec::new();
        let mut shared = 0;
        for _ in 0..n_sites {
            let s = match self.rng.below(7) {
                0 | 1 => {
                    shared += 1;
                    Site::WorkBreak((shared - 1) % n_brk)
                }
                2 => {
                    shared += 1;
                    Site::NestedBreak((shared - 1) % n_brk)
                }
                3 => Site::Continue,
                4 => Site::If,
                5 => Site::BreakToExit,
                _ if breakable > 0 && self.rng.chance(50) => {
                    Site::Outer { level: self.pick_level(breakable), is_break: true }
                }
                _ if continuable > 0 => Site::Outer { level: self.pick_level(continuable), is_break: false },
                _ => Site::BreakToExit,
            };
            sites.push(s);
        }
        if shared == 0 && !sites.iter().any(|s| matches!(s, Site::BreakToExit)) {
            sites.push(Site::WorkBreak(0));
            shared = 1;
        }
        let n_brk = n_brk.min(shared);
        let need = n * (1 + sites.iter().map(|s| s.cost()).sum::<usize>()) + n_brk + 1;
        if !self.reserve(need) {
            return Some(cur);
        }
        Some(self.unrolled(cur, n, &sites, n_brk))
    }

    /// Lowers an unrolled loop: `cur` → iteration 1 … iteration n → the returned exit block.
    /// Iteration i runs `sites` in order; break sites of kind k branch to shared break
    /// block k, whose predecessors interleave across iterations; break blocks go to the exit.
    fn unrolled(&mut self, cur: BlockId, n: usize, sites: &[Site], n_brk: usize) -> BlockId {
        self.stats.unrolled_loops += 1;
        let starts: Vec<BlockId> = (0..n).map(|_| self.block("unroll.iter")).collect();
        let brk: Vec<BlockId> = (0..n_brk).map(|_| self.block("unroll.break")).collect();
        let end = self.block("unroll.exit");
        self.set(cur, Terminator::Br { target: starts[0] });
        for i in 0..n {
            let next_iter = starts.get(i + 1).copied().unwrap_or(end);
            let mut c = starts[i];
            self.start(c);
            for &site in sites {
                let nx = self.block("unroll.next");
                match site {
                    Site::WorkBreak(k) => {
                        let w = self.block("unroll.work");
                        self.cond_br(c, w, nx);
                        self.start(w);
                        self.set(w, Terminator::Br { target: brk[k % n_brk] });
                    }
                    Site::NestedBreak(k) => {
                        let t = self.block("unroll.test");
                        let ta = self.block("unroll.work");
                        let tb = self.block("unroll.brk");
                        self.cond_br(c, t, nx);
                        self.start(t);
                        self.cond_br(t, ta, tb);
                        self.start(ta);
                        self.set(ta, Terminator::Br { target: tb });
                        self.start(tb);
                        self.set(tb, Terminator::Br { target: brk[k % n_brk] });
                    }
                    Site::Continue => {
                        self.cond_br(c, next_iter, nx);
                    }
                    Site::If => {
                        let then_b = self.block("unroll.then");
                        self.cond_br(c, then_b, nx);
                        self.start(then_b);
                        self.set(then_b, Terminator::Br { target: nx });
                    }
                    Site::BreakToExit => {
                        self.cond_br(c, end, nx);
                    }
                    Site::Outer { level, is_break } => {
                        let t = if is_break { self.jump_break(level) } else { self.jump_continue(level) };
                        self.cond_br(c, t, nx);
                    }
                }
                self.start(nx);
                c = nx;
            }
            self.set(c, Terminator::Br { target: next_iter });
        }
        for &b in &brk {
            self.start(b);
            self.set(b, Terminator::Br { target: end });
        }
        self.start(end);
        end
    }

    /// Extra forward gotos and equal-target branches that keep the graph reducible.
    fn add_gotos(&mut self) {
        let n = self.layout.len();
        for i in 0..n {
            let u = self.layout[i];
            let Terminator::Br { target } = self.blocks[u].terminator else {
                continue;
            };
            if self.rng.chance(self.config.same_target_percent) {
                self.stats.cond_br_same_target += 1;
                self.cond_br(u, target, target);
                continue;
            }
            if !self.rng.chance(self.config.goto_percent) {
                continue;
            }
            for _ in 0..8 {
                let v = self.layout[self.rng.below(n)];
                let later = self.fill_index[v] > self.fill_index[u];
                let (pu, pv) = (&self.loop_path[u], &self.loop_path[v]);
                let nested = pv.len() <= pu.len() && pu[..pv.len()] == pv[..];
                // Leaving a sealed (infinite) loop would give it an exit.
                let leaves_sealed = nested && pu[pv.len()..].iter().any(|id| self.sealed.contains(id));
                if later && v != target && nested && !leaves_sealed {
                    self.stats.forward_gotos += 1;
                    if self.rng.chance(50) {
                        self.cond_br(u, target, v);
                    } else {
                        self.cond_br(u, v, target);
                    }
                    break;
                }
            }
        }
    }

    /// Lays out any block that was created but never filled (none, normally), adds gotos,
    /// and gives the blocks their instructions.
    fn finish(mut self, name: String, types: &mut Types) -> (Function, GenStats) {
        for b in self.blocks.keys().collect::<Vec<_>>() {
            if !self.started[b] {
                self.start(b);
            }
        }
        self.add_gotos();
        let i1 = types.int(1);
        let i8t = types.int(8);
        let i16t = types.int(16);
        let i32t = types.int(32);
        let void = types.void();
        let ret = if self.ret_i32 { i32t } else { void };
        let ty = types.intern(Type::Function { ret, params: vec![i32t, i32t, i32t, i1], var_arg: false });
        let params = ["c", "d", "e", "p"]
            .iter()
            .zip([i32t, i32t, i32t, i1])
            .map(|(n, ty)| Param { name: Some(n.to_string()), ty })
            .collect();
        let mut f = Function {
            name,
            ty,
            ret,
            params,
            blocks: std::mem::take(&mut self.blocks),
            insts: PrimaryMap::new(),
            layout: std::mem::take(&mut self.layout),
        };
        let cfg = match Cfg::new(&f) {
            Ok(cfg) => cfg,
            Err(e) => panic!("structured_gen produced a bad CFG: {e}"),
        };
        let mut fin = Finisher {
            rng: &mut self.rng,
            config: self.config,
            cfg: &cfg,
            parts: SecondaryMap::new(),
            types: Tys { i1, i8: i8t, i16: i16t, i32: i32t, void },
            counter: 0,
            stats: &mut self.stats,
        };
        fin.run(&mut f);
        self.stats.blocks = f.layout.len();
        self.stats.unreachable_blocks = f.layout.iter().filter(|&&b| !cfg.is_reachable(b)).count();
        for ((_, l), exits) in cfg.loops().iter().zip(cfg.loop_exits()) {
            if l.latches.len() >= 2 {
                self.stats.multi_latch_loops += 1;
            }
            if exits.is_empty() {
                self.stats.exitless_loops += 1;
            }
            if exits.len() >= 2 {
                self.stats.multi_exit_loops += 1;
            }
        }
        (f, self.stats)
    }
}

#[derive(Copy, Clone)]
struct Tys {
    i1: TypeId,
    i8: TypeId,
    i16: TypeId,
    i32: TypeId,
    void: TypeId,
}

/// Gives a generated CFG its instructions (see the module docs).
struct Finisher<'r, 'c> {
    rng: &'r mut SplitMix64,
    config: &'c ShapeGenConfig,
    cfg: &'c Cfg,
    parts: SecondaryMap<BlockId, Parts>,
    types: Tys,
    counter: u32,
    stats: &'r mut GenStats,
}

impl Finisher<'_, '_> {
    fn inst(&mut self, f: &mut Function, prefix: &str, ty: TypeId, kind: InstKind) -> InstId {
        self.counter += 1;
        f.insts.push(Inst { name: Some(format!("{prefix}{}", self.counter)), ty, kind })
    }

    fn arg(&mut self) -> Value {
        Value::Arg(self.rng.below(I32_PARAMS as usize) as u32)
    }

    /// An `i32` value available at the end of `b`: an argument, or a value defined in `b`
    /// or a block dominating it. Arguments only when `b` is unreachable.
    fn avail(&mut self, b: BlockId) -> Value {
        if !self.cfg.is_reachable(b) || self.rng.chance(35) {
            return self.arg();
        }
        let mut chain = Vec::new();
        let mut x = Some(b);
        while let Some(y) = x {
            if !self.parts[y].values.is_empty() {
                chain.push(y);
            }
            x = self.cfg.idom(y);
        }
        match self.rng.pick(&chain).copied() {
            Some(d) => {
                let vals = &self.parts[d].values;
                vals[self.rng.below(vals.len())]
            }
            None => self.arg(),
        }
    }

    fn icmp(&mut self, f: &mut Function, at: BlockId) -> InstId {
        const PREDS: [IntPredicate; 10] = [
            IntPredicate::Eq,
            IntPredicate::Ne,
            IntPredicate::Ugt,
            IntPredicate::Uge,
            IntPredicate::Ult,
            IntPredicate::Ule,
            IntPredicate::Sgt,
            IntPredicate::Sge,
            IntPredicate::Slt,
            IntPredicate::Sle,
        ];
        let pred = PREDS[self.rng.below(PREDS.len())];
        let lhs = self.avail(at);
        let mut rhs = self.avail(at);
        if rhs == lhs {
            rhs = Value::Arg((self.rng.below(I32_PARAMS as usize) as u32 + 1) % I32_PARAMS);
        }
        let i1 = self.types.i1;
        self.inst(f, "cond", i1, InstKind::ICmp { pred, lhs, rhs })
    }

    fn run(&mut self, f: &mut Function) {
        let cfg = self.cfg;
        // Predecessor edges (with multiplicity) in layout order.
        let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::new();
        for &b in &f.layout {
            for s in f.blocks[b].terminator.successors() {
                preds[s].push(b);
            }
        }
        let distinct = |list: &[BlockId]| {
            let mut d: Vec<BlockId> = Vec::new();
            for &p in list {
                if !d.contains(&p) {
                    d.push(p);
                }
            }
            d
        };
        // A: i32 PHIs (empty for now).
        let mut phi_blocks = Vec::new();
        for &b in cfg.rpo() {
            let n = distinct(&preds[b]).len();
            let count = if n >= 2 && self.rng.chance(self.config.phi_percent) {
                1 + self.rng.below(3)
            } else if n == 1 && self.rng.chance(self.config.single_pred_phi_percent) {
                self.stats.single_pred_phis += 1;
                1
            } else {
                0
            };
            if count == 0 {
                continue;
            }
            self.stats.phi_blocks += 1;
            if cfg.loops().is_header(b) {
                self.stats.loop_header_phis += 1;
            }
            for _ in 0..count {
                let i32t = self.types.i32;
                let phi = self.inst(f, "phi", i32t, InstKind::Phi { incoming: SmallVec::new() });
                self.parts[b].phis.push(phi);
                self.parts[b].values.push(Value::Inst(phi));
                phi_blocks.push((b, phi));
            }
        }
        // B: body values, dominators first.
        for b in cfg.dom().preorder() {
            if !self.rng.chance(self.config.value_percent) {
                continue;
            }
            for _ in 0..1 + self.rng.below(2) {
                const OPS: [BinaryOp; 5] = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Xor, BinaryOp::And];
                let op = OPS[self.rng.below(OPS.len())];
                let lhs = self.avail(b);
                let rhs = self.avail(b);
                let i32t = self.types.i32;
                let v = self.inst(f, "v", i32t, InstKind::Binary { op, lhs, rhs, fast: false });
                self.parts[b].body.push(v);
                self.parts[b].values.push(Value::Inst(v));
            }
        }
        // C: PHI incoming values.
        for (b, phi) in phi_blocks {
            let ds = distinct(&preds[b]);
            let vals: Vec<Value> = ds.iter().map(|&p| self.avail(p)).collect();
            let mut incoming: SmallVec<[(Value, BlockId); 4]> =
                preds[b].iter().map(|p| (vals[ds.iter().position(|d| d == p).unwrap()], *p)).collect();
            if incoming.len() > ds.len() {
                self.stats.duplicate_entry_phis += 1;
            }
            if incoming.len() >= 2 && self.rng.chance(self.config.shuffle_phi_percent) {
                let before = incoming.clone();
                for i in (1..incoming.len()).rev() {
                    let j = self.rng.below(i + 1);
                    incoming.swap(i, j);
                }
                if incoming != before {
                    self.stats.shuffled_phis += 1;
                }
            }
            self.stats.phis += 1;
            f.insts[phi].kind = InstKind::Phi { incoming };
        }
        // D: conditions, switch values and return values.
        let layout = f.layout.clone();
        for &b in &layout {
            let reachable = cfg.is_reachable(b);
            let mut term = f.blocks[b].terminator.clone();
            match &mut term {
                Terminator::CondBr { cond, .. } => {
                    let ds = distinct(&preds[b]);
                    let idom = cfg.idom(b);
                    if reachable && !ds.is_empty() && self.rng.chance(self.config.phi_cond_percent) {
                        self.stats.i1_phi_conditions += 1;
                        let mut vals = Vec::new();
                        for &p in &ds {
                            let v = if cfg.is_reachable(p) && self.rng.chance(60) {
                                let c = self.icmp(f, p);
                                self.parts[p].late.push(c);
                                Value::Inst(c)
                            } else {
                                Value::Arg(BOOL_PARAM)
                            };
                            vals.push(v);
                        }
                        let incoming =
                            preds[b].iter().map(|p| (vals[ds.iter().position(|d| d == p).unwrap()], *p)).collect();
                        let i1 = self.types.i1;
                        let phi = self.inst(f, "cphi", i1, InstKind::Phi { incoming });
                        self.parts[b].phis.push(phi);
                        *cond = Value::Inst(phi);
                    } else if let (true, Some(d)) =
                        (reachable && self.rng.chance(self.config.dominating_cond_percent), idom)
                    {
                        self.stats.dominating_conditions += 1;
                        // Any strict dominator.
                        let mut chain = vec![d];
                        while let Some(up) = cfg.idom(*chain.last().unwrap()) {
                            chain.push(up);
                        }
                        let at = chain[self.rng.below(chain.len())];
                        let c = self.icmp(f, at);
                        self.parts[at].late.push(c);
                        *cond = Value::Inst(c);
                    } else {
                        let c = self.icmp(f, b);
                        self.parts[b].cond.push(c);
                        *cond = Value::Inst(c);
                    }
                }
                Terminator::Switch { value, .. } => {
                    let x = self.avail(b);
                    let y = self.avail(b);
                    let (ty, kind) = match self.rng.below(4) {
                        0 => (self.types.i32, InstKind::Binary { op: BinaryOp::Add, lhs: x, rhs: y, fast: false }),
                        1 => (self.types.i32, InstKind::Binary { op: BinaryOp::Xor, lhs: x, rhs: y, fast: false }),
                        2 => (self.types.i8, InstKind::Cast { op: CastOp::Trunc, value: x }),
                        _ => (self.types.i16, InstKind::Cast { op: CastOp::Trunc, value: x }),
                    };
                    if ty != self.types.i32 {
                        self.stats.narrow_switches += 1;
                    }
                    let v = self.inst(f, "sel", ty, kind);
                    self.parts[b].cond.push(v);
                    *value = Value::Inst(v);
                }
                Terminator::Ret { value } if f.ret != self.types.void => {
                    self.stats.returns_with_value += 1;
                    *value = Some(self.avail(b));
                }
                _ => {}
            }
            f.blocks[b].terminator = term;
        }
        // E: concatenate.
        for &b in &layout {
            let p = &self.parts[b];
            let insts = p.phis.iter().chain(&p.body).chain(&p.late).chain(&p.cond).copied().collect();
            f.blocks[b].insts = insts;
        }
    }
}

/// A random reducible function with at most `config.max_blocks` blocks (see the module
/// docs). Types are interned into `types`.
pub fn generate(seed: u64, config: &ShapeGenConfig, types: &mut Types) -> Function {
    generate_with_stats(seed, config, types).0
}

/// [`generate`], with what the function contains.
pub fn generate_with_stats(seed: u64, config: &ShapeGenConfig, types: &mut Types) -> (Function, GenStats) {
    let mut rng = SplitMix64::new(seed ^ 0x5eed_5742_0c7d_0001);
    let target = 1 + rng.below(config.max_blocks.max(1));
    let ret_i32 = rng.chance(config.ret_value_percent);
    let mut g = Gen::new(rng, config, target - 1);
    g.ret_i32 = ret_i32;
    let entry = g.block("entry");
    g.start(entry);
    if let Some(end) = g.seq(entry, 0, 1) {
        g.set(end, Terminator::Ret { value: None });
    }
    g.finish(format!("shape_{seed:016x}"), types)
}

/// The fixed config of the hand-shaped functions below: PHIs in every merge, nothing random
/// added.
fn fixed_config() -> ShapeGenConfig {
    ShapeGenConfig {
        goto_percent: 0,
        same_target_percent: 0,
        phi_percent: 100,
        single_pred_phi_percent: 0,
        shuffle_phi_percent: 0,
        value_percent: 0,
        dominating_cond_percent: 0,
        phi_cond_percent: 0,
        ret_value_percent: 0,
        ..ShapeGenConfig::default()
    }
}

/// The sites of each iteration of the hand-shaped unrolled loops.
const UNROLLED_SITES: [Site; 5] =
    [Site::WorkBreak(0), Site::If, Site::NestedBreak(1), Site::Continue, Site::BreakToExit];

/// The CFG DXC emits for an `[unroll]`ed loop with breaks (the "stairway to heaven" of the
/// dxil-spirv blog series), unrolled `n` times (at least 1):
///
/// ```text
/// for (i = 0; i < n; i++) {
///   if (a) { work; break; }          // shared break block B0 (PHI over iterations)
///   if (b) work;                     // a per-iteration selection
///   if (c) { if (d) work; break; }   // shared break block B1
///   if (e) continue;                 // to the next iteration
///   if (f) break;                    // straight to the exit E
/// }
/// ```
///
/// entry → iter 1 → … → iter n → E; B0 and B1 have one predecessor per iteration, so their
/// predecessors interleave with the other breaks; B0, B1, every iteration's direct break, the
/// last iteration's `continue` and its end reach E, which has PHIs with an entry for each. Every block
/// with several predecessors gets a PHI. About 11·n + 5 blocks. Deterministic.
pub fn unrolled_interleaved_breaks(n: usize, types: &mut Types) -> Function {
    let config = fixed_config();
    let n = n.max(1);
    let mut g = Gen::new(SplitMix64::new(n as u64), &config, usize::MAX);
    let entry = g.block("entry");
    g.start(entry);
    let end = g.unrolled(entry, n, &UNROLLED_SITES, 2);
    g.set(end, Terminator::Ret { value: None });
    g.finish(format!("unrolled_interleaved_breaks_{n}"), types).0
}

/// [`unrolled_interleaved_breaks`] inside an outer loop: header H → the unrolled body → its
/// exit E, which is H's latch (`br %x, H, X`); every iteration also has a break out of the
/// outer loop straight to X (a two-level break).
pub fn unrolled_interleaved_breaks_in_loop(n: usize, types: &mut Types) -> Function {
    let config = fixed_config();
    let n = n.max(1);
    let mut g = Gen::new(SplitMix64::new(n as u64 + 1000), &config, usize::MAX);
    let entry = g.block("entry");
    g.start(entry);
    let header = g.block("outer.head");
    g.set(entry, Terminator::Br { target: header });
    g.loops.push(LoopCtx { id: 0, header, latch: None, direct_continue: true, exit: None, sealed: false });
    g.next_loop = 1;
    g.start(header);
    let mut sites = UNROLLED_SITES.to_vec();
    sites.push(Site::Outer { level: 0, is_break: true });
    let end = g.unrolled(header, n, &sites, 2);
    let exit = g.break_target(0);
    g.cond_br(end, header, exit);
    g.loops.pop();
    g.start(exit);
    g.set(exit, Terminator::Ret { value: None });
    g.finish(format!("unrolled_interleaved_breaks_in_loop_{n}"), types).0
}

/// Whether `func`'s CFG is reducible (and well-formed enough for [`Cfg::new`]).
pub fn is_reducible(func: &Function) -> bool {
    Cfg::new(func).is_ok()
}

/// LLVM assembly for `func` (one `define`, no constants or globals needed), accepted by
/// `llvm-as` and [`untangle::front::parse_text`] for generated functions: save a failing case
/// as a `.ll` file and re-run it with the command-line tool.
pub fn to_llvm_text(func: &Function, types: &Types) -> String {
    let mut m = Module { source_name: func.name.clone(), types: types.clone(), ..Module::default() };
    m.functions.push(func.clone());
    let dumper = untangle::ir::dump::Dumper::new(&m);
    format!("; generated by untangle::fuzzing::structured_gen\n\n{}", dumper.function(func))
}

/// Structural checks of a generated (or any) function: every successor and instruction
/// exists and is placed once, PHIs come first and have one entry per incoming edge (parallel
/// edges repeat the predecessor with the same value), and in reachable code every
/// instruction operand is defined in a dominating position. `Err` describes the first
/// problem.
pub fn check_well_formed(func: &Function) -> Result<(), String> {
    let cfg = Cfg::new(func).map_err(|e| e.to_string())?;
    let label = |b: BlockId| func.block_label(b);
    // Where each instruction is defined: block and position.
    let mut def: HashMap<InstId, (BlockId, usize)> = HashMap::new();
    for &b in &func.layout {
        let mut seen_non_phi = false;
        for (k, &i) in func.blocks[b].insts.iter().enumerate() {
            if !func.insts.is_valid(i) {
                return Err(format!("{}: instruction {} does not exist", label(b), i.index()));
            }
            if def.insert(i, (b, k)).is_some() {
                return Err(format!("{}: instruction {} placed twice", label(b), i.index()));
            }
            let is_phi = func.insts[i].kind.is_phi();
            if is_phi && seen_non_phi {
                return Err(format!("{}: PHI after a non-PHI instruction", label(b)));
            }
            seen_non_phi |= !is_phi;
        }
    }
    let mut preds: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in &func.layout {
        for s in func.blocks[b].terminator.successors() {
            preds.entry(s).or_default().push(b);
        }
    }
    // Is `v` available at position `pos` of `b` (`usize::MAX`: at the end)?
    let available = |v: Value, b: BlockId, pos: usize| -> Result<(), String> {
        match v {
            Value::Arg(a) if (a as usize) < func.params.len() => Ok(()),
            Value::Arg(a) => Err(format!("{}: argument {a} does not exist", label(b))),
            Value::Inst(i) => {
                let Some(&(d, k)) = def.get(&i) else {
                    return Err(format!("{}: uses unplaced instruction {}", label(b), i.index()));
                };
                if !cfg.is_reachable(b) {
                    return Ok(());
                }
                let ok = if d == b { k < pos } else { cfg.dominates(d, b) };
                if ok {
                    Ok(())
                } else {
                    Err(format!("{}: use of a value from {} it does not dominate", label(b), label(d)))
                }
            }
            _ => Ok(()),
        }
    };
    for &b in &func.layout {
        let block = &func.blocks[b];
        for (k, &i) in block.insts.iter().enumerate() {
            match &func.insts[i].kind {
                InstKind::Phi { incoming } => {
                    let mut got: Vec<BlockId> = incoming.iter().map(|(_, p)| *p).collect();
                    let mut want = preds.get(&b).cloned().unwrap_or_default();
                    got.sort();
                    want.sort();
                    if got != want {
                        return Err(format!(
                            "{}: PHI entries {:?} do not match the incoming edges {:?}",
                            label(b),
                            got.iter().map(|&p| label(p)).collect::<Vec<_>>(),
                            want.iter().map(|&p| label(p)).collect::<Vec<_>>()
                        ));
                    }
                    for (v, p) in incoming {
                        if incoming.iter().any(|(w, q)| q == p && w != v) {
                            return Err(format!("{}: two values for predecessor {}", label(b), label(*p)));
                        }
                        available(*v, *p, usize::MAX)?;
                    }
                }
                kind => {
                    for v in kind.operands() {
                        available(v, b, k)?;
                    }
                }
            }
        }
        for v in block.terminator.operands() {
            available(v, b, usize::MAX)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(seed: u64) -> (Function, GenStats, Types) {
        let mut types = Types::default();
        let (f, s) = generate_with_stats(seed, &ShapeGenConfig::default(), &mut types);
        (f, s, types)
    }

    #[test]
    fn two_thousand_seeds_are_reducible_and_well_formed() {
        let config = ShapeGenConfig::default();
        for seed in 0..2000u64 {
            let mut types = Types::default();
            let f = generate(seed, &config, &mut types);
            assert!(is_reducible(&f), "seed {seed}: irreducible");
            assert!(f.layout.len() <= config.max_blocks, "seed {seed}: {} blocks", f.layout.len());
            if let Err(e) = check_well_formed(&f) {
                panic!("seed {seed}: {e}\n{}", to_llvm_text(&f, &types));
            }
            // Every successor exists (Cfg::new checks it too) and every block is placed once.
            let mut seen = std::collections::HashSet::new();
            for &b in &f.layout {
                assert!(seen.insert(b), "seed {seed}: block twice in the layout");
                for s in f.blocks[b].terminator.successors() {
                    assert!(f.layout.contains(&s), "seed {seed}: missing successor");
                }
            }
            assert_eq!(seen.len(), f.blocks.len());
        }
    }

    #[test]
    fn checkers_reject_broken_functions() {
        let mut types = Types::default();
        // A cycle with two entries.
        let irreducible = super::super::synthetic::from_adjacency(
            "irr",
            &[("a", &["b", "c"]), ("b", &["c"]), ("c", &["b", "d"]), ("d", &[])],
            &mut types,
        )
        .unwrap();
        assert!(!is_reducible(&irreducible));
        assert!(check_well_formed(&irreducible).is_err());
        // A PHI missing an entry, and one using a value from a block that does not
        // dominate its predecessor.
        let f = unrolled_interleaved_breaks(2, &mut types);
        assert!(is_reducible(&f));
        check_well_formed(&f).unwrap();
        let (b, phi) = f
            .layout
            .iter()
            .find_map(|&b| {
                let i = *f.blocks[b].insts.first()?;
                f.insts[i].kind.is_phi().then_some((b, i))
            })
            .unwrap();
        let InstKind::Phi { incoming } = &f.insts[phi].kind else { panic!() };
        let mut g = f.clone();
        let mut fewer = incoming.clone();
        fewer.pop();
        g.insts[phi].kind = InstKind::Phi { incoming: fewer };
        assert!(check_well_formed(&g).is_err());
        let mut g = f.clone();
        let mut wrong = incoming.clone();
        wrong[0].0 = Value::Inst(phi);
        g.insts[phi].kind = InstKind::Phi { incoming: wrong };
        let cfg = Cfg::new(&g).unwrap();
        if !cfg.dominates(b, incoming[0].1) {
            assert!(check_well_formed(&g).is_err());
        }
    }

    #[test]
    fn generation_is_deterministic() {
        for seed in [0u64, 1, 42, 0xdead_beef] {
            let (a, sa, _) = gen(seed);
            let (b, sb, _) = gen(seed);
            assert_eq!(a, b);
            assert_eq!(sa, sb);
        }
    }

    #[test]
    fn most_blocks_are_reachable() {
        let mut total = GenStats::default();
        for seed in 0..300u64 {
            total.accumulate(&gen(seed).1);
        }
        assert!(total.unreachable_blocks * 20 < total.blocks, "{total:?}");
    }

    #[test]
    fn every_feature_occurs_in_500_seeds() {
        let mut total = GenStats::default();
        for seed in 0..500u64 {
            total.accumulate(&gen(seed).1);
        }
        let missing: Vec<_> = total.features().into_iter().filter(|(_, n)| *n == 0).collect();
        eprintln!("feature counts over 500 seeds ({} blocks):", total.blocks);
        for (k, n) in total.features() {
            eprintln!("  {k:28} {n}");
        }
        eprintln!("  max loop depth {}", total.max_loop_depth);
        assert!(missing.is_empty(), "features never generated: {missing:?}");
    }

    #[test]
    fn large_functions() {
        let config = ShapeGenConfig { max_blocks: 3000, ..ShapeGenConfig::default() };
        let mut biggest = 0;
        for seed in 0..20u64 {
            let mut types = Types::default();
            let f = generate(seed, &config, &mut types);
            assert!(f.layout.len() <= 3000);
            biggest = biggest.max(f.layout.len());
            check_well_formed(&f).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        assert!(biggest > 1000, "largest function has {biggest} blocks");
    }

    #[test]
    fn configs_from_bytes_generate_valid_functions() {
        let mut rng = SplitMix64::new(7);
        for seed in 0..300u64 {
            let bytes: Vec<u8> = (0..rng.below(40)).map(|_| rng.next_u32() as u8).collect();
            let config = ShapeGenConfig::from_bytes(&bytes);
            let mut types = Types::default();
            let f = generate(seed, &config, &mut types);
            assert!(f.layout.len() <= config.max_blocks);
            check_well_formed(&f).unwrap_or_else(|e| panic!("seed {seed} bytes {bytes:?}: {e}"));
        }
    }

    #[test]
    fn unrolled_shapes() {
        for n in 1..=8 {
            let mut types = Types::default();
            for f in [unrolled_interleaved_breaks(n, &mut types), unrolled_interleaved_breaks_in_loop(n, &mut types)] {
                check_well_formed(&f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
                let cfg = Cfg::new(&f).unwrap();
                assert!(f.layout.iter().all(|&b| cfg.is_reachable(b)), "{}", f.name);
                // The exit E: one PHI entry per breaking path.
                let e =
                    f.layout.iter().copied().find(|&b| f.blocks[b].name.as_deref().unwrap().starts_with("unroll.exit"));
                let e = e.unwrap();
                let preds = cfg.preds(e).len();
                assert_eq!(preds, 2 + n + 2, "{}: exit predecessors", f.name);
                let phi = f.blocks[e].insts[0];
                let InstKind::Phi { incoming } = &f.insts[phi].kind else { panic!("no PHI") };
                assert_eq!(incoming.len(), preds);
                if f.name.contains("in_loop") {
                    assert_eq!(cfg.loops().len(), 1);
                } else {
                    assert_eq!(cfg.loops().len(), 0);
                }
            }
            assert_eq!(unrolled_interleaved_breaks(n, &mut types), unrolled_interleaved_breaks(n, &mut types));
        }
    }

    /// The CFG of `f` as layout positions: (successor positions, PHI count) per block.
    fn shape(f: &Function) -> Vec<(Vec<usize>, usize, &'static str)> {
        let pos = |b: BlockId| f.layout.iter().position(|&x| x == b).unwrap();
        f.layout
            .iter()
            .map(|&b| {
                let blk = &f.blocks[b];
                let phis = blk.insts.iter().filter(|&&i| f.insts[i].kind.is_phi()).count();
                let kind = match blk.terminator {
                    Terminator::Br { .. } => "br",
                    Terminator::CondBr { .. } => "condbr",
                    Terminator::Switch { .. } => "switch",
                    Terminator::Ret { .. } => "ret",
                    Terminator::Unreachable => "unreachable",
                };
                (blk.terminator.successors().into_iter().map(pos).collect(), phis, kind)
            })
            .collect()
    }

    /// Every hand-written case in `corpus/structurizer` parses, is named after its file,
    /// is reducible and passes [`check_well_formed`].
    #[test]
    fn structurizer_corpus_is_reducible() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/structurizer");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("corpus/structurizer")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ll"))
            .collect();
        files.sort();
        assert!(files.len() >= 20, "{} cases", files.len());
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let stem = path.file_stem().unwrap().to_str().unwrap();
            assert!(text.starts_with("; "), "{stem}: no header comment");
            let m = untangle::front::parse_text(text.as_bytes(), stem, untangle::front::FrontEnd::Native)
                .unwrap_or_else(|e| panic!("{stem}: {e}"));
            let defined: Vec<_> = m.defined_functions().collect();
            assert_eq!(defined.len(), 1, "{stem}: one function");
            let f = defined[0].1;
            assert_eq!(f.name, stem);
            assert!(is_reducible(f), "{stem}: irreducible");
            check_well_formed(f).unwrap_or_else(|e| panic!("{stem}: {e}"));
        }
    }

    #[test]
    fn llvm_text_round_trips() {
        let config = ShapeGenConfig { max_blocks: 120, ..ShapeGenConfig::default() };
        let mut checked = 0;
        for seed in 0..52u64 {
            let mut types = Types::default();
            let f = if seed == 50 {
                unrolled_interleaved_breaks(4, &mut types)
            } else if seed == 51 {
                unrolled_interleaved_breaks_in_loop(3, &mut types)
            } else {
                generate(seed, &config, &mut types)
            };
            let text = to_llvm_text(&f, &types);
            let m = untangle::front::parse_text(text.as_bytes(), "gen.ll", untangle::front::FrontEnd::Native)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            let (_, g) = m.defined_functions().next().expect("one function");
            assert_eq!(g.name, f.name);
            assert_eq!(shape(g), shape(&f), "seed {seed}");
            assert_eq!(g.insts.len(), f.insts.len(), "seed {seed}");
            let names =
                |f: &Function| -> Vec<Option<String>> { f.layout.iter().map(|&b| f.blocks[b].name.clone()).collect() };
            assert_eq!(names(g), names(&f));
            checked += 1;
        }
        assert_eq!(checked, 52);
    }
}
