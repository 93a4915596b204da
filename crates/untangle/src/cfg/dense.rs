//! A compact snapshot of the reachable part of a [`Graph`]: nodes numbered `0..n` in RPO,
//! edges in compressed sparse rows (CSR). The batch algorithms (Lengauer–Tarjan, the
//! virtual-exit search) run on this rather than on `BlockId`-keyed maps: dense `u32`
//! indices keep their arrays small and their loops cache-friendly at 100k blocks.

use super::graph::Graph;
use super::order::Order;
use crate::ir::BlockId;

/// Compressed sparse rows: the neighbours of node `i` are `adj[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Csr {
    /// Builds rows from `(node, neighbour)` pairs grouped by node in increasing order.
    pub(crate) fn from_rows(n: usize, mut row: impl FnMut(usize, &mut Vec<u32>)) -> Csr {
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
    pub(crate) fn from_pairs(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
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

    pub(crate) fn neighbors(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.adj[self.start[i] as usize..self.start[i + 1] as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }
}

pub(crate) struct DenseGraph {
    /// `nodes[i]` is the block at RPO position `i`.
    pub nodes: Vec<BlockId>,
    pub succ: Csr,
    pub pred: Csr,
}

impl DenseGraph {
    pub(crate) fn new(graph: &Graph, order: &Order) -> DenseGraph {
        let nodes = order.rpo().to_vec();
        let index = |b: BlockId| order.rpo_index(b);
        let succ =
            Csr::from_rows(nodes.len(), |i, out| out.extend(graph.succs(nodes[i]).iter().filter_map(|&s| index(s))));
        let pred =
            Csr::from_rows(nodes.len(), |i, out| out.extend(graph.preds(nodes[i]).iter().filter_map(|&p| index(p))));
        DenseGraph { nodes, succ, pred }
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }
}
