//! Pass `edge_split`: parallel edges that carry different values get their own block.
//!
//! Expects: merges chosen. Guarantees: when a block has several successor slots to the
//! same target, their edge definitions agree, so the target's PHIs (keyed by predecessor
//! block in SPIR-V) can tell them apart. A selection header whose arms both became
//! "go to the merge with a different selector" is the usual case. The new block sits on
//! the edge inside the same construct and branches where the edge went, so every
//! construct keeps its exits. Cost: O(edges).

use super::graph::Work;
use super::plan::Plan;
use super::scfg::{EdgeDef, Origin, SyntheticKind, Term};
use smallvec::SmallVec;

pub fn run(work: &mut Work, _plan: &mut Plan) {
    let blocks: Vec<super::SBlock> = work.scfg.layout.clone();
    for b in blocks {
        let succs: SmallVec<[super::SBlock; 4]> = work.scfg.blocks[b].term.succs().iter().copied().collect();
        if succs.len() < 2 || work.scfg.blocks[b].edge_defs.is_empty() {
            continue;
        }
        for slot in 1..succs.len() {
            let target = succs[slot];
            let Some(first) = succs[..slot].iter().position(|&s| s == target) else { continue };
            if defs_of(work, b, first) == defs_of(work, b, slot) {
                continue;
            }
            let moved: SmallVec<[EdgeDef; 2]> =
                defs_of(work, b, slot).into_iter().map(|d| EdgeDef { slot: 0, ..d }).collect();
            work.scfg.blocks[b].edge_defs.retain(|d| d.slot as usize != slot);
            let e = work.add_block(Origin::Synthetic(SyntheticKind::EdgeSplit), Term::Goto(target));
            work.scfg.blocks[e].edge_defs = moved;
            work.redirect(b, slot, e);
        }
    }
}

/// The definitions on one slot, in a canonical order.
fn defs_of(work: &Work, b: super::SBlock, slot: usize) -> Vec<EdgeDef> {
    let mut defs: Vec<EdgeDef> = work.scfg.blocks[b]
        .edge_defs
        .iter()
        .filter(|d| d.slot as usize == slot)
        .map(|d| EdgeDef { slot: 0, ..*d })
        .collect();
    defs.sort_by_key(|d| (d.var, d.val));
    defs
}
