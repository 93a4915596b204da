//! What the passes decided about constructs, applied by the marking pass ([`Plan`]), and
//! why the structurizer can fail ([`StructurizeError`]).

use super::graph::{loop_body, member_set, Preds};
use super::scfg::SBlock;
use crate::cfg::error::CfgError;
use crate::cfg::loops::LoopForest;

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
    /// The loops of `loops` as a nesting forest with each block's innermost loop (loop id
    /// `k` is `loops[k]`), built by `loop_continue`, kept current by `loop_exit` and
    /// `header_split`, read by `selection`. Block constructs are not in it.
    ///
    /// Invariants, kept by the passes that add blocks (through `LoopForest::set_innermost`):
    /// - a continue block `loop_continue` adds belongs to its loop; a merge block
    ///   `loop_exit` adds belongs to the parent of the loop it ends (an inner loop's merge
    ///   belongs to the enclosing loop even when it cannot reach the back edge); a header
    ///   tail (`header_split`) belongs to its header's loop;
    /// - the selection pass reads the forest once, as its region map, and maintains that
    ///   map itself from then on (block constructs are not entered here).
    ///
    /// With these, membership equals the walk-based definition [`planned_loop_body`] at
    /// every point where `loop_exit` and `selection` read it; `Options::verify` makes both
    /// passes check that.
    pub nest: LoopForest<SBlock>,
}

/// Why the structurizer could not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum StructurizeError {
    #[error("function `{function}`: {source}")]
    Cfg {
        function: String,
        #[source]
        source: CfgError,
    },
    #[error("function `{function}`: pass `{pass}` did not converge after {rewrites} rewrites (internal error)")]
    NoConvergence { function: String, pass: &'static str, rewrites: usize },
    #[error("function `{function}`: pass `{pass}`: {message} (internal error)")]
    Internal { function: String, pass: &'static str, message: String },
}

/// The body of `plan.loops[li]` as the loop-exit and selection passes define it: the
/// natural loop (from its single continue target) plus the merges of the loops nested in
/// it that have one already, since an inner loop's merge belongs to the enclosing loop even
/// when it cannot reach the back edge. O(body + later loops): the passes read bodies from
/// `plan.nest` instead, and the verification mode checks the two agree.
pub fn planned_loop_body(preds: &Preds, plan: &Plan, li: usize) -> Vec<SBlock> {
    let l = &plan.loops[li];
    let natural = loop_body(preds, l.header, &[l.continue_target], &[]);
    let set = member_set(&natural);
    let extra: Vec<SBlock> = plan.loops[li + 1..]
        .iter()
        .filter(|inner| set[inner.header])
        .filter_map(|inner| inner.merge)
        .filter(|m| !set[*m])
        .collect();
    if extra.is_empty() {
        natural
    } else {
        loop_body(preds, l.header, &[l.continue_target], &extra)
    }
}
