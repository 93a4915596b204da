//! The passes' working graph: [`Work`], an [`Scfg`] with predecessor lists kept in step with
//! its slot rewrites, and the rewrite primitives; [`ScfgView`], a graph and its predecessor
//! lists as a [`FlowGraph`], for the orders, dominator trees and loop forest of
//! `crate::cfg` ([`Work::view`]); and [`loop_body`], the reference definition of a loop
//! body that the verification mode compares the loop forest with.
//!
//! Every list of distinct blocks built here and in the passes goes through [`Distinct`]:
//! a switch with k cases would otherwise cost O(k²) in `contains` scans.

use super::scfg::{Block, EdgeDef, Origin, SBlock, Scfg, Term, Val, VarId};
use crate::cfg::flow::FlowGraph;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::collections::HashSet;

/// Lists above this length get a hash set for membership (below it a scan is faster).
const SCAN_LIMIT: usize = 16;

/// Blocks without repeats, in first-insertion order: membership by a scan while the list is
/// short, by a hash set beyond `SCAN_LIMIT` entries, so n insertions cost O(n).
#[derive(Clone, Debug, Default)]
pub struct Distinct {
    list: SmallVec<[SBlock; 4]>,
    set: Option<HashSet<SBlock>>,
}

impl Distinct {
    pub fn new() -> Distinct {
        Distinct::default()
    }

    /// The distinct blocks of `blocks`, in first-occurrence order.
    pub fn of(blocks: impl IntoIterator<Item = SBlock>) -> Distinct {
        let mut d = Distinct::new();
        for b in blocks {
            d.insert(b);
        }
        d
    }

    pub fn contains(&self, b: SBlock) -> bool {
        match &self.set {
            Some(set) => set.contains(&b),
            None => self.list.contains(&b),
        }
    }

    /// Adds `b` unless present; returns whether it was added.
    pub fn insert(&mut self, b: SBlock) -> bool {
        if self.contains(b) {
            return false;
        }
        self.list.push(b);
        match &mut self.set {
            Some(set) => {
                set.insert(b);
            }
            None if self.list.len() > SCAN_LIMIT => self.set = Some(self.list.iter().copied().collect()),
            None => {}
        }
        true
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn as_slice(&self) -> &[SBlock] {
        &self.list
    }

    pub fn into_list<const N: usize>(self) -> SmallVec<[SBlock; N]>
    where
        [SBlock; N]: smallvec::Array<Item = SBlock>,
    {
        self.list.into_iter().collect()
    }
}

/// The position of each block of `targets` (the first, when repeated): a scan for short
/// lists, a hash map for long ones (a dispatch with thousands of targets).
pub struct TargetIndex<'a> {
    targets: &'a [SBlock],
    map: Option<std::collections::HashMap<SBlock, u32>>,
}

impl<'a> TargetIndex<'a> {
    pub fn new(targets: &'a [SBlock]) -> TargetIndex<'a> {
        let map = (targets.len() > SCAN_LIMIT).then(|| {
            let mut m = std::collections::HashMap::with_capacity(targets.len());
            for (i, &t) in targets.iter().enumerate() {
                m.entry(t).or_insert(i as u32);
            }
            m
        });
        TargetIndex { targets, map }
    }

    pub fn position(&self, b: SBlock) -> Option<u32> {
        match &self.map {
            Some(m) => m.get(&b).copied(),
            None => self.targets.iter().position(|&t| t == b).map(|i| i as u32),
        }
    }
}

/// Predecessors with one entry per successor slot (parallel edges repeat), so that a slot
/// rewrite removes exactly one entry.
#[derive(Clone, Debug, Default)]
pub struct Preds {
    lists: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>>,
}

impl Preds {
    pub fn compute(scfg: &Scfg) -> Preds {
        let mut lists: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> = SecondaryMap::new();
        for &b in &scfg.layout {
            for &s in scfg.blocks[b].term.succs() {
                lists[s].push(b);
            }
        }
        Preds { lists }
    }

    /// Predecessors with multiplicity (one per slot).
    pub fn slots_into(&self, b: SBlock) -> &[SBlock] {
        &self.lists[b]
    }

    /// Distinct predecessors, in first-slot order.
    pub fn distinct(&self, b: SBlock) -> SmallVec<[SBlock; 2]> {
        // A shared break or merge block can have thousands of predecessors.
        Distinct::of(self.lists[b].iter().copied()).into_list()
    }

    pub fn count_distinct(&self, b: SBlock) -> usize {
        let l = &self.lists[b];
        if l.len() <= 1 {
            return l.len();
        }
        self.distinct(b).len()
    }

    fn remove_one(&mut self, target: SBlock, pred: SBlock) {
        let l = &mut self.lists[target];
        if let Some(i) = l.iter().position(|&p| p == pred) {
            l.remove(i);
        }
    }

    fn add(&mut self, target: SBlock, pred: SBlock) {
        self.lists[target].push(pred);
    }
}

/// An [`Scfg`] plus predecessor lists, with the rewrite primitives the passes use.
pub struct Work<'a> {
    pub scfg: &'a mut Scfg,
    pub preds: Preds,
}

impl<'a> Work<'a> {
    pub fn new(scfg: &'a mut Scfg) -> Work<'a> {
        let preds = Preds::compute(scfg);
        Work { scfg, preds }
    }

    /// The graph as it is now, for the analyses of `crate::cfg`.
    pub fn view(&self) -> ScfgView<'_> {
        ScfgView { scfg: self.scfg, preds: &self.preds }
    }

    /// Adds a block (appended to the layout; the marking pass orders it).
    pub fn add_block(&mut self, origin: Origin, term: Term) -> SBlock {
        let b = self.scfg.blocks.push(Block::new(origin, term));
        for &s in self.scfg.blocks[b].term.succs() {
            self.preds.add(s, b);
        }
        self.scfg.layout.push(b);
        b
    }

    /// Points successor slot `slot` of `from` at `to`; the slot's edge definitions stay.
    pub fn redirect(&mut self, from: SBlock, slot: usize, to: SBlock) {
        let old = self.scfg.blocks[from].term.succs()[slot];
        if old == to {
            return;
        }
        self.scfg.blocks[from].term.succs_mut()[slot] = to;
        self.preds.remove_one(old, from);
        self.preds.add(to, from);
    }

    /// Replaces the terminator of `b`, keeping predecessor lists right. Edge definitions
    /// are replaced by `defs`.
    pub fn set_term(&mut self, b: SBlock, term: Term, defs: SmallVec<[EdgeDef; 2]>) {
        let old: SmallVec<[SBlock; 4]> = self.scfg.blocks[b].term.succs().iter().copied().collect();
        for s in old {
            self.preds.remove_one(s, b);
        }
        for &s in term.succs() {
            self.preds.add(s, b);
        }
        self.scfg.blocks[b].term = term;
        self.scfg.blocks[b].edge_defs = defs;
    }

    pub fn add_edge_def(&mut self, from: SBlock, slot: usize, def_var: VarId, val: Val) {
        self.scfg.blocks[from].edge_defs.push(EdgeDef { slot: slot as u32, var: def_var, val });
    }
}

/// A structurized graph with its predecessor lists, as a [`FlowGraph`] for the analyses of
/// `crate::cfg` (successors one per slot, predecessors with the same repeats).
#[derive(Clone, Copy)]
pub struct ScfgView<'a> {
    pub scfg: &'a Scfg,
    pub preds: &'a Preds,
}

impl FlowGraph for ScfgView<'_> {
    type Node = SBlock;

    fn entry(&self) -> SBlock {
        self.scfg.entry
    }

    fn successors(&self, b: SBlock) -> impl Iterator<Item = SBlock> {
        self.scfg.blocks[b].term.succs().iter().copied()
    }

    fn predecessors(&self, b: SBlock) -> impl Iterator<Item = SBlock> {
        self.preds.slots_into(b).iter().copied()
    }

    fn node_bound(&self) -> usize {
        self.scfg.blocks.len()
    }
}

/// Blocks that reach one of `latches` without passing `header`, plus `header`, plus
/// `extra` blocks (and what reaches them inside the loop). Header first, then discovery order.
/// O(body); the passes use the loop forest, and this is the definition it is checked against.
pub fn loop_body(preds: &Preds, header: SBlock, latches: &[SBlock], extra: &[SBlock]) -> Vec<SBlock> {
    let mut seen: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    let mut body = vec![header];
    seen[header] = true;
    let mut stack: Vec<SBlock> = Vec::new();
    for &l in latches.iter().chain(extra) {
        if !seen[l] {
            seen[l] = true;
            body.push(l);
            stack.push(l);
        }
    }
    while let Some(b) = stack.pop() {
        for &p in preds.slots_into(b) {
            if !seen[p] {
                seen[p] = true;
                body.push(p);
                stack.push(p);
            }
        }
    }
    body
}

/// Membership set over blocks.
pub fn member_set(blocks: &[SBlock]) -> SecondaryMap<SBlock, bool> {
    let mut set = SecondaryMap::new();
    for &b in blocks {
        set[b] = true;
    }
    set
}
