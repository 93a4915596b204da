//! Analyses on an [`Scfg`] shared by the passes: predecessor lists kept in step with slot
//! rewrites, depth-first orders, dominators, and the reference definition of a loop body.
//!
//! Dominators are Lengauer and Tarjan's (the implementation in `crate::cfg`), near-linear
//! on any shape; dominance queries are O(1) through pre/post numbers of the tree. The loops
//! themselves are a nesting forest (`super::loop_nest`); [`loop_body`] and
//! [`planned_loop_body`] enumerate one body by a backward walk, which the verification
//! mode compares the forest with.
//!
//! Every list of distinct blocks built here and in the passes goes through [`Distinct`]:
//! a switch with k cases would otherwise cost O(k²) in `contains` scans.

use super::block_table::BlockTable;
use super::scfg::{Block, EdgeDef, Origin, SBlock, Scfg, Term};
use crate::cfg::dense::Csr;
use crate::cfg::lengauer_tarjan::immediate_dominators;
use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;
use std::collections::HashSet;

/// Lists above this length get a hash set for membership (below it a scan is faster).
const SCAN_LIMIT: usize = 16;

/// Blocks without repeats, in first-insertion order: membership by a scan while the list is
/// short, by a hash set beyond `SCAN_LIMIT` entries, so n insertions cost O(n).
#[derive(Clone, Debug, Default)]
pub struct Distinct {
    list: SmallVec<[SBlock; 4]>,
    set: Option<HashSet<SBlock>>,
}

impl Distinct {
    pub fn new() -> Distinct {
        Distinct::default()
    }

    /// The distinct blocks of `blocks`, in first-occurrence order.
    pub fn of(blocks: impl IntoIterator<Item = SBlock>) -> Distinct {
        let mut d = Distinct::new();
        for b in blocks {
            d.insert(b);
        }
        d
    }

    pub fn contains(&self, b: SBlock) -> bool {
        match &self.set {
            Some(set) => set.contains(&b),
            None => self.list.contains(&b),
        }
    }

    /// Adds `b` unless present; returns whether it was added.
    pub fn insert(&mut self, b: SBlock) -> bool {
        if self.contains(b) {
            return false;
        }
        self.list.push(b);
        match &mut self.set {
            Some(set) => {
                set.insert(b);
            }
            None if self.list.len() > SCAN_LIMIT => self.set = Some(self.list.iter().copied().collect()),
            None => {}
        }
        true
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn as_slice(&self) -> &[SBlock] {
        &self.list
    }

    pub fn into_list<const N: usize>(self) -> SmallVec<[SBlock; N]>
    where
        [SBlock; N]: smallvec::Array<Item = SBlock>,
    {
        self.list.into_iter().collect()
    }
}

/// The position of each block of `targets` (the first, when repeated): a scan for short
/// lists, a hash map for long ones (a dispatch with thousands of targets).
pub struct TargetIndex<'a> {
    targets: &'a [SBlock],
    map: Option<std::collections::HashMap<SBlock, u32>>,
}

impl<'a> TargetIndex<'a> {
    pub fn new(targets: &'a [SBlock]) -> TargetIndex<'a> {
        let map = (targets.len() > SCAN_LIMIT).then(|| {
            let mut m = std::collections::HashMap::with_capacity(targets.len());
            for (i, &t) in targets.iter().enumerate() {
                m.entry(t).or_insert(i as u32);
            }
            m
        });
        TargetIndex { targets, map }
    }

    pub fn position(&self, b: SBlock) -> Option<u32> {
        match &self.map {
            Some(m) => m.get(&b).copied(),
            None => self.targets.iter().position(|&t| t == b).map(|i| i as u32),
        }
    }
}

/// Predecessors with one entry per successor slot (parallel edges repeat), so that a slot
/// rewrite removes exactly one entry.
#[derive(Clone, Debug, Default)]
pub struct Preds {
    lists: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>>,
}

impl Preds {
    pub fn compute(scfg: &Scfg) -> Preds {
        let mut lists: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> = SecondaryMap::new();
        for &b in &scfg.layout {
            for &s in scfg.blocks[b].term.succs() {
                lists[s].push(b);
            }
        }
        Preds { lists }
    }

    /// Predecessors with multiplicity (one per slot).
    pub fn slots_into(&self, b: SBlock) -> &[SBlock] {
        &self.lists[b]
    }

    /// Distinct predecessors, in first-slot order.
    pub fn distinct(&self, b: SBlock) -> SmallVec<[SBlock; 2]> {
        // A shared break or merge block can have thousands of predecessors.
        Distinct::of(self.lists[b].iter().copied()).into_list()
    }

    pub fn count_distinct(&self, b: SBlock) -> usize {
        let l = &self.lists[b];
        if l.len() <= 1 {
            return l.len();
        }
        self.distinct(b).len()
    }

    fn remove_one(&mut self, target: SBlock, pred: SBlock) {
        let l = &mut self.lists[target];
        if let Some(i) = l.iter().position(|&p| p == pred) {
            l.remove(i);
        }
    }

    fn add(&mut self, target: SBlock, pred: SBlock) {
        self.lists[target].push(pred);
    }
}

/// An [`Scfg`] plus predecessor lists, with the rewrite primitives the passes use.
pub struct Work<'a> {
    pub scfg: &'a mut Scfg,
    pub preds: Preds,
}

impl<'a> Work<'a> {
    pub fn new(scfg: &'a mut Scfg) -> Work<'a> {
        let preds = Preds::compute(scfg);
        Work { scfg, preds }
    }

    /// Adds a block (appended to the layout; the marking pass orders it).
    pub fn add_block(&mut self, origin: Origin, term: Term) -> SBlock {
        let b = self.scfg.blocks.push(Block::new(origin, term));
        for &s in self.scfg.blocks[b].term.succs() {
            self.preds.add(s, b);
        }
        self.scfg.layout.push(b);
        b
    }

    /// Points successor slot `slot` of `from` at `to`; the slot's edge definitions stay.
    pub fn redirect(&mut self, from: SBlock, slot: usize, to: SBlock) {
        let old = self.scfg.blocks[from].term.succs()[slot];
        if old == to {
            return;
        }
        self.scfg.blocks[from].term.succs_mut()[slot] = to;
        self.preds.remove_one(old, from);
        self.preds.add(to, from);
    }

    /// Replaces the terminator of `b`, keeping predecessor lists right. Edge definitions
    /// are replaced by `defs`.
    pub fn set_term(&mut self, b: SBlock, term: Term, defs: SmallVec<[EdgeDef; 2]>) {
        let old: SmallVec<[SBlock; 4]> = self.scfg.blocks[b].term.succs().iter().copied().collect();
        for s in old {
            self.preds.remove_one(s, b);
        }
        for &s in term.succs() {
            self.preds.add(s, b);
        }
        self.scfg.blocks[b].term = term;
        self.scfg.blocks[b].edge_defs = defs;
    }

    pub fn add_edge_def(&mut self, from: SBlock, slot: usize, def_var: super::VarId, val: super::Val) {
        self.scfg.blocks[from].edge_defs.push(EdgeDef { slot: slot as u32, var: def_var, val });
    }
}

/// Depth-first numbering from the entry over an arbitrary successor function.
pub struct Dfs {
    /// Blocks in reverse post-order.
    pub rpo: Vec<SBlock>,
    /// Position in `rpo`, `u32::MAX` when unreachable.
    pub rpo_index: SecondaryMap<SBlock, u32>,
    /// Edges to a block on the DFS stack (back edges on a reducible graph).
    pub back_edges: Vec<(SBlock, SBlock)>,
}

/// A block's state during [`dfs_order`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum DfsMark {
    #[default]
    New,
    OnStack,
    Done,
}

/// Reverse post-order from `entry` over `succs` (explored in the order given), and the
/// edges to a block on the DFS stack. `marks` must read `New` for every block (a cleared
/// table); it is left marked. O(blocks reached + their edges): the selection pass runs it
/// once per region with one table for all of them.
pub fn dfs_order<F, I>(
    entry: SBlock,
    mut succs: F,
    marks: &mut BlockTable<DfsMark>,
) -> (Vec<SBlock>, Vec<(SBlock, SBlock)>)
where
    F: FnMut(SBlock) -> I,
    I: IntoIterator<Item = SBlock>,
{
    // Sized for the small graphs most calls see (one allocation each instead of several
    // regrowths); larger ones grow as before.
    let mut post: Vec<SBlock> = Vec::with_capacity(32);
    let mut back_edges = Vec::new();
    let mut stack: Vec<(SBlock, SmallVec<[SBlock; 4]>, usize)> = Vec::with_capacity(16);
    marks[entry] = DfsMark::OnStack;
    stack.push((entry, succs(entry).into_iter().collect(), 0));
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let s = top.1[top.2];
            top.2 += 1;
            let from = top.0;
            match marks[s] {
                DfsMark::New => {
                    marks[s] = DfsMark::OnStack;
                    let next: SmallVec<[SBlock; 4]> = succs(s).into_iter().collect();
                    stack.push((s, next, 0));
                }
                DfsMark::OnStack => back_edges.push((from, s)),
                DfsMark::Done => {}
            }
        } else {
            let (b, _, _) = stack.pop().expect("non-empty");
            marks[b] = DfsMark::Done;
            post.push(b);
        }
    }
    post.reverse();
    (post, back_edges)
}

impl Dfs {
    pub fn new<F, I>(entry: SBlock, succs: F) -> Dfs
    where
        F: FnMut(SBlock) -> I,
        I: IntoIterator<Item = SBlock>,
    {
        let (rpo, back_edges) = dfs_order(entry, succs, &mut BlockTable::default());
        let mut rpo_index = SecondaryMap::with_default(u32::MAX);
        // Sized once (blocks come in RPO, not index order: growing per write costs more).
        rpo_index.resize(rpo.iter().map(|b| b.index() + 1).max().unwrap_or(0));
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i as u32;
        }
        Dfs { rpo, rpo_index, back_edges }
    }

    pub fn reachable(&self, b: SBlock) -> bool {
        self.rpo_index[b] != u32::MAX
    }
}

/// Immediate dominators of a graph whose nodes are numbered `0..n` in reverse post-order
/// from node 0, given each node's predecessors (`preds(i, row)` appends those of node `i`):
/// `idom[i]`, with `idom[0] == 0`. Lengauer–Tarjan (`crate::cfg`): Cooper–Harvey–Kennedy's
/// intersect walks are quadratic on deep trees with wide joins (a break target shared by
/// every step of a long chain), which the passes meet on unrolled loops.
pub fn dense_idoms(n: usize, preds: impl FnMut(usize, &mut Vec<u32>)) -> Vec<u32> {
    let pred_csr = Csr::from_rows(n, preds);
    let mut succ_lists: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
    for i in 0..n {
        for &p in pred_csr.neighbors(i as u32) {
            succ_lists[p as usize].push(i as u32);
        }
    }
    let succ_csr = Csr::from_rows(n, |i, row| row.extend(succ_lists[i].iter().copied()));
    immediate_dominators(0, &succ_csr, &pred_csr)
}

/// Dominator tree with O(1) dominance queries.
pub struct Doms {
    idom: SecondaryMap<SBlock, Option<SBlock>>,
    children: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>>,
    pre: SecondaryMap<SBlock, u32>,
    post: SecondaryMap<SBlock, u32>,
    pub root: SBlock,
}

impl Doms {
    /// `preds` must list, for each block of `dfs.rpo`, its predecessors (any order;
    /// unreachable ones are ignored).
    pub fn new<F, I>(dfs: &Dfs, mut preds: F) -> Doms
    where
        F: FnMut(SBlock) -> I,
        I: IntoIterator<Item = SBlock>,
    {
        let n = dfs.rpo.len();
        let root = dfs.rpo[0];
        let idom = dense_idoms(n, |i, row| {
            row.extend(preds(dfs.rpo[i]).into_iter().filter(|&p| dfs.reachable(p)).map(|p| dfs.rpo_index[p]))
        });
        // Every table sized once, to the largest reachable block's index.
        let size = dfs.rpo_index.as_values_slice().len();
        let mut out_idom: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
        out_idom.resize(size);
        let mut children: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> = SecondaryMap::new();
        children.resize(size);
        #[allow(clippy::needless_range_loop)] // `i` indexes both `dfs.rpo` and `idom`
        for i in 1..n {
            let b = dfs.rpo[i];
            let d = dfs.rpo[idom[i] as usize];
            out_idom[b] = Some(d);
            children[d].push(b);
        }
        // Pre/post numbers of the dominator tree for O(1) queries.
        let mut pre = SecondaryMap::with_default(u32::MAX);
        pre.resize(size);
        let mut post = SecondaryMap::with_default(0);
        post.resize(size);
        let mut counter = 0u32;
        let mut stack: Vec<(SBlock, usize)> = vec![(root, 0)];
        pre[root] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let b = top.0;
            if top.1 < children[b].len() {
                let c = children[b][top.1];
                top.1 += 1;
                pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                stack.pop();
                post[b] = counter;
            }
        }
        Doms { idom: out_idom, children, pre, post, root }
    }

    pub fn idom(&self, b: SBlock) -> Option<SBlock> {
        self.idom[b]
    }

    pub fn children(&self, b: SBlock) -> &[SBlock] {
        &self.children[b]
    }

    pub fn contains(&self, b: SBlock) -> bool {
        self.pre[b] != u32::MAX
    }

    /// `a` dominates `b` (reflexive). False when either is outside the tree.
    pub fn dominates(&self, a: SBlock, b: SBlock) -> bool {
        self.contains(a) && self.contains(b) && self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

/// A natural loop of the current graph (see `super::loop_nest`).
#[derive(Clone, Debug)]
pub struct NaturalLoop {
    pub header: SBlock,
    /// Sources of the back edges, in DFS discovery order.
    pub latches: Vec<SBlock>,
    /// Blocks of the loop, nested loops included.
    pub body_size: usize,
}

/// Blocks that reach one of `latches` without passing `header`, plus `header`, plus
/// `extra` blocks (and what reaches them inside the loop). Header first, then discovery order.
/// O(body); the passes use the loop nest, and this is the definition it is checked against.
pub fn loop_body(preds: &Preds, header: SBlock, latches: &[SBlock], extra: &[SBlock]) -> Vec<SBlock> {
    let mut seen: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    let mut body = vec![header];
    seen[header] = true;
    let mut stack: Vec<SBlock> = Vec::new();
    for &l in latches.iter().chain(extra) {
        if !seen[l] {
            seen[l] = true;
            body.push(l);
            stack.push(l);
        }
    }
    while let Some(b) = stack.pop() {
        for &p in preds.slots_into(b) {
            if !seen[p] {
                seen[p] = true;
                body.push(p);
                stack.push(p);
            }
        }
    }
    body
}

/// Membership set over blocks.
pub fn member_set(blocks: &[SBlock]) -> SecondaryMap<SBlock, bool> {
    let mut set = SecondaryMap::new();
    for &b in blocks {
        set[b] = true;
    }
    set
}

/// The body of `plan.loops[li]` as the loop-exit and selection passes define it: the
/// natural loop (from its single continue target) plus the merges of the loops nested in
/// it that have one already, since an inner loop's merge belongs to the enclosing loop even
/// when it cannot reach the back edge. O(body + later loops): the passes read bodies from
/// `plan.nest` instead, and the verification mode checks the two agree.
pub fn planned_loop_body(preds: &Preds, plan: &super::plan::Plan, li: usize) -> Vec<SBlock> {
    let l = &plan.loops[li];
    let natural = loop_body(preds, l.header, &[l.continue_target], &[]);
    let set = member_set(&natural);
    let extra: Vec<SBlock> = plan.loops[li + 1..]
        .iter()
        .filter(|inner| set[inner.header])
        .filter_map(|inner| inner.merge)
        .filter(|m| !set[*m])
        .collect();
    if extra.is_empty() {
        natural
    } else {
        loop_body(preds, l.header, &[l.continue_target], &extra)
    }
}
