//! Module metadata (`METADATA_BLOCK`, block 15) into [`crate::ir::MetadataTable`].
//!
//! Record codes from LLVM's `LLVMBitCodes.h` (`METADATA_*`) with LLVM 3.7 layouts:
//! `STRING` (1, called `STRING_OLD` by newer tools) is a character array; `VALUE` (2) is
//! `[type, absolute value id]`; `NODE` (3) and `DISTINCT_NODE` (5) list operands as metadata
//! id + 1 (0 is null); `NAME` (4) is followed by `NAMED_NODE` (10) `[metadata ids]`;
//! `KIND` (6) names an instruction attachment kind (not modelled). Debug-info records
//! (`LOCATION` and the `DI*` records, 7 and 12 onwards) take a metadata id each; they are
//! kept as [`crate::ir::MdRef::Other`]. Operands may refer forward.
//!
//! Conversion follows the LLVM front end's walk exactly, because metadata ids are
//! observable in dumps: named metadata in module order (operands of repeated names are
//! appended to the first, as LLVM's `getOrInsertNamedMetadata` does), each operand given an
//! id when first met, tuples filled from a LIFO work list (no recursion; cycles resolve).
//!
//! Cost: strings, names and node operand lists (named nodes' too) are kept in two shared
//! buffers while the block is read; conversion appends what it reaches straight into the
//! table's pools (strings decoded in place, tuple operands pushed as they are resolved), so
//! it allocates nothing per node, string or name.

use super::bitstream::Res;
use super::cursor::Cursor;
use super::error::{malformed, unsupported};
use super::reader::{ModuleMetadata, RawMd, Reader, Slot};
use crate::ir::hash::InternHasher;
use crate::ir::MdId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// Read a module-level metadata block (after [`Entry::SubBlock`]`(15)`).
pub fn read(rd: &mut Reader, cur: &mut Cursor) -> Res<()> {
    cur.enter(15)?;
    // Size hints (DXC's metadata records average about 76 bits; strings, at 8 bits a
    // character, and node operand lists, at 6 to 12 bits an operand, take most of them),
    // from the first block only: DXC writes the kind names in a second block, whose
    // records are skipped.
    if rd.md.slots.is_empty() {
        let bits = cur.bits_left_in_block() as usize;
        rd.md.slots.reserve(bits / 64);
        rd.md.lists.reserve(bits / 24);
        rd.md.bytes.reserve(bits / 16);
    }
    let mut name: Option<Range<usize>> = None;
    loop {
        // Kind names (`METADATA_KIND`, code 6) are not modelled: not even decoded (unless
        // one follows a `METADATA_NAME`, which is an error reported below).
        let pending_name = name.is_some();
        let Some(code) = cur.next_record(|code| code == 6 && !pending_name)? else { return Ok(()) };
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
    let table = &mut rd.m.metadata;
    let id = match rd.md.slots.get(s) {
        None => return Err(malformed(format!("metadata id {slot} is not defined"))),
        Some(RawMd::String(r)) => table.push_string_lossy(rd.md.string_bytes(r)),
        Some(RawMd::Value { ty, value }) => {
            let (v, t) = match rd.values.get(*value as usize) {
                Some(&Slot::Val(v, t)) => (v, t),
                _ => return Err(malformed(format!("metadata refers to value {value}, which does not exist"))),
            };
            if t != *ty {
                return Err(malformed("metadata value of the wrong type"));
            }
            table.push_value(t, v)
        }
        Some(RawMd::Node(_)) => {
            let id = table.push_placeholder();
            w.work.push((s, id));
            id
        }
        Some(RawMd::Other) => table.push_other(),
    };
    w.ids[s] = Some(id);
    Ok(id)
}

fn drain(rd: &mut Reader, w: &mut Walk) -> Res<()> {
    while let Some((s, id)) = w.work.pop() {
        let ops = match rd.md.slots.get(s) {
            Some(RawMd::Node(ops)) => ops.clone(),
            _ => return Err(malformed("metadata node")),
        };
        // `node_id` pushes only placeholders for tuples, never operands, so this tuple's
        // operands stay one run of the pool.
        let run = rd.m.metadata.begin_operands();
        for k in ops {
            let op = rd.md.lists.get(k).copied().ok_or_else(|| malformed("metadata node"))?;
            let op = if op == 0 { None } else { Some(node_id(rd, w, op - 1)?) };
            rd.m.metadata.push_operand(op);
        }
        rd.m.metadata.end_operands(id, run);
    }
    Ok(())
}

/// Convert the named metadata and everything it reaches, in the LLVM front end's order.
pub fn convert(rd: &mut Reader) -> Res<()> {
    let mut w = Walk { ids: vec![None; rd.md.slots.len()], work: Vec::new() };
    // Upper bounds: every slot, every operand (named lists' too), every byte (names too).
    rd.m.metadata.reserve(rd.md.slots.len(), rd.md.lists.len(), rd.md.bytes.len());
    let named = std::mem::take(&mut rd.md.named);
    rd.m.metadata.reserve_named(named.len(), named.iter().map(|(_, ops)| ops.len()).sum());
    let next = link_repeated_names(&rd.md, &named);
    for first in 0..named.len() {
        if next[first].1 {
            continue;
        }
        // `node_id` never sets named metadata, so the ids stay one run of the pool.
        let run = rd.m.metadata.begin_named();
        let mut record = first;
        while record != usize::MAX {
            for k in named[record].1.clone() {
                let op = rd.md.lists[k];
                match rd.md.slots.get(op as usize) {
                    Some(RawMd::Node(_) | RawMd::Other) => {}
                    _ => {
                        let name = rd.md.string(&named[first].0);
                        return Err(malformed(format!("named metadata `{name}` operand is not a node")));
                    }
                }
                let id = node_id(rd, &mut w, op)?;
                rd.m.metadata.push_named_id(id);
            }
            record = next[record].0;
        }
        let name = rd.md.string(&named[first].0);
        rd.m.metadata.end_named(&name, run);
        drain(rd, &mut w)?;
    }
    Ok(())
}

/// Below this many named records, repeated names are found by comparing each with the
/// earlier ones (no map); DXIL modules have about ten.
const FEW_NAMED_RECORDS: usize = 32;

/// For each named record, the next record of the same name (`usize::MAX` if none) and
/// whether an earlier record has its name: a repeated name's operands are appended to its
/// first record's. Names compare as the strings they become (invalid UTF-8 replaced).
/// Linear in the records (with a map) whatever the names; quadratic in comparisons (of
/// names decoded once) below [`FEW_NAMED_RECORDS`].
fn link_repeated_names(md: &ModuleMetadata, named: &[(Range<usize>, Range<usize>)]) -> Vec<(usize, bool)> {
    let mut next = vec![(usize::MAX, false); named.len()];
    if named.len() < FEW_NAMED_RECORDS {
        // Each name decoded once (borrowed unless it is invalid UTF-8), then compared.
        let names: Vec<Cow<'_, str>> = named.iter().map(|(name, _)| md.string(name)).collect();
        for (k, name) in names.iter().enumerate() {
            if let Some(previous) = (0..k).rev().find(|&p| names[p] == *name) {
                next[previous].0 = k;
                next[k].1 = true;
            }
        }
    } else {
        let mut last: HashMap<Cow<'_, str>, usize, InternHasher> = HashMap::default();
        for (k, (name, _)) in named.iter().enumerate() {
            if let Some(previous) = last.insert(md.string(name), k) {
                next[previous].0 = k;
                next[k].1 = true;
            }
        }
    }
    next
}
