//! A rooted tree over blocks with O(1) ancestor queries, shared by the dominator and the
//! post-dominator tree.
//!
//! Ancestry is answered by DFS interval labels (Tarjan 1974, "Finding dominators in directed
//! graphs"; the pre/post-number test used by every modern dominator implementation): `a` is
//! an ancestor of `b` iff `pre(a) <= pre(b) && post(b) <= post(a)`.
//!
//! To keep that O(1) while the structurizer rewrites the graph, labels are `u64`s spaced
//! far apart (the order-maintenance idea of Dietz & Sleator, "Two algorithms for maintaining
//! order in a list", STOC 1987, in its simplest form): a new node takes labels from the gap
//! next to its place; moving whole subtrees relabels just those subtrees inside a fresh gap;
//! only when a gap runs out is the whole tree relabelled (O(n), rare: the initial gap is
//! about 2^62 / n, and each insertion at the same spot at most thirds it).
//!
//! The root is virtual (labels `[0, u64::MAX]`): the dominator tree hangs its one real root,
//! the entry, under it; the post-dominator tree hangs every block whose immediate
//! post-dominator is the virtual exit.
//!
//! **Layout.** One fixed-size [`Node`] per block (32 bytes: parent, child span, two labels)
//! in a `SecondaryMap`, and every child list a span of one shared [`SpanPool`] `kids`, in
//! the order given. No node owns a heap list, so building a tree allocates only as its two
//! flat arrays grow (not once per node with three or more children).
//! [`LabelledTree::from_parents`] lays the lists out by counting (two passes over the
//! pairs); rewrites go through the pool (shrink in place, grow at the end, dead slots
//! counted), which is compacted in one preorder walk when it asks to be, O(n): amortized
//! O(1) per dead slot, so every rewrite keeps its cost in children below.

use super::span_pool::{Span, SpanPool};
use crate::ir::BlockId;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

/// One block's place in the tree; `Default` is "not in the tree".
#[derive(Copy, Clone, Debug, Default)]
struct Node {
    parent: PackedOption<BlockId>,
    /// The children: a span of `LabelledTree::kids`.
    kids: Span,
    /// 0 for a block not in the tree.
    pre: u64,
    post: u64,
}

impl Node {
    /// A node under `parent`, marked present, with no children yet.
    fn new(parent: Option<BlockId>) -> Node {
        Node { parent: parent.into(), kids: Span::default(), pre: 1, post: 1 }
    }
}

/// Scratch list for rewrites of one child list.
type Kids = SmallVec<[BlockId; 8]>;

#[derive(Clone, Debug, Default)]
pub(crate) struct LabelledTree {
    nodes: SecondaryMap<BlockId, Node>,
    /// Every node's child list (see the module docs).
    kids: SpanPool<BlockId>,
    /// Children of the virtual root.
    roots: SmallVec<[BlockId; 2]>,
    len: usize,
}

impl LabelledTree {
    /// A tree from `(node, parent)` pairs; parents must come before their children, and
    /// `None` is the virtual root. Children keep the order in which they are given. The
    /// pairs are walked twice (counting, then placing): O(n), O(1) allocations.
    pub(crate) fn from_parents<I>(pairs: I) -> LabelledTree
    where
        I: IntoIterator<Item = (BlockId, Option<BlockId>)>,
        I::IntoIter: Clone,
    {
        let pairs = pairs.into_iter();
        let mut t = LabelledTree::default();
        // Count the children of every parent, then give each node its span in pair order.
        for (b, parent) in pairs.clone() {
            t.nodes[b].pre = 1; // "present" until relabel assigns real labels
            t.len += 1;
            match parent {
                Some(p) => t.nodes[p].kids.count += 1,
                None => t.roots.push(b),
            }
        }
        let mut next = 0u32;
        for (b, _) in pairs.clone() {
            let span = &mut t.nodes[b].kids;
            span.first = next;
            next += span.count;
            span.count = 0;
        }
        t.kids = SpanPool::filled(next as usize, BlockId::from_u32(0));
        for (b, parent) in pairs {
            t.nodes[b].parent = parent.into();
            if let Some(p) = parent {
                let span = &mut t.nodes[p].kids;
                t.kids.slots_mut()[(span.first + span.count) as usize] = b;
                span.count += 1;
            }
        }
        t.relabel();
        t
    }

    pub(crate) fn contains(&self, b: BlockId) -> bool {
        self.nodes[b].pre != 0
    }

    /// The `(pre, post)` labels of a node.
    pub(crate) fn interval(&self, b: BlockId) -> (u64, u64) {
        (self.nodes[b].pre, self.nodes[b].post)
    }

    pub(crate) fn parent(&self, b: BlockId) -> Option<BlockId> {
        self.nodes[b].parent.expand()
    }

    pub(crate) fn children(&self, b: BlockId) -> &[BlockId] {
        self.kids.get(self.nodes[b].kids)
    }

    pub(crate) fn roots(&self) -> &[BlockId] {
        &self.roots
    }

    /// `a` is an ancestor of `b` or `b` itself; false if either is not in the tree.
    #[inline]
    pub(crate) fn is_ancestor(&self, a: BlockId, b: BlockId) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        na.pre != 0 && nb.pre != 0 && na.pre <= nb.pre && nb.post <= na.post
    }

    /// Nearest common ancestor; `None` is the virtual root (or an empty / absent input).
    /// Walks up from `a`: O(depth(a) − depth(result)) O(1) steps.
    pub(crate) fn nca(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        if !self.contains(a) || !self.contains(b) {
            return None;
        }
        let mut x = Some(a);
        while let Some(y) = x {
            if self.is_ancestor(y, b) {
                return Some(y);
            }
            x = self.parent(y);
        }
        None
    }

    /// Nearest common ancestor of a set; `None` if the set is empty, holds an absent node,
    /// or its only common ancestor is the virtual root.
    pub(crate) fn nca_of(&self, blocks: impl IntoIterator<Item = BlockId>) -> Option<BlockId> {
        let mut it = blocks.into_iter();
        let mut acc = it.next()?;
        if !self.contains(acc) {
            return None;
        }
        for b in it {
            acc = self.nca(acc, b)?;
        }
        Some(acc)
    }

    fn label(&self, b: Option<BlockId>) -> (u64, u64) {
        match b {
            Some(b) => (self.nodes[b].pre, self.nodes[b].post),
            None => (0, u64::MAX),
        }
    }

    fn children_of(&self, b: Option<BlockId>) -> &[BlockId] {
        match b {
            Some(b) => self.children(b),
            None => &self.roots,
        }
    }

    fn children_of_mut(&mut self, b: Option<BlockId>) -> &mut [BlockId] {
        match b {
            Some(b) => self.kids.get_mut(self.nodes[b].kids),
            None => &mut self.roots,
        }
    }

    /// Makes `list` the children of `p` (`None`: the virtual root): through the pool
    /// ([`SpanPool::set`]). O(|list|) amortized.
    fn set_children(&mut self, p: Option<BlockId>, list: &[BlockId]) {
        let Some(p) = p else {
            self.roots = list.iter().copied().collect();
            return;
        };
        if self.kids.set(&mut self.nodes[p].kids, list) {
            self.compact();
        }
    }

    /// Appends `c` to the children of `p`. O(1) when `p`'s list is last in the pool or
    /// empty, O(children of p) otherwise.
    fn push_child(&mut self, p: Option<BlockId>, c: BlockId) {
        match p {
            Some(p) => {
                if self.kids.push(&mut self.nodes[p].kids, c) {
                    self.compact();
                }
            }
            None => self.roots.push(c),
        }
    }

    /// Rebuilds the pool without dead slots, lists in preorder. O(n).
    fn compact(&mut self) {
        let mut fresh = self.kids.start_compaction();
        let mut stack: Vec<BlockId> = self.roots.to_vec();
        while let Some(b) = stack.pop() {
            let mut span = self.nodes[b].kids;
            self.kids.relocate(&mut fresh, &mut span);
            stack.extend_from_slice(&fresh[span.first as usize..]);
            self.nodes[b].kids = span;
        }
        self.kids.finish_compaction(fresh);
    }

    /// Relabels the whole tree: O(n), iterative (trees can be 100k deep).
    pub(crate) fn relabel(&mut self) {
        let gap = (u64::MAX / 4) / (2 * self.len as u64 + 2);
        let roots = self.roots.clone();
        self.label_subtrees(&roots, gap, gap.max(1));
    }

    /// Labels the given sibling subtrees consecutively from `first`, `gap` apart.
    fn label_subtrees(&mut self, subtrees: &[BlockId], first: u64, gap: u64) {
        let mut next = first;
        let mut stack: Vec<(BlockId, usize)> = Vec::new();
        for &r in subtrees {
            self.nodes[r].pre = next;
            next += gap;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                if let Some(&c) = self.children(b).get(i) {
                    top.1 += 1;
                    self.nodes[c].pre = next;
                    next += gap;
                    stack.push((c, 0));
                } else {
                    self.nodes[b].post = next;
                    next += gap;
                    stack.pop();
                }
            }
        }
    }

    fn subtree_size(&self, roots: &[BlockId]) -> u64 {
        let mut n = 0u64;
        let mut stack: Vec<BlockId> = roots.to_vec();
        while let Some(b) = stack.pop() {
            n += 1;
            stack.extend_from_slice(self.children(b));
        }
        n
    }

    /// Relabels the subtrees `subtrees` inside the open label range `(lo, hi)`; falls back to
    /// a full relabel when the range is too narrow. O(size of the subtrees).
    fn relabel_within(&mut self, subtrees: &[BlockId], lo: u64, hi: u64) {
        let events = 2 * self.subtree_size(subtrees);
        let gap = (hi - lo) / (events + 1);
        if gap == 0 {
            self.relabel();
        } else {
            self.label_subtrees(subtrees, lo + gap, gap);
        }
    }

    /// The free label range after the last child of `p` (inside `p`'s interval).
    fn tail_gap(&self, p: Option<BlockId>) -> (u64, u64) {
        let (pre, post) = self.label(p);
        let lo = self.children_of(p).iter().map(|&c| self.nodes[c].post).max().unwrap_or(pre).max(pre);
        (lo, post)
    }

    /// Adds `b` as a new leaf under `parent` (`None`: the virtual root). O(children of parent).
    pub(crate) fn insert_leaf(&mut self, parent: Option<BlockId>, b: BlockId) {
        let (lo, hi) = self.tail_gap(parent);
        self.nodes[b] = Node::new(parent);
        self.push_child(parent, b);
        self.len += 1;
        self.relabel_within(&[b], lo, hi);
    }

    /// Puts new node `b` between `child` and its parent. O(siblings of child).
    pub(crate) fn insert_above(&mut self, child: BlockId, b: BlockId) {
        let parent = self.parent(child);
        let (ppre, ppost) = self.label(parent);
        let (cpre, cpost) = self.label(Some(child));
        // The events adjacent to child's interval among its siblings.
        let mut lo = ppre;
        let mut hi = ppost;
        for &s in self.children_of(parent) {
            let n = &self.nodes[s];
            if n.post < cpre {
                lo = lo.max(n.post);
            }
            if n.pre > cpost {
                hi = hi.min(n.pre);
            }
        }
        let siblings = self.children_of_mut(parent);
        if let Some(slot) = siblings.iter_mut().find(|c| **c == child) {
            *slot = b;
        }
        self.nodes[b] = Node::new(parent);
        self.push_child(Some(b), child);
        self.nodes[child].parent = b.into();
        self.len += 1;
        if cpre - lo >= 2 && hi - cpost >= 2 {
            self.nodes[b].pre = lo + (cpre - lo) / 2;
            self.nodes[b].post = cpost + (hi - cpost) / 2;
        } else {
            self.relabel();
        }
    }

    /// Adds new node `b` as the only child of `p`, adopting all of `p`'s children.
    /// O(children of p).
    pub(crate) fn insert_below(&mut self, p: BlockId, b: BlockId) {
        if self.nodes[p].kids.count == 0 {
            return self.insert_leaf(Some(p), b);
        }
        let (ppre, ppost) = self.label(Some(p));
        let children = self.children(p);
        let first = children.iter().map(|&c| self.nodes[c].pre).min().unwrap_or(ppost);
        let last = children.iter().map(|&c| self.nodes[c].post).max().unwrap_or(ppre);
        for i in 0..children.len() {
            let c = self.children(p)[i];
            self.nodes[c].parent = b.into();
        }
        // `b` takes over `p`'s span of `kids`; `p` gets a fresh list holding `b`.
        self.nodes[b] = Node { kids: self.nodes[p].kids, ..Node::new(Some(p)) };
        self.nodes[p].kids = Span::default();
        self.push_child(Some(p), b);
        self.len += 1;
        if first - ppre >= 2 && ppost - last >= 2 {
            self.nodes[b].pre = ppre + (first - ppre) / 2;
            self.nodes[b].post = last + (ppost - last) / 2;
        } else {
            self.relabel();
        }
    }

    /// Adds `b` as a new leaf under `parent` and moves `adopt` (children of `parent`) under
    /// it. O(children of parent + size of the moved subtrees).
    pub(crate) fn insert_adopting(&mut self, parent: BlockId, b: BlockId, adopt: &[BlockId]) {
        if adopt.is_empty() {
            return self.insert_leaf(Some(parent), b);
        }
        let (lo, hi) = self.tail_gap(Some(parent));
        let mut siblings: Kids = self.children(parent).iter().copied().filter(|c| !adopt.contains(c)).collect();
        siblings.push(b);
        self.set_children(Some(parent), &siblings);
        for &c in adopt {
            self.nodes[c].parent = b.into();
        }
        self.nodes[b] = Node::new(Some(parent));
        self.set_children(Some(b), adopt);
        self.len += 1;
        self.relabel_within(&[b], lo, hi);
    }

    /// Removes `b`, its children taking its place under its parent. Labels stay valid: the
    /// children's intervals were inside `b`'s. O(children of b's parent + children of b).
    pub(crate) fn remove_lifting_children(&mut self, b: BlockId) {
        if !self.contains(b) {
            return;
        }
        let parent = self.parent(b);
        let children: Kids = self.children(b).iter().copied().collect();
        for &c in &children {
            self.nodes[c].parent = parent.into();
        }
        let mut siblings: Kids = self.children_of(parent).iter().copied().collect();
        if let Some(i) = siblings.iter().position(|c| *c == b) {
            siblings.remove(i);
        }
        siblings.extend(children.iter().copied());
        self.kids.release(self.nodes[b].kids);
        self.nodes[b] = Node::default();
        self.set_children(parent, &siblings);
        self.len -= 1;
    }

    /// Every node in the tree, parents before children.
    pub(crate) fn preorder(&self) -> Vec<BlockId> {
        let mut out = Vec::with_capacity(self.len);
        let mut stack: Vec<BlockId> = self.roots.iter().rev().copied().collect();
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children(b).iter().rev().copied());
        }
        out
    }

    /// Structural self-check: parent/child links agree and every node's interval lies
    /// strictly inside its parent's and apart from its siblings'. Used by
    /// `Cfg::verify_against_recompute`.
    pub(crate) fn check_labels(&self) -> Result<(), String> {
        let mut seen = 0usize;
        let mut groups: Vec<(Option<BlockId>, &[BlockId])> = vec![(None, &self.roots)];
        while let Some((parent, kids)) = groups.pop() {
            let (ppre, ppost) = self.label(parent);
            let mut spans: Vec<(u64, u64, BlockId)> = Vec::with_capacity(kids.len());
            for &c in kids {
                let n = &self.nodes[c];
                if n.pre == 0 {
                    return Err(format!("{c} is a child of {parent:?} but not in the tree"));
                }
                if n.parent.expand() != parent {
                    return Err(format!("{c} is listed under {parent:?} but its parent is {:?}", n.parent.expand()));
                }
                if !(ppre < n.pre && n.pre < n.post && n.post < ppost) {
                    return Err(format!("interval of {c} not inside its parent {parent:?}"));
                }
                spans.push((n.pre, n.post, c));
                groups.push((Some(c), self.children(c)));
                seen += 1;
            }
            spans.sort_unstable();
            for w in spans.windows(2) {
                if w[0].1 >= w[1].0 {
                    return Err(format!("intervals of siblings {} and {} overlap", w[0].2, w[1].2));
                }
            }
        }
        if seen != self.len {
            return Err(format!("tree has {} nodes reachable from the root but counts {}", seen, self.len));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: u32) -> BlockId {
        BlockId::from_u32(i)
    }

    /// Lists that keep moving to the end of `kids` leave dead slots until the array is
    /// compacted; the children, their order and the labels must survive every move.
    #[test]
    fn child_lists_survive_relocation_and_compaction() {
        // Root 0 with children 1 and 2; then leaves added alternately under 1 and 2, so
        // neither list stays last in `kids` and each push moves a whole list.
        let mut t = LabelledTree::from_parents([(b(0), None), (b(1), Some(b(0))), (b(2), Some(b(0)))]);
        let mut expect: [Vec<BlockId>; 2] = [Vec::new(), Vec::new()];
        let mut compactions = 0;
        for i in 0..600u32 {
            let side = (i % 2) as usize;
            let node = b(3 + i);
            let dead_before = t.kids.dead_slots();
            t.insert_leaf(Some(b(1 + side as u32)), node);
            if t.kids.dead_slots() < dead_before {
                compactions += 1;
            }
            expect[side].push(node);
        }
        assert!(compactions > 0, "the test should reach a compaction");
        assert_eq!(t.children(b(1)), expect[0].as_slice());
        assert_eq!(t.children(b(2)), expect[1].as_slice());
        assert_eq!(t.children(b(0)), [b(1), b(2)]);
        t.check_labels().unwrap();

        // Adopting, inserting between and removing rewrite lists in place or move them.
        let adopt: Vec<BlockId> = expect[0].iter().copied().step_by(2).collect();
        t.insert_adopting(b(1), b(1000), &adopt);
        let kept: Vec<BlockId> = expect[0].iter().copied().filter(|c| !adopt.contains(c)).collect();
        assert_eq!(t.children(b(1000)), adopt.as_slice());
        assert_eq!(t.children(b(1)), [kept.as_slice(), &[b(1000)]].concat().as_slice());
        t.insert_above(b(2), b(1001));
        assert_eq!(t.children(b(0)), [b(1), b(1001)]);
        assert_eq!(t.children(b(1001)), [b(2)]);
        t.insert_below(b(2), b(1002));
        assert_eq!(t.children(b(2)), [b(1002)]);
        assert_eq!(t.children(b(1002)), expect[1].as_slice());
        t.remove_lifting_children(b(1000));
        assert_eq!(t.children(b(1)), [kept.as_slice(), adopt.as_slice()].concat().as_slice());
        t.check_labels().unwrap();
        assert!(t.is_ancestor(b(0), expect[1][7]) && t.is_ancestor(b(1002), expect[1][7]));
        assert!(!t.is_ancestor(b(1), expect[1][7]));
    }
}
