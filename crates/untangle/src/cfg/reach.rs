//! Reachability in the acyclic graph (back edges removed), with O(1)-time queries.
//!
//! "Can `a` reach `b`" is the structurizer's most frequent question after dominance, so it
//! is answered from a precomputed transitive closure (reflexive: every block reaches
//! itself). Two representations, chosen by size:
//!
//! * **Dense** (at most [`DEFAULT_DENSE_LIMIT`] reachable blocks, configurable through
//!   `CfgOptions`): one bit row per block, `Vec<u64>` words, built bottom-up in post-order
//!   by OR-ing the rows of the forward successors (the `visit_reachability` of dxil-spirv,
//!   part 5 of the blog series). Query: one bit test. Memory n²/8 bytes: 2 MiB at 4096
//!   blocks, but 1.25 GB at 100k, hence the limit.
//! * **Intervals** (above the limit): the compressed transitive closure of Agrawal, Borgida
//!   & Jagadish, "Efficient management of transitive relationships in large data and
//!   knowledge bases" (SIGMOD 1989). Blocks are labelled by DFS post-order; a block's
//!   reachable set is stored as sorted disjoint label intervals. A block's DFS subtree is
//!   one contiguous interval, so on CFG shapes the lists stay tiny (at most 2 intervals on
//!   chains of diamonds, deep loop nests and wide switches; at most 4 on the 257 csmith
//!   functions when forced into this form). Query: a binary search in that short list. Memory O(Σ intervals),
//!   which is O(n²) only on adversarial DAGs that no compiler emits: every row in one pool
//!   (8 bytes a block plus 16 an interval, no list allocated per block).
//!
//! Both are patched in place by the rewrites of `incremental.rs`: a new block gets a row
//! (a fresh column, or a label in a gap next to its neighbour in post-order), and every
//! other row learns whether it reaches the new block, from whether it reaches the rewrite's
//! sources: O(n · |sources|) bit tests, or O(n · log k) binary searches. When a gap or the
//! column capacity runs out, the caller rebuilds.
//!
//! `reaches_avoiding` (a path from A to B that avoids C) cannot be read off a closure; it is
//! a DFS from A, pruned to blocks that still reach B: O(n + e) worst case (see `Cfg`).

use super::dominators::DomTree;
use super::graph::Graph;
use super::order::Order;
use super::span_pool::{Span, SpanPool};
use crate::ir::BlockId;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

/// Above this many reachable blocks, reachability uses interval labels instead of bit rows.
pub const DEFAULT_DENSE_LIMIT: usize = 4096;

const NO_COLUMN: u32 = u32::MAX;
/// Distance between consecutive post-order labels in the interval representation.
const LABEL_GAP: u64 = 1 << 32;

#[derive(Clone, Debug)]
pub struct Reachability {
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    Dense(DenseReach),
    Intervals(IntervalReach),
}

/// Forward successors: back edges (`s` dominates `b`) are not part of the acyclic graph.
pub(crate) fn forward_succs<'a>(graph: &'a Graph, dom: &'a DomTree, b: BlockId) -> impl Iterator<Item = BlockId> + 'a {
    graph.succs(b).iter().copied().filter(move |&s| !dom.dominates(s, b))
}

impl Reachability {
    pub(crate) fn compute(graph: &Graph, order: &Order, dom: &DomTree, dense_limit: usize) -> Reachability {
        let repr = if order.len() <= dense_limit {
            Repr::Dense(DenseReach::compute(graph, order, dom))
        } else {
            Repr::Intervals(IntervalReach::compute(graph, order, dom))
        };
        Reachability { repr }
    }

    /// `a` reaches `b` in the acyclic graph (reflexive). False for unreachable blocks.
    #[inline]
    pub fn reaches(&self, a: BlockId, b: BlockId) -> bool {
        match &self.repr {
            Repr::Dense(d) => d.reaches(a, b),
            Repr::Intervals(i) => i.reaches(a, b),
        }
    }

    /// Whether the bit-row representation is in use.
    pub fn is_dense(&self) -> bool {
        matches!(self.repr, Repr::Dense(_))
    }

    /// The largest number of intervals one block's row needs (1 for the dense form).
    pub fn max_intervals(&self) -> usize {
        match &self.repr {
            Repr::Dense(_) => 1,
            Repr::Intervals(i) => i.rows.values().map(|r| r.count as usize).max().unwrap_or(0),
        }
    }

    /// New block `n` whose only successor is `target` (`None` when that edge is a back edge)
    /// and whose predecessors are `sources`. Returns false when the caller must rebuild.
    pub(crate) fn add_before(
        &mut self,
        n: BlockId,
        target: Option<BlockId>,
        sources: &[BlockId],
        live: &[BlockId],
    ) -> bool {
        match &mut self.repr {
            Repr::Dense(d) => d.add_before(n, target, sources, live),
            Repr::Intervals(i) => i.add_before(n, target, sources, live),
        }
    }

    /// New block `n` that took over all of `b`'s successors, `b` now branching to `n`.
    pub(crate) fn add_after(&mut self, b: BlockId, n: BlockId, live: &[BlockId]) -> bool {
        match &mut self.repr {
            Repr::Dense(d) => d.add_after(b, n, live),
            Repr::Intervals(i) => i.add_after(b, n, live),
        }
    }

    /// Forgets block `p`, which the rewrite removed without changing who reaches whom.
    pub(crate) fn remove(&mut self, p: BlockId) {
        match &mut self.repr {
            Repr::Dense(d) => d.col[p] = NO_COLUMN,
            Repr::Intervals(i) => i.remove(p),
        }
    }
}

#[derive(Clone, Debug)]
struct DenseReach {
    col: SecondaryMap<BlockId, u32>,
    /// Words per row; rows and columns share the column numbering.
    words: usize,
    used: usize,
    rows: Vec<u64>,
}

impl DenseReach {
    fn compute(graph: &Graph, order: &Order, dom: &DomTree) -> DenseReach {
        let n = order.len();
        // Slack for blocks added by rewrites before a rebuild is needed.
        let capacity = (n + n / 4 + 64).div_ceil(64) * 64;
        let words = capacity / 64;
        let mut d =
            DenseReach { col: SecondaryMap::with_default(NO_COLUMN), words, used: n, rows: vec![0; capacity * words] };
        for (i, b) in order.post_order().enumerate() {
            d.col[b] = i as u32;
        }
        for b in order.post_order() {
            let r = d.col[b] as usize;
            d.set_bit(r, r);
            for s in forward_succs(graph, dom, b) {
                let c = d.col[s];
                if c != NO_COLUMN {
                    d.or_row(r, c as usize);
                }
            }
        }
        d
    }

    fn or_row(&mut self, dst: usize, src: usize) {
        let w = self.words;
        if dst == src {
            return;
        }
        let (d, s) = if dst < src {
            let (lo, hi) = self.rows.split_at_mut(src * w);
            (&mut lo[dst * w..dst * w + w], &hi[..w])
        } else {
            let (lo, hi) = self.rows.split_at_mut(dst * w);
            (&mut hi[..w], &lo[src * w..src * w + w])
        };
        for (x, y) in d.iter_mut().zip(s) {
            *x |= *y;
        }
    }

    #[inline]
    fn bit(&self, row: usize, col: usize) -> bool {
        self.rows[row * self.words + col / 64] >> (col % 64) & 1 != 0
    }

    #[inline]
    fn set_bit(&mut self, row: usize, col: usize) {
        self.rows[row * self.words + col / 64] |= 1 << (col % 64);
    }

    #[inline]
    fn clear_bit(&mut self, row: usize, col: usize) {
        self.rows[row * self.words + col / 64] &= !(1 << (col % 64));
    }

    #[inline]
    fn reaches(&self, a: BlockId, b: BlockId) -> bool {
        let (ca, cb) = (self.col[a], self.col[b]);
        ca != NO_COLUMN && cb != NO_COLUMN && self.bit(ca as usize, cb as usize)
    }

    fn new_column(&mut self, n: BlockId) -> Option<usize> {
        if self.used == self.words * 64 {
            return None;
        }
        let c = self.used;
        self.used += 1;
        self.col[n] = c as u32;
        let w = self.words;
        self.rows[c * w..c * w + w].fill(0);
        Some(c)
    }

    fn add_before(&mut self, n: BlockId, target: Option<BlockId>, sources: &[BlockId], live: &[BlockId]) -> bool {
        let Some(c) = self.new_column(n) else {
            return false;
        };
        self.set_bit(c, c);
        if let Some(t) = target {
            self.or_row(c, self.col[t] as usize);
        }
        let src: SmallVec<[usize; 4]> = sources.iter().map(|&s| self.col[s] as usize).collect();
        for &x in live {
            let r = self.col[x] as usize;
            if r != c && src.iter().any(|&s| self.bit(r, s)) {
                self.set_bit(r, c);
            }
        }
        true
    }

    fn add_after(&mut self, b: BlockId, n: BlockId, live: &[BlockId]) -> bool {
        let Some(c) = self.new_column(n) else {
            return false;
        };
        let cb = self.col[b] as usize;
        self.or_row(c, cb);
        self.clear_bit(c, cb);
        self.set_bit(c, c);
        for &x in live {
            let r = self.col[x] as usize;
            if r != c && self.bit(r, cb) {
                self.set_bit(r, c);
            }
        }
        true
    }
}

type Ranges = SmallVec<[(u64, u64); 2]>;

/// Interval rows in one [`SpanPool`]: a block's ranges are its span of `pool`, so the
/// closure is two flat arrays (8 bytes a block, 16 an interval), with no allocation per
/// block however many blocks need more than two intervals. Rewrites go through the pool
/// (shrink in place, grow at the end, rebuilt in block order when dead slots outnumber
/// live ones: amortized O(1) per dead slot).
#[derive(Clone, Debug)]
struct IntervalReach {
    /// Post-order label; 0 for blocks not in the graph.
    label: SecondaryMap<BlockId, u64>,
    /// All labels in use, sorted: finds the gap next to a label.
    sorted: Vec<u64>,
    /// Inclusive label ranges each block reaches, sorted and disjoint: its row of `pool`.
    rows: SecondaryMap<BlockId, Span>,
    pool: SpanPool<(u64, u64)>,
}

fn ranges_contain(r: &[(u64, u64)], l: u64) -> bool {
    let i = r.partition_point(|&(start, _)| start <= l);
    i > 0 && r[i - 1].1 >= l
}

fn ranges_insert_point(r: &mut Ranges, l: u64) {
    if !ranges_contain(r, l) {
        let i = r.partition_point(|&(start, _)| start <= l);
        r.insert(i, (l, l));
    }
}

fn ranges_remove_point(r: &mut Ranges, l: u64) {
    let i = r.partition_point(|&(start, _)| start <= l);
    if i == 0 || r[i - 1].1 < l {
        return;
    }
    let (a, b) = r[i - 1];
    r.remove(i - 1);
    let mut at = i - 1;
    if a < l {
        r.insert(at, (a, l - 1));
        at += 1;
    }
    if l < b {
        r.insert(at, (l + 1, b));
    }
}

impl IntervalReach {
    fn compute(graph: &Graph, order: &Order, dom: &DomTree) -> IntervalReach {
        let mut label: SecondaryMap<BlockId, u64> = SecondaryMap::new();
        let mut sorted = Vec::with_capacity(order.len());
        for (i, b) in order.post_order().enumerate() {
            let l = (i as u64 + 1) * LABEL_GAP;
            label[b] = l;
            sorted.push(l);
        }
        let mut reach = IntervalReach { label, sorted, rows: SecondaryMap::new(), pool: SpanPool::default() };
        let mut scratch: Vec<(u64, u64)> = Vec::new();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for b in order.post_order() {
            scratch.clear();
            scratch.push((reach.label[b], reach.label[b]));
            for s in forward_succs(graph, dom, b) {
                scratch.extend_from_slice(reach.row(s));
            }
            scratch.sort_unstable();
            merged.clear();
            for &(start, end) in &scratch {
                match merged.last_mut() {
                    // Adjacent labels have no label between them: one interval.
                    Some(last) if start <= last.1.saturating_add(LABEL_GAP) => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            reach.set_row(b, &merged);
        }
        reach
    }

    fn row(&self, b: BlockId) -> &[(u64, u64)] {
        self.pool.get(self.rows[b])
    }

    /// Makes `ranges` the row of `b` ([`SpanPool::set`]); rebuilds the pool in block
    /// order when it asks to be.
    fn set_row(&mut self, b: BlockId, ranges: &[(u64, u64)]) {
        if self.pool.set(&mut self.rows[b], ranges) {
            let mut fresh = self.pool.start_compaction();
            for r in self.rows.values_mut() {
                self.pool.relocate(&mut fresh, r);
            }
            self.pool.finish_compaction(fresh);
        }
    }

    #[inline]
    fn reaches(&self, a: BlockId, b: BlockId) -> bool {
        let lb = self.label[b];
        self.label[a] != 0 && lb != 0 && ranges_contain(self.row(a), lb)
    }

    /// A free label strictly between `lo` and `hi`, recorded as used.
    fn take_label(&mut self, lo: u64, hi: u64) -> Option<u64> {
        let mid = lo + (hi - lo) / 2;
        if mid == lo {
            return None;
        }
        let at = self.sorted.partition_point(|&x| x < mid);
        self.sorted.insert(at, mid);
        Some(mid)
    }

    fn next_label_above(&self, l: u64) -> u64 {
        let i = self.sorted.partition_point(|&x| x <= l);
        self.sorted.get(i).copied().unwrap_or(l + 2 * LABEL_GAP)
    }

    fn next_label_below(&self, l: u64) -> u64 {
        let i = self.sorted.partition_point(|&x| x < l);
        if i == 0 {
            0
        } else {
            self.sorted[i - 1]
        }
    }

    /// Makes every live row other than `n`'s agree with `should(x)` on label `l`.
    fn fix_column(&mut self, n: BlockId, l: u64, live: &[BlockId], should: impl Fn(&Self, BlockId) -> bool) {
        for &x in live {
            if x == n {
                continue;
            }
            let want = should(self, x);
            let has = ranges_contain(self.row(x), l);
            if want != has {
                let mut row: Ranges = self.row(x).iter().copied().collect();
                if want {
                    ranges_insert_point(&mut row, l);
                } else {
                    ranges_remove_point(&mut row, l);
                }
                self.set_row(x, &row);
            }
        }
    }

    fn add_before(&mut self, n: BlockId, target: Option<BlockId>, sources: &[BlockId], live: &[BlockId]) -> bool {
        // In a DFS through `n`, `n` finishes right after its target, or (no forward
        // successor) right before its first source.
        let l = match target {
            Some(t) => {
                let lt = self.label[t];
                self.take_label(lt, self.next_label_above(lt))
            }
            None => {
                let ls = self.label[sources[0]];
                self.take_label(self.next_label_below(ls), ls)
            }
        };
        let Some(l) = l else { return false };
        self.label[n] = l;
        let mut own = match target {
            Some(t) => self.row(t).iter().copied().collect(),
            None => Ranges::new(),
        };
        ranges_insert_point(&mut own, l);
        self.set_row(n, &own);
        self.fix_column(n, l, live, |me, x| sources.iter().any(|&s| me.reaches(x, s)));
        true
    }

    fn add_after(&mut self, b: BlockId, n: BlockId, live: &[BlockId]) -> bool {
        let lb = self.label[b];
        let Some(l) = self.take_label(self.next_label_below(lb), lb) else {
            return false;
        };
        self.label[n] = l;
        let mut own: Ranges = self.row(b).iter().copied().collect();
        ranges_remove_point(&mut own, lb);
        ranges_insert_point(&mut own, l);
        self.set_row(n, &own);
        self.fix_column(n, l, live, |me, x| me.reaches(x, b));
        true
    }

    fn remove(&mut self, p: BlockId) {
        let l = std::mem::take(&mut self.label[p]);
        if let Ok(i) = self.sorted.binary_search(&l) {
            self.sorted.remove(i);
        }
        self.set_row(p, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    /// Rows that grow move to the end of the pool and leave dead slots until the pool is
    /// compacted; every row must read back as last written.
    #[test]
    fn rows_survive_relocation_and_compaction() {
        let mut r = IntervalReach {
            label: SecondaryMap::new(),
            sorted: Vec::new(),
            rows: SecondaryMap::new(),
            pool: SpanPool::default(),
        };
        let blocks: Vec<BlockId> = (0..8).map(BlockId::new).collect();
        let mut expect: Vec<Vec<(u64, u64)>> = vec![Vec::new(); blocks.len()];
        let mut compactions = 0;
        for step in 0..2000u64 {
            let i = (step % blocks.len() as u64) as usize;
            // Grow most of the time (a move), shrink now and then (in place).
            if step % 5 == 4 {
                expect[i].pop();
            } else {
                expect[i].push((step * 10, step * 10 + 3));
            }
            let dead_before = r.pool.dead_slots();
            r.set_row(blocks[i], &expect[i]);
            if r.pool.dead_slots() < dead_before {
                compactions += 1;
            }
        }
        assert!(compactions > 0, "the test should reach a compaction");
        for (b, e) in blocks.iter().zip(&expect) {
            assert_eq!(r.row(*b), e.as_slice());
        }
        r.set_row(blocks[3], &[]);
        assert!(r.row(blocks[3]).is_empty());
        assert_eq!(r.row(blocks[4]), expect[4].as_slice());
    }
}
