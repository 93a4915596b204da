//! The dominator tree, with O(1) `dominates`.
//!
//! Built by Lengauer–Tarjan (`lengauer_tarjan`) over the reachable blocks, then
//! stored as a `LabelledTree` whose DFS interval labels answer `dominates(a, b)` with two
//! comparisons, at any graph size, and stay valid under the local rewrites of
//! `incremental.rs`. Blocks the entry does not reach are not in the tree: they have no
//! immediate dominator, dominate nothing and are dominated by nothing.

use super::dense::DenseGraph;
use super::lengauer_tarjan::{immediate_dominators, NONE};
use super::tree::LabelledTree;
use crate::ir::BlockId;

#[derive(Clone, Debug, Default)]
pub struct DomTree {
    pub(crate) tree: LabelledTree,
}

impl DomTree {
    /// The dominator tree of `graph` alone, without the other analyses of [`super::Cfg`]
    /// (which refuses irreducible graphs; this does not). O((n + e) log n).
    pub fn of_graph(graph: &super::Graph) -> DomTree {
        let (order, _) = super::Order::compute(graph);
        DomTree::compute(&DenseGraph::new(graph, &order))
    }

    pub(crate) fn compute(g: &DenseGraph) -> DomTree {
        if g.len() == 0 {
            return DomTree::default();
        }
        if g.len() == 1 {
            // Most shaders are one block: the tree is its root, without Lengauer–Tarjan's
            // tables.
            return DomTree { tree: LabelledTree::from_parents(std::iter::once((g.nodes[0], None))) };
        }
        let idom = immediate_dominators(0, &g.succ, &g.pred);
        // RPO lists every parent before its children.
        let pairs = (0..g.len()).map(|i| {
            let parent = (idom[i] != NONE).then(|| g.nodes[idom[i] as usize]);
            (g.nodes[i], parent)
        });
        DomTree { tree: LabelledTree::from_parents(pairs) }
    }

    /// The immediate dominator; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent(b)
    }

    /// `a` dominates `b` (reflexive). O(1). False when either block is unreachable.
    #[inline]
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.is_ancestor(a, b)
    }

    /// `a` dominates `b` and `a != b`. O(1).
    #[inline]
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.tree.is_ancestor(a, b)
    }

    /// Blocks whose immediate dominator is `b`.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.tree.children(b)
    }

    /// Whether `b` is in the tree (reachable from the entry).
    pub fn contains(&self, b: BlockId) -> bool {
        self.tree.contains(b)
    }

    /// The nearest block dominating every block of `blocks`; `None` for an empty set or
    /// one holding an unreachable block. O(Σ depth differences).
    pub fn common_dominator(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        self.tree.nca_of(blocks)
    }

    /// Reachable blocks, dominators before the blocks they dominate.
    pub fn preorder(&self) -> Vec<BlockId> {
        self.tree.preorder()
    }
}
