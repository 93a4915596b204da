//! Depth-first orders: reverse post-order (RPO), post-order, and the retreating edges.
//!
//! One iterative depth-first search from the entry, visiting successors in the order the
//! graph gives them (Tarjan 1972, "Depth-first search and linear graph algorithms"; the RPO
//! property used everywhere is from Hecht & Ullman 1974). An edge `u → v` is *retreating*
//! when `v` is still on the DFS stack; in a reducible graph the retreating edges are exactly
//! the back edges (`v` dominates `u`), for any DFS, which is how `Cfg` checks reducibility
//! and how the loop forest finds its headers. Parallel edges are reported once per slot.
//!
//! Blocks the search never reaches are not in the order: every analysis ignores them. This
//! is also the one answer to "does the entry reach `b`" ([`Order::is_reachable`]).
//!
//! [`depth_first`] is the search itself, over any successor function and with the caller's
//! mark table (the selection pass searches one region at a time with a table it clears in
//! O(1)); [`Order`] is its result with an index, for a whole graph. O(n + e) either way.

use super::flow::{FlowGraph, Node};
use cranelift_entity::SecondaryMap;
use std::ops::IndexMut;

/// "Not reached" in [`Order`]'s index.
const NOT_VISITED: u32 = u32::MAX;

/// A node's state during [`depth_first`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum DfsMark {
    #[default]
    New,
    OnStack,
    Done,
}

/// Reverse post-order from `entry` over `succs` (explored in the order given), and the
/// retreating edges in discovery order. `marks` must read `New` for every node (a fresh or
/// cleared table); it is left marked. O(nodes reached + their edges).
pub fn depth_first<N, F, I, M>(entry: N, mut succs: F, marks: &mut M) -> (Vec<N>, Vec<(N, N)>)
where
    N: Node,
    F: FnMut(N) -> I,
    I: IntoIterator<Item = N>,
    M: IndexMut<N, Output = DfsMark> + ?Sized,
{
    // Sized for the small graphs most calls see (one allocation each instead of several
    // regrowths); larger ones grow as needed. Each stack entry holds its node's successor
    // iterator, read one successor at a time: no list is copied.
    let mut post: Vec<N> = Vec::with_capacity(32);
    let mut retreating = Vec::new();
    let mut stack: Vec<(N, I::IntoIter)> = Vec::with_capacity(16);
    marks[entry] = DfsMark::OnStack;
    stack.push((entry, succs(entry).into_iter()));
    while let Some((from, next)) = stack.last_mut() {
        match next.next() {
            Some(s) => {
                let from = *from;
                match marks[s] {
                    DfsMark::New => {
                        marks[s] = DfsMark::OnStack;
                        stack.push((s, succs(s).into_iter()));
                    }
                    DfsMark::OnStack => retreating.push((from, s)),
                    DfsMark::Done => {}
                }
            }
            None => {
                let b = *from;
                stack.pop();
                marks[b] = DfsMark::Done;
                post.push(b);
            }
        }
    }
    post.reverse();
    (post, retreating)
}

/// The reachable nodes of a graph in reverse post-order, with each one's position and the
/// retreating edges.
#[derive(Clone, Debug)]
pub struct Order<N: Node> {
    rpo: Vec<N>,
    index: SecondaryMap<N, u32>,
    retreating: Vec<(N, N)>,
}

impl<N: Node> Default for Order<N> {
    fn default() -> Self {
        Order { rpo: Vec::new(), index: SecondaryMap::with_default(NOT_VISITED), retreating: Vec::new() }
    }
}

impl<N: Node> Order<N> {
    /// The depth-first order of `g` from its entry.
    pub fn compute<G: FlowGraph<Node = N>>(g: &G) -> Order<N> {
        Order::with_successors(g.entry(), g.node_bound(), |b| g.successors(b))
    }

    /// The depth-first order from `entry` over `succs` (a graph with extra or fewer edges
    /// than some `FlowGraph`, such as the marking pass's virtual edges). `bound` sizes the
    /// tables once (0: grown as needed).
    pub fn with_successors<F, I>(entry: N, bound: usize, succs: F) -> Order<N>
    where
        F: FnMut(N) -> I,
        I: IntoIterator<Item = N>,
    {
        let mut marks: SecondaryMap<N, DfsMark> = SecondaryMap::new();
        marks.resize(bound);
        let (rpo, retreating) = depth_first(entry, succs, &mut marks);
        let mut index = SecondaryMap::with_default(NOT_VISITED);
        // Sized once (nodes come in RPO, not index order: growing per write costs more).
        index.resize(if bound > 0 { bound } else { rpo.iter().map(|b| b.index() + 1).max().unwrap_or(0) });
        for (i, &b) in rpo.iter().enumerate() {
            index[b] = i as u32;
        }
        Order { rpo, index, retreating }
    }

    /// Reachable nodes in reverse post-order; `rpo()[0]` is the entry.
    pub fn rpo(&self) -> &[N] {
        &self.rpo
    }

    /// The order's node list, given up.
    pub fn into_rpo(self) -> Vec<N> {
        self.rpo
    }

    /// Reachable nodes in post-order (successors before predecessors on forward edges).
    pub fn post_order(&self) -> impl DoubleEndedIterator<Item = N> + ExactSizeIterator + '_ {
        self.rpo.iter().rev().copied()
    }

    /// Position in [`rpo`](Self::rpo), `None` for a node the entry does not reach.
    pub fn rpo_index(&self, b: N) -> Option<u32> {
        let i = self.index[b];
        (i != NOT_VISITED).then_some(i)
    }

    /// Position in [`rpo`](Self::rpo), `u32::MAX` for a node the entry does not reach (a
    /// sort key that puts such nodes last).
    pub fn rank(&self, b: N) -> u32 {
        self.index[b]
    }

    pub fn is_reachable(&self, b: N) -> bool {
        self.index[b] != NOT_VISITED
    }

    /// Edges to a node on the DFS stack, in discovery order, once per parallel edge: the
    /// back edges when the graph is reducible.
    pub fn retreating_edges(&self) -> &[(N, N)] {
        &self.retreating
    }

    pub fn len(&self) -> usize {
        self.rpo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rpo.is_empty()
    }
}
