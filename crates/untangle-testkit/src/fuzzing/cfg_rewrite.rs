//! Random structurizer-style rewrites on a [`Cfg`], for testing its incremental updates:
//! each call picks one rewrite and random valid-looking arguments, including some that the
//! rewrite must refuse (mixed edge sets, redirects that would make the graph irreducible).

use super::mutate::SplitMix64;
use untangle::cfg::{Cfg, CfgError};
use untangle::ir::{BlockId, Function, Terminator};

/// Which rewrite was tried.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RewriteKind {
    SplitEdge,
    InsertOnForwardEdges,
    InsertOnBackEdges,
    InsertNewHeader,
    InsertMixedInvalid,
    MergeBackEdges,
    SplitBlock,
    RemovePassthrough,
    RedirectEdge,
}

/// A rewrite and what came of it; `None` when no candidate existed.
pub type Outcome = Option<(RewriteKind, Result<(), CfgError>)>;

fn pick<T: Copy>(rng: &mut SplitMix64, items: &[T]) -> Option<T> {
    rng.pick(items).copied()
}

fn live_edges(cfg: &Cfg) -> Vec<(BlockId, BlockId)> {
    cfg.rpo().iter().flat_map(|&u| cfg.succs(u).iter().map(move |&v| (u, v))).collect()
}

/// Applies one random rewrite to `cfg` and `func`.
pub fn random_rewrite(rng: &mut SplitMix64, cfg: &mut Cfg, func: &mut Function) -> Outcome {
    let ok = |r: Result<BlockId, CfgError>| r.map(|_| ());
    match rng.below(10) {
        0 | 1 => {
            // Unreachable sources too, now and then.
            let edges: Vec<(BlockId, BlockId)> =
                cfg.blocks().iter().flat_map(|&u| cfg.succs(u).iter().map(move |&v| (u, v))).collect();
            let (u, v) = pick(rng, &edges)?;
            Some((RewriteKind::SplitEdge, ok(cfg.split_edge(func, u, v))))
        }
        2 | 3 => {
            // Loop headers half the time: they have the back edges.
            let headers = rng.chance(50);
            let targets: Vec<BlockId> = cfg
                .rpo()
                .iter()
                .copied()
                .filter(|&b| cfg.preds(b).len() >= 2 && (!headers || cfg.loops().is_header(b)))
                .collect();
            let target = pick(rng, &targets)?;
            let fwd: Vec<BlockId> = cfg.forward_preds(target).collect();
            let back: Vec<BlockId> =
                cfg.preds(target).iter().copied().filter(|&p| cfg.is_back_edge(p, target)).collect();
            let subset = |rng: &mut SplitMix64, from: &[BlockId]| -> Vec<BlockId> {
                let mut s: Vec<BlockId> = from.iter().copied().filter(|_| rng.chance(60)).collect();
                if s.is_empty() {
                    s.extend(from.first().copied());
                }
                s
            };
            let (kind, sources) = match rng.below(8) {
                0..=3 if !fwd.is_empty() => (RewriteKind::InsertOnForwardEdges, subset(rng, &fwd)),
                4 | 5 if !back.is_empty() => (RewriteKind::InsertOnBackEdges, subset(rng, &back)),
                6 if !back.is_empty() && !fwd.is_empty() => {
                    let mut s = fwd.clone();
                    s.extend(subset(rng, &back));
                    (RewriteKind::InsertNewHeader, s)
                }
                7 if !back.is_empty() && fwd.len() >= 2 => {
                    let mut s = vec![fwd[0]];
                    s.extend(subset(rng, &back));
                    (RewriteKind::InsertMixedInvalid, s)
                }
                _ if !fwd.is_empty() => (RewriteKind::InsertOnForwardEdges, fwd.clone()),
                _ => (RewriteKind::InsertOnBackEdges, back.clone()),
            };
            Some((kind, ok(cfg.insert_block_on_edges(func, &sources, target))))
        }
        4 => Some((RewriteKind::MergeBackEdges, cfg.merge_back_edges(func).map(|_| ()))),
        5 | 6 => {
            let b = pick(rng, cfg.blocks())?;
            Some((RewriteKind::SplitBlock, ok(cfg.split_block(func, b, 0))))
        }
        7 | 8 => {
            let candidates: Vec<BlockId> = cfg
                .blocks()
                .iter()
                .copied()
                .filter(|&b| {
                    b != cfg.entry()
                        && func.blocks[b].insts.is_empty()
                        && matches!(func.blocks[b].terminator, Terminator::Br { target } if target != b)
                })
                .collect();
            let p = pick(rng, &candidates)?;
            Some((RewriteKind::RemovePassthrough, cfg.remove_passthrough(func, p)))
        }
        _ => {
            let (u, v) = pick(rng, &live_edges(cfg))?;
            let w = pick(rng, cfg.blocks())?;
            Some((RewriteKind::RedirectEdge, cfg.redirect_edge(func, u, v, w)))
        }
    }
}
