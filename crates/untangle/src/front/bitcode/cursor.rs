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
//!
//! Cost: entering a block allocates nothing (its shared abbreviations are a list index and
//! a length, see [`super::blockinfo`]; its own go to one stack of all open blocks');
//! abbreviation definitions go to one [`AbbrevTable`] per stream; a record's operands go to
//! one buffer ([`Cursor::ops`]) reused by every record. These buffers live in the
//! [`BlockInfoCache`] the caller keeps, so a run of reads allocates them once. The
//! `BLOCKINFO` block, the same in every module one DXC version writes, is decoded once per
//! distinct block and cache: the state decoding it left is restored when a later block has
//! the same bytes ([`Cursor::read_blockinfo`]). Without a cache (a fresh one per read)
//! nothing outlives a read.

use super::abbrev::{self, AbbrevId, AbbrevTable, ZeroBudget};
use super::bitstream::{BitReader, Res};
use super::blockinfo::BlockInfo;
use super::error::ErrorKind;
use std::sync::Arc;

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

/// Most distinct `BLOCKINFO` blocks a [`BlockInfoCache`] keeps. Each DXC version writes
/// its own and a batch interleaves them (the shared corpus has five); a block costs about
/// 150 bytes here and 10 000 instructions to decode.
pub const CACHED_BLOCKINFOS: usize = 8;

/// A `BLOCKINFO` block read from a fresh cursor: its abbreviation width and bytes, and the
/// cursor state reading it left.
struct DecodedBlockInfo {
    width: u32,
    body: Vec<u8>,
    /// Shared with the cursors that restore it (a cursor copies it only to change it).
    blockinfo: Arc<BlockInfo>,
    abbrevs: AbbrevTable,
    shared_end: usize,
    target: Option<u32>,
    code: Option<u32>,
}

/// Buffers a cursor needs, kept empty between reads so that their capacity is reused.
#[derive(Default)]
struct Buffers {
    ops: Vec<u64>,
    abbrevs: AbbrevTable,
    scopes: Vec<Scope>,
    locals: Vec<AbbrevId>,
}

/// Decoded `BLOCKINFO` blocks kept between reads by their caller
/// ([`crate::front::ParseContext`]): a module whose block has the same bytes as one of
/// them gets the decoded state restored instead of decoding it again. Exact, whatever the
/// modules: the bytes are compared in full. Also keeps the cursor's buffers.
#[derive(Default)]
pub struct BlockInfoCache {
    /// At most [`CACHED_BLOCKINFOS`], the most recently used first.
    blocks: Vec<DecodedBlockInfo>,
    buffers: Buffers,
    /// How many reads restored a cached block instead of decoding it.
    pub hits: u64,
    /// Set for a cache that serves a single read: a decoded block is not stored (nobody
    /// would look it up), which saves copying its bytes and state.
    pub one_shot: bool,
}

struct Scope {
    id: u32,
    width: u32,
    /// The `BLOCKINFO` list of this block id, and how many of its abbreviations existed
    /// when the block was entered: abbreviation ids 4 and up name those first.
    shared: Option<usize>,
    shared_len: usize,
    /// Where the block's own abbreviations (after the shared ones) start in
    /// [`Cursor::locals`]: only the innermost block defines any, so they run to its end.
    locals_mark: usize,
    /// The abbreviation table's length when the block was entered: its own definitions
    /// start there and are dropped when it ends.
    table_mark: usize,
    /// Where the block's header says it ends (untrusted: only a size hint).
    end: u64,
}

impl Scope {
    fn new(id: u32, width: u32, blockinfo: &BlockInfo, table_mark: usize, locals_mark: usize) -> Scope {
        let shared = blockinfo.list_of(id);
        let shared_len = shared.map_or(0, |i| blockinfo.list(i).len());
        Scope { id, width, shared, shared_len, locals_mark, table_mark, end: u64::MAX }
    }

    /// The abbreviation with id `4 + index` (`locals`: [`Cursor::locals`]; this is the
    /// innermost block).
    #[inline]
    fn abbrev(&self, blockinfo: &BlockInfo, locals: &[AbbrevId], index: usize) -> Option<AbbrevId> {
        match (index < self.shared_len, self.shared) {
            (true, Some(list)) => blockinfo.list(list).get(index).copied(),
            _ => locals.get(self.locals_mark + (index - self.shared_len)).copied(),
        }
    }
}

pub struct Cursor<'a> {
    pub r: BitReader<'a>,
    blockinfo: Arc<BlockInfo>,
    abbrevs: AbbrevTable,
    /// The table's length after the last `BLOCKINFO` definition: a block that ends keeps
    /// the table up to here.
    shared_end: usize,
    scopes: Vec<Scope>,
    /// The open blocks' own abbreviations, outermost block first ([`Scope::locals_mark`]).
    locals: Vec<AbbrevId>,
    /// Operands of the last record.
    pub ops: Vec<u64>,
    /// Code of the last record (for error context).
    pub code: Option<u32>,
    budget: ZeroBudget,
    /// In a `BLOCKINFO` block: the block id `SETBID` chose.
    blockinfo_target: Option<u32>,
    /// The caller's cache, lent for one read ([`Cursor::with_cache`]).
    cache: BlockInfoCache,
}

impl<'a> Cursor<'a> {
    /// A cursor at the top level of `data` (after the magic, which the caller checks),
    /// with the caller's `BLOCKINFO` cache (a new one for a single read);
    /// [`Cursor::into_cache`] hands it back.
    pub fn with_cache(data: &'a [u8], mut cache: BlockInfoCache) -> Self {
        let r = BitReader::new(data);
        let budget = ZeroBudget(r.end());
        let blockinfo = Arc::new(BlockInfo::default());
        let Buffers { mut ops, mut abbrevs, mut scopes, mut locals } = std::mem::take(&mut cache.buffers);
        // Room for most records' operands (metadata strings and a large shader's type and
        // constant arrays run to a few hundred) and DXC's abbreviations (about 100
        // operands) from the start (a reused buffer already has it): growing the operand
        // list record by record costs a one-shot read more than the one larger allocation.
        ops.clear();
        ops.reserve(512);
        abbrevs.truncate(0);
        abbrevs.reserve(128);
        scopes.clear();
        scopes.push(Scope::new(u32::MAX, 2, &blockinfo, 0, 0));
        locals.clear();
        Cursor {
            r,
            blockinfo,
            abbrevs,
            shared_end: 0,
            scopes,
            locals,
            ops,
            code: None,
            budget,
            blockinfo_target: None,
            cache,
        }
    }

    /// The `BLOCKINFO` cache, with the block this cursor read (if any) in it, and the
    /// cursor's buffers for the next read.
    pub fn into_cache(self) -> BlockInfoCache {
        let mut cache = self.cache;
        cache.buffers = Buffers { ops: self.ops, abbrevs: self.abbrevs, scopes: self.scopes, locals: self.locals };
        cache
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
        self.advance_skipping(|_| false)
    }

    /// The code of the current block's next record, nested blocks skipped; `None` at the
    /// block's end. For the blocks whose readers take records only (types, constants,
    /// metadata); `skip` passes over records as [`Cursor::advance_skipping`] does.
    pub fn next_record(&mut self, skip: impl Fn(u32) -> bool + Copy) -> Res<Option<u32>> {
        loop {
            match self.advance_skipping(skip)? {
                Entry::End => return Ok(None),
                Entry::SubBlock(_) => self.skip()?,
                Entry::Record(code) => return Ok(Some(code)),
            }
        }
    }

    /// [`Cursor::advance`], passing over the unabbreviated records whose code `skip`
    /// selects: their operands are skipped, not decoded (a reader's records it ignores,
    /// such as the metadata block's kind names, are mostly character arrays).
    #[inline]
    pub fn advance_skipping(&mut self, skip: impl Fn(u32) -> bool) -> Res<Entry> {
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
                    if let Some(s) = self.scopes.pop() {
                        self.abbrevs.truncate(s.table_mark.max(self.shared_end));
                        self.locals.truncate(s.locals_mark);
                    }
                    return Ok(Entry::End);
                }
                1 => {
                    let bid = self.r.vbr(8)?;
                    let bid = u32::try_from(bid).map_err(|_| ErrorKind::Malformed(format!("block id {bid}")))?;
                    return Ok(Entry::SubBlock(bid));
                }
                2 => {
                    let def = abbrev::read_definition(&mut self.r, &mut self.abbrevs)?;
                    let scope = self.scopes.last_mut().ok_or_else(|| ErrorKind::Malformed("no scope".into()))?;
                    if scope.id == BLOCKINFO_BLOCK_ID && !top {
                        let target = self
                            .blockinfo_target
                            .ok_or_else(|| ErrorKind::Malformed("DEFINE_ABBREV in BLOCKINFO before SETBID".into()))?;
                        if self.blockinfo.abbrevs(target).len() >= MAX_SHARED_ABBREVS {
                            return Err(ErrorKind::Implausible(MAX_SHARED_ABBREVS as u64));
                        }
                        // Copied first if a cache entry shares it.
                        Arc::make_mut(&mut self.blockinfo).add(target, def);
                        self.shared_end = self.abbrevs.len();
                    } else {
                        self.locals.push(def);
                    }
                }
                3 => {
                    let (code, n) = abbrev::unabbreviated_head(&mut self.r)?;
                    if skip(code) {
                        self.r.skip_vbr6_array(n)?;
                        self.code = Some(code);
                        continue;
                    }
                    self.ops.clear();
                    self.r.vbr_array(6, n, &mut self.ops)?;
                    self.code = Some(code);
                    return Ok(Entry::Record(code));
                }
                n => {
                    let scope = self.scopes.last().ok_or_else(|| ErrorKind::Malformed("no scope".into()))?;
                    let a = scope
                        .abbrev(&self.blockinfo, &self.locals, (n - 4) as usize)
                        .ok_or(ErrorKind::UnknownAbbrev(n))?;
                    self.ops.clear();
                    let code = abbrev::read_record(&mut self.r, self.abbrevs.get(a), &mut self.ops, &mut self.budget)?;
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
        let (width, end) = self.header()?;
        let scope = Scope::new(id, width, &self.blockinfo, self.abbrevs.len(), self.locals.len());
        self.scopes.push(Scope { end, ..scope });
        self.code = None;
        Ok(())
    }

    /// How many bits of the current block are left, by its header's length (never more
    /// than the input has): a size hint for what the block will produce.
    pub fn bits_left_in_block(&self) -> u64 {
        let end = self.scopes.last().map_or(0, |s| s.end).min(self.r.end());
        end.saturating_sub(self.r.pos())
    }

    /// Skip the block announced by [`Entry::SubBlock`].
    pub fn skip(&mut self) -> Res<()> {
        let (_, end) = self.header()?;
        if end > self.r.end() {
            return Err(ErrorKind::Implausible((end - self.r.pos()) / 32));
        }
        self.r.seek(end)
    }

    /// Read a `BLOCKINFO` block (announced by [`Entry::SubBlock`]`(0)`).
    ///
    /// Every module one DXC version writes starts with the same `BLOCKINFO` block, so the
    /// blocks read with this cursor's [`BlockInfoCache`] are kept there (the
    /// [`CACHED_BLOCKINFOS`] most recently used): a block whose abbreviation width and bytes
    /// are the same, read from the same (empty) state, leaves the same state, which is
    /// restored instead of decoding the block again.
    pub fn read_blockinfo(&mut self) -> Res<()> {
        // The state the block is read from must be the cached one's: nothing shared or
        // defined yet (DXC's block comes first).
        let fresh = self.blockinfo.is_empty() && self.abbrevs.is_empty() && self.shared_end == 0;
        self.enter(BLOCKINFO_BLOCK_ID)?;
        self.blockinfo_target = None;
        let (width, end) = self.scopes.last().map_or((0, u64::MAX), |s| (s.width, s.end));
        let body = if fresh && !self.cache.one_shot { self.r.bytes_between(self.r.pos(), end) } else { None };
        if let Some(body) = body {
            if let Some(k) = self.cache.blocks.iter().position(|b| b.width == width && b.body == body) {
                // The most recently used first: a batch tends to repeat its last block.
                self.cache.blocks[..=k].rotate_right(1);
                let hit = &self.cache.blocks[0];
                self.blockinfo = Arc::clone(&hit.blockinfo);
                self.abbrevs.extend_from(&hit.abbrevs);
                self.shared_end = hit.shared_end;
                self.blockinfo_target = hit.target;
                self.code = hit.code;
                self.cache.hits += 1;
                self.scopes.pop();
                return self.r.seek(end);
            }
        }
        loop {
            match self.advance()? {
                Entry::End => {
                    // Kept only if the block ended where its header said, so that every
                    // bit it was read from lies in `body`.
                    if let Some(body) = body.filter(|_| self.r.pos() == end) {
                        self.cache.blocks.truncate(CACHED_BLOCKINFOS - 1);
                        self.cache.blocks.insert(
                            0,
                            DecodedBlockInfo {
                                width,
                                body: body.to_vec(),
                                blockinfo: Arc::clone(&self.blockinfo),
                                abbrevs: self.abbrevs.clone(),
                                shared_end: self.shared_end,
                                target: self.blockinfo_target,
                                code: self.code,
                            },
                        );
                    }
                    return Ok(());
                }
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
