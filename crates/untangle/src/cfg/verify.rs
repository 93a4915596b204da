//! `Cfg::verify_against_recompute`: the incrementally maintained state against a fresh
//! computation from the function itself.
//!
//! Compared: the graph (against the function's terminators), the reachable set, that the
//! order is a topological order of the forward graph starting at the entry, every
//! immediate dominator and post-dominator, the virtual exit edges, back edges (implied by
//! the dominator tree), every loop (header, latches, parent, depth, body, exits) and every
//! block's innermost loop, and reachability between every pair of reachable blocks (a
//! deterministic sample of 64 pairs per block above 2048 blocks). The interval labels of
//! both trees are checked for internal consistency, which is what makes `dominates` agree
//! with `idom`. Cost O(n²) (O(64 n) above 2048 blocks): a test and debug tool.

use super::{Analyses, Cfg, Graph};
use crate::ir::{BlockId, Function};
use std::collections::BTreeSet;
use thiserror::Error;

/// How an incrementally maintained `Cfg` differs from a recompute.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("function `{function}`: {message}")]
pub struct Mismatch {
    pub function: String,
    pub message: String,
}

fn set(blocks: impl IntoIterator<Item = BlockId>) -> BTreeSet<BlockId> {
    blocks.into_iter().collect()
}

impl Cfg {
    /// Checks every maintained analysis against a fresh computation from `func`.
    pub fn verify_against_recompute(&self, func: &Function) -> Result<(), Mismatch> {
        let fail = |message: String| Mismatch { function: self.function.clone(), message };
        let fresh_graph = Graph::from_function(func).map_err(|e| fail(format!("graph rebuild failed: {e}")))?;
        let label = |b: BlockId| func.block_label(b);

        // Graph.
        if fresh_graph.blocks() != self.graph.blocks() {
            return Err(fail("block lists differ".into()));
        }
        if fresh_graph.entry() != self.graph.entry() {
            return Err(fail("entries differ".into()));
        }
        for &b in fresh_graph.blocks() {
            if fresh_graph.succs(b) != self.graph.succs(b) {
                return Err(fail(format!("successors of {} differ", label(b))));
            }
            if set(fresh_graph.preds(b).iter().copied()) != set(self.graph.preds(b).iter().copied()) {
                return Err(fail(format!("predecessors of {} differ", label(b))));
            }
        }
        let fresh = Analyses::compute(&fresh_graph, &self.options)
            .map_err(|blocks| fail(format!("recompute found irreducible blocks {blocks:?}")))?;
        let a = &self.a;

        // Order: same reachable set, entry first, topological on forward edges.
        if set(fresh.order.rpo().iter().copied()) != set(a.order.rpo().iter().copied()) {
            return Err(fail("reachable sets differ".into()));
        }
        if a.order.rpo().first() != Some(&self.graph.entry()) {
            return Err(fail("order does not start at the entry".into()));
        }
        for &b in a.order.rpo() {
            for &s in self.graph.succs(b) {
                let back = fresh.dom.dominates(s, b);
                if !back && a.order.rpo_index(s) <= a.order.rpo_index(b) {
                    return Err(fail(format!("order puts {} before its predecessor {}", label(s), label(b))));
                }
            }
        }

        // Trees.
        a.dom.tree.check_labels().map_err(|e| fail(format!("dominator labels: {e}")))?;
        a.postdom.tree.check_labels().map_err(|e| fail(format!("post-dominator labels: {e}")))?;
        for &b in fresh.order.rpo() {
            if a.dom.idom(b) != fresh.dom.idom(b) {
                return Err(fail(format!(
                    "idom({}) is {:?}, recompute says {:?}",
                    label(b),
                    a.dom.idom(b).map(label),
                    fresh.dom.idom(b).map(label)
                )));
            }
            if a.postdom.ipdom(b) != fresh.postdom.ipdom(b) || !a.postdom.contains(b) {
                return Err(fail(format!(
                    "ipdom({}) is {:?}, recompute says {:?}",
                    label(b),
                    a.postdom.ipdom(b).map(label),
                    fresh.postdom.ipdom(b).map(label)
                )));
            }
        }
        if set(a.postdom.virtual_sources.iter().copied()) != set(fresh.postdom.virtual_sources.iter().copied()) {
            return Err(fail("virtual exit edges differ".into()));
        }
        for &b in self.graph.blocks() {
            if a.postdom.is_virtual_source[b] != fresh.postdom.is_virtual_source[b] {
                return Err(fail(format!("virtual exit flag of {} differs", label(b))));
            }
        }

        // Loops.
        if a.loops.len() != fresh.loops.len() {
            return Err(fail(format!("{} loops, recompute finds {}", a.loops.len(), fresh.loops.len())));
        }
        let header_of = |forest: &super::LoopForest, l: Option<super::LoopId>| l.map(|l| forest.get(l).header);
        for (fl, flp) in fresh.loops.iter() {
            let h = flp.header;
            let Some(ml) = a.loops.loop_of_header(h) else {
                return Err(fail(format!("{} should head a loop", label(h))));
            };
            let mlp = a.loops.get(ml);
            let what = |x: &str| fail(format!("loop at {}: {x} differ", label(h)));
            if set(mlp.latches.iter().copied()) != set(flp.latches.iter().copied()) {
                return Err(what("latches"));
            }
            if header_of(&a.loops, mlp.parent) != header_of(&fresh.loops, flp.parent) || mlp.depth != flp.depth {
                return Err(what("parents"));
            }
            if set(a.loops.body(ml)) != set(fresh.loops.body(fl)) {
                return Err(what("bodies"));
            }
            if mlp.exits != flp.exits {
                return Err(what("exits"));
            }
        }
        for &b in fresh.order.rpo() {
            if header_of(&a.loops, a.loops.innermost(b)) != header_of(&fresh.loops, fresh.loops.innermost(b)) {
                return Err(fail(format!("innermost loop of {} differs", label(b))));
            }
        }

        // Reachability.
        let live = fresh.order.rpo();
        let n = live.len();
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for (i, &x) in live.iter().enumerate() {
            let check = |y: BlockId| {
                if a.reach.reaches(x, y) != fresh.reach.reaches(x, y) {
                    Err(fail(format!(
                        "reaches({}, {}) is {}, recompute says {}",
                        label(x),
                        label(y),
                        a.reach.reaches(x, y),
                        !a.reach.reaches(x, y)
                    )))
                } else {
                    Ok(())
                }
            };
            if n <= 2048 {
                for &y in live {
                    check(y)?;
                }
            } else {
                for _ in 0..64 {
                    rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407 + i as u64);
                    check(live[(rng >> 33) as usize % n])?;
                }
            }
        }
        Ok(())
    }
}
