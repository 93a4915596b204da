//! The structurizer's rewrites, with the analyses patched in place.
//!
//! Each rewrite changes the function (terminators, layout, new blocks), the graph, and
//! every analysis together. What is patched and what is recomputed (n blocks, e edges,
//! S the redirected sources):
//!
//! | rewrite | order | dominators | post-dominators | loops | reachability |
//! | --- | --- | --- | --- | --- | --- |
//! | `insert_block_on_edges` (forward edges) | O(n) insert | O(\|S\|·depth + deg) | O(d log d)¹ | O(\|S\|·depth) | O(n·\|S\|) |
//! | `insert_block_on_edges` (back edges: merging latches) | O(n) | same | same² | same | same |
//! | `split_edge` | as above with \|S\| = 1 | | | | |
//! | `split_block` | O(n) | O(deg) | O(deg) | O(depth) | O(n) |
//! | `remove_passthrough` | O(n) | O(deg) | O(deg) | O(\|preds\|·depth) | O(1) |
//! | `redirect_edge` | full | full | full | full | full |
//! | `insert_block_on_edges` (forward and back edges at once) | full | full | full | full | full |
//! | `remove_passthrough` of an empty loop header whose successor heads a loop too | full | full | full | full | full |
//!
//! (An empty loop header removed by `remove_passthrough` hands its loop to its successor
//! in place; only when that successor already heads an inner loop do the two loops merge,
//! which is a recompute.)
//!
//! ¹ d = the target's children in the post-dominator tree (plus their out-edges): only they
//!   can move under the new block (see `postdom_insert`). ² Recomputed (O((n+e)
//!   log n)) when the merged latches carry virtual exit edges (an endless loop).
//! "Full" is the O((n + e) log n) batch computation plus dense reachability. Reachability
//! rows are patched in O(n) bit tests (dense) or O(n log k) searches (intervals) because a
//! new block is reached by every ancestor of its sources, which is not a local set; the
//! same holds for the O(n) memmove that places a block in the order. Dominator labels
//! occasionally need an O(n) relabel (see `tree.rs`). "depth" is loop-nest or dominator
//! tree depth between the blocks involved, not of the whole graph.
//!
//! `redirect_edge` can change dominance anywhere (deleting an edge can move idoms of
//! blocks far below it), so it recomputes; the structurizer's common "retarget a set of
//! edges into a fresh block" is `insert_block_on_edges`, which is incremental.
//!
//! PHIs: a rewrite renames PHI incoming blocks where the new predecessor is unique
//! (`split_edge` with one source, `split_block`, `remove_passthrough`); where several
//! predecessors merge into a new block (`insert_block_on_edges` with several sources) or
//! an edge moves (`redirect_edge`) the PHIs are left for SSA repair (`src/phi`).
//!
//! New blocks are empty, unnamed, and appended to the layout. A removed block leaves the
//! layout and gets an `unreachable` terminator; it stays in the block arena.

use super::{irreducible_error, Analyses, Cfg, CfgError};
use crate::ir::{Block, BlockId, Function, InstKind, Terminator};
use smallvec::SmallVec;

enum EdgeKind {
    Forward,
    Back,
    /// Forward and back edges into the target, covering all its forward predecessors: the
    /// new block becomes the loop header.
    NewHeader,
}

fn rename_phi_incoming(func: &mut Function, block: BlockId, old: BlockId, new: BlockId) {
    let insts = func.blocks[block].insts.clone();
    for i in insts {
        if let InstKind::Phi { incoming } = &mut func.insts[i].kind {
            for (_, b) in incoming.iter_mut() {
                if *b == old {
                    *b = new;
                }
            }
        } else {
            break;
        }
    }
}

fn retarget(term: &mut Terminator, old: BlockId, new: BlockId) {
    for slot in term.successors_mut() {
        if *slot == old {
            *slot = new;
        }
    }
}

impl Cfg {
    fn label(&self, func: &Function, b: BlockId) -> String {
        func.block_label(b)
    }

    fn invalid(&self, func: &Function, rewrite: &'static str, b: BlockId, reason: &'static str) -> CfgError {
        CfgError::InvalidRewrite { function: self.function.clone(), rewrite, block: self.label(func, b), reason }
    }

    fn new_block(&mut self, func: &mut Function, terminator: Terminator) -> BlockId {
        let n = func.blocks.push(Block { name: None, insts: Vec::new(), terminator });
        func.layout.push(n);
        self.graph.add_block(n);
        n
    }

    /// Recomputes every analysis from the graph.
    fn recompute(&mut self, func: &Function) -> Result<(), CfgError> {
        self.a = Analyses::compute(&self.graph, &self.options).map_err(|b| irreducible_error(func, &b))?;
        Ok(())
    }

    fn finish(&mut self, func: &Function, recomputed: bool) {
        if recomputed {
            self.stats.recomputed += 1;
        } else {
            self.stats.incremental += 1;
        }
        if cfg!(debug_assertions) && self.options.verify_rewrites {
            if let Err(e) = self.verify_against_recompute(func) {
                panic!("CFG analyses diverged from a recompute after a rewrite: {e}");
            }
        }
    }

    /// Splits the edge(s) `from → to` with a new empty block. See [`Cfg::insert_block_on_edges`].
    pub fn split_edge(&mut self, func: &mut Function, from: BlockId, to: BlockId) -> Result<BlockId, CfgError> {
        self.insert_block_on_edges(func, &[from], to)
    }

    /// Adds a new block `n: br target` and redirects every edge `s → target`, `s` in
    /// `sources`, to it. The edges must all be forward edges, or all back edges (this
    /// merges latches into one continue block), or include every forward predecessor of
    /// `target` (then `n` becomes the loop header); anything else would make the graph
    /// irreducible and is refused. Returns `n`.
    pub fn insert_block_on_edges(
        &mut self,
        func: &mut Function,
        sources: &[BlockId],
        target: BlockId,
    ) -> Result<BlockId, CfgError> {
        let mut srcs: SmallVec<[BlockId; 4]> = SmallVec::new();
        for &s in sources {
            if !self.graph.has_edge(s, target) {
                return Err(CfgError::NoSuchEdge {
                    function: self.function.clone(),
                    from: self.label(func, s),
                    to: self.label(func, target),
                });
            }
            if !srcs.contains(&s) {
                srcs.push(s);
            }
        }
        if srcs.is_empty() {
            return Err(self.invalid(func, "insert a block on no edges", target, "no source given"));
        }
        let live: SmallVec<[BlockId; 4]> = srcs.iter().copied().filter(|&s| self.is_reachable(s)).collect();
        let back = live.iter().filter(|&&s| self.a.dom.dominates(target, s)).count();
        let kind = if back == 0 {
            EdgeKind::Forward
        } else if back == live.len() {
            EdgeKind::Back
        } else if self.forward_preds(target).all(|p| live.contains(&p)) {
            EdgeKind::NewHeader
        } else {
            return Err(self.invalid(
                func,
                "insert a block on edges",
                target,
                "mixing back edges with some but not all forward edges would make the loop irreducible",
            ));
        };

        let n = self.new_block(func, Terminator::Br { target });
        for &s in &srcs {
            retarget(&mut func.blocks[s].terminator, target, n);
        }
        if let [s] = srcs.as_slice() {
            rename_phi_incoming(func, target, *s, n);
        }
        self.graph.resync_successors(func, n);
        for &s in &srcs {
            self.graph.resync_successors(func, s);
        }

        if live.is_empty() {
            self.finish(func, false);
            return Ok(n);
        }
        let recomputed = match kind {
            EdgeKind::NewHeader => {
                self.recompute(func)?;
                true
            }
            EdgeKind::Forward => self.patch_insert(n, &live, target, false),
            EdgeKind::Back => self.patch_insert(n, &live, target, true),
        };
        self.finish(func, recomputed);
        Ok(n)
    }

    /// Gives every loop with several latches a single continue block (one new block per such
    /// header, on all its back edges). Returns the new blocks.
    pub fn merge_back_edges(&mut self, func: &mut Function) -> Result<Vec<BlockId>, CfgError> {
        let headers: Vec<BlockId> =
            self.a.loops.iter().filter(|(_, l)| l.latches.len() > 1).map(|(_, l)| l.header).collect();
        let mut created = Vec::with_capacity(headers.len());
        for h in headers {
            let latches = self.back_edge_preds(h);
            created.push(self.insert_block_on_edges(func, &latches, h)?);
        }
        Ok(created)
    }

    /// Back-edge predecessors of `h`.
    fn back_edge_preds(&self, h: BlockId) -> SmallVec<[BlockId; 4]> {
        self.graph.preds(h).iter().copied().filter(|&p| self.is_reachable(p) && self.a.dom.dominates(h, p)).collect()
    }

    /// Redirects every edge `from → old_to` to `new_to`. Recomputes all analyses. Refused
    /// (nothing changes) if the result would be irreducible. PHIs are left to SSA repair.
    pub fn redirect_edge(
        &mut self,
        func: &mut Function,
        from: BlockId,
        old_to: BlockId,
        new_to: BlockId,
    ) -> Result<(), CfgError> {
        if !self.graph.has_edge(from, old_to) {
            return Err(CfgError::NoSuchEdge {
                function: self.function.clone(),
                from: self.label(func, from),
                to: self.label(func, old_to),
            });
        }
        if !self.graph.contains(new_to) {
            return Err(self.invalid(func, "redirect an edge", from, "the new target is not in the graph"));
        }
        let saved = func.blocks[from].terminator.clone();
        retarget(&mut func.blocks[from].terminator, old_to, new_to);
        self.graph.resync_successors(func, from);
        match Analyses::compute(&self.graph, &self.options) {
            Ok(a) => {
                self.a = a;
                self.finish(func, true);
                Ok(())
            }
            Err(blocks) => {
                func.blocks[from].terminator = saved;
                self.graph.resync_successors(func, from);
                Err(irreducible_error(func, &blocks))
            }
        }
    }

    /// Splits `b` before instruction `at` (an index into its instructions, at or after its
    /// PHIs): a new block takes the instructions from `at` on and `b`'s terminator, and `b`
    /// branches to it. PHIs of the successors name the new block. Returns it.
    pub fn split_block(&mut self, func: &mut Function, b: BlockId, at: usize) -> Result<BlockId, CfgError> {
        if !self.graph.contains(b) {
            return Err(self.invalid(func, "split a block", b, "the block is not in the graph"));
        }
        let insts = &func.blocks[b].insts;
        let phis = insts.iter().take_while(|&&i| func.insts[i].kind.is_phi()).count();
        if at < phis || at > insts.len() {
            return Err(self.invalid(func, "split a block", b, "split point among the PHIs or past the end"));
        }
        let moved = func.blocks[b].insts.split_off(at);
        let old_term = std::mem::replace(&mut func.blocks[b].terminator, Terminator::Unreachable);
        let n = self.new_block(func, old_term);
        func.blocks[n].insts = moved;
        func.blocks[b].terminator = Terminator::Br { target: n };
        for s in self.graph.succs(b).to_vec() {
            rename_phi_incoming(func, s, b, n);
        }
        // Move the out-edges: n's from its terminator, b's to just n.
        self.graph.resync_successors(func, n);
        self.graph.resync_successors(func, b);
        let recomputed = self.is_reachable(b) && self.patch_split(b, n);
        self.finish(func, recomputed);
        Ok(n)
    }

    /// Removes `p`, an empty non-entry block ending in `br t` (`t != p`), sending its
    /// predecessors straight to `t`. PHIs in `t` get `p`'s incoming value once per
    /// predecessor of `p`; refused if a predecessor already brings a different value.
    pub fn remove_passthrough(&mut self, func: &mut Function, p: BlockId) -> Result<(), CfgError> {
        if !self.graph.contains(p) || p == self.graph.entry() {
            return Err(self.invalid(func, "remove a pass-through block", p, "not a non-entry block of the graph"));
        }
        let t = match func.blocks[p].terminator {
            Terminator::Br { target } if target != p && func.blocks[p].insts.is_empty() => target,
            _ => {
                return Err(self.invalid(
                    func,
                    "remove a pass-through block",
                    p,
                    "the block has instructions or does not end in a branch to another block",
                ))
            }
        };
        let preds: Vec<BlockId> = self.graph.preds(p).to_vec();
        // PHIs in t: (v, p) becomes (v, q) for each predecessor q of p.
        let phi_insts: Vec<_> =
            func.blocks[t].insts.iter().copied().take_while(|&i| func.insts[i].kind.is_phi()).collect();
        for &i in &phi_insts {
            if let InstKind::Phi { incoming } = &func.insts[i].kind {
                if let Some(&(v, _)) = incoming.iter().find(|(_, b)| *b == p) {
                    for &q in &preds {
                        if incoming.iter().any(|&(w, b)| b == q && w != v) {
                            return Err(CfgError::PhiConflict {
                                function: self.function.clone(),
                                block: self.label(func, t),
                                pred: self.label(func, q),
                            });
                        }
                    }
                }
            }
        }
        for &i in &phi_insts {
            if let InstKind::Phi { incoming } = &mut func.insts[i].kind {
                if let Some(pos) = incoming.iter().position(|(_, b)| *b == p) {
                    let (v, _) = incoming.remove(pos);
                    for &q in &preds {
                        if !incoming.iter().any(|&(_, b)| b == q) {
                            incoming.push((v, q));
                        }
                    }
                }
            }
        }
        for &q in &preds {
            retarget(&mut func.blocks[q].terminator, p, t);
        }
        func.blocks[p].terminator = Terminator::Unreachable;
        func.layout.retain(|&b| b != p);
        let live_preds: SmallVec<[BlockId; 4]> = preds.iter().copied().filter(|&q| self.is_reachable(q)).collect();
        let was_live = self.is_reachable(p);
        for &q in &preds {
            self.graph.resync_successors(func, q);
        }
        self.graph.resync_successors(func, p);
        self.graph.remove_block(p);
        let recomputed = if was_live && self.a.loops.is_header(p) && self.a.loops.is_header(t) {
            // p headed a loop around t's loop: the two loops become one, headed by t.
            self.recompute(func)?;
            true
        } else {
            if was_live {
                self.patch_remove(p, t, &live_preds);
            }
            false
        };
        self.finish(func, recomputed);
        Ok(())
    }

    // --- Patching ---

    /// After inserting `n: br target` on edges from `sources` (all reachable; all forward,
    /// or all back edges when `back`). Returns whether something was recomputed.
    fn patch_insert(&mut self, n: BlockId, sources: &[BlockId], target: BlockId, back: bool) -> bool {
        let a = &mut self.a;
        // Order: between the sources and the target.
        let at = if back {
            sources.iter().filter_map(|&s| a.order.rpo_index(s)).max().unwrap_or(0) as usize + 1
        } else {
            a.order.rpo_index(target).unwrap_or(0) as usize
        };
        a.order.insert_at(at, n);

        // Dominators: n's idom is the sources' nearest common dominator; it also becomes
        // target's idom when it now carries all of target's forward in-edges.
        let target_keeps_other_entries = !back
            && self
                .graph
                .preds(target)
                .iter()
                .any(|&p| p != n && a.order.is_reachable(p) && !a.dom.dominates(target, p));
        if back || target_keeps_other_entries {
            let d = a.dom.common_dominator(sources.iter().copied());
            a.dom.tree.insert_leaf(d, n);
        } else {
            a.dom.tree.insert_above(target, n);
        }

        // Loops: n sits in every loop holding target except the one target heads; when
        // merging latches, n is the new latch of target's loop.
        let header_loop = a.loops.loop_of_header(target);
        let innermost = if back {
            header_loop
        } else {
            match header_loop {
                Some(l) => a.loops.get(l).parent,
                None => a.loops.innermost(target),
            }
        };
        a.loops.add_block(n, innermost);
        if back {
            if let Some(l) = header_loop {
                let lp = a.loops.loop_mut(l);
                lp.latches.retain(|x| !sources.contains(x));
                lp.latches.push(n);
            }
        }
        self.replace_exit(sources, target, n);

        // Post-dominators.
        let mut recomputed = false;
        let a = &mut self.a;
        if back && sources.iter().any(|&s| a.postdom.has_virtual_exit_edge(s)) {
            let dense = super::dense::DenseGraph::new(&self.graph, &a.order);
            a.postdom = super::PostDomTree::compute(&dense, &a.loops);
            recomputed = true;
        } else {
            self.postdom_insert(n, target);
        }

        // Reachability.
        let a = &mut self.a;
        let fwd_target = (!back).then_some(target);
        if !a.reach.add_before(n, fwd_target, sources, a.order.rpo()) {
            a.reach = super::Reachability::compute(&self.graph, &a.order, &a.dom, self.options.dense_reach_limit);
            recomputed = true;
        }
        recomputed
    }

    /// For each loop holding a source but not `n`, exit `old` (if no other edge from the
    /// loop reaches it) gives way to `n`.
    fn replace_exit(&mut self, sources: &[BlockId], old: BlockId, n: BlockId) {
        let loops = &self.a.loops;
        let mut edits: Vec<(super::LoopId, bool)> = Vec::new();
        for &s in sources {
            let mut l = loops.innermost(s);
            while let Some(id) = l {
                if loops.contains(id, n) {
                    break;
                }
                let old_still_exit = self
                    .graph
                    .preds(old)
                    .iter()
                    .any(|&p| p != n && self.a.order.is_reachable(p) && loops.contains(id, p));
                edits.push((id, old_still_exit));
                l = loops.get(id).parent;
            }
        }
        for (id, keep_old) in edits {
            let exits = &mut self.a.loops.loop_mut(id).exits;
            if !keep_old {
                if let Ok(i) = exits.binary_search(&old) {
                    exits.remove(i);
                }
            }
            if let Err(i) = exits.binary_search(&n) {
                exits.insert(i, n);
            }
        }
    }

    /// Post-dominator tree after inserting `n: br target` on edges from `sources`: `n`
    /// hangs under `target` and adopts the children of `target` all of whose paths to
    /// `target` now pass through `n`; nothing else changes.
    ///
    /// Why looking at the children alone is enough: a block strictly inside the subtree of
    /// a child `c` can only leave that subtree through `c` itself (an edge out of it from
    /// anywhere else would give that block a path to the exit avoiding `c`). So every
    /// source post-dominated by `target` is itself a child, and the children form a small
    /// graph: `c → c'` when an edge of `c` enters the subtree of `c'`, plus `c → target`
    /// and `c → n`. A child moves under `n` iff it cannot reach `target` in that graph.
    /// Cost O(d log d + Σ out-degree of the children), d the number of children.
    fn postdom_insert(&mut self, n: BlockId, target: BlockId) {
        let pd = &self.a.postdom;
        let graph = &self.graph;
        let children = pd.children(target);
        let mut spans: Vec<(u64, u64, usize)> = children
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let (pre, post) = pd.tree.interval(c);
                (pre, post, i)
            })
            .collect();
        spans.sort_unstable();
        let child_holding = |y: BlockId| -> Option<usize> {
            let (pre, post) = pd.tree.interval(y);
            let k = spans.partition_point(|&(p, _, _)| p <= pre);
            (k > 0 && post <= spans[k - 1].1).then(|| spans[k - 1].2)
        };
        // Reverse edges of the children's graph, and the children with an edge to target.
        let mut preds_of: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); children.len()];
        let mut reaches_target = vec![false; children.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (i, &c) in children.iter().enumerate() {
            for &y in graph.succs(c) {
                if y == target {
                    if !reaches_target[i] {
                        reaches_target[i] = true;
                        stack.push(i);
                    }
                } else if y != n {
                    if let Some(j) = child_holding(y).filter(|&j| j != i) {
                        preds_of[j].push(i as u32);
                    }
                }
            }
        }
        while let Some(j) = stack.pop() {
            for &i in &preds_of[j] {
                if !reaches_target[i as usize] {
                    reaches_target[i as usize] = true;
                    stack.push(i as usize);
                }
            }
        }
        let adopt: SmallVec<[BlockId; 4]> =
            children.iter().zip(&reaches_target).filter(|(_, &reaches)| !reaches).map(|(&c, _)| c).collect();
        self.a.postdom.tree.insert_adopting(target, n, &adopt);
    }

    /// After `split_block(b)` moved `b`'s out-edges to `n`. Returns whether something was
    /// recomputed.
    fn patch_split(&mut self, b: BlockId, n: BlockId) -> bool {
        let a = &mut self.a;
        let at = a.order.rpo_index(b).unwrap_or(0) as usize + 1;
        a.order.insert_at(at, n);
        a.dom.tree.insert_below(b, n);
        a.postdom.tree.insert_above(b, n);
        if a.postdom.is_virtual_source[b] {
            a.postdom.is_virtual_source[b] = false;
            a.postdom.is_virtual_source[n] = true;
            for v in a.postdom.virtual_sources.iter_mut() {
                if *v == b {
                    *v = n;
                }
            }
        }
        a.loops.add_block(n, a.loops.innermost(b));
        for &h in self.graph.succs(n) {
            if a.dom.dominates(h, n) {
                if let Some(l) = a.loops.loop_of_header(h) {
                    for x in a.loops.loop_mut(l).latches.iter_mut() {
                        if *x == b {
                            *x = n;
                        }
                    }
                }
            }
        }
        if !a.reach.add_after(b, n, a.order.rpo()) {
            a.reach = super::Reachability::compute(&self.graph, &a.order, &a.dom, self.options.dense_reach_limit);
            return true;
        }
        false
    }

    /// After `remove_passthrough(p)` sent `p`'s reachable predecessors `preds` to `t`
    /// (`p` and `t` not both loop headers).
    fn patch_remove(&mut self, p: BlockId, t: BlockId, preds: &[BlockId]) {
        let a = &mut self.a;
        let back = a.dom.dominates(t, p);
        if let Some(l) = a.loops.loop_of_header(p) {
            // An empty header: t, its only successor, is in the loop (p dominates the
            // latches, so t reaches them) and p was its immediate dominator, so t is in no
            // deeper loop; it inherits the loop and the back edges.
            a.loops.loop_mut(l).header = t;
        }
        if back {
            if let Some(l) = a.loops.loop_of_header(t) {
                let lp = a.loops.loop_mut(l);
                lp.latches.retain(|x| *x != p);
                for &q in preds {
                    if !lp.latches.contains(&q) {
                        lp.latches.push(q);
                    }
                }
            }
        }
        // Exits: loops that held a predecessor but not p saw p as an exit; now t.
        let mut edits = Vec::new();
        for &q in preds {
            let mut l = a.loops.innermost(q);
            while let Some(id) = l {
                if a.loops.contains(id, p) {
                    break;
                }
                edits.push(id);
                l = a.loops.get(id).parent;
            }
        }
        for id in edits {
            let exits = &mut a.loops.loop_mut(id).exits;
            if let Ok(i) = exits.binary_search(&p) {
                exits.remove(i);
            }
            if let Err(i) = exits.binary_search(&t) {
                exits.insert(i, t);
            }
        }
        a.loops.remove_block(p);
        if a.postdom.is_virtual_source[p] {
            a.postdom.is_virtual_source[p] = false;
            a.postdom.virtual_sources.retain(|x| *x != p);
            for &q in preds {
                if !a.postdom.is_virtual_source[q] {
                    a.postdom.is_virtual_source[q] = true;
                    a.postdom.virtual_sources.push(q);
                }
            }
        }
        a.postdom.tree.remove_lifting_children(p);
        a.dom.tree.remove_lifting_children(p);
        a.order.remove(p);
        a.reach.remove(p);
    }
}
