//! Byte memory with a shadow tag per byte: groupshared variables, `alloca`s, constant
//! globals and resource contents.
//!
//! Each byte carries a [`Tag`]: the accuracy of the value last written there and the
//! float format it was written as (so that a comparison can apply the right ULP rule and
//! accept any NaN for a NaN). A read joins the accuracies of the bytes it covers; reading
//! a value written with another width or format keeps the accuracy but drops the format.
//! Cost: one `Tag` (8 bytes) per byte of memory; fine for the kilobytes shaders use.

use super::float::Fk;
use super::value::{Acc, Scalar};

/// What a byte of memory holds: accuracy and the float format written (if any).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Tag {
    pub acc: Acc,
    pub fk: Option<FkTag>,
}

/// A float format as stored in a tag.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FkTag {
    H,
    F,
    D,
}

impl FkTag {
    pub fn of(fk: Fk) -> FkTag {
        match fk {
            Fk::H => FkTag::H,
            Fk::F => FkTag::F,
            Fk::D => FkTag::D,
        }
    }

    pub fn fk(self) -> Fk {
        match self {
            FkTag::H => Fk::H,
            FkTag::F => Fk::F,
            FkTag::D => Fk::D,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mem {
    pub bytes: Vec<u8>,
    pub tags: Vec<Tag>,
}

impl Mem {
    /// `len` bytes of zero (exact).
    pub fn zeroed(len: usize) -> Mem {
        Mem { bytes: vec![0; len], tags: vec![Tag::default(); len] }
    }

    /// `len` bytes whose contents are undefined (an uninitialised `alloca` or groupshared).
    pub fn undefined(len: usize) -> Mem {
        Mem { bytes: vec![0; len], tags: vec![Tag { acc: Acc::ANY, fk: None }; len] }
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Mem {
        let n = bytes.len();
        Mem { bytes, tags: vec![Tag::default(); n] }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether `[offset, offset + size)` lies inside.
    pub fn in_bounds(&self, offset: i64, size: usize) -> bool {
        offset >= 0 && (offset as u64).checked_add(size as u64).is_some_and(|e| e <= self.bytes.len() as u64)
    }

    /// Reads `size` (≤ 8) bytes little-endian; `None` when out of bounds.
    pub fn read(&self, offset: i64, size: usize) -> Option<Scalar> {
        if !self.in_bounds(offset, size) {
            return None;
        }
        let o = offset as usize;
        let mut bits = 0u64;
        let mut acc = Acc::EXACT;
        for i in 0..size {
            bits |= (self.bytes[o + i] as u64) << (8 * i);
            acc = acc.join(self.tags[o + i].acc);
        }
        Some(Scalar { bits, acc })
    }

    /// Writes `size` (≤ 8) bytes little-endian; false (nothing written) when out of bounds.
    pub fn write(&mut self, offset: i64, size: usize, v: Scalar, fk: Option<Fk>) -> bool {
        if !self.in_bounds(offset, size) {
            return false;
        }
        let o = offset as usize;
        let tag = Tag { acc: v.acc, fk: fk.map(FkTag::of) };
        for i in 0..size {
            self.bytes[o + i] = (v.bits >> (8 * i)) as u8;
            self.tags[o + i] = tag;
        }
        true
    }

    /// Marks bytes as holding an undefined value (a race, an out-of-bounds rule that D3D
    /// leaves open).
    pub fn mark_any(&mut self, offset: i64, size: usize) {
        if offset < 0 {
            return;
        }
        let o = offset as usize;
        for i in o..(o + size).min(self.tags.len()) {
            self.tags[i].acc = Acc::ANY;
        }
    }
}
