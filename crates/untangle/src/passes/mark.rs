//! Pass `mark`: write the merge annotations the passes planned and put blocks in a
//! structured order. It must not change the graph; the pass manager checks that.
//!
//! The order is a reverse post-order of the graph plus virtual edges from each header to
//! its merge and continue target, explored first, so every block follows its dominators
//! (SPIR-V's block order rule), a construct's blocks come before its merge, a loop body
//! before its continue target, and unreachable merge blocks still get a place right after
//! their construct. Successors are listed in slot order. Cost: O(n).

use super::graph::Work;
use super::plan::Plan;
use super::scfg::{Merge, SBlock};
use crate::cfg::order::Order;
use smallvec::SmallVec;

pub fn run(work: &mut Work, plan: &mut Plan) {
    for b in work.scfg.layout.clone() {
        work.scfg.blocks[b].merge = None;
    }
    for l in &plan.loops {
        let merge = l.merge.expect("loop_exit ran");
        work.scfg.blocks[l.header].merge = Some(Merge::Loop { merge, continue_target: l.continue_target });
    }
    for &(h, m) in &plan.selections {
        if let Some(merge) = m {
            work.scfg.blocks[h].merge = Some(Merge::Selection { merge });
        }
    }
    let order = {
        let scfg = &*work.scfg;
        Order::with_successors(scfg.entry, scfg.blocks.len(), |b| {
            let block = &scfg.blocks[b];
            let mut next: SmallVec<[SBlock; 4]> = SmallVec::new();
            match block.merge {
                Some(Merge::Loop { merge, continue_target }) => {
                    next.push(merge);
                    next.push(continue_target);
                }
                Some(Merge::Selection { merge }) => next.push(merge),
                None => {}
            }
            next.extend(block.term.succs().iter().rev().copied());
            next
        })
    };
    work.scfg.layout = order.into_rpo();
}
