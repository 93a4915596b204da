//! Pass `loop_exit`: give every loop a single exit block, its merge.
//!
//! Expects: `loop_continue` ran (one back edge per loop, from its continue target).
//! Guarantees: every edge that leaves a loop goes to the loop's merge block, which the
//! loop header dominates (or which no edge reaches: an infinite loop gets an unreachable
//! merge, the case where the reference translator crashes). A loop that exits to a single
//! block its header dominates keeps that block as merge. Otherwise a new merge block is
//! added; when exits go to several targets (a multi-level break, a return path inside the
//! loop, an inner loop breaking an outer one) it dispatches on a selector set on each exit
//! edge: the rung of a break ladder. Loops are handled innermost first, so an inner loop's
//! merge belongs to the enclosing loop and its dispatch edges to targets outside that
//! loop become exits of it in turn, one rung per level.
//!
//! Which blocks a loop holds comes from `Plan::nest`: an edge leaves loop `l` when its
//! source's innermost loop is `l` and `l` does not contain its target (O(1) each). Blocks
//! of loops nested in `l` have no exits of their own left by then (theirs go to their
//! merges), so only `l`'s own blocks are scanned, and every edge is looked at once in all.
//! Cost: one DFS and dominator tree, then O(e + n log n) (each loop's own blocks are put
//! in RPO), whatever the nesting depth.

use super::graph::{member_set, Distinct, TargetIndex, Work};
use super::plan::{planned_loop_body, Plan, StructurizeError};
use super::scfg::{Origin, SBlock, SyntheticKind, Term, Val, VarKind};
use crate::cfg::dominators::DomTree;
use crate::cfg::loops::LoopId;
use crate::cfg::order::Order;
use cranelift_entity::{EntityRef, SecondaryMap};

/// `verify`: check the exits found through the loop forest against the body walk
/// (`Options::verify`).
pub fn run(work: &mut Work, plan: &mut Plan, verify: bool) -> Result<(), StructurizeError> {
    let (order, doms) = {
        let view = work.view();
        let order = Order::compute(&view);
        let doms = DomTree::of(&view, &order);
        (order, doms)
    };
    // Blocks added by this pass are dominated exactly by what dominates their anchor
    // (the header of the loop they merge), so dominance queries stay O(1).
    let mut anchor: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
    let dominates = |anchor: &SecondaryMap<SBlock, Option<SBlock>>, a: SBlock, b: SBlock| -> bool {
        let b = if a == b { return true } else { anchor[b].unwrap_or(b) };
        doms.dominates(a, b)
    };
    let mut used_as_merge: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    // A continue target is never also a merge: the constructs would overlap.
    for l in &plan.loops {
        used_as_merge[l.continue_target] = true;
    }
    let mut own = plan.nest.own_nodes(&work.scfg.layout);
    // Innermost first.
    for li in (0..plan.loops.len()).rev() {
        let header = plan.loops[li].header;
        // Exit slots in a deterministic order: blocks by RPO, slots in order.
        let mut ordered: Vec<SBlock> = std::mem::take(&mut own[li]);
        ordered.sort_by_key(|&b| (order.rank(anchor[b].unwrap_or(b)), b));
        let mut exits: Vec<(SBlock, usize, SBlock)> = Vec::new();
        let mut targets = Distinct::new();
        for &b in &ordered {
            for (slot, &s) in work.scfg.blocks[b].term.succs().iter().enumerate() {
                if !plan.nest.contains(LoopId::new(li), s) {
                    exits.push((b, slot, s));
                    targets.insert(s);
                }
            }
        }
        if verify {
            check_exits(work, plan, li, &exits, &|b| (order.rank(anchor[b].unwrap_or(b)), b))?;
        }
        let targets = targets.as_slice();
        let (merge, is_new) = if targets.is_empty() {
            (work.add_block(Origin::Synthetic(SyntheticKind::LoopMerge), Term::Unreachable), true)
        } else if targets.len() == 1 && dominates(&anchor, header, targets[0]) && !used_as_merge[targets[0]] {
            (targets[0], false)
        } else if targets.len() == 1 {
            let m = work.add_block(Origin::Synthetic(SyntheticKind::LoopMerge), Term::Goto(targets[0]));
            for &(b, slot, _) in &exits {
                work.redirect(b, slot, m);
            }
            (m, true)
        } else {
            let var = work.scfg.vars.push(VarKind::Selector);
            let m = work.add_block(
                Origin::Synthetic(SyntheticKind::LoopMerge),
                Term::Dispatch { var, targets: targets.iter().copied().collect() },
            );
            let index = TargetIndex::new(targets);
            for &(b, slot, s) in &exits {
                let k = index.position(s).expect("exit target");
                work.redirect(b, slot, m);
                work.add_edge_def(b, slot, var, Val::Const(k));
            }
            (m, true)
        };
        if work.scfg.blocks[merge].original().is_none() && anchor[merge].is_none() {
            anchor[merge] = Some(header);
        }
        if is_new {
            // An inner loop's merge belongs to the enclosing loop.
            let parent = plan.nest.parent(LoopId::new(li));
            plan.nest.set_innermost(merge, parent);
            if let Some(p) = parent {
                own[p.index()].push(merge);
            }
        }
        used_as_merge[merge] = true;
        plan.loops[li].merge = Some(merge);
    }
    Ok(())
}

/// Verification mode: the exits of loop `li` found through the nest are those of the
/// walk-based body (`planned_loop_body`), in the same order.
fn check_exits(
    work: &Work,
    plan: &Plan,
    li: usize,
    exits: &[(SBlock, usize, SBlock)],
    key: &dyn Fn(SBlock) -> (u32, SBlock),
) -> Result<(), StructurizeError> {
    let body = planned_loop_body(&work.preds, plan, li);
    let in_body = member_set(&body);
    let mut ordered = body.clone();
    ordered.sort_by_key(|&b| key(b));
    let mut expected = Vec::new();
    for &b in &ordered {
        for (slot, &s) in work.scfg.blocks[b].term.succs().iter().enumerate() {
            if !in_body[s] {
                expected.push((b, slot, s));
            }
        }
    }
    if expected != exits {
        return Err(StructurizeError::Internal {
            function: work.scfg.name.clone(),
            pass: "loop_exit",
            message: format!(
                "loop {}: the exits found through the loop nest ({}) differ from the body walk's ({})",
                work.scfg.label(plan.loops[li].header),
                exits.len(),
                expected.len()
            ),
        });
    }
    Ok(())
}
