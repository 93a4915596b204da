//! Pass `edge_split`: parallel edges that carry different values get their own block.
//!
//! Expects: merges chosen. Guarantees: when a block has several successor slots to the
//! same target, their edge definitions agree, so the target's PHIs (keyed by predecessor
//! block in SPIR-V) can tell them apart. A selection header whose arms both became
//! "go to the merge with a different selector" is the usual case. The new block sits on
//! the edge inside the same construct and branches where the edge went, so every
//! construct keeps its exits. Cost: O(edges + edge definitions) (each block's definitions
//! are grouped by slot once, and a slot finds the first slot with its target through
//! [`TargetIndex`]), plus sorting each slot's definitions.

use super::graph::{TargetIndex, Work};
use super::plan::Plan;
use super::scfg::{EdgeDef, Origin, SBlock, SyntheticKind, Term};
use smallvec::SmallVec;

pub fn run(work: &mut Work, _plan: &mut Plan) {
    let blocks: Vec<SBlock> = work.scfg.layout.clone();
    for b in blocks {
        let succs: SmallVec<[SBlock; 4]> = work.scfg.blocks[b].term.succs().iter().copied().collect();
        if succs.len() < 2 || work.scfg.blocks[b].edge_defs.is_empty() {
            continue;
        }
        // Each slot's definitions in a canonical order, slot numbers cleared. The first
        // slot to a target is never split, so these stay valid while later slots move.
        let mut slot_defs: Vec<SmallVec<[EdgeDef; 2]>> = vec![SmallVec::new(); succs.len()];
        for d in &work.scfg.blocks[b].edge_defs {
            if let Some(defs) = slot_defs.get_mut(d.slot as usize) {
                defs.push(EdgeDef { slot: 0, ..*d });
            }
        }
        for defs in &mut slot_defs {
            defs.sort_by_key(|d| (d.var, d.val));
        }
        let first_slot = TargetIndex::new(&succs);
        let mut split = vec![false; succs.len()];
        for slot in 1..succs.len() {
            let target = succs[slot];
            let first = first_slot.position(target).expect("a target of this block") as usize;
            if first == slot || slot_defs[first] == slot_defs[slot] {
                continue;
            }
            let e = work.add_block(Origin::Synthetic(SyntheticKind::EdgeSplit), Term::Goto(target));
            work.scfg.blocks[e].edge_defs = std::mem::take(&mut slot_defs[slot]);
            work.redirect(b, slot, e);
            split[slot] = true;
        }
        if split.contains(&true) {
            work.scfg.blocks[b].edge_defs.retain(|d| !split.get(d.slot as usize).copied().unwrap_or(false));
        }
    }
}
