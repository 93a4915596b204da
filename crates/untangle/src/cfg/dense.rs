//! A compact snapshot of the reachable part of a graph: nodes numbered `0..n` in RPO, edges
//! in compressed sparse rows (CSR). The batch algorithms (Lengauer–Tarjan, the virtual-exit
//! search, the irreducible-region search) run on this rather than on node-keyed maps: dense
//! `u32` indices keep their arrays small and their loops cache-friendly at 100k blocks.

use super::flow::{FlowGraph, Node};
use super::order::Order;

/// Compressed sparse rows: the neighbours of node `i` are `adj[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct Csr {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Csr {
    /// Builds rows in node order: `row(i, adj)` appends the neighbours of node `i`.
    pub fn from_rows(n: usize, mut row: impl FnMut(usize, &mut Vec<u32>)) -> Csr {
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::new();
        for i in 0..n {
            start.push(adj.len() as u32);
            row(i, &mut adj);
        }
        start.push(adj.len() as u32);
        Csr { start, adj }
    }

    /// Builds rows from `(node, neighbour)` pairs in any order, by counting: each row keeps
    /// its pairs' order. Two passes over `pairs`, O(n + pairs), two allocations.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n + 1];
        for (i, _) in pairs.clone() {
            start[i as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut adj = vec![0u32; start[n] as usize];
        let mut fill = start.clone();
        for (i, j) in pairs {
            adj[fill[i as usize] as usize] = j;
            fill[i as usize] += 1;
        }
        Csr { start, adj }
    }

    /// The reverse graph: row `j` lists every `i` whose row holds `j`, in increasing `i`.
    pub fn transpose(&self) -> Csr {
        let n = self.len();
        Csr::from_pairs(n, (0..n as u32).flat_map(move |i| self.neighbors(i).iter().map(move |&j| (j, i))))
    }

    pub fn neighbors(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.adj[self.start[i] as usize..self.start[i + 1] as usize]
    }

    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The reachable graph of an [`Order`] in dense form: node `i` is `order.rpo()[i]`.
pub struct DenseGraph<'o, N: Node> {
    pub order: &'o Order<N>,
    pub succ: Csr,
    pub pred: Csr,
}

impl<'o, N: Node> DenseGraph<'o, N> {
    /// The edges of `g` between the nodes `order` reaches (parallel edges kept).
    pub fn new<G: FlowGraph<Node = N>>(g: &G, order: &'o Order<N>) -> DenseGraph<'o, N> {
        let nodes = order.rpo();
        let succ = Csr::from_rows(nodes.len(), |i, out| {
            out.extend(g.successors(nodes[i]).filter_map(|s| order.rpo_index(s)));
        });
        let pred = succ.transpose();
        DenseGraph { order, succ, pred }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The node at RPO position `i`.
    pub fn node(&self, i: u32) -> N {
        self.order.rpo()[i as usize]
    }
}
