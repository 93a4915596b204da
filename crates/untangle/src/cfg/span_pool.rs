//! Many short lists in one flat array: each list is a [`Span`] (`first`, `count`) of a
//! [`SpanPool`], so no list owns a heap allocation. The dominator trees' child lists
//! (`tree`) and the interval rows of reachability (`reach`) live in one each.
//!
//! **Rewrites.** [`SpanPool::set`] writes a list that did not grow in place; one that grew
//! is extended in place when it is the last list of the array, and otherwise copied to the
//! end, leaving its old slots dead. Dead slots are counted; once they pass
//! [`COMPACT_MIN_DEAD`] and outnumber the live ones, `set` and `push` say so, and the owner
//! rebuilds the array by relocating every live span into a fresh one
//! ([`SpanPool::start_compaction`], [`SpanPool::relocate`], [`SpanPool::finish_compaction`])
//! in the order it likes best (the trees: preorder). O(live slots), amortized O(1) per dead
//! slot.
//!
//! Invariant: live spans never overlap; `first` is meaningless when `count` is 0.

/// A list's place in its pool.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub first: u32,
    pub count: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }

    fn end(self) -> usize {
        (self.first + self.count) as usize
    }
}

/// Below this many dead slots a pool is never compacted.
pub(crate) const COMPACT_MIN_DEAD: usize = 1024;

/// The lists' storage (module docs).
#[derive(Clone, Debug)]
pub(crate) struct SpanPool<T> {
    items: Vec<T>,
    /// Slots no live span covers any more.
    dead: usize,
}

impl<T> Default for SpanPool<T> {
    fn default() -> Self {
        SpanPool { items: Vec::new(), dead: 0 }
    }
}

impl<T: Copy> SpanPool<T> {
    /// `len` slots of `fill`, for an owner that lays its lists out by counting and fills
    /// them through [`SpanPool::slots_mut`].
    pub fn filled(len: usize, fill: T) -> SpanPool<T> {
        SpanPool { items: vec![fill; len], dead: 0 }
    }

    pub fn slots_mut(&mut self) -> &mut [T] {
        &mut self.items
    }

    pub fn get(&self, s: Span) -> &[T] {
        &self.items[s.range()]
    }

    pub fn get_mut(&mut self, s: Span) -> &mut [T] {
        &mut self.items[s.range()]
    }

    fn compaction_due(&self) -> bool {
        self.dead > COMPACT_MIN_DEAD && self.dead > self.items.len() / 2
    }

    /// Makes `list` the contents of `*s` (module docs). Returns whether the owner should
    /// compact now. O(|list|).
    pub fn set(&mut self, s: &mut Span, list: &[T]) -> bool {
        let count = s.count as usize;
        if list.len() <= count {
            self.items[s.first as usize..s.first as usize + list.len()].copy_from_slice(list);
            self.dead += count - list.len();
        } else if count > 0 && s.end() == self.items.len() {
            self.items.truncate(s.first as usize);
            self.items.extend_from_slice(list);
        } else {
            self.dead += count;
            s.first = self.items.len() as u32;
            self.items.extend_from_slice(list);
        }
        s.count = list.len() as u32;
        self.compaction_due()
    }

    /// Appends `x` to `*s`: O(1) when the list is empty or last in the array, O(|list|)
    /// otherwise (it moves to the end). Returns whether the owner should compact now.
    pub fn push(&mut self, s: &mut Span, x: T) -> bool {
        if s.count == 0 {
            s.first = self.items.len() as u32;
        } else if s.end() != self.items.len() {
            self.dead += s.count as usize;
            let old = s.range();
            s.first = self.items.len() as u32;
            self.items.extend_from_within(old);
        }
        self.items.push(x);
        s.count += 1;
        self.compaction_due()
    }

    /// Marks `s`'s slots dead (its owner drops the list).
    pub fn release(&mut self, s: Span) {
        self.dead += s.count as usize;
    }

    #[cfg(test)]
    pub fn dead_slots(&self) -> usize {
        self.dead
    }

    /// An empty array sized for the live slots, to [`SpanPool::relocate`] every live span
    /// into.
    pub fn start_compaction(&self) -> Vec<T> {
        Vec::with_capacity(self.items.len() - self.dead)
    }

    /// Copies `*s` to the end of `fresh` and points `s` there.
    pub fn relocate(&self, fresh: &mut Vec<T>, s: &mut Span) {
        let from = s.range();
        s.first = fresh.len() as u32;
        fresh.extend_from_slice(&self.items[from]);
    }

    /// Replaces the array by `fresh`, into which every live span was relocated.
    pub fn finish_compaction(&mut self, fresh: Vec<T>) {
        self.items = fresh;
        self.dead = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_shrink_in_place_grow_at_the_end_and_survive_compaction() {
        let mut pool: SpanPool<u32> = SpanPool::default();
        let (mut a, mut b) = (Span::default(), Span::default());
        assert!(!pool.set(&mut a, &[1, 2, 3]));
        assert!(!pool.push(&mut b, 10));
        // `a` is no longer last: growing it moves it, leaving three dead slots.
        pool.push(&mut a, 4);
        assert_eq!(pool.get(a), &[1, 2, 3, 4]);
        assert_eq!(pool.get(b), &[10]);
        assert_eq!(pool.dead, 3);
        // Last in the array: grows in place.
        let first = a.first;
        pool.set(&mut a, &[5, 6, 7, 8, 9]);
        assert_eq!((a.first, pool.get(a)), (first, &[5, 6, 7, 8, 9][..]));
        // Shrinking writes in place.
        pool.set(&mut a, &[0]);
        assert_eq!(pool.get(a), &[0]);
        // Enough moves make compaction due; afterwards only live slots remain.
        let mut due = false;
        for k in 0..2000u32 {
            due |= pool.push(if k % 2 == 0 { &mut a } else { &mut b }, k);
        }
        assert!(due);
        let (wa, wb) = (pool.get(a).to_vec(), pool.get(b).to_vec());
        let mut fresh = pool.start_compaction();
        pool.relocate(&mut fresh, &mut b);
        pool.relocate(&mut fresh, &mut a);
        pool.finish_compaction(fresh);
        assert_eq!((pool.get(a), pool.get(b)), (&wa[..], &wb[..]));
        assert_eq!(pool.items.len(), wa.len() + wb.len());
        assert_eq!(pool.dead, 0);
    }
}
