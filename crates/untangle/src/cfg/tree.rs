//! A rooted tree over nodes with O(1) ancestor queries, shared by the dominator and the
//! post-dominator tree.
//!
//! Ancestry is answered by DFS interval labels (Tarjan 1974, "Finding dominators in directed
//! graphs"; the pre/post-number test every modern dominator implementation uses): `a` is an
//! ancestor of `b` iff `pre(a) <= pre(b) && post(b) <= post(a)`.
//!
//! The root is virtual: the dominator tree hangs its one real root, the entry, under it;
//! the post-dominator tree hangs every block whose immediate post-dominator is the virtual
//! exit. One fixed-size record per node (parent, child span, two labels) and every child
//! list a span of one array, laid out by counting: building a tree is O(n) with O(1)
//! allocations.

use super::flow::Node;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

/// One node's place in the tree; `Default` is "not in the tree".
#[derive(Copy, Clone, Debug)]
struct Slot<N: Node> {
    parent: PackedOption<N>,
    /// The children: `kids[first..first + count]`.
    first: u32,
    count: u32,
    /// 0 for a node not in the tree.
    pre: u32,
    post: u32,
}

impl<N: Node> Default for Slot<N> {
    fn default() -> Self {
        Slot { parent: None.into(), first: 0, count: 0, pre: 0, post: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Tree<N: Node> {
    slots: SecondaryMap<N, Slot<N>>,
    kids: Vec<N>,
    /// Children of the virtual root.
    roots: SmallVec<[N; 2]>,
    len: usize,
}

impl<N: Node> Default for Tree<N> {
    fn default() -> Self {
        Tree { slots: SecondaryMap::new(), kids: Vec::new(), roots: SmallVec::new(), len: 0 }
    }
}

impl<N: Node> Tree<N> {
    /// A tree from `(node, parent)` pairs; parents must come before their children, and
    /// `None` is the virtual root. Children keep the order in which they are given. The
    /// pairs are walked twice (counting, then placing): O(n), O(1) allocations.
    pub(crate) fn from_parents<I>(pairs: I) -> Tree<N>
    where
        I: IntoIterator<Item = (N, Option<N>)>,
        I::IntoIter: Clone,
    {
        let pairs = pairs.into_iter();
        let mut t = Tree::default();
        // Count the children of every parent, then give each node its span in pair order.
        for (b, parent) in pairs.clone() {
            t.slots[b].pre = 1; // "present" until `label` assigns real labels
            t.len += 1;
            match parent {
                Some(p) => t.slots[p].count += 1,
                None => t.roots.push(b),
            }
        }
        let mut next = 0u32;
        for (b, _) in pairs.clone() {
            let slot = &mut t.slots[b];
            slot.first = next;
            next += slot.count;
            slot.count = 0;
        }
        t.kids = Vec::with_capacity(next as usize);
        t.kids.resize(next as usize, N::reserved_value());
        for (b, parent) in pairs {
            t.slots[b].parent = parent.into();
            if let Some(p) = parent {
                let slot = &mut t.slots[p];
                t.kids[(slot.first + slot.count) as usize] = b;
                slot.count += 1;
            }
        }
        t.label();
        t
    }

    /// Interval labels by an iterative DFS (trees can be 100k deep), from 1.
    fn label(&mut self) {
        let mut next = 1u32;
        let mut stack: Vec<(N, u32)> = Vec::new();
        for i in 0..self.roots.len() {
            let r = self.roots[i];
            self.slots[r].pre = next;
            next += 1;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                let slot = self.slots[b];
                if i < slot.count {
                    top.1 += 1;
                    let c = self.kids[(slot.first + i) as usize];
                    self.slots[c].pre = next;
                    next += 1;
                    stack.push((c, 0));
                } else {
                    self.slots[b].post = next;
                    next += 1;
                    stack.pop();
                }
            }
        }
    }

    pub(crate) fn contains(&self, b: N) -> bool {
        self.slots[b].pre != 0
    }

    pub(crate) fn parent(&self, b: N) -> Option<N> {
        self.slots[b].parent.expand()
    }

    pub(crate) fn children(&self, b: N) -> &[N] {
        let s = &self.slots[b];
        &self.kids[s.first as usize..(s.first + s.count) as usize]
    }

    pub(crate) fn roots(&self) -> &[N] {
        &self.roots
    }

    /// `a` is an ancestor of `b` or `b` itself; false if either is not in the tree.
    #[inline]
    pub(crate) fn is_ancestor(&self, a: N, b: N) -> bool {
        let (na, nb) = (&self.slots[a], &self.slots[b]);
        na.pre != 0 && nb.pre != 0 && na.pre <= nb.pre && nb.post <= na.post
    }

    /// Nearest common ancestor; `None` is the virtual root (or an absent input). Walks up
    /// from `a`: O(depth(a) − depth(result)) O(1) steps.
    pub(crate) fn nca(&self, a: N, b: N) -> Option<N> {
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
    pub(crate) fn nca_of(&self, nodes: impl IntoIterator<Item = N>) -> Option<N> {
        let mut it = nodes.into_iter();
        let mut acc = it.next()?;
        if !self.contains(acc) {
            return None;
        }
        for b in it {
            acc = self.nca(acc, b)?;
        }
        Some(acc)
    }

    /// Every node in the tree, parents before children.
    pub(crate) fn preorder(&self) -> Vec<N> {
        let mut out = Vec::with_capacity(self.len);
        let mut stack: Vec<N> = self.roots.iter().rev().copied().collect();
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children(b).iter().rev().copied());
        }
        out
    }
}

/// The queries a tree of immediate dominators or post-dominators answers straight from its
/// [`Tree`] field `tree`, under the names of its relation: `$rel` is the relation's noun
/// and `$verb` its verb in the docs, `$root` what an absent parent means.
macro_rules! relation_queries {
    ($rel:literal, $verb:literal, $root:literal: $parent:ident, $is:ident, $strictly:ident, $children:ident, $common:ident) => {
        #[doc = concat!("The immediate ", $rel, "; `None` for ", $root, " and for unreachable nodes.")]
        pub fn $parent(&self, b: N) -> Option<N> {
            self.tree.parent(b)
        }

        #[doc = concat!("`a` ", $verb, " `b` (reflexive). O(1). False when either node is unreachable.")]
        #[inline]
        pub fn $is(&self, a: N, b: N) -> bool {
            self.tree.is_ancestor(a, b)
        }

        #[doc = concat!("`a` ", $verb, " `b` and `a != b`. O(1).")]
        #[inline]
        pub fn $strictly(&self, a: N, b: N) -> bool {
            a != b && self.tree.is_ancestor(a, b)
        }

        #[doc = concat!("Nodes whose immediate ", $rel, " is `b`.")]
        pub fn $children(&self, b: N) -> &[N] {
            self.tree.children(b)
        }

        /// Whether `b` is in the tree (reachable).
        pub fn contains(&self, b: N) -> bool {
            self.tree.contains(b)
        }

        #[doc = concat!("The nearest node that ", $verb, " every node of `nodes`; `None` where the")]
        /// tree has none: for an empty set, one holding an unreachable node, or nodes whose
        /// only common ancestor is the virtual root.
        pub fn $common(&self, nodes: impl IntoIterator<Item = N>) -> Option<N> {
            self.tree.nca_of(nodes)
        }
    };
}
pub(crate) use relation_queries;
