//! Pass `loop_continue`: give every loop exactly one back edge, from its continue target.
//!
//! Expects: a reducible graph. Guarantees: every loop header has exactly one back edge;
//! its source is the loop's continue target, which is either the single original latch when
//! that latch branches unconditionally to the header (kept for readability), or a new empty
//! block that all latches branch to (the "continue ladder" collapsed into one block: the
//! latches' PHI inputs stay on their slots and `crate::passes::phi` rebuilds them). Records every
//! loop in the plan, outermost first, and their nesting forest (`Plan::nest`, with the new
//! continue blocks in their loops).
//! Cost: one DFS and the loop forest (`super::loop_nest`: one union-find walk over the
//! graph, whatever the nesting depth), then O(latches' slots): O((n + e) log n).

use super::graph::{Dfs, Work};
use super::loop_nest::LoopNest;
use super::plan::{LoopPlan, Plan};
use super::scfg::{Origin, SyntheticKind, Term};

pub fn run(work: &mut Work, plan: &mut Plan) {
    let dfs = {
        let scfg = &*work.scfg;
        Dfs::new(scfg.entry, |b| scfg.blocks[b].term.succs().iter().copied())
    };
    let (loops, nest) = LoopNest::compute(&work.preds, &dfs);
    plan.nest = nest;
    for (li, l) in loops.into_iter().enumerate() {
        let single_goto_latch = match l.latches.as_slice() {
            [latch] if *latch != l.header => {
                matches!(work.scfg.blocks[*latch].term, Term::Goto(t) if t == l.header)
                    || is_original_br_to(work, *latch, l.header)
            }
            _ => false,
        };
        let continue_target = if single_goto_latch {
            l.latches[0]
        } else {
            let c = work.add_block(Origin::Synthetic(SyntheticKind::Continue), Term::Goto(l.header));
            for &latch in &l.latches {
                let slots: Vec<usize> = work.scfg.blocks[latch]
                    .term
                    .succs()
                    .iter()
                    .enumerate()
                    .filter(|(_, &s)| s == l.header)
                    .map(|(i, _)| i)
                    .collect();
                for slot in slots {
                    work.redirect(latch, slot, c);
                }
            }
            plan.nest.set_innermost(c, Some(li));
            c
        };
        plan.loops.push(LoopPlan { header: l.header, continue_target, merge: None });
    }
}

fn is_original_br_to(work: &Work, b: super::SBlock, target: super::SBlock) -> bool {
    match &work.scfg.blocks[b].term {
        Term::Orig { succs, .. } => succs.len() == 1 && succs[0] == target,
        _ => false,
    }
}
