//! The control-flow graph of one function as adjacency lists keyed by [`BlockId`].
//!
//! The graph is read off the blocks' terminators (`ir::Terminator::successors`), once, by
//! [`Graph::from_function`]; the analyses read it through [`FlowGraph`]. Parallel edges (a
//! `br i1 %c, label %a, label %a`, or several switch cases with one target) are one edge
//! here: the analyses of an IR function are about which blocks are connected. Successors
//! keep the terminator's operand order (first occurrence), so traversals are deterministic.
//! Blocks are the function's `layout` (IR order), unreachable ones included.

use super::error::CfgError;
use super::flow::FlowGraph;
use crate::ir::{BlockId, Function};
use cranelift_entity::EntityRef;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::collections::HashSet;

pub type Adjacency = SmallVec<[BlockId; 2]>;

#[derive(Clone, Debug)]
pub struct Graph {
    entry: BlockId,
    /// Blocks in IR layout order.
    blocks: Vec<BlockId>,
    present: SecondaryMap<BlockId, bool>,
    succs: SecondaryMap<BlockId, Adjacency>,
    preds: SecondaryMap<BlockId, Adjacency>,
    /// One more than the largest block index.
    bound: usize,
}

/// Above this many successors, folding parallel edges uses a hash set instead of a scan
/// (a 100k-case switch would otherwise cost 10^10 comparisons).
const SCAN_LIMIT: usize = 16;

/// A terminator's successors with parallel edges folded, in first-occurrence order.
fn distinct_successors(func: &Function, b: BlockId) -> Adjacency {
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
            bound: 0,
        };
        for &b in &func.layout {
            if !func.blocks.is_valid(b) {
                return Err(CfgError::UnknownBlock { function: func.name.clone(), block: b.index() as u32 });
            }
            if !g.present[b] {
                g.present[b] = true;
                g.bound = g.bound.max(b.index() + 1);
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

    /// Every block, reachable or not, in IR layout order.
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
}

impl FlowGraph for Graph {
    type Node = BlockId;

    fn entry(&self) -> BlockId {
        self.entry
    }

    fn successors(&self, b: BlockId) -> impl Iterator<Item = BlockId> {
        self.succs[b].iter().copied()
    }

    fn predecessors(&self, b: BlockId) -> impl Iterator<Item = BlockId> {
        self.preds[b].iter().copied()
    }

    fn node_bound(&self) -> usize {
        self.bound
    }
}
