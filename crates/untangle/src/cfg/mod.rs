//! CFG view and analyses.
//!
//! [`Cfg`] is the graph of one function's blocks plus every analysis the structurizer
//! queries while it rewrites that graph, kept up to date by the rewrite methods
//! themselves. Queries are O(1) unless stated otherwise.
//!
//! | analysis | module | algorithm | query cost |
//! | --- | --- | --- | --- |
//! | successors, predecessors, exits | [`graph`] | adjacency lists | O(1) |
//! | post-order, RPO, back edges | [`order`] | iterative DFS | O(1) per edge |
//! | dominator tree | [`dominators`] | Lengauer–Tarjan + interval labels | `dominates` O(1) |
//! | post-dominator tree | [`postdom`] | the same on the reverse graph + virtual exit | `post_dominates` O(1) |
//! | (post-)dominance frontiers | [`frontiers`] | Cooper–Harvey–Kennedy runners, on demand | O(n + e + output) |
//! | acyclic reachability | [`reach`] | bit rows, or interval labels above 4096 blocks | `reaches` O(1) / O(log k) |
//! | loops and nesting forest | [`loops`] | Havlak's walk, reducible case | `contains` O(1) |
//!
//! **Reducibility.** DXIL is reducible by validator rule; csmith-style LLVM may not be.
//! [`Cfg::new`] checks, and returns [`CfgError::Irreducible`] naming the entry blocks of an
//! irreducible region. A back edge is an edge `u → v` where `v` dominates `u`; the forward
//! graph (all other edges) is then acyclic, and "reaches" is asked on it.
//!
//! **Unreachable blocks** (no path from the entry) are kept in the graph, with their edges,
//! so the structurizer can still see and delete them, but no analysis includes them: they
//! have no RPO index, no (post-)dominator, belong to no loop, reach and are reached by
//! nothing, and their edges into reachable blocks are ignored everywhere.
//!
//! **Infinite loops** get virtual edges from their latches to the virtual exit so that every
//! reachable block has a post-dominator; see [`postdom`].
//!
//! **Rewrites** are methods on `Cfg` that change the function and the analyses together;
//! see `incremental.rs` for which are patched in place and at what cost. After any
//! rewrite, [`Cfg::verify_against_recompute`] compares every analysis with a fresh
//! computation; the tests call it after every step.

pub mod dominators;
pub mod frontiers;
pub mod graph;
pub mod loops;
pub mod order;
pub mod postdom;
pub mod reach;
pub mod report;

pub(crate) mod dense;
mod incremental;
mod irreducible;
pub(crate) mod lengauer_tarjan;
mod span_pool;
mod tree;
mod verify;

pub use dominators::DomTree;
pub use frontiers::Frontiers;
pub use graph::Graph;
pub use loops::{Loop, LoopForest, LoopId};
pub use order::Order;
pub use postdom::PostDomTree;
pub use reach::{Reachability, DEFAULT_DENSE_LIMIT};
pub use verify::Mismatch;

use crate::ir::{BlockId, Function};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CfgError {
    /// A loop with more than one entry. `blocks` are the entry blocks of the first such
    /// region in RPO (all its blocks if it somehow has fewer than two entries).
    #[error("function `{function}`: irreducible control flow (a cycle entered at {})", .blocks.join(", "))]
    Irreducible { function: String, blocks: Vec<String> },
    #[error("function `{function}` is a declaration: it has no control-flow graph")]
    Declaration { function: String },
    #[error("function `{function}`: the layout lists block {block}, which does not exist")]
    UnknownBlock { function: String, block: u32 },
    #[error("function `{function}`, block `{block}`: branch to block {target}, which is not in the layout")]
    UnknownTarget { function: String, block: String, target: u32 },
    /// A rewrite named an edge the graph does not have.
    #[error("function `{function}`: no edge from `{from}` to `{to}`")]
    NoSuchEdge { function: String, from: String, to: String },
    /// A rewrite whose preconditions do not hold (documented on each rewrite method).
    #[error("function `{function}`: cannot {rewrite} at `{block}`: {reason}")]
    InvalidRewrite { function: String, rewrite: &'static str, block: String, reason: &'static str },
    /// Removing a pass-through block would give a PHI two values for one predecessor.
    #[error("function `{function}`: PHI in `{block}` would need two values for predecessor `{pred}`")]
    PhiConflict { function: String, block: String, pred: String },
}

/// Knobs of [`Cfg`]; the defaults suit the structurizer.
#[derive(Copy, Clone, Debug)]
pub struct CfgOptions {
    /// Largest number of reachable blocks for which reachability uses dense bit rows.
    pub dense_reach_limit: usize,
    /// In debug builds, check every rewrite with `verify_against_recompute` and panic on a
    /// mismatch (an internal bug, never bad input). Slow: O(n²) per rewrite.
    pub verify_rewrites: bool,
}

impl Default for CfgOptions {
    fn default() -> Self {
        CfgOptions { dense_reach_limit: DEFAULT_DENSE_LIMIT, verify_rewrites: false }
    }
}

/// How the analyses were brought up to date by rewrites so far.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Rewrites whose every analysis was patched in place.
    pub incremental: u64,
    /// Rewrites after which at least one analysis was recomputed.
    pub recomputed: u64,
}

/// Everything derived from the graph.
#[derive(Clone, Debug)]
pub(crate) struct Analyses {
    pub order: Order,
    pub dom: DomTree,
    pub postdom: PostDomTree,
    pub loops: LoopForest,
    pub reach: Reachability,
}

impl Analyses {
    /// Computes every analysis; `Err` holds the blocks of an irreducible region.
    pub(crate) fn compute(graph: &Graph, options: &CfgOptions) -> Result<Analyses, Vec<BlockId>> {
        let (order, dense, dom) = Analyses::reducible(graph)?;
        let loops = LoopForest::compute(graph, &order, &dom);
        let postdom = PostDomTree::compute(&dense, &loops);
        let reach = Reachability::compute(graph, &order, &dom, options.dense_reach_limit);
        Ok(Analyses { order, dom, postdom, loops, reach })
    }

    /// The order and dominator tree, once the graph is known to be reducible (every
    /// retreating edge goes to a block that dominates its source).
    fn reducible(graph: &Graph) -> Result<(Order, dense::DenseGraph, DomTree), Vec<BlockId>> {
        let (order, dense, dom, irreducible) = Analyses::dominators(graph);
        match irreducible {
            Some(blocks) => Err(blocks),
            None => Ok((order, dense, dom)),
        }
    }

    /// The order and dominator tree of any graph, and the blocks of an irreducible region
    /// if the graph is not reducible.
    fn dominators(graph: &Graph) -> (Order, dense::DenseGraph, DomTree, Option<Vec<BlockId>>) {
        let (order, retreating) = Order::compute(graph);
        let dense = dense::DenseGraph::new(graph, &order);
        let dom = DomTree::compute(&dense);
        let irreducible = retreating
            .iter()
            .any(|&(u, v)| !dom.dominates(v, u))
            .then(|| irreducible::irreducible_region(&dense, &dom));
        (order, dense, dom, irreducible)
    }
}

/// A function's control-flow graph and its analyses, kept consistent across rewrites.
#[derive(Clone, Debug)]
pub struct Cfg {
    function: String,
    options: CfgOptions,
    graph: Graph,
    a: Analyses,
    stats: UpdateStats,
}

pub(crate) fn irreducible_error(func: &Function, blocks: &[BlockId]) -> CfgError {
    CfgError::Irreducible { function: func.name.clone(), blocks: blocks.iter().map(|&b| func.block_label(b)).collect() }
}

impl Cfg {
    /// The graph of `func` with every analysis computed. O((n + e) log n), plus n²/64 words
    /// for dense reachability at most 4096 blocks.
    pub fn new(func: &Function) -> Result<Cfg, CfgError> {
        Cfg::with_options(func, CfgOptions::default())
    }

    /// What [`Cfg::new`] checks, with the same errors, without the analyses only a `Cfg`'s
    /// user reads (loops, post-dominators, reachability): the function has a body, its
    /// layout and branches name existing blocks, and its graph is reducible. The
    /// structurizer's input check; O((n + e) log n).
    pub fn check(func: &Function) -> Result<(), CfgError> {
        let graph = Graph::from_function(func)?;
        Analyses::reducible(&graph).map(|_| ()).map_err(|blocks| irreducible_error(func, &blocks))
    }

    /// [`Cfg::check`], keeping the dominator tree it computes on the way for a caller that
    /// needs both (the translator checks SSA dominance on the same function it then
    /// structurizes). The tree is there whenever the graph could be built, reducible or
    /// not; the same as [`DomTree::of_graph`] of [`Graph::from_function`].
    pub fn check_keeping_dominators(func: &Function) -> (Result<(), CfgError>, Option<DomTree>) {
        let graph = match Graph::from_function(func) {
            Ok(graph) => graph,
            Err(e) => return (Err(e), None),
        };
        let (_, _, dom, irreducible) = Analyses::dominators(&graph);
        (irreducible.map_or(Ok(()), |blocks| Err(irreducible_error(func, &blocks))), Some(dom))
    }

    pub fn with_options(func: &Function, options: CfgOptions) -> Result<Cfg, CfgError> {
        let graph = Graph::from_function(func)?;
        let a = Analyses::compute(&graph, &options).map_err(|blocks| irreducible_error(func, &blocks))?;
        Ok(Cfg { function: func.name.clone(), options, graph, a, stats: UpdateStats::default() })
    }

    pub fn function_name(&self) -> &str {
        &self.function
    }

    pub fn options(&self) -> &CfgOptions {
        &self.options
    }

    pub fn stats(&self) -> UpdateStats {
        self.stats
    }

    // --- The graph ---

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn entry(&self) -> BlockId {
        self.graph.entry()
    }

    /// Every block (reachable or not) in IR layout order, then blocks added by rewrites.
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
        self.a.order.is_reachable(b)
    }

    /// Reachable blocks without successors (`ret`, `unreachable`), in RPO.
    pub fn exits(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.a.order.rpo().iter().copied().filter(|&b| self.graph.succs(b).is_empty())
    }

    // --- Orders and edges ---

    pub fn order(&self) -> &Order {
        &self.a.order
    }

    /// Reachable blocks in reverse post-order (a topological order of the forward graph).
    pub fn rpo(&self) -> &[BlockId] {
        self.a.order.rpo()
    }

    pub fn post_order(&self) -> impl DoubleEndedIterator<Item = BlockId> + '_ {
        self.a.order.post_order()
    }

    /// `from → to` is an edge whose target dominates its source. O(1).
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.a.dom.dominates(to, from) && self.graph.has_edge(from, to)
    }

    /// All back edges of reachable blocks, sources in RPO.
    pub fn back_edges(&self) -> impl Iterator<Item = (BlockId, BlockId)> + '_ {
        self.rpo().iter().flat_map(move |&b| {
            self.graph.succs(b).iter().filter(move |&&s| self.a.dom.dominates(s, b)).map(move |&s| (b, s))
        })
    }

    /// Successors along forward (non-back) edges.
    pub fn forward_succs(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        reach::forward_succs(&self.graph, &self.a.dom, b)
    }

    /// Reachable predecessors along forward (non-back) edges.
    pub fn forward_preds(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.graph
            .preds(b)
            .iter()
            .copied()
            .filter(move |&p| self.a.order.is_reachable(p) && !self.a.dom.dominates(b, p))
    }

    // --- Dominance ---

    pub fn dom(&self) -> &DomTree {
        &self.a.dom
    }

    pub fn postdom(&self) -> &PostDomTree {
        &self.a.postdom
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.a.dom.idom(b)
    }

    /// `None`: the virtual exit (or `b` unreachable).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.a.postdom.ipdom(b)
    }

    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.a.dom.dominates(a, b)
    }

    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.a.dom.strictly_dominates(a, b)
    }

    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.a.postdom.post_dominates(a, b)
    }

    pub fn strictly_post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.a.postdom.strictly_post_dominates(a, b)
    }

    pub fn common_dominator(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        self.a.dom.common_dominator(blocks)
    }

    pub fn common_post_dominator(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        self.a.postdom.common_post_dominator(blocks)
    }

    /// Dominance frontiers of every block, derived now: O(n + e + output).
    pub fn dominance_frontiers(&self) -> Frontiers {
        Frontiers::dominance(&self.graph, &self.a.order, &self.a.dom)
    }

    /// Post-dominance frontiers of every block, derived now: O(n + e + output).
    pub fn post_dominance_frontiers(&self) -> Frontiers {
        Frontiers::post_dominance(&self.graph, &self.a.order, &self.a.postdom)
    }

    // --- Reachability ---

    pub fn reach(&self) -> &Reachability {
        &self.a.reach
    }

    /// `a` reaches `b` in the forward (acyclic) graph; reflexive.
    pub fn reaches(&self, a: BlockId, b: BlockId) -> bool {
        self.a.reach.reaches(a, b)
    }

    /// A forward path from `from` to `to` that does not pass through `avoid` (so false if
    /// `avoid` is either end). O(1) when `avoid` is not between them; otherwise a DFS from
    /// `from` pruned to blocks that reach `to`, O(n + e) worst case.
    pub fn reaches_avoiding(&self, from: BlockId, to: BlockId, avoid: BlockId) -> bool {
        if from == avoid || to == avoid || !self.reaches(from, to) {
            return false;
        }
        if !self.reaches(from, avoid) || !self.reaches(avoid, to) {
            return true;
        }
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![from];
        seen.insert(from);
        while let Some(b) = stack.pop() {
            if b == to {
                return true;
            }
            for s in self.forward_succs(b) {
                if s != avoid && self.reaches(s, to) && seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        false
    }

    // --- Loops ---

    pub fn loops(&self) -> &LoopForest {
        &self.a.loops
    }
}
