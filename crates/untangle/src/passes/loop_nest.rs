//! The loops of the structurizer's graph as a nesting forest: [`LoopNest`].
//!
//! A loop is a natural loop (Aho, Sethi & Ullman, *Compilers*, §10.4): a header with back
//! edges into it, and every block that reaches one of their sources without passing the
//! header. On a reducible graph two such bodies are disjoint or nested, so the loops form a
//! forest, and a body is stored by giving each block its *innermost* loop: `b` is in the
//! body of `l` when `l` is the innermost loop of `b` or encloses it, an O(1) test on DFS
//! interval labels of the forest. Nothing is enumerated per loop, so deep nests cost the
//! same as flat code (a 10,000-deep nest was quadratic when every body was a list).
//!
//! Built by `loop_continue` with one backward walk per header, inner loops first, that
//! jumps over the loops already built through a union-find on loop ids: Havlak, "Nesting
//! of reducible and irreducible loops" (TOPLAS 1997), reducible case (LLVM's `LoopInfo`
//! walk; `crate::cfg::loops` is the same on the input CFG). O((n + e) log n) with path
//! compression, plus sorting the loops.
//!
//! Invariants, kept by the passes that add blocks (through [`LoopNest::set_innermost`]):
//! - loop indices are positions in `Plan::loops`, outermost first;
//! - a continue block `loop_continue` adds belongs to its loop; a merge block `loop_exit`
//!   adds belongs to the parent of the loop it ends (an inner loop's merge belongs to the
//!   enclosing loop even when it cannot reach the back edge); a header tail
//!   (`header_split`) belongs to its header's loop;
//! - the selection pass reads the nest once, as its region map, and maintains that map
//!   itself from then on (block constructs are not entered here).
//!
//! With these, membership equals the walk-based definition `graph::planned_loop_body` at
//! every point where `loop_exit` and `selection` read it; `selection::VERIFY_INCREMENTAL`
//! makes both passes check that.

use super::graph::{Dfs, NaturalLoop, Preds};
use super::scfg::SBlock;
use cranelift_entity::SecondaryMap;
use std::collections::HashSet;

/// "No loop" in [`LoopNest::innermost`]'s table.
const NONE: u32 = u32::MAX;

/// Each block's innermost loop and the loops' nesting (module docs).
#[derive(Clone, Debug)]
pub struct LoopNest {
    /// Index in `Plan::loops` of each block's innermost loop, [`NONE`] outside all loops.
    innermost: SecondaryMap<SBlock, u32>,
    parent: Vec<Option<usize>>,
    /// Interval labels: `l` encloses `k` iff `pre[l] <= pre[k] && post[k] <= post[l]`.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Default for LoopNest {
    fn default() -> Self {
        LoopNest { innermost: SecondaryMap::with_default(NONE), parent: Vec::new(), pre: Vec::new(), post: Vec::new() }
    }
}

impl LoopNest {
    /// The natural loops of the reachable graph (`preds` and `dfs` of the same graph, which
    /// must be reducible) in plan order: a loop before every loop nested in it (larger
    /// bodies first, ties by header RPO position), and their nest.
    pub fn compute(preds: &Preds, dfs: &Dfs) -> (Vec<NaturalLoop>, LoopNest) {
        // Headers and their latches, in the order the DFS found the back edges.
        let mut id_of_header: SecondaryMap<SBlock, u32> = SecondaryMap::with_default(NONE);
        let mut found: Vec<(SBlock, Vec<SBlock>)> = Vec::new();
        let mut seen_edges: HashSet<(SBlock, SBlock)> = HashSet::new();
        for &(from, to) in &dfs.back_edges {
            let id = match id_of_header[to] {
                NONE => {
                    id_of_header[to] = found.len() as u32;
                    found.push((to, Vec::new()));
                    found.len() - 1
                }
                id => id as usize,
            };
            if seen_edges.insert((from, to)) {
                found[id].1.push(from);
            }
        }
        // Inner loops first: an enclosing header dominates, so precedes, an inner one in RPO.
        let mut inner_first: Vec<usize> = (0..found.len()).collect();
        inner_first.sort_by_key(|&id| std::cmp::Reverse(dfs.rpo_index[found[id].0]));
        let mut innermost: SecondaryMap<SBlock, u32> = SecondaryMap::with_default(NONE);
        let mut parent: Vec<Option<usize>> = vec![None; found.len()];
        let mut own: Vec<usize> = vec![0; found.len()];
        // Union-find over loop ids: `outer[l]` leads to the outermost loop built so far
        // that contains `l`.
        let mut outer: Vec<u32> = (0..found.len() as u32).collect();
        let mut work: Vec<SBlock> = Vec::new();
        for &id in &inner_first {
            let h = found[id].0;
            innermost[h] = id as u32;
            own[id] += 1;
            work.extend(found[id].1.iter().copied());
            while let Some(x) = work.pop() {
                if x == h {
                    continue;
                }
                match innermost[x] {
                    NONE => {
                        innermost[x] = id as u32;
                        own[id] += 1;
                        work.extend(preds.slots_into(x).iter().copied().filter(|&p| dfs.reachable(p)));
                    }
                    inner => {
                        let top = find(&mut outer, inner) as usize;
                        if top == id {
                            continue;
                        }
                        outer[top] = id as u32;
                        parent[top] = Some(id);
                        // Predecessors inside the inner loop resolve to `id` now and stop.
                        let th = found[top].0;
                        work.extend(preds.slots_into(th).iter().copied().filter(|&p| dfs.reachable(p)));
                    }
                }
            }
        }
        let mut size = own;
        for &id in &inner_first {
            if let Some(p) = parent[id] {
                size[p] += size[id];
            }
        }
        // Plan order: outer loops have larger bodies; ties cannot nest.
        let mut order: Vec<usize> = (0..found.len()).collect();
        order.sort_by_key(|&id| (std::cmp::Reverse(size[id]), dfs.rpo_index[found[id].0]));
        let mut position = vec![0u32; found.len()];
        for (i, &id) in order.iter().enumerate() {
            position[id] = i as u32;
        }
        for &b in &dfs.rpo {
            if innermost[b] != NONE {
                innermost[b] = position[innermost[b] as usize];
            }
        }
        let parent: Vec<Option<usize>> = order.iter().map(|&id| parent[id].map(|p| position[p] as usize)).collect();
        let mut loops = Vec::with_capacity(found.len());
        let mut found: Vec<Option<(SBlock, Vec<SBlock>)>> = found.into_iter().map(Some).collect();
        for &id in &order {
            let (header, latches) = found[id].take().expect("each loop once");
            loops.push(NaturalLoop { header, latches, body_size: size[id] });
        }
        let mut nest = LoopNest { innermost, parent, pre: Vec::new(), post: Vec::new() };
        nest.label();
        (loops, nest)
    }

    /// Interval labels by a DFS of the forest.
    fn label(&mut self) {
        let n = self.parent.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for l in 0..n {
            match self.parent[l] {
                Some(p) => children[p].push(l),
                None => roots.push(l),
            }
        }
        self.pre = vec![0; n];
        self.post = vec![0; n];
        let mut next = 0u32;
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for r in roots {
            self.pre[r] = next;
            next += 1;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (l, i) = *top;
                if let Some(&c) = children[l].get(i) {
                    top.1 += 1;
                    self.pre[c] = next;
                    next += 1;
                    stack.push((c, 0));
                } else {
                    self.post[l] = next;
                    next += 1;
                    stack.pop();
                }
            }
        }
    }

    /// Number of loops in the nest.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The innermost loop whose body holds `b`.
    pub fn innermost(&self, b: SBlock) -> Option<usize> {
        match self.innermost[b] {
            NONE => None,
            l => Some(l as usize),
        }
    }

    /// Records the innermost loop of a block a pass added.
    pub fn set_innermost(&mut self, b: SBlock, l: Option<usize>) {
        self.innermost[b] = l.map_or(NONE, |l| l as u32);
    }

    /// The loop directly enclosing loop `l`.
    pub fn parent(&self, l: usize) -> Option<usize> {
        self.parent[l]
    }

    /// `outer` is `inner` or encloses it. O(1).
    pub fn encloses(&self, outer: usize, inner: usize) -> bool {
        self.pre[outer] <= self.pre[inner] && self.post[inner] <= self.post[outer]
    }

    /// `b` is in the body of loop `l` (nested loops included). O(1).
    pub fn contains(&self, l: usize, b: SBlock) -> bool {
        self.innermost(b).is_some_and(|m| self.encloses(l, m))
    }

    /// The blocks of `blocks` whose innermost loop is each loop, by loop, in the order given.
    pub fn own_blocks(&self, blocks: &[SBlock]) -> Vec<Vec<SBlock>> {
        let mut own = vec![Vec::new(); self.len()];
        for &b in blocks {
            if let Some(l) = self.innermost(b) {
                own[l].push(b);
            }
        }
        own
    }

    /// How many of `blocks` each loop's body holds, nested loops included.
    pub fn body_sizes(&self, blocks: &[SBlock]) -> Vec<usize> {
        let mut size = vec![0usize; self.len()];
        for &b in blocks {
            if let Some(l) = self.innermost(b) {
                size[l] += 1;
            }
        }
        // Plan order puts a loop before the loops nested in it: add inner sizes outwards.
        for l in (0..self.len()).rev() {
            if let Some(p) = self.parent[l] {
                size[p] += size[l];
            }
        }
        size
    }
}

/// Union-find root of `l`, compressing the path.
fn find(outer: &mut [u32], l: u32) -> u32 {
    let mut root = l;
    while outer[root as usize] != root {
        root = outer[root as usize];
    }
    let mut x = l;
    while outer[x as usize] != root {
        let next = outer[x as usize];
        outer[x as usize] = root;
        x = next;
    }
    root
}
