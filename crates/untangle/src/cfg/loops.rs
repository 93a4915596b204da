//! Natural loops and their nesting forest: [`LoopForest`].
//!
//! A *header* is a node with a back edge into it (an edge `l → h` where `h` dominates `l`;
//! on a reducible graph, exactly the retreating edges of any depth-first search, which is
//! what [`LoopForest::compute`] reads); its back-edge sources are its *latches*, and when
//! there is exactly one it is the loop's *continue block*. The *body* is the natural loop
//! (Aho, Sethi & Ullman, *Compilers*, §10.4): the header plus every node that reaches a latch
//! without passing through the header. All back edges to one header make one loop. *Exits*
//! are the nodes outside the body with a predecessor inside it.
//!
//! On a reducible graph two bodies are disjoint or nested, so the loops form a forest, and
//! a body is stored by giving each node its *innermost* loop: `b` is in the body of `l` when
//! `l` is the innermost loop of `b` or encloses it, an O(1) test on DFS interval labels of
//! the forest. Nothing is enumerated per loop, so deep nests cost the same as flat code
//! (100k-deep nests are in the benchmarks); [`LoopForest::bodies`] lists them on demand.
//!
//! Built bottom-up, inner loops first, with one backward walk per header that jumps over
//! already-built inner loops through a union-find on loop ids: Havlak, "Nesting of reducible
//! and irreducible loops" (TOPLAS 1997), restricted to the reducible case, which is the
//! walk of LLVM's `LoopInfo`. O((n + e) log n) with path compression (the structurizer's
//! loop pass and `Cfg` both build their forest here).
//!
//! A node inside an infinite loop nested in a finite one cannot reach the outer latch, so by
//! the definition above it is not in the outer loop: the inner loop is a root of the forest.
//! The post-dominator tree relies on this (see `postdom.rs`).
//!
//! The structurizer keeps the forest while it adds blocks ([`LoopForest::set_innermost`]
//! records a new block's loop) and numbers loops its own way ([`LoopForest::renumber`]).

use super::flow::Node;
use super::order::Order;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;

entity!(pub struct LoopId, "loop");

#[derive(Clone, Debug)]
pub struct Loop<N: Node> {
    pub header: N,
    /// Back-edge sources, in the order the depth-first search found the back edges.
    pub latches: SmallVec<[N; 2]>,
    pub parent: Option<LoopId>,
    /// Loops nested directly in this one (inline up to four: no allocation for a nest).
    pub children: SmallVec<[LoopId; 4]>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// Interval labels in the forest.
    pre: u32,
    post: u32,
}

impl<N: Node> Loop<N> {
    /// The single latch, when there is one: what SPIR-V calls the continue target.
    pub fn continue_block(&self) -> Option<N> {
        match self.latches.as_slice() {
            [l] => Some(*l),
            _ => None,
        }
    }
}

/// The loops of a graph (module docs). Loop ids are dense, and a loop's id is smaller than
/// the ids of the loops nested in it.
#[derive(Clone, Debug)]
pub struct LoopForest<N: Node> {
    loops: Vec<Loop<N>>,
    innermost: SecondaryMap<N, PackedOption<LoopId>>,
    roots: Vec<LoopId>,
}

impl<N: Node> Default for LoopForest<N> {
    fn default() -> Self {
        LoopForest { loops: Vec::new(), innermost: SecondaryMap::new(), roots: Vec::new() }
    }
}

/// Union-find root of `l`, compressing the path.
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

impl<N: Node> LoopForest<N> {
    /// The loops of a reducible graph whose depth-first order is `order`, given each node's
    /// predecessors. Loop ids follow the RPO of their headers, so an outer loop has a smaller
    /// id than the loops inside it. O((n + e) log n).
    pub fn compute<F, I>(order: &Order<N>, mut preds: F) -> LoopForest<N>
    where
        F: FnMut(N) -> I,
        I: IntoIterator<Item = N>,
    {
        let mut f = LoopForest::default();
        let back_edges = order.retreating_edges();
        if back_edges.is_empty() {
            return f;
        }
        // Headers in RPO, each with its latches in discovery order (repeats dropped).
        let mut header_id: SecondaryMap<N, PackedOption<LoopId>> = SecondaryMap::new();
        let mut headers: Vec<N> = Vec::new();
        for &(_, h) in back_edges {
            if header_id[h].is_none() {
                header_id[h] = LoopId::new(headers.len()).into();
                headers.push(h);
            }
        }
        headers.sort_unstable_by_key(|&h| order.rank(h));
        for (i, &h) in headers.iter().enumerate() {
            header_id[h] = LoopId::new(i).into();
            f.loops.push(Loop {
                header: h,
                latches: SmallVec::new(),
                parent: None,
                children: SmallVec::new(),
                depth: 0,
                pre: 0,
                post: 0,
            });
        }
        // A latch is listed once per header however many slots branch back: stamp it with
        // the last loop that listed it (a node can be a latch of several loops, but the
        // back edges to one header are grouped before the next header's).
        let mut by_header: Vec<(u32, N)> =
            back_edges.iter().map(|&(u, h)| (header_id[h].expand().expect("a header").as_u32(), u)).collect();
        by_header.sort_by_key(|&(l, _)| l); // stable: discovery order within a loop
        let mut listed: SecondaryMap<N, u32> = SecondaryMap::with_default(u32::MAX);
        for (l, u) in by_header {
            if listed[u] != l {
                listed[u] = l;
                f.loops[l as usize].latches.push(u);
            }
        }
        // Union-find over loops: `outer[l]` leads to the outermost loop built so far that
        // contains `l`. Inner loops first: an enclosing header dominates, so precedes, an
        // inner one in RPO.
        let mut outer: Vec<u32> = (0..f.loops.len() as u32).collect();
        let mut work: Vec<N> = Vec::new();
        for l in (0..f.loops.len()).rev() {
            let id = LoopId::new(l);
            let h = f.loops[l].header;
            f.innermost[h] = id.into();
            work.extend(f.loops[l].latches.iter().copied());
            while let Some(x) = work.pop() {
                if x == h {
                    continue;
                }
                match f.innermost[x].expand() {
                    None => {
                        f.innermost[x] = id.into();
                        work.extend(preds(x).into_iter().filter(|&p| order.is_reachable(p)));
                    }
                    Some(inner) => {
                        let top = find(&mut outer, inner.as_u32());
                        if top as usize == l {
                            continue;
                        }
                        outer[top as usize] = l as u32;
                        f.loops[top as usize].parent = Some(id);
                        // The inner loop's entries continue the walk; its back edges lead
                        // back into it, now part of `l`, and stop.
                        let th = f.loops[top as usize].header;
                        work.extend(preds(th).into_iter().filter(|&p| order.is_reachable(p)));
                    }
                }
            }
        }
        f.link();
        f
    }

    /// Children, roots, depths and interval labels from the parents.
    fn link(&mut self) {
        self.roots.clear();
        for lp in &mut self.loops {
            lp.children.clear();
        }
        for l in 0..self.loops.len() {
            match self.loops[l].parent {
                Some(p) => {
                    debug_assert!(p.index() < l, "a loop's id follows its parent's");
                    self.loops[p.index()].children.push(LoopId::new(l));
                    self.loops[l].depth = self.loops[p.index()].depth + 1;
                }
                None => {
                    self.roots.push(LoopId::new(l));
                    self.loops[l].depth = 1;
                }
            }
        }
        let mut next = 0u32;
        let mut stack: Vec<(LoopId, usize)> = Vec::new();
        for i in 0..self.roots.len() {
            let r = self.roots[i];
            self.loops[r.index()].pre = next;
            next += 1;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (l, i) = *top;
                if let Some(&c) = self.loops[l.index()].children.get(i) {
                    top.1 += 1;
                    self.loops[c.index()].pre = next;
                    next += 1;
                    stack.push((c, 0));
                } else {
                    self.loops[l.index()].post = next;
                    next += 1;
                    stack.pop();
                }
            }
        }
    }

    /// Gives the loops new ids: `new_order[k]` becomes loop `k`. Every loop must come after
    /// its parent in `new_order`. O(loops + nodes with a loop, in `nodes`), where `nodes`
    /// holds every node that has an innermost loop.
    pub fn renumber(&mut self, new_order: &[LoopId], nodes: &[N]) {
        debug_assert_eq!(new_order.len(), self.loops.len());
        let mut position = vec![0u32; self.loops.len()];
        for (k, &l) in new_order.iter().enumerate() {
            position[l.index()] = k as u32;
        }
        let new_id = |l: LoopId| LoopId::from_u32(position[l.index()]);
        let mut old: Vec<Option<Loop<N>>> = std::mem::take(&mut self.loops).into_iter().map(Some).collect();
        self.loops = new_order.iter().map(|&l| old[l.index()].take().expect("each loop once")).collect();
        for lp in &mut self.loops {
            lp.parent = lp.parent.map(new_id);
        }
        for &b in nodes {
            if let Some(l) = self.innermost[b].expand() {
                self.innermost[b] = new_id(l).into();
            }
        }
        self.link();
    }

    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// Every loop id, in order (outer before inner).
    pub fn ids(&self) -> impl ExactSizeIterator<Item = LoopId> {
        (0..self.loops.len()).map(LoopId::new)
    }

    /// All loops, outer before inner.
    pub fn iter(&self) -> impl Iterator<Item = (LoopId, &Loop<N>)> {
        self.loops.iter().enumerate().map(|(i, l)| (LoopId::new(i), l))
    }

    pub fn get(&self, l: LoopId) -> &Loop<N> {
        &self.loops[l.index()]
    }

    /// Outermost loops.
    pub fn roots(&self) -> &[LoopId] {
        &self.roots
    }

    /// The loop directly enclosing `l`.
    pub fn parent(&self, l: LoopId) -> Option<LoopId> {
        self.loops[l.index()].parent
    }

    /// The innermost loop whose body holds `b`.
    pub fn innermost(&self, b: N) -> Option<LoopId> {
        self.innermost[b].expand()
    }

    /// Records the innermost loop of a node added to the graph after the forest was built.
    pub fn set_innermost(&mut self, b: N, l: Option<LoopId>) {
        self.innermost[b] = l.into();
    }

    /// The loop `b` heads, if it is a header.
    pub fn loop_of_header(&self, b: N) -> Option<LoopId> {
        self.innermost(b).filter(|&l| self.loops[l.index()].header == b)
    }

    pub fn is_header(&self, b: N) -> bool {
        self.loop_of_header(b).is_some()
    }

    /// `outer` is `inner` or encloses it. O(1).
    pub fn encloses(&self, outer: LoopId, inner: LoopId) -> bool {
        let (o, i) = (&self.loops[outer.index()], &self.loops[inner.index()]);
        o.pre <= i.pre && i.post <= o.post
    }

    /// `b` is in the body of `l` (nested loops included). O(1).
    pub fn contains(&self, l: LoopId, b: N) -> bool {
        self.innermost(b).is_some_and(|m| self.encloses(l, m))
    }

    /// The nodes of `nodes` whose innermost loop is each loop, by loop id, in the order given.
    pub fn own_nodes(&self, nodes: &[N]) -> Vec<Vec<N>> {
        let mut own = vec![Vec::new(); self.len()];
        for &b in nodes {
            if let Some(l) = self.innermost(b) {
                own[l.index()].push(b);
            }
        }
        own
    }

    /// How many of `nodes` each loop's body holds, nested loops included, by loop id.
    pub fn body_sizes(&self, nodes: &[N]) -> Vec<usize> {
        let mut size = vec![0usize; self.len()];
        for &b in nodes {
            if let Some(l) = self.innermost(b) {
                size[l.index()] += 1;
            }
        }
        // A loop's id is smaller than its children's: add inner sizes outwards.
        for l in (0..self.len()).rev() {
            if let Some(p) = self.loops[l].parent {
                size[p.index()] += size[l];
            }
        }
        size
    }

    /// Each loop's body among `nodes` (nested loops included), by loop id: its own nodes in
    /// the order given, then its children's bodies. O(Σ body sizes).
    pub fn bodies(&self, nodes: &[N]) -> Vec<Vec<N>> {
        let own = self.own_nodes(nodes);
        (0..self.len())
            .map(|l| {
                let mut body = Vec::new();
                let mut stack = vec![LoopId::new(l)];
                while let Some(x) = stack.pop() {
                    body.extend_from_slice(&own[x.index()]);
                    stack.extend(self.loops[x.index()].children.iter().rev().copied());
                }
                body
            })
            .collect()
    }

    /// Each loop's exits, by loop id, sorted: the successors outside the body of nodes in
    /// it. `nodes` are the graph's reachable nodes. O(e · depth of the exits' loops).
    pub fn exits<F, I>(&self, nodes: &[N], mut succs: F) -> Vec<Vec<N>>
    where
        F: FnMut(N) -> I,
        I: IntoIterator<Item = N>,
    {
        let mut exits = vec![Vec::new(); self.len()];
        for &b in nodes {
            let Some(inner) = self.innermost(b) else { continue };
            for s in succs(b) {
                let mut l = Some(inner);
                while let Some(id) = l {
                    if self.contains(id, s) {
                        break;
                    }
                    exits[id.index()].push(s);
                    l = self.loops[id.index()].parent;
                }
            }
        }
        for e in &mut exits {
            e.sort_unstable();
            e.dedup();
        }
        exits
    }
}
