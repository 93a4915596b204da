//! What the passes decided about constructs, applied by the marking pass.

use super::loop_nest::LoopNest;
use super::scfg::SBlock;

/// A loop construct: header, its single continue target and its merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopPlan {
    pub header: SBlock,
    pub continue_target: SBlock,
    /// Set by the loop-exit pass.
    pub merge: Option<SBlock>,
}

/// Decisions shared between passes.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Outermost first (a loop precedes every loop nested in it), except the block
    /// constructs the selection pass appends, which may enclose loops listed before them.
    pub loops: Vec<LoopPlan>,
    /// Selection headers and their merges; `None`: a conditional branch whose targets are
    /// all structured exits needs no merge.
    pub selections: Vec<(SBlock, Option<SBlock>)>,
    /// The loops of `loops` as a nesting forest with each block's innermost loop, built by
    /// `loop_continue`, kept current by `loop_exit` and `header_split`, read by `selection`
    /// (see `super::loop_nest` for the invariants). Block constructs are not in it.
    pub nest: LoopNest,
}

/// Why the structurizer could not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum StructurizeError {
    #[error("function `{function}`: {source}")]
    Cfg {
        function: String,
        #[source]
        source: crate::cfg::CfgError,
    },
    #[error("function `{function}`: pass `{pass}` did not converge after {rewrites} rewrites (internal error)")]
    NoConvergence { function: String, pass: &'static str, rewrites: usize },
    #[error("function `{function}`: pass `{pass}`: {message} (internal error)")]
    Internal { function: String, pass: &'static str, message: String },
}
