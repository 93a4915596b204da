//! The `BLOCKINFO` block (id 0): abbreviations shared by every block of a given id.
//!
//! Facts from LLVM's "Bitcode File Format" document: `SETBID` (code 1) selects the block id
//! that following `DEFINE_ABBREV`s apply to; `BLOCKNAME` (2) and `SETRECORDNAME` (3) only
//! name things for tools and are ignored here.

use super::abbrev::Abbrev;
use std::rc::Rc;

#[derive(Default)]
pub struct BlockInfo {
    /// (block id, abbreviations) in definition order.
    entries: Vec<(u32, Vec<Rc<Abbrev>>)>,
}

impl BlockInfo {
    pub fn abbrevs(&self, block_id: u32) -> &[Rc<Abbrev>] {
        self.entries.iter().find(|(id, _)| *id == block_id).map(|(_, v)| v.as_slice()).unwrap_or(&[])
    }

    pub fn add(&mut self, block_id: u32, abbrev: Abbrev) {
        let abbrev = Rc::new(abbrev);
        match self.entries.iter_mut().find(|(id, _)| *id == block_id) {
            Some((_, v)) => v.push(abbrev),
            None => self.entries.push((block_id, vec![abbrev])),
        }
    }
}
