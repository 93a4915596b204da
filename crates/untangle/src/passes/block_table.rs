//! [`BlockTable`]: a per-block table that forgets every entry in O(1).
//!
//! The selection pass analyses the function one region at a time, and a region is usually
//! small next to the function: a fresh `SecondaryMap` per region costs O(largest block
//! index written), not O(region), because it grows to that index on the first write (a
//! 10,000-deep loop nest has 10,000 regions, so that was quadratic). A `BlockTable` is
//! allocated once per pass and cleared between regions by bumping a generation counter:
//! an entry written in an older generation reads as the default. Reads and writes are
//! O(1); growing to the largest index happens once per pass.

use super::scfg::SBlock;
use cranelift_entity::SecondaryMap;
use std::ops::{Index, IndexMut};

/// A map from blocks to `V` whose [`BlockTable::clear`] is O(1). Reads of unwritten (or
/// cleared) entries give the default, as with a fresh `SecondaryMap`.
#[derive(Clone, Debug)]
pub struct BlockTable<V: Clone> {
    /// Each entry with the generation that wrote it.
    entries: SecondaryMap<SBlock, (u32, V)>,
    generation: u32,
    default: V,
}

impl<V: Clone + Default> Default for BlockTable<V> {
    fn default() -> Self {
        BlockTable::with_default(V::default())
    }
}

impl<V: Clone> BlockTable<V> {
    pub fn with_default(default: V) -> BlockTable<V> {
        // Generation 0 marks entries never written; the first generation is 1.
        BlockTable { entries: SecondaryMap::with_default((0, default.clone())), generation: 1, default }
    }

    /// Forgets every entry. O(1), except once every 2^32 clears.
    pub fn clear(&mut self) {
        if self.generation == u32::MAX {
            self.entries.clear();
            self.generation = 0;
        }
        self.generation += 1;
    }
}

impl<V: Clone> Index<SBlock> for BlockTable<V> {
    type Output = V;

    fn index(&self, b: SBlock) -> &V {
        let (generation, value) = &self.entries[b];
        if *generation == self.generation {
            value
        } else {
            &self.default
        }
    }
}

impl<V: Clone> IndexMut<SBlock> for BlockTable<V> {
    fn index_mut(&mut self, b: SBlock) -> &mut V {
        let entry = &mut self.entries[b];
        if entry.0 != self.generation {
            *entry = (self.generation, self.default.clone());
        }
        &mut entry.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn clear_forgets_entries() {
        let mut t: BlockTable<u32> = BlockTable::with_default(7);
        let (a, b) = (SBlock::new(3), SBlock::new(100));
        assert_eq!(t[a], 7);
        t[a] = 1;
        t[b] += 1;
        assert_eq!((t[a], t[b]), (1, 8));
        t.clear();
        assert_eq!((t[a], t[b]), (7, 7));
        t[b] = 2;
        assert_eq!((t[a], t[b]), (7, 2));
    }
}
