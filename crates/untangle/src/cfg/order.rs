//! Depth-first orders: post-order, reverse post-order (RPO), and the retreating edges.
//!
//! One iterative depth-first search from the entry, visiting successors in terminator order
//! (Tarjan 1972, "Depth-first search and linear graph algorithms"; the RPO property used
//! everywhere below is from Hecht & Ullman 1974). An edge `u → v` is *retreating* when `v`
//! is still on the DFS stack; in a reducible graph the retreating edges are exactly the back
//! edges (`v` dominates `u`), for any DFS, which is how `Cfg` checks reducibility.
//!
//! Blocks the search never reaches are not in the order: every analysis ignores them
//! (see the module docs of `cfg`).
//!
//! After incremental rewrites the order is patched rather than recomputed: a new block is
//! placed between its sources and its target. It is then a topological order of the forward
//! graph (back edges removed) that starts at the entry, which is all the analyses rely on,
//! though no longer necessarily the RPO of one particular DFS.

use super::graph::Graph;
use crate::ir::BlockId;
use cranelift_entity::{EntityRef, SecondaryMap};

const NOT_VISITED: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Order {
    rpo: Vec<BlockId>,
    index: SecondaryMap<BlockId, u32>,
}

impl Default for Order {
    fn default() -> Self {
        Order { rpo: Vec::new(), index: SecondaryMap::with_default(NOT_VISITED) }
    }
}

impl Order {
    /// The RPO of `graph` and its retreating edges (in discovery order).
    pub fn compute(graph: &Graph) -> (Order, Vec<(BlockId, BlockId)>) {
        // Tables sized once to the graph (growing them per write cost more than the walk).
        let n = graph.blocks().iter().map(|b| b.index() + 1).max().unwrap_or(0);
        let mut on_stack: SecondaryMap<BlockId, bool> = SecondaryMap::new();
        on_stack.resize(n);
        let mut visited: SecondaryMap<BlockId, bool> = SecondaryMap::new();
        visited.resize(n);
        let mut post = Vec::with_capacity(graph.blocks().len());
        let mut retreating = Vec::new();
        let mut stack: Vec<(BlockId, usize)> = Vec::with_capacity(n);
        let entry = graph.entry();
        visited[entry] = true;
        on_stack[entry] = true;
        stack.push((entry, 0));
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            let succs = graph.succs(b);
            if next < succs.len() {
                top.1 += 1;
                let s = succs[next];
                if !visited[s] {
                    visited[s] = true;
                    on_stack[s] = true;
                    stack.push((s, 0));
                } else if on_stack[s] {
                    retreating.push((b, s));
                }
            } else {
                on_stack[b] = false;
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        let mut order = Order { rpo: post, index: SecondaryMap::with_default(NOT_VISITED) };
        order.index.resize(n);
        order.reindex_from(0);
        (order, retreating)
    }

    /// Reachable blocks in reverse post-order; `rpo()[0]` is the entry.
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Reachable blocks in post-order (successors before predecessors on forward edges).
    pub fn post_order(&self) -> impl DoubleEndedIterator<Item = BlockId> + ExactSizeIterator + '_ {
        self.rpo.iter().rev().copied()
    }

    /// Position in [`rpo`](Self::rpo), `None` for a block the entry does not reach.
    pub fn rpo_index(&self, b: BlockId) -> Option<u32> {
        let i = self.index[b];
        (i != NOT_VISITED).then_some(i)
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.index[b] != NOT_VISITED
    }

    pub fn len(&self) -> usize {
        self.rpo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rpo.is_empty()
    }

    fn reindex_from(&mut self, from: usize) {
        for (i, &b) in self.rpo.iter().enumerate().skip(from) {
            self.index[b] = i as u32;
        }
    }

    /// Places `b` at RPO position `at`, shifting later blocks: O(n) memmove and reindex.
    pub(crate) fn insert_at(&mut self, at: usize, b: BlockId) {
        self.rpo.insert(at, b);
        self.reindex_from(at);
    }

    pub(crate) fn remove(&mut self, b: BlockId) {
        if let Some(i) = self.rpo_index(b) {
            self.rpo.remove(i as usize);
            self.index[b] = NOT_VISITED;
            self.reindex_from(i as usize);
        }
    }
}
