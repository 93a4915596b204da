//! Locating an irreducible region, for the error message.
//!
//! A flow graph is reducible iff every retreating edge of a DFS goes to a node that
//! dominates its source (Hecht & Ullman, "Characterizations of reducible flow graphs",
//! JACM 1974). When that fails, the graph with the dominance back edges removed still has a
//! cycle; its strongly connected components (Kosaraju's two-pass algorithm, iterative) with
//! more than one node are the irreducible regions, and each has at least two entry nodes
//! (a single entry would dominate the region and make the cycle's edge into it a back
//! edge). We report the entries of the first region in RPO: they are the nodes a reader
//! needs to see to understand why the loop has no single header.

use super::dense::{Csr, DenseGraph};
use super::dominators::DomTree;
use super::flow::Node;
use super::order::Order;

/// The entry nodes of the first irreducible region (in RPO), or all its nodes if it has
/// fewer than two entries; empty if the graph is reducible after all.
pub fn irreducible_region<N: Node>(g: &DenseGraph<'_, N>, dom: &DomTree<N>) -> Vec<N> {
    let n = g.len();
    let forward = |i: u32, j: u32| !dom.dominates(g.node(j), g.node(i));
    let succ = Csr::from_rows(n, |i, out| {
        out.extend(g.succ.neighbors(i as u32).iter().copied().filter(|&j| forward(i as u32, j)))
    });
    let pred = Csr::from_rows(n, |i, out| {
        out.extend(g.pred.neighbors(i as u32).iter().copied().filter(|&j| forward(j, i as u32)))
    });
    // Pass 1: post-order of the forward graph.
    let mut visited = vec![false; n];
    let mut post: Vec<u32> = Vec::with_capacity(n);
    for root in 0..n as u32 {
        if visited[root as usize] {
            continue;
        }
        visited[root as usize] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            if let Some(&w) = succ.neighbors(v).get(i) {
                top.1 += 1;
                if !visited[w as usize] {
                    visited[w as usize] = true;
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
                stack.pop();
            }
        }
    }
    // Pass 2: components of the reverse graph in reverse post-order.
    const UNASSIGNED: u32 = u32::MAX;
    let mut comp = vec![UNASSIGNED; n];
    let mut best: Option<Vec<u32>> = None;
    for &root in post.iter().rev() {
        if comp[root as usize] != UNASSIGNED {
            continue;
        }
        comp[root as usize] = root;
        let mut members = vec![root];
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for &w in pred.neighbors(v) {
                if comp[w as usize] == UNASSIGNED {
                    comp[w as usize] = root;
                    members.push(w);
                    stack.push(w);
                }
            }
        }
        if members.len() > 1 {
            members.sort_unstable();
            if best.as_ref().is_none_or(|b| members[0] < b[0]) {
                best = Some(members);
            }
        }
    }
    let Some(region) = best else {
        return Vec::new();
    };
    let id = comp[region[0] as usize];
    let entries: Vec<u32> = region
        .iter()
        .copied()
        .filter(|&v| v == 0 || g.pred.neighbors(v).iter().any(|&p| comp[p as usize] != id))
        .collect();
    let chosen = if entries.len() >= 2 { entries } else { region };
    chosen.into_iter().map(|i| g.node(i)).collect()
}

/// Whether every retreating edge of `order` goes to a node that dominates its source (the
/// graph is reducible: Hecht & Ullman). O(retreating edges).
pub fn is_reducible<N: Node>(order: &Order<N>, dom: &DomTree<N>) -> bool {
    order.retreating_edges().iter().all(|&(u, v)| dom.dominates(v, u))
}
