//! Compares a [`Cfg`] with the brute-force [`CfgOracle`] on every query, for tests and fuzz
//! targets: reachability from the entry, (post-)dominance on all pairs, immediate
//! (post-)dominators, back edges and virtual exit edges, the order, frontiers of every
//! block, loops (latches, bodies, exits, nesting), and a deterministic sample of common
//! (post-)dominator queries.

use super::cfg_oracle::CfgOracle;
use cranelift_entity::EntityRef;
use std::collections::BTreeSet;
use untangle::cfg::Cfg;
use untangle::ir::{BlockId, Function};

/// Every disagreement is an `Err` describing the first one found.
pub fn compare_with_oracle(func: &Function, cfg: &Cfg, oracle: &CfgOracle) -> Result<(), String> {
    let label = |b: BlockId| func.block_label(b);
    let blocks = oracle.blocks();
    let live: Vec<BlockId> = blocks.iter().copied().filter(|&b| oracle.is_reachable(b)).collect();
    for &b in blocks {
        if cfg.is_reachable(b) != oracle.is_reachable(b) {
            return Err(format!("reachability of {} from the entry", label(b)));
        }
        if cfg.idom(b) != oracle.idom(b) {
            return Err(format!(
                "idom({}): {:?} vs oracle {:?}",
                label(b),
                cfg.idom(b).map(label),
                oracle.idom(b).map(label)
            ));
        }
        if cfg.ipdom(b) != oracle.ipdom(b) {
            return Err(format!(
                "ipdom({}): {:?} vs oracle {:?}",
                label(b),
                cfg.ipdom(b).map(label),
                oracle.ipdom(b).map(label)
            ));
        }
    }
    for &a in blocks {
        for &b in blocks {
            if cfg.dominates(a, b) != oracle.dominates(a, b) {
                return Err(format!("dominates({}, {})", label(a), label(b)));
            }
            if cfg.post_dominates(a, b) != oracle.post_dominates(a, b) {
                return Err(format!("post_dominates({}, {})", label(a), label(b)));
            }
        }
    }
    let back: BTreeSet<_> = cfg.back_edges().collect();
    if back != oracle.back_edges() {
        return Err(format!("back edges {back:?} vs oracle {:?}", oracle.back_edges()));
    }
    for (u, v) in &back {
        if !cfg.is_back_edge(*u, *v) {
            return Err(format!("is_back_edge({}, {})", label(*u), label(*v)));
        }
    }
    let virt: BTreeSet<_> = cfg.postdom().virtual_exit_sources().iter().copied().collect();
    if virt != oracle.virtual_exit_sources() {
        return Err(format!("virtual exit edges {virt:?} vs oracle {:?}", oracle.virtual_exit_sources()));
    }

    // The order: exactly the reachable blocks, entry first, topological on forward edges,
    // post-order its reverse.
    let rpo = cfg.rpo();
    if rpo.iter().copied().collect::<BTreeSet<_>>() != live.iter().copied().collect::<BTreeSet<_>>()
        || rpo.len() != live.len()
    {
        return Err("RPO does not hold exactly the reachable blocks".into());
    }
    if rpo.first() != Some(&cfg.entry()) {
        return Err("RPO does not start at the entry".into());
    }
    let pos = |b: BlockId| rpo.iter().position(|&x| x == b);
    for &u in &live {
        for v in cfg.forward_succs(u) {
            if pos(u) >= pos(v) {
                return Err(format!("RPO puts {} before its predecessor {}", label(v), label(u)));
            }
        }
    }
    if !cfg.post_order().eq(rpo.iter().rev().copied()) {
        return Err("post-order is not the reverse of RPO".into());
    }

    // Frontiers.
    let df = cfg.dominance_frontiers();
    let pdf = cfg.post_dominance_frontiers();
    for &b in blocks {
        let mine: BTreeSet<_> = df.get(b).iter().copied().collect();
        if mine.len() != df.get(b).len() || mine != oracle.dominance_frontier(b) {
            return Err(format!("DF({}) = {mine:?} vs oracle {:?}", label(b), oracle.dominance_frontier(b)));
        }
        let mine: BTreeSet<_> = pdf.get(b).iter().copied().collect();
        if mine.len() != pdf.get(b).len() || mine != oracle.post_dominance_frontier(b) {
            return Err(format!("PDF({}) = {mine:?} vs oracle {:?}", label(b), oracle.post_dominance_frontier(b)));
        }
    }

    // Loops.
    let forest = cfg.loops();
    let (bodies, loop_exits) = (cfg.loop_bodies(), cfg.loop_exits());
    if forest.len() != oracle.loops().len() {
        return Err(format!("{} loops vs oracle {}", forest.len(), oracle.loops().len()));
    }
    for ol in oracle.loops() {
        let Some(l) = forest.loop_of_header(ol.header) else {
            return Err(format!("{} should head a loop", label(ol.header)));
        };
        let lp = forest.get(l);
        let latches: BTreeSet<_> = lp.latches.iter().copied().collect();
        let body: BTreeSet<_> = bodies[l.index()].iter().copied().collect();
        if body.len() != bodies[l.index()].len() || body != cfg.loop_body(l).into_iter().collect() {
            return Err(format!("body of loop at {} listed twice, or not as `loop_body` has it", label(ol.header)));
        }
        let exits: BTreeSet<_> = loop_exits[l.index()].iter().copied().collect();
        let parent = lp.parent.map(|p| forest.get(p).header);
        if latches != ol.latches || body != ol.body || exits != ol.exits || parent != ol.parent {
            return Err(format!("loop at {}: {lp:?} vs oracle {ol:?}", label(ol.header)));
        }
        if lp.continue_block() != (ol.latches.len() == 1).then(|| *ol.latches.iter().next().unwrap_or(&ol.header)) {
            return Err(format!("continue block of loop at {}", label(ol.header)));
        }
        for &b in blocks {
            if forest.contains(l, b) != ol.body.contains(&b) {
                return Err(format!("contains(loop at {}, {})", label(ol.header), label(b)));
            }
        }
    }

    // Sampled queries: common (post-)dominators.
    let n = live.len();
    if n > 0 {
        let mut x = 0x2545_F491_4F6C_DD1Du64 ^ n as u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            live[(x % n as u64) as usize]
        };
        for k in 1..8 {
            let set: Vec<BlockId> = (0..k).map(|_| next()).collect();
            if cfg.common_dominator(set.iter().copied()) != oracle.common_dominator(&set) {
                return Err(format!("common_dominator({:?})", set.iter().map(|&b| label(b)).collect::<Vec<_>>()));
            }
            if cfg.common_post_dominator(set.iter().copied()) != oracle.common_post_dominator(&set) {
                return Err(format!("common_post_dominator({:?})", set.iter().map(|&b| label(b)).collect::<Vec<_>>()));
            }
        }
    }
    Ok(())
}
