//! Natural loops and their nesting forest.
//!
//! A *header* is a block with a back edge into it (an edge `l → h` where `h` dominates `l`);
//! its back-edge sources are its *latches*, and when there is exactly one it is the loop's
//! *continue block* (`Cfg::merge_back_edges` makes that so). The *body* is the natural loop
//! (Aho, Sethi & Ullman, *Compilers*, §10.4): the header plus every block that reaches a
//! latch without passing through the header; in a reducible graph these are exactly the
//! blocks dominated by the header that reach a latch. All back edges to one header make one
//! loop. *Exits* are the blocks outside the body with a predecessor inside it (a break or a
//! continue of an outer loop lands on one).
//!
//! Body membership is not stored per loop: each block records its innermost loop, and the
//! forest carries DFS interval labels, so `contains(loop, block)` is O(1) and the whole
//! analysis is O(n + e) however deep the nest (100k-deep nests are in the benchmarks).
//! [`LoopForest::body`] walks each loop's own blocks, a list linked through one table
//! indexed by block (no list allocated per loop), then its children.
//!
//! Built bottom-up, inner loops first, with one backward walk per header that jumps over
//! already-built inner loops via a union-find on loop ids: the algorithm of Havlak,
//! "Nesting of reducible and irreducible loops" (TOPLAS 1997), restricted to the reducible
//! case, which is the same walk as LLVM's `LoopInfo` analysis.
//!
//! A block inside an infinite loop nested in a finite one cannot reach the outer latch, so
//! by the definition above it is not in the outer loop: the inner loop is a root of the
//! forest. The post-dominator tree relies on this (see `postdom.rs`).

use super::dominators::DomTree;
use super::graph::Graph;
use super::order::Order;
use crate::ir::BlockId;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);
entity_impl!(LoopId, "loop");

#[derive(Clone, Debug)]
pub struct Loop {
    pub header: BlockId,
    /// Back-edge sources, in RPO order when computed; rewrites append.
    pub latches: SmallVec<[BlockId; 2]>,
    pub parent: Option<LoopId>,
    /// Loops nested directly in this one (inline up to four: no allocation for a nest).
    pub children: SmallVec<[LoopId; 4]>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// Exit blocks, sorted by block index (inline up to four, as `children`).
    pub exits: SmallVec<[BlockId; 4]>,
    /// First and last of the blocks whose innermost loop this is (the header included),
    /// a list linked through `LoopForest::next_own`.
    first_own: PackedOption<BlockId>,
    last_own: PackedOption<BlockId>,
    /// Interval labels in the loop forest.
    pre: u32,
    post: u32,
}

impl Loop {
    /// The single latch, when there is one: what SPIR-V calls the continue target.
    pub fn continue_block(&self) -> Option<BlockId> {
        match self.latches.as_slice() {
            [l] => Some(*l),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    loops: PrimaryMap<LoopId, Loop>,
    innermost: SecondaryMap<BlockId, PackedOption<LoopId>>,
    /// The next block of the same innermost loop (see `Loop::first_own`): each loop's own
    /// blocks as one list through this table instead of a list per loop, in RPO order as
    /// computed, blocks added by rewrites last.
    next_own: SecondaryMap<BlockId, PackedOption<BlockId>>,
    roots: Vec<LoopId>,
}

impl LoopForest {
    /// Loops of a reducible graph whose dominator tree is `dom`. Loop ids follow the RPO of
    /// their headers, so an outer loop has a smaller id than the loops inside it.
    pub(crate) fn compute(graph: &Graph, order: &Order, dom: &DomTree) -> LoopForest {
        let mut f = LoopForest::default();
        let mut header_loop: SecondaryMap<BlockId, PackedOption<LoopId>> = SecondaryMap::new();
        for &h in order.rpo() {
            let latches: SmallVec<[BlockId; 2]> =
                graph.preds(h).iter().copied().filter(|&p| dom.dominates(h, p)).collect();
            if !latches.is_empty() {
                let id = f.loops.push(Loop {
                    header: h,
                    latches,
                    parent: None,
                    children: SmallVec::new(),
                    depth: 0,
                    exits: SmallVec::new(),
                    first_own: None.into(),
                    last_own: None.into(),
                    pre: 0,
                    post: 0,
                });
                header_loop[h] = id.into();
            }
        }
        // Union-find over loops: `outer[l]` leads to the outermost loop found so far that
        // contains `l`.
        let mut outer: Vec<u32> = (0..f.loops.len() as u32).collect();
        fn find(outer: &mut [u32], l: u32) -> u32 {
            let mut root = l;
            while outer[root as usize] != root {
                root = outer[root as usize];
            }
            let mut x = l;
            while outer[x as usize] != root {
                let next = outer[x as usize];
                outer[x as usize] = root;
                x = next;
            }
            root
        }
        let mut work: Vec<BlockId> = Vec::new();
        for l in (0..f.loops.len()).rev() {
            let id = LoopId::new(l);
            let h = f.loops[id].header;
            f.innermost[h] = id.into();
            work.extend(f.loops[id].latches.iter().copied());
            while let Some(x) = work.pop() {
                if x == h {
                    continue;
                }
                match f.innermost[x].expand() {
                    None => {
                        f.innermost[x] = id.into();
                        work.extend(graph.preds(x).iter().copied().filter(|&p| order.is_reachable(p)));
                    }
                    Some(inner) => {
                        let top = find(&mut outer, inner.as_u32());
                        if top as usize == l {
                            continue;
                        }
                        outer[top as usize] = l as u32;
                        let top = LoopId::from_u32(top);
                        f.loops[top].parent = Some(id);
                        let th = f.loops[top].header;
                        work.extend(
                            graph.preds(th).iter().copied().filter(|&p| order.is_reachable(p) && !dom.dominates(th, p)),
                        );
                    }
                }
            }
        }
        for id in f.loops.keys() {
            match f.loops[id].parent {
                Some(p) => {
                    f.loops[p].children.push(id);
                    f.loops[id].depth = f.loops[p].depth + 1;
                }
                None => {
                    f.roots.push(id);
                    f.loops[id].depth = 1;
                }
            }
        }
        f.label();
        for &b in order.rpo() {
            if let Some(l) = f.innermost[b].expand() {
                f.append_own(l, b);
            }
        }
        for &b in order.rpo() {
            for &s in graph.succs(b) {
                let mut l = f.innermost[b].expand();
                while let Some(id) = l {
                    if f.contains(id, s) {
                        break;
                    }
                    f.loops[id].exits.push(s);
                    l = f.loops[id].parent;
                }
            }
        }
        for lp in f.loops.values_mut() {
            lp.exits.sort_unstable();
            lp.exits.dedup();
        }
        f
    }

    fn label(&mut self) {
        let mut next = 0u32;
        let mut stack: Vec<(LoopId, usize)> = Vec::new();
        for i in 0..self.roots.len() {
            let r = self.roots[i];
            self.loops[r].pre = next;
            next += 1;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (l, i) = *top;
                if let Some(&c) = self.loops[l].children.get(i) {
                    top.1 += 1;
                    self.loops[c].pre = next;
                    next += 1;
                    stack.push((c, 0));
                } else {
                    self.loops[l].post = next;
                    next += 1;
                    stack.pop();
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// All loops, outer before inner (ids follow header RPO).
    pub fn iter(&self) -> impl Iterator<Item = (LoopId, &Loop)> {
        self.loops.iter()
    }

    pub fn get(&self, l: LoopId) -> &Loop {
        &self.loops[l]
    }

    /// Outermost loops.
    pub fn roots(&self) -> &[LoopId] {
        &self.roots
    }

    /// The innermost loop whose body holds `b`.
    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        self.innermost[b].expand()
    }

    /// The loop `b` heads, if it is a header.
    pub fn loop_of_header(&self, b: BlockId) -> Option<LoopId> {
        self.innermost(b).filter(|&l| self.loops[l].header == b)
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.loop_of_header(b).is_some()
    }

    /// `outer` is `inner` or encloses it. O(1).
    pub fn encloses(&self, outer: LoopId, inner: LoopId) -> bool {
        let (o, i) = (&self.loops[outer], &self.loops[inner]);
        o.pre <= i.pre && i.post <= o.post
    }

    /// `b` is in the body of `l` (nested loops included). O(1).
    pub fn contains(&self, l: LoopId, b: BlockId) -> bool {
        self.innermost(b).is_some_and(|m| self.encloses(l, m))
    }

    /// The body of `l`: its blocks and those of the loops nested in it, in no particular
    /// order. O(size of the body).
    pub fn body(&self, l: LoopId) -> Vec<BlockId> {
        let mut out = Vec::new();
        let mut stack = vec![l];
        while let Some(x) = stack.pop() {
            let mut b = self.loops[x].first_own.expand();
            while let Some(y) = b {
                out.push(y);
                b = self.next_own[y].expand();
            }
            stack.extend(self.loops[x].children.iter().copied());
        }
        out
    }

    /// Appends `b` to the own blocks of `l`. O(1).
    fn append_own(&mut self, l: LoopId, b: BlockId) {
        self.next_own[b] = None.into();
        match self.loops[l].last_own.expand() {
            Some(last) => self.next_own[last] = b.into(),
            None => self.loops[l].first_own = b.into(),
        }
        self.loops[l].last_own = b.into();
    }

    // Patching, for `incremental.rs`.

    pub(crate) fn add_block(&mut self, b: BlockId, l: Option<LoopId>) {
        self.innermost[b] = l.into();
        if let Some(l) = l {
            self.append_own(l, b);
        }
    }

    /// Forgets `b`. O(own blocks of its innermost loop): the list is singly linked.
    pub(crate) fn remove_block(&mut self, b: BlockId) {
        let Some(l) = self.innermost[b].take() else { return };
        let next = self.next_own[b].take();
        let mut prev: Option<BlockId> = None;
        let mut x = self.loops[l].first_own.expand();
        while let Some(y) = x {
            if y == b {
                break;
            }
            prev = Some(y);
            x = self.next_own[y].expand();
        }
        if x.is_none() {
            return;
        }
        match prev {
            Some(p) => self.next_own[p] = next.into(),
            None => self.loops[l].first_own = next.into(),
        }
        if self.loops[l].last_own.expand() == Some(b) {
            self.loops[l].last_own = prev.into();
        }
    }

    pub(crate) fn loop_mut(&mut self, l: LoopId) -> &mut Loop {
        &mut self.loops[l]
    }
}
