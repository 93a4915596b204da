//! SSA repair after the structurizer's rewrites.
//!
//! The passes keep values as *variables* defined on edges (`passes::scfg`): each original
//! edge into a block with PHIs defines that block's `IncomingBlock` variable, and each
//! ladder rung defines its selector. After the graph is final, [`repair`] builds SSA form
//! for every variable: for each read (a block entry), it walks backwards until every path
//! ends at a definition or the entry, places a PHI at every block on those paths with
//! several predecessors, and then removes trivial PHIs (all inputs equal, or the PHI
//! itself), as in Braun et al., "Simple and Efficient Construction of Static Single
//! Assignment Form" (CC 2013). A path with no definition gives `Undef`; it is one the
//! program never takes (a ladder rung's other branch), and the trace oracle checks that no
//! undefined value is ever used. No `Function` variable is needed: every value stays SSA.
//!
//! Cost: per variable, the blocks of its backward walk (from its reads to its definitions,
//! or to the entry on paths that have none), plus their edges. Linear on the benchmark
//! shapes (diamond chains, loop nests, wide switches, unrolled loops: BENCHMARKS.md,
//! "Scaling"); on deep break ladders with many targets (large random functions) the walks
//! overlap and the cost, like the number of PHIs, grows as blocks × ladder depth.

mod ssa;

pub use ssa::{repair, PhiError};
