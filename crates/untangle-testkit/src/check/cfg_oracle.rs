//! Brute-force CFG facts straight from the definitions, as a test oracle for `untangle::cfg`.
//!
//! Nothing here shares code or data structures with `untangle::cfg`: the graph is re-read from
//! the terminators, and every relation is computed the slow, obvious way, so a bug in the
//! fast analyses cannot hide in the oracle too.
//!
//! * dominance by path removal: `d` dominates `b` iff `b` is unreachable from the entry once
//!   `d` is deleted (or `d == b`);
//! * reducibility by Hecht & Ullman's T1/T2 reduction (delete self loops; merge a block with
//!   a single predecessor into it; reducible iff one block remains);
//! * back edges: edges whose target dominates their source;
//! * natural loops: blocks dominated by the header that reach a latch with the header
//!   deleted; exits: blocks outside with a predecessor inside; parent: the loop with the
//!   smallest body strictly containing the body;
//! * post-dominance by path removal towards a virtual exit, with the documented
//!   infinite-loop treatment (virtual edges from the latches of outermost loops that reach
//!   no exit);
//! * frontiers from their definitions (Cytron et al. 1991).
//!
//! O(n·(n + e)) to O(n²·e); meant for graphs of a few hundred blocks.

use std::collections::{BTreeSet, HashSet};
use untangle::ir::{BlockId, Function};

pub struct CfgOracle {
    blocks: Vec<BlockId>,
    index: std::collections::HashMap<BlockId, usize>,
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    reachable: Vec<bool>,
    /// `dom[a][b]`: a dominates b.
    dom: Vec<Vec<bool>>,
    /// Number of dominators of each block (the nearest of two dominators has more).
    dom_count: Vec<usize>,
    reducible: bool,
    /// `pdom[a][b]`: a post-dominates b (with the virtual exit treatment).
    pdom: Vec<Vec<bool>>,
    pdom_count: Vec<usize>,
    virtual_sources: Vec<usize>,
    loops: Vec<OracleLoop>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OracleLoop {
    pub header: BlockId,
    pub latches: BTreeSet<BlockId>,
    pub body: BTreeSet<BlockId>,
    pub exits: BTreeSet<BlockId>,
    /// Header of the enclosing loop.
    pub parent: Option<BlockId>,
}

fn search(n: usize, start: &[usize], next: &[Vec<usize>], blocked: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    for &s in start {
        if Some(s) != blocked && !seen[s] {
            seen[s] = true;
            stack.push(s);
        }
    }
    while let Some(x) = stack.pop() {
        for &y in &next[x] {
            if Some(y) != blocked && !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    seen
}

impl CfgOracle {
    /// Brute-forces everything for a defined function. Post-dominance and loops are only
    /// meaningful when [`is_reducible`](Self::is_reducible).
    pub fn new(func: &Function) -> CfgOracle {
        let blocks: Vec<BlockId> = func.layout.clone();
        let n = blocks.len();
        let index: std::collections::HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut succ = vec![Vec::new(); n];
        let mut pred = vec![Vec::new(); n];
        for (i, &b) in blocks.iter().enumerate() {
            for s in func.blocks[b].terminator.successors() {
                let j = index[&s];
                if !succ[i].contains(&j) {
                    succ[i].push(j);
                    pred[j].push(i);
                }
            }
        }
        let reachable = search(n, &[0], &succ, None);
        let mut dom = vec![vec![false; n]; n];
        for d in 0..n {
            if !reachable[d] {
                continue;
            }
            let without = search(n, &[0], &succ, Some(d));
            for b in 0..n {
                dom[d][b] = reachable[b] && (b == d || !without[b]);
            }
        }
        let dom_count = (0..n).map(|b| (0..n).filter(|&d| dom[d][b]).count()).collect();
        let mut o = CfgOracle {
            blocks,
            index,
            succ,
            pred,
            reachable,
            dom,
            dom_count,
            reducible: false,
            pdom: Vec::new(),
            pdom_count: Vec::new(),
            virtual_sources: Vec::new(),
            loops: Vec::new(),
        };
        o.reducible = o.t1_t2_reducible();
        if o.reducible {
            o.compute_loops();
            o.compute_postdom();
        }
        o
    }

    fn t1_t2_reducible(&self) -> bool {
        let n = self.blocks.len();
        let mut succ: Vec<HashSet<usize>> = vec![HashSet::new(); n];
        let mut pred: Vec<HashSet<usize>> = vec![HashSet::new(); n];
        for i in (0..n).filter(|&i| self.reachable[i]) {
            for &j in &self.succ[i] {
                succ[i].insert(j);
                pred[j].insert(i);
            }
        }
        let mut alive: Vec<bool> = self.reachable.clone();
        loop {
            let mut changed = false;
            for v in 0..n {
                if alive[v] && succ[v].remove(&v) {
                    pred[v].remove(&v);
                    changed = true;
                }
            }
            for v in 1..n {
                if alive[v] && pred[v].len() == 1 {
                    let u = *pred[v].iter().next().unwrap_or(&v);
                    if u == v {
                        continue;
                    }
                    for w in std::mem::take(&mut succ[v]) {
                        pred[w].remove(&v);
                        pred[w].insert(u);
                        succ[u].insert(w);
                    }
                    succ[u].remove(&v);
                    pred[v].clear();
                    alive[v] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        alive.iter().filter(|&&a| a).count() == 1
    }

    fn is_back(&self, u: usize, v: usize) -> bool {
        self.dom[v][u]
    }

    fn compute_loops(&mut self) {
        let n = self.blocks.len();
        let mut raw: Vec<(usize, Vec<usize>, Vec<bool>)> = Vec::new();
        for h in 0..n {
            let latches: Vec<usize> =
                self.pred[h].iter().copied().filter(|&p| self.reachable[p] && self.is_back(p, h)).collect();
            if latches.is_empty() {
                continue;
            }
            // Blocks dominated by h that reach a latch with h deleted.
            let mut body = vec![false; n];
            body[h] = true;
            for (b, in_body) in body.iter_mut().enumerate() {
                if b != h && self.dom[h][b] {
                    let from_b = search(n, &[b], &self.succ, Some(h));
                    if latches.iter().any(|&l| from_b[l]) {
                        *in_body = true;
                    }
                }
            }
            raw.push((h, latches, body));
        }
        let size = |body: &Vec<bool>| body.iter().filter(|&&x| x).count();
        self.loops = raw
            .iter()
            .map(|(h, latches, body)| {
                let parent = raw
                    .iter()
                    .filter(|(h2, _, body2)| h2 != h && body2[*h] && size(body2) > size(body))
                    .min_by_key(|(_, _, body2)| size(body2))
                    .map(|(h2, _, _)| self.blocks[*h2]);
                let mut exits = BTreeSet::new();
                for b in (0..n).filter(|&b| body[b]) {
                    for &s in &self.succ[b] {
                        if !body[s] {
                            exits.insert(self.blocks[s]);
                        }
                    }
                }
                OracleLoop {
                    header: self.blocks[*h],
                    latches: latches.iter().map(|&l| self.blocks[l]).collect(),
                    body: (0..n).filter(|&b| body[b]).map(|b| self.blocks[b]).collect(),
                    exits,
                    parent,
                }
            })
            .collect();
    }

    fn compute_postdom(&mut self) {
        let n = self.blocks.len();
        let sinks: Vec<usize> = (0..n).filter(|&b| self.reachable[b] && self.succ[b].is_empty()).collect();
        let reaches_sink = search(n, &sinks, &self.pred, None);
        let mut virtual_sources = BTreeSet::new();
        for l in self.loops.iter().filter(|l| l.parent.is_none()) {
            if !reaches_sink[self.index[&l.header]] {
                virtual_sources.extend(l.latches.iter().map(|b| self.index[b]));
            }
        }
        self.virtual_sources = virtual_sources.into_iter().collect();
        // Reverse graph with the exit as node n.
        let mut rev: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for u in (0..n).filter(|&u| self.reachable[u]) {
            for &v in &self.succ[u] {
                rev[v].push(u);
            }
            if self.succ[u].is_empty() || self.virtual_sources.contains(&u) {
                rev[n].push(u);
            }
        }
        let mut pdom = vec![vec![false; n]; n];
        for a in (0..n).filter(|&a| self.reachable[a]) {
            let without = search(n + 1, &[n], &rev, Some(a));
            for b in (0..n).filter(|&b| self.reachable[b]) {
                pdom[a][b] = b == a || !without[b];
            }
        }
        self.pdom_count = (0..n).map(|b| (0..n).filter(|&d| pdom[d][b]).count()).collect();
        self.pdom = pdom;
    }

    fn ix(&self, b: BlockId) -> Option<usize> {
        self.index.get(&b).copied()
    }

    pub fn blocks(&self) -> &[BlockId] {
        &self.blocks
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.ix(b).is_some_and(|i| self.reachable[i])
    }

    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        match (self.ix(a), self.ix(b)) {
            (Some(a), Some(b)) => self.dom[a][b],
            _ => false,
        }
    }

    /// The strict dominator dominated by every other strict dominator.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        let b = self.ix(b)?;
        let n = self.blocks.len();
        (0..n).filter(|&d| d != b && self.dom[d][b]).max_by_key(|&d| self.dom_count[d]).map(|d| self.blocks[d])
    }

    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        match (self.ix(a), self.ix(b)) {
            (Some(a), Some(b)) => self.pdom.get(a).is_some_and(|row| row[b]),
            _ => false,
        }
    }

    /// `None`: the virtual exit (or unreachable).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        let b = self.ix(b)?;
        if self.pdom.is_empty() {
            return None;
        }
        let n = self.blocks.len();
        (0..n).filter(|&d| d != b && self.pdom[d][b]).max_by_key(|&d| self.pdom_count[d]).map(|d| self.blocks[d])
    }

    pub fn virtual_exit_sources(&self) -> BTreeSet<BlockId> {
        self.virtual_sources.iter().map(|&i| self.blocks[i]).collect()
    }

    pub fn back_edges(&self) -> BTreeSet<(BlockId, BlockId)> {
        let mut out = BTreeSet::new();
        for u in (0..self.blocks.len()).filter(|&u| self.reachable[u]) {
            for &v in &self.succ[u] {
                if self.is_back(u, v) {
                    out.insert((self.blocks[u], self.blocks[v]));
                }
            }
        }
        out
    }

    pub fn dominance_frontier(&self, x: BlockId) -> BTreeSet<BlockId> {
        let Some(x) = self.ix(x) else {
            return BTreeSet::new();
        };
        let n = self.blocks.len();
        (0..n)
            .filter(|&y| self.reachable[y])
            .filter(|&y| {
                let strictly = x != y && self.dom[x][y];
                !strictly && self.pred[y].iter().any(|&p| self.reachable[p] && self.dom[x][p])
            })
            .map(|y| self.blocks[y])
            .collect()
    }

    pub fn post_dominance_frontier(&self, x: BlockId) -> BTreeSet<BlockId> {
        let Some(x) = self.ix(x) else {
            return BTreeSet::new();
        };
        if self.pdom.is_empty() {
            return BTreeSet::new();
        }
        let n = self.blocks.len();
        (0..n)
            .filter(|&y| self.reachable[y])
            .filter(|&y| {
                let strictly = x != y && self.pdom[x][y];
                !strictly && self.succ[y].iter().any(|&s| self.pdom[x][s])
            })
            .map(|y| self.blocks[y])
            .collect()
    }

    /// The nearest common dominator of a non-empty set of reachable blocks.
    pub fn common_dominator(&self, set: &[BlockId]) -> Option<BlockId> {
        let n = self.blocks.len();
        let idx: Vec<usize> = set.iter().map(|&b| self.ix(b)).collect::<Option<_>>()?;
        if idx.is_empty() || idx.iter().any(|&i| !self.reachable[i]) {
            return None;
        }
        (0..n)
            .filter(|&d| idx.iter().all(|&b| self.dom[d][b]))
            .max_by_key(|&d| self.dom_count[d])
            .map(|d| self.blocks[d])
    }

    /// The nearest common post-dominator; `None` is the virtual exit.
    pub fn common_post_dominator(&self, set: &[BlockId]) -> Option<BlockId> {
        let n = self.blocks.len();
        let idx: Vec<usize> = set.iter().map(|&b| self.ix(b)).collect::<Option<_>>()?;
        if idx.is_empty() || idx.iter().any(|&i| !self.reachable[i]) {
            return None;
        }
        if self.pdom.is_empty() {
            return None;
        }
        (0..n)
            .filter(|&d| idx.iter().all(|&b| self.pdom[d][b]))
            .max_by_key(|&d| self.pdom_count[d])
            .map(|d| self.blocks[d])
    }

    /// Loops in no particular order.
    pub fn loops(&self) -> &[OracleLoop] {
        &self.loops
    }
}
