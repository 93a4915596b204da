//! Random reducible CFGs, deterministic from a seed.
//!
//! A random structured program is generated and lowered to blocks on the fly, the way a
//! front end lowers C: `if`/`else`, `while`, `do … while`, endless `loop`s, `switch` with
//! fall-through, shared and empty cases, multi-level `break` and `continue`, `return` and
//! `unreachable` anywhere, dead code after a jump. Then a pass adds random extra forward
//! `goto`s, the unstructured shapes optimizers leave behind, choosing only targets that
//! keep the graph reducible: a later block (in fill order, a topological order of the
//! forward edges) that lies in no loop the source is not in. Loops whose `continue`s branch
//! straight to the header produce several back edges into one header.
//!
//! Blocks carry no instructions yet; conditions are `Value::Arg(0)` (an `i32` parameter),
//! switches switch on it. `Block::insts` is where PHIs will go when the structurizer tests
//! extend this generator.
//!
//! Everything is driven by [`SplitMix64`], so a failing proptest case is reproduced from
//! its seed alone.

use super::mutate::SplitMix64;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use untangle::ir::{Block, BlockId, Function, Module, Terminator, Types, Value};

#[derive(Clone, Debug)]
pub struct CfgGenConfig {
    /// Hard upper bound on the number of blocks; each function aims at a random size up to it.
    pub max_blocks: usize,
    /// Deepest loop nesting.
    pub max_loop_depth: usize,
    /// Most `case`s in one switch (plus a default).
    pub max_switch_cases: usize,
    /// Chance (percent) that a block ending in `br` gets an extra forward `goto`.
    pub goto_percent: u32,
    /// Chance (percent) that code follows a jump (an unreachable block).
    pub dead_code_percent: u32,
    /// Chance (percent) that a loop's `continue`s branch straight to its header.
    pub direct_continue_percent: u32,
}

impl Default for CfgGenConfig {
    fn default() -> Self {
        CfgGenConfig {
            max_blocks: 200,
            max_loop_depth: 6,
            max_switch_cases: 6,
            goto_percent: 8,
            dead_code_percent: 3,
            direct_continue_percent: 25,
        }
    }
}

#[derive(Copy, Clone, PartialEq)]
enum LoopKind {
    While,
    DoWhile,
    Endless,
}

struct LoopCtx {
    id: u32,
    header: BlockId,
    /// `None` until something continues (or falls off the body) when there is a latch.
    latch: Option<BlockId>,
    direct_continue: bool,
    exit: Option<BlockId>,
}

struct Gen<'a> {
    rng: SplitMix64,
    config: &'a CfgGenConfig,
    blocks: PrimaryMap<BlockId, Block>,
    layout: Vec<BlockId>,
    /// Blocks still to be created, counting reservations.
    budget: usize,
    loops: Vec<LoopCtx>,
    next_loop: u32,
    /// The loop ids enclosing each block when it was filled.
    loop_path: SecondaryMap<BlockId, Vec<u32>>,
    fill_index: SecondaryMap<BlockId, u32>,
}

/// Nesting of if/switch statements beyond which only flat statements are generated, so the
/// generator's recursion stays shallow.
const MAX_STATEMENT_DEPTH: usize = 12;

impl<'a> Gen<'a> {
    fn block(&mut self) -> BlockId {
        let id = self.blocks.next_key();
        self.blocks.push(Block {
            name: Some(format!("b{}", id.index())),
            insts: Vec::new(),
            terminator: Terminator::Unreachable,
        })
    }

    /// Creates a block already paid for by a reservation.
    fn take(&mut self) -> BlockId {
        self.block()
    }

    fn reserve(&mut self, n: usize) -> bool {
        if self.budget >= n {
            self.budget -= n;
            true
        } else {
            false
        }
    }

    /// Makes `b` the block being filled: it joins the layout here.
    fn start(&mut self, b: BlockId) {
        self.fill_index[b] = self.layout.len() as u32;
        self.layout.push(b);
        self.loop_path[b] = self.loops.iter().map(|l| l.id).collect();
    }

    fn set(&mut self, b: BlockId, t: Terminator) {
        self.blocks[b].terminator = t;
    }

    fn cond(&self) -> Value {
        Value::Arg(0)
    }

    /// A sequence of statements from `cur`; returns the open block at its end, if control
    /// falls through.
    fn seq(&mut self, mut cur: BlockId, depth: usize, min_len: usize) -> Option<BlockId> {
        let len = min_len.max(1 + self.rng.below(4));
        let mut i = 0;
        while i < len || (depth == 0 && self.budget > 0) {
            i += 1;
            if i > 64 + len {
                break;
            }
            match self.stmt(cur, depth) {
                Some(next) => cur = next,
                None => {
                    if self.rng.chance(self.config.dead_code_percent) && self.reserve(1) {
                        cur = self.take();
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
        let deep = depth >= MAX_STATEMENT_DEPTH;
        let in_loop = !self.loops.is_empty();
        let roll = self.rng.below(100);
        match roll {
            0..=21 if !deep => self.if_stmt(cur, depth),
            22..=37 if !deep && self.loops.len() < self.config.max_loop_depth => self.loop_stmt(cur, depth),
            38..=45 if !deep => self.switch_stmt(cur, depth),
            46..=53 if in_loop => {
                let level = self.rng.below(self.loops.len());
                let target = self.break_target(level);
                self.set(cur, Terminator::Br { target });
                None
            }
            54..=59 if in_loop => {
                let level = self.rng.below(self.loops.len());
                let target = self.continue_target(level);
                self.set(cur, Terminator::Br { target });
                None
            }
            60..=63 => {
                self.set(cur, Terminator::Ret { value: None });
                None
            }
            64 => {
                self.set(cur, Terminator::Unreachable);
                None
            }
            65..=84 if self.reserve(1) => {
                // A straight-line block boundary.
                let next = self.take();
                self.set(cur, Terminator::Br { target: next });
                self.start(next);
                Some(next)
            }
            _ => Some(cur),
        }
    }

    /// Loop `level` counted from the innermost (0).
    fn ctx(&mut self, level: usize) -> &mut LoopCtx {
        let i = self.loops.len() - 1 - level;
        &mut self.loops[i]
    }

    fn break_target(&mut self, level: usize) -> BlockId {
        if let Some(e) = self.ctx(level).exit {
            return e;
        }
        // Exits are reserved when the loop starts.
        let e = self.take();
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
        let l = self.take();
        self.ctx(level).latch = Some(l);
        l
    }

    fn if_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let has_else = self.rng.chance(60);
        if !self.reserve(if has_else { 3 } else { 2 }) {
            return Some(cur);
        }
        let then_b = self.take();
        let else_b = has_else.then(|| self.take());
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
        let join = if join_needed { Some(self.take()) } else { None };
        if !join_needed {
            self.budget += 1;
        }
        let if_false = else_b.or(join).unwrap_or(then_b);
        self.set(cur, Terminator::CondBr { cond: self.cond(), if_true: then_b, if_false });
        let join = join?;
        for end in [then_end, else_end].into_iter().flatten() {
            self.set(end, Terminator::Br { target: join });
        }
        self.start(join);
        Some(join)
    }

    fn loop_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let kind = match self.rng.below(10) {
            0..=4 => LoopKind::While,
            5..=7 => LoopKind::DoWhile,
            _ => LoopKind::Endless,
        };
        // header, body (while only), latch, exit
        let need = if kind == LoopKind::While { 4 } else { 3 };
        if !self.reserve(need) {
            return Some(cur);
        }
        let direct_continue = kind != LoopKind::DoWhile && self.rng.chance(self.config.direct_continue_percent);
        let header = self.take();
        self.set(cur, Terminator::Br { target: header });
        let id = self.next_loop;
        self.next_loop += 1;
        self.loops.push(LoopCtx { id, header, latch: None, direct_continue, exit: None });
        self.start(header);
        let body_end = if kind == LoopKind::While {
            let body = self.take();
            let exit = self.break_target(0);
            self.set(header, Terminator::CondBr { cond: self.cond(), if_true: body, if_false: exit });
            self.start(body);
            self.seq(body, depth + 1, 1)
        } else {
            self.seq(header, depth + 1, 1)
        };
        if let Some(end) = body_end {
            let target = self.continue_target(0);
            self.set(end, Terminator::Br { target });
        }
        let reserved_latch_used;
        if let Some(latch) = self.ctx(0).latch {
            reserved_latch_used = true;
            self.start(latch);
            if kind == LoopKind::DoWhile {
                let exit = self.break_target(0);
                self.set(latch, Terminator::CondBr { cond: self.cond(), if_true: header, if_false: exit });
            } else {
                self.set(latch, Terminator::Br { target: header });
            }
        } else {
            reserved_latch_used = false;
        }
        let ctx = self.loops.pop()?;
        if !reserved_latch_used {
            self.budget += 1;
        }
        match ctx.exit {
            Some(exit) => {
                self.start(exit);
                Some(exit)
            }
            None => {
                self.budget += 1;
                None
            }
        }
    }

    fn switch_stmt(&mut self, cur: BlockId, depth: usize) -> Option<BlockId> {
        let cases = 1 + self.rng.below(self.config.max_switch_cases.max(1));
        // One block per case and the default, plus the merge.
        if !self.reserve(cases + 2) {
            return Some(cur);
        }
        let mut merge: Option<BlockId> = None;
        let mut targets: Vec<Option<BlockId>> = Vec::new(); // None: straight to the merge
        let mut bodies: Vec<BlockId> = Vec::new();
        let mut used = 0;
        for i in 0..=cases {
            let t = match self.rng.below(10) {
                0..=1 => None,
                2 if i > 0 => targets[i - 1],
                _ => {
                    used += 1;
                    let b = self.take();
                    bodies.push(b);
                    Some(b)
                }
            };
            targets.push(t);
        }
        self.budget += cases + 1 - used;
        let mut ends: Vec<BlockId> = Vec::new();
        for (k, &b) in bodies.iter().enumerate() {
            self.start(b);
            if let Some(end) = self.seq(b, depth + 1, 1) {
                match bodies.get(k + 1) {
                    Some(&next) if self.rng.chance(25) => self.set(end, Terminator::Br { target: next }),
                    _ => ends.push(end),
                }
            }
        }
        let needs_merge = !ends.is_empty() || targets.iter().any(|t| t.is_none());
        if needs_merge {
            merge = Some(self.take());
        } else {
            self.budget += 1;
        }
        let resolve = |t: Option<BlockId>| t.or(merge).or_else(|| bodies.first().copied()).unwrap_or(cur);
        let default = resolve(targets[0]);
        let case_list = (1..=cases).map(|i| (i as u64 * 3, resolve(targets[i]))).collect();
        self.set(cur, Terminator::Switch { value: self.cond(), default, cases: case_list });
        let merge = merge?;
        for end in ends {
            self.set(end, Terminator::Br { target: merge });
        }
        self.start(merge);
        Some(merge)
    }

    /// Extra forward gotos that keep the graph reducible (see the module docs).
    fn add_gotos(&mut self) {
        let n = self.layout.len();
        for i in 0..n {
            let u = self.layout[i];
            let Terminator::Br { target } = self.blocks[u].terminator else {
                continue;
            };
            if !self.rng.chance(self.config.goto_percent) {
                continue;
            }
            for _ in 0..8 {
                let v = self.layout[self.rng.below(n)];
                let later = self.fill_index[v] > self.fill_index[u];
                let (pu, pv) = (&self.loop_path[u], &self.loop_path[v]);
                if later && v != target && pv.len() <= pu.len() && pu[..pv.len()] == pv[..] {
                    self.blocks[u].terminator =
                        Terminator::CondBr { cond: Value::Arg(0), if_true: target, if_false: v };
                    break;
                }
            }
        }
    }
}

/// A random reducible function with at most `config.max_blocks` blocks. Types are interned
/// into `types`.
pub fn random_function(seed: u64, config: &CfgGenConfig, types: &mut Types) -> Function {
    let mut rng = SplitMix64::new(seed);
    let target = 1 + rng.below(config.max_blocks.max(1));
    let mut g = Gen {
        rng,
        config,
        blocks: PrimaryMap::new(),
        layout: Vec::new(),
        budget: target - 1,
        loops: Vec::new(),
        next_loop: 0,
        loop_path: SecondaryMap::new(),
        fill_index: SecondaryMap::new(),
    };
    let entry = g.block();
    g.start(entry);
    if let Some(end) = g.seq(entry, 0, 1) {
        g.set(end, Terminator::Ret { value: None });
    }
    g.add_gotos();
    super::synthetic::cfg_function(format!("random_{seed:016x}"), types, g.blocks, g.layout)
}

/// A module holding one [`random_function`].
pub fn random_module(seed: u64, config: &CfgGenConfig) -> Module {
    let mut m = Module { source_name: format!("random-cfg-{seed}"), ..Module::default() };
    let f = random_function(seed, config, &mut m.types);
    m.functions.push(f);
    m
}
