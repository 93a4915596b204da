//! Pass `loop_entry`: a loop header that is also another construct's merge block gets an
//! empty block in front of it, which becomes that construct's merge.
//!
//! Expects: merges chosen (`loop_exit`, `selection`), parallel edges split. Guarantees: no
//! block is both the header of a loop (block constructs included) and the merge of a
//! selection or loop. Every edge into such a header from outside its loop now goes
//! through the new block (`SyntheticKind::LoopEntry`, a plain `Goto`); the back edge from
//! its continue target still goes straight to it. Edge definitions stay on the redirected
//! edges, so the values reach the header through the new block after PHI repair.
//!
//! Why: SPIR-V allows a merge block to be a loop header, but NVIDIA's driver (580.159, with
//! `MaximallyReconvergesKHR`) did not reconverge the construct's invocations there: a wave
//! operation right after such a merge ran once per divergent group (generated
//! differential programs 1039, 1769, 3310, 3907 in `docs/dxil-semantics.md`), and the same
//! modules with this one block added ran correctly. The block costs a label and a branch.
//! Cost: O(constructs + edges into the affected headers).

use super::graph::Work;
use super::plan::Plan;
use super::scfg::{Origin, SBlock, SyntheticKind, Term};
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

pub fn run(work: &mut Work, plan: &mut Plan) {
    // The continue target of every loop header (block constructs included).
    let mut continue_of: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
    for l in &plan.loops {
        continue_of[l.header] = Some(l.continue_target);
    }
    // The entry block made for each header that is some construct's merge.
    let mut entry_of: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
    let mut entry_for = |work: &mut Work, m: SBlock| -> Option<SBlock> {
        let back_edge_from = continue_of[m]?;
        if let Some(e) = entry_of[m] {
            return Some(e);
        }
        let e = work.add_block(Origin::Synthetic(SyntheticKind::LoopEntry), Term::Goto(m));
        let preds = work.preds.distinct(m);
        for p in preds {
            if p == back_edge_from || p == e {
                continue;
            }
            let slots: SmallVec<[usize; 2]> = work.scfg.blocks[p]
                .term
                .succs()
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s == m)
                .map(|(slot, _)| slot)
                .collect();
            for slot in slots {
                work.redirect(p, slot, e);
            }
        }
        entry_of[m] = Some(e);
        Some(e)
    };
    for i in 0..plan.loops.len() {
        if let Some(m) = plan.loops[i].merge {
            if let Some(e) = entry_for(work, m) {
                plan.loops[i].merge = Some(e);
            }
        }
    }
    for i in 0..plan.selections.len() {
        if let Some(m) = plan.selections[i].1 {
            if let Some(e) = entry_for(work, m) {
                plan.selections[i].1 = Some(e);
            }
        }
    }
}
