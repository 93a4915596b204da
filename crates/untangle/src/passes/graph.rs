//! Analyses on an [`Scfg`] shared by the passes: predecessor lists kept in step with slot
//! rewrites, depth-first orders, dominators and natural loops.
//!
//! Dominators are Lengauer and Tarjan's (the implementation in `crate::cfg`), near-linear
//! on any shape; dominance queries are O(1) through pre/post numbers of the tree.

use super::scfg::{Block, EdgeDef, Origin, SBlock, Scfg, Term};
use crate::cfg::dense::Csr;
use crate::cfg::lengauer_tarjan::immediate_dominators;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

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
        let list = &self.lists[b];
        let mut out: SmallVec<[SBlock; 2]> = SmallVec::new();
        if list.len() <= 16 {
            for &p in list {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        } else {
            // A shared break or merge block can have thousands of predecessors.
            let mut seen: std::collections::HashSet<SBlock> = std::collections::HashSet::with_capacity(list.len());
            out.extend(list.iter().copied().filter(|&p| seen.insert(p)));
        }
        out
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

impl Dfs {
    pub fn new<F, I>(entry: SBlock, mut succs: F) -> Dfs
    where
        F: FnMut(SBlock) -> I,
        I: IntoIterator<Item = SBlock>,
    {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            OnStack,
            Done,
        }
        let mut mark: SecondaryMap<SBlock, Mark> = SecondaryMap::with_default(Mark::New);
        let mut post: Vec<SBlock> = Vec::new();
        let mut back_edges = Vec::new();
        let mut stack: Vec<(SBlock, SmallVec<[SBlock; 4]>, usize)> = Vec::new();
        mark[entry] = Mark::OnStack;
        stack.push((entry, succs(entry).into_iter().collect(), 0));
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let s = top.1[top.2];
                top.2 += 1;
                let from = top.0;
                match mark[s] {
                    Mark::New => {
                        mark[s] = Mark::OnStack;
                        let next: SmallVec<[SBlock; 4]> = succs(s).into_iter().collect();
                        stack.push((s, next, 0));
                    }
                    Mark::OnStack => back_edges.push((from, s)),
                    Mark::Done => {}
                }
            } else {
                let (b, _, _) = stack.pop().expect("non-empty");
                mark[b] = Mark::Done;
                post.push(b);
            }
        }
        post.reverse();
        let mut rpo_index = SecondaryMap::with_default(u32::MAX);
        for (i, &b) in post.iter().enumerate() {
            rpo_index[b] = i as u32;
        }
        Dfs { rpo: post, rpo_index, back_edges }
    }

    pub fn reachable(&self, b: SBlock) -> bool {
        self.rpo_index[b] != u32::MAX
    }
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
        // Dense indices by RPO position.
        let pred_lists: Vec<SmallVec<[u32; 4]>> = dfs
            .rpo
            .iter()
            .map(|&b| preds(b).into_iter().filter(|&p| dfs.reachable(p)).map(|p| dfs.rpo_index[p]).collect())
            .collect();
        // Lengauer–Tarjan (`crate::cfg`): Cooper–Harvey–Kennedy's intersect walks are
        // quadratic on deep trees with wide joins (a break target shared by every step of a
        // long chain), which the passes meet on unrolled loops.
        let pred_csr = Csr::from_rows(n, |i, row| row.extend(pred_lists[i].iter().copied()));
        let mut succ_lists: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
        for (i, ps) in pred_lists.iter().enumerate() {
            for &p in ps {
                succ_lists[p as usize].push(i as u32);
            }
        }
        let succ_csr = Csr::from_rows(n, |i, row| row.extend(succ_lists[i].iter().copied()));
        let idom = immediate_dominators(0, &succ_csr, &pred_csr);
        let mut out_idom: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
        let mut children: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> = SecondaryMap::new();
        #[allow(clippy::needless_range_loop)] // `i` indexes both `dfs.rpo` and `idom`
        for i in 1..n {
            let b = dfs.rpo[i];
            let d = dfs.rpo[idom[i] as usize];
            out_idom[b] = Some(d);
            children[d].push(b);
        }
        // Pre/post numbers of the dominator tree for O(1) queries.
        let mut pre = SecondaryMap::with_default(u32::MAX);
        let mut post = SecondaryMap::with_default(0);
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

/// A natural loop of the current graph.
#[derive(Clone, Debug)]
pub struct NaturalLoop {
    pub header: SBlock,
    /// Sources of the back edges, in DFS discovery order.
    pub latches: Vec<SBlock>,
    /// Blocks of the loop (header first), as a membership map.
    pub body: Vec<SBlock>,
}

/// Natural loops of `scfg` (one per header, back edges to a header merged), outermost
/// first (a loop comes before every loop it contains).
pub fn natural_loops(preds: &Preds, dfs: &Dfs) -> Vec<NaturalLoop> {
    let mut by_header: Vec<(SBlock, Vec<SBlock>)> = Vec::new();
    for &(from, to) in &dfs.back_edges {
        match by_header.iter_mut().find(|(h, _)| *h == to) {
            Some((_, l)) => {
                if !l.contains(&from) {
                    l.push(from)
                }
            }
            None => by_header.push((to, vec![from])),
        }
    }
    let mut loops: Vec<NaturalLoop> = by_header
        .into_iter()
        .map(|(header, latches)| {
            let body = loop_body(preds, header, &latches, &[]);
            NaturalLoop { header, latches, body }
        })
        .collect();
    // Outer loops have larger bodies; ties cannot nest. Stable by header RPO for determinism.
    loops.sort_by_key(|l| (std::cmp::Reverse(l.body.len()), dfs.rpo_index[l.header]));
    loops
}

/// Blocks that reach one of `latches` without passing `header`, plus `header`, plus
/// `extra` blocks (and what reaches them inside the loop). Header first, then discovery order.
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
/// when it cannot reach the back edge.
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
