//! The dominator tree, with O(1) `dominates`.
//!
//! Immediate dominators by Lengauer–Tarjan (`lengauer_tarjan`) over the reachable nodes in
//! dense form, stored as a tree (`tree.rs`) whose DFS interval labels answer `dominates(a, b)` with
//! two comparisons at any graph size. Nodes the entry does not reach are not in the tree:
//! they have no immediate dominator, dominate nothing and are dominated by nothing.
//!
//! [`idoms_in_rpo`] is the same computation for a caller that numbers its nodes itself
//! (the selection pass, which keeps and patches the tree of one region at a time).

use super::dense::{Csr, DenseGraph};
use super::flow::{FlowGraph, Node};
use super::lengauer_tarjan::{immediate_dominators, NONE};
use super::order::Order;
use super::tree::{relation_queries, Tree};

#[derive(Clone, Debug)]
pub struct DomTree<N: Node = crate::ir::BlockId> {
    tree: Tree<N>,
}

impl<N: Node> Default for DomTree<N> {
    fn default() -> Self {
        DomTree { tree: Tree::default() }
    }
}

impl DomTree<crate::ir::BlockId> {
    /// The dominator tree of an IR function's graph alone, reducible or not. O((n + e) log n).
    pub fn of_graph(graph: &super::graph::Graph) -> DomTree {
        DomTree::of(graph, &Order::compute(graph))
    }
}

impl<N: Node> DomTree<N> {
    /// The dominator tree of a graph of one node and no edges: the node alone.
    pub fn single(root: N) -> DomTree<N> {
        DomTree { tree: Tree::from_parents(std::iter::once((root, None))) }
    }

    /// The dominator tree of `g`, whose depth-first order is `order`. O((n + e) log n).
    pub fn of<G: FlowGraph<Node = N>>(g: &G, order: &Order<N>) -> DomTree<N> {
        if order.len() <= 1 {
            // Most shaders are one block: the tree is its root, without a dense snapshot.
            return DomTree { tree: Tree::from_parents(order.rpo().iter().map(|&b| (b, None))) };
        }
        DomTree::compute(&DenseGraph::new(g, order))
    }

    /// The dominator tree of a dense snapshot.
    pub fn compute(g: &DenseGraph<'_, N>) -> DomTree<N> {
        let rpo = g.order.rpo();
        if rpo.len() <= 1 {
            return DomTree { tree: Tree::from_parents(rpo.iter().map(|&b| (b, None))) };
        }
        let idom = immediate_dominators(0, &g.succ, &g.pred);
        // RPO lists every parent before its children.
        let pairs = (0..rpo.len()).map(|i| (rpo[i], (idom[i] != NONE).then(|| rpo[idom[i] as usize])));
        DomTree { tree: Tree::from_parents(pairs) }
    }

    relation_queries!("dominator", "dominates", "the entry": idom, dominates, strictly_dominates, children, common_dominator);

    /// Reachable nodes, dominators before the nodes they dominate.
    pub fn preorder(&self) -> Vec<N> {
        self.tree.preorder()
    }
}

/// Immediate dominators of a graph whose nodes are numbered `0..n` in reverse post-order
/// from node 0, given each node's predecessors (`preds(i, row)` appends those of node `i`):
/// `idom[i]`, with `idom[0] == 0`. Lengauer–Tarjan, as for [`DomTree`]: Cooper–Harvey–
/// Kennedy's intersect walks are quadratic on deep trees with wide joins (a break target
/// shared by every step of a long chain), which the structurizer meets on unrolled loops.
pub fn idoms_in_rpo(n: usize, preds: impl FnMut(usize, &mut Vec<u32>)) -> Vec<u32> {
    let pred_csr = Csr::from_rows(n, preds);
    let succ_csr = pred_csr.transpose();
    let mut idom = immediate_dominators(0, &succ_csr, &pred_csr);
    if let Some(root) = idom.first_mut() {
        *root = 0;
    }
    idom
}
