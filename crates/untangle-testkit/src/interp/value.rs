//! Values of the interpreter and how exactly D3D defines them.
//!
//! A [`Val`] is what one SSA value holds for one thread: a scalar (integer or float bits,
//! zero-extended into a `u64`, the width coming from the IR type), an aggregate (DXIL's
//! return structs such as `%dx.types.ResRet.f32`, vectors, arrays), a pointer into
//! interpreter memory, or a resource handle.
//!
//! Every scalar carries an [`Acc`]: how far a conforming D3D implementation may be from the
//! bits we computed. `Acc::EXACT` means the bits are the only valid answer; `Acc::ulp(n)`
//! means any float within `n` units in the last place is valid (NaN matches any NaN);
//! [`Acc::ANY`] means D3D does not define the value (an undefined read, a denormal that may
//! or may not be flushed, a fused-or-not multiply-add that differs, an order-dependent
//! race). Accuracy propagates conservatively: an exact operation of exact inputs is exact,
//! anything computed from an inexact input is `ANY` (error bounds are not tracked through
//! chains, so no false alarm can come from a tolerance we under-estimated).

use std::rc::Rc;
use untangle::dxil::ResourceClass;

/// How far from the computed bits a valid result may be (see the module docs).
///
/// `Acc(0)` exact, `Acc(n)` n ULP, [`Acc::ROUNDED`] exact bits that came out of a
/// rounding float operation (a fast-math consumer may be fused or reassociated with it, see
/// [`super::float`]), [`Acc::ANY`] undefined.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash, Default)]
pub struct Acc(pub u32);

impl Acc {
    pub const EXACT: Acc = Acc(0);
    /// Exact, but the result of a rounding float operation.
    pub const ROUNDED: Acc = Acc(u32::MAX - 1);
    pub const ANY: Acc = Acc(u32::MAX);

    pub fn ulp(n: u32) -> Acc {
        Acc(n.min(u32::MAX - 2))
    }

    /// The bits are the only valid answer (plain or rounded).
    pub fn is_exact(self) -> bool {
        self.0 == 0 || self == Acc::ROUNDED
    }

    pub fn is_rounded(self) -> bool {
        self == Acc::ROUNDED
    }

    pub fn is_any(self) -> bool {
        self == Acc::ANY
    }

    /// The ULP distance a comparison accepts (0 for exact values).
    pub fn tolerance(self) -> u32 {
        if self.is_exact() {
            0
        } else {
            self.0
        }
    }

    /// The accuracy of a result computed exactly from inputs of accuracy `self` and `o`:
    /// exact only if both are (rounded if either is), otherwise undefined (bounds are not
    /// propagated).
    pub fn join(self, o: Acc) -> Acc {
        match (self.is_exact() && o.is_exact(), self.is_rounded() || o.is_rounded()) {
            (false, _) => Acc::ANY,
            (true, true) => Acc::ROUNDED,
            (true, false) => Acc::EXACT,
        }
    }
}

/// One scalar: bits zero-extended into 64, plus their accuracy.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Scalar {
    pub bits: u64,
    pub acc: Acc,
}

impl Scalar {
    pub fn exact(bits: u64) -> Scalar {
        Scalar { bits, acc: Acc::EXACT }
    }

    pub fn undefined() -> Scalar {
        Scalar { bits: 0, acc: Acc::ANY }
    }
}

/// Where a pointer points: which memory, and the byte offset in it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Space {
    /// A module global: groupshared (address space 3) or a constant array.
    Global(u32),
    /// An `alloca` of the current thread, by instruction index.
    Local(u32),
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Ptr {
    pub space: Space,
    pub offset: i64,
}

/// A resource handle: the D3D register it names (class, space, absolute register), or a
/// descriptor-heap index (SM 6.6 `CreateHandleFromHeap`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Handle {
    Reg { class: ResourceClass, space: u32, register: u32 },
    Heap { sampler: bool, index: u32 },
}

#[derive(Clone, PartialEq, Debug)]
pub enum Val {
    S(Scalar),
    Agg(Rc<[Val]>),
    Ptr(Ptr),
    Handle(Handle),
}

impl Val {
    pub fn exact(bits: u64) -> Val {
        Val::S(Scalar::exact(bits))
    }

    pub fn undefined() -> Val {
        Val::S(Scalar::undefined())
    }

    pub fn bool(b: bool) -> Val {
        Val::exact(b as u64)
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Val::S(s) => Some(*s),
            _ => None,
        }
    }

    pub fn agg(elems: Vec<Val>) -> Val {
        Val::Agg(elems.into())
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// The low `bits` bits of `v`.
pub fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}
