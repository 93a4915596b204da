//! The control-flow graph of one function as adjacency lists keyed by [`BlockId`].
//!
//! The graph is read off the blocks' terminators (`ir::Terminator::successors`) and then
//! owned by [`Cfg`](super::Cfg), which keeps it in step with the function through its
//! rewrite methods. Parallel edges (a `br i1 %c, label %a, label %a`, or several switch
//! cases with one target) are one edge here: every analysis is about which blocks are
//! connected, and the rewrites act on all parallel edges at once. Successors keep the
//! terminator's operand order (first occurrence), so traversals are deterministic.
//!
//! Blocks are the function's `layout` (IR order); blocks added by rewrites are appended, and
//! a removed block leaves the list (it stays in `Function::blocks`, an arena we cannot shrink).

use super::CfgError;
use crate::ir::{BlockId, Function};
use cranelift_entity::EntityRef;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::collections::HashSet;

pub type Adjacency = SmallVec<[BlockId; 2]>;

#[derive(Clone, Debug)]
pub struct Graph {
    entry: BlockId,
    /// Blocks in IR layout order, then blocks added by rewrites.
    blocks: Vec<BlockId>,
    present: SecondaryMap<BlockId, bool>,
    succs: SecondaryMap<BlockId, Adjacency>,
    preds: SecondaryMap<BlockId, Adjacency>,
}

/// Above this many successors, folding parallel edges uses a hash set instead of a scan
/// (a 100k-case switch would otherwise cost 10^10 comparisons).
const SCAN_LIMIT: usize = 16;

/// A terminator's successors with parallel edges folded, in first-occurrence order.
pub(crate) fn distinct_successors(func: &Function, b: BlockId) -> Adjacency {
    let all = func.blocks[b].terminator.successors();
    let mut out = Adjacency::with_capacity(all.len());
    if all.len() <= SCAN_LIMIT {
        for s in all {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    } else {
        let mut seen = HashSet::with_capacity(all.len());
        out.extend(all.into_iter().filter(|s| seen.insert(*s)));
    }
    out
}

/// Membership test for an adjacency list, linear for short lists.
fn membership(list: &[BlockId]) -> impl Fn(&BlockId) -> bool + '_ {
    let set: Option<HashSet<BlockId>> = (list.len() > SCAN_LIMIT).then(|| list.iter().copied().collect());
    move |b| match &set {
        Some(s) => s.contains(b),
        None => list.contains(b),
    }
}

impl Graph {
    /// The graph of a defined function. Fails on a declaration and on a terminator that
    /// names a block outside the layout (malformed IR: we refuse it rather than guess).
    pub fn from_function(func: &Function) -> Result<Graph, CfgError> {
        let entry = func.entry().ok_or_else(|| CfgError::Declaration { function: func.name.clone() })?;
        let mut g = Graph {
            entry,
            blocks: Vec::with_capacity(func.layout.len()),
            present: SecondaryMap::with_capacity(func.blocks.len()),
            succs: SecondaryMap::with_capacity(func.blocks.len()),
            preds: SecondaryMap::with_capacity(func.blocks.len()),
        };
        for &b in &func.layout {
            if !func.blocks.is_valid(b) {
                return Err(CfgError::UnknownBlock { function: func.name.clone(), block: b.index() as u32 });
            }
            if !g.present[b] {
                g.present[b] = true;
                g.blocks.push(b);
            }
        }
        for &b in &g.blocks {
            let succs = distinct_successors(func, b);
            for &s in &succs {
                if !func.blocks.is_valid(s) || !g.present[s] {
                    return Err(CfgError::UnknownTarget {
                        function: func.name.clone(),
                        block: func.block_label(b),
                        target: s.index() as u32,
                    });
                }
            }
            g.succs[b] = succs;
        }
        for i in 0..g.blocks.len() {
            let b = g.blocks[i];
            for j in 0..g.succs[b].len() {
                let s = g.succs[b][j];
                g.preds[s].push(b);
            }
        }
        Ok(g)
    }

    pub fn entry(&self) -> BlockId {
        self.entry
    }

    /// Every block, reachable or not: IR layout order, then blocks added by rewrites.
    pub fn blocks(&self) -> &[BlockId] {
        &self.blocks
    }

    pub fn contains(&self, b: BlockId) -> bool {
        self.present[b]
    }

    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succs[b]
    }

    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.preds[b]
    }

    pub fn has_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.present[from] && self.succs[from].contains(&to)
    }

    // Mutation, for the rewrites in `incremental.rs`. They keep `succs` equal to
    // `distinct_successors` of the (already rewritten) terminator.

    pub(crate) fn add_block(&mut self, b: BlockId) {
        debug_assert!(!self.present[b]);
        self.present[b] = true;
        self.blocks.push(b);
    }

    /// Forgets `b`; the caller has already detached its edges.
    pub(crate) fn remove_block(&mut self, b: BlockId) {
        debug_assert!(self.succs[b].is_empty() && self.preds[b].is_empty());
        self.present[b] = false;
        self.blocks.retain(|&x| x != b);
    }

    /// Replaces `from`'s successor list by the one its terminator now has, fixing preds.
    pub(crate) fn resync_successors(&mut self, func: &Function, from: BlockId) {
        let old = std::mem::take(&mut self.succs[from]);
        let new = distinct_successors(func, from);
        let (in_old, in_new) = (membership(&old), membership(&new));
        for s in old.iter().filter(|s| !in_new(s)) {
            self.preds[*s].retain(|p| *p != from);
        }
        for s in new.iter().filter(|s| !in_old(s)) {
            self.preds[*s].push(from);
        }
        drop((in_old, in_new));
        self.succs[from] = new;
    }
}
