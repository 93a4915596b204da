//! Where a translation's descriptor-heap arrays live, and moving them for devices with
//! few descriptor sets.
//!
//! The default binding model puts the resource heap in set 30 and the sampler heap in set
//! 31 (`emit::binding_model::{RESOURCE_HEAP_SET, SAMPLER_HEAP_SET}`); lavapipe binds 8
//! sets. [`move_heap_sets`] renumbers the two sets in the SPIR-V (only `DescriptorSet`
//! decorations of variables named `heap_*` change) to the two smallest sets the module does
//! not use otherwise; [`heap_sets`] reads back where they are, for binding. Cost: one pass
//! over the words.

const OP_NAME: u32 = 5;
const OP_DECORATE: u32 = 71;
const DESCRIPTOR_SET: u32 = 34;

/// `(id, name)` of an `OpName`.
type Name = (u32, String);
/// `(id, set, word index of the set literal)` of a `DescriptorSet` decoration.
type SetDecoration = (u32, u32, usize);

/// Every `OpName` and every `DescriptorSet` decoration.
fn scan(words: &[u32]) -> (Vec<Name>, Vec<SetDecoration>) {
    let (mut names, mut sets) = (Vec::new(), Vec::new());
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        if n == 0 || i + n > words.len() {
            break;
        }
        if op == OP_NAME && n >= 3 {
            let bytes: Vec<u8> = words[i + 2..i + n].iter().flat_map(|w| w.to_le_bytes()).collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            names.push((words[i + 1], String::from_utf8_lossy(&bytes[..end]).into_owned()));
        }
        if op == OP_DECORATE && n >= 4 && words[i + 2] == DESCRIPTOR_SET {
            sets.push((words[i + 1], words[i + 3], i + 3));
        }
        i += n;
    }
    (names, sets)
}

fn is_heap(names: &[(u32, String)], id: u32) -> Option<bool> {
    names
        .iter()
        .find(|(i, _)| *i == id)
        .filter(|(_, n)| n.starts_with("heap_"))
        .map(|(_, n)| n.starts_with("heap_Sampler"))
}

/// The sets of the resource heap and the sampler heap (`None` where the module has none).
pub fn heap_sets(words: &[u32]) -> (Option<u32>, Option<u32>) {
    let (names, sets) = scan(words);
    let (mut res, mut smp) = (None, None);
    for (id, set, _) in sets {
        match is_heap(&names, id) {
            Some(false) => res = Some(set),
            Some(true) => smp = Some(set),
            None => {}
        }
    }
    (res, smp)
}

/// Renumbers the heap sets to the smallest sets no other variable uses; returns whether
/// anything moved.
pub fn move_heap_sets(words: &mut [u32]) -> bool {
    let (names, sets) = scan(words);
    let others: Vec<u32> = sets.iter().filter(|(id, _, _)| is_heap(&names, *id).is_none()).map(|s| s.1).collect();
    let mut free = (0u32..).filter(|s| !others.contains(s));
    let (res, smp) = (free.next().unwrap_or(0), free.next().unwrap_or(1));
    let mut moved = false;
    for (id, _, at) in sets {
        if let Some(sampler) = is_heap(&names, id) {
            words[at] = if sampler { smp } else { res };
            moved = true;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | op];
        v.extend_from_slice(operands);
        v
    }

    fn name(id: u32, s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.resize((s.len() / 4 + 1) * 4, 0);
        let mut ops = vec![id];
        ops.extend(bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().expect("4"))));
        inst(OP_NAME, &ops)
    }

    /// Heap sets move to the smallest sets the other variables leave free; nothing else
    /// changes.
    #[test]
    fn heap_sets_move_below_the_used_ones() {
        let mut w = vec![0x0723_0203, 0x10000, 0, 10, 0];
        w.extend(name(1, "u0_space0"));
        w.extend(name(2, "heap_SRV_Texture2D"));
        w.extend(name(3, "heap_Sampler_Sampler"));
        w.extend(inst(OP_DECORATE, &[1, DESCRIPTOR_SET, 0]));
        w.extend(inst(OP_DECORATE, &[2, DESCRIPTOR_SET, 30]));
        w.extend(inst(OP_DECORATE, &[3, DESCRIPTOR_SET, 31]));
        assert_eq!(heap_sets(&w), (Some(30), Some(31)));
        let before = w.clone();
        assert!(move_heap_sets(&mut w));
        assert_eq!(heap_sets(&w), (Some(1), Some(2)));
        let changed: Vec<usize> = (0..w.len()).filter(|&i| w[i] != before[i]).collect();
        assert_eq!(changed.len(), 2);
    }
}
