//! Function attributes: the string attributes of each attribute list that applies to a
//! function (`PARAMATTR_GROUP_BLOCK`, block 10, and `PARAMATTR_BLOCK`, block 9).
//!
//! Record layouts from LLVM's `LLVMBitCodes.h` as LLVM 3.7 writes them:
//! `PARAMATTR_GRP_CODE_ENTRY` (3) `[group id, index, attribute...]`, where `index` is
//! `0xFFFF_FFFF` for the function itself (0 the return value, k parameter k) and each
//! attribute is `0, kind` (enum), `1, kind, value` (integer), `3, key chars, 0` (string)
//! or `4, key chars, 0, value chars, 0` (string with a value); later LLVMs add type
//! attributes `5, kind, type` and `6, kind`. `PARAMATTR_CODE_ENTRY` (2) `[group id...]`
//! is one attribute list; `MODULE_CODE_FUNCTION`'s attribute operand is 1 + its position
//! among the lists (0: none). Only the function's own string attributes are kept.

use super::bitstream::Res;
use super::cursor::{Cursor, Entry};
use super::symtab::string_of;
use crate::ir::hash::HashMap;
use std::collections::BTreeMap;

/// String attributes (key → value; the empty value for a key alone).
pub type StringAttributes = BTreeMap<String, String>;

/// The index of an attribute group that applies to the function itself.
const FUNCTION_INDEX: u64 = 0xFFFF_FFFF;

/// Read an attribute group block (after [`Entry::SubBlock`]`(10)`): the function-level
/// string attributes of each group, by group id.
pub fn read_groups(cur: &mut Cursor, groups: &mut HashMap<u64, StringAttributes>) -> Res<()> {
    cur.enter(10)?;
    loop {
        match cur.advance()? {
            Entry::End => return Ok(()),
            Entry::SubBlock(_) => cur.skip()?,
            Entry::Record(3) => {
                let ops = &cur.ops;
                let (Some(&id), Some(&index)) = (ops.first(), ops.get(1)) else { continue };
                if index != FUNCTION_INDEX {
                    continue;
                }
                let attrs = string_attributes(ops.get(2..).unwrap_or(&[]))?;
                groups.insert(id, attrs);
            }
            Entry::Record(_) => {}
        }
    }
}

/// Read an attribute list block (after [`Entry::SubBlock`]`(9)`): each list's
/// function-level string attributes, in list order.
pub fn read_lists(
    cur: &mut Cursor,
    groups: &HashMap<u64, StringAttributes>,
    lists: &mut Vec<StringAttributes>,
) -> Res<()> {
    cur.enter(9)?;
    loop {
        match cur.advance()? {
            Entry::End => return Ok(()),
            Entry::SubBlock(_) => cur.skip()?,
            Entry::Record(code) => {
                let mut attrs = StringAttributes::new();
                // Code 1 (the pre-group encoding) is read as a list without attributes.
                if code == 2 {
                    for g in &cur.ops {
                        if let Some(a) = groups.get(g) {
                            attrs.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
                        }
                    }
                }
                lists.push(attrs);
            }
        }
    }
}

/// The string attributes among a group's encoded attributes. An attribute kind this
/// reader does not know ends the walk (what was read so far is kept).
fn string_attributes(ops: &[u64]) -> Res<StringAttributes> {
    let mut out = StringAttributes::new();
    let mut i = 0;
    while let Some(&kind) = ops.get(i) {
        match kind {
            0 | 6 => i += 2,
            1 | 5 => i += 3,
            3 | 4 => {
                let key_end = ops[i + 1..].iter().position(|&c| c == 0).map_or(ops.len(), |p| i + 1 + p);
                let key = string_of(&ops[i + 1..key_end])?;
                i = key_end + 1;
                let mut value = String::new();
                if kind == 4 {
                    let from = i.min(ops.len());
                    let end = ops[from..].iter().position(|&c| c == 0).map_or(ops.len(), |p| from + p);
                    value = string_of(&ops[from..end])?;
                    i = end + 1;
                }
                out.insert(key, value);
            }
            _ => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<u64> {
        s.bytes().map(u64::from).collect()
    }

    #[test]
    fn string_attributes_are_read_between_enum_and_integer_ones() {
        let mut ops = vec![0, 18, 1, 1, 16];
        ops.push(3);
        ops.extend(chars("waveops-include-helper-lanes"));
        ops.push(0);
        ops.push(4);
        ops.extend(chars("fp32-denorm-mode"));
        ops.push(0);
        ops.extend(chars("ftz"));
        ops.push(0);
        ops.extend([0, 7]);
        let a = string_attributes(&ops).unwrap();
        assert_eq!(a.get("waveops-include-helper-lanes").map(String::as_str), Some(""));
        assert_eq!(a.get("fp32-denorm-mode").map(String::as_str), Some("ftz"));
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn truncated_and_unknown_encodings_stop_the_walk() {
        let mut ops = vec![3];
        ops.extend(chars("a"));
        ops.push(0);
        ops.push(4);
        ops.extend(chars("b"));
        // No terminator after the key, no value.
        let a = string_attributes(&ops).unwrap();
        assert_eq!(a.get("a").map(String::as_str), Some(""));
        assert_eq!(a.get("b").map(String::as_str), Some(""));
        let a = string_attributes(&[9, 3, 97, 0]).unwrap();
        assert!(a.is_empty());
    }
}
