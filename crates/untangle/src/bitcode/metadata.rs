//! Module metadata (`METADATA_BLOCK`, block 15) into [`crate::ir::MetadataTable`].
//!
//! Record codes from LLVM's `LLVMBitCodes.h` (`METADATA_*`) with LLVM 3.7 layouts:
//! `STRING` (1, called `STRING_OLD` by newer tools) is a character array; `VALUE` (2) is
//! `[type, absolute value id]`; `NODE` (3) and `DISTINCT_NODE` (5) list operands as metadata
//! id + 1 (0 is null); `NAME` (4) is followed by `NAMED_NODE` (10) `[metadata ids]`;
//! `KIND` (6) names an instruction attachment kind (not modelled). Debug-info records
//! (`LOCATION` and the `DI*` records, 7 and 12 onwards) take a metadata id each; they are
//! kept as [`Metadata::Other`]. Operands may refer forward.
//!
//! Conversion follows the LLVM front end's walk exactly, because metadata ids are
//! observable in dumps: named metadata in module order (operands of repeated names are
//! appended to the first, as LLVM's `getOrInsertNamedMetadata` does), each operand given an
//! id when first met, tuples filled from a LIFO work list (no recursion; cycles resolve).
//!
//! Cost: strings, names and node operand lists (named nodes' too) are kept in two shared
//! buffers while the block is read; a string becomes a `String` only if the conversion
//! reaches it, a name when its named metadata is converted.

use super::bitstream::Res;
use super::cursor::{Cursor, Entry};
use super::error::{malformed, unsupported};
use super::module::{Reader, Slot};
use crate::ir::hash::InternHasher;
use crate::ir::{MdId, Metadata};
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// A metadata record: strings as ranges of [`ModuleMetadata::bytes`], node operands as
/// ranges of [`ModuleMetadata::lists`].
pub enum RawMd {
    String(Range<usize>),
    Value { ty: crate::ir::TypeId, value: u64 },
    Node(Range<usize>),
    Other,
}

#[derive(Default)]
pub struct ModuleMetadata {
    pub slots: Vec<RawMd>,
    /// Named metadata records in module order: the name as a range of
    /// [`ModuleMetadata::bytes`], the operands (metadata ids) as a range of
    /// [`ModuleMetadata::lists`]. A name may repeat.
    pub named: Vec<(Range<usize>, Range<usize>)>,
    /// Every string's bytes, one after another.
    pub bytes: Vec<u8>,
    /// Every node's operands (metadata id + 1, 0 for null), one after another.
    pub lists: Vec<u64>,
}

impl ModuleMetadata {
    /// The string in `r` (invalid UTF-8 replaced, as the LLVM front end does).
    fn string(&self, r: &Range<usize>) -> String {
        String::from_utf8_lossy(self.bytes.get(r.clone()).unwrap_or(&[])).into_owned()
    }
}

/// Read a module-level metadata block (after [`Entry::SubBlock`]`(15)`).
pub fn read(rd: &mut Reader, cur: &mut Cursor) -> Res<()> {
    cur.enter(15)?;
    // Size hints (DXC's metadata records average about 76 bits; strings and node operand
    // lists take most of them).
    let bits = cur.bits_left_in_block() as usize;
    rd.md.slots.reserve(bits / 64);
    rd.md.lists.reserve(bits / 32);
    rd.md.bytes.reserve(bits / 64);
    let mut name: Option<Range<usize>> = None;
    loop {
        // Kind names (`METADATA_KIND`, code 6) are not modelled: not even decoded (unless
        // one follows a `METADATA_NAME`, which is an error reported below).
        let pending_name = name.is_some();
        let code = match cur.advance_skipping(|code| code == 6 && !pending_name)? {
            Entry::End => return Ok(()),
            Entry::SubBlock(_) => {
                cur.skip()?;
                continue;
            }
            Entry::Record(code) => code,
        };
        let ops = &cur.ops;
        let md = &mut rd.md;
        if code != 10 && name.is_some() {
            return Err(malformed("METADATA_NAME not followed by METADATA_NAMED_NODE"));
        }
        match code {
            1 => {
                let bytes = push_bytes(&mut md.bytes, ops)?;
                md.slots.push(RawMd::String(bytes));
            }
            2 => {
                let (&t, &v) = match ops.as_slice() {
                    [t, v] => (t, v),
                    _ => return Err(malformed("METADATA_VALUE needs two operands")),
                };
                let ty = rd.ty(t)?;
                rd.md.slots.push(RawMd::Value { ty, value: v });
            }
            3 | 5 => {
                let start = md.lists.len();
                md.lists.extend_from_slice(ops);
                md.slots.push(RawMd::Node(start..md.lists.len()));
            }
            4 => name = Some(push_bytes(&mut md.bytes, ops)?),
            10 => {
                let n = name.take().ok_or_else(|| malformed("METADATA_NAMED_NODE without a name"))?;
                let start = md.lists.len();
                md.lists.extend_from_slice(ops);
                md.named.push((n, start..md.lists.len()));
            }
            6 | 36 | 38 | 39 => {}
            8 | 9 => return Err(unsupported("pre-3.6 metadata nodes")),
            35 => return Err(unsupported("METADATA_STRINGS (LLVM 4+)")),
            7 | 12..=34 | 37 | 40..=64 => md.slots.push(RawMd::Other),
            other => return Err(unsupported(format!("metadata code {other}"))),
        }
    }
}

/// Appends a record's characters (one per operand) to `bytes`; returns their range.
fn push_bytes(bytes: &mut Vec<u8>, ops: &[u64]) -> Res<Range<usize>> {
    let start = bytes.len();
    for &c in ops {
        bytes.push(u8::try_from(c).map_err(|_| malformed(format!("character {c} in a string")))?);
    }
    Ok(start..bytes.len())
}

struct Walk {
    ids: Vec<Option<MdId>>,
    work: Vec<(usize, MdId)>,
}

fn node_id(rd: &mut Reader, w: &mut Walk, slot: u64) -> Res<MdId> {
    let s = usize::try_from(slot).map_err(|_| malformed("metadata id"))?;
    if let Some(Some(id)) = w.ids.get(s) {
        return Ok(*id);
    }
    let data = match rd.md.slots.get(s) {
        None => return Err(malformed(format!("metadata id {slot} is not defined"))),
        Some(RawMd::String(r)) => Metadata::String(rd.md.string(r)),
        Some(RawMd::Value { ty, value }) => {
            let (v, t) = match rd.values.get(*value as usize) {
                Some(&Slot::Val(v, t)) => (v, t),
                _ => return Err(malformed(format!("metadata refers to value {value}, which does not exist"))),
            };
            if t != *ty {
                return Err(malformed("metadata value of the wrong type"));
            }
            Metadata::Value { ty: t, value: v }
        }
        Some(RawMd::Node(_)) => {
            let id = rd.m.metadata.nodes.push(Metadata::Other);
            w.ids[s] = Some(id);
            w.work.push((s, id));
            return Ok(id);
        }
        Some(RawMd::Other) => Metadata::Other,
    };
    let id = rd.m.metadata.nodes.push(data);
    w.ids[s] = Some(id);
    Ok(id)
}

fn drain(rd: &mut Reader, w: &mut Walk) -> Res<()> {
    while let Some((s, id)) = w.work.pop() {
        let ops = match rd.md.slots.get(s) {
            Some(RawMd::Node(ops)) => ops.clone(),
            _ => return Err(malformed("metadata node")),
        };
        let mut out = Vec::with_capacity(ops.len());
        for k in ops {
            let op = rd.md.lists.get(k).copied().ok_or_else(|| malformed("metadata node"))?;
            out.push(if op == 0 { None } else { Some(node_id(rd, w, op - 1)?) });
        }
        rd.m.metadata.nodes[id] = Metadata::Node(out);
    }
    Ok(())
}

/// Convert the named metadata and everything it reaches, in the LLVM front end's order.
pub fn convert(rd: &mut Reader) -> Res<()> {
    let mut w = Walk { ids: vec![None; rd.md.slots.len()], work: Vec::new() };
    rd.m.metadata.nodes.reserve(rd.md.slots.len());
    let named = std::mem::take(&mut rd.md.named);
    // A repeated name's operands are appended to its first record's: each record links to
    // the next of the same name (linear in the records, whatever the names). Names compare
    // as the strings they become (invalid UTF-8 replaced).
    let mut next = vec![usize::MAX; named.len()];
    let mut repeated = vec![false; named.len()];
    {
        let mut last: HashMap<Cow<'_, str>, usize, InternHasher> = HashMap::default();
        for (k, (name, _)) in named.iter().enumerate() {
            let name = String::from_utf8_lossy(rd.md.bytes.get(name.clone()).unwrap_or(&[]));
            if let Some(previous) = last.insert(name, k) {
                next[previous] = k;
                repeated[k] = true;
            }
        }
    }
    for first in 0..named.len() {
        if repeated[first] {
            continue;
        }
        let name = rd.md.string(&named[first].0);
        let mut list = Vec::with_capacity(named[first].1.len());
        let mut record = first;
        while record != usize::MAX {
            for k in named[record].1.clone() {
                let op = rd.md.lists[k];
                match rd.md.slots.get(op as usize) {
                    Some(RawMd::Node(_) | RawMd::Other) => {}
                    _ => return Err(malformed(format!("named metadata `{name}` operand is not a node"))),
                }
                list.push(node_id(rd, &mut w, op)?);
            }
            record = next[record];
        }
        rd.m.metadata.named.insert(name, list);
        drain(rd, &mut w)?;
    }
    Ok(())
}
