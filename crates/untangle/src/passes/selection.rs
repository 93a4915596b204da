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
//! Two refinements keep long chains flat and the pass near-linear:
//! - *Stub arms*: when every arm but one is small (at most `STUB_BUDGET` blocks) and
//!   leaves only by break, continue or return, and the remaining arm is entered only from
//!   the header, that arm is the merge, found without walking the construct
//!   (`if (c) { ...; break; } rest` keeps `rest` unnested, like `if (c) break;`).
//! - *Block constructs*: when a funnel's exits leave from `BLOCK_CONSTRUCT_DEPTH` or
//!   more selection levels below the header, every level would need a merge block of its
//!   own that forwards to the next (for DXC's unrolled loops with interleaved breaks, a
//!   chain of N nested merges, O(N²) to build). Instead the construct is wrapped in a loop
//!   that runs once (an unreachable continue target), whose merge is the funnel: inside,
//!   every exit is a `break`, legal from any depth. The wrapped blocks become a region of
//!   their own, decided after the current one. This is the reference translator's "block
//!   construct", used only where the nesting asks for it.
//!
//! Headers are decided in reverse post-order, so a header's decision is final when its
//! descendants are decided. Nothing is ever duplicated: convergent operations (barriers,
//! derivatives, wave ops) keep their single position.
//! Cost: one analysis per region; after a rewrite the region's dominator tree is patched
//! in place (the new merge, the targets and the construct's boundary blocks are the only
//! blocks whose immediate dominator can change; `Options::verify` checks this against a
//! recomputation in the property tests), with the merge's dominator found by marking
//! paths rather than pairwise intersection. Each funnel walks the header's construct, so
//! the pass is O(sum of funnelled construct sizes): linear for bounded nesting; the chains
//! that would nest deeply become block constructs (`benches/structurize.rs`, the
//! unrolled-loop pattern, measured up to N = 4,096 iterations).

use super::block_table::BlockTable;
use super::graph::{Distinct, TargetIndex, Work};
use super::plan::{planned_loop_body, LoopPlan, Plan, StructurizeError};
use super::scfg::{EdgeDef, OrigKind, Origin, SBlock, SyntheticKind, Term, Val, VarKind};
use crate::cfg::dominators::idoms_in_rpo;
use crate::cfg::order::{depth_first, DfsMark};
use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;
use std::collections::HashMap;

/// Membership of blocks in regions: `None` is the function region, `Some(i)` the body of
/// `plan.loops[i]`.
type RegionOf = SecondaryMap<SBlock, Option<Option<usize>>>;

/// `verify`: check the regions read from the loop forest against the body walks, and the
/// incrementally patched region trees against a recomputation after every rewrite
/// (`Options::verify`; O(region) per rewrite).
pub fn run(work: &mut Work, plan: &mut Plan, verify: bool) -> Result<(), StructurizeError> {
    // Each block's region is its innermost loop (loops nested in a region are collapsed
    // there), and a loop's size bound is its whole body.
    let mut region: RegionOf = SecondaryMap::new();
    for &b in &work.scfg.layout {
        region[b] = Some(plan.nest.innermost(b).map(|l| l.index()));
    }
    let body_sizes = plan.nest.body_sizes(&work.scfg.layout);
    if verify {
        verify_regions(work, plan, &region, &body_sizes)?;
    }
    split_switch_exits(work, plan, &mut region);
    let mut used_as_merge: SecondaryMap<SBlock, bool> = SecondaryMap::new();
    let mut loop_of_merge: SecondaryMap<SBlock, Option<usize>> = SecondaryMap::new();
    for (i, l) in plan.loops.iter().enumerate() {
        used_as_merge[l.continue_target] = true;
        if let Some(m) = l.merge {
            used_as_merge[m] = true;
            loop_of_merge[m] = Some(i);
        }
    }
    let mut loop_of_header: SecondaryMap<SBlock, Option<usize>> = SecondaryMap::new();
    for (i, l) in plan.loops.iter().enumerate() {
        loop_of_header[l.header] = Some(i);
    }
    let mut selection_of_merge: SecondaryMap<SBlock, Option<usize>> = SecondaryMap::new();
    let entry = work.scfg.entry;
    // Regions to decide: the function body, every loop body, and the bodies of the block
    // constructs added on the way (appended as they are made).
    let mut regions: Vec<(Option<usize>, SBlock, usize)> = vec![(None, entry, work.scfg.layout.len())];
    regions.extend(plan.loops.iter().enumerate().map(|(i, l)| (Some(i), l.header, body_sizes[i])));
    // One set of per-block tables for all regions, cleared in O(1) between them.
    let mut tables = RegionTables::default();
    let mut graph = RegionGraph::default();
    let mut next = 0;
    while next < regions.len() {
        let (r, entry, size) = regions[next];
        next += 1;
        let mut new_regions = Vec::new();
        tables.clear();
        let mut region_pass = RegionPass {
            r,
            entry,
            region: &mut region,
            used_as_merge: &mut used_as_merge,
            loop_of_header: &mut loop_of_header,
            loop_of_merge: &mut loop_of_merge,
            selection_of_merge: &mut selection_of_merge,
            new_regions: &mut new_regions,
            t: &mut tables,
            stamp: 0,
            verify,
        };
        region_pass.run(work, plan, size, &mut graph)?;
        regions.extend(new_regions);
    }
    Ok(())
}

/// An internal error of this pass in `work`'s function.
#[cold]
fn internal(work: &Work, message: String) -> StructurizeError {
    StructurizeError::Internal { function: work.scfg.name.clone(), pass: "selection", message }
}

/// Verification mode: the regions and body sizes read from the loop nest are those of the
/// walk-based bodies ([`loop_bodies`]).
fn verify_regions(work: &Work, plan: &Plan, region: &RegionOf, sizes: &[usize]) -> Result<(), StructurizeError> {
    let bodies = loop_bodies(work, plan);
    let mut expected: RegionOf = SecondaryMap::new();
    for &b in &work.scfg.layout {
        expected[b] = Some(None);
    }
    for (li, body) in bodies.iter().enumerate() {
        for &b in body {
            expected[b] = Some(Some(li));
        }
    }
    let wrong_block = work.scfg.layout.iter().find(|&&b| expected[b] != region[b]);
    let wrong_size = bodies.iter().zip(sizes).position(|(body, &n)| body.len() != n);
    if wrong_block.is_some() || wrong_size.is_some() {
        return Err(internal(
            work,
            format!(
                "the loop nest disagrees with the body walk: block {:?}, size of loop {:?}",
                wrong_block.map(|&b| work.scfg.label(b)),
                wrong_size
            ),
        ));
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
        for case in split_exit_slots(work, b, |t| exit_block[t]) {
            region[case] = region[b];
        }
    }
}

/// Whether `b` becomes an `OpSwitch`: a switch, or a ladder rung with three or more targets.
fn is_switch_like(work: &Work, b: SBlock) -> bool {
    match &work.scfg.blocks[b].term {
        Term::Orig { block, .. } => work.scfg.orig_kind(*block) == OrigKind::Switch,
        Term::Dispatch { targets, .. } => targets.len() > 2,
        _ => false,
    }
}

/// Gives every slot of the switch-like block `b` that targets a block with `is_exit` a case
/// block of its own that goes there; returns the new blocks. O(slots + edge definitions).
fn split_exit_slots(work: &mut Work, b: SBlock, is_exit: impl Fn(SBlock) -> bool) -> SmallVec<[SBlock; 2]> {
    let mut new_blocks: SmallVec<[SBlock; 2]> = SmallVec::new();
    if !is_switch_like(work, b) {
        return new_blocks;
    }
    let succs: SmallVec<[SBlock; 4]> = work.scfg.blocks[b].term.succs().iter().copied().collect();
    if !succs.iter().any(|&t| is_exit(t)) {
        return new_blocks;
    }
    // Each slot's definitions, in their order (as the case block will hold them).
    let mut slot_defs: Vec<Vec<EdgeDef>> = vec![Vec::new(); succs.len()];
    for d in &work.scfg.blocks[b].edge_defs {
        if let Some(defs) = slot_defs.get_mut(d.slot as usize) {
            defs.push(EdgeDef { slot: 0, ..*d });
        }
    }
    let mut made: HashMap<(SBlock, Vec<EdgeDef>), SBlock> = HashMap::new();
    let mut split = vec![false; succs.len()];
    for (slot, &t) in succs.iter().enumerate() {
        if !is_exit(t) {
            continue;
        }
        let defs = std::mem::take(&mut slot_defs[slot]);
        let case = match made.get(&(t, defs.clone())) {
            Some(&case) => case,
            None => {
                let case = work.add_block(Origin::Synthetic(SyntheticKind::EdgeSplit), Term::Goto(t));
                work.scfg.blocks[case].edge_defs = defs.iter().copied().collect();
                made.insert((t, defs), case);
                new_blocks.push(case);
                case
            }
        };
        split[slot] = true;
        work.redirect(b, slot, case);
    }
    work.scfg.blocks[b].edge_defs.retain(|d| !split.get(d.slot as usize).copied().unwrap_or(false));
    new_blocks
}

/// Loop bodies as the loop-exit pass defines them, by walking each (O(n · depth); the
/// pass reads them from `Plan::nest`, and this is what the verification mode compares).
pub fn loop_bodies(work: &Work, plan: &Plan) -> Vec<Vec<SBlock>> {
    (0..plan.loops.len()).map(|li| planned_loop_body(&work.preds, plan, li)).collect()
}

struct RegionPass<'r> {
    r: Option<usize>,
    entry: SBlock,
    region: &'r mut RegionOf,
    used_as_merge: &'r mut SecondaryMap<SBlock, bool>,
    /// Index in `plan.loops` of the loop each header heads.
    loop_of_header: &'r mut SecondaryMap<SBlock, Option<usize>>,
    /// Index in `plan.loops` of the loop each merge block ends.
    loop_of_merge: &'r mut SecondaryMap<SBlock, Option<usize>>,
    /// Index in `plan.selections` of the selection each merge block ends.
    selection_of_merge: &'r mut SecondaryMap<SBlock, Option<usize>>,
    /// Bodies of block constructs made here: (loop index, header, size bound).
    new_regions: &'r mut Vec<(Option<usize>, SBlock, usize)>,
    /// This region's tables.
    t: &'r mut RegionTables,
    stamp: u32,
    /// Compare the patched region tree with a recomputation after every rewrite.
    verify: bool,
}

/// Declares a struct of per-block scratch tables (and other clearable collections) with a
/// `clear` that empties every field, so that a new field cannot be left out of it.
macro_rules! scratch_tables {
    ($(#[$meta:meta])* struct $name:ident { $($(#[$fmeta:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        struct $name {
            $($(#[$fmeta])* $field: $ty,)*
        }

        impl $name {
            fn clear(&mut self) {
                $(self.$field.clear();)*
            }
        }
    };
}

scratch_tables! {
    /// Per-block tables of one region, allocated once per pass and cleared between regions in
    /// O(1) (fresh maps per region would cost O(function) each: see [`BlockTable`]).
    #[derive(Default)]
    struct RegionTables {
        /// Merges of selections decided in this region: they end enclosing constructs.
        selection_merge: BlockTable<bool>,
        /// A header that a block construct moved out of this region, and the construct's
        /// header that took its place.
        replaced: BlockTable<Option<SBlock>>,
        /// `in_p[b] == stamp`: `b` is in the construct being walked.
        in_p: BlockTable<u32>,
        /// `merge_child[b] == stamp`: `b` is a merge child of the header being decided.
        merge_child: BlockTable<u32>,
        /// Selection nesting of a block of the walked construct below its header (estimated
        /// on the dominator tree: a header's non-merge children are one level deeper).
        depth: BlockTable<u32>,
        /// Scratch for [`RegionPass::common_dominator`].
        join: BlockTable<Option<SBlock>>,
        join_stamp: BlockTable<u32>,
        /// Headers decided in this region.
        decided: BlockTable<bool>,
        /// Scratch for the region's depth-first searches.
        dfs_marks: BlockTable<DfsMark>,
        /// RPO position of each block of the region (dense indices for the dominator tree).
        local: BlockTable<u32>,
    }
}

/// Exits this many selection levels deep make a block construct rather than a chain of
/// nested merge blocks (see [`RegionPass::block_construct`]).
const BLOCK_CONSTRUCT_DEPTH: u32 = 2;

/// How many blocks an arm may have to count as a stub (see [`RegionPass::stub_arms_merge`]).
const STUB_BUDGET: usize = 64;

/// What walking an arm found.
enum Arm {
    /// A small arm that leaves only by structured exits (break, continue, return).
    Stub,
    /// More blocks than the budget.
    Big,
    /// It reaches a block outside its dominator subtree.
    Joins,
}

scratch_tables! {
    /// The acyclic graph of one region: its dominator tree and predecessor lists, updated in
    /// place after each rewrite (see [`RegionPass::update_after_funnel`]). One per pass, its
    /// tables cleared for each region.
    #[derive(Default)]
    struct RegionGraph {
        /// A strict order in which every block follows its immediate dominator (reverse
        /// post-order numbers; a new merge block slots in just before its first target).
        key: BlockTable<(u64, u32)>,
        idom: BlockTable<Option<SBlock>>,
        children: BlockTable<SmallVec<[SBlock; 4]>>,
        /// Distinct predecessors inside the region.
        rpreds: BlockTable<SmallVec<[SBlock; 2]>>,
        collapsed: BlockTable<bool>,
        /// Blocks in reverse post-order at analysis time (for verification).
        rpo: Vec<SBlock>,
    }
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
        if let Some(li) = self.inner_loop(b) {
            let mut out: SmallVec<[SBlock; 4]> = SmallVec::new();
            let m = plan.loops[li].merge.expect("loop_exit ran");
            if !work.preds.slots_into(m).is_empty() {
                out.push(m);
            }
            return out;
        }
        let (c, m) = self.sinks(plan);
        let succs = work.scfg.blocks[b].term.succs().iter().copied();
        Distinct::of(succs.filter(|&s| Some(s) != c && Some(s) != m)).into_list()
    }

    /// The region's depth-first search from its entry: blocks in RPO and back edges.
    fn region_dfs(&mut self, work: &Work, plan: &Plan) -> (Vec<SBlock>, Vec<(SBlock, SBlock)>) {
        let mut marks = std::mem::take(&mut self.t.dfs_marks);
        marks.clear();
        let order = depth_first(self.entry, |b| self.region_succs(work, plan, b), &mut marks);
        self.t.dfs_marks = marks;
        order
    }

    /// Fills `g` (cleared first) with the region's graph and dominator tree. O(region).
    fn analyse(&mut self, work: &Work, plan: &Plan, g: &mut RegionGraph) -> Result<(), StructurizeError> {
        g.clear();
        let (rpo, back_edges) = self.region_dfs(work, plan);
        for &b in &rpo {
            let inner = self.inner_loop(b);
            g.collapsed[b] = inner.is_some();
            let own = if inner.is_some() {
                // The inner loop's header belongs to its own region; it stands for the loop.
                true
            } else {
                self.region[b] == Some(self.r)
            };
            if !own {
                return Err(internal(
                    work,
                    format!("block {} leaves its region other than through a structured exit", work.scfg.label(b)),
                ));
            }
            for s in self.region_succs(work, plan, b) {
                g.rpreds[s].push(b);
            }
        }
        if !back_edges.is_empty() {
            let (from, to) = back_edges[0];
            return Err(internal(
                work,
                format!(
                    "region has a cycle {} -> {} outside loop structure",
                    work.scfg.label(from),
                    work.scfg.label(to)
                ),
            ));
        }
        self.t.local.clear();
        for (i, &b) in rpo.iter().enumerate() {
            self.t.local[b] = i as u32;
        }
        let local = &self.t.local;
        let idom = idoms_in_rpo(rpo.len(), |i, row| row.extend(g.rpreds[rpo[i]].iter().map(|&p| local[p])));
        for (i, &b) in rpo.iter().enumerate() {
            g.key[b] = (((i as u64) << 32) | (1 << 31), b.as_u32());
            if i > 0 {
                let d = rpo[idom[i] as usize];
                g.idom[b] = Some(d);
                g.children[d].push(b);
            }
        }
        g.rpo = rpo;
        Ok(())
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

    /// Decides every header of the region, walking the dominator tree in pre-order (a
    /// header after all headers that dominate it); the tree is updated in place as merge
    /// blocks are added, so the cost is that of the construct walks, not of re-analysis.
    fn run(
        &mut self,
        work: &mut Work,
        plan: &mut Plan,
        size: usize,
        g: &mut RegionGraph,
    ) -> Result<(), StructurizeError> {
        let limit = 8 * size + 64;
        let mut rewrites = 0usize;
        self.analyse(work, plan, g)?;
        let verify = self.verify;
        let mut stack = vec![self.entry];
        while let Some(x) = stack.pop() {
            if !self.t.decided[x] && self.is_header(work, g, x) {
                self.t.decided[x] = true;
                if self.decide(work, plan, g, x) {
                    rewrites += 1;
                    if rewrites > limit {
                        return Err(StructurizeError::NoConvergence {
                            function: work.scfg.name.clone(),
                            pass: "selection",
                            rewrites,
                        });
                    }
                    if verify {
                        self.verify(work, plan, g)?;
                    }
                }
            }
            let node = self.t.replaced[x].unwrap_or(x);
            let mut kids = g.children[node].clone();
            kids.sort_by_key(|k| std::cmp::Reverse(g.key[*k]));
            stack.extend(kids);
        }
        Ok(())
    }

    /// Compares the incrementally maintained tree with a fresh analysis.
    fn verify(&mut self, work: &Work, plan: &Plan, g: &RegionGraph) -> Result<(), StructurizeError> {
        let mut fresh = RegionGraph::default();
        self.analyse(work, plan, &mut fresh)?;
        for &b in &fresh.rpo {
            let mut a: Vec<SBlock> = fresh.rpreds[b].to_vec();
            let mut c: Vec<SBlock> = g.rpreds[b].to_vec();
            a.sort();
            c.sort();
            if fresh.idom[b] != g.idom[b] || a != c {
                return Err(internal(
                    work,
                    format!(
                        "incremental analysis of {} disagrees with recomputation: idom {:?} vs {:?}",
                        work.scfg.label(b),
                        g.idom[b].map(|d| work.scfg.label(d)),
                        fresh.idom[b].map(|d| work.scfg.label(d)),
                    ),
                ));
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
        &mut self,
        work: &Work,
        plan: &Plan,
        g: &mut RegionGraph,
        m: SBlock,
        exits: &[(SBlock, usize, SBlock)],
        targets: &[SBlock],
        boundary: &[SBlock],
        top: SBlock,
    ) {
        // A block construct's merge can collect thousands of edges: sets, not scans.
        let mut source_set: std::collections::HashSet<SBlock> = std::collections::HashSet::new();
        let sources: SmallVec<[SBlock; 4]> =
            exits.iter().map(|&(u, _, _)| u).filter(|&u| source_set.insert(u)).collect();
        g.collapsed[m] = false;
        for &t in targets {
            g.rpreds[t].retain(|p| !source_set.contains(p));
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
        let d = self.common_dominator(g, &sources, top);
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

    /// The nearest common dominator of `blocks`, all dominated by `top`. Each block's
    /// path up the tree stops at the first block an earlier path visited, so the cost is
    /// the size of the union of the paths (at most the construct below `top`), where
    /// pairwise intersection would walk a deep chain once per block.
    fn common_dominator(&mut self, g: &RegionGraph, blocks: &[SBlock], top: SBlock) -> SBlock {
        self.stamp += 1;
        let stamp = self.stamp;
        // The first path, top-down keys: where a later path joins it decides the answer.
        let mut best = blocks[0];
        let mut b = blocks[0];
        loop {
            self.t.join_stamp[b] = stamp;
            self.t.join[b] = Some(b);
            if b == top {
                break;
            }
            b = g.idom[b].expect("below top");
        }
        for &u in &blocks[1..] {
            let mut path: SmallVec<[SBlock; 8]> = SmallVec::new();
            let mut b = u;
            while self.t.join_stamp[b] != stamp {
                path.push(b);
                b = g.idom[b].expect("below top");
            }
            let j = self.t.join[b].expect("visited");
            for p in path {
                self.t.join_stamp[p] = stamp;
                self.t.join[p] = Some(j);
            }
            if g.key[j] < g.key[best] {
                best = j;
            }
        }
        best
    }

    /// Numbers the region's blocks in reverse post-order again, spaced so that new blocks
    /// fit between them.
    fn renumber(&mut self, work: &Work, plan: &Plan, g: &mut RegionGraph) {
        let (rpo, _) = self.region_dfs(work, plan);
        for (i, &b) in rpo.iter().enumerate() {
            g.key[b] = (((i as u64) << 32) | (1 << 31), b.as_u32());
        }
    }

    /// Records `merge` as the merge of selection header `x`.
    fn choose(&mut self, plan: &mut Plan, x: SBlock, merge: Option<SBlock>) {
        if let Some(m) = merge {
            self.used_as_merge[m] = true;
            self.t.selection_merge[m] = true;
            self.selection_of_merge[m] = Some(plan.selections.len());
        }
        plan.selections.push((x, merge));
    }

    /// Decides the merge of header `x`; returns whether the graph changed.
    fn decide(&mut self, work: &mut Work, plan: &mut Plan, g: &mut RegionGraph, x: SBlock) -> bool {
        // `if (c) break; rest`: one arm leaves the region and the other is entered only
        // from here; merging at the other arm keeps `rest` out of the construct.
        let (ct, lm) = self.sinks(plan);
        let succs = work.scfg.blocks[x].term.succs().iter().copied();
        let inside: SmallVec<[SBlock; 4]> = Distinct::of(succs.filter(|&s| Some(s) != ct && Some(s) != lm)).into_list();
        if let [c] = inside[..] {
            if g.rpreds[c].len() == 1 && !self.used_as_merge[c] {
                self.choose(plan, x, Some(c));
                return false;
            }
        }
        // The same with small arms that end in breaks, continues or returns.
        if let Some(c) = self.stub_arms_merge(work, plan, g, &inside) {
            self.choose(plan, x, Some(c));
            return false;
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
        for &c in &merge_children {
            self.t.merge_child[c] = stamp;
        }
        let mut p_blocks: Vec<SBlock> = Vec::new();
        // Dominator children of the construct that are not in it: the only blocks besides
        // the targets whose immediate dominator a rewrite here can change.
        let mut boundary: SmallVec<[SBlock; 4]> = SmallVec::new();
        let mut stack = vec![x];
        self.t.depth[x] = 0;
        while let Some(b) = stack.pop() {
            self.t.in_p[b] = stamp;
            p_blocks.push(b);
            let nests = b != x && self.is_header(work, g, b);
            for &c in &g.children[b] {
                // Merge children (children of x only) start the code after the construct;
                // a merge of an enclosing header ends it.
                if (b != x || self.t.merge_child[c] != stamp) && !self.t.selection_merge[c] {
                    self.t.depth[c] = self.t.depth[b] + u32::from(nests && g.rpreds[c].len() < 2);
                    stack.push(c);
                } else {
                    boundary.push(c);
                }
            }
        }
        // (The walk order is deterministic: children lists are built deterministically.)
        let mut targets = Distinct::new();
        let mut exits: Vec<(SBlock, usize, SBlock)> = Vec::new();
        // Breaks and continues of the enclosing loop, and the deepest exit's nesting.
        let mut loop_exits: Vec<(SBlock, usize, SBlock)> = Vec::new();
        let mut deepest = 0;
        for &u in &p_blocks {
            if g.collapsed[u] {
                continue;
            }
            for (slot, &s) in work.scfg.blocks[u].term.succs().iter().enumerate() {
                if self.is_sink(plan, s) {
                    loop_exits.push((u, slot, s));
                    continue;
                }
                if self.t.in_p[s] == stamp {
                    continue;
                }
                exits.push((u, slot, s));
                deepest = deepest.max(self.t.depth[u] + u32::from(u != x && self.is_header(work, g, u)));
                targets.insert(s);
            }
        }
        let targets: SmallVec<[SBlock; 4]> = targets.into_list();
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
                    self.choose(plan, x, Some(c));
                    false
                }
                None if is_switch_like(work, x) => {
                    let m = work.add_block(Origin::Synthetic(SyntheticKind::UnreachableMerge), Term::Unreachable);
                    self.region[m] = Some(self.r);
                    self.choose(plan, x, Some(m));
                    // No edge changed: the region's analyses stay valid.
                    false
                }
                None => {
                    self.choose(plan, x, None);
                    false
                }
            }
        } else if targets.len() == 1 && merge_children.contains(&targets[0]) && !self.used_as_merge[targets[0]] {
            self.choose(plan, x, Some(targets[0]));
            false
        } else if deepest >= BLOCK_CONSTRUCT_DEPTH
            && x != work.scfg.entry
            && self.inner_loops_inside(work, plan, g, &p_blocks, stamp)
        {
            exits.extend(loop_exits);
            self.block_construct(work, plan, g, x, &exits, &targets, &boundary, &p_blocks, stamp);
            true
        } else {
            let m = funnel(work, &exits, &targets, SyntheticKind::SelectionMerge);
            self.region[m] = Some(self.r);
            self.choose(plan, x, Some(m));
            self.update_after_funnel(work, plan, g, m, &exits, &targets, &boundary, x);
            true
        }
    }

    /// Whether every inner loop collapsed in the construct `p_blocks` has its merge in it.
    fn inner_loops_inside(&self, work: &Work, plan: &Plan, g: &RegionGraph, p_blocks: &[SBlock], stamp: u32) -> bool {
        p_blocks
            .iter()
            .filter(|&&u| g.collapsed[u])
            .all(|&u| self.region_succs(work, plan, u).iter().all(|&s| self.t.in_p[s] == stamp))
    }

    /// The merge for a header whose arms (`inside`, structured exits aside) are all small
    /// and leave only by structured exits, except one big arm entered only from the header:
    /// that arm. This generalizes `if (c) break;` to `if (c) { ...; break; }` and finds in
    /// O(arms · budget) the merge the full construct walk would choose (the biggest arm),
    /// which keeps long chains of such headers linear.
    fn stub_arms_merge(&mut self, work: &Work, plan: &Plan, g: &RegionGraph, inside: &[SBlock]) -> Option<SBlock> {
        if inside.len() < 2 {
            return None;
        }
        let mut big = None;
        for &a in inside {
            if g.rpreds[a].len() != 1 {
                return None;
            }
            match self.walk_arm(work, plan, g, a) {
                Arm::Stub => {}
                Arm::Big if big.is_none() => big = Some(a),
                Arm::Big | Arm::Joins => return None,
            }
        }
        big.filter(|&c| !self.used_as_merge[c])
    }

    /// Walks the dominator subtree of arm `a`, up to `STUB_BUDGET` blocks.
    fn walk_arm(&mut self, work: &Work, plan: &Plan, g: &RegionGraph, a: SBlock) -> Arm {
        self.stamp += 1;
        let stamp = self.stamp;
        let mut blocks: SmallVec<[SBlock; 16]> = SmallVec::new();
        let mut stack: SmallVec<[SBlock; 16]> = smallvec::smallvec![a];
        while let Some(b) = stack.pop() {
            if blocks.len() == STUB_BUDGET {
                return Arm::Big;
            }
            self.t.in_p[b] = stamp;
            blocks.push(b);
            for &c in &g.children[b] {
                if self.t.selection_merge[c] {
                    return Arm::Joins;
                }
                stack.push(c);
            }
        }
        for &b in &blocks {
            if self.region_succs(work, plan, b).iter().any(|&s| self.t.in_p[s] != stamp) {
                return Arm::Joins;
            }
        }
        Arm::Stub
    }

    /// Wraps the construct of `x` in a block construct: a loop that runs once (header `l`,
    /// an unreachable continue target), whose merge collects every exit of the construct,
    /// including breaks and continues of the enclosing loop, and dispatches to their
    /// targets. Inside it those exits are breaks, legal from any selection depth, where a
    /// selection merge would need one more merge block per nesting level (the unrolled
    /// loop with interleaved breaks: a chain of N nested merges, O(N²) to build, against
    /// one loop). The construct's blocks move to the new loop's region, decided later;
    /// `l` takes the place of `x` in this region, and in any merge role `x` had.
    #[allow(clippy::too_many_arguments)]
    fn block_construct(
        &mut self,
        work: &mut Work,
        plan: &mut Plan,
        g: &mut RegionGraph,
        x: SBlock,
        exits: &[(SBlock, usize, SBlock)],
        targets: &[SBlock],
        boundary: &[SBlock],
        p_blocks: &[SBlock],
        stamp: u32,
    ) {
        let all_targets = Distinct::of(targets.iter().copied().chain(exits.iter().map(|&(_, _, s)| s)));
        let m = funnel(work, exits, all_targets.as_slice(), SyntheticKind::LoopMerge);
        self.region[m] = Some(self.r);
        let (ct, lm) = self.sinks(plan);
        let cases = split_exit_slots(work, m, |t| Some(t) == ct || Some(t) == lm);
        self.update_after_funnel(work, plan, g, m, exits, targets, boundary, x);
        for &e in &cases {
            self.region[e] = Some(self.r);
            g.key[e] = (g.key[m].0, e.as_u32());
            g.collapsed[e] = false;
            g.rpreds[e] = smallvec::smallvec![m];
            g.set_idom(e, m);
        }
        // The loop.
        let l = work.add_block(Origin::Synthetic(SyntheticKind::BlockHeader), Term::Goto(x));
        for p in work.preds.distinct(x) {
            if p == l {
                continue;
            }
            for slot in 0..work.scfg.blocks[p].term.succs().len() {
                if work.scfg.blocks[p].term.succs()[slot] == x {
                    work.redirect(p, slot, l);
                }
            }
        }
        let c = work.add_block(Origin::Synthetic(SyntheticKind::BlockContinue), Term::Goto(l));
        let li = plan.loops.len();
        plan.loops.push(LoopPlan { header: l, continue_target: c, merge: Some(m) });
        self.loop_of_header[l] = Some(li);
        self.loop_of_merge[m] = Some(li);
        self.region[l] = Some(Some(li));
        self.region[c] = Some(Some(li));
        for &b in p_blocks {
            if self.region[b] == Some(self.r) {
                self.region[b] = Some(Some(li));
            }
        }
        // A switch in the construct cannot break straight to `m` either.
        let mut sources: SmallVec<[SBlock; 8]> = exits.iter().map(|&(u, _, _)| u).collect();
        sources.sort();
        sources.dedup();
        for u in sources {
            for e in split_exit_slots(work, u, |t| t == m) {
                self.region[e] = Some(Some(li));
            }
        }
        // `l` inherits the merge roles of `x`.
        if let Some(i) = self.selection_of_merge[x].take() {
            plan.selections[i].1 = Some(l);
            self.selection_of_merge[l] = Some(i);
        }
        if let Some(i) = self.loop_of_merge[x].take() {
            plan.loops[i].merge = Some(l);
            self.loop_of_merge[l] = Some(i);
        }
        self.used_as_merge[l] = std::mem::take(&mut self.used_as_merge[x]);
        self.t.selection_merge[l] = std::mem::take(&mut self.t.selection_merge[x]);
        self.used_as_merge[c] = true;
        self.used_as_merge[m] = true;
        self.new_regions.push((Some(li), l, p_blocks.len() + 2));
        self.t.replaced[x] = Some(l);
        // This region's graph: `l` (collapsed, → m) replaces `x` and its construct.
        g.key[l] = g.key[x];
        g.collapsed[l] = true;
        g.rpreds[l] = g.rpreds[x].clone();
        let parent = g.idom[x].expect("a header below the region entry has an idom");
        if let Some(slot) = g.children[parent].iter_mut().find(|k| **k == x) {
            *slot = l;
        }
        g.idom[l] = Some(parent);
        // Blocks outside the construct that `x` dominated: dominated by `l` now, and `m`,
        // whose only predecessor in this region is `l`.
        let moved: SmallVec<[SBlock; 4]> =
            g.children[x].iter().copied().filter(|&k| self.t.in_p[k] != stamp && k != m).collect();
        for &k in &moved {
            g.idom[k] = Some(l);
        }
        g.children[l] = moved;
        g.rpreds[m] = smallvec::smallvec![l];
        g.set_idom(m, l);
    }
}

/// A new block that the exit edges `exits` go to instead, going on to `targets` (with a
/// selector set on each edge when there are several).
fn funnel(work: &mut Work, exits: &[(SBlock, usize, SBlock)], targets: &[SBlock], kind: SyntheticKind) -> SBlock {
    if let [t] = targets {
        let m = work.add_block(Origin::Synthetic(kind), Term::Goto(*t));
        for &(u, slot, _) in exits {
            work.redirect(u, slot, m);
        }
        m
    } else {
        let var = work.scfg.vars.push(VarKind::Selector);
        let m =
            work.add_block(Origin::Synthetic(kind), Term::Dispatch { var, targets: targets.iter().copied().collect() });
        let index = TargetIndex::new(targets);
        for &(u, slot, s) in exits {
            let k = index.position(s).expect("exit target");
            work.redirect(u, slot, m);
            work.add_edge_def(u, slot, var, Val::Const(k));
        }
        m
    }
}
