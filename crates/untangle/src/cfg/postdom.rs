//! The post-dominator tree over a virtual exit.
//!
//! Post-dominators are dominators of the reverse graph rooted at a virtual exit `X`, with
//! an edge `b → X` from every reachable block without successors (`ret`, `unreachable`).
//! Computed by the same Lengauer–Tarjan code as the dominator tree, and stored the same
//! way, so `post_dominates` is O(1).
//!
//! **Infinite loops.** A block from which no exit is reachable would have no
//! post-dominator at all. Our treatment: every *outermost* loop none of whose blocks
//! reaches an exit gets a virtual edge from each of its latches to `X`, as if the back
//! edge could also leave the function. Then every reachable block reaches `X` (any endless
//! path ends up circling inside such a loop, whose latch now leaves), and inside the loop
//! post-dominance reads naturally: the latch post-dominates the body up to the last branch.
//! Only outermost loops need the edge: a loop nested in one that reaches an exit reaches it
//! too (its header is in the outer body, which reaches the outer latch), and a loop that
//! cannot leave its parent is not in its parent's natural loop (see `loops.rs`), so it is
//! itself outermost. This follows the spirit of dxil-spirv's "fake" back-edge branches (part
//! 5 of the blog series), but lands on the exit rather than on a guessed merge block, so it
//! needs no heuristic. The blocks given such an edge are listed by
//! [`PostDomTree::virtual_exit_sources`] and in `untangle cfg --json`.
//!
//! `ipdom(b) == None` means the virtual exit (or an unreachable `b`, which is not in the
//! tree: check [`PostDomTree::contains`]).

use super::dense::{Csr, DenseGraph};
use super::flow::Node;
use super::lengauer_tarjan::{immediate_dominators, NONE};
use super::loops::LoopForest;
use super::tree::{relation_queries, Tree};
use cranelift_entity::SecondaryMap;

#[derive(Clone, Debug)]
pub struct PostDomTree<N: Node = crate::ir::BlockId> {
    tree: Tree<N>,
    /// Latches of endless outermost loops, given a virtual edge to the exit; RPO order.
    virtual_sources: Vec<N>,
    is_virtual_source: SecondaryMap<N, bool>,
}

impl<N: Node> Default for PostDomTree<N> {
    fn default() -> Self {
        PostDomTree { tree: Tree::default(), virtual_sources: Vec::new(), is_virtual_source: SecondaryMap::new() }
    }
}

impl<N: Node> PostDomTree<N> {
    /// The post-dominator tree of a dense snapshot whose loops are `loops`. O((n + e) log n).
    pub fn compute(g: &DenseGraph<'_, N>, loops: &LoopForest<N>) -> PostDomTree<N> {
        let n = g.len();
        if n == 0 {
            return PostDomTree::default();
        }
        // Which blocks reach a real exit: backward search from the sinks.
        let mut reaches_exit = vec![false; n];
        let mut work: Vec<u32> = (0..n as u32).filter(|&i| g.succ.neighbors(i).is_empty()).collect();
        for &i in &work {
            reaches_exit[i as usize] = true;
        }
        while let Some(i) = work.pop() {
            for &p in g.pred.neighbors(i) {
                if !reaches_exit[p as usize] {
                    reaches_exit[p as usize] = true;
                    work.push(p);
                }
            }
        }
        let index = |b: N| g.order.rpo_index(b).expect("a loop's blocks are reachable");
        let mut is_virtual_source: SecondaryMap<N, bool> = SecondaryMap::new();
        let mut sources: Vec<u32> = Vec::new();
        for &l in loops.roots() {
            let lp = loops.get(l);
            if !reaches_exit[index(lp.header) as usize] {
                for &latch in &lp.latches {
                    if !is_virtual_source[latch] {
                        is_virtual_source[latch] = true;
                        sources.push(index(latch));
                    }
                }
            }
        }
        sources.sort_unstable();
        let (succ, pred) = reverse_with_exit(g, &sources);
        let exit = n as u32;
        let idom = immediate_dominators(exit, &succ, &pred);
        // `from_parents` wants parents before children: a preorder of the tree, children in
        // RPO order of the forward graph so the result does not depend on the search.
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let children_of =
            Csr::from_pairs(n + 1, (0..n as u32).filter(|&i| idom[i as usize] != NONE).map(|i| (idom[i as usize], i)));
        let mut stack = vec![exit];
        while let Some(x) = stack.pop() {
            for &c in children_of.neighbors(x) {
                order.push(c);
                stack.push(c);
            }
        }
        let pairs = order.iter().map(|&i| {
            let p = idom[i as usize];
            let parent = (p != exit).then(|| g.node(p));
            (g.node(i), parent)
        });
        let tree = Tree::from_parents(pairs);
        let virtual_sources = sources.iter().map(|&i| g.node(i)).collect();
        PostDomTree { tree, virtual_sources, is_virtual_source }
    }

    relation_queries!("post-dominator", "post-dominates", "the virtual exit's children": ipdom, post_dominates, strictly_post_dominates, children, common_post_dominator);

    /// Blocks whose immediate post-dominator is the virtual exit.
    pub fn exit_children(&self) -> &[N] {
        self.tree.roots()
    }

    /// Latches given a virtual edge to the exit (the infinite-loop treatment above).
    pub fn virtual_exit_sources(&self) -> &[N] {
        &self.virtual_sources
    }

    pub fn has_virtual_exit_edge(&self, b: N) -> bool {
        self.is_virtual_source[b]
    }
}

/// The reverse graph of `g` plus the virtual exit (node `n`): exit → every sink and every
/// virtual source; a block → its predecessors.
fn reverse_with_exit<N: Node>(g: &DenseGraph<'_, N>, virtual_sources: &[u32]) -> (Csr, Csr) {
    let n = g.len();
    let mut to_exit: Vec<bool> = (0..n as u32).map(|i| g.succ.neighbors(i).is_empty()).collect();
    for &s in virtual_sources {
        to_exit[s as usize] = true;
    }
    let succ = Csr::from_rows(n + 1, |i, out| {
        if i == n {
            out.extend((0..n as u32).filter(|&j| to_exit[j as usize]));
        } else {
            out.extend_from_slice(g.pred.neighbors(i as u32));
        }
    });
    let pred = Csr::from_rows(n + 1, |i, out| {
        if i < n {
            out.extend_from_slice(g.succ.neighbors(i as u32));
            if to_exit[i] {
                out.push(n as u32);
            }
        }
    });
    (succ, pred)
}
