//! Control-flow graphs and their analyses: one implementation of each, generic over the
//! graph, used by the structurizer on its working graph (`passes`) and by [`Cfg`] on an IR
//! function (the translator's input check, derivative hoisting, `untangle cfg`'s report and
//! the test kit).
//!
//! Every analysis reads a graph through the [`FlowGraph`] trait (entry, successors,
//! predecessors over a [`Node`] type: `ir::BlockId` for [`Graph`], the IR function's graph;
//! `passes::SBlock` for the structurizer's), and the batch algorithms run on a dense
//! snapshot of it ([`DenseGraph`]: nodes numbered in RPO, edges in compressed sparse rows).
//! The analyses are computed once and not updated: the structurizer's passes recompute what
//! they need after rewriting, and the selection pass patches its own region trees.
//!
//! | analysis | module | algorithm | cost | query |
//! | --- | --- | --- | --- | --- |
//! | RPO, post-order, retreating edges, reachability from the entry | [`order`] | iterative DFS (Tarjan 1972) | O(n + e) | O(1) |
//! | dominator tree | [`dominators`] | Lengauer–Tarjan, simple variant (TOPLAS 1979) + DFS interval labels | O(e log n) | `dominates` O(1) |
//! | post-dominator tree | [`postdom`] | the same on the reverse graph, with a virtual exit | O(e log n) | `post_dominates` O(1) |
//! | loops and nesting forest | [`loops`] | Havlak's union-find walk (TOPLAS 1997), reducible case | O((n + e) log n) | `contains` O(1) |
//! | reducibility, irreducible region | [`irreducible`] | retreating edges vs dominators (Hecht & Ullman 1974); Kosaraju SCCs | O(n + e) | — |
//! | (post-)dominance frontiers | [`frontiers`] | Cooper–Harvey–Kennedy runners, on demand | O(n + e + output) | — |
//!
//! **Invariants.**
//! - **Reducibility.** The loop forest and the post-dominator tree's infinite-loop handling
//!   assume a reducible graph: every retreating edge of a DFS goes to a node that dominates
//!   its source, so retreating edges are exactly back edges and the graph without them is
//!   acyclic. DXIL is reducible by validator rule; csmith-style LLVM may not be.
//!   [`Cfg::new`] and [`Cfg::check`] check, and return [`CfgError::Irreducible`] naming the
//!   entry blocks of an irreducible region.
//! - **Unreachable nodes** (no path from the entry) may exist in a graph (an IR function
//!   keeps them, so the report can list them), but no analysis includes them: they have no
//!   RPO position, no (post-)dominator, belong to no loop, and their edges into reachable
//!   nodes are ignored everywhere.
//! - **Parallel edges** (several terminator slots to one target) may be listed once or once
//!   per slot; every answer is the same either way.
//! - **Infinite loops** get virtual edges from their latches to the virtual exit, so that
//!   every reachable node has a post-dominator; see [`postdom`].
//! - **Deterministic.** Every order follows the graph's successor order; nothing depends on
//!   hashing or addresses.

pub mod dense;
pub mod dominators;
pub mod error;
pub mod flow;
pub mod frontiers;
pub mod function;
pub mod graph;
pub mod irreducible;
mod lengauer_tarjan;
pub mod loops;
pub mod order;
pub mod postdom;
pub mod report;
mod tree;

pub use dense::{Csr, DenseGraph};
pub use dominators::DomTree;
pub use error::CfgError;
pub use flow::{FlowGraph, Node};
pub use frontiers::Frontiers;
pub use function::Cfg;
pub use graph::Graph;
pub use loops::{Loop, LoopForest, LoopId};
pub use order::{DfsMark, Order};
pub use postdom::PostDomTree;
