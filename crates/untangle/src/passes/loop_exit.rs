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
//! Cost: per loop, one backward walk over its body: O(n · loop depth).

use super::graph::{member_set, planned_loop_body, Dfs, Doms, Work};
use super::plan::Plan;
use super::scfg::{Origin, SBlock, SyntheticKind, Term, Val, VarKind};
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

pub fn run(work: &mut Work, plan: &mut Plan) {
    let (dfs, doms) = {
        let scfg = &*work.scfg;
        let dfs = Dfs::new(scfg.entry, |b| scfg.blocks[b].term.succs().to_vec());
        let preds = &work.preds;
        let doms = Doms::new(&dfs, |b| preds.slots_into(b).to_vec());
        (dfs, doms)
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
    // Innermost first.
    for li in (0..plan.loops.len()).rev() {
        let header = plan.loops[li].header;
        let body = planned_loop_body(&work.preds, plan, li);
        let in_body = member_set(&body);
        // Exit slots in a deterministic order: body blocks by RPO, slots in order.
        let mut ordered: Vec<SBlock> = body.clone();
        ordered.sort_by_key(|&b| (dfs.rpo_index[anchor[b].unwrap_or(b)], b));
        let mut exits: Vec<(SBlock, usize, SBlock)> = Vec::new();
        let mut targets: SmallVec<[SBlock; 4]> = SmallVec::new();
        for &b in &ordered {
            for (slot, &s) in work.scfg.blocks[b].term.succs().iter().enumerate() {
                if !in_body[s] {
                    exits.push((b, slot, s));
                    if !targets.contains(&s) {
                        targets.push(s);
                    }
                }
            }
        }
        let merge = if targets.is_empty() {
            work.add_block(Origin::Synthetic(SyntheticKind::LoopMerge), Term::Unreachable)
        } else if targets.len() == 1 && dominates(&anchor, header, targets[0]) && !used_as_merge[targets[0]] {
            targets[0]
        } else if targets.len() == 1 {
            let m = work.add_block(Origin::Synthetic(SyntheticKind::LoopMerge), Term::Goto(targets[0]));
            for &(b, slot, _) in &exits {
                work.redirect(b, slot, m);
            }
            m
        } else {
            let var = work.scfg.vars.push(VarKind::Selector);
            let m = work.add_block(
                Origin::Synthetic(SyntheticKind::LoopMerge),
                Term::Dispatch { var, targets: targets.clone() },
            );
            for &(b, slot, s) in &exits {
                let k = targets.iter().position(|&t| t == s).expect("exit target") as u32;
                work.redirect(b, slot, m);
                work.add_edge_def(b, slot, var, Val::Const(k));
            }
            m
        };
        if work.scfg.blocks[merge].original().is_none() && anchor[merge].is_none() {
            anchor[merge] = Some(header);
        }
        used_as_merge[merge] = true;
        plan.loops[li].merge = Some(merge);
    }
}
