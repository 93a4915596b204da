//! Pass `header_split`: a loop header that also needs a selection gets a separate tail.
//!
//! Expects: loops planned with continue targets and merges. Guarantees: every loop
//! header ends in an unconditional branch, or in a two-way branch with at most one target
//! inside the loop (the `while` form: the other is the merge or the continue target).
//! Otherwise the header's terminator (its condition is still evaluated in the header's
//! position: nothing runs between the two blocks) moves to a new tail block, which the
//! selection pass treats like any other selection header. SPIR-V needs this because a block
//! holds one merge instruction and `OpLoopMerge` cannot precede `OpSwitch`. The tail joins
//! its header's loop in `Plan::nest`.
//! Cost: O(loops + their headers' slots).

use super::graph::{Distinct, Work};
use super::plan::Plan;
use super::scfg::{OrigKind, Origin, SyntheticKind, Term};
use smallvec::SmallVec;

pub fn run(work: &mut Work, plan: &mut Plan) {
    for l in plan.loops.clone() {
        let merge = l.merge.expect("loop_exit ran");
        let term = &work.scfg.blocks[l.header].term;
        let distinct = Distinct::of(term.succs().iter().copied());
        let two_way = matches!(term, Term::Orig { .. } | Term::Dispatch { .. }) && term.succs().len() == 2;
        let is_switch = match term {
            Term::Orig { block, .. } => work.scfg.orig_kind(*block) == OrigKind::Switch,
            Term::Dispatch { targets, .. } => targets.len() > 2,
            _ => false,
        };
        let inside = distinct.as_slice().iter().filter(|&&s| s != merge && s != l.continue_target).count();
        let needs_split = is_switch || (two_way && inside > 1);
        if !needs_split {
            continue;
        }
        let old_term = work.scfg.blocks[l.header].term.clone();
        let old_defs = std::mem::take(&mut work.scfg.blocks[l.header].edge_defs);
        // The tail takes over the terminator and the slots' definitions.
        work.set_term(l.header, Term::Unreachable, SmallVec::new());
        let tail = work.add_block(Origin::Synthetic(SyntheticKind::HeaderTail), old_term);
        work.scfg.blocks[tail].edge_defs = old_defs;
        work.set_term(l.header, Term::Goto(tail), SmallVec::new());
        let header_loop = plan.nest.innermost(l.header);
        plan.nest.set_innermost(tail, header_loop);
    }
}
