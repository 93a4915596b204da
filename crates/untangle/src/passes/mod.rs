//! The structurizer: ordered CFG rewrites that turn any reducible CFG into SPIR-V structured
//! control flow (one file per pass), run by a small pass manager ([`manager`]).
//!
//! Entry point: [`structurize`]. Its result is an [`Scfg`] whose headers carry merge
//! annotations and whose PHIs were rebuilt by [`phi`]; the test kit's `check::structured`
//! verifies it against the SPIR-V rules and `crate::emit` turns it into SPIR-V. The passes
//! run in the order of [`PASSES`]; `--dump-cfg` (or [`Options::dump`]) receives the graph
//! after each.
//!
//! # The design reference's passes, and ours
//!
//! The structurizer of the reference translator (dxil-spirv, described in the blog series
//! "Why you should never write a DXIL to SPIR-V translator") works in stages named after
//! what they build. Each has a counterpart here, though the mechanism differs: our merge
//! choice is dominator-driven (Ramsey, "Beyond Relooper", ICFP 2022) and values travel as
//! variables on edges until one SSA repair at the end, so no stage duplicates code or
//! patches PHIs.
//!
//! | reference | here | how |
//! | --- | --- | --- |
//! | ladders (break ladders, "ladder blocks" of nested selection recovery) | [`loop_exit`], [`selection`] | a new merge block collects the edges leaving a construct and dispatches on a selector set on each edge: one rung per level |
//! | continue ladders | [`loop_continue`] | all latches branch to one continue block (or the single unconditional latch is kept); its PHI inputs stay on the edges |
//! | loop transposition ("rewrite transposed loops") | [`loop_exit`], with [`selection`]'s block constructs | code reached after a break never needs moving out of the loop: each loop gets one merge that dispatches to every break target, so that code runs after the loop by construction; deep break funnels (unrolled loops with interleaved breaks) become run-once block constructs |
//! | merge splitting ("split merge scopes/blocks", "duplicate impossible merges") | [`selection`], [`header_split`], [`edge_split`], [`loop_entry`] | a block several headers would merge at gets a merge block per header; a loop header needing a selection gets a tail; parallel edges with different values get a block; a loop header another construct would merge at gets an entry block (drivers reconverge there). Nothing is duplicated |
//! | PHI repair ("cleanup breaking PHI constructs") | [`phi`] | SSA construction (Braun et al., CC 2013) for every edge variable after the graph is final |
//! | block order and merge instructions | [`mark`] | structured reverse post-order, merge annotations written |
//!
//! # How the passes see the graph
//!
//! Every pass rewrites one [`Scfg`] through [`graph::Work`], which keeps predecessor lists
//! in step with each slot rewrite. The analyses are those of `crate::cfg`, run on the graph
//! as it is when a pass starts (`graph::ScfgView` is the graph they read): depth-first
//! orders (`loop_continue`, `loop_exit`, `mark`, `phi`), the dominator tree (`loop_exit`),
//! and the loop forest, which `loop_continue` builds once and keeps in [`plan::Plan::nest`]
//! as later passes add blocks. The selection pass analyses one region at a time (the body
//! of one loop, inner loops collapsed) and patches that region's dominator tree in place
//! after each rewrite, with `crate::cfg`'s depth-first search and Lengauer–Tarjan
//! underneath. [`Options::verify`] checks each of those incremental structures against a
//! recomputation.
//!
//! # Invariants and costs
//!
//! Input: a function with a body whose graph `crate::cfg::Cfg::check` accepts (reducible,
//! well-formed). Each pass states what it expects and guarantees in its module docs;
//! after the last, every loop has one back edge (from its continue target) and one merge,
//! every conditional branch and switch has a merge or needs none, no block is both a
//! loop header and a merge, parallel edges carry equal values, and the layout is a
//! structured order. Nothing is duplicated: every original block appears once, so
//! convergent operations keep their position.
//!
//! Every pass is near-linear on the shapes the benchmarks measure (`benches/structurize.rs`,
//! `tests/scaling_shapes.rs`: diamond chains, 10,000-deep loop nests, wide switches,
//! unrolled loops with interleaved breaks): the orders O(n + e), the dominator trees and
//! the loop forest O((n + e) log n), `loop_exit` O(e + n log n), `selection` O(sum of the
//! constructs it funnels) with block constructs where nesting would make that quadratic,
//! the others O(n + e). PHI repair is linear on those shapes; on deep break ladders with
//! many targets its walks overlap (see [`phi`]). A function of one block skips them all.

pub mod block_table;
#[cfg(feature = "dot")]
pub mod dot;
pub mod edge_split;
pub mod graph;
pub mod header_split;
pub mod inline;
pub mod labels;
pub mod loop_continue;
pub mod loop_entry;
pub mod loop_exit;
pub mod manager;
pub mod mark;
pub mod phi;
pub mod plan;
pub mod scfg;
pub mod selection;
pub mod spirv_term;
pub mod text;

pub use manager::{structurize, structurize_checked, DumpHook, Options, Stats, Structured, PASSES};
pub use plan::StructurizeError;
pub use scfg::{Block, EdgeDef, Merge, OrigKind, Origin, Phi, SBlock, Scfg, SyntheticKind, Term, Val, VarId, VarKind};
