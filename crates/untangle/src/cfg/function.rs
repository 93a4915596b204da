//! [`Cfg`]: an IR function's graph with every analysis of this module computed on it, for
//! the command line's report (`report.rs`), derivative hoisting and the test kit; and the
//! translator's input check ([`Cfg::check`]).

use super::dense::DenseGraph;
use super::dominators::DomTree;
use super::error::CfgError;
use super::frontiers::Frontiers;
use super::graph::Graph;
use super::irreducible::{irreducible_region, is_reducible};
use super::loops::{LoopForest, LoopId};
use super::order::Order;
use super::postdom::PostDomTree;
use crate::ir::{BlockId, Function};

/// The dominator tree of a dense snapshot, and the blocks of an irreducible region if the
/// graph is not reducible.
fn dominators(dense: &DenseGraph<'_, BlockId>) -> (DomTree, Option<Vec<BlockId>>) {
    let dom = DomTree::compute(dense);
    let irreducible = (!is_reducible(dense.order, &dom)).then(|| irreducible_region(dense, &dom));
    (dom, irreducible)
}

fn irreducible_error(func: &Function, blocks: &[BlockId]) -> CfgError {
    CfgError::Irreducible { function: func.name.clone(), blocks: blocks.iter().map(|&b| func.block_label(b)).collect() }
}

/// A function's control-flow graph and its analyses: the order, both dominator trees and
/// the loop forest. Frontiers, loop bodies and exits are derived on demand.
#[derive(Clone, Debug)]
pub struct Cfg {
    function: String,
    graph: Graph,
    order: Order<BlockId>,
    dom: DomTree,
    postdom: PostDomTree,
    loops: LoopForest<BlockId>,
}

impl Cfg {
    /// The graph of `func` with every analysis computed; fails on a declaration, a malformed
    /// layout or branch, and an irreducible graph (naming the entries of an irreducible
    /// region). O((n + e) log n).
    pub fn new(func: &Function) -> Result<Cfg, CfgError> {
        let graph = Graph::from_function(func)?;
        let order = Order::compute(&graph);
        let (dom, postdom, loops) = {
            let dense = DenseGraph::new(&graph, &order);
            let (dom, irreducible) = dominators(&dense);
            if let Some(blocks) = irreducible {
                return Err(irreducible_error(func, &blocks));
            }
            let loops = LoopForest::compute(&order, |b| graph.preds(b).iter().copied());
            let postdom = PostDomTree::compute(&dense, &loops);
            (dom, postdom, loops)
        };
        Ok(Cfg { function: func.name.clone(), graph, order, dom, postdom, loops })
    }

    /// What [`Cfg::new`] checks, with the same errors, without the analyses only a `Cfg`'s
    /// user reads (loops, post-dominators): the function has a body, its layout and branches
    /// name existing blocks, and its graph is reducible. The structurizer's input check;
    /// O((n + e) log n).
    pub fn check(func: &Function) -> Result<(), CfgError> {
        Cfg::check_keeping_dominators(func).0
    }

    /// [`Cfg::check`], keeping the dominator tree it computes on the way for a caller that
    /// needs both (the translator checks SSA dominance on the same function it then
    /// structurizes). The tree is there whenever the graph could be built, reducible or
    /// not; the same as [`DomTree::of_graph`] of [`Graph::from_function`].
    pub fn check_keeping_dominators(func: &Function) -> (Result<(), CfgError>, Option<DomTree>) {
        // One block that branches nowhere (most shaders): nothing to build a graph for.
        if let Some(b) = func.single_block() {
            return (Ok(()), Some(DomTree::single(b)));
        }
        let graph = match Graph::from_function(func) {
            Ok(graph) => graph,
            Err(e) => return (Err(e), None),
        };
        let order = Order::compute(&graph);
        if order.len() <= 1 {
            // One block (most shaders): reducible, its tree the block alone.
            return (Ok(()), Some(DomTree::of(&graph, &order)));
        }
        let (dom, irreducible) = dominators(&DenseGraph::new(&graph, &order));
        (irreducible.map_or(Ok(()), |blocks| Err(irreducible_error(func, &blocks))), Some(dom))
    }

    pub fn function_name(&self) -> &str {
        &self.function
    }

    // --- The graph ---

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn entry(&self) -> BlockId {
        self.graph.entry()
    }

    /// Every block (reachable or not) in IR layout order.
    pub fn blocks(&self) -> &[BlockId] {
        self.graph.blocks()
    }

    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.graph.succs(b)
    }

    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.graph.preds(b)
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.order.is_reachable(b)
    }

    /// Reachable blocks without successors (`ret`, `unreachable`), in RPO.
    pub fn exits(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.order.rpo().iter().copied().filter(|&b| self.graph.succs(b).is_empty())
    }

    // --- Orders and edges ---

    pub fn order(&self) -> &Order<BlockId> {
        &self.order
    }

    /// Reachable blocks in reverse post-order (a topological order of the forward graph).
    pub fn rpo(&self) -> &[BlockId] {
        self.order.rpo()
    }

    pub fn post_order(&self) -> impl DoubleEndedIterator<Item = BlockId> + '_ {
        self.order.post_order()
    }

    /// `from → to` is an edge whose target dominates its source. O(1).
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.dom.dominates(to, from) && self.graph.has_edge(from, to)
    }

    /// All back edges of reachable blocks, sources in RPO.
    pub fn back_edges(&self) -> impl Iterator<Item = (BlockId, BlockId)> + '_ {
        self.rpo().iter().flat_map(move |&b| {
            self.graph.succs(b).iter().filter(move |&&s| self.dom.dominates(s, b)).map(move |&s| (b, s))
        })
    }

    /// Successors along forward (non-back) edges.
    pub fn forward_succs(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.succs(b).iter().copied().filter(move |&s| !self.dom.dominates(s, b))
    }

    /// Reachable predecessors along forward (non-back) edges.
    pub fn forward_preds(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.preds(b).iter().copied().filter(move |&p| self.order.is_reachable(p) && !self.dom.dominates(b, p))
    }

    // --- Dominance ---

    pub fn dom(&self) -> &DomTree {
        &self.dom
    }

    pub fn postdom(&self) -> &PostDomTree {
        &self.postdom
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.dom.idom(b)
    }

    /// `None`: the virtual exit (or `b` unreachable).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.postdom.ipdom(b)
    }

    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.dominates(a, b)
    }

    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.strictly_dominates(a, b)
    }

    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.postdom.post_dominates(a, b)
    }

    pub fn strictly_post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.postdom.strictly_post_dominates(a, b)
    }

    pub fn common_dominator(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        self.dom.common_dominator(blocks)
    }

    pub fn common_post_dominator(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        self.postdom.common_post_dominator(blocks)
    }

    /// Dominance frontiers of every block, derived now: O(n + e + output).
    pub fn dominance_frontiers(&self) -> Frontiers {
        Frontiers::dominance(&self.graph, &self.order, &self.dom)
    }

    /// Post-dominance frontiers of every block, derived now: O(n + e + output).
    pub fn post_dominance_frontiers(&self) -> Frontiers {
        Frontiers::post_dominance(&self.graph, &self.order, &self.postdom)
    }

    // --- Loops ---

    pub fn loops(&self) -> &LoopForest<BlockId> {
        &self.loops
    }

    /// Every loop's body (nested loops included), by loop id, derived now: O(Σ body sizes).
    pub fn loop_bodies(&self) -> Vec<Vec<BlockId>> {
        self.loops.bodies(self.order.rpo())
    }

    /// Every loop's exits (blocks outside it with a predecessor inside), sorted, by loop id,
    /// derived now: O(e · loop depth).
    pub fn loop_exits(&self) -> Vec<Vec<BlockId>> {
        self.loops.exits(self.order.rpo(), |b| self.graph.succs(b).iter().copied())
    }

    /// The body of loop `l`, derived now: O(n).
    pub fn loop_body(&self, l: LoopId) -> Vec<BlockId> {
        self.order.rpo().iter().copied().filter(|&b| self.loops.contains(l, b)).collect()
    }
}
