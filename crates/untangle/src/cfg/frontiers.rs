//! Dominance and post-dominance frontiers.
//!
//! `DF(x)` is the set of blocks `y` such that `x` dominates a predecessor of `y` but does not
//! strictly dominate `y` (Cytron, Ferrante, Rosen, Wegman & Zadeck, "Efficiently computing
//! static single assignment form and the control dependence graph", TOPLAS 1991). Computed
//! with the "runner" walk of Cooper, Harvey & Kennedy, "A simple, fast dominance algorithm"
//! (2001): from each predecessor of `y`, walk up the dominator tree until reaching a strict
//! dominator of `y`, adding `y` to each frontier passed. The walk uses the O(1) `dominates`
//! of the tree, so it also handles the entry (whose only predecessors are back edges).
//! The post-dominance frontier is the same on the reverse graph: `PDF(x)` holds the blocks
//! `y` with a successor post-dominated by `x` while `x` does not strictly post-dominate `y`
//! (the control dependences of `x`). Virtual exit edges never add to a frontier.
//!
//! Cost O(n + e + Σ|DF|). Frontiers are derived on demand from the trees rather than kept
//! up to date across rewrites: they are cheap to derive, and their total size can be
//! quadratic (nested do-while loops), so storing them would make every rewrite pay for it.
//! Sets list blocks in RPO order of the frontier block.

use super::dominators::DomTree;
use super::flow::{FlowGraph, Node};
use super::order::Order;
use super::postdom::PostDomTree;
use cranelift_entity::SecondaryMap;

#[derive(Clone, Debug)]
pub struct Frontiers<N: Node = crate::ir::BlockId> {
    sets: SecondaryMap<N, Vec<N>>,
}

impl<N: Node> Frontiers<N> {
    /// Dominance frontiers of every node of `g`.
    pub fn dominance<G: FlowGraph<Node = N>>(g: &G, order: &Order<N>, dom: &DomTree<N>) -> Frontiers<N> {
        let mut sets: SecondaryMap<N, Vec<N>> = SecondaryMap::new();
        for &y in order.rpo() {
            for p in g.predecessors(y) {
                let start = Some(p).filter(|&p| order.is_reachable(p));
                run_up(&mut sets, y, start, |r| dom.strictly_dominates(r, y), |r| dom.idom(r));
            }
        }
        Frontiers { sets }
    }

    /// Post-dominance frontiers of every node of `g`.
    pub fn post_dominance<G: FlowGraph<Node = N>>(g: &G, order: &Order<N>, pdom: &PostDomTree<N>) -> Frontiers<N> {
        let mut sets: SecondaryMap<N, Vec<N>> = SecondaryMap::new();
        for &y in order.rpo() {
            for s in g.successors(y) {
                run_up(&mut sets, y, Some(s), |r| pdom.strictly_post_dominates(r, y), |r| pdom.ipdom(r));
            }
        }
        Frontiers { sets }
    }

    /// The frontier of `b` (empty for unreachable nodes).
    pub fn get(&self, b: N) -> &[N] {
        &self.sets[b]
    }
}

/// The runner walk: from `start` up the tree (`parent`) to the first node that strictly
/// (post-)dominates `y` (`stop`), adding `y` to the frontier of each node passed (once:
/// `y` is the last block added while it is being walked for).
fn run_up<N: Node>(
    sets: &mut SecondaryMap<N, Vec<N>>,
    y: N,
    start: Option<N>,
    stop: impl Fn(N) -> bool,
    parent: impl Fn(N) -> Option<N>,
) {
    let mut runner = start;
    while let Some(r) = runner {
        if stop(r) {
            break;
        }
        if sets[r].last() != Some(&y) {
            sets[r].push(y);
        }
        runner = parent(r);
    }
}
