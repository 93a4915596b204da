//! Native DXIL bitcode reader: LLVM 3.7-era bitcode into [`crate::ir::Module`], no LLVM.
//!
//! Accepts raw bitcode (`BC C0 DE`) and bitcode inside the wrapper header (`DE C0 17 0B`);
//! [`crate::front`] extracts the bitcode from DXBC containers first. The output is the same
//! module the LLVM front end (`crate::front::llvm`, feature `llvm`) builds from the same bytes:
//! `tests/native_reader.rs` checks IR dumps and `info --json` of the whole corpus against it.
//!
//! Layers, one module each (facts from LLVM's "Bitcode File Format" document,
//! `LLVMBitCodes.h`, and the LLVM 3.7 bitcode reader's semantics; no code is taken from
//! either):
//! - [`bitstream`]: bits, VBR, alignment; [`abbrev`]: abbreviation definitions and records;
//!   [`blockinfo`]: shared abbreviations; [`cursor`]: block structure.
//! - [`module`]: the module block, globals and functions; [`types`]: the type table;
//!   [`constants`]: constants blocks; [`function`]: instructions; [`metadata`]: named
//!   metadata and nodes; [`symtab`]: value names; [`layout`]: data-layout alignments;
//!   [`attributes`]: functions' string attributes.
//! - [`upgrade`]: the intrinsic renaming LLVM applies on reading (lifetime markers).
//! - [`canonical`]: renumbers types and constants in the order the LLVM front end interns
//!   them, so the two front ends' modules are identical, not just equivalent.
//!   [`parse_for_translation`] skips it: nothing the translator emits depends on type or
//!   constant ids (types and constants are found by content or through the values that
//!   use them), and the renumbering walk costs about 6% of an in-process translation.
//!
//! Differences from the LLVM front end that are by design: it reads only what DXIL uses
//! (no aliases, inline assembly, block addresses, `invoke`/exception handling, wide
//! integers or debug-info node contents: all typed errors or [`crate::ir::MdRef::Other`]),
//! and it does not run LLVM's verifier; it checks what the IR relies on (operand types,
//! definitions of forward references, block counts, type validity).
//!
//! Robustness: every count read from the input is checked against the bits left before
//! anything is allocated for it; nesting of blocks ([`cursor::MAX_DEPTH`]), types
//! ([`types::MAX_TYPE_DEPTH`]) and constants ([`constants::MAX_CONST_DEPTH`]) is limited;
//! all walks over forward references use explicit stacks. Errors are [`BitcodeError`]s
//! with the bit offset, block id and record code.

pub mod abbrev;
pub mod attributes;
pub mod bitstream;
pub mod blockinfo;
pub mod canonical;
pub mod codes;
pub mod constants;
pub mod cursor;
pub mod error;
pub mod function;
pub mod layout;
pub mod metadata;
pub mod module;
pub mod reader;
pub mod symtab;
pub mod types;
pub mod upgrade;

pub use error::{BitcodeError, ErrorKind};

use crate::ir::Module;
use cranelift_entity::EntityRef;
use cursor::{BlockInfoCache, Cursor, Entry};

/// What a caller reading modules in a row keeps from one read to the next
/// ([`crate::front::ParseContext`]): the decoded `BLOCKINFO` blocks
/// ([`cursor::BlockInfoCache`]) and the reader's working buffers ([`reader::Buffers`]).
/// Only saves work: every read gives what a fresh cache gives.
#[derive(Default)]
pub struct ReadCache {
    pub blockinfo: BlockInfoCache,
    buffers: reader::Buffers,
}

const MAGIC: [u8; 4] = [b'B', b'C', 0xC0, 0xDE];
const WRAPPER_MAGIC: u32 = 0x0B17_C0DE;

/// The bitcode inside a wrapper header, or the input itself.
pub fn unwrap(bytes: &[u8]) -> Result<&[u8], BitcodeError> {
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    if word(0) == Some(WRAPPER_MAGIC) {
        let bad = || BitcodeError::new(ErrorKind::Malformed("bitcode wrapper header out of bounds".into()), 0);
        let off = word(8).ok_or_else(bad)? as usize;
        let size = word(12).ok_or_else(bad)? as usize;
        return bytes.get(off..off.checked_add(size).ok_or_else(bad)?).ok_or_else(bad);
    }
    Ok(bytes)
}

/// Read LLVM 3.7 (DXIL) bitcode, raw or wrapped, into an IR module named `name`, numbered
/// as the LLVM front end numbers it ([`canonical`]).
pub fn parse(bytes: &[u8], name: &str) -> Result<Module, BitcodeError> {
    let mut one_shot = ReadCache::default();
    one_shot.blockinfo.one_shot = true;
    let (m, order) = read(bytes, name, &mut one_shot)?;
    Ok(canonical::canonicalize(m, &order))
}

/// [`parse`] for a caller that observes no type or constant ids (the translator): types
/// and constants keep the file's numbering, and those no value uses stay in the tables.
/// When the intrinsic upgrade moved functions, the module is renumbered as [`parse`]'s
/// (function order is observable in dumps and reports).
///
/// `cache` keeps the decoded `BLOCKINFO` blocks and the reader's buffers from one call to
/// the next ([`ReadCache`]; a new one for a single read).
pub fn parse_for_translation(bytes: &[u8], name: &str, cache: &mut ReadCache) -> Result<Module, BitcodeError> {
    let (m, order) = read(bytes, name, cache)?;
    let moved = order.iter().enumerate().any(|(k, f)| f.index() != k);
    Ok(if moved { canonical::canonicalize(m, &order) } else { m })
}

/// The module as read and upgraded, and its new function order (old ids).
fn read(bytes: &[u8], name: &str, cache: &mut ReadCache) -> Result<(Module, Vec<crate::ir::FuncId>), BitcodeError> {
    let bc = unwrap(bytes)?;
    if bc.get(..4) != Some(&MAGIC[..]) {
        return Err(BitcodeError::new(ErrorKind::BadMagic, 0));
    }
    let mut cur = Cursor::with_cache(bc, std::mem::take(&mut cache.blockinfo));
    let fail =
        |cur: &Cursor, kind: ErrorKind| BitcodeError { kind, bit: cur.r.pos(), block: cur.block_id(), code: cur.code };
    if let Err(k) = cur.r.seek(32) {
        return Err(fail(&cur, k));
    }
    let result = (|| -> Result<Module, ErrorKind> {
        while cur.r.remaining() >= 32 {
            match cur.advance()? {
                Entry::SubBlock(8) => return module::read(&mut cur, name, &mut cache.buffers),
                Entry::SubBlock(0) => cur.read_blockinfo()?,
                Entry::SubBlock(_) => cur.skip()?,
                Entry::Record(_) | Entry::End => return Err(ErrorKind::Malformed("record at the top level".into())),
            }
        }
        Err(ErrorKind::NoModule)
    })();
    let result = result.map_err(|k| fail(&cur, k));
    cache.blockinfo = cur.into_cache();
    let mut m = result?;
    let order = upgrade::upgrade_intrinsics(&mut m);
    Ok((m, order))
}
