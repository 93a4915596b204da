//! Walking the block structure of a bitstream: entering, skipping and leaving blocks,
//! abbreviation scopes, and records one at a time.
//!
//! Facts from LLVM's "Bitcode File Format" document: abbreviation ids 0 (`END_BLOCK`),
//! 1 (`ENTER_SUBBLOCK`: block id VBR-8, new abbreviation width VBR-4, align to 32 bits,
//! length in 32-bit words), 2 (`DEFINE_ABBREV`), 3 (`UNABBREV_RECORD`), 4 and up
//! (abbreviations: first those `BLOCKINFO` gave the block id, then the block's own).
//!
//! Nesting is limited to [`MAX_DEPTH`] blocks. A block's declared length is only used to
//! skip it (and must then fit in the input); an entered block is read record by record, so a
//! truncated input fails where its data ends, as with LLVM's reader.

use super::abbrev::{self, Abbrev, ZeroBudget};
use super::bitstream::{BitReader, Res};
use super::blockinfo::BlockInfo;
use super::error::ErrorKind;
use std::rc::Rc;

/// Deepest block nesting accepted (DXIL needs 3: module, function, constants).
pub const MAX_DEPTH: usize = 16;

pub const BLOCKINFO_BLOCK_ID: u32 = 0;

/// Most `BLOCKINFO` abbreviations for one block id (they are copied into every block of
/// that id, so an unbounded list would make reading quadratic; LLVM writes fewer than 20).
pub const MAX_SHARED_ABBREVS: usize = 256;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `ENTER_SUBBLOCK` with this block id: call [`Cursor::enter`] or [`Cursor::skip`] next.
    SubBlock(u32),
    /// The current block ended (the cursor is already back in the parent).
    End,
    /// A record with this code; its operands are in [`Cursor::ops`].
    Record(u32),
}

struct Scope {
    id: u32,
    width: u32,
    abbrevs: Vec<Rc<Abbrev>>,
}

pub struct Cursor<'a> {
    pub r: BitReader<'a>,
    blockinfo: BlockInfo,
    scopes: Vec<Scope>,
    /// Operands of the last record.
    pub ops: Vec<u64>,
    /// Code of the last record (for error context).
    pub code: Option<u32>,
    budget: ZeroBudget,
    /// In a `BLOCKINFO` block: the block id `SETBID` chose.
    blockinfo_target: Option<u32>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the top level of `data` (after the magic, which the caller checks).
    pub fn new(data: &'a [u8]) -> Self {
        let r = BitReader::new(data);
        let budget = ZeroBudget(r.end());
        Cursor {
            r,
            blockinfo: BlockInfo::default(),
            scopes: vec![Scope { id: u32::MAX, width: 2, abbrevs: Vec::new() }],
            ops: Vec::new(),
            code: None,
            budget,
            blockinfo_target: None,
        }
    }

    /// Id of the block being read, `None` at the top level.
    pub fn block_id(&self) -> Option<u32> {
        match self.scopes.last() {
            Some(s) if self.scopes.len() > 1 => Some(s.id),
            _ => None,
        }
    }

    /// The next entry of the current block (abbreviation definitions are absorbed).
    pub fn advance(&mut self) -> Res<Entry> {
        loop {
            let (width, top) = match self.scopes.last() {
                Some(s) => (s.width, self.scopes.len() == 1),
                None => return Err(ErrorKind::Malformed("cursor outside any scope".into())),
            };
            let id = self.r.read(width)?;
            match id {
                0 => {
                    if top {
                        return Err(ErrorKind::Malformed("END_BLOCK at the top level".into()));
                    }
                    self.r.align32()?;
                    self.scopes.pop();
                    return Ok(Entry::End);
                }
                1 => {
                    let bid = self.r.vbr(8)?;
                    let bid = u32::try_from(bid).map_err(|_| ErrorKind::Malformed(format!("block id {bid}")))?;
                    return Ok(Entry::SubBlock(bid));
                }
                2 => {
                    let def = abbrev::read_definition(&mut self.r)?;
                    let scope = self.scopes.last_mut().ok_or_else(|| ErrorKind::Malformed("no scope".into()))?;
                    if scope.id == BLOCKINFO_BLOCK_ID && !top {
                        let target = self
                            .blockinfo_target
                            .ok_or_else(|| ErrorKind::Malformed("DEFINE_ABBREV in BLOCKINFO before SETBID".into()))?;
                        if self.blockinfo.abbrevs(target).len() >= MAX_SHARED_ABBREVS {
                            return Err(ErrorKind::Implausible(MAX_SHARED_ABBREVS as u64));
                        }
                        self.blockinfo.add(target, def);
                    } else {
                        scope.abbrevs.push(Rc::new(def));
                    }
                }
                3 => {
                    self.ops.clear();
                    let code = abbrev::read_unabbreviated(&mut self.r, &mut self.ops)?;
                    self.code = Some(code);
                    return Ok(Entry::Record(code));
                }
                n => {
                    // Disjoint borrows: the abbreviation stays in its scope while the reader,
                    // the operand buffer and the budget are written.
                    let Cursor { r, scopes, ops, budget, .. } = self;
                    let scope = scopes.last().ok_or_else(|| ErrorKind::Malformed("no scope".into()))?;
                    let a = scope.abbrevs.get((n - 4) as usize).ok_or(ErrorKind::UnknownAbbrev(n))?;
                    ops.clear();
                    let code = abbrev::read_record(r, a, ops, budget)?;
                    self.code = Some(code);
                    return Ok(Entry::Record(code));
                }
            }
        }
    }

    /// Read a sub-block header; returns the abbreviation width and the bit where the block
    /// ends (which may lie past the input: only [`Cursor::skip`] relies on it, and checks).
    fn header(&mut self) -> Res<(u32, u64)> {
        let width = self.r.vbr(4)?;
        if width > 32 {
            return Err(ErrorKind::Malformed(format!("abbreviation width {width}")));
        }
        self.r.align32()?;
        let words = self.r.read(32)?;
        Ok((width as u32, self.r.pos() + words * 32))
    }

    /// Enter the block announced by [`Entry::SubBlock`].
    pub fn enter(&mut self, id: u32) -> Res<()> {
        if self.scopes.len() > MAX_DEPTH {
            return Err(ErrorKind::TooDeep(MAX_DEPTH));
        }
        let (width, _) = self.header()?;
        let abbrevs = self.blockinfo.abbrevs(id).to_vec();
        self.scopes.push(Scope { id, width, abbrevs });
        self.code = None;
        Ok(())
    }

    /// Skip the block announced by [`Entry::SubBlock`].
    pub fn skip(&mut self) -> Res<()> {
        let (_, end) = self.header()?;
        if end > self.r.end() {
            return Err(ErrorKind::Implausible((end - self.r.pos()) / 32));
        }
        self.r.seek(end)
    }

    /// Skip the rest of the current block (after [`Cursor::enter`]).
    pub fn skip_rest(&mut self) -> Res<()> {
        loop {
            match self.advance()? {
                Entry::End => return Ok(()),
                Entry::SubBlock(_) => self.skip()?,
                Entry::Record(_) => {}
            }
        }
    }

    /// Read a `BLOCKINFO` block (announced by [`Entry::SubBlock`]`(0)`).
    pub fn read_blockinfo(&mut self) -> Res<()> {
        self.enter(BLOCKINFO_BLOCK_ID)?;
        self.blockinfo_target = None;
        loop {
            match self.advance()? {
                Entry::End => return Ok(()),
                Entry::SubBlock(_) => self.skip()?,
                Entry::Record(1) => {
                    let id = self.ops.first().copied().ok_or_else(|| ErrorKind::Malformed("empty SETBID".into()))?;
                    self.blockinfo_target =
                        Some(u32::try_from(id).map_err(|_| ErrorKind::Malformed(format!("SETBID {id}")))?);
                }
                Entry::Record(_) => {}
            }
        }
    }
}
