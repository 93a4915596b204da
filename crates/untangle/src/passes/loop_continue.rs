//! Pass `loop_continue`: give every loop exactly one back edge, from its continue target.
//!
//! Expects: a reducible graph. Guarantees: every loop header has exactly one back edge;
//! its source is the loop's continue target, which is either the single original latch when
//! that latch branches unconditionally to the header (kept for readability), or a new empty
//! block that all latches branch to (the "continue ladder" collapsed into one block: the
//! latches' PHI inputs stay on their slots and `crate::passes::phi` rebuilds them). Records every
//! loop in the plan, outermost first (larger bodies first, ties by header RPO position),
//! and their nesting forest (`Plan::nest`, with the new continue blocks in their loops).
//! Cost: one DFS and the loop forest (`crate::cfg::loops`: one union-find walk over the
//! graph, whatever the nesting depth), then O(latches' slots): O((n + e) log n).

use super::graph::Work;
use super::plan::{LoopPlan, Plan};
use super::scfg::{Origin, SBlock, SyntheticKind, Term};
use crate::cfg::loops::{LoopForest, LoopId};
use crate::cfg::order::Order;
use cranelift_entity::EntityRef;
use smallvec::SmallVec;

pub fn run(work: &mut Work, plan: &mut Plan) {
    let order = Order::compute(&work.view());
    let mut forest = LoopForest::compute(&order, |b| work.preds.slots_into(b).iter().copied());
    // Plan order: outer loops have larger bodies; ties cannot nest.
    let sizes = forest.body_sizes(order.rpo());
    let mut plan_order: Vec<LoopId> = forest.ids().collect();
    plan_order.sort_by_key(|&l| (std::cmp::Reverse(sizes[l.index()]), order.rank(forest.get(l).header)));
    forest.renumber(&plan_order, order.rpo());
    let loops: Vec<(SBlock, SmallVec<[SBlock; 2]>)> =
        forest.iter().map(|(_, l)| (l.header, l.latches.clone())).collect();
    plan.nest = forest;
    for (li, (header, latches)) in loops.into_iter().enumerate() {
        let single_goto_latch = match latches.as_slice() {
            [latch] if *latch != header => {
                matches!(work.scfg.blocks[*latch].term, Term::Goto(t) if t == header)
                    || is_original_br_to(work, *latch, header)
            }
            _ => false,
        };
        let continue_target = if single_goto_latch {
            latches[0]
        } else {
            let c = work.add_block(Origin::Synthetic(SyntheticKind::Continue), Term::Goto(header));
            for &latch in &latches {
                let slots: Vec<usize> = work.scfg.blocks[latch]
                    .term
                    .succs()
                    .iter()
                    .enumerate()
                    .filter(|(_, &s)| s == header)
                    .map(|(i, _)| i)
                    .collect();
                for slot in slots {
                    work.redirect(latch, slot, c);
                }
            }
            plan.nest.set_innermost(c, Some(LoopId::new(li)));
            c
        };
        plan.loops.push(LoopPlan { header, continue_target, merge: None });
    }
}

fn is_original_br_to(work: &Work, b: SBlock, target: SBlock) -> bool {
    match &work.scfg.blocks[b].term {
        Term::Orig { succs, .. } => succs.len() == 1 && succs[0] == target,
        _ => false,
    }
}
