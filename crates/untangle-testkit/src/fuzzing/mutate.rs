//! Deterministic byte-level mutation of seed inputs, for robustness tests of the binary
//! readers (container, bitcode) and as a custom mutator for cargo-fuzz.
//!
//! Everything is driven by [`SplitMix64`] (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", 2014), so a failing case is reproduced from its seed
//! alone. Mutations are the classic AFL set (bit flips, random bytes, "interesting"
//! integers, truncation, deletion, duplication, insertion, splicing with another seed)
//! plus one structure-aware move: [`container_fields`] lists the offsets of a DXBC
//! container's size, count and offset fields and the first words of each chunk, because
//! random flips almost never hit those, and those are where readers go wrong.

/// SplitMix64: tiny, fast, and good enough to drive mutations.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform-ish in `0..n`; 0 when `n` is 0. (The modulo bias is irrelevant here.)
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

/// Values that sit on the edges of size and count checks.
pub const INTERESTING_U32: &[u32] = &[
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    20,
    24,
    32,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fff0,
    0xffff_fff8,
    0xffff_fffc,
    0xffff_ffff,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutation {
    FlipBit,
    RandomByte,
    /// An interesting `u32` at a random position.
    InterestingU32,
    /// An interesting or length-relative `u32` over a structural field (see [`container_fields`]).
    FieldU32,
    Truncate,
    DeleteRange,
    DuplicateRange,
    InsertRandom,
    /// Replace the tail with a tail of another input.
    Splice,
}

impl Mutation {
    pub const ALL: [Mutation; 9] = [
        Mutation::FlipBit,
        Mutation::RandomByte,
        Mutation::InterestingU32,
        Mutation::FieldU32,
        Mutation::Truncate,
        Mutation::DeleteRange,
        Mutation::DuplicateRange,
        Mutation::InsertRandom,
        Mutation::Splice,
    ];
}

/// Applies a few random mutations per call.
#[derive(Clone, Debug)]
pub struct Mutator {
    pub rng: SplitMix64,
    /// Mutations per [`Mutator::mutate`] call are drawn from `1..=max_mutations`.
    pub max_mutations: usize,
    /// Growing mutations stop at this length.
    pub max_len: usize,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Mutator { rng: SplitMix64::new(seed), max_mutations: 4, max_len: 1 << 20 }
    }

    /// A mutated copy of `input`; `donors` feed [`Mutation::Splice`] (may be empty).
    pub fn mutate(&mut self, input: &[u8], donors: &[&[u8]]) -> Vec<u8> {
        let mut data = input.to_vec();
        let steps = 1 + self.rng.below(self.max_mutations.max(1));
        for _ in 0..steps {
            let kind = Mutation::ALL[self.rng.below(Mutation::ALL.len())];
            self.apply(kind, &mut data, donors);
        }
        data
    }

    pub fn apply(&mut self, kind: Mutation, data: &mut Vec<u8>, donors: &[&[u8]]) {
        let rng = &mut self.rng;
        let len = data.len();
        match kind {
            Mutation::FlipBit if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            Mutation::RandomByte if len > 0 => {
                let at = rng.below(len);
                data[at] = rng.next_u64() as u8;
            }
            Mutation::InterestingU32 if len >= 4 => {
                // Mostly aligned: that is where real fields are.
                let at = if rng.chance(80) { rng.below(len / 4) * 4 } else { rng.below(len - 3) };
                let value = *rng.pick(INTERESTING_U32).unwrap_or(&0);
                data[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            Mutation::FieldU32 if len >= 4 => {
                let fields = container_fields(data);
                let at = match rng.pick(&fields) {
                    Some(&at) => at,
                    None => rng.below(len / 4) * 4,
                };
                let old = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                let value = match rng.below(4) {
                    0 => *rng.pick(INTERESTING_U32).unwrap_or(&0),
                    1 => old.wrapping_add(rng.below(9) as u32).wrapping_sub(4),
                    2 => (len as u32).wrapping_add(rng.below(9) as u32).wrapping_sub(4),
                    _ => rng.next_u32(),
                };
                data[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            Mutation::Truncate if len > 0 => {
                data.truncate(rng.below(len));
            }
            Mutation::DeleteRange if len > 1 => {
                let start = rng.below(len);
                let end = start + 1 + rng.below((len - start).min(64));
                data.drain(start..end.min(len));
            }
            Mutation::DuplicateRange if len > 0 && len < self.max_len => {
                let start = rng.below(len);
                let count = 1 + rng.below((len - start).min(64));
                let copy = data[start..start + count].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, copy);
            }
            Mutation::InsertRandom if len < self.max_len => {
                let at = rng.below(len + 1);
                let count = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..count).map(|_| rng.next_u64() as u8).collect();
                data.splice(at..at, bytes);
            }
            Mutation::Splice => {
                let Some(donor) = rng.pick(donors) else {
                    return;
                };
                let cut = rng.below(len + 1);
                let from = rng.below(donor.len() + 1);
                let take = (donor.len() - from).min(self.max_len.saturating_sub(cut));
                data.truncate(cut);
                data.extend_from_slice(&donor[from..from + take]);
            }
            // Too short for this mutation: leave it alone.
            _ => {}
        }
    }
}

/// Offsets of the `u32` fields of a DXBC container that readers trust the most: total
/// size, chunk count, every chunk offset and chunk size, and the first 32 words of each
/// chunk's payload (counts, sizes and offsets of the chunk formats live there). Empty
/// if `bytes` is not a container. Never reads out of bounds, whatever the input.
pub fn container_fields(bytes: &[u8]) -> Vec<usize> {
    const PAYLOAD_WORDS: usize = 32;
    if bytes.len() < 32 || &bytes[..4] != b"DXBC" {
        return Vec::new();
    }
    let read = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut fields = vec![24, 28];
    let count = (read(28).unwrap_or(0) as usize).min((bytes.len() - 32) / 4);
    for i in 0..count {
        let entry = 32 + 4 * i;
        fields.push(entry);
        let Some(offset) = read(entry) else { continue };
        let offset = offset as usize;
        if read(offset.saturating_add(4)).is_some() {
            fields.push(offset + 4);
        }
        for word in 0..PAYLOAD_WORDS {
            let at = offset.saturating_add(8 + 4 * word);
            if read(at).is_none() {
                break;
            }
            fields.push(at);
        }
    }
    fields
}

/// Rewrites a DXBC container's total-size field to the buffer's length, so that a
/// mutation that changed the length reaches the chunk parsers instead of stopping at
/// the first size check. No-op on anything shorter than a container header.
pub fn patch_container_size(data: &mut [u8]) {
    if data.len() >= 32 && &data[..4] == b"DXBC" {
        let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
        data[24..28].copy_from_slice(&len.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_deterministic() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        // Reference value of SplitMix64 seeded with 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(a.below(0), 0);
    }

    #[test]
    fn mutations_never_panic_on_tiny_inputs() {
        let mut m = Mutator::new(1);
        let donors: &[&[u8]] = &[b"DXBC", b""];
        for len in 0..8 {
            for kind in Mutation::ALL {
                for _ in 0..16 {
                    let mut data = vec![0xaa; len];
                    m.apply(kind, &mut data, donors);
                    assert!(data.len() <= len + 64);
                }
            }
        }
    }

    #[test]
    fn mutate_is_reproducible_and_changes_something() {
        let input: Vec<u8> = (0..200).map(|i| i as u8).collect();
        let a: Vec<Vec<u8>> = {
            let mut m = Mutator::new(42);
            (0..50).map(|_| m.mutate(&input, &[&input])).collect()
        };
        let b: Vec<Vec<u8>> = {
            let mut m = Mutator::new(42);
            (0..50).map(|_| m.mutate(&input, &[&input])).collect()
        };
        assert_eq!(a, b);
        assert!(a.iter().any(|x| *x != input));
    }

    #[test]
    fn container_fields_are_in_bounds() {
        let mut bytes = b"DXBC".to_vec();
        bytes.extend_from_slice(&[0; 16]);
        bytes.extend_from_slice(&[1, 0, 0, 0]);
        bytes.extend_from_slice(&52u32.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&36u32.to_le_bytes());
        bytes.extend_from_slice(b"SFI0");
        bytes.extend_from_slice(&8u32.to_le_bytes());
        bytes.extend_from_slice(&[0; 8]);
        let fields = container_fields(&bytes);
        assert_eq!(fields, [24, 28, 32, 40, 44, 48]);
        // Garbage counts and offsets stay in bounds.
        bytes[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
        bytes[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
        for at in container_fields(&bytes) {
            assert!(at + 4 <= bytes.len());
        }
        assert!(container_fields(b"BC\xc0\xde").is_empty());
    }

    #[test]
    fn patches_size() {
        let mut bytes = b"DXBC".to_vec();
        bytes.resize(40, 0);
        patch_container_size(&mut bytes);
        assert_eq!(bytes[24..28], 40u32.to_le_bytes());
        let mut short = b"DXBC".to_vec();
        patch_container_size(&mut short);
        assert_eq!(short, b"DXBC");
    }
}
