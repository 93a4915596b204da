//! Capability requirements `spirv-val` does not check, checked on the module's words.
//!
//! `spirv-val` accepts an `OpImageRead` of a storage image declared without a format
//! (`Unknown`) in a module that does not declare `StorageImageReadWithoutFormat`, and the
//! same for `OpImageWrite` and `StorageImageWriteWithoutFormat`; Vulkan requires both
//! (the device features `shaderStorageImageReadWithoutFormat` /
//! `...WriteWithoutFormat`). untangle declares them only where a module reads or writes
//! such an image, so [`SpirvVal::validate`](crate::SpirvVal::validate) checks the rule
//! itself.
//!
//! # Invariant
//! An image operand is followed to its type through the instructions that make image
//! values (`OpLoad`, `OpCopyObject`, `OpImage`); an operand whose type is not found is
//! not judged. Cost: one pass over the words and one map of image-typed ids.

use std::collections::HashMap;

const OP_CAPABILITY: u32 = 17;
const OP_TYPE_IMAGE: u32 = 25;
const OP_LOAD: u32 = 61;
const OP_COPY_OBJECT: u32 = 83;
const OP_IMAGE: u32 = 100;
const OP_IMAGE_READ: u32 = 98;
const OP_IMAGE_WRITE: u32 = 99;
const OP_IMAGE_SPARSE_READ: u32 = 320;
const CAP_READ_WITHOUT_FORMAT: u32 = 55;
const CAP_WRITE_WITHOUT_FORMAT: u32 = 56;
/// `Sampled` 2 (a storage image) and format `Unknown` (0), at `OpTypeImage` words 7 and 8.
const STORAGE: u32 = 2;
const UNKNOWN: u32 = 0;

/// What `words` (a whole module) uses without declaring the capability it needs, one line
/// each (empty: nothing missing).
pub fn missing_capabilities(words: &[u32]) -> Vec<String> {
    let mut declared = Vec::new();
    let mut unformatted = HashMap::new(); // OpTypeImage id -> storage image without a format
    let mut image_type = HashMap::new(); // value id -> its image type
    let (mut read, mut write) = (None, None);
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        let inst = &words[at..(at + n.max(1)).min(words.len())];
        let is_unformatted = |id: u32| image_type.get(&id).and_then(|t| unformatted.get(t)) == Some(&true);
        match op {
            OP_CAPABILITY if inst.len() > 1 => declared.push(inst[1]),
            OP_TYPE_IMAGE if inst.len() > 8 => {
                unformatted.insert(inst[1], inst[7] == STORAGE && inst[8] == UNKNOWN);
            }
            OP_LOAD | OP_COPY_OBJECT | OP_IMAGE if inst.len() > 3 && unformatted.contains_key(&inst[1]) => {
                image_type.insert(inst[2], inst[1]);
            }
            OP_IMAGE_READ | OP_IMAGE_SPARSE_READ if inst.len() > 3 && is_unformatted(inst[3]) => {
                read.get_or_insert(inst[2]);
            }
            OP_IMAGE_WRITE if inst.len() > 1 && is_unformatted(inst[1]) => {
                write.get_or_insert(inst[1]);
            }
            _ => {}
        }
        at += n.max(1);
    }
    let mut missing = Vec::new();
    if let Some(id) = read.filter(|_| !declared.contains(&CAP_READ_WITHOUT_FORMAT)) {
        missing.push(format!("%{id}: an image read without a format needs capability StorageImageReadWithoutFormat"));
    }
    if let Some(id) = write.filter(|_| !declared.contains(&CAP_WRITE_WITHOUT_FORMAT)) {
        missing.push(format!("the write to image %{id} (no format) needs capability StorageImageWriteWithoutFormat"));
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fragment of a module: header, the capabilities, a `Float` storage image type
    /// (`%1`, format `format`), an `OpLoad` of it (`%3` from `%2`), then `op` on `%3`.
    fn module(caps: &[u32], format: u32, op: &[u32]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0600, 0, 100, 0];
        for &c in caps {
            w.extend([(2 << 16) | OP_CAPABILITY, c]);
        }
        w.extend([(9 << 16) | OP_TYPE_IMAGE, 1, 50, 1, 0, 0, 0, STORAGE, format]);
        w.extend([(4 << 16) | OP_LOAD, 1, 3, 2]);
        w.extend(op);
        w
    }

    #[test]
    fn reads_and_writes_need_their_capability_only_without_a_format() {
        let read = [(5 << 16) | OP_IMAGE_READ, 60, 4, 3, 70];
        let write = [(4 << 16) | OP_IMAGE_WRITE, 3, 70, 71];
        assert_eq!(missing_capabilities(&module(&[], UNKNOWN, &read)).len(), 1);
        assert!(missing_capabilities(&module(&[CAP_READ_WITHOUT_FORMAT], UNKNOWN, &read)).is_empty());
        assert!(missing_capabilities(&module(&[CAP_READ_WITHOUT_FORMAT], UNKNOWN, &write))[0].contains("Write"));
        assert!(missing_capabilities(&module(&[CAP_WRITE_WITHOUT_FORMAT], UNKNOWN, &write)).is_empty());
        // R32ui (33): formatted, nothing needed.
        assert!(missing_capabilities(&module(&[], 33, &read)).is_empty());
        assert!(missing_capabilities(&module(&[], 33, &write)).is_empty());
    }
}
