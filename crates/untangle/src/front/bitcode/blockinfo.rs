//! The `BLOCKINFO` block (id 0): abbreviations shared by every block of a given id.
//!
//! Facts from LLVM's "Bitcode File Format" document: `SETBID` (code 1) selects the block id
//! that following `DEFINE_ABBREV`s apply to; `BLOCKNAME` (2) and `SETRECORDNAME` (3) only
//! name things for tools and are ignored here.
//!
//! The lists only grow, so a block sees the shared abbreviations its id had when it was
//! entered by remembering the list ([`BlockInfo::list_of`]) and its length, without a copy.

use super::abbrev::AbbrevId;

#[derive(Clone, Default)]
pub struct BlockInfo {
    /// (block id, abbreviations) in definition order.
    entries: Vec<(u32, Vec<AbbrevId>)>,
}

impl BlockInfo {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn abbrevs(&self, block_id: u32) -> &[AbbrevId] {
        self.list_of(block_id).map(|i| self.list(i)).unwrap_or(&[])
    }

    /// Which list holds the abbreviations of `block_id`, if it has any.
    pub fn list_of(&self, block_id: u32) -> Option<usize> {
        self.entries.iter().position(|(id, _)| *id == block_id)
    }

    /// The abbreviations of list `i` (from [`BlockInfo::list_of`]).
    #[inline]
    pub fn list(&self, i: usize) -> &[AbbrevId] {
        self.entries.get(i).map(|(_, v)| v.as_slice()).unwrap_or(&[])
    }

    pub fn add(&mut self, block_id: u32, abbrev: AbbrevId) {
        match self.entries.iter_mut().find(|(id, _)| *id == block_id) {
            Some((_, v)) => v.push(abbrev),
            None => {
                // DXC shares up to 16 abbreviations per block id.
                let mut list = Vec::with_capacity(16);
                list.push(abbrev);
                self.entries.push((block_id, list));
            }
        }
    }
}
