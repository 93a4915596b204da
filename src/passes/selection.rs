//! Pass `selection`: choose a merge for every conditional branch and switch, making each
//! selection construct single-exit with break ladders where the input jumps across levels.
//!
//! Expects: every loop has one back edge (from its continue target), one exit (its merge)
//! and a header that needs no selection of its own (`loop_continue`, `loop_exit`,
//! `header_split`). The function then splits into *regions*: the function body outside all
//! loops, and the body of each loop with its inner loops collapsed to one node (header →
//! merge). Each region is acyclic; a loop region's continue target and merge are its
//! *structured exits* (continue and break), which any block may branch to.
//!
//! The merge choice is dominator-tree driven, after Ramsey ("Beyond Relooper", ICFP 2022)
//! rather than the reference translator's post-dominator heuristics: a header `x` must
//! merge at its *merge children* — the blocks it immediately dominates that have several
//! predecessors — because no header below `x` dominates them. Let `P` be the blocks `x`
//! dominates outside the subtrees of its merge children, and `T` the blocks outside `P`
//! that `P` branches to (structured exits aside). Then:
//! - `T` empty: every arm leaves by break, continue or return. The merge is the arm with
//!   the largest dominator subtree (so `if (c) { return; } rest` keeps `rest` unnested), or
//!   none for a two-way branch whose targets are all structured exits (a switch gets an
//!   unreachable merge block).
//! - `T` is a single merge child: it is the merge.
//! - otherwise: a new merge block collects every edge from `P` into `T`, and dispatches on
//!   a selector set on those edges (a ladder rung) when `T` has several blocks. The new
//!   block is a header in turn, handled later in the same way; this is how shared merges
//!   are split, how a selection exited to two outer targets is repaired, and how if-else
//!   ladders become nested selections without adding loops.
//!
//! Headers are decided in reverse post-order, so a header's decision is final when its
//! descendants are decided. Nothing is ever duplicated: convergent operations (barriers,
//! derivatives, wave ops) keep their single position.
//! Cost: one analysis per region; after a rewrite the region's dominator tree is patched
//! in place (the new merge, the targets and the construct's boundary blocks are the only
//! blocks whose immediate dominator can change; `VERIFY_INCREMENTAL` checks this against a
//! recomputation in the property tests). Each decision walks the header's construct, so
//! the pass is O(sum of construct sizes): linear for bounded nesting, quadratic for a chain
//! where each selection nests the rest of the function (`benches/structurize.rs`, the
//! unrolled-loop pattern; a block construct around such chains is the planned fix).

use super::graph::{Dfs, Doms, Work};
use super::plan::{Plan, StructurizeError};
use super::scfg::{OrigKind, Origin, SBlock, SyntheticKind, Term, Val, VarKind};
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

/// Membership of blocks in regions: `None` is the function region, `Some(i)` the body of
/// `plan.loops[i]`.
type RegionOf = SecondaryMap<SBlock, Option<Option<usize>>>;

pub fn run(work: &mut Work, plan: &mut Plan) -> Result<(), StructurizeError> {
    let mut region: RegionOf = SecondaryMap::new();
    for &b in &work.scfg.layout {
        region[b] = Some(None);
    }
    let bodies = loop_bodies(work, plan);
    for (li, body) in bodies.iter().enumerate() {
        for &b in body {
            region[b] = Some(Some(li));
        }
    }
    split_switch_exits(work, plan, &mut region);
    let mut used_as_merge: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    for l in &plan.loops {
        used_as_merge[l.continue_target] = true;
        if let Some(m) = l.merge {
            used_as_merge[m] = true;
        }
    }
    let mut loop_of_header: SecondaryMap<SBlock, Option<usize>> = SecondaryMap::new();
    for (i, l) in plan.loops.iter().enumerate() {
        loop_of_header[l.header] = Some(i);
    }
    let entry = work.scfg.entry;
    let mut regions: Vec<(Option<usize>, SBlock)> = vec![(None, entry)];
    regions.extend(plan.loops.iter().enumerate().map(|(i, l)| (Some(i), l.header)));
    for (r, entry) in regions {
        let size = match r {
            None => work.scfg.layout.len(),
            Some(i) => bodies[i].len(),
        };
        let mut region_pass = RegionPass {
            r,
            entry,
            region: &mut region,
            used_as_merge: &mut used_as_merge,
            selection_merge: SecondaryMap::new(),
            loop_of_header: &loop_of_header,
            in_p: SecondaryMap::new(),
            stamp: 0,
        };
        region_pass.run(work, plan, size)?;
    }
    Ok(())
}

/// An `OpSwitch` target must be its merge or a case the switch header dominates, so a
/// switch (or a ladder rung with three or more targets) cannot break or continue directly:
/// such slots get a case block of their own that does it. Slots with the same target and
/// the same edge values share one.
fn split_switch_exits(work: &mut Work, plan: &Plan, region: &mut RegionOf) {
    let mut exit_block: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    for l in &plan.loops {
        exit_block[l.continue_target] = true;
        if let Some(m) = l.merge {
            exit_block[m] = true;
        }
    }
    for b in work.scfg.layout.clone() {
        let switch_like = match &work.scfg.blocks[b].term {
            Term::Orig { block, .. } => work.scfg.orig_kind(*block) == OrigKind::Switch,
            Term::Dispatch { targets, .. } => targets.len() > 2,
            _ => false,
        };
        if !switch_like {
            continue;
        }
        let succs: SmallVec<[SBlock; 4]> = work.scfg.blocks[b].term.succs().iter().copied().collect();
        let mut made: Vec<(SBlock, Vec<super::scfg::EdgeDef>, SBlock)> = Vec::new();
        for (slot, &t) in succs.iter().enumerate() {
            if !exit_block[t] {
                continue;
            }
            let defs: Vec<super::scfg::EdgeDef> = work.scfg.blocks[b]
                .edge_defs
                .iter()
                .filter(|d| d.slot as usize == slot)
                .map(|d| super::scfg::EdgeDef { slot: 0, ..*d })
                .collect();
            let case = match made.iter().find(|(target, d, _)| *target == t && *d == defs) {
                Some(&(_, _, case)) => case,
                None => {
                    let case = work.add_block(Origin::Synthetic(SyntheticKind::EdgeSplit), Term::Goto(t));
                    work.scfg.blocks[case].edge_defs = defs.iter().copied().collect();
                    region[case] = region[b];
                    made.push((t, defs, case));
                    case
                }
            };
            work.scfg.blocks[b].edge_defs.retain(|d| d.slot as usize != slot);
            work.redirect(b, slot, case);
        }
    }
}

/// Loop bodies as the loop-exit pass defined them.
pub fn loop_bodies(work: &Work, plan: &Plan) -> Vec<Vec<SBlock>> {
    (0..plan.loops.len()).map(|li| super::graph::planned_loop_body(&work.preds, plan, li)).collect()
}

struct RegionPass<'r> {
    r: Option<usize>,
    entry: SBlock,
    region: &'r mut RegionOf,
    used_as_merge: &'r mut SecondaryMap<SBlock, bool>,
    /// Merges of selections decided in this region: they end enclosing constructs.
    selection_merge: SecondaryMap<SBlock, bool>,
    /// Index in `plan.loops` of the loop each header heads.
    loop_of_header: &'r SecondaryMap<SBlock, Option<usize>>,
    /// `in_p[b] == stamp`: `b` is in the construct being walked.
    in_p: SecondaryMap<SBlock, u32>,
    stamp: u32,
}

/// The acyclic graph of one region: its dominator tree and predecessor lists, updated in
/// place after each rewrite (see [`RegionPass::update_after_funnel`]).
struct RegionGraph {
    /// A strict order in which every block follows its immediate dominator (reverse
    /// post-order numbers; a new merge block slots in just before its first target).
    key: SecondaryMap<SBlock, (u64, u32)>,
    idom: SecondaryMap<SBlock, Option<SBlock>>,
    children: SecondaryMap<SBlock, SmallVec<[SBlock; 4]>>,
    /// Distinct predecessors inside the region.
    rpreds: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>>,
    collapsed: SecondaryMap<SBlock, bool>,
    /// Blocks in reverse post-order at analysis time (for verification).
    rpo: Vec<SBlock>,
}

impl RegionGraph {
    /// Nearest common dominator (Cooper, Harvey and Kennedy's intersection by order keys).
    fn intersect(&self, mut a: SBlock, mut b: SBlock) -> SBlock {
        while a != b {
            while self.key[a] > self.key[b] {
                a = self.idom[a].expect("non-root has an idom");
            }
            while self.key[b] > self.key[a] {
                b = self.idom[b].expect("non-root has an idom");
            }
        }
        a
    }

    fn set_idom(&mut self, b: SBlock, d: SBlock) {
        if let Some(old) = self.idom[b] {
            if old == d {
                return;
            }
            self.children[old].retain(|c| *c != b);
        }
        self.idom[b] = Some(d);
        self.children[d].push(b);
    }

    fn subtree_size(&self, b: SBlock) -> usize {
        let mut n = 0;
        let mut stack = vec![b];
        while let Some(x) = stack.pop() {
            n += 1;
            stack.extend(self.children[x].iter().copied());
        }
        n
    }
}

/// Makes tests compare the incrementally updated region analyses with a recomputation
/// after every rewrite.
pub static VERIFY_INCREMENTAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl RegionPass<'_> {
    fn sinks(&self, plan: &Plan) -> (Option<SBlock>, Option<SBlock>) {
        match self.r {
            None => (None, None),
            Some(i) => (Some(plan.loops[i].continue_target), plan.loops[i].merge),
        }
    }

    fn is_sink(&self, plan: &Plan, b: SBlock) -> bool {
        let (c, m) = self.sinks(plan);
        Some(b) == c || Some(b) == m
    }

    /// The inner loop headed by `b`, when `b` is collapsed in this region.
    fn inner_loop(&self, b: SBlock) -> Option<usize> {
        if b == self.entry && self.r.is_some() {
            return None;
        }
        self.loop_of_header[b]
    }

    /// Region successors: real successors minus structured exits; a collapsed inner loop
    /// goes to its merge (when anything reaches it).
    fn region_succs(&self, work: &Work, plan: &Plan, b: SBlock) -> SmallVec<[SBlock; 4]> {
        let mut out: SmallVec<[SBlock; 4]> = SmallVec::new();
        if let Some(li) = self.inner_loop(b) {
            let m = plan.loops[li].merge.expect("loop_exit ran");
            if !work.preds.slots_into(m).is_empty() {
                out.push(m);
            }
            return out;
        }
        for &s in work.scfg.blocks[b].term.succs() {
            if !self.is_sink(plan, s) && !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    fn analyse(&self, work: &Work, plan: &Plan) -> Result<RegionGraph, StructurizeError> {
        let dfs = Dfs::new(self.entry, |b| self.region_succs(work, plan, b));
        let mut rpreds: SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> = SecondaryMap::new();
        let mut collapsed: SecondaryMap<SBlock, bool> = SecondaryMap::new();
        for &b in &dfs.rpo {
            let inner = self.inner_loop(b);
            collapsed[b] = inner.is_some();
            let own = if inner.is_some() {
                // The inner loop's header belongs to its own region; it stands for the loop.
                true
            } else {
                self.region[b] == Some(self.r)
            };
            if !own {
                return Err(StructurizeError::Internal {
                    function: work.scfg.name.clone(),
                    pass: "selection",
                    message: format!(
                        "block {} leaves its region other than through a structured exit",
                        work.scfg.label(b)
                    ),
                });
            }
            for s in self.region_succs(work, plan, b) {
                rpreds[s].push(b);
            }
        }
        if !dfs.back_edges.is_empty() {
            let (from, to) = dfs.back_edges[0];
            return Err(StructurizeError::Internal {
                function: work.scfg.name.clone(),
                pass: "selection",
                message: format!(
                    "region has a cycle {} -> {} outside loop structure",
                    work.scfg.label(from),
                    work.scfg.label(to)
                ),
            });
        }
        let doms = Doms::new(&dfs, |b| rpreds[b].clone());
        let mut key: SecondaryMap<SBlock, (u64, u32)> = SecondaryMap::new();
        let mut idom: SecondaryMap<SBlock, Option<SBlock>> = SecondaryMap::new();
        let mut children: SecondaryMap<SBlock, SmallVec<[SBlock; 4]>> = SecondaryMap::new();
        for (i, &b) in dfs.rpo.iter().enumerate() {
            key[b] = (((i as u64) << 32) | (1 << 31), b.as_u32());
            idom[b] = doms.idom(b);
            children[b] = doms.children(b).iter().copied().collect();
        }
        Ok(RegionGraph { key, idom, children, rpreds, collapsed, rpo: dfs.rpo })
    }

    fn is_header(&self, work: &Work, g: &RegionGraph, b: SBlock) -> bool {
        if g.collapsed[b] || (self.r.is_some() && b == self.entry) {
            return false;
        }
        // Every conditional branch and switch gets decided, even one whose targets are all
        // the same block: SPIR-V counts its targets, not the distinct ones.
        match &work.scfg.blocks[b].term {
            Term::Orig { block, .. } => matches!(work.scfg.orig_kind(*block), OrigKind::CondBr | OrigKind::Switch),
            Term::Dispatch { targets, .. } => targets.len() >= 2,
            _ => false,
        }
    }

    fn is_switch(&self, work: &Work, b: SBlock) -> bool {
        match &work.scfg.blocks[b].term {
            Term::Orig { block, .. } => work.scfg.orig_kind(*block) == OrigKind::Switch,
            Term::Dispatch { targets, .. } => targets.len() > 2,
            _ => false,
        }
    }

    /// Decides every header of the region, walking the dominator tree in pre-order (a
    /// header after all headers that dominate it); the tree is updated in place as merge
    /// blocks are added, so the cost is that of the construct walks, not of re-analysis.
    fn run(&mut self, work: &mut Work, plan: &mut Plan, size: usize) -> Result<(), StructurizeError> {
        let limit = 8 * size + 64;
        let mut rewrites = 0usize;
        let mut decided: SecondaryMap<SBlock, bool> = SecondaryMap::new();
        let mut g = self.analyse(work, plan)?;
        let verify = VERIFY_INCREMENTAL.load(std::sync::atomic::Ordering::Relaxed);
        let mut stack = vec![self.entry];
        while let Some(x) = stack.pop() {
            if !decided[x] && self.is_header(work, &g, x) {
                decided[x] = true;
                if self.decide(work, plan, &mut g, x) {
                    rewrites += 1;
                    if rewrites > limit {
                        return Err(StructurizeError::NoConvergence {
                            function: work.scfg.name.clone(),
                            pass: "selection",
                            rewrites,
                        });
                    }
                    if verify {
                        self.verify(work, plan, &g)?;
                    }
                }
            }
            let mut kids = g.children[x].clone();
            kids.sort_by_key(|k| std::cmp::Reverse(g.key[*k]));
            stack.extend(kids);
        }
        Ok(())
    }

    /// Compares the incrementally maintained tree with a fresh analysis.
    fn verify(&self, work: &Work, plan: &Plan, g: &RegionGraph) -> Result<(), StructurizeError> {
        let fresh = self.analyse(work, plan)?;
        for &b in &fresh.rpo {
            let mut a: Vec<SBlock> = fresh.rpreds[b].to_vec();
            let mut c: Vec<SBlock> = g.rpreds[b].to_vec();
            a.sort();
            c.sort();
            if fresh.idom[b] != g.idom[b] || a != c {
                return Err(StructurizeError::Internal {
                    function: work.scfg.name.clone(),
                    pass: "selection",
                    message: format!(
                        "incremental analysis of {} disagrees with recomputation: idom {:?} vs {:?}",
                        work.scfg.label(b),
                        g.idom[b].map(|d| work.scfg.label(d)),
                        fresh.idom[b].map(|d| work.scfg.label(d)),
                    ),
                });
            }
        }
        Ok(())
    }

    /// Updates the region's tree after the edges `exits` (from the construct proper of `x`
    /// into `targets`) were redirected to the new block `m`. Only `m`, the targets and the
    /// `boundary` (dominator children of the construct outside it: merge children of `x`,
    /// merges of enclosing headers) can change immediate dominator: blocks inside the
    /// construct keep their predecessors, a target outside the subtree of `x` keeps its
    /// nearest common dominator (its other predecessors lie outside that subtree), and a
    /// block whose predecessors all lie below one boundary block moves with it.
    #[allow(clippy::too_many_arguments)]
    fn update_after_funnel(
        &self,
        work: &Work,
        plan: &Plan,
        g: &mut RegionGraph,
        m: SBlock,
        exits: &[(SBlock, usize, SBlock)],
        targets: &[SBlock],
        boundary: &[SBlock],
    ) {
        let mut sources: SmallVec<[SBlock; 4]> = SmallVec::new();
        for &(u, _, _) in exits {
            if !sources.contains(&u) {
                sources.push(u);
            }
        }
        g.collapsed[m] = false;
        for &t in targets {
            g.rpreds[t].retain(|p| !sources.contains(p));
            g.rpreds[t].push(m);
        }
        g.rpreds[m] = sources.iter().copied().collect();
        // Keys stay a topological order of the region: `m` goes between its sources and
        // its targets, or, when they interleave (or no gap is left), the region is renumbered.
        let lo = sources.iter().map(|&u| g.key[u].0).max().expect("sources");
        let hi = targets.iter().map(|&t| g.key[t].0).min().expect("targets");
        if hi > lo + 1 {
            g.key[m] = (lo + (hi - lo) / 2, m.as_u32());
        } else {
            self.renumber(work, plan, g);
        }
        let d = sources[1..].iter().fold(sources[0], |acc, &u| g.intersect(acc, u));
        g.idom[m] = None;
        g.set_idom(m, d);
        // Targets outside the subtree of `x` keep their immediate dominator (their other
        // predecessors lie outside it); the targets inside it are boundary blocks.
        let mut again: SmallVec<[SBlock; 8]> = boundary.iter().copied().collect();
        again.sort_by_key(|b| g.key[*b]);
        for b in again {
            let preds = g.rpreds[b].clone();
            let d = preds[1..].iter().fold(preds[0], |acc, &p| g.intersect(acc, p));
            g.set_idom(b, d);
        }
    }

    /// Numbers the region's blocks in reverse post-order again, spaced so that new blocks
    /// fit between them.
    fn renumber(&self, work: &Work, plan: &Plan, g: &mut RegionGraph) {
        let dfs = Dfs::new(self.entry, |b| self.region_succs(work, plan, b));
        for (i, &b) in dfs.rpo.iter().enumerate() {
            g.key[b] = (((i as u64) << 32) | (1 << 31), b.as_u32());
        }
    }

    /// Decides the merge of header `x`; returns whether the graph changed.
    fn decide(&mut self, work: &mut Work, plan: &mut Plan, g: &mut RegionGraph, x: SBlock) -> bool {
        // `if (c) break; rest`: one arm leaves the region and the other is entered only
        // from here; merging at the other arm keeps `rest` out of the construct.
        let mut inside: SmallVec<[SBlock; 2]> = SmallVec::new();
        for &s in work.scfg.blocks[x].term.succs() {
            if !self.is_sink(plan, s) && !inside.contains(&s) {
                inside.push(s);
            }
        }
        if let [c] = inside[..] {
            if g.rpreds[c].len() == 1 && !self.used_as_merge[c] {
                self.used_as_merge[c] = true;
                self.selection_merge[c] = true;
                plan.selections.push((x, Some(c)));
                return false;
            }
        }
        let merge_children: SmallVec<[SBlock; 4]> = {
            let mut mc: SmallVec<[SBlock; 4]> =
                g.children[x].iter().copied().filter(|&c| g.rpreds[c].len() >= 2).collect();
            mc.sort_by_key(|&c| g.key[c]);
            mc
        };
        // P: the construct proper, walked on the dominator tree.
        // Membership by stamp, so each walk costs the size of the construct, not of the region.
        self.stamp += 1;
        let stamp = self.stamp;
        let mut p_blocks: Vec<SBlock> = Vec::new();
        // Dominator children of the construct that are not in it: the only blocks besides
        // the targets whose immediate dominator a rewrite here can change.
        let mut boundary: SmallVec<[SBlock; 4]> = SmallVec::new();
        let mut stack = vec![x];
        while let Some(b) = stack.pop() {
            self.in_p[b] = stamp;
            p_blocks.push(b);
            for &c in &g.children[b] {
                // Merge children (children of x only) start the code after the construct;
                // a merge of an enclosing header ends it.
                if !(b == x && merge_children.contains(&c)) && !self.selection_merge[c] {
                    stack.push(c);
                } else {
                    boundary.push(c);
                }
            }
        }
        // (The walk order is deterministic: children lists are built deterministically.)
        let mut targets: SmallVec<[SBlock; 4]> = SmallVec::new();
        let mut exits: Vec<(SBlock, usize, SBlock)> = Vec::new();
        for &u in &p_blocks {
            if g.collapsed[u] {
                continue;
            }
            for (slot, &s) in work.scfg.blocks[u].term.succs().iter().enumerate() {
                if self.is_sink(plan, s) || self.in_p[s] == stamp {
                    continue;
                }
                exits.push((u, slot, s));
                if !targets.contains(&s) {
                    targets.push(s);
                }
            }
        }
        if targets.is_empty() {
            // Every arm leaves the region or ends: merge at the biggest arm.
            let arm = work.scfg.blocks[x]
                .term
                .succs()
                .iter()
                .copied()
                .filter(|&s| !self.is_sink(plan, s) && !self.used_as_merge[s])
                .max_by_key(|&s| (g.subtree_size(s), std::cmp::Reverse(g.key[s])));
            match arm {
                Some(c) => {
                    self.used_as_merge[c] = true;
                    self.selection_merge[c] = true;
                plan.selections.push((x, Some(c)));
                    false
                }
                None if self.is_switch(work, x) => {
                    let m = work.add_block(Origin::Synthetic(SyntheticKind::UnreachableMerge), Term::Unreachable);
                    self.region[m] = Some(self.r);
                    self.used_as_merge[m] = true;
                    self.selection_merge[m] = true;
            plan.selections.push((x, Some(m)));
                    // No edge changed: the region's analyses stay valid.
                    false
                }
                None => {
                    plan.selections.push((x, None));
                    false
                }
            }
        } else if targets.len() == 1 && merge_children.contains(&targets[0]) && !self.used_as_merge[targets[0]] {
            self.used_as_merge[targets[0]] = true;
            self.selection_merge[targets[0]] = true;
            plan.selections.push((x, Some(targets[0])));
            false
        } else {
            let m = if targets.len() == 1 {
                let m = work.add_block(Origin::Synthetic(SyntheticKind::SelectionMerge), Term::Goto(targets[0]));
                for &(u, slot, _) in &exits {
                    work.redirect(u, slot, m);
                }
                m
            } else {
                let var = work.scfg.vars.push(VarKind::Selector);
                let m = work.add_block(
                    Origin::Synthetic(SyntheticKind::SelectionMerge),
                    Term::Dispatch { var, targets: targets.clone() },
                );
                for &(u, slot, s) in &exits {
                    let k = targets.iter().position(|&t| t == s).expect("exit target") as u32;
                    work.redirect(u, slot, m);
                    work.add_edge_def(u, slot, var, Val::Const(k));
                }
                m
            };
            self.region[m] = Some(self.r);
            self.used_as_merge[m] = true;
            self.selection_merge[m] = true;
            plan.selections.push((x, Some(m)));
            self.update_after_funnel(work, plan, g, m, &exits, &targets, &boundary);
            true
        }
    }
}
