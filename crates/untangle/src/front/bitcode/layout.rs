//! ABI and preferred alignments from a module's data layout string.
//!
//! Only needed where LLVM's reader fills in an unspecified (zero) alignment of a `load`,
//! `store` (ABI alignment) or `alloca` (preferred alignment). Rules from LLVM's
//! "Data Layout" language reference: `iN:abi[:pref]`, `fN:...`, `vN:...`, `p[n]:size:abi[:pref]`,
//! `a:abi[:pref]`, sizes in bits; an integer width without an entry takes the next larger
//! entry (the largest if none is larger); a vector without an entry is aligned to its size
//! rounded up to a power of two; arrays align as their element; structs as their most
//! aligned field (1 when packed) and at least the `a` entry. Defaults are LLVM's.

use crate::ir::{FloatKind, Type, TypeId, Types};

#[derive(Clone, Debug)]
pub struct DataLayout {
    ints: Vec<(u32, u32, u32)>,
    floats: Vec<(u32, u32, u32)>,
    vectors: Vec<(u32, u32, u32)>,
    pointer: (u32, u32, u32),
    aggregate: (u32, u32),
}

impl Default for DataLayout {
    fn default() -> Self {
        DataLayout {
            ints: vec![(1, 8, 8), (8, 8, 8), (16, 16, 16), (32, 32, 32), (64, 32, 64)],
            floats: vec![(16, 16, 16), (32, 32, 32), (64, 64, 64), (128, 128, 128)],
            vectors: vec![(64, 64, 64), (128, 128, 128)],
            pointer: (64, 64, 64),
            aggregate: (0, 64),
        }
    }
}

/// The first three numbers of a spec's `:`-separated fields (0 where missing or not a
/// number), and how many fields there were.
fn numbers<'s>(fields: impl Iterator<Item = &'s str>) -> ([u32; 3], usize) {
    let mut nums = [0; 3];
    let mut count = 0;
    for f in fields {
        if let Some(n) = nums.get_mut(count) {
            *n = f.parse().unwrap_or(0);
        }
        count += 1;
    }
    (nums, count)
}

fn set(list: &mut Vec<(u32, u32, u32)>, entry: (u32, u32, u32)) {
    match list.iter_mut().find(|e| e.0 == entry.0) {
        Some(e) => *e = entry,
        None => list.push(entry),
    }
}

impl DataLayout {
    pub fn parse(s: &str) -> DataLayout {
        let mut dl = DataLayout::default();
        for spec in s.split('-') {
            let (head, rest) = spec.split_at(spec.char_indices().nth(1).map(|(i, _)| i).unwrap_or(spec.len()));
            let (nums, count) = numbers(rest.split(':'));
            let n = |i: usize| nums[i];
            match head {
                "i" => set(&mut dl.ints, (n(0), n(1), if count > 2 { n(2) } else { n(1) })),
                "f" => set(&mut dl.floats, (n(0), n(1), if count > 2 { n(2) } else { n(1) })),
                "v" => set(&mut dl.vectors, (n(0), n(1), if count > 2 { n(2) } else { n(1) })),
                // `p:size:abi:pref` and `p0:...` (other address spaces are ignored).
                "p" if rest.starts_with(':') || rest.starts_with("0:") => {
                    let (g, count) = numbers(rest.split(':').skip(1));
                    dl.pointer = (g[0], g[1], if count > 2 { g[2] } else { g[1] });
                }
                "a" => dl.aggregate = (n(1), if count > 2 { n(2) } else { n(1) }),
                _ => {}
            }
        }
        dl
    }

    /// ABI alignment of `t` in bytes.
    pub fn abi_align(&self, types: &Types, t: TypeId) -> u32 {
        self.align(types, t, false, 0)
    }

    /// Preferred alignment of `t` in bytes.
    pub fn pref_align(&self, types: &Types, t: TypeId) -> u32 {
        self.align(types, t, true, 0)
    }

    fn pick(e: (u32, u32, u32), pref: bool) -> u32 {
        let bits = if pref { e.2.max(e.1) } else { e.1 };
        (bits / 8).max(1)
    }

    fn align(&self, types: &Types, t: TypeId, pref: bool, depth: u32) -> u32 {
        if depth > 64 {
            return 1;
        }
        match types.get(t) {
            Type::Int(w) => {
                let mut best: Option<(u32, u32, u32)> = None;
                for &e in &self.ints {
                    if e.0 >= *w && best.is_none_or(|b| e.0 < b.0) {
                        best = Some(e);
                    }
                }
                let e = best.or_else(|| self.ints.iter().copied().max_by_key(|e| e.0)).unwrap_or((8, 8, 8));
                Self::pick(e, pref)
            }
            Type::Float(k) => {
                let bits = match k {
                    FloatKind::X86Fp80 => 128,
                    other => other.bits(),
                };
                match self.floats.iter().find(|e| e.0 == bits) {
                    Some(&e) => Self::pick(e, pref),
                    None => (bits / 8).max(1),
                }
            }
            Type::Pointer { .. } => Self::pick(self.pointer, pref),
            Type::Vector { elem, len } => {
                let bits = self.size_bits(types, *elem, depth + 1).saturating_mul(*len as u64);
                match self.vectors.iter().find(|e| e.0 as u64 == bits) {
                    Some(&e) => Self::pick(e, pref),
                    None => (bits.div_ceil(8).max(1).next_power_of_two()).min(1 << 30) as u32,
                }
            }
            Type::Array { elem, .. } => self.align(types, *elem, pref, depth + 1),
            Type::Struct { .. } | Type::Named(_) => {
                let packed = match types.get(t) {
                    Type::Struct { packed, .. } => *packed,
                    _ => types.body(t).is_some_and(|b| b.packed),
                };
                let agg = ((if pref { self.aggregate.1 } else { self.aggregate.0 }) / 8).max(1);
                if packed {
                    return agg;
                }
                let fields = types.struct_fields(t).unwrap_or(&[]);
                fields.iter().map(|&f| self.align(types, f, false, depth + 1)).max().unwrap_or(1).max(agg)
            }
            _ => 1,
        }
    }

    /// Store size in bits of a vector element (ints rounded to bytes).
    fn size_bits(&self, types: &Types, t: TypeId, _depth: u32) -> u64 {
        match types.get(t) {
            Type::Int(w) => (*w as u64).div_ceil(8) * 8,
            Type::Float(k) => k.bits() as u64,
            Type::Pointer { .. } => self.pointer.0 as u64,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dxil_layouts() {
        let mut types = Types::default();
        let i8t = types.int(8);
        let i16t = types.int(16);
        let i64t = types.int(64);
        let old = DataLayout::parse("e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64");
        assert_eq!(old.abi_align(&types, i8t), 4);
        assert_eq!(old.abi_align(&types, i64t), 8);
        let new = DataLayout::parse("e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64");
        assert_eq!(new.abi_align(&types, i16t), 2);
        let p = types.intern(Type::Pointer { pointee: i8t, addr_space: 0 });
        assert_eq!(new.abi_align(&types, p), 4);
    }
}
